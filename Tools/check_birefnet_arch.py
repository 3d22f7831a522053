#!/usr/bin/env python3
"""Compare Tools/birefnet_arch.py with the BiRefNet project's own code: the same state-dict keys and shapes, and
the same output for the same random weights, for Swin-T and Swin-L.

    git clone https://github.com/ZhengPeng7/BiRefNet /tmp/BiRefNet        # wherever a copy can be had
    Tools/.venv/bin/python Tools/check_birefnet_arch.py /tmp/BiRefNet

The original imports packages its inference does not need (timm, kornia, einops, huggingface_hub, torchvision,
its training dataset); small stand-ins are put in their place here, and torchvision's deform_conv2d is the plain
definition from make_birefnet_op_fixtures.py. Nothing of the original is copied into this project.
Last run 2026-12-07 (BiRefNet at 25cb930): keys identical, outputs within 1.5e-8 (Swin-T) and 6e-8 (Swin-L).
"""

import os
import sys
import tempfile
import types

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
LIBRARY = None


def stand_ins():
    """Modules the original imports, reduced to what its inference touches."""
    import torch.nn as nn
    from make_birefnet_op_fixtures import register_deform_conv2d
    global LIBRARY
    LIBRARY = register_deform_conv2d()   # the registration lives as long as this object

    def module(name, **attributes):
        m = types.ModuleType(name)
        m.__dict__.update(attributes)
        sys.modules[name] = m
        return m

    class DropPath(nn.Identity):
        def __init__(self, *args, **kwargs):
            super().__init__()

    module("timm")
    module("timm.layers", DropPath=DropPath, to_2tuple=lambda x: (x, x), trunc_normal_=lambda t, std=1.0: t)
    module("kornia")
    module("kornia.filters", laplacian=None)

    def rearrange(image, pattern, hg, wg):
        assert pattern == "b c (hg h) (wg w) -> b (c hg wg) h w", pattern
        b, c, h, w = image.shape
        return image.view(b, c, hg, h // hg, wg, w // wg).permute(0, 1, 2, 4, 3, 5).reshape(b, c * hg * wg, h // hg, w // wg)

    module("einops", rearrange=rearrange)

    class PyTorchModelHubMixin:
        def __init_subclass__(cls, **kwargs):
            pass

    module("huggingface_hub", PyTorchModelHubMixin=PyTorchModelHubMixin)
    module("dataset", class_labels_TR_sorted=["x"])

    def deform_conv2d(input, offset, weight, bias=None, stride=(1, 1), padding=(0, 0), dilation=(1, 1), mask=None):
        p = padding if isinstance(padding, int) else padding[0]
        bias = torch.zeros(weight.shape[0]) if bias is None else bias
        return torch.ops.torchvision.deform_conv2d(input, weight, offset, mask, bias, 1, 1, p, p, 1, 1, 1, 1, True)

    module("torchvision")
    module("torchvision.ops", deform_conv2d=deform_conv2d)
    module("torchvision.models", vgg16=None, vgg16_bn=None, resnet50=None, VGG16_Weights=None,
           VGG16_BN_Weights=None, ResNet50_Weights=None)


def main():
    if len(sys.argv) != 2 or not os.path.isfile(os.path.join(sys.argv[1], "models", "birefnet.py")):
        sys.exit("usage: check_birefnet_arch.py PATH-TO-BiRefNet (a checkout with models/birefnet.py)")
    stand_ins()
    sys.path.insert(0, sys.argv[1])
    with tempfile.TemporaryDirectory():
        import config
        import birefnet_arch
        widths = {"swin_v1_t": [768, 384, 192, 96], "swin_v1_l": [1536, 768, 384, 192]}
        for backbone in ("swin_v1_t", "swin_v1_l"):
            plain = config.Config.__init__

            def chosen(self, plain=plain, backbone=backbone):
                plain(self)
                self.bb = backbone
                self.lateral_channels_in_collection = [2 * c for c in widths[backbone]]
                self.cxt = self.lateral_channels_in_collection[1:][::-1][-self.cxt_num:]

            config.Config.__init__ = chosen
            for name in [m for m in sys.modules if m.startswith("models")]:
                del sys.modules[name]
            from models.birefnet import BiRefNet as Original
            original = Original(bb_pretrained=False).eval()
            config.Config.__init__ = plain
            ours = birefnet_arch.BiRefNet(backbone).eval()
            a, b = original.state_dict(), ours.state_dict()
            if set(a) != set(b) or any(a[k].shape != b[k].shape for k in a):
                sys.exit(f"{backbone}: keys or shapes differ: only in the original {sorted(set(a) - set(b))[:5]}, "
                         f"only here {sorted(set(b) - set(a))[:5]}")
            g = torch.Generator().manual_seed(1)
            state = {k: torch.randn(v.shape, generator=g) * 0.05 if v.dtype.is_floating_point else v for k, v in a.items()}
            state.update({k: v.abs() + 0.5 for k, v in state.items() if k.endswith("running_var")})
            original.load_state_dict(state)
            ours.load_state_dict(state)
            x = torch.randn(1, 3, 128, 128, generator=g)
            with torch.no_grad():
                expected = original(x)
                expected = expected[-1] if isinstance(expected, (list, tuple)) else expected
                gap = float((ours(x) - expected).abs().max())
            print(f"{backbone}: {len(a)} tensors, keys and shapes identical; output max |Δ| {gap:.2e}")
            if gap > 1e-5:
                sys.exit(f"{backbone}: outputs differ")


if __name__ == "__main__":
    main()
