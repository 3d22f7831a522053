#!/usr/bin/env python3
"""Single-op fixtures for the ops BiRefNet adds to the runtime (Tests/Fixtures/ops/*.safetensors), from ONNX Runtime.

Each op is written here as a small PyTorch module with the semantics of the code BiRefNet uses (Swin v1,
torchvision's deform_conv2d, F.interpolate; written for this script, not copied), exported the way BiRefNet's
ONNX notebook exports (TorchScript exporter, opset 17, deform_conv2d decomposed by deform_conv2d_onnx_exporter)
and run by ONNX Runtime with its graph optimisations off. Random inputs and weights from fixed seeds.

    Tools/.venv/bin/pip install torch        # PyPI's build loads its CUDA libraries (~3 GB) even on the CPU
    Tools/.venv/bin/pip install --no-deps deform_conv2d_onnx_exporter   # (its dependencies would pull CUDA torch)
    Tools/.venv/bin/python Tools/make_birefnet_op_fixtures.py [--ops layernorm,gelu,...]

Writes ops/NAME.safetensors with `caseN.*` tensors (weights in PyTorch's layouts) and each case's sizes as JSON
in the metadata:
- layernorm: nn.LayerNorm(C) on 1×L×C tokens (exports as LayerNormalization).
- gelu: nn.GELU() (exports as Div, Erf, Add, Mul, Mul), values over ±8 and the tails.
- tokenlinear: nn.Linear on tokens (MatMul + Add), with and without bias, followed by GELU or a residual add.
- windowattention: a Swin block's attention branch, shortcut + proj(attention(norm1(x) padded, shifted,
  partitioned)), on maps that are and are not whole windows, smaller than one window, shifted or not.
- patchmerging: 2×2 blocks concatenated (odd maps padded), LayerNorm(4C), Linear(4C → 2C, no bias).
- resize-aligned: F.interpolate(bilinear, align_corners=True) up and down at any scale (exports as Resize).
- deformconv: torchvision.ops.deform_conv2d with a mask (BiRefNet's DeformableConv2d: kernels 1, 3 and 7, stride
  1, padding k//2), its offsets and mask given as inputs. torchvision itself is not needed: the op is registered
  under torchvision's name with a plain PyTorch implementation of its definition, so tracing records it and the
  exporter decomposes it as it did for rembg's files; that implementation is checked against ONNX Runtime here.
"""

import argparse
import io
import json
import os
import sys

import numpy as np
import onnxruntime as ort
import torch
import torch.nn.functional as F
from torch import nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_fixtures import OUT, write_safetensors  # noqa: E402


def run_onnx(module, inputs):
    """Exports `module` as BiRefNet's notebook does and runs it with ONNX Runtime."""
    buffer = io.BytesIO()
    names = [f"x{i}" for i in range(len(inputs))]
    with torch.no_grad():
        torch.onnx.export(module.eval(), tuple(torch.from_numpy(a) for a in inputs), buffer, opset_version=17,
                          input_names=names, output_names=["y"], dynamo=False)
    opts = ort.SessionOptions()
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    session = ort.InferenceSession(buffer.getvalue(), opts, providers=["CPUExecutionProvider"])
    used = {i.name for i in session.get_inputs()}   # an input the module ignores is not in the graph
    return session.run(["y"], {n: a for n, a in zip(names, inputs) if n in used})[0]


def randn(rng, *shape, scale=1.0):
    return (rng.standard_normal(shape) * scale).astype(np.float32)


def set_parameters(module, rng):
    """Every parameter random (biases and norms too, so none is the identity it starts as)."""
    with torch.no_grad():
        for name, p in module.named_parameters():
            fan_in = p.shape[-1] if p.dim() > 1 else 1
            p.copy_(torch.from_numpy(randn(rng, *p.shape, scale=1 / np.sqrt(fan_in))))
            if name.endswith("norm.weight") or name.endswith("norm1.weight"):
                p.add_(1)


def parameters(module, prefix):
    return [(f"{prefix}.{name}", p.detach().numpy().copy()) for name, p in module.named_parameters()]


