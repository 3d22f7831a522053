"""Shared by Tools/bench_ort.py, bench_openvino.py, bench_mnn.py and bench_ncnn.py: the same arguments, input, timing loop and output
as swiftseg-bench (so Tools/bench_compare.sh can put them side by side)."""

import argparse
import json
import os
import resource
import statistics
import time

import numpy as np


def parse_args(description, extra=()):
    p = argparse.ArgumentParser(description=description)
    for name, kwargs in extra:
        p.add_argument(name, **kwargs)
    p.add_argument("--onnx", required=True)
    p.add_argument("--size", type=int, default=320)
    p.add_argument("--threads", type=int, default=os.cpu_count())
    p.add_argument("--iterations", type=int, default=10)
    p.add_argument("--warmup", type=int, default=2)
    p.add_argument("--input", help="a float32 .npy tensor (1x3xSxS) to feed instead of the ramp, as swiftseg-bench --input")
    p.add_argument("--json", action="store_true")
    return p.parse_args()


def bench_input(size, path=None):
    """The input swiftseg-bench uses: a fixed ramp in [-1, 1), 1×3×size×size, or with --input that file's tensor."""
    if path:
        x = np.load(path).astype(np.float32).reshape(1, 3, size, size)
        return np.ascontiguousarray(x)
    return ((np.arange(3 * size * size) % 251) / 125 - 1).astype(np.float32).reshape(1, 3, size, size)


def time_and_report(args, run, runtime):
    """Runs `run()` warmup + iterations times and prints one markdown row, or with --json one object with
    swiftseg-bench's keys (model, size, threads, iterations, median_ms, min_ms, samples_ms, peak_rss_mb)."""
    for _ in range(args.warmup):
        run()
    samples = []
    for _ in range(args.iterations):
        t0 = time.perf_counter()
        run()
        samples.append((time.perf_counter() - t0) * 1e3)
    variant = os.path.splitext(os.path.basename(args.onnx))[0]  # u2netp, u2net, efficientnet-lite0
    result = {"model": variant, "size": args.size, "threads": args.threads, "iterations": args.iterations,
              "median_ms": statistics.median(samples), "min_ms": min(samples), "samples_ms": samples,
              "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, "runtime": runtime}
    if args.json:
        print(json.dumps(result, sort_keys=True))
    else:
        print(f"| {variant} | {args.size} | {args.threads} | {result['median_ms']:.1f} | {result['min_ms']:.1f} | "
              f"{result['peak_rss_mb']:.0f} |")
