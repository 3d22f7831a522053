#!/usr/bin/env python3
"""Convert a BiRefNet or RMBG-2.0 model — rembg's ONNX file, a Hugging Face `model.safetensors`, or a PyTorch
state dict — into swiftseg's weights file.

    python3 Tools/convert_birefnet.py ~/.u2net/BiRefNet-general-epoch_244.onnx -o birefnet-general.safetensors \\
        --variant birefnet-general          # (Tools/convert_onnx.py hands BiRefNet graphs here too)
    python3 Tools/convert_birefnet.py RMBG-2.0/model.safetensors -o bria-rmbg.safetensors --variant bria-rmbg

An ONNX file (exported as BiRefNet's notebook exports: TorchScript, opset 17, deform_conv2d decomposed by
deform_conv2d_onnx_exporter) keeps most tensors under their module paths; the rest are given theirs by the
graph's structure: each anonymous MatMul weight by the bias added to its product (or, for patch merging's
reduction, by the LayerNorm before it), transposed back; each relative position bias, which the export
gathered over the window's pairs, by its block's order, and rebuilt into the table; the BatchNorm-folded
convolutions of the decoder blocks, the squeeze block and the gradient convs by their order in the graph,
each checked against the architecture's shape. A graph that is not BiRefNet's is refused.

The checkpoint's tensor names are the BiRefNet code's module paths (Tools/birefnet_arch.py has the same). The
output keeps them for every tensor inference reads, with each BatchNorm folded into the convolution before it
(the deformable convolutions' `regular_conv` gains a bias), and drops what inference never reads: the
training-only heads (`decoder.conv_ms_spvn_*`, `decoder.gdt_convs_pred_*`), the relative position indices (the
runtime computes them) and BatchNorm's batch counters. A checkpoint with any other tensor, a missing one or a
shape the architecture does not give is refused with one line. The metadata records rembg's preprocessing
(1024×1024, ImageNet mean and std) and that the network's output is the map after a sigmoid.
"""

import argparse
import hashlib
import json
import os
import re
import struct
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from convert_onnx import write_safetensors  # noqa: E402

FORMAT_VERSION = "1"
LICENSES = {
    "bria-rmbg": "CC BY-NC 4.0 (BRIA RMBG-2.0: non-commercial use only; commercial use needs BRIA's licence)",
}
DEFAULT_LICENSE = "MIT (BiRefNet, Zheng et al. 2024)"
BN_EPSILON = 1e-5

# BatchNorms and the convolution each follows, as suffixes of a module path.
BN_AFTER = [("bn_in", "conv_in"), ("bn_out", "conv_out"), ("dec_att.bn1", "dec_att.conv1"),
            (".bn", ".atrous_conv.regular_conv"), ("global_avg_pool.2", "global_avg_pool.1"),
            ("gdt_convs_4.1", "gdt_convs_4.0"), ("gdt_convs_3.1", "gdt_convs_3.0"), ("gdt_convs_2.1", "gdt_convs_2.0")]
TRAINING_ONLY = re.compile(r"^decoder\.(conv_ms_spvn_\d|gdt_convs_pred_\d)\.|\.relative_position_index$|\.num_batches_tracked$")


def fail(message):
    sys.exit(f"convert_birefnet.py: {message}")


def read_checkpoint(path):
    if path.endswith(".safetensors"):
        with open(path, "rb") as f:
            size = struct.unpack("<Q", f.read(8))[0]
            header = json.loads(f.read(size))
            data = f.read()
        dtypes = {"F32": np.float32, "F16": np.float16, "BF16": None, "I64": np.int64}
        tensors = {}
        for name, info in header.items():
            if name == "__metadata__":
                continue
            start, end = info["data_offsets"]
            raw = data[start:end]
            if info["dtype"] == "BF16":
                a = (np.frombuffer(raw, np.uint16).astype(np.uint32) << 16).view(np.float32)
            elif info["dtype"] in dtypes:
                a = np.frombuffer(raw, dtypes[info["dtype"]])
            else:
                fail(f"{path}: tensor {name} has dtype {info['dtype']}")
            tensors[name] = a.reshape(info["shape"])
        return tensors, hashlib.sha256(open(path, "rb").read()).hexdigest()
    import torch  # a .pth state dict
    state = torch.load(path, map_location="cpu", weights_only=True)
    return {k: v.numpy() for k, v in state.items()}, hashlib.sha256(open(path, "rb").read()).hexdigest()


