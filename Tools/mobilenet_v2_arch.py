"""MobileNetV2's block table (Sandler et al. 2018, torchvision's `mobilenet_v2`), as
Sources/SwiftsegModels/MobileNetV2/MobileNetV2Configuration.swift has it: (expansion t, repeats n, stride s of the
first block) per stage. Channel widths are not fixed here: they are read from the weights' shapes, so any width
multiplier converts (1.0 is the ImageNet model). Weight names are torchvision's module paths."""

STAGES = [(1, 1, 1), (6, 2, 2), (6, 3, 2), (6, 4, 2), (6, 3, 1), (6, 3, 2), (6, 1, 1)]


def conv_names():
    """(name, kind) of every conv in graph order: stem, each block's expand (t != 1), depthwise, project, head."""
    out = [("features.0.0", "stem")]
    index = 1
    for t, n, s in STAGES:
        for r in range(n):
            p = f"features.{index}.conv"
            if t != 1:
                out += [(f"{p}.0.0", "expand"), (f"{p}.1.0", ("depthwise", s if r == 0 else 1)), (f"{p}.2", "project")]
            else:
                out += [(f"{p}.0.0", ("depthwise", s if r == 0 else 1)), (f"{p}.1", "project")]
            index += 1
    out.append((f"features.{index}.0", "head"))
    return out


def blocks():
    """(features index, expansion, stride) per block."""
    out, index = [], 1
    for t, n, s in STAGES:
        for r in range(n):
            out.append((index, t, s if r == 0 else 1))
            index += 1
    return out
