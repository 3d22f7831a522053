"""BiRefNet (Zheng et al. 2024, "Bilateral Reference for High-Resolution Dichotomous Image Segmentation") in
PyTorch, for the fixtures and converters in Tools/ only: the inference graph of the configuration that rembg's
BiRefNet files and the Hugging Face checkpoints (BiRefNet-*, RMBG-2.0) use, with the module paths of the
original code so its state dicts load unchanged. Written for this project from the architecture (the
BiRefNet project's code is MIT; nothing is copied); Tools/check_birefnet_arch.py compares it with the original
when a copy of that code is at hand.

The configuration: Swin v1 backbone (tiny or large), the input also at half size through the same backbone
with its features concatenated ("cat"), the three shallower features resized onto the deepest ("cxt"), one
BasicDecBlk squeezing them, BasicDecBlk decoder blocks with ASPP-deformable attention, 1×1 lateral blocks,
image patches fed into each decoder stage ("dec_ipt", split into a grid of patches stacked as channels), the
gradient-attention convs of "out_ref", BatchNorm everywhere the training batch size put it. Training-only
modules (`conv_ms_spvn_*`, `gdt_convs_pred_*`) exist, as in the checkpoints, but the forward pass does not use
them.
"""

import torch
import torch.nn.functional as F
from torch import nn

SWIN = {  # embed dim, depths, heads, window
    "swin_v1_t": (96, (2, 2, 6, 2), (3, 6, 12, 24), 7),
    "swin_v1_l": (192, (2, 2, 18, 2), (6, 12, 24, 48), 12),
}


def resize(x, size):
    return F.interpolate(x, size=size, mode="bilinear", align_corners=True)


# ---------------------------------------------------------------------------------------------- Swin v1


