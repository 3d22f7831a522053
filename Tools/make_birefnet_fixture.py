#!/usr/bin/env python3
"""A BiRefNet small enough to commit, with seeded random weights, and ONNX Runtime's output for it: the
whole-network parity fixture of Sources/SwiftsegModels/BiRefNet.

    Tools/.venv/bin/python Tools/make_birefnet_fixture.py            # Tests/Fixtures/models/birefnet-tiny.*
    Tools/.venv/bin/python Tools/make_birefnet_fixture.py --backbone tiny-l   # …/birefnet-tiny-l.* (window 12)
    Tools/.venv/bin/python Tools/make_birefnet_fixture.py --backbone swin_v1_t --size 1024 \\
        --out ~/.cache/swiftseg/birefnet-random      # a full-size Swin-T BiRefNet, for PERF.md (not committed)

The model is Tools/birefnet_arch.py's (every structural part of the released models: Swin blocks with shifted,
padded, masked windows, patch merging, the half-size input, the context features, the squeeze block, the
ASPP-deformable decoder blocks, the image patches, the gradient attention), by default with narrow widths
(Swin dim 8, two blocks a stage, window 7; decoder widths 8), exported as BiRefNet's notebook exports (opset
17, deform_conv2d through deform_conv2d_onnx_exporter; see make_birefnet_op_fixtures.py) and run by ONNX
Runtime on a scikit-image photo resized and normalised as rembg does. The weights are converted from the ONNX
export by Tools/convert_birefnet.py's structural mapping, as rembg's files are, and checked equal to the state
dict converted as a Hugging Face checkpoint is.

Writes STEM.safetensors (the converted weights), STEM.input.npy (1×3×S×S) and STEM.output.npy (ONNX Runtime's
map after the sigmoid, 1×1×S×S), and with --keep-onnx STEM.onnx.
"""

import argparse
import io
import os
import sys
import tempfile

import numpy as np
import onnxruntime as ort
import torch
from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from birefnet_arch import SWIN, BiRefNet  # noqa: E402
from convert_birefnet import check_against_architecture, convert_state_dict, metadata, read_onnx  # noqa: E402
from convert_onnx import write_safetensors  # noqa: E402
from make_birefnet_op_fixtures import register_deform_conv2d  # noqa: E402

# Narrow layouts with Swin-T's window (7) and Swin-L's (12): the released models' two structural variants.
TINY = {"tiny": (8, (2, 2, 2, 2), (1, 2, 2, 4), 7), "tiny-l": (8, (2, 2, 2, 2), (1, 2, 2, 4), 12)}


def seeded(model, seed):
    """Every parameter and BatchNorm statistic random, scaled so activations stay of order one."""
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, p in model.named_parameters():
            fan_in = int(np.prod(p.shape[1:])) if p.dim() > 1 else 1
            p.copy_(torch.randn(p.shape, generator=g) / np.sqrt(fan_in))
            if name.endswith("norm.weight") or ".norm" in name and name.endswith(".weight"):
                p.add_(1)
        for name, b in model.named_buffers():
            if name.endswith("running_mean"):
                b.copy_(torch.randn(b.shape, generator=g) * 0.1)
            elif name.endswith("running_var"):
                b.copy_(torch.rand(b.shape, generator=g) + 0.5)
    return model.eval()


def photo(size):
    from skimage import data
    rgb = Image.fromarray(data.astronaut()).resize((size, size), Image.Resampling.LANCZOS)
    x = np.asarray(rgb, np.float32)
    x = x / max(x.max(), 1e-6)
    x = (x - [0.485, 0.456, 0.406]) / [0.229, 0.224, 0.225]
    return x.transpose(2, 0, 1)[None].astype(np.float32)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backbone", choices=[*TINY, *SWIN], default="tiny",
                        help="tiny, tiny-l: the committed fixtures' narrow widths with Swin-T's and Swin-L's window; "
                             "swin_v1_t / swin_v1_l: a released model's")
    parser.add_argument("--size", type=int, default=128, help="input side, a multiple of 32")
    parser.add_argument("--out", help="output stem (default: Tests/Fixtures/models/birefnet-BACKBONE)")
    parser.add_argument("--seed", type=int, default=20261213)
    parser.add_argument("--keep-onnx", action="store_true", help="also write STEM.onnx (for bench_compare.sh)")
    args = parser.parse_args()
    if args.size % 32:
        sys.exit("make_birefnet_fixture.py: --size must be a multiple of 32 (BiRefNet's image patches)")
    library = register_deform_conv2d()
    tiny = args.backbone in TINY
    args.out = args.out or os.path.join(HERE, "..", "Tests", "Fixtures", "models", f"birefnet-{args.backbone}")
    model = seeded(BiRefNet(TINY[args.backbone] if tiny else args.backbone, inter=8 if tiny else 64,
                            planes=8 if tiny else 256), args.seed)
    x = photo(args.size)
    buffer = io.BytesIO()
    with torch.no_grad():
        torch.onnx.export(model, (torch.from_numpy(x),), buffer, opset_version=17, input_names=["input_image"],
                          output_names=["output_image"], dynamo=False)
        direct = torch.sigmoid(model(torch.from_numpy(x))).numpy()
    opts = ort.SessionOptions()
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    session = ort.InferenceSession(buffer.getvalue(), opts, providers=["CPUExecutionProvider"])
    logits = session.run(None, {"input_image": x})[0]
    y = (1 / (1 + np.exp(-logits.astype(np.float64)))).astype(np.float32)
    gap = float(np.abs(y - direct).max())
    if gap > 1e-4:
        sys.exit(f"make_birefnet_fixture.py: ONNX Runtime and PyTorch differ by {gap}")
    # The weights as rembg's users get them: converted from the ONNX export by its structure; they must equal the
    # state dict's, converted as a Hugging Face checkpoint is.
    with tempfile.NamedTemporaryFile(suffix=".onnx") as exported:
        exported.write(buffer.getvalue())
        exported.flush()
        state, _ = read_onnx(exported.name)
    tensors = convert_state_dict(state, "the ONNX export")
    direct = dict(convert_state_dict({k: v.numpy() for k, v in model.state_dict().items()}, "the state dict"))
    for name, array in tensors:
        if name not in direct or np.abs(array - direct[name]).max() > 1e-6 * (np.abs(direct[name]).max() + 1):
            sys.exit(f"make_birefnet_fixture.py: {name} converted from the ONNX export differs from the state dict's")
    if len(tensors) != len(direct):
        sys.exit("make_birefnet_fixture.py: the ONNX export and the state dict convert to different tensor sets")
    shape = check_against_architecture(tensors, "random BiRefNet")
    variant = os.path.basename(args.out)   # the file's name is the model's (swiftseg-bench --model, bench_compare.sh)
    meta = metadata(variant, f"Tools/make_birefnet_fixture.py --backbone {args.backbone} --seed {args.seed}",
                    "random weights", *shape)
    meta["license"] = "random weights (test fixture)"
    meta["input_size"] = str(args.size)
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    write_safetensors(args.out + ".safetensors", tensors, meta)
    np.save(args.out + ".input.npy", x)
    np.save(args.out + ".output.npy", y)
    if args.keep_onnx:
        with open(args.out + ".onnx", "wb") as f:
            f.write(buffer.getvalue())
    print(f"{args.out}: {len(tensors)} tensors, output range {y.min():.4f}…{y.max():.4f}, "
          f"ORT vs PyTorch {gap:.2e}")
    del library


if __name__ == "__main__":
    main()
