#!/usr/bin/env python3
"""Convert a U²-Net ONNX export (rembg's u2net.onnx / u2netp.onnx / silueta.onnx / u2net_human_seg.onnx), an ISNet
export (rembg's isnet-general-use.onnx / isnet-anime.onnx), a BiRefNet export (rembg's BiRefNet-*.onnx and
bria-rmbg-2.0.onnx, handled by Tools/convert_birefnet.py), or a torchvision-style MobileNetV2 export, to a
self-describing safetensors file.

    python3 Tools/convert_onnx.py u2netp.onnx -o Weights/u2netp.safetensors [--source "pkg==ver:member"]
    python3 Tools/convert_onnx.py ~/.u2net/silueta.onnx -o silueta.safetensors --variant silueta
    python3 Tools/convert_onnx.py ~/.u2net/isnet-general-use.onnx -o isnet-general-use.safetensors --variant isnet-general-use
    python3 Tools/convert_onnx.py mobilenet_v2.onnx -o mobilenetv2.safetensors [--labels labels.json]
        [--input-size 224] [--mean 123.675,116.28,103.53] [--std 58.395,57.12,57.375]

MobileNetV2 (detected by its Gemm, GlobalAveragePool and Clip nodes) is handled by Tools/mobilenet_v2_onnx.py;
its normalisation is on 0…255 values, (v − mean) / std, torchvision's ImageNet statistics by default. For U²-Net:

What it does, and refuses:
- walks the graph's Conv nodes in order and names their (BatchNorm-folded) weights after the original PyTorch
  modules (Tools/u2net_arch.py); every conv's shape, kernel, dilation and padding must match the architecture,
  and the graph must use only the ops the Swift runtime implements, or the conversion stops with an error;
- writes float32 little-endian tensors (weights OIHW) behind a JSON header padded so data starts on a 64-byte
  boundary (mmap-friendly), with `__metadata__` saying what the file is (architecture, variant, input size,
  mean/std, layout, bn_folded, source and its sha256).
"""

import argparse
import hashlib
import json
import struct
import sys

import numpy as np
import onnx
from onnx import numpy_helper

from u2net_arch import conv_specs, isnet_specs, stages_from_shapes, STAGES, SIDE_IN

ALLOWED_OPS = {"Conv", "Relu", "MaxPool", "Resize", "Concat", "Add", "Sigmoid",
               # shape plumbing the exporter emits to compute Resize sizes
               "Constant", "Shape", "Gather", "Unsqueeze", "Slice", "Cast"}
FORMAT_VERSION = "1"


def fail(msg):
    sys.exit(f"convert_onnx: {msg}")


def attrs(node):
    return {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}


def detect_variant(conv_nodes, inits, name):
    """u2netp or u2net when the widths are theirs; else the widths read from the weights' shapes (rembg's
    silueta), under `name`. Returns (variant, specs)."""
    shapes = [list(inits[n.input[1]].dims) for n in conv_nodes]
    found = stages_from_shapes(shapes)
    if found is None:
        fail(f"graph matches no U²-Net layout ({len(conv_nodes)} convs)")
    stages, side_in = found
    if name and name not in STAGES:  # e.g. silueta, or u2net_human_seg (u2net's widths, its own name)
        return name, conv_specs(name, stages, side_in)
    for variant in STAGES:
        if STAGES[variant] == stages and SIDE_IN[variant] == side_in:
            if name and name != variant:
                fail(f"--variant {name}: the widths are {variant}'s")
            return variant, conv_specs(variant)
    if name:
        fail(f"--variant {name} is a built-in name, but the widths differ from its")
    fail("the widths are not u2netp's or u2net's: name the variant with --variant (e.g. silueta)")


