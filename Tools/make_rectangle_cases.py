#!/usr/bin/env python3
"""The rectangle-detection test set with exact ground truth (Tests/Fixtures/rectangles), re-runnable.

    Tools/.venv/bin/python Tools/make_rectangle_cases.py                       # the committed set
    Tools/.venv/bin/python Tools/make_rectangle_cases.py --seed 7 --out /tmp/tune   # another set, to tune on

Documents (A4, Letter, A5 sheets with text), cards (ID-1, rounded corners) and printed photos (with and without a
white border) are drawn flat, then composited onto real photos (scikit-image's sample photos, cropped and tinted)
through known homographies: a 3-D tilt of the plane seen by a pinhole camera, a roll of ±40°, the document's longer
side 45–90 % of the image's short side, the quad within the request's default filters (corners within 27° of
square, aspect ≥ 0.53); then blur, noise and JPEG. A quarter of the cases are "lowContrast" (white
paper or a white card on a light surface, often with no shadow) and a quarter "steep" (tilted 40–55°). Everything is
rendered at twice the size and shrunk with area averaging, so edges are antialiased and the corners are exact.

Writes
- cases/NNN.jpg and cases.json: per case the file, its kind, subsets, the true corners (topLeft, topRight,
  bottomRight, bottomLeft as displayed, in pixels with a top-left origin, the image spanning [0, W] × [0, H]) and the
  document's own size (for SmartDoc 2015's scoring: the found quad is mapped by the homography taking the true
  quad to that rectangle, and the Jaccard index is taken there);
- named cases for the unit tests: a4-upright.jpg (a 0.707 sheet), three-cards.jpg, sheared-38.jpg (a parallelogram
  whose corners are 38° off square), with their corners in named.json.
"""

import argparse
import json
import math
import os

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont
from skimage import data as skdata

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "Tests", "Fixtures", "rectangles")
CASES = 120
SS = 2  # supersampling factor of the render

BACKGROUNDS = ["astronaut", "chelsea", "coffee", "rocket", "motorcycle_left", "motorcycle_right", "brick", "grass",
               "gravel", "camera", "coins", "hubble_deep_field", "immunohistochemistry", "retina"]


def background_photo(name):
    if name == "motorcycle_left":
        img = skdata.stereo_motorcycle()[0]
    elif name == "motorcycle_right":
        img = skdata.stereo_motorcycle()[1]
    else:
        img = getattr(skdata, name)()
    if img.ndim == 2:
        img = np.stack([img] * 3, axis=-1)
    return img[..., :3].astype(np.float32)


def crop_to(img, w, h, rng):
    """A random crop of `img` with aspect w:h, resized to w × h."""
    ih, iw = img.shape[:2]
    scale = rng.uniform(0.6, 1.0)
    ch = int(min(ih, iw * h / w) * scale)
    cw = int(ch * w / h)
    y0 = rng.integers(0, ih - ch + 1)
    x0 = rng.integers(0, iw - cw + 1)
    crop = img[y0:y0 + ch, x0:x0 + cw]
    if rng.random() < 0.5:
        crop = crop[:, ::-1]
    return cv2.resize(np.ascontiguousarray(crop), (w, h), interpolation=cv2.INTER_CUBIC)


def light_surface(w, h, rng):
    """A light table or wall: a texture squeezed into 190…235 with a warm or cool tint."""
    tex = background_photo(rng.choice(["brick", "grass", "gravel", "camera", "coins"]))
    tex = crop_to(tex, w, h, rng).mean(axis=-1, keepdims=True)
    tex = (tex - tex.min()) / max(1.0, np.ptp(tex))
    lo = rng.uniform(190, 215)
    amp = rng.uniform(6, 20)
    tint = np.array([1.0, rng.uniform(0.96, 1.0), rng.uniform(0.9, 1.02)], np.float32)
    return (lo + amp * tex) * tint


