#!/usr/bin/env python3
"""A U²-Net export with channel widths of its own and seeded random weights, built as PyTorch's exporter lays out
rembg's u2net.onnx (BatchNorm folded into each Conv with a bias, ReLU, MaxPool 2×2 ceil_mode, bilinear Resize
with pytorch_half_pixel, Concat, Add, Sigmoid; anonymous initializer names), for the converter's and the Swift
runtime's tests of U²-Net files whose widths are not u2netp's or u2net's (rembg's silueta.onnx is one; its
u2net_human_seg.onnx has u2net's): no such weights ship in any package reachable here.

    Tools/.venv/bin/python Tools/make_u2net_variant_fixture.py          # the committed fixture (below)
    Tools/.venv/bin/python Tools/make_u2net_variant_fixture.py --onnx variant.onnx --size 320
    Tools/.venv/bin/python Tools/make_u2net_variant_fixture.py --isnet             # ISNet's fixture (below)
    Tools/.venv/bin/python Tools/make_u2net_variant_fixture.py --isnet --full --onnx isnet.onnx --size 1024

Default: the widths in WIDTHS (narrow, so the files stay small), a 1×3×96×96 input;
Tests/Fixtures/models/u2net-variant.{safetensors,input.npy,d0.npy} are the converted weights (Tools/convert_onnx.py,
variant name "u2net-variant"), the input and ONNX Runtime's d0. --isnet builds ISNet (rembg's isnet-general-use
layout: conv_in 3×3 stride 2 from RGB, the same stages, no fuse conv; output d1 upsampled to the input, after its
sigmoid) into Tests/Fixtures/models/isnet-variant.{safetensors,input.npy,d1.npy}, at 96×96 too.
"""

import argparse
import math
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

from onnx_graph import finished_model

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "Tests", "Fixtures", "models")

# (stage, RSU height or "4F", in, mid, out), forward order, as Tools/u2net_arch.py's STAGES.
WIDTHS = [
    ("stage1", 7, 3, 8, 16), ("stage2", 6, 16, 8, 24), ("stage3", 5, 24, 12, 32), ("stage4", 4, 32, 16, 40),
    ("stage5", "4F", 40, 16, 40), ("stage6", "4F", 40, 16, 40), ("stage5d", "4F", 80, 16, 40),
    ("stage4d", 4, 80, 16, 32), ("stage3d", 5, 64, 12, 24), ("stage2d", 6, 48, 8, 16), ("stage1d", 7, 32, 8, 16),
]


class Builder:
    def __init__(self, rng):
        self.rng, self.nodes, self.inits, self.n = rng, [], [], 0

    def name(self, kind):
        self.n += 1
        return f"onnx::{kind}_{self.n}"

    def conv(self, x, cin, cout, k=3, dilation=1, relu=True):
        w = (self.rng.standard_normal((cout, cin, k, k)) * math.sqrt(2.0 / (cin * k * k))).astype(np.float32)
        b = (self.rng.standard_normal(cout) * 0.1).astype(np.float32)
        wn, bn, out = self.name("Conv"), self.name("Conv"), self.name("Conv_out")
        self.inits += [numpy_helper.from_array(w, wn), numpy_helper.from_array(b, bn)]
        pad = dilation if k == 3 else 0
        self.nodes.append(helper.make_node("Conv", [x, wn, bn], [out], kernel_shape=[k, k], pads=[pad] * 4,
                                           dilations=[dilation] * 2, strides=[1, 1], group=1))
        if not relu:
            return out
        r = self.name("Relu_out")
        self.nodes.append(helper.make_node("Relu", [out], [r]))
        return r

    def op(self, kind, inputs, **attributes):
        out = self.name(f"{kind}_out")
        self.nodes.append(helper.make_node(kind, inputs, [out], **attributes))
        return out

    def pool(self, x):
        return self.op("MaxPool", [x], kernel_shape=[2, 2], strides=[2, 2], ceil_mode=1)

    def upsample(self, x, channels, size):
        sizes = self.name("sizes")
        self.inits.append(numpy_helper.from_array(np.array([1, channels, size[0], size[1]], np.int64), sizes))
        return self.op("Resize", [x, "", "", sizes], mode="linear", coordinate_transformation_mode="pytorch_half_pixel")


def rsu(b, x, size, height, cin, mid, cout):
    """One RSU block on x (spatial size `size`); returns its output (same size)."""
    hxin = b.conv(x, cin, cout)
    if height == "4F":
        hx1 = b.conv(hxin, cout, mid)
        hx2 = b.conv(hx1, mid, mid, dilation=2)
        hx3 = b.conv(hx2, mid, mid, dilation=4)
        hx4 = b.conv(hx3, mid, mid, dilation=8)
        hx3d = b.conv(b.op("Concat", [hx4, hx3], axis=1), 2 * mid, mid, dilation=4)
        hx2d = b.conv(b.op("Concat", [hx3d, hx2], axis=1), 2 * mid, mid, dilation=2)
        hx1d = b.conv(b.op("Concat", [hx2d, hx1], axis=1), 2 * mid, cout)
        return b.op("Add", [hx1d, hxin])
    skips, sizes, hx, s = [], [], hxin, size
    for i in range(1, height):                 # rebnconv1 … rebnconv{L-1}, pooling after all but the last
        hx = b.conv(hx, cout if i == 1 else mid, mid)
        skips.append(hx)
        sizes.append(s)
        if i < height - 1:
            hx = b.pool(hx)
            s = (math.ceil(s[0] / 2), math.ceil(s[1] / 2))
    d = b.conv(hx, mid, mid, dilation=2)       # rebnconv{L}
    for i in range(height - 1, 0, -1):         # rebnconv{L-1}d … rebnconv1d
        if i < height - 1:
            d = b.upsample(d, mid, sizes[i - 1])
        d = b.conv(b.op("Concat", [d, skips[i - 1]], axis=1), 2 * mid, cout if i == 1 else mid)
    return b.op("Add", [d, hxin])


