#!/usr/bin/env python3
"""Fixtures for swiftseg's `--decontaminate` (rembg 2.0.86's `-dc`): rembg's own decontaminate_cutout on the committed
photos and their committed rembg masks, so Tests/SwiftsegTests can check parity.

    Tools/.venv/bin/python Tools/make_decontaminate_fixtures.py [--out Tests/Fixtures/matting] [--time [--runs 5]]
    Tools/.venv/bin/python Tools/make_decontaminate_fixtures.py --megapixels 12 [--compare CUTOUT.png]

Needs rembg 2.0.86 (pip install "rembg[cpu]==2.0.86"; it brings pymatting and numba). Writes, per photo,
NAME.decontaminated.png: the RGBA cutout whose colours are pymatting's estimate_foreground_ml(photo / 255,
mask / 255) with its defaults, alpha the mask, both × 255 clipped and truncated — what `rembg i -dc` writes. Re-runs
write the same bytes. With --time it prints the warm time of rembg's -dc step (decontaminate_cutout) per photo,
median and minimum of --runs: the figure the issue's "0.2× rembg" divides by.

With --megapixels N (no fixtures written) it scales chelsea and its mask to about N megapixels (Pillow's Lanczos),
runs the step once warm and prints its time and the process's peak RSS; with --compare it prints how far a cutout
of swiftseg's (`swiftseg infer --decontaminate` on the same scaled photo) is from rembg's: alpha max |Δ| and
colour mean |Δ| where alpha > 0.
"""

import argparse
import math
import os
import resource
import statistics
import time

import numpy as np
from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
PHOTOS = os.path.join(HERE, "..", "Tests", "Fixtures", "photos")
# Hair (astronaut), fur (chelsea), a lattice tower (rocket).
NAMES = {"astronaut": "astronaut.png", "chelsea": "chelsea.png", "rocket": "rocket.jpg"}


def photo_and_mask(name):
    photo = Image.open(os.path.join(PHOTOS, NAMES[name])).convert("RGB")
    mask = Image.open(os.path.join(PHOTOS, name + ".rembg-mask.png")).convert("L")
    return photo, mask


def compare(ours_path, theirs):
    ours = np.asarray(Image.open(ours_path).convert("RGBA")).astype(np.int32)
    theirs = np.asarray(theirs.convert("RGBA")).astype(np.int32)
    if ours.shape != theirs.shape:
        raise SystemExit(f"{ours_path}: {ours.shape[1]}×{ours.shape[0]}, rembg's is {theirs.shape[1]}×{theirs.shape[0]}")
    seen = theirs[..., 3] > 0
    colour = np.abs(ours[..., :3] - theirs[..., :3])[seen].mean()
    print(f"alpha max |Δ| {np.abs(ours[..., 3] - theirs[..., 3]).max()}, colour mean |Δ| where alpha > 0 "
          f"{colour:.4f} of 255 ({seen.sum()} pixels)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=os.path.join(HERE, "..", "Tests", "Fixtures", "matting"))
    parser.add_argument("--time", action="store_true", help="print the warm time of rembg's -dc step per photo")
    parser.add_argument("--runs", type=int, default=5, help="timed runs with --time (default 5)")
    parser.add_argument("--megapixels", type=float, help="time chelsea scaled to about N megapixels instead")
    parser.add_argument("--compare", help="with --megapixels: a swiftseg cutout of the scaled photo to compare")
    parser.add_argument("--save-scaled", help="with --megapixels: write the scaled photo here (for swiftseg)")
    parser.add_argument("--save-mask", help="with --megapixels: write the scaled mask here (for swiftseg)")
    args = parser.parse_args()
    from rembg.bg import decontaminate_cutout

    if args.megapixels:
        photo, mask = photo_and_mask("chelsea")
        scale = (args.megapixels * 1e6 / (photo.width * photo.height)) ** 0.5
        size = (int(math.floor(photo.width * scale + 0.5)), int(math.floor(photo.height * scale + 0.5)))
        photo, mask = photo.resize(size, Image.LANCZOS), mask.resize(size, Image.LANCZOS)
        if args.save_scaled:
            photo.save(args.save_scaled)
        if args.save_mask:
            mask.save(args.save_mask)
        decontaminate_cutout(photo.resize((64, 48)), mask.resize((64, 48)))  # numba's compilation, not timed
        start = time.perf_counter()
        cutout = decontaminate_cutout(photo, mask)
        seconds = time.perf_counter() - start
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"rembg -dc step, {size[0]}×{size[1]}: {seconds:.2f} s, peak RSS {peak:.0f} MB")
        if args.compare:
            compare(args.compare, cutout)
        return

    os.makedirs(args.out, exist_ok=True)
    for name in NAMES:
        photo, mask = photo_and_mask(name)
        cutout = decontaminate_cutout(photo, mask)
        path = os.path.join(args.out, name + ".decontaminated.png")
        cutout.save(path)
        print(f"wrote {path}")
        if args.time:
            times = []
            for _ in range(args.runs):
                start = time.perf_counter()
                decontaminate_cutout(photo, mask)
                times.append(time.perf_counter() - start)
            print(f"  rembg -dc step, {photo.width}×{photo.height}: median {statistics.median(times) * 1000:.1f} ms, "
                  f"min {min(times) * 1000:.1f} ms of {args.runs}")


if __name__ == "__main__":
    main()