def layernorm_cases():
    rng = np.random.default_rng(20261207)
    shapes = [(5, 7), (33, 16), (4, 96), (7, 17), (2, 193), (1, 1)]
    tensors, meta = [], {}
    for i, (length, c) in enumerate(shapes):
        norm = nn.LayerNorm(c)
        set_parameters(norm, rng)
        x = randn(rng, 1, length, c, scale=3) + rng.uniform(-2, 2)
        y = run_onnx(norm, [x.astype(np.float32)])
        tensors += [(f"case{i}.input", x.astype(np.float32)), (f"case{i}.output", y)] + parameters(norm, f"case{i}")
        meta[f"case{i}"] = json.dumps({"tokens": length, "features": c})
    meta["cases"] = str(len(shapes))
    return tensors, meta


def gelu_cases():
    x = np.concatenate([np.linspace(-8, 8, 1601), [-20, -12, -9.5, 9.5, 12, 20, 0, -0.0, 1e-7, -1e-7]])
    x = x.astype(np.float32).reshape(1, 1, -1)
    return [("case0.input", x), ("case0.output", run_onnx(nn.GELU(), [x]))], {"cases": "1", "case0": "{}"}


class LinearThen(nn.Module):
    def __init__(self, cin, cout, bias, then):
        super().__init__()
        self.fc = nn.Linear(cin, cout, bias=bias)
        self.then = then

    def forward(self, x, residual):
        y = self.fc(x)
        if self.then == "gelu":
            return F.gelu(y)
        if self.then == "residual":
            return y + residual
        return y


def tokenlinear_cases():
    rng = np.random.default_rng(20261208)
    # (tokens, in, out, bias, then): then 0 nothing, 1 GELU, 2 residual
    shapes = [(5, 7, 3, True, 0), (130, 16, 48, True, 1), (9, 96, 96, True, 2), (257, 33, 17, False, 0),
              (1, 4, 8, False, 2), (64, 24, 96, True, 1)]
    tensors, meta = [], {}
    for i, (length, cin, cout, bias, then) in enumerate(shapes):
        module = LinearThen(cin, cout, bias, ["none", "gelu", "residual"][then])
        set_parameters(module, rng)
        x, r = randn(rng, 1, length, cin), randn(rng, 1, length, cout)
        y = run_onnx(module, [x, r])
        tensors += [(f"case{i}.input", x), (f"case{i}.residual", r), (f"case{i}.output", y)]
        tensors += parameters(module, f"case{i}")
        meta[f"case{i}"] = json.dumps({"tokens": length, "in": cin, "out": cout, "bias": int(bias), "then": then})
    meta["cases"] = str(len(shapes))
    return tensors, meta


