#!/usr/bin/env python3
"""Convert a BiRefNet or RMBG-2.0 checkpoint (Hugging Face `model.safetensors`, or a PyTorch state dict) into
swiftseg's weights file.

    Tools/.venv/bin/python Tools/convert_birefnet.py model.safetensors -o birefnet-general.safetensors \\
        --variant birefnet-general
    Tools/.venv/bin/python Tools/convert_birefnet.py RMBG-2.0/model.safetensors -o bria-rmbg.safetensors \\
        --variant bria-rmbg

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
    parser.add_argument("checkpoint", help="model.safetensors (Hugging Face) or a PyTorch state dict (.pth)")
    parser.add_argument("-o", "--output", required=True, help="the swiftseg weights file to write")
    parser.add_argument("--variant", required=True,
                        help="the model's name, as rembg names it (birefnet-general, birefnet-general-lite, "
                             "birefnet-portrait, birefnet-dis, birefnet-hrsod, birefnet-cod, birefnet-massive, bria-rmbg)")
    parser.add_argument("--source", help="provenance stored in the metadata (default: the checkpoint's path)")
    args = parser.parse_args()
    state, sha256 = read_checkpoint(args.checkpoint)
    tensors = convert_state_dict(state, args.checkpoint)
    shape = check_against_architecture(tensors, args.checkpoint)
    write_safetensors(args.output, tensors, metadata(args.variant, args.source or args.checkpoint, sha256, *shape))
    print(f"{args.output}: {args.variant}, {len(tensors)} tensors, Swin dim {shape[0]} depths {shape[1]}")


if __name__ == "__main__":
    main()
