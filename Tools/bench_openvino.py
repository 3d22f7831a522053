#!/usr/bin/env python3
"""Time OpenVINO (CPU plugin, f32) on a U²-Net ONNX file, with the same protocol as swiftseg-bench.

    python3 Tools/bench_openvino.py --onnx ~/.cache/swiftseg/u2netp.onnx --size 320 --threads 2 --json

The fastest CPU runtime for these models measured on this machine, so PERF.md quotes it beside ONNX Runtime.
Threads are pinned (INFERENCE_NUM_THREADS), latency mode, one stream, f32 inference precision (no bf16). Needs
`pip install openvino` in the Tools venv. Prints the same JSON keys as Tools/bench_ort.py.
"""

import openvino as ov

from bench_common import bench_input, parse_args, time_and_report


def main():
    a = parse_args(__doc__.splitlines()[0])
    core = ov.Core()
    model = core.read_model(a.onnx)
    model.reshape({model.inputs[0].get_any_name(): [1, 3, a.size, a.size]})
    compiled = core.compile_model(model, "CPU", {
        "INFERENCE_NUM_THREADS": a.threads, "PERFORMANCE_HINT": "LATENCY", "NUM_STREAMS": 1,
        "INFERENCE_PRECISION_HINT": "f32"})
    request = compiled.create_infer_request()
    x = bench_input(a.size, a.input)
    time_and_report(a, lambda: request.infer({0: x}), f"openvino {ov.__version__}")


if __name__ == "__main__":
    main()
