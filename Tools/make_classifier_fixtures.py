#!/usr/bin/env python3
"""Fixtures for the classifier's tests (Tests/Fixtures/classify), from ONNX Runtime and Pillow (re-runnable).

    Tools/.venv/bin/python Tools/make_classifier_fixtures.py MODEL.pth     # Tools/fetch_weights.sh efficientnet-lite0 --keep-source

- NAME.input.npy: the photo (Tests/Fixtures/photos) EXIF-upright RGB, centre-cropped to a square and resized to
  224×224 with Pillow's Lanczos, normalised as (v − 127) / 128, 1×3×224×224 float32;
- NAME.logits.npy: ONNX Runtime's logits (1×1000) for it, from an ONNX graph built here from the *unfolded*
  PyTorch weights (Conv, BatchNormalization with ε = 1e-3, Clip(0, 6), Add, SAME_UPPER padding on the strided
  convs, GlobalAveragePool, Flatten, Gemm), so BatchNorm folding, padding and block order are all checked;
- chelsea.scaleFit.input.npy, chelsea.scaleFill.input.npy: the other two crop-and-scale options on the
  non-square photo (451×300), for the preprocessing test.
"""

import os
import sys

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper
from PIL import Image, ImageOps

from convert_efficientnet_lite import load_legacy_state_dict
from efficientnet_lite_arch import BN_EPSILON, blocks

HERE = os.path.dirname(os.path.abspath(__file__))
PHOTOS = os.path.join(HERE, "..", "Tests", "Fixtures", "photos")
OUT = os.path.join(HERE, "..", "Tests", "Fixtures", "classify")
SIZE = 224


def prepare(photo, mode):
    """The request's crop-and-scale, as issue 19 defines it, then the normalisation."""
    img = ImageOps.exif_transpose(Image.open(photo)).convert("RGB")
    w, h = img.size
    if mode == "centerCrop":
        s = min(w, h)
        x, y = (w - s) // 2, (h - s) // 2
        img = img.crop((x, y, x + s, y + s)).resize((SIZE, SIZE), Image.LANCZOS)
    elif mode == "scaleFill":
        img = img.resize((SIZE, SIZE), Image.LANCZOS)
    else:  # scaleFit
        m = max(w, h)
        sw, sh = round(w * SIZE / m), round(h * SIZE / m)
        canvas = Image.new("RGB", (SIZE, SIZE))
        canvas.paste(img.resize((sw, sh), Image.LANCZOS), ((SIZE - sw) // 2, (SIZE - sh) // 2))
        img = canvas
    a = np.asarray(img, dtype=np.float32)
    return ((a - 127) / 128).transpose(2, 0, 1)[None].astype(np.float32)


def graph(state):
    nodes, inits = [], []

    def init(name, a):
        inits.append(numpy_helper.from_array(np.ascontiguousarray(a, dtype=np.float32), name))
        return name

    def conv_bn(x, conv, bn, stride, groups, relu6, out):
        w = state[f"{conv}.weight"]
        k = w.shape[2]
        attrs = dict(kernel_shape=[k, k], strides=[stride, stride], group=groups)
        if stride > 1:
            attrs["auto_pad"] = "SAME_UPPER"
        else:
            attrs["pads"] = [k // 2] * 4
        nodes.append(helper.make_node("Conv", [x, init(f"{conv}.weight", w)], [f"{out}.conv"], **attrs))
        nodes.append(helper.make_node(
            "BatchNormalization",
            [f"{out}.conv"] + [init(f"{bn}.{p}", state[f"{bn}.{p}"]) for p in ("weight", "bias", "running_mean", "running_var")],
            [f"{out}.bn" if relu6 else out], epsilon=BN_EPSILON))
        if relu6:
            nodes.append(helper.make_node("Clip", [f"{out}.bn", "zero", "six"], [out]))
        return out

    inits += [numpy_helper.from_array(np.array(0, np.float32), "zero"), numpy_helper.from_array(np.array(6, np.float32), "six")]
    x = conv_bn("input", "_conv_stem", "_bn0", 2, 1, True, "stem")
    for i, k, s, e, cin, cout in blocks():
        p = f"_blocks.{i}"
        h = x
        if e != 1:
            h = conv_bn(h, f"{p}._expand_conv", f"{p}._bn0", 1, 1, True, f"b{i}.expand")
        h = conv_bn(h, f"{p}._depthwise_conv", f"{p}._bn1", s, cin * e, True, f"b{i}.dw")
        h = conv_bn(h, f"{p}._project_conv", f"{p}._bn2", 1, 1, False, f"b{i}.project")
        if s == 1 and cin == cout:
            nodes.append(helper.make_node("Add", [h, x], [f"b{i}.out"]))
            h = f"b{i}.out"
        x = h
    x = conv_bn(x, "_conv_head", "_bn1", 1, 1, True, "head")
    nodes.append(helper.make_node("GlobalAveragePool", [x], ["pooled"]))
    nodes.append(helper.make_node("Flatten", ["pooled"], ["flat"]))
    nodes.append(helper.make_node("Gemm", ["flat", init("_fc.weight", state["_fc.weight"]), init("_fc.bias", state["_fc.bias"])],
                                  ["logits"], transB=1))
    g = helper.make_graph(nodes, "efficientnet-lite0",
                          [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 3, SIZE, SIZE])],
                          [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [1, 1000])], initializer=inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 7
    return m


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    state = {k: v.astype(np.float32) for k, v in load_legacy_state_dict(sys.argv[1]).items()}
    opts = ort.SessionOptions()
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL  # the graph as written
    sess = ort.InferenceSession(graph(state).SerializeToString(), opts, providers=["CPUExecutionProvider"])
    os.makedirs(OUT, exist_ok=True)
    for photo in ["chelsea.png", "coffee.png", "rocket.jpg", "astronaut.png"]:
        stem = photo.split(".")[0]
        x = prepare(os.path.join(PHOTOS, photo), "centerCrop")
        np.save(os.path.join(OUT, f"{stem}.input.npy"), x)
        np.save(os.path.join(OUT, f"{stem}.logits.npy"), sess.run(["logits"], {"input": x})[0])
    for mode in ["scaleFit", "scaleFill"]:
        np.save(os.path.join(OUT, f"chelsea.{mode}.input.npy"), prepare(os.path.join(PHOTOS, "chelsea.png"), mode))


if __name__ == "__main__":
    main()