def font(size):
    try:
        return ImageFont.load_default(size=size)
    except TypeError:  # Pillow without FreeType
        return ImageFont.load_default()


WORDS = "the quick brown fox jumps over lazy dog invoice total amount date page report summary notes".split()


def text_block(draw, x0, y0, x1, y1, size, rng, color):
    f = font(size)
    y = y0
    while y + size < y1:
        x = x0
        while True:
            word = rng.choice(WORDS)
            tw = draw.textlength(word + " ", font=f)
            if x + tw > x1:
                break
            draw.text((x, y), word, fill=color, font=f)
            x += tw
            if rng.random() < 0.05:
                break
        y += int(size * 1.5)


def document(rng):
    """A sheet of paper with a heading and paragraphs; long side 1400 px."""
    aspect = rng.choice([210 / 297, 216 / 279, 148 / 210])
    h = 1400
    w = int(round(h * aspect))
    tone = rng.uniform(236, 252)
    img = Image.new("RGB", (w, h), (int(tone), int(tone), int(tone - rng.uniform(0, 6))))
    d = ImageDraw.Draw(img)
    m = int(w * rng.uniform(0.08, 0.14))
    d.text((m, m), "REPORT " + str(rng.integers(100, 999)), fill=(20, 20, 30), font=font(int(w * 0.05)))
    text_block(d, m, m + int(w * 0.1), w - m, h - m, int(w * rng.uniform(0.018, 0.03)), rng, (40, 40, 50))
    if rng.random() < 0.4:
        d.rectangle((m, h - m - int(h * 0.15), w - m, h - m), outline=(60, 60, 60), width=3)
    return np.asarray(img, np.float32), 0.0


def card(rng, white=False):
    """An ID-1 card (85.6 × 54 mm, corner radius 3.18 mm); long side 1400 px."""
    w, h = 1400, int(round(1400 * 54 / 85.6))
    if white:
        c0 = np.array([rng.uniform(238, 250)] * 3)
        c1 = c0 - rng.uniform(0, 8)
    else:
        c0 = rng.uniform(20, 230, 3)
        c1 = rng.uniform(20, 230, 3)
    t = np.linspace(0, 1, w, dtype=np.float32)[None, :, None]
    img = (c0 * (1 - t) + c1 * t) * np.ones((h, 1, 1), np.float32)
    pil = Image.fromarray(np.clip(img, 0, 255).astype(np.uint8))
    d = ImageDraw.Draw(pil)
    face = crop_to(background_photo(rng.choice(["astronaut", "chelsea", "coffee", "camera"])), 300, 380, rng)
    pil.paste(Image.fromarray(face.astype(np.uint8)), (90, 200))
    ink = (250, 250, 250) if not white and c0.mean() < 120 else (20, 20, 40)
    d.text((90, 70), "IDENTITY CARD", fill=ink, font=font(70))
    text_block(d, 450, 220, w - 90, h - 90, 44, rng, ink)
    return np.asarray(pil, np.float32), 3.18 / 85.6


def printed_photo(rng, background):
    """A print of a photo (not the background's: a print of the photo it lies on would be invisible), 4×6, 5×7,
    3×4 or square, with a white border half the time; long side 1400 px."""
    aspect = rng.choice([2 / 3, 5 / 7, 3 / 4, 1.0])
    h = 1400
    w = int(round(h * aspect))
    border = int(rng.choice([0, 0, rng.uniform(0.03, 0.07) * w]))
    img = np.full((h, w, 3), rng.uniform(240, 252), np.float32)
    sources = [b for b in BACKGROUNDS[:6] + ["hubble_deep_field", "immunohistochemistry"] if b != background]
    pic = crop_to(background_photo(rng.choice(sources)),
                  w - 2 * border, h - 2 * border, rng)
    img[border:h - border, border:w - border] = pic
    if rng.random() < 0.5:
        img = img.transpose(1, 0, 2).copy()  # landscape print
    return img, 0.0