def convert(onnx_path, out_path, source, variant_name=None):
    raw = open(onnx_path, "rb").read()
    model = onnx.load_from_string(raw)
    graph = model.graph
    inits = {t.name: t for t in graph.initializer}

    unknown = sorted({n.op_type for n in graph.node} - ALLOWED_OPS)
    if unknown:
        fail(f"graph uses ops the runtime does not implement: {', '.join(unknown)}")
    for node in graph.node:
        a = attrs(node)
        if node.op_type == "MaxPool" and (a.get("kernel_shape") != [2, 2] or a.get("strides") != [2, 2]
                                          or a.get("ceil_mode") != 1):
            fail(f"MaxPool {node.name} is not 2x2 stride 2 ceil_mode=1: {a}")
        if node.op_type == "Resize" and (a.get("mode") != b"linear" or
                                         a.get("coordinate_transformation_mode") != b"pytorch_half_pixel"):
            fail(f"Resize {node.name} is not bilinear pytorch_half_pixel: {a}")

    conv_nodes = [n for n in graph.node if n.op_type == "Conv"]
    first = list(inits[conv_nodes[0].input[1]].dims)
    is_isnet = first[1] == 3 and attrs(conv_nodes[0]).get("strides") == [2, 2]
    if is_isnet:  # ISNet: a stride-2 conv_in before U²-Net's stages, no outconv
        specs = isnet_specs([list(inits[n.input[1]].dims) for n in conv_nodes])
        if specs is None:
            fail(f"graph has a stride-2 first conv but matches no ISNet layout ({len(conv_nodes)} convs)")
        variant = variant_name or "isnet"
    else:
        variant, specs = detect_variant(conv_nodes, inits, variant_name)
    if len(specs) != len(conv_nodes):
        fail(f"{len(conv_nodes)} convs, the architecture has {len(specs)}")

    tensors = []
    for node, spec in zip(conv_nodes, specs):
        a = attrs(node)
        if len(node.input) != 3:
            fail(f"{spec.name}: conv without bias")
        w = numpy_helper.to_array(inits[node.input[1]]).astype("<f4")
        b = numpy_helper.to_array(inits[node.input[2]]).astype("<f4")
        want = (spec.out_ch, spec.in_ch, spec.kernel, spec.kernel)
        pad = spec.dilation if spec.kernel == 3 else 0
        if w.shape != want or b.shape != (spec.out_ch,):
            fail(f"{spec.name}: weight {w.shape} bias {b.shape}, architecture wants {want}")
        if (a.get("dilations", [1, 1]) != [spec.dilation] * 2 or a.get("pads", [0] * 4) != [pad] * 4
                or a.get("strides", [1, 1]) != [spec.stride] * 2 or a.get("group", 1) != 1):
            fail(f"{spec.name}: attributes {a} do not match dilation {spec.dilation}")
        tensors.append((f"{spec.name}.weight", w))
        tensors.append((f"{spec.name}.bias", b))

    metadata = {
        "format": "swiftseg-safetensors",
        "format_version": FORMAT_VERSION,
        "architecture": "isnet" if is_isnet else "u2net",
        "variant": variant,
        # rembg's preprocessing: ISNet at 1024 with std 1, U²-Net at 320 with ImageNet's std
        "input_size": "1024" if is_isnet else "320",
        "mean": "0.485,0.456,0.406",
        "std": "1.0,1.0,1.0" if is_isnet else "0.229,0.224,0.225",
        "layout": "OIHW",
        "bn_folded": "true",
        "source": source or onnx_path,
        "source_sha256": hashlib.sha256(raw).hexdigest(),
        "license": ("Apache-2.0 (DIS / ISNet weights, Qin et al. 2022)" if is_isnet
                    else "Apache-2.0 (U-2-Net weights, Qin et al. 2020)"),
    }
    write_safetensors(out_path, tensors, metadata)
    return variant, len(tensors)


def write_safetensors(path, tensors, metadata):
    header = {"__metadata__": metadata}
    offset = 0
    for name, array in tensors:
        size = array.nbytes
        header[name] = {"dtype": "F32", "shape": list(array.shape), "data_offsets": [offset, offset + size]}
        offset += size
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * ((-(8 + len(text))) % 64)  # data starts 64-byte aligned; spaces are legal header padding
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for _, array in tensors:
            f.write(np.ascontiguousarray(array).tobytes())


def triple(text):
    values = [float(v) for v in text.split(",")]
    if len(values) != 3:
        raise argparse.ArgumentTypeError("three comma-separated numbers")
    return values


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("onnx", help="u2net.onnx, u2netp.onnx, or a MobileNetV2 export")
    parser.add_argument("-o", "--output", required=True, help="output .safetensors path")
    parser.add_argument("--source", help="provenance string stored in the metadata (default: the input path)")
    parser.add_argument("--input-size", type=int, default=224, help="MobileNetV2: the input side (224)")
    parser.add_argument("--mean", type=triple, default=[123.675, 116.28, 103.53], help="MobileNetV2: per-channel mean, 0…255")
    parser.add_argument("--std", type=triple, default=[58.395, 57.12, 57.375], help="MobileNetV2: per-channel std, 0…255")
    parser.add_argument("--labels", help="MobileNetV2: class names, a JSON list or {\"0\": name, …}")
    parser.add_argument("--variant", help="U²-Net: the model's name when it is not u2netp or u2net (silueta, "
                                          "u2net_human_seg), its widths read from the weights; ISNet and "
                                          "BiRefNet: the model's name (isnet-anime, birefnet-general, bria-rmbg)")
    args = parser.parse_args()
    import mobilenet_v2_onnx
    import convert_birefnet
    raw = open(args.onnx, "rb").read()
    graph = onnx.load_from_string(raw).graph
    if convert_birefnet.is_birefnet(graph):   # rembg's BiRefNet and RMBG-2.0 files
        convert_birefnet.convert_file(args.onnx, args.output, args.variant or "birefnet", args.source)
        return
    if mobilenet_v2_onnx.is_mobilenet_v2(graph):
        variant, count = mobilenet_v2_onnx.convert(raw, args.output, args.source or args.onnx, fail, write_safetensors,
                                                   FORMAT_VERSION, args.input_size, args.mean, args.std, args.labels)
    else:
        variant, count = convert(args.onnx, args.output, args.source, args.variant)
    print(f"wrote {args.output}: {variant}, {count} tensors")


if __name__ == "__main__":
    main()
