#!/usr/bin/env python3
"""Time ONNX Runtime (CPU provider) on a U²-Net ONNX file, with the same protocol as swiftseg-bench.

    python3 Tools/bench_ort.py --onnx ~/.cache/swiftseg/u2netp.onnx --size 320 --threads 2 --iterations 10 --json

Threads are pinned: intra-op = --threads, inter-op = 1, sequential execution. Sizes other than 320 run a copy of
the graph with symbolic height/width. Prints a markdown row, or with --json one object with the same keys as
swiftseg-bench (model, size, threads, iterations, median_ms, min_ms, samples_ms, peak_rss_mb, runtime).
"""

import argparse
import json
import os
import resource
import statistics
import time

import numpy as np
import onnx
import onnxruntime as ort


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--onnx", required=True)
    p.add_argument("--size", type=int, default=320)
    p.add_argument("--threads", type=int, default=os.cpu_count())
    p.add_argument("--iterations", type=int, default=10)
    p.add_argument("--warmup", type=int, default=2)
    p.add_argument("--json", action="store_true")
    a = p.parse_args()

    model = onnx.load(a.onnx)
    if a.size != 320:
        dims = model.graph.input[0].type.tensor_type.shape.dim
        dims[2].dim_param, dims[3].dim_param = "height", "width"
        for out in model.graph.output:
            del out.type.tensor_type.shape.dim[:]
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = a.threads
    opts.inter_op_num_threads = 1
    opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    opts.log_severity_level = 3
    sess = ort.InferenceSession(model.SerializeToString(), opts, providers=["CPUExecutionProvider"])
    name = sess.get_inputs()[0].name
    x = ((np.arange(3 * a.size * a.size) % 251) / 125 - 1).astype(np.float32).reshape(1, 3, a.size, a.size)
    first_output = [sess.get_outputs()[0].name]
    for _ in range(a.warmup):
        sess.run(first_output, {name: x})
    samples = []
    for _ in range(a.iterations):
        t0 = time.perf_counter()
        sess.run(first_output, {name: x})
        samples.append((time.perf_counter() - t0) * 1e3)
    variant = "u2netp" if "u2netp" in os.path.basename(a.onnx) else "u2net"
    result = {"model": variant, "size": a.size, "threads": a.threads, "iterations": a.iterations,
              "median_ms": statistics.median(samples), "min_ms": min(samples), "samples_ms": samples,
              "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
              "runtime": f"onnxruntime {ort.__version__}"}
    if a.json:
        print(json.dumps(result, sort_keys=True))
    else:
        print(f"| {variant} | {a.size} | {a.threads} | {result['median_ms']:.1f} | {result['min_ms']:.1f} | "
              f"{result['peak_rss_mb']:.0f} |")


if __name__ == "__main__":
    main()