def rounded_mask(w, h, radius_fraction):
    mask = Image.new("L", (w, h), 0)
    r = int(round(radius_fraction * w))
    ImageDraw.Draw(mask).rounded_rectangle((0, 0, w - 1, h - 1), radius=r, fill=255)
    return np.asarray(mask, np.float32) / 255


def project(doc_w, doc_h, roll, tilt, tilt_axis, target_long, center):
    """The corners (TL, TR, BR, BL) of a doc_w × doc_h plane rolled, tilted about an in-plane axis and seen by a
    pinhole camera, scaled so that the longer mean side is `target_long` pixels, centred on `center`."""
    pts = np.array([[0, 0], [doc_w, 0], [doc_w, doc_h], [0, doc_h]], np.float64)
    pts -= [doc_w / 2, doc_h / 2]
    pts /= max(doc_w, doc_h)
    ax = np.array([math.cos(tilt_axis), math.sin(tilt_axis), 0.0])
    # Rodrigues rotation about `ax` by `tilt`, then roll about the optical axis.
    k = np.array([[0, -ax[2], ax[1]], [ax[2], 0, -ax[0]], [-ax[1], ax[0], 0]])
    rot = np.eye(3) + math.sin(tilt) * k + (1 - math.cos(tilt)) * k @ k
    cr, sr = math.cos(roll), math.sin(roll)
    rot = np.array([[cr, -sr, 0], [sr, cr, 0], [0, 0, 1]]) @ rot
    p3 = np.c_[pts, np.zeros(4)] @ rot.T + [0, 0, 1.6]
    img = p3[:, :2] / p3[:, 2:3]
    sides = np.linalg.norm(img - np.roll(img, -1, axis=0), axis=1)
    long = max((sides[0] + sides[2]) / 2, (sides[1] + sides[3]) / 2)
    img *= target_long / long
    img -= img.mean(axis=0)
    return img + center


def edge_homography(src, dst):
    """The homography between pixel-edge coordinates, turned into the pixel-centre one OpenCV's warp uses."""
    h = cv2.getPerspectiveTransform(src.astype(np.float32), dst.astype(np.float32)).astype(np.float64)
    shift = np.array([[1, 0, 0.5], [0, 1, 0.5], [0, 0, 1]])
    unshift = np.array([[1, 0, -0.5], [0, 1, -0.5], [0, 0, 1]])
    return unshift @ h @ shift