def convert_state_dict(state, name="checkpoint"):
    """The inference tensors of a BiRefNet state dict (name → array), BatchNorms folded, in a stable order."""
    state = {re.sub(r"^(_orig_mod\.|module\.)+", "", k): np.asarray(v, dtype=np.float32) if v.dtype != np.int64 else v
             for k, v in state.items()}
    out = {}
    folded = set()
    for bn_key in [k for k in state if k.endswith(".running_var")]:
        bn = bn_key[: -len(".running_var")]
        conv = next((bn[: -len(b)] + c for b, c in BN_AFTER if bn.endswith(b)), None)
        if conv is None:
            fail(f"{name}: a BatchNorm {bn} after no convolution this architecture has")
        if conv + ".weight" not in state:
            fail(f"{name}: BatchNorm {bn} but no {conv}.weight")
        w = state[conv + ".weight"]
        b = state.get(conv + ".bias", np.zeros(w.shape[0], np.float32))
        scale = state[bn + ".weight"] / np.sqrt(state[bn + ".running_var"] + BN_EPSILON)
        out[conv + ".weight"] = (w * scale[:, None, None, None]).astype(np.float32)
        out[conv + ".bias"] = ((b - state[bn + ".running_mean"]) * scale + state[bn + ".bias"]).astype(np.float32)
        folded |= {conv + ".weight", conv + ".bias"} | {f"{bn}.{p}" for p in
                                                        ("weight", "bias", "running_mean", "running_var", "num_batches_tracked")}
    for k, v in state.items():
        if k in folded or TRAINING_ONLY.search(k):
            continue
        out[k] = v.astype(np.float32)
    if "bb.patch_embed.proj.weight" not in out:
        fail(f"{name}: no bb.patch_embed.proj.weight — not a BiRefNet checkpoint with a Swin backbone")
    return [(k, out[k]) for k in sorted(out)]


