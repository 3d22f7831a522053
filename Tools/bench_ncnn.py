#!/usr/bin/env python3
"""Time ncnn (Tencent's runtime) on a U²-Net ONNX file, with the same protocol as swiftseg-bench.

    python3 Tools/bench_ncnn.py --onnx ~/.cache/swiftseg/u2netp.onnx --size 320 --threads 2 --json

The ONNX file is converted once to NAME.ncnn.param/.bin beside it with pnnx's bundled binary (`pip install
--no-deps pnnx`: the wheel's torch dependency is only for tracing PyTorch models), `fp16=0` so the weights stay
float32. ncnn runs 3×3 convolutions as Winograd on x86. Options: fp16 and bf16 storage and arithmetic off
(float32 throughout, like the others), packing layout on (its fast path; results unchanged). Threads pinned
(num_threads). Prints the same JSON keys as Tools/bench_ort.py; the timed run includes the input Mat and d0.
"""

import glob
import os
import shutil
import subprocess
import sys
import tempfile

from bench_common import bench_input, parse_args, time_and_report


def converted(onnx_path, size):
    stem = os.path.splitext(onnx_path)[0]
    param, weights = stem + ".ncnn.param", stem + ".ncnn.bin"
    if os.path.exists(param) and os.path.getmtime(param) >= os.path.getmtime(onnx_path):
        return param, weights
    import importlib.util  # the package's __init__ imports torch; only its bundled binary is needed
    binary = os.path.join(importlib.util.find_spec("pnnx").submodule_search_locations[0], "pnnx")
    with tempfile.TemporaryDirectory() as tmp:
        local = os.path.join(tmp, "model.onnx")
        shutil.copy(onnx_path, local)
        subprocess.run([binary, local, f"inputshape=[1,3,{size},{size}]", "fp16=0"], cwd=tmp, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        shutil.move(os.path.join(tmp, "model.ncnn.bin"), weights)
        shutil.move(os.path.join(tmp, "model.ncnn.param"), param)
    return param, weights


def main():
    a = parse_args(__doc__.splitlines()[0])
    import ncnn
    param, weights = converted(a.onnx, a.size)
    net = ncnn.Net()
    net.opt.num_threads = a.threads
    net.opt.use_packing_layout = True
    for flag in ("use_fp16_packed", "use_fp16_storage", "use_fp16_arithmetic", "use_bf16_storage"):
        setattr(net.opt, flag, False)
    net.load_param(param)
    net.load_model(weights)
    x = bench_input(a.size, a.input)[0]

    def run():
        with net.create_extractor() as ex:
            ex.input("in0", ncnn.Mat(x))
            _, out = ex.extract("out0")
            return out

    time_and_report(a, run, f"ncnn {ncnn.__version__}")


if __name__ == "__main__":
    sys.exit(main())
