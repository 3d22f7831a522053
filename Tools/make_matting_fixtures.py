#!/usr/bin/env python3
"""Fixtures for swiftseg's alpha matting (rembg's `-a`): rembg's own alpha_matting_cutout on committed photos and
their committed rembg masks, and the trimap it builds, so Tests/SwiftsegImageTests can check parity.

    python3 Tools/make_matting_fixtures.py [--out Tests/Fixtures/matting] [--time]
    python3 Tools/make_matting_fixtures.py --megapixels 3 [--compare CUTOUT.png]

Needs rembg (pip install "rembg[cpu]"; it brings pymatting, scipy and numba). Writes, per photo,
NAME.trimap.png (0 background, 128 unknown, 255 foreground: scipy's binary erosion as rembg calls it) and
NAME.cutout.png (rembg's RGBA cutout: pymatting's closed-form alpha, ε = 1e-7, ichol-preconditioned CG, then
its multi-level foreground). Re-runs write the same bytes. With --time it prints the warm time of the whole
procedure per photo, median and minimum of --runs (the figures PERF.md's matting comparison divides by).

With --megapixels N (no fixtures written) it scales chelsea and its mask up to about N megapixels as
`swiftseg-bench --matting --matting-megapixels N` does (Pillow's Lanczos, which swiftseg's resampler equals), runs
rembg's procedure once in a fresh process and prints its time and the process's peak RSS; with --compare it also
prints how far a cutout of swiftseg's (`swiftseg-bench ... --matting-output CUTOUT.png`) is from rembg's there:
alpha mean and 99th-percentile |Δ|, colour mean |Δ| where alpha ≥ 0.1 (the parity test's measures).
"""

import argparse
import math
import os
import resource
import subprocess
import sys
import time

import numpy as np
from PIL import Image
from scipy.ndimage import binary_erosion

HERE = os.path.dirname(os.path.abspath(__file__))
PHOTOS = os.path.join(HERE, "..", "Tests", "Fixtures", "photos")
# Hair (astronaut), fur (chelsea), a lattice tower (rocket).
NAMES = {"astronaut": "astronaut.png", "chelsea": "chelsea.png", "rocket": "rocket.jpg"}


def trimap(mask, foreground_threshold=240, background_threshold=10, erode_size=10):
    """rembg's trimap, step by step as rembg.bg.alpha_matting_cutout builds it."""
    structure = np.ones((erode_size, erode_size), dtype=np.uint8) if erode_size > 0 else None
    is_foreground = binary_erosion(mask > foreground_threshold, structure=structure)
    is_background = binary_erosion(mask < background_threshold, structure=structure, border_value=1)
    t = np.full(mask.shape, 128, dtype=np.uint8)
    t[is_foreground] = 255
    t[is_background] = 0
    return t


def scaled_chelsea(megapixels):
    """chelsea and its mask at about `megapixels`, sized and resampled as swiftseg-bench does."""
    photo = Image.open(os.path.join(PHOTOS, "chelsea.png")).convert("RGB")
    mask = Image.open(os.path.join(PHOTOS, "chelsea.rembg-mask.png")).convert("L")
    scale = (megapixels * 1e6 / (photo.width * photo.height)) ** 0.5
    size = (int(math.floor(photo.width * scale + 0.5)), int(math.floor(photo.height * scale + 0.5)))  # Swift's .rounded()
    return photo.resize(size, Image.LANCZOS), mask.resize(size, Image.LANCZOS)


def scaled_run(megapixels, compare):
    from rembg.bg import alpha_matting_cutout

    photo, mask = scaled_chelsea(megapixels)
    t0 = time.perf_counter()
    cutout = np.asarray(alpha_matting_cutout(photo, mask, 240, 10, 10))
    seconds = time.perf_counter() - t0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    unknown = int((trimap(np.asarray(mask)) == 128).sum())
    line = f"chelsea at {megapixels} MP: {photo.width}x{photo.height}, {unknown} unknown, {seconds:.1f} s, peak RSS {peak:.0f} MB"
    if compare:
        ours = np.asarray(Image.open(compare).convert("RGBA")).astype(np.int32)
        theirs = cutout.astype(np.int32)
        if ours.shape != theirs.shape:
            sys.exit(f"{compare}: {ours.shape[1]}x{ours.shape[0]}, not {theirs.shape[1]}x{theirs.shape[0]}")
        alpha = np.abs(ours[..., 3] - theirs[..., 3])
        opaque = theirs[..., 3] >= 26
        colour = np.abs(ours[..., :3] - theirs[..., :3])[opaque]
        line += (f"; against {os.path.basename(compare)}: alpha mean |Δ| {alpha.mean():.3f}, p99 {np.percentile(alpha, 99):.0f},"
                 f" max {alpha.max()}; colour mean {colour.mean():.3f} (of 255)")
    print(line, flush=True)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", default=os.path.join(HERE, "..", "Tests", "Fixtures", "matting"))
    p.add_argument("--time", action="store_true")
    p.add_argument("--runs", type=int, default=3, help="with --time: timed runs per photo (default 3)")
    p.add_argument("--megapixels", type=float, help="time rembg's matting on chelsea scaled to about N MP instead")
    p.add_argument("--compare", help="with --megapixels: swiftseg's cutout of the same scaled photo")
    p.add_argument("--in-this-process", action="store_true", help=argparse.SUPPRESS)
    a = p.parse_args()
    if a.megapixels is not None:
        if a.megapixels <= 0:
            sys.exit("--megapixels expects a positive number")
        if a.in_this_process:
            return scaled_run(a.megapixels, a.compare)
        # a fresh process, so the peak RSS is this run's alone
        args = [sys.executable, os.path.abspath(__file__), "--megapixels", str(a.megapixels), "--in-this-process"]
        sys.exit(subprocess.call(args + (["--compare", a.compare] if a.compare else [])))
    if a.compare:
        sys.exit("--compare goes with --megapixels")
    from rembg.bg import alpha_matting_cutout

    os.makedirs(a.out, exist_ok=True)
    for name, file in NAMES.items():
        photo = Image.open(os.path.join(PHOTOS, file)).convert("RGB")
        mask = Image.open(os.path.join(PHOTOS, f"{name}.rembg-mask.png")).convert("L")
        Image.fromarray(trimap(np.asarray(mask))).save(os.path.join(a.out, f"{name}.trimap.png"), optimize=True)
        cutout = alpha_matting_cutout(photo, mask, 240, 10, 10)
        cutout.save(os.path.join(a.out, f"{name}.cutout.png"), optimize=True)
        if a.time:
            times = []
            for _ in range(a.runs):
                t0 = time.perf_counter()
                alpha_matting_cutout(photo, mask, 240, 10, 10)
                times.append(time.perf_counter() - t0)
            times.sort()
            print(f"{name}: {photo.width}x{photo.height}, median {1000 * times[len(times) // 2]:.0f} ms "
                  f"(min {1000 * times[0]:.0f}) over {a.runs} (warm)")


if __name__ == "__main__":
    main()