class Mlp(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.fc1, self.fc2 = nn.Linear(dim, hidden), nn.Linear(hidden, dim)

    def forward(self, x):
        return self.fc2(F.gelu(self.fc1(x)))


class WindowAttention(nn.Module):
    def __init__(self, dim, heads, window):
        super().__init__()
        self.heads, self.window = heads, window
        self.qkv, self.proj = nn.Linear(dim, 3 * dim), nn.Linear(dim, dim)
        self.relative_position_bias_table = nn.Parameter(torch.zeros((2 * window - 1) ** 2, heads))
        ys, xs = torch.meshgrid(torch.arange(window), torch.arange(window), indexing="ij")
        ys, xs = ys.flatten(), xs.flatten()
        index = (ys[:, None] - ys[None, :] + window - 1) * (2 * window - 1) + (xs[:, None] - xs[None, :] + window - 1)
        self.register_buffer("relative_position_index", index)

    def forward(self, windows, mask):
        count, n, c = windows.shape
        d = c // self.heads
        qkv = self.qkv(windows).reshape(count, n, 3, self.heads, d).permute(2, 0, 3, 1, 4)
        scores = (qkv[0] * d ** -0.5) @ qkv[1].transpose(-2, -1)
        bias = self.relative_position_bias_table[self.relative_position_index.view(-1)].view(n, n, -1)
        scores = scores + bias.permute(2, 0, 1).unsqueeze(0)
        if mask is not None:
            scores = scores + mask.unsqueeze(1)
        return self.proj((scores.softmax(-1) @ qkv[2]).transpose(1, 2).reshape(count, n, c))


def partition(x, w):  # 1×H×W×C → windows×w²×C
    _, h, wd, c = x.shape
    return x.view(h // w, w, wd // w, w, c).permute(0, 2, 1, 3, 4).reshape(-1, w * w, c)


def merge(windows, w, h, wd):  # windows×w²×C → 1×H×W×C
    c = windows.shape[-1]
    return windows.view(h // w, wd // w, w, w, c).permute(0, 2, 1, 3, 4).reshape(1, h, wd, c)


class SwinTransformerBlock(nn.Module):
    def __init__(self, dim, heads, window, shift):
        super().__init__()
        self.window, self.shift = window, shift
        self.norm1, self.norm2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.attn = WindowAttention(dim, heads, window)
        self.mlp = Mlp(dim, 4 * dim)

    def forward(self, x, height, width, mask):
        c, w, s = x.shape[-1], self.window, self.shift
        shortcut = x
        x = self.norm1(x).view(1, height, width, c)
        hp, wp = (height + w - 1) // w * w, (width + w - 1) // w * w  # traced sizes: ONNX Div truncates
        x = F.pad(x, (0, 0, 0, wp - width, 0, hp - height))
        if s:
            x = torch.roll(x, (-s, -s), (1, 2))
        x = merge(self.attn(partition(x, w), mask if s else None), w, hp, wp)
        if s:
            x = torch.roll(x, (s, s), (1, 2))
        x = shortcut + x[:, :height, :width, :].reshape(1, height * width, c)
        return x + self.mlp(self.norm2(x))


class PatchMerging(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm = nn.LayerNorm(4 * dim)
        self.reduction = nn.Linear(4 * dim, 2 * dim, bias=False)

    def forward(self, x, height, width):
        c = x.shape[-1]
        x = F.pad(x.view(1, height, width, c), (0, 0, 0, width % 2, 0, height % 2))
        x = torch.cat([x[:, 0::2, 0::2], x[:, 1::2, 0::2], x[:, 0::2, 1::2], x[:, 1::2, 1::2]], -1)
        return self.reduction(self.norm(x.reshape(1, -1, 4 * c)))


class BasicLayer(nn.Module):
    def __init__(self, dim, depth, heads, window, downsample):
        super().__init__()
        self.window = window
        self.blocks = nn.ModuleList(SwinTransformerBlock(dim, heads, window, 0 if i % 2 == 0 else window // 2)
                                    for i in range(depth))
        self.downsample = PatchMerging(dim) if downsample else None

    def shift_mask(self, height, width):
        """−∞ between tokens of a shifted window that come from different sides of the wrap."""
        w, s = self.window, self.window // 2
        hp, wp = (height + w - 1) // w * w, (width + w - 1) // w * w  # traced sizes: ONNX Div truncates
        labels = torch.zeros(1, hp, wp, 1)
        for r, rows in enumerate((slice(0, hp - w), slice(hp - w, hp - s), slice(hp - s, hp))):
            for q, cols in enumerate((slice(0, wp - w), slice(wp - w, wp - s), slice(wp - s, wp))):
                labels[:, rows, cols, :] = 3 * r + q
        labels = partition(labels, w).squeeze(-1)
        return torch.zeros(labels.shape[0], w * w, w * w).masked_fill(labels[:, None, :] != labels[:, :, None],
                                                                      float("-inf"))

    def forward(self, x, height, width):
        mask = self.shift_mask(height, width)
        for block in self.blocks:
            x = block(x, height, width, mask)
        if self.downsample is None:
            return x, x, height, width
        return x, self.downsample(x, height, width), (height + 1) // 2, (width + 1) // 2


class PatchEmbed(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.proj = nn.Conv2d(3, dim, 4, 4)
        self.norm = nn.LayerNorm(dim)

    def forward(self, x):
        _, _, h, w = x.shape
        x = self.proj(F.pad(x, (0, (4 - w % 4) % 4, 0, (4 - h % 4) % 4)))
        _, c, h, w = x.shape
        return self.norm(x.flatten(2).transpose(1, 2)), h, w


class SwinTransformer(nn.Module):
    def __init__(self, dim, depths, heads, window):
        super().__init__()
        self.patch_embed = PatchEmbed(dim)
        self.layers = nn.ModuleList(BasicLayer(dim * 2 ** i, depths[i], heads[i], window, i < len(depths) - 1)
                                    for i in range(len(depths)))
        self.widths = [dim * 2 ** i for i in range(len(depths))]
        for i, width in enumerate(self.widths):
            self.add_module(f"norm{i}", nn.LayerNorm(width))

    def forward(self, x):
        x, h, w = self.patch_embed(x)
        outs = []
        for i, layer in enumerate(self.layers):
            out, x, oh, ow = layer(x, h, w)
            out = getattr(self, f"norm{i}")(out)
            outs.append(out.view(1, h, w, self.widths[i]).permute(0, 3, 1, 2).contiguous())
            h, w = oh, ow
        return outs


# ---------------------------------------------------------------------------------------------- decoder


class DeformableConv2d(nn.Module):
    """torchvision's modulated deform_conv2d; its offsets and mask (2·sigmoid) by convolutions of the input."""

    def __init__(self, cin, cout, k, padding):
        super().__init__()
        self.padding = padding
        self.offset_conv = nn.Conv2d(cin, 2 * k * k, k, 1, padding)
        self.modulator_conv = nn.Conv2d(cin, k * k, k, 1, padding)
        self.regular_conv = nn.Conv2d(cin, cout, k, 1, padding, bias=False)

    def forward(self, x):
        offset = self.offset_conv(x)
        mask = 2 * torch.sigmoid(self.modulator_conv(x))
        zero = torch.zeros(self.regular_conv.weight.shape[0])
        p = self.padding
        return torch.ops.torchvision.deform_conv2d(x, self.regular_conv.weight, offset, mask, zero, 1, 1, p, p,
                                                   1, 1, 1, 1, True)


class ASPPModuleDeformable(nn.Module):
    def __init__(self, cin, planes, k, padding):
        super().__init__()
        self.atrous_conv = DeformableConv2d(cin, planes, k, padding)
        self.bn = nn.BatchNorm2d(planes)

    def forward(self, x):
        return F.relu(self.bn(self.atrous_conv(x)))


class ASPPDeformable(nn.Module):
    def __init__(self, cin, planes, sizes=(1, 3, 7)):
        super().__init__()
        self.aspp1 = ASPPModuleDeformable(cin, planes, 1, 0)
        self.aspp_deforms = nn.ModuleList(ASPPModuleDeformable(cin, planes, k, k // 2) for k in sizes)
        self.global_avg_pool = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Conv2d(cin, planes, 1, bias=False),
                                             nn.BatchNorm2d(planes), nn.ReLU())
        self.conv1 = nn.Conv2d(planes * (2 + len(sizes)), cin, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cin)

    def forward(self, x):
        first = self.aspp1(x)
        pooled = resize(self.global_avg_pool(x), first.shape[2:])
        x = torch.cat([first] + [m(x) for m in self.aspp_deforms] + [pooled], 1)
        return F.relu(self.bn1(self.conv1(x)))


class BasicDecBlk(nn.Module):
    def __init__(self, cin, cout, inter, planes):
        super().__init__()
        self.conv_in = nn.Conv2d(cin, inter, 3, 1, 1)
        self.bn_in = nn.BatchNorm2d(inter)
        self.dec_att = ASPPDeformable(inter, planes)
        self.conv_out = nn.Conv2d(inter, cout, 3, 1, 1)
        self.bn_out = nn.BatchNorm2d(cout)

    def forward(self, x):
        return self.bn_out(self.conv_out(self.dec_att(F.relu(self.bn_in(self.conv_in(x))))))


class BasicLatBlk(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, 1)

    def forward(self, x):
        return self.conv(x)


class SimpleConvs(nn.Module):
    def __init__(self, cin, cout, inter):
        super().__init__()
        self.conv1, self.conv_out = nn.Conv2d(cin, inter, 3, 1, 1), nn.Conv2d(inter, cout, 3, 1, 1)

    def forward(self, x):
        return self.conv_out(self.conv1(x))


def patches(image, like):
    """The image cut into a grid of `like`'s size, the patches stacked as channels (c, row, column)."""
    _, c, h, w = image.shape
    ph, pw = like.shape[2], like.shape[3]
    gh, gw = h // ph, w // pw
    return image.view(1, c, gh, ph, gw, pw).permute(0, 1, 2, 4, 3, 5).reshape(1, c * gh * gw, ph, pw)


class Decoder(nn.Module):
    def __init__(self, channels, inter, planes):
        super().__init__()
        out = channels[1:] + [channels[-1] // 2]
        ipt = [c // 8 for c in channels]
        self.ipt_blk5 = SimpleConvs(3 * 2 ** 10, ipt[0], inter)
        self.ipt_blk4 = SimpleConvs(3 * 2 ** 8, ipt[0], inter)
        self.ipt_blk3 = SimpleConvs(3 * 2 ** 6, ipt[1], inter)
        self.ipt_blk2 = SimpleConvs(3 * 2 ** 4, ipt[2], inter)
        self.ipt_blk1 = SimpleConvs(3, ipt[3], inter)
        ins = [channels[i] + ipt[max(0, i - 1)] for i in range(4)]
        for i, n in enumerate((4, 3, 2, 1)):
            self.add_module(f"decoder_block{n}", BasicDecBlk(ins[i], out[i], inter, planes))
        self.conv_out1 = nn.Sequential(nn.Conv2d(out[3] + ipt[3], 1, 1))
        for i, n in enumerate((4, 3, 2)):
            self.add_module(f"lateral_block{n}", BasicLatBlk(channels[i + 1], out[i]))
        for i, n in enumerate((4, 3, 2)):  # training-only, kept so checkpoints load
            self.add_module(f"conv_ms_spvn_{n}", nn.Conv2d(out[i], 1, 1))
        for i, n in enumerate((4, 3, 2)):
            self.add_module(f"gdt_convs_{n}", nn.Sequential(nn.Conv2d(out[i], 16, 3, 1, 1), nn.BatchNorm2d(16), nn.ReLU()))
        for n in (4, 3, 2):
            self.add_module(f"gdt_convs_pred_{n}", nn.Sequential(nn.Conv2d(16, 1, 1)))  # training-only
        for n in (4, 3, 2):
            self.add_module(f"gdt_convs_attn_{n}", nn.Sequential(nn.Conv2d(16, 1, 1)))

    def stage(self, n, p):
        """Decoder block n, then its gradient attention (blocks 4…2)."""
        p = getattr(self, f"decoder_block{n}")(p)
        if n > 1:
            p = p * torch.sigmoid(getattr(self, f"gdt_convs_attn_{n}")(getattr(self, f"gdt_convs_{n}")(p)))
        return p

    def forward(self, x, x1, x2, x3, x4):
        p = torch.cat((x4, self.ipt_blk5(resize(patches(x, x4), x4.shape[2:]))), 1)
        p = self.stage(4, p)
        p = resize(p, x3.shape[2:]) + self.lateral_block4(x3)
        p = torch.cat((p, self.ipt_blk4(resize(patches(x, p), x3.shape[2:]))), 1)
        p = self.stage(3, p)
        p = resize(p, x2.shape[2:]) + self.lateral_block3(x2)
        p = torch.cat((p, self.ipt_blk3(resize(patches(x, p), x2.shape[2:]))), 1)
        p = self.stage(2, p)
        p = resize(p, x1.shape[2:]) + self.lateral_block2(x1)
        p = torch.cat((p, self.ipt_blk2(resize(patches(x, p), x1.shape[2:]))), 1)
        p = resize(self.stage(1, p), x.shape[2:])
        p = torch.cat((p, self.ipt_blk1(resize(patches(x, p), x.shape[2:]))), 1)
        return self.conv_out1(p)


class BiRefNet(nn.Module):
    """`backbone` names a Swin of SWIN, or is (embed dim, depths, heads, window) for a reduced fixture; `inter`
    and `planes` are the decoder's fixed widths (64 and 256 in every released model)."""

    def __init__(self, backbone="swin_v1_t", inter=64, planes=256):
        super().__init__()
        dim, depths, heads, window = SWIN[backbone] if isinstance(backbone, str) else backbone
        self.bb = SwinTransformer(dim, depths, heads, window)
        channels = [2 * c for c in reversed(self.bb.widths)]          # the half-size input's features concatenated
        context = sum(channels[1:])
        self.squeeze_module = nn.Sequential(BasicDecBlk(channels[0] + context, channels[0], inter, planes))
        self.decoder = Decoder(channels, inter, planes)

    def forward(self, x):
        _, _, h, w = x.shape
        features = self.bb(x)
        halves = self.bb(resize(x, (h // 2, w // 2)))
        x1, x2, x3, x4 = (torch.cat([f, resize(g, f.shape[2:])], 1) for f, g in zip(features, halves))
        x4 = torch.cat([resize(x1, x4.shape[2:]), resize(x2, x4.shape[2:]), resize(x3, x4.shape[2:]), x4], 1)
        return self.decoder(x, x1, x2, x3, self.squeeze_module(x4))
