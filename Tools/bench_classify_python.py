#!/usr/bin/env python3
"""The Python loop `swiftseg classify DIR` is measured against (Tools/bench_classify_batch.sh): for each photo,
Pillow opens it, turns it upright, centre-crops and resizes it with Lanczos to 224, (v − 127) / 128, ONNX Runtime
runs EfficientNet-Lite0, softmax, top 5 — the same steps, the same model. Prints photos/s (JSON with --json).

    Tools/.venv/bin/python Tools/bench_classify_python.py --onnx ~/.cache/swiftseg/efficientnet-lite0.onnx DIR
"""

import argparse
import json
import os
import resource
import time

import numpy as np
import onnxruntime as ort
from PIL import Image, ImageOps


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("folder")
    p.add_argument("--onnx", required=True)
    p.add_argument("--threads", type=int, default=os.cpu_count())
    p.add_argument("--json", action="store_true")
    a = p.parse_args()
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = a.threads
    opts.inter_op_num_threads = 1
    opts.log_severity_level = 3
    sess = ort.InferenceSession(a.onnx, opts, providers=["CPUExecutionProvider"])
    name = sess.get_inputs()[0].name
    photos = sorted(os.path.join(r, f) for r, _, fs in os.walk(a.folder) for f in fs
                    if f.lower().endswith((".jpg", ".jpeg", ".png")))
    start = time.perf_counter()
    for path in photos:
        img = ImageOps.exif_transpose(Image.open(path)).convert("RGB")
        w, h = img.size
        s = min(w, h)
        x, y = (w - s) // 2, (h - s) // 2
        img = img.crop((x, y, x + s, y + s)).resize((224, 224), Image.LANCZOS)
        t = ((np.asarray(img, dtype=np.float32) - 127) / 128).transpose(2, 0, 1)[None]
        logits = sess.run(None, {name: t})[0][0]
        e = np.exp(logits - logits.max())
        probs = e / e.sum()
        _ = np.argsort(-probs)[:5]
    seconds = time.perf_counter() - start
    result = {"photos": len(photos), "seconds": seconds, "photos_per_s": len(photos) / seconds,
              "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
              "runtime": f"onnxruntime {ort.__version__}"}
    print(json.dumps(result) if a.json else f"{len(photos)} photos in {seconds:.2f} s: {result['photos_per_s']:.1f} photos/s")


if __name__ == "__main__":
    main()
