#!/usr/bin/env python3
"""How much of a photo's 1×1 projection work the zero-skipping kernels can leave out (PERF.md, "Classification"):
for each projection on a small map (196 pixels or fewer) of an ONNX classifier, the share of its terms
(input channel × pixel) whose input is nonzero somewhere in its group of G consecutive pixels — the terms a kernel
that skips zero inputs per (channel, group) still sums — for G = 7 (the AVX-512 kernel's groups), 4, 2 and 1, and
the total weighted by each layer's multiply-adds. Intermediate maps from ONNX Runtime on the committed photo
tensors.

    Tools/.venv/bin/python Tools/count_projection_zeros.py --onnx ~/.cache/swiftseg/efficientnet-lite0.onnx \\
        astronaut chelsea rocket
"""

import argparse
import os

import numpy as np
import onnx
import onnxruntime as ort
from onnx import helper, numpy_helper, shape_inference

GROUPS = (7, 4, 2, 1)


def projections(model):
    """(input name, weight name) of each 1×1 Conv fed by a Clip or Relu (a depthwise conv's activation)."""
    made_by = {o: n for n in model.graph.node for o in n.output}
    found = []
    for n in model.graph.node:
        kernel = [list(a.ints) for a in n.attribute if a.name == "kernel_shape"]
        if n.op_type == "Conv" and kernel == [[1, 1]]:
            source = made_by.get(n.input[0])
            if source is not None and source.op_type in ("Clip", "Relu"):
                found.append((n.input[0], n.input[1]))
    return found


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--onnx", required=True)
    p.add_argument("photos", nargs="+", help="names of Tests/Fixtures/classify/NAME.input.npy")
    a = p.parse_args()
    model = shape_inference.infer_shapes(onnx.load(a.onnx))
    targets = projections(model)
    weights = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
    for name, _ in targets:
        model.graph.output.append(helper.make_tensor_value_info(name, onnx.TensorProto.FLOAT, None))
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    fixtures = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Tests", "Fixtures", "classify")
    for photo in a.photos:
        x = np.load(os.path.join(fixtures, f"{photo}.input.npy")).astype(np.float32)
        maps = session.run([t[0] for t in targets], {session.get_inputs()[0].name: x})
        summed = dict.fromkeys(GROUPS, 0)
        dense = 0
        print(photo)
        for (_, weight), m in zip(targets, maps):
            c, h, w = m[0].shape
            if h * w > 196:
                continue
            outputs, nonzero, n = weights[weight].shape[0], m[0].reshape(c, h * w) != 0, h * w
            shares = []
            for g in GROUPS:
                terms = sum(nonzero[:, s:s + g].any(axis=1).sum() * min(g, n - s) for s in range(0, n, g))
                shares.append(terms / (c * n))
                summed[g] += terms * outputs
            dense += c * n * outputs
            print(f"  {c}→{outputs} on {h}×{w}: " + ", ".join(f"groups of {g} {v:.2f}" for g, v in zip(GROUPS, shares)))
        print(f"  all ({dense / 1e6:.1f} M multiply-adds dense): "
              + ", ".join(f"groups of {g} {summed[g] / dense:.3f}" for g in GROUPS))


if __name__ == "__main__":
    main()
