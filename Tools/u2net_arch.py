"""U²-Net architecture as a list of convolutions in forward order.

Mirrors Sources/SwiftsegModels/U2Net/U2NetConfiguration.swift (the Swift runtime checks every name and
shape again at load). The ONNX exports carry BatchNorm-folded conv weights under anonymous names, in the
order PyTorch traced `forward`, so this list is how the converter gives them their original module names.
"""

from dataclasses import dataclass

# (stage name, RSU height or "4F", in_ch, mid_ch, out_ch) per variant, in forward order.
STAGES = {
    "u2netp": [
        ("stage1", 7, 3, 16, 64), ("stage2", 6, 64, 16, 64), ("stage3", 5, 64, 16, 64),
        ("stage4", 4, 64, 16, 64), ("stage5", "4F", 64, 16, 64), ("stage6", "4F", 64, 16, 64),
        ("stage5d", "4F", 128, 16, 64), ("stage4d", 4, 128, 16, 64), ("stage3d", 5, 128, 16, 64),
        ("stage2d", 6, 128, 16, 64), ("stage1d", 7, 128, 16, 64),
    ],
    "u2net": [
        ("stage1", 7, 3, 32, 64), ("stage2", 6, 64, 32, 128), ("stage3", 5, 128, 64, 256),
        ("stage4", 4, 256, 128, 512), ("stage5", "4F", 512, 256, 512), ("stage6", "4F", 512, 256, 512),
        ("stage5d", "4F", 1024, 256, 512), ("stage4d", 4, 1024, 128, 256), ("stage3d", 5, 512, 64, 128),
        ("stage2d", 6, 256, 32, 64), ("stage1d", 7, 128, 16, 64),
    ],
}

# Input channels of side1…side6 (the decoder outputs hx1d…hx5d and hx6).
SIDE_IN = {"u2netp": [64, 64, 64, 64, 64, 64], "u2net": [64, 64, 128, 256, 512, 512]}


@dataclass
class ConvSpec:
    name: str  # module path, e.g. "stage1.rebnconvin.conv_s1"
    out_ch: int
    in_ch: int
    kernel: int
    dilation: int
    stride: int = 1


def rsu_convs(prefix, height, in_ch, mid, out):
    """Convolutions of one RSU block in the order its forward() runs them."""
    def c(block, i, o, d):
        return ConvSpec(f"{prefix}.{block}.conv_s1", o, i, 3, d)

    if height == "4F":
        return [c("rebnconvin", in_ch, out, 1), c("rebnconv1", out, mid, 1), c("rebnconv2", mid, mid, 2),
                c("rebnconv3", mid, mid, 4), c("rebnconv4", mid, mid, 8), c("rebnconv3d", 2 * mid, mid, 4),
                c("rebnconv2d", 2 * mid, mid, 2), c("rebnconv1d", 2 * mid, out, 1)]
    convs = [c("rebnconvin", in_ch, out, 1), c("rebnconv1", out, mid, 1)]
    convs += [c(f"rebnconv{i}", mid, mid, 1) for i in range(2, height)]
    convs.append(c(f"rebnconv{height}", mid, mid, 2))
    convs += [c(f"rebnconv{i}d", 2 * mid, mid, 1) for i in range(height - 1, 1, -1)]
    convs.append(c("rebnconv1d", 2 * mid, out, 1))
    return convs


def conv_specs(variant, stages=None, side_in=None):
    """The convs of a known variant, or of `stages` / `side_in` (widths read from a file)."""
    convs = []
    for stage in stages or STAGES[variant]:
        convs += rsu_convs(*stage)
    convs += [ConvSpec(f"side{i + 1}", 1, ch, 3, 1) for i, ch in enumerate(side_in or SIDE_IN[variant])]
    convs.append(ConvSpec("outconv", 1, 6, 1, 1))
    return convs


def stages_from_shapes(weight_shapes, fuse=True):
    """Every stage's (in, mid, out) read from the conv weight shapes in forward order: a stage's first conv
    (rebnconvin) is in → out, its second (rebnconv1) out → mid. The stage names and RSU heights are U²-Net's;
    only the widths vary (rembg's silueta). `fuse`: an outconv follows the six sides (U²-Net; ISNet has none).
    Returns (stages, side_in), or None if the count does not fit."""
    stages, at = [], 0
    for name, height, _, _, _ in STAGES["u2netp"]:
        if at + 1 >= len(weight_shapes):
            return None
        out, cin = weight_shapes[at][0], weight_shapes[at][1]
        mid = weight_shapes[at + 1][0]
        stages.append((name, height, cin, mid, out))
        at += len(rsu_convs(name, height, cin, mid, out))
    side_in = [shape[1] for shape in weight_shapes[at:at + 6]]
    if len(side_in) != 6 or at + 6 + (1 if fuse else 0) != len(weight_shapes):
        return None
    return stages, side_in


def isnet_specs(weight_shapes):
    """ISNet (rembg's isnet-general-use, isnet-anime): conv_in (3×3 stride 2 from RGB) and U²-Net's stages and
    sides, widths from the shapes, no outconv. Returns the specs, or None."""
    found = stages_from_shapes(weight_shapes[1:], fuse=False)
    if found is None:
        return None
    stages, side_in = found
    convs = [ConvSpec("conv_in", weight_shapes[0][0], 3, 3, 1, stride=2)]
    for stage in stages:
        convs += rsu_convs(*stage)
    return convs + [ConvSpec(f"side{i + 1}", 1, ch, 3, 1) for i, ch in enumerate(side_in)]
