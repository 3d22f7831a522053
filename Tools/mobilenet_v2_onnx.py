"""The MobileNetV2 half of Tools/convert_onnx.py: a torchvision-style ONNX export of MobileNetV2 (Conv with
BatchNorm folded into weight + bias, ReLU6 as Clip(0, 6), depthwise Conv with group = channels, Add,
GlobalAveragePool, Flatten, Gemm with transB = 1) to a safetensors file the Swift runtime loads.

Exported initializer names are anonymous ("onnx::Conv_123"), so weights are named by the graph's structure: the
Conv nodes in graph order are matched to the block table (Tools/mobilenet_v2_arch.py) and checked one by one —
kernel, stride, symmetric padding, groups, and that each conv's input width is the previous one's output — and
the activations and skips are counted against the table. Anything else stops the conversion with an error."""

import hashlib
import json

import numpy as np
import onnx
from onnx import numpy_helper

from mobilenet_v2_arch import blocks, conv_names

ALLOWED_OPS = {"Conv", "Clip", "Relu", "Add", "GlobalAveragePool", "Flatten", "Reshape", "Gemm", "Constant",
               "Identity", "Shape", "Gather", "Unsqueeze", "Concat"}


def is_mobilenet_v2(graph):
    ops = {n.op_type for n in graph.node}
    return "Gemm" in ops and "GlobalAveragePool" in ops and "Clip" in ops


def convert(raw, out_path, source, fail, write_safetensors, format_version, input_size, mean, std, labels_path):
    graph = onnx.load_from_string(raw).graph
    inits = {t.name: numpy_helper.to_array(t) for t in graph.initializer}
    constants = {n.output[0]: numpy_helper.to_array(n.attribute[0].t) for n in graph.node if n.op_type == "Constant"}
    unknown = sorted({n.op_type for n in graph.node} - ALLOWED_OPS)
    if unknown:
        fail(f"MobileNetV2 graph uses ops the runtime does not implement: {', '.join(unknown)}")

    def attrs(node):
        return {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}

    convs = [n for n in graph.node if n.op_type == "Conv"]
    names = conv_names()
    if len(convs) != len(names):
        fail(f"{len(convs)} convs, MobileNetV2 has {len(names)}: not a MobileNetV2 export?")
    tensors, previous = [], 3
    for node, (name, kind) in zip(convs, names):
        a = attrs(node)
        if len(node.input) != 3 or node.input[1] not in inits or node.input[2] not in inits:
            fail(f"{name}: conv without constant weight and bias (export with BatchNorm folded)")
        w, b = inits[node.input[1]].astype("<f4"), inits[node.input[2]].astype("<f4")
        k = 3 if kind == "stem" or isinstance(kind, tuple) else 1
        stride = 2 if kind == "stem" else kind[1] if isinstance(kind, tuple) else 1
        groups = w.shape[0] if isinstance(kind, tuple) else 1
        want_in = 1 if isinstance(kind, tuple) else previous
        if w.ndim != 4 or w.shape[1:] != (want_in, k, k) or b.shape != (w.shape[0],):
            fail(f"{name}: weight {w.shape}, bias {b.shape}; expected (·, {want_in}, {k}, {k})")
        if isinstance(kind, tuple) and w.shape[0] != previous:
            fail(f"{name}: depthwise over {w.shape[0]} channels, its input has {previous}")
        if (a.get("kernel_shape", [k, k]) != [k, k] or a.get("strides", [1, 1]) != [stride, stride]
                or a.get("pads", [0] * 4) != [k // 2] * 4 or a.get("group", 1) != groups
                or a.get("dilations", [1, 1]) != [1, 1] or a.get("auto_pad", b"NOTSET") not in (b"NOTSET", "NOTSET")):
            fail(f"{name}: attributes {a}; expected kernel {k}, stride {stride}, pads {k // 2}, group {groups}")
        tensors += [(f"{name}.weight", w), (f"{name}.bias", b)]
        previous = w.shape[0]

    clips = [n for n in graph.node if n.op_type == "Clip"]
    expected_clips = sum(1 for _, kind in names if kind != "project")
    if len(clips) != expected_clips:
        fail(f"{len(clips)} Clip (ReLU6) nodes, MobileNetV2 has {expected_clips}")
    for c in clips:
        bounds = [inits.get(i, constants.get(i)) for i in c.input[1:]] if len(c.input) > 1 else \
                 [attrs(c).get("min"), attrs(c).get("max")]
        if len(bounds) != 2 or any(v is None for v in bounds) or (float(bounds[0]), float(bounds[1])) != (0.0, 6.0):
            fail(f"Clip {c.name} is not ReLU6 (0, 6)")
    adds = sum(1 for n in graph.node if n.op_type == "Add")
    widths = [t.shape[0] for n, t in tensors if n.endswith("project.weight") or n.endswith(".conv.1.weight")
              or n.endswith(".conv.2.weight")]
    residual = 0
    block_in = tensors[0][1].shape[0]
    for (index, t, s), out in zip(blocks(), widths):
        residual += s == 1 and block_in == out
        block_in = out
    if adds != residual:
        fail(f"{adds} Add nodes, the block table makes {residual} skips")

    gemms = [n for n in graph.node if n.op_type == "Gemm"]
    if len(gemms) != 1:
        fail("expected one Gemm (the classifier)")
    g, ga = gemms[0], attrs(gemms[0])
    if ga.get("transB", 0) != 1 or ga.get("alpha", 1.0) != 1.0 or ga.get("beta", 1.0) != 1.0:
        fail(f"Gemm {g.name}: expected transB = 1, alpha = beta = 1, got {ga}")
    fw, fb = inits[g.input[1]].astype("<f4"), inits[g.input[2]].astype("<f4")
    if fw.ndim != 2 or fw.shape[1] != previous or fb.shape != (fw.shape[0],):
        fail(f"classifier weight {fw.shape}, bias {fb.shape}; expected (classes, {previous})")
    tensors += [("classifier.1.weight", fw), ("classifier.1.bias", fb)]

    metadata = {
        "format": "swiftseg-safetensors",
        "format_version": format_version,
        "architecture": "mobilenet-v2",
        "variant": "mobilenetv2",
        "input_size": str(input_size),
        "mean": ",".join(f"{v:g}" for v in mean),
        "std": ",".join(f"{v:g}" for v in std),
        "output": "logits",
        "layout": "OIHW",
        "bn_folded": "true",
        "source": source,
        "source_sha256": hashlib.sha256(raw).hexdigest(),
    }
    if labels_path:
        labels_raw = open(labels_path, "rb").read()
        labels = json.loads(labels_raw)
        if isinstance(labels, dict):
            labels = [labels[str(i)] for i in range(len(labels))]
        if len(labels) != fw.shape[0]:
            fail(f"{labels_path}: {len(labels)} labels for {fw.shape[0]} classes")
        metadata["labels"] = json.dumps(labels, ensure_ascii=False, separators=(",", ":"))
        metadata["labels_sha256"] = hashlib.sha256(labels_raw).hexdigest()
    write_safetensors(out_path, tensors, metadata)
    return "mobilenetv2", len(tensors)