class ShiftedWindowAttention(nn.Module):
    """shortcut + proj(W-MSA or SW-MSA of x), x already normalised: the first half of a Swin v1 block."""

    def __init__(self, dim, heads, window, shift):
        super().__init__()
        self.heads, self.window, self.shift = heads, window, shift
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.relative_position_bias_table = nn.Parameter(torch.zeros((2 * window - 1) ** 2, heads))
        ys, xs = torch.meshgrid(torch.arange(window), torch.arange(window), indexing="ij")
        ys, xs = ys.flatten(), xs.flatten()
        index = (ys[:, None] - ys[None, :] + window - 1) * (2 * window - 1) + (xs[:, None] - xs[None, :] + window - 1)
        self.register_buffer("index", index)

    def partition(self, x):  # 1×Hp×Wp×C → windows×n×C
        _, hp, wp, c = x.shape
        w = self.window
        return x.view(hp // w, w, wp // w, w, c).permute(0, 2, 1, 3, 4).reshape(-1, w * w, c)

    def forward(self, x, shortcut, height: int, width: int):
        c, w, s = x.shape[-1], self.window, self.shift
        x = x.view(1, height, width, c)
        hp, wp = (height + w - 1) // w * w, (width + w - 1) // w * w  # traced sizes: ONNX Div truncates
        x = F.pad(x, (0, 0, 0, wp - width, 0, hp - height))
        if s:
            x = torch.roll(x, shifts=(-s, -s), dims=(1, 2))
        windows = self.partition(x)
        n, d = w * w, c // self.heads
        qkv = self.qkv(windows).reshape(-1, n, 3, self.heads, d).permute(2, 0, 3, 1, 4)
        q, k, v = qkv[0] * d ** -0.5, qkv[1], qkv[2]
        scores = q @ k.transpose(-2, -1)
        scores = scores + self.relative_position_bias_table[self.index.view(-1)].view(n, n, -1).permute(2, 0, 1)
        if s:
            # The three bands of each padded side (no wrap, the last window before the shift, the wrapped part),
            # labelled as Swin's code labels them; pairs of different labels are masked. Built in NumPy from the
            # fixed sizes, so it exports as a constant, as the traced original does.
            bands = np.zeros((1, hp, wp, 1), np.float32)
            for r, rows in enumerate((slice(0, hp - w), slice(hp - w, hp - s), slice(hp - s, hp))):
                for q, cols in enumerate((slice(0, wp - w), slice(wp - w, wp - s), slice(wp - s, wp))):
                    bands[:, rows, cols, :] = 3 * r + q
            labels = self.partition(torch.from_numpy(bands)).squeeze(-1)
            mask = torch.zeros(labels.shape[0], n, n).masked_fill(labels[:, None, :] != labels[:, :, None],
                                                                  float("-inf"))
            scores = scores + mask[:, None]
        out = (scores.softmax(-1) @ v).transpose(1, 2).reshape(-1, n, c)
        out = out.view(hp // w, wp // w, w, w, c).permute(0, 2, 1, 3, 4).reshape(1, hp, wp, c)
        if s:
            out = torch.roll(out, shifts=(s, s), dims=(1, 2))
        out = out[:, :height, :width, :].reshape(1, height * width, c)
        return shortcut + self.proj(out)


class Fixed(nn.Module):
    """A module whose extra integer arguments are fixed, so they export as constants."""

    def __init__(self, module, *args):
        super().__init__()
        self.module, self.args = module, args

    def forward(self, *inputs):
        return self.module(*inputs, *self.args)


def windowattention_cases():
    rng = np.random.default_rng(20261209)
    # (height, width, features, heads, window, shift)
    shapes = [(9, 11, 16, 2, 4, 0), (9, 11, 16, 2, 4, 2), (7, 7, 24, 3, 7, 3), (13, 10, 32, 4, 5, 2),
              (4, 6, 8, 1, 7, 3), (14, 14, 12, 3, 7, 0), (16, 16, 32, 2, 12, 6)]
    tensors, meta = [], {}
    for i, (h, w, c, heads, window, shift) in enumerate(shapes):
        module = ShiftedWindowAttention(c, heads, window, shift)
        set_parameters(module, rng)
        x, shortcut = randn(rng, 1, h * w, c), randn(rng, 1, h * w, c)
        y = run_onnx(Fixed(module, h, w), [x, shortcut])
        tensors += [(f"case{i}.input", x), (f"case{i}.shortcut", shortcut), (f"case{i}.output", y)]
        tensors += parameters(module, f"case{i}")
        meta[f"case{i}"] = json.dumps({"height": h, "width": w, "features": c, "heads": heads, "window": window,
                                       "shift": shift})
    meta["cases"] = str(len(shapes))
    return tensors, meta


class Merging(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm = nn.LayerNorm(4 * dim)
        self.reduction = nn.Linear(4 * dim, 2 * dim, bias=False)

    def forward(self, x, height: int, width: int):
        c = x.shape[-1]
        x = x.view(1, height, width, c)
        x = F.pad(x, (0, 0, 0, width % 2, 0, height % 2))
        x = torch.cat([x[:, 0::2, 0::2], x[:, 1::2, 0::2], x[:, 0::2, 1::2], x[:, 1::2, 1::2]], -1)
        return self.reduction(self.norm(x.reshape(1, -1, 4 * c)))


def patchmerging_cases():
    rng = np.random.default_rng(20261210)
    shapes = [(6, 4, 8), (5, 7, 4), (1, 1, 16), (9, 8, 12), (32, 34, 24)]
    tensors, meta = [], {}
    for i, (h, w, c) in enumerate(shapes):
        module = Merging(c)
        set_parameters(module, rng)
        x = randn(rng, 1, h * w, c)
        y = run_onnx(Fixed(module, h, w), [x])
        tensors += [(f"case{i}.input", x), (f"case{i}.output", y)] + parameters(module, f"case{i}")
        meta[f"case{i}"] = json.dumps({"height": h, "width": w, "features": c})
    meta["cases"] = str(len(shapes))
    return tensors, meta


def resize_aligned_cases():
    rng = np.random.default_rng(20261211)
    # (channels, in h, in w, out h, out w): BiRefNet's 2× steps, its halved input, odd and unrelated sizes, 1 pixel
    shapes = [(2, 8, 8, 16, 16), (3, 20, 14, 10, 7), (1, 5, 7, 13, 3), (2, 1, 1, 4, 5), (1, 9, 6, 1, 1),
              (4, 16, 16, 64, 64), (1, 33, 17, 32, 16)]
    tensors, meta = [], {}
    for i, (c, h, w, oh, ow) in enumerate(shapes):
        x = randn(rng, 1, c, h, w)
        module = Fixed(Interpolate(), oh, ow)
        tensors += [(f"case{i}.input", x), (f"case{i}.output", run_onnx(module, [x]))]
        meta[f"case{i}"] = json.dumps({"height": oh, "width": ow})
    meta["cases"] = str(len(shapes))
    return tensors, meta


class Interpolate(nn.Module):
    def forward(self, x, height: int, width: int):
        return F.interpolate(x, size=(height, width), mode="bilinear", align_corners=True)


def deform_conv2d_definition(x, weight, offset, mask, bias, stride_h, stride_w, pad_h, pad_w, dil_h, dil_w,
                             groups, offset_groups, use_mask):
    """torchvision's modulated deformable convolution from its definition (stride and dilation 1, one group):
    out[o, y, x] = bias[o] + Σ_c Σ_k w[o, c, k] · mask[k, y, x] · x[c](y − pad + i_k + Δy, x − pad + j_k + Δx),
    sampled bilinearly with zeros outside the map."""
    assert (stride_h, stride_w, dil_h, dil_w, groups, offset_groups) == (1, 1, 1, 1, 1, 1)
    _, c, h, w = x.shape
    o, _, kh, kw = weight.shape
    _, _, oh, ow = offset.shape
    padded = F.pad(x, (1, 1, 1, 1))[0]                    # one zero pixel around: neighbours outside read 0
    columns = []
    for i in range(kh):
        for j in range(kw):
            k = i * kw + j
            ys = torch.arange(oh, dtype=x.dtype)[:, None] - pad_h + i + offset[0, 2 * k]
            xs = torch.arange(ow, dtype=x.dtype)[None, :] - pad_w + j + offset[0, 2 * k + 1]
            inside = (ys > -1) & (ys < h) & (xs > -1) & (xs < w)
            y0, x0 = torch.floor(ys), torch.floor(xs)
            dy, dx = ys - y0, xs - x0
            y0 = y0.clamp(-1, h).long() + 1
            x0 = x0.clamp(-1, w).long() + 1
            y1, x1 = (y0 + 1).clamp(max=h + 1), (x0 + 1).clamp(max=w + 1)
            sample = ((1 - dy) * (1 - dx) * padded[:, y0, x0] + (1 - dy) * dx * padded[:, y0, x1]
                      + dy * (1 - dx) * padded[:, y1, x0] + dy * dx * padded[:, y1, x1])
            sample = torch.where(inside, sample, torch.zeros_like(sample))
            if use_mask:
                sample = sample * mask[0, k]
            columns.append(sample)                            # c × oh × ow
    columns = torch.stack(columns, 1).reshape(c * kh * kw, oh * ow)
    out = weight.reshape(o, -1) @ columns + bias[:, None]
    return out.reshape(1, o, oh, ow)


def register_deform_conv2d():
    """torchvision::deform_conv2d, as torchvision declares it, implemented by the definition above; then the
    exporter's ONNX decomposition of it."""
    # The exporter (1.2.0) reads the scalar types from where PyTorch kept them before 2.9; newer PyTorch keeps
    # them under the TorchScript exporter's package. Without this it falls back to tables that no longer exist.
    from torch.onnx._internal.torchscript_exporter import _type_utils
    sys.modules.setdefault("torch.onnx._type_utils", _type_utils)
    import deform_conv2d_onnx_exporter

    # In a whole BiRefNet the traced graph does not carry the deformable convolutions' input sizes, only their
    # strides; BiRefNet's notebook patches the exporter to read height and width from the strides of the
    # contiguous NCHW map (and batch 1). The same here.
    plain = deform_conv2d_onnx_exporter.get_tensor_dim_size

    def dim_size(tensor, dim):
        size = plain(tensor, dim)
        if size is None:
            strides = tensor.type().strides()
            size = {0: 1, 2: strides[1] // strides[2], 3: strides[2]}.get(dim)
        return size

    deform_conv2d_onnx_exporter.get_tensor_dim_size = dim_size
    library = torch.library.Library("torchvision", "DEF")
    library.define("deform_conv2d(Tensor input, Tensor weight, Tensor offset, Tensor mask, Tensor bias, "
                   "SymInt stride_h, SymInt stride_w, SymInt pad_h, SymInt pad_w, SymInt dilation_h, "
                   "SymInt dilation_w, SymInt groups, SymInt offset_groups, bool use_mask) -> Tensor")
    library.impl("deform_conv2d", deform_conv2d_definition, "CPU")
    deform_conv2d_onnx_exporter.register_deform_conv2d_onnx_op()
    return library


class DeformConv(nn.Module):
    def __init__(self, cin, cout, k, bias):
        super().__init__()
        self.weight = nn.Parameter(torch.zeros(cout, cin, k, k))
        self.bias = nn.Parameter(torch.zeros(cout)) if bias else None
        self.padding = k // 2

    def forward(self, x, offset, mask):
        bias = self.bias if self.bias is not None else torch.zeros(self.weight.shape[0])
        p = self.padding
        return torch.ops.torchvision.deform_conv2d(x, self.weight, offset, mask, bias, 1, 1, p, p, 1, 1, 1, 1, True)


def deformconv_cases():
    library = register_deform_conv2d()
    rng = np.random.default_rng(20261212)
    # (in, out, k, h, w, offset scale, bias): BiRefNet's kernels, offsets from sub-pixel to past the border
    shapes = [(3, 4, 3, 7, 9, 1.0, True), (5, 8, 1, 6, 5, 2.0, False), (4, 6, 7, 9, 8, 3.0, False),
              (8, 16, 3, 12, 10, 0.5, True), (2, 3, 3, 1, 1, 1.5, True), (6, 5, 7, 4, 13, 6.0, False)]
    tensors, meta = [], {}
    for i, (cin, cout, k, h, w, scale, bias) in enumerate(shapes):
        module = DeformConv(cin, cout, k, bias)
        set_parameters(module, rng)
        x = randn(rng, 1, cin, h, w)
        offset = randn(rng, 1, 2 * k * k, h, w, scale=scale)
        offset[0, 0, 0, 0] = 0.0                               # whole-pixel steps too
        offset[0, 1, 0, 0] = -1.0
        mask = (2 / (1 + np.exp(-randn(rng, 1, k * k, h, w, scale=2)))).astype(np.float32)
        y = run_onnx(module, [x, offset, mask])
        with torch.no_grad():
            direct = module(*(torch.from_numpy(a) for a in (x, offset, mask))).numpy()
        assert np.abs(direct - y).max() < 1e-4, f"the exporter's graph differs from the definition: case {i}"
        tensors += [(f"case{i}.input", x), (f"case{i}.offset", offset), (f"case{i}.mask", mask),
                    (f"case{i}.output", y)] + parameters(module, f"case{i}")
        meta[f"case{i}"] = json.dumps({"in": cin, "out": cout, "kernel": k, "bias": int(bias)})
    meta["cases"] = str(len(shapes))
    del library
    return tensors, meta


FIXTURES = {"layernorm": layernorm_cases, "gelu": gelu_cases, "tokenlinear": tokenlinear_cases,
            "windowattention": windowattention_cases, "patchmerging": patchmerging_cases,
            "resize-aligned": resize_aligned_cases, "deformconv": deformconv_cases}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ops", default=",".join(FIXTURES), help="comma-separated fixtures to write")
    args = parser.parse_args()
    torch.manual_seed(0)
    for name in args.ops.split(","):
        if name not in FIXTURES:
            sys.exit(f"make_birefnet_op_fixtures.py: no fixture {name!r} (have {', '.join(FIXTURES)})")
        tensors, meta = FIXTURES[name]()
        path = os.path.join(OUT, "ops", f"{name}.safetensors")
        write_safetensors(path, tensors, meta)
        print(f"{path}: {meta['cases']} cases, {os.path.getsize(path) // 1024} kB")


if __name__ == "__main__":
    main()