def read_onnx(path):
    """The state dict an ONNX export of BiRefNet carries, under the module paths (see the module's docstring)."""
    import onnx
    from onnx import numpy_helper
    model = onnx.load(path)
    graph = model.graph
    inits = {t.name: numpy_helper.to_array(t) for t in graph.initializer}
    if not is_birefnet(graph):
        fail(f"{path}: not a BiRefNet graph (no LayerNormalization, MatMul, Softmax and deformable-conv gathers)")
    producer = {o: n for n in graph.node for o in n.output}
    consumers = {}
    for n in graph.node:
        for i in n.input:
            consumers.setdefault(i, []).append(n)

    def source(name):  # an initializer, possibly behind Identity nodes (a weight shared by the two backbone passes)
        while name not in inits and name in producer and producer[name].op_type == "Identity":
            name = producer[name].input[0]
        return name if name in inits else None

    state = {k: v for k, v in inits.items() if not k.startswith("onnx::")}
    # MatMul weights: named by the bias added next, or by the LayerNorm before them (patch merging).
    for node in graph.node:
        if node.op_type != "MatMul":
            continue
        weight = source(node.input[1])
        if weight is None or not weight.startswith("onnx::"):
            continue
        after = [source(i) for c in consumers.get(node.output[0], []) if c.op_type == "Add" for i in c.input]
        bias = next((b for b in after if b and b.endswith(".bias")), None)
        if bias:
            name = bias[: -len(".bias")]
        else:
            before = producer.get(node.input[0])
            scale = source(before.input[1]) if before is not None and before.op_type == "LayerNormalization" else None
            if not scale or not scale.endswith(".norm.weight"):
                fail(f"{path}: a MatMul weight {weight} {list(inits[weight].shape)} with no bias after it and no "
                     "LayerNorm before it: not a layout this converter knows")
            name = scale[: -len(".norm.weight")] + ".reduction"
        state.setdefault(name + ".weight", inits[weight].T.copy())
    # Relative position biases, gathered over the pairs (n², heads): in block order.
    gathered = sorted((k for k, v in inits.items() if k.startswith("onnx::Reshape_") and v.ndim == 2),
                      key=lambda k: int(k.rsplit("_", 1)[1]))
    blocks = sorted({k.rsplit(".attn.", 1)[0] for k in state if k.endswith(".attn.qkv.bias")},
                    key=lambda k: [int(x) for x in re.findall(r"\d+", k)])
    if len(gathered) != len(blocks):
        fail(f"{path}: {len(gathered)} relative position biases for {len(blocks)} attention blocks")
    for block, key in zip(blocks, gathered):
        pairs = inits[key]
        window = int(round(pairs.shape[0] ** 0.25))
        if window ** 4 != pairs.shape[0]:
            fail(f"{path}: {key} has {pairs.shape[0]} rows, not a window's pairs")
        n = window * window
        table = np.zeros(((2 * window - 1) ** 2, pairs.shape[1]), np.float32)
        for i in range(n):
            for j in range(n):
                offset = (i // window - j // window + window - 1) * (2 * window - 1) + (i % window - j % window + window - 1)
                table[offset] = pairs[i * n + j]
        state[block + ".attn.relative_position_bias_table"] = table
    # The folded convolutions, in graph order.
    folded = []
    for node in graph.node:
        if node.op_type == "Conv":
            weight = source(node.input[1])
            if weight and weight.startswith("onnx::") and weight not in [w for w, _ in folded]:
                folded.append((weight, source(node.input[2]) if len(node.input) > 2 else None))
    names = [f"{block}.{conv}" for block in ["squeeze_module.0"] for conv in FOLDED_BLOCK]
    for n in (4, 3, 2, 1):
        names += [f"decoder.decoder_block{n}.{conv}" for conv in FOLDED_BLOCK]
        if n > 1:
            names.append(f"decoder.gdt_convs_{n}.0")
    if len(folded) != len(names):
        fail(f"{path}: {len(folded)} folded convolutions, BiRefNet's decoder has {len(names)}")
    for name, (weight, bias) in zip(names, folded):
        state[name + ".weight"] = inits[weight]
        state[name + ".bias"] = inits[bias] if bias else np.zeros(inits[weight].shape[0], np.float32)
    return state, hashlib.sha256(open(path, "rb").read()).hexdigest()


# A BasicDecBlk's convolutions that carry a BatchNorm, in the order its forward runs them.
FOLDED_BLOCK = ["conv_in", "dec_att.global_avg_pool.1", "dec_att.conv1", "conv_out"]


def backbone(tensors):
    """(embed dim, depths, heads, window) as the tensors give them."""
    names = dict(tensors)
    dim = names["bb.patch_embed.proj.weight"].shape[0]
    depths, heads = [], []
    for layer in range(4):
        blocks = {int(m.group(1)) for k in names for m in [re.match(rf"bb\.layers\.{layer}\.blocks\.(\d+)\.", k)] if m}
        depths.append(len(blocks))
        heads.append(names[f"bb.layers.{layer}.blocks.0.attn.relative_position_bias_table"].shape[1])
    rows = names["bb.layers.0.blocks.0.attn.relative_position_bias_table"].shape[0]
    window = (int(round(rows ** 0.5)) + 1) // 2
    return dim, depths, heads, window


def check_against_architecture(tensors, name):
    """Every tensor name and shape as Tools/birefnet_arch.py's model has them (after the same folding)."""
    import torch
    from birefnet_arch import BiRefNet
    names = dict(tensors)
    dim, depths, heads, window = backbone(tensors)
    inter = names["decoder.decoder_block4.conv_in.weight"].shape[0]
    planes = names["decoder.decoder_block4.dec_att.conv1.weight"].shape[1] // 5
    model = BiRefNet((dim, depths, heads, window), inter=inter, planes=planes)
    expected = dict(convert_state_dict({k: v.numpy() for k, v in model.state_dict().items()}, "architecture"))
    missing, extra = sorted(set(expected) - set(names)), sorted(set(names) - set(expected))
    if missing or extra:
        fail(f"{name}: missing {missing[:3]}{'…' if len(missing) > 3 else ''}, "
             f"unexpected {extra[:3]}{'…' if len(extra) > 3 else ''}")
    for k, v in expected.items():
        if v.shape != names[k].shape:
            fail(f"{name}: {k} is {list(names[k].shape)}, the architecture gives {list(v.shape)}")
    del torch
    return dim, depths, heads, window


def metadata(variant, source, sha256, dim, depths, heads, window):
    return {
        "format": "swiftseg-safetensors",
        "format_version": FORMAT_VERSION,
        "architecture": "birefnet",
        "variant": variant,
        "backbone": "swin_v1",
        "backbone_shape": f"dim {dim}, depths {','.join(map(str, depths))}, heads {','.join(map(str, heads))}, window {window}",
        # rembg's BiRefNet sessions: 1024×1024, divided by the maximum, ImageNet mean and std
        "input_size": "1024",
        "mean": "0.485,0.456,0.406",
        "std": "0.229,0.224,0.225",
        "output": "sigmoid",
        "layout": "OIHW",
        "bn_folded": "true",
        "source": source,
        "source_sha256": sha256,
        "license": LICENSES.get(variant, DEFAULT_LICENSE),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkpoint", help="rembg's .onnx, a Hugging Face model.safetensors, or a PyTorch state dict (.pth)")
    parser.add_argument("-o", "--output", required=True, help="the swiftseg weights file to write")
    parser.add_argument("--variant", required=True,
                        help="the model's name, as rembg names it (birefnet-general, birefnet-general-lite, "
                             "birefnet-portrait, birefnet-dis, birefnet-hrsod, birefnet-cod, birefnet-massive, bria-rmbg)")
    parser.add_argument("--source", help="provenance stored in the metadata (default: the checkpoint's path)")
    args = parser.parse_args()
    convert_file(args.checkpoint, args.output, args.variant, args.source)


def convert_file(path, output, variant, source=None):
    """Reads rembg's ONNX file, a Hugging Face safetensors or a state dict, checks it, writes swiftseg's file."""
    state, sha256 = read_onnx(path) if path.endswith(".onnx") else read_checkpoint(path)
    tensors = convert_state_dict(state, path)
    shape = check_against_architecture(tensors, path)
    write_safetensors(output, tensors, metadata(variant, source or path, sha256, *shape))
    print(f"{output}: {variant}, {len(tensors)} tensors, Swin dim {shape[0]} depths {shape[1]} heads {shape[2]} "
          f"window {shape[3]}")


def is_birefnet(graph):
    """Whether an ONNX graph looks like a BiRefNet export (LayerNorms, attention, gathers of deformable convs)."""
    ops = {n.op_type for n in graph.node}
    return {"LayerNormalization", "MatMul", "Softmax"} <= ops and bool({"GatherND", "GatherElements"} & ops)


if __name__ == "__main__":
    main()
