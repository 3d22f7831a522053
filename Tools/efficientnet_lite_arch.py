"""EfficientNet-Lite0's blocks, as Sources/SwiftsegModels/EfficientNetLite/EfficientNetLiteConfiguration.swift has
them (the converter and the fixture maker check the weights against this table; the Swift loader checks every
tensor's name and shape again at load).

Tan & Le 2019 ("EfficientNet"), Lite variant (Google, 2020): no squeeze-and-excitation, ReLU6, stem and head
widths fixed. Each stage: (repeats, kernel, stride of its first block, expansion, in channels, out channels).
"""

STAGES = [(1, 3, 1, 1, 32, 16), (2, 3, 2, 6, 16, 24), (2, 5, 2, 6, 24, 40), (3, 3, 2, 6, 40, 80),
          (3, 5, 1, 6, 80, 112), (4, 5, 2, 6, 112, 192), (1, 3, 1, 6, 192, 320)]
STEM_CHANNELS = 32
HEAD_CHANNELS = 1280
CLASSES = 1000
BN_EPSILON = 1e-3


def blocks():
    """(index, kernel, stride, expansion, in, out) for _blocks.0 … _blocks.15."""
    out = []
    for repeats, k, s, e, cin, cout in STAGES:
        for r in range(repeats):
            out.append((len(out), k, s if r == 0 else 1, e, cin if r == 0 else cout, cout))
    return out
