#!/usr/bin/env python3
"""Time MNN (Alibaba's runtime; CPU backend) on a U²-Net ONNX file, with the same protocol as swiftseg-bench.

    python3 Tools/bench_mnn.py --onnx ~/.cache/swiftseg/u2netp.onnx --size 320 --threads 2 --json

The ONNX file is converted once to NAME.mnn beside it (MNN's converter, called from the package's own module:
the `mnnconvert` console script would pip-install a logging SDK, which downgrades protobuf, and send
telemetry). MNN runs 3×3 convolutions as Winograd on x86 too. Precision "normal" (MNN's default, the one its
users run; its Winograd agrees with ONNX Runtime to ~3e-4 on u2netp's d0), or `--precision high` (exact).
Threads pinned (numThread). Prints the same JSON keys as Tools/bench_ort.py; the timed run includes copying the
input in and d0 out, as ORT's does.
"""

import os
import sys

from bench_common import bench_input, parse_args, time_and_report


def converted(onnx_path):
    out = os.path.splitext(onnx_path)[0] + ".mnn"
    if not os.path.exists(out) or os.path.getmtime(out) < os.path.getmtime(onnx_path):
        import _tools  # MNN's converter (the C++ one, bound to Python), without the console script's logger
        tmp = out + ".tmp"
        saved = os.dup(1)  # the converter prints its progress on standard output, where --json goes
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
            _tools.mnnconvert(["mnnconvert", "-f", "ONNX", "--modelFile", onnx_path, "--MNNModel", tmp,
                               "--bizCode", "swiftseg"])
        finally:
            os.dup2(saved, 1)
        if not os.path.exists(tmp):
            sys.exit(f"bench_mnn: MNN could not convert {onnx_path}")
        os.replace(tmp, out)
    return out


def main():
    a = parse_args(__doc__.splitlines()[0], extra=[("--precision", dict(default="normal", choices=["normal", "high"]))])
    import MNN
    path = converted(a.onnx)
    interpreter = MNN.Interpreter(path)
    session = interpreter.createSession({"numThread": a.threads, "precision": a.precision, "backend": "CPU"})
    inp = interpreter.getSessionInput(session)
    shape = (1, 3, a.size, a.size)
    interpreter.resizeTensor(inp, shape)
    interpreter.resizeSession(session)
    import onnx
    first = onnx.load(a.onnx, load_external_data=False).graph.output[0].name  # d0, the fused map
    d0 = interpreter.getSessionOutput(session, first)
    x = bench_input(a.size, a.input)
    host_in = MNN.Tensor(shape, MNN.Halide_Type_Float, x, MNN.Tensor_DimensionType_Caffe)
    host_out = MNN.Tensor(d0.getShape(), MNN.Halide_Type_Float, MNN.Tensor_DimensionType_Caffe)

    def run():
        inp.copyFrom(host_in)
        interpreter.runSession(session)
        d0.copyToHostTensor(host_out)
        return host_out

    time_and_report(a, run, f"mnn {MNN.version()} precision {a.precision}")


if __name__ == "__main__":
    sys.exit(main())