def composite(canvas, doc, radius_fraction, corners, shadow, rng):
    """Draws `doc` onto `canvas` (both at render scale) with its corners at `corners` (render pixels)."""
    dh, dw = doc.shape[:2]
    src = np.array([[0, 0], [dw, 0], [dw, dh], [0, dh]], np.float64)
    hmat = edge_homography(src, corners)
    size = (canvas.shape[1], canvas.shape[0])
    warped = cv2.warpPerspective(doc, hmat, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
    alpha = cv2.warpPerspective(rounded_mask(dw, dh, radius_fraction), hmat, size, flags=cv2.INTER_LINEAR)
    alpha = alpha[..., None]
    if shadow:
        off = rng.uniform(-12, 12, 2)
        sh = cv2.warpAffine(alpha[..., 0], np.float32([[1, 0, off[0]], [0, 1, off[1]]]), size)
        sh = cv2.GaussianBlur(sh, (0, 0), rng.uniform(6, 20))[..., None]
        canvas *= 1 - rng.uniform(0.15, 0.4) * sh
    canvas[:] = canvas * (1 - alpha) + warped * alpha


def finish(canvas, rng, w, h):
    """Lighting, shrink to w × h with area averaging, blur, noise; returns uint8 RGB."""
    ch, cw = canvas.shape[:2]
    if rng.random() < 0.5:
        gx = rng.uniform(-0.15, 0.15)
        gy = rng.uniform(-0.15, 0.15)
        yy, xx = np.mgrid[0:ch, 0:cw].astype(np.float32)
        canvas *= (1 + gx * (xx / cw - 0.5) + gy * (yy / ch - 0.5))[..., None]
    img = cv2.resize(canvas, (w, h), interpolation=cv2.INTER_AREA)
    sigma = rng.choice([0, 0, rng.uniform(0.5, 1.6)])
    if sigma > 0:
        img = cv2.GaussianBlur(img, (0, 0), sigma)
    img += rng.normal(0, rng.uniform(0, 6), img.shape).astype(np.float32)
    return np.clip(img + 0.5, 0, 255).astype(np.uint8)


def within_default_filters(corners):
    """Whether the true quad passes DetectRectanglesRequest's defaults (corners within 30° of square, aspect
    0.5…1), with a margin; a case outside them has no right answer but "none" with the defaults."""
    for i in range(4):
        u = corners[i - 1] - corners[i]
        v = corners[(i + 1) % 4] - corners[i]
        angle = math.degrees(math.acos(np.clip(u @ v / (np.linalg.norm(u) * np.linalg.norm(v)), -1, 1)))
        if abs(angle - 90) > 27:
            return False
    sides = np.linalg.norm(corners - np.roll(corners, -1, axis=0), axis=1)
    a, b = (sides[0] + sides[2]) / 2, (sides[1] + sides[3]) / 2
    return min(a, b) / max(a, b) >= 0.53


def fits(corners, w, h, margin):
    return bool((corners[:, 0] > margin).all() and (corners[:, 0] < w - margin).all()
                and (corners[:, 1] > margin).all() and (corners[:, 1] < h - margin).all())


def make_case(index, rng):
    portrait = rng.random() < 0.2
    w, h = (480, 640) if portrait else (640, 480)
    kind = ["document", "card", "photo"][index % 3]
    low_contrast = index % 4 == 1 and kind != "photo"
    steep = index % 4 == 3
    background = None
    if low_contrast:
        canvas = light_surface(w * SS, h * SS, rng)
    else:
        background = rng.choice(BACKGROUNDS)
        canvas = crop_to(background_photo(background), w * SS, h * SS, rng)
        canvas *= np.array(rng.uniform(0.8, 1.1, 3), np.float32)
    if kind == "document":
        doc, radius = document(rng)
    elif kind == "card":
        doc, radius = card(rng, white=low_contrast)
    else:
        doc, radius = printed_photo(rng, background)
    dh, dw = doc.shape[:2]
    short = min(w, h)
    for _ in range(1000):
        roll = math.radians(rng.uniform(-40, 40))
        tilt = math.radians(rng.uniform(40, 55) if steep else rng.uniform(0, 30))
        axis = rng.uniform(0, math.pi)
        target = rng.uniform(0.45, 0.9) * short
        center = np.array([rng.uniform(0.3, 0.7) * w, rng.uniform(0.3, 0.7) * h])
        corners = project(dw, dh, roll, tilt, axis, target, center)
        if fits(corners, w, h, 6) and within_default_filters(corners):
            break
    else:
        raise RuntimeError(f"case {index}: no placement fits")
    composite(canvas, doc, radius, corners * SS, shadow=rng.random() < (0.4 if low_contrast else 0.7), rng=rng)
    img = finish(canvas, rng, w, h)
    subsets = (["lowContrast"] if low_contrast else []) + (["steep"] if steep else [])
    return img, {
        "kind": kind, "subsets": subsets, "width": w, "height": h,
        "corners": [[round(float(x), 4), round(float(y), 4)] for x, y in corners],
        "documentSize": [dw, dh], "rollDegrees": round(math.degrees(roll), 2),
        "tiltDegrees": round(math.degrees(tilt), 2), "sizeFraction": round(target / short, 3),
    }


def named_cases(rng):
    named = {}
    # An upright A4 sheet (aspect 0.707) at 70 % of the short side on a real photo.
    w, h = 640, 480
    canvas = crop_to(background_photo("coffee"), w * SS, h * SS, rng) * 0.8
    doc, _ = document(np.random.default_rng(7))
    doc = cv2.resize(doc, (990, 1400))
    c = project(990, 1400, math.radians(4), 0, 0, 0.7 * h, np.array([w / 2, h / 2]))
    composite(canvas, doc, 0, c * SS, shadow=True, rng=rng)
    Image.fromarray(finish(canvas, np.random.default_rng(1), w, h)).save(os.path.join(OUT, "a4-upright.jpg"), quality=92)
    named["a4-upright.jpg"] = {"width": w, "height": h, "corners": [c.round(4).tolist()], "documentSize": [990, 1400]}
    # Three separate cards on a dark desk.
    canvas = crop_to(background_photo("gravel"), w * SS, h * SS, rng) * 0.35
    quads = []
    for i, (cx, cy, roll) in enumerate([(130, 150, -12), (470, 140, 8), (320, 360, 20)]):
        doc, radius = card(np.random.default_rng(100 + i))
        dh, dw = doc.shape[:2]
        cq = project(dw, dh, math.radians(roll), math.radians(10), 0.5, 0.42 * h, np.array([cx, cy]))
        composite(canvas, doc, radius, cq * SS, shadow=True, rng=rng)
        quads.append(cq.round(4).tolist())
    Image.fromarray(finish(canvas, np.random.default_rng(2), w, h)).save(os.path.join(OUT, "three-cards.jpg"), quality=92)
    named["three-cards.jpg"] = {"width": w, "height": h, "corners": quads, "documentSize": [dw, dh]}
    # A parallelogram: a sheet sheared so that its corners are 38° off square (52° and 128°).
    canvas = crop_to(background_photo("brick"), w * SS, h * SS, rng) * 0.5
    doc, _ = document(np.random.default_rng(9))
    dh, dw = doc.shape[:2]
    side = 0.6 * h
    shear = math.tan(math.radians(38))
    c = np.array([[0, 0], [side, 0], [side + side * 0.75 * shear, side * 0.75], [side * 0.75 * shear, side * 0.75]])
    c = c - c.mean(axis=0) + [w / 2, h / 2]
    composite(canvas, doc, 0, c * SS, shadow=False, rng=rng)
    Image.fromarray(finish(canvas, np.random.default_rng(3), w, h)).save(os.path.join(OUT, "sheared-38.jpg"), quality=92)
    named["sheared-38.jpg"] = {"width": w, "height": h, "corners": [c.round(4).tolist()], "documentSize": [dw, dh]}
    return named


def main():
    global OUT
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=2015, help="another seed gives another set (to tune on, say)")
    parser.add_argument("--out", default=OUT, help="folder to write (default Tests/Fixtures/rectangles)")
    parser.add_argument("--cases", type=int, default=CASES, help=f"how many cases ({CASES})")
    args = parser.parse_args()
    OUT = args.out
    os.makedirs(os.path.join(OUT, "cases"), exist_ok=True)
    rng = np.random.default_rng(args.seed)
    cases = []
    for i in range(args.cases):
        img, meta = make_case(i, rng)
        name = f"{i:03d}.jpg"
        quality = int(rng.uniform(60, 95))
        Image.fromarray(img).save(os.path.join(OUT, "cases", name), quality=quality)
        cases.append({"file": name, "jpegQuality": quality, **meta})
    with open(os.path.join(OUT, "cases.json"), "w") as f:
        json.dump({"about": "Tools/make_rectangle_cases.py; corners TL, TR, BR, BL in pixels, top-left origin",
                   "cases": cases}, f, indent=1)
    with open(os.path.join(OUT, "named.json"), "w") as f:
        json.dump(named_cases(np.random.default_rng(5)), f, indent=1)
    print(f"wrote {len(cases)} cases and 3 named cases to {os.path.relpath(OUT)}")


if __name__ == "__main__":
    main()
