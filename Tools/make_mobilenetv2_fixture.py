#!/usr/bin/env python3
"""A MobileNetV2 export with seeded random weights, as torchvision's `torch.onnx.export` writes it (BatchNorm folded
into each Conv, ReLU6 as Clip(0, 6), anonymous initializer names "onnx::Conv_N", Flatten, Gemm transB = 1), for the
converter's and the Swift runtime's parity tests: no pretrained MobileNetV2 ships in any package reachable here.

    Tools/.venv/bin/python Tools/make_mobilenetv2_fixture.py            # the committed test fixture (below)
    Tools/.venv/bin/python Tools/make_mobilenetv2_fixture.py --width 1.0 --classes 1000 --size 224 --onnx m.onnx

Default: width multiplier 0.25 (torchvision's rounding to multiples of 8), 10 classes, a 1×3×64×64 input, so the
files stay small; Tests/Fixtures/classify/mobilenetv2-tiny.{safetensors,input.npy,logits.npy} are the converted
weights (Tools/convert_onnx.py), the input and ONNX Runtime's logits.
"""

import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

from onnx_graph import finished_model

from mobilenet_v2_arch import STAGES

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "Tests", "Fixtures", "classify")


def make_divisible(v, divisor=8):
    new = max(divisor, int(v + divisor / 2) // divisor * divisor)
    return new + divisor if new < 0.9 * v else new


def build(width, classes, size, rng):
    nodes, inits, counter = [], [], [0]

    def name(kind):
        counter[0] += 1
        return f"onnx::{kind}_{counter[0]}"

    def conv(x, cin, cout, k, stride, groups, relu6):
        w = (rng.standard_normal((cout, cin // groups, k, k)) * np.sqrt(2.0 / (cin // groups * k * k))).astype(np.float32)
        b = (rng.standard_normal(cout) * 0.1).astype(np.float32)
        wn, bn = name("Conv"), name("Conv")
        inits.extend([numpy_helper.from_array(w, wn), numpy_helper.from_array(b, bn)])
        out = name("Conv_out")
        nodes.append(helper.make_node("Conv", [x, wn, bn], [out], kernel_shape=[k, k], strides=[stride, stride],
                                      pads=[k // 2] * 4, group=groups, dilations=[1, 1]))
        if not relu6:
            return out
        clipped = name("Clip_out")
        nodes.append(helper.make_node("Clip", [out, "clip_min", "clip_max"], [clipped]))
        return clipped

    inits += [numpy_helper.from_array(np.array(0, np.float32), "clip_min"),
              numpy_helper.from_array(np.array(6, np.float32), "clip_max")]
    channels = make_divisible(32 * width)
    last = make_divisible(1280 * max(1.0, width))
    x = conv("input", 3, channels, 3, 2, 1, True)
    table = [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1), (6, 160, 3, 2), (6, 320, 1, 1)]
    assert [(t, n, s) for t, _, n, s in table] == STAGES, "the block table drifted from mobilenet_v2_arch.py"
    for t, c, n, s in table:
        out_ch = make_divisible(c * width)
        for r in range(n):
            stride = s if r == 0 else 1
            hidden = channels * t
            h = x
            if t != 1:
                h = conv(h, channels, hidden, 1, 1, 1, True)
            h = conv(h, hidden, hidden, 3, stride, hidden, True)
            h = conv(h, hidden, out_ch, 1, 1, 1, False)
            if stride == 1 and channels == out_ch:
                added = name("Add_out")
                nodes.append(helper.make_node("Add", [x, h], [added]))
                h = added
            x, channels = h, out_ch
    x = conv(x, channels, last, 1, 1, 1, True)
    nodes.append(helper.make_node("GlobalAveragePool", [x], ["pooled"]))
    nodes.append(helper.make_node("Flatten", ["pooled"], ["flat"], axis=1))
    fw = (rng.standard_normal((classes, last)) * 0.05).astype(np.float32)
    fb = (rng.standard_normal(classes) * 0.1).astype(np.float32)
    inits += [numpy_helper.from_array(fw, "classifier.1.weight"), numpy_helper.from_array(fb, "classifier.1.bias")]
    nodes.append(helper.make_node("Gemm", ["flat", "classifier.1.weight", "classifier.1.bias"], ["output"],
                                  alpha=1.0, beta=1.0, transB=1))
    g = helper.make_graph(nodes, "mobilenet_v2", [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 3, size, size])],
                          [helper.make_tensor_value_info("output", TensorProto.FLOAT, [1, classes])], initializer=inits)
    return finished_model(g)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--width", type=float, default=0.25)
    p.add_argument("--classes", type=int, default=10)
    p.add_argument("--size", type=int, default=64)
    p.add_argument("--onnx", help="write the ONNX file here (and nothing else)")
    a = p.parse_args()
    rng = np.random.default_rng(20261203)
    model = build(a.width, a.classes, a.size, rng)
    if a.onnx:
        onnx.save(model, a.onnx)
        return
    x = rng.standard_normal((1, 3, a.size, a.size)).astype(np.float32)
    logits = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, {"input": x})[0]
    os.makedirs(OUT, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "mobilenetv2-tiny.onnx")
        onnx.save(model, path)
        subprocess.run([sys.executable, os.path.join(HERE, "convert_onnx.py"), path, "-o",
                        os.path.join(OUT, "mobilenetv2-tiny.safetensors"), "--input-size", str(a.size),
                        "--source", "Tools/make_mobilenetv2_fixture.py (seeded random weights)"], check=True)
    np.save(os.path.join(OUT, "mobilenetv2-tiny.input.npy"), x)
    np.save(os.path.join(OUT, "mobilenetv2-tiny.logits.npy"), logits)


if __name__ == "__main__":
    main()