# ISNet's own widths (isnet.py's ISNetDIS: u2net's, stage 1 fed by conv_in's 64 channels), for speed runs.
ISNET_FULL = [
    ("stage1", 7, 64, 32, 64), ("stage2", 6, 64, 32, 128), ("stage3", 5, 128, 64, 256), ("stage4", 4, 256, 128, 512),
    ("stage5", "4F", 512, 256, 512), ("stage6", "4F", 512, 256, 512), ("stage5d", "4F", 1024, 256, 512),
    ("stage4d", 4, 1024, 128, 256), ("stage3d", 5, 512, 64, 128), ("stage2d", 6, 256, 32, 64), ("stage1d", 7, 128, 16, 64),
]


def build(size, rng, isnet=False, full=False):
    b = Builder(rng)
    widths = (ISNET_FULL if full else [("stage1", 7, 16, 8, 16)] + WIDTHS[1:]) if isnet else WIDTHS
    spec = {s[0]: s[1:] for s in widths}
    x, s = "input", (size, size)
    if isnet:  # ISNet's conv_in: 3×3 stride 2, bias, no activation
        stem = spec["stage1"][1]
        w = (rng.standard_normal((stem, 3, 3, 3)) * math.sqrt(2.0 / 27)).astype(np.float32)
        bias = (rng.standard_normal(stem) * 0.1).astype(np.float32)
        wn, bn = b.name("Conv"), b.name("Conv")
        b.inits += [numpy_helper.from_array(w, wn), numpy_helper.from_array(bias, bn)]
        x = b.op("Conv", ["input", wn, bn], kernel_shape=[3, 3], pads=[1] * 4, strides=[2, 2], dilations=[1, 1], group=1)
        s = (math.ceil(size / 2), math.ceil(size / 2))
    level1 = s
    enc, sizes = [], []
    for name in ["stage1", "stage2", "stage3", "stage4", "stage5", "stage6"]:
        x = rsu(b, x, s, *spec[name])
        enc.append(x)
        sizes.append(s)
        if name != "stage6":
            x = b.pool(x)
            s = (math.ceil(s[0] / 2), math.ceil(s[1] / 2))
    outs = {name: spec[name][3] for name in spec}
    dec = {6: enc[5]}
    for level, name in zip([5, 4, 3, 2, 1], ["stage5d", "stage4d", "stage3d", "stage2d", "stage1d"]):
        deeper = dec[level + 1]
        channels = outs["stage6"] if level == 5 else outs[["stage5d", "stage4d", "stage3d", "stage2d"][4 - level]]
        up = b.upsample(deeper, channels, sizes[level - 1])
        dec[level] = rsu(b, b.op("Concat", [up, enc[level - 1]], axis=1), sizes[level - 1], *spec[name])
    side_in = [outs["stage1d"], outs["stage2d"], outs["stage3d"], outs["stage4d"], outs["stage5d"], outs["stage6"]]
    sides = []
    for i in range(6):
        d = b.conv(dec[i + 1], side_in[i], 1, relu=False)
        sides.append(d if i == 0 and not isnet else b.upsample(d, 1, (size, size)))
    if isnet:  # no fuse: d1 (upsampled) first, as ISNetDIS returns them
        d0 = b.op("Sigmoid", [sides[0]])
        extra = [b.op("Sigmoid", [d]) for d in sides[1:]]
    else:
        fused = b.conv(b.op("Concat", sides, axis=1), 6, 1, k=1, relu=False)
        d0 = b.op("Sigmoid", [fused])
        extra = [b.op("Sigmoid", [d]) for d in sides]
    outputs = [helper.make_tensor_value_info(d0, TensorProto.FLOAT, [1, 1, size, size])]
    outputs += [helper.make_tensor_value_info(e, TensorProto.FLOAT, [1, 1, size, size]) for e in extra]
    g = helper.make_graph(b.nodes, "isnet_variant" if isnet else "u2net_variant", [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 3, size, size])],
                          outputs, initializer=b.inits)
    return finished_model(g)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--size", type=int, default=96)
    p.add_argument("--isnet", action="store_true", help="ISNet instead (conv_in 3×3 stride 2, no fuse; d1 out)")
    p.add_argument("--full", action="store_true", help="with --isnet: ISNet's real widths (for speed runs, with --onnx)")
    p.add_argument("--onnx", help="write the ONNX file here (and nothing else)")
    a = p.parse_args()
    rng = np.random.default_rng(20261202 if a.isnet else 20261201)
    model = build(a.size, rng, a.isnet, a.full)
    stem = "isnet-variant" if a.isnet else "u2net-variant"
    if a.onnx:
        onnx.save(model, a.onnx)
        return
    x = rng.standard_normal((1, 3, a.size, a.size)).astype(np.float32)
    d0 = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, {"input": x})[0]
    os.makedirs(OUT, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, f"{stem}.onnx")
        onnx.save(model, path)
        subprocess.run([sys.executable, os.path.join(HERE, "convert_onnx.py"), path, "-o",
                        os.path.join(OUT, f"{stem}.safetensors"), "--variant", stem,
                        "--source", "Tools/make_u2net_variant_fixture.py (seeded random weights)"], check=True)
    np.save(os.path.join(OUT, f"{stem}.input.npy"), x)
    np.save(os.path.join(OUT, f"{stem}.{'d1' if a.isnet else 'd0'}.npy"), d0)


if __name__ == "__main__":
    main()
