#!/usr/bin/env python3
"""Fixtures for swiftseg's alpha matting (rembg's `-a`): rembg's own alpha_matting_cutout on committed photos and
their committed rembg masks, and the trimap it builds, so Tests/SwiftsegImageTests can check parity.

    python3 Tools/make_matting_fixtures.py [--out Tests/Fixtures/matting] [--time]

Needs rembg (pip install "rembg[cpu]"; it brings pymatting, scipy and numba). Writes, per photo,
NAME.trimap.png (0 background, 128 unknown, 255 foreground: scipy's binary erosion as rembg calls it) and
NAME.cutout.png (rembg's RGBA cutout: pymatting's closed-form alpha, ε = 1e-7, ichol-preconditioned CG, then
its multi-level foreground). Re-runs write the same bytes. With --time it prints the warm time of the whole
procedure per photo (the figure PERF.md's matting comparison divides by).
"""

import argparse
import os
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


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", default=os.path.join(HERE, "..", "Tests", "Fixtures", "matting"))
    p.add_argument("--time", action="store_true")
    a = p.parse_args()
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
            for _ in range(3):
                t0 = time.perf_counter()
                alpha_matting_cutout(photo, mask, 240, 10, 10)
                times.append(time.perf_counter() - t0)
            print(f"{name}: {photo.width}x{photo.height}, median {1000 * sorted(times)[1]:.0f} ms (warm)")


if __name__ == "__main__":
    main()
