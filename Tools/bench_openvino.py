#!/usr/bin/env python3
"""Time OpenVINO (CPU plugin, f32) on a U²-Net ONNX file, with the same protocol as swiftseg-bench.

    python3 Tools/bench_openvino.py --onnx ~/.cache/swiftseg/u2netp.onnx --size 320 --threads 2 --json

The fastest CPU runtime for these models measured on this machine, so PERF.md quotes it beside ONNX Runtime.
Threads are pinned (INFERENCE_NUM_THREADS), latency mode, one stream, f32 inference precision (no bf16). Needs
`pip install openvino` in the Tools venv. Prints the same JSON keys as Tools/bench_ort.py.
"""

import argparse
import json
import os
import resource
import statistics
import time

import numpy as np
import openvino as ov


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--onnx", required=True)
    p.add_argument("--size", type=int, default=320)
    p.add_argument("--threads", type=int, default=os.cpu_count())
    p.add_argument("--iterations", type=int, default=10)
    p.add_argument("--warmup", type=int, default=2)
    p.add_argument("--json", action="store_true")
    a = p.parse_args()

    core = ov.Core()
    model = core.read_model(a.onnx)
    model.reshape({model.inputs[0].get_any_name(): [1, 3, a.size, a.size]})
    compiled = core.compile_model(model, "CPU", {
        "INFERENCE_NUM_THREADS": a.threads, "PERFORMANCE_HINT": "LATENCY", "NUM_STREAMS": 1,
        "INFERENCE_PRECISION_HINT": "f32"})
    request = compiled.create_infer_request()
    x = ((np.arange(3 * a.size * a.size) % 251) / 125 - 1).astype(np.float32).reshape(1, 3, a.size, a.size)
    for _ in range(a.warmup):
        request.infer({0: x})
    samples = []
    for _ in range(a.iterations):
        t0 = time.perf_counter()
        request.infer({0: x})
        samples.append((time.perf_counter() - t0) * 1e3)
    variant = "u2netp" if "u2netp" in os.path.basename(a.onnx) else "u2net"
    result = {"model": variant, "size": a.size, "threads": a.threads, "iterations": a.iterations,
              "median_ms": statistics.median(samples), "min_ms": min(samples), "samples_ms": samples,
              "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
              "runtime": f"openvino {ov.__version__}"}
    if a.json:
        print(json.dumps(result, sort_keys=True))
    else:
        print(f"| {variant} | {a.size} | {a.threads} | {result['median_ms']:.1f} | {result['min_ms']:.1f} | "
              f"{result['peak_rss_mb']:.0f} |")


if __name__ == "__main__":
    main()
