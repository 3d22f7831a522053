#!/usr/bin/env python3
"""Time ONNX Runtime (CPU provider) on a U²-Net ONNX file, with the same protocol as swiftseg-bench.

    python3 Tools/bench_ort.py --onnx ~/.cache/swiftseg/u2netp.onnx --size 320 --threads 2 --iterations 10 --json

Threads are pinned: intra-op = --threads, inter-op = 1, sequential execution. Sizes other than 320 run a copy of
the graph with symbolic height/width. Prints a markdown row, or with --json one object with the same keys as
swiftseg-bench (model, size, threads, iterations, median_ms, min_ms, samples_ms, peak_rss_mb, runtime).
"""

import onnx
import onnxruntime as ort

from bench_common import bench_input, parse_args, time_and_report


def main():
    a = parse_args(__doc__.splitlines()[0])
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
    x = bench_input(a.size, a.input)
    first_output = [sess.get_outputs()[0].name]
    time_and_report(a, lambda: sess.run(first_output, {name: x}), f"onnxruntime {ort.__version__}")


if __name__ == "__main__":
    main()
