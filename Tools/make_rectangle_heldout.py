#!/usr/bin/env python3
"""A held-out rectangle test set: scenes the detector was never tuned on, drawn by a generator written apart from
Tools/make_rectangle_cases.py (other backgrounds, camera, lighting, objects and clutter), with exact corners.

    Tools/.venv/bin/python Tools/make_rectangle_heldout.py [--out DIR] [--count N] [--seed S]
    swift run -c release swiftseg-bench --rectangles DIR/cases.json

Not committed (its backgrounds are Debian opencv-doc's sample photos: apt install opencv-doc); the same seed and
packages give the same set. Use it to check a change, never to choose one: tune on Tools/make_rectangle_cases.py
--seed 7 instead.

Scenes: a sheet (A4, Letter, A5; text, and sometimes a printed table or a boxed figure, i.e. a rectangle inside
the one to find), a card (ID-1, rounded corners, sometimes a photo on it), a sticky note, a book cover, a printed
photo (with or without a white border). Each is a flat object seen by a pinhole camera (field of view 50–75°,
pitch and yaw up to 55°, any roll), its longer side 35–95 % of the image's shorter side, the quad within the
request's defaults (corners within 28° of square, aspect 0.52–1); over a photo or a table, under a light gradient,
sometimes a soft shadow across it, sometimes other objects cut off by the image's border or too thin to pass the
filters (a pen, a strip of tape, half a card); then defocus or motion blur, noise, JPEG 72–95. Rendered at twice
the size and shrunk by area averaging, so corners are exact.

Writes DIR/cases/NNN.jpg and DIR/cases.json in the committed set's format (corners TL, TR, BR, BL as displayed,
pixels, top-left origin, the image spanning [0, W] × [0, H]; the object's own size). Subsets: lowContrast (white on
a light surface), steep (the plane tilted over 40°), shadow, clutter.
"""

import argparse
import glob
import json
import math
import os

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

DATA = "/usr/share/doc/opencv-doc/examples/data"
PHOTOS = ["aero1.jpg", "aloeL.jpg", "baboon.jpg", "building.jpg", "fruits.jpg", "home.jpg", "leuvenA.jpg",
          "messi5.jpg", "orange.jpg", "rubberwhale1.png", "smarties.png", "squirrel_cls.jpg", "starry_night.jpg",
          "stuff.jpg", "HappyFish.jpg", "basketball1.png", "graf1.png", "Blender_Suzanne1.jpg", "lena.jpg"]
SIZES = [(640, 480), (800, 600), (1024, 768), (1280, 720), (1200, 900), (960, 720)]
KINDS = [("sheet", 0.35), ("card", 0.2), ("note", 0.1), ("cover", 0.15), ("photo", 0.2)]
SS = 2


def load_photos():
    photos = []
    for name in PHOTOS:
        path = os.path.join(DATA, name)
        if os.path.exists(path):
            img = cv2.imread(path, cv2.IMREAD_COLOR)
            if img is not None:
                photos.append(cv2.cvtColor(img, cv2.COLOR_BGR2RGB).astype(np.float32))
    if len(photos) < 8:
        raise SystemExit(f"make_rectangle_heldout: needs Debian's opencv-doc sample photos in {DATA} "
                         "(apt install opencv-doc)")
    return photos


def fonts():
    found = sorted(glob.glob("/usr/share/fonts/truetype/*/*.ttf"))
    if not found:
        raise SystemExit("make_rectangle_heldout: needs a TrueType font (apt install fonts-dejavu-core)")
    return found


class Scene:
    def __init__(self, rng, photos, font_files):
        self.rng, self.photos, self.font_files = rng, photos, font_files

    def uniform(self, a, b):
        return float(self.rng.uniform(a, b))

    def photo_crop(self, w, h):
        img = self.photos[self.rng.integers(len(self.photos))]
        ih, iw = img.shape[:2]
        s = self.uniform(0.5, 1.0)
        ch = max(8, int(min(ih, iw * h / w) * s))
        cw = max(8, int(ch * w / h))
        y, x = self.rng.integers(0, ih - ch + 1), self.rng.integers(0, iw - cw + 1)
        crop = img[y:y + ch, x:x + cw]
        if self.rng.random() < 0.5:
            crop = crop[::-1] if self.rng.random() < 0.3 else crop[:, ::-1]
        return cv2.resize(np.ascontiguousarray(crop), (w, h), interpolation=cv2.INTER_LINEAR)

    def table(self, w, h, light):
        """A surface: wood grain, cloth, or a plain painted one; light ones are 195…240."""
        choice = self.rng.integers(3)
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        if choice == 0:  # wood: stretched noise along one direction
            angle = self.uniform(0, math.pi)
            u = xx * math.cos(angle) + yy * math.sin(angle)
            v = -xx * math.sin(angle) + yy * math.cos(angle)
            noise = cv2.resize(self.rng.random((max(2, h // 40), max(2, w // 4))).astype(np.float32), (w, h))
            grain = np.sin(v / self.uniform(3, 9) + 4 * noise + 0.002 * u)
            base = grain * 0.5 + 0.5
        elif choice == 1:  # cloth: fine weave
            period = self.uniform(2.5, 6)
            base = 0.5 + 0.25 * np.sin(xx / period) * np.sin(yy / period) + 0.25 * self.rng.random((h, w))
        else:
            base = cv2.GaussianBlur(self.rng.random((h, w)).astype(np.float32), (0, 0), self.uniform(5, 30))
            base = (base - base.min()) / max(1e-6, np.ptp(base))
        if light:
            lo, amp = self.uniform(195, 225), self.uniform(4, 15)
        else:
            lo, amp = self.uniform(30, 150), self.uniform(15, 70)
        colour = np.array([1, self.uniform(0.85, 1.0), self.uniform(0.7, 1.05)], np.float32)
        if not light and self.rng.random() < 0.5:
            colour = self.rng.uniform(0.5, 1.0, 3).astype(np.float32)
        return (lo + amp * base)[..., None] * colour

    def font(self, size):
        return ImageFont.truetype(self.font_files[self.rng.integers(len(self.font_files))], max(6, int(size)))

    def words(self, draw, box, size, colour, lines=None):
        x0, y0, x1, y1 = box
        f = self.font(size)
        y = y0
        letters = "abcdefghijklmnopqrstuvwxyz"
        while y + size < y1 and (lines is None or lines > 0):
            x = x0 + (self.rng.integers(0, 3) * size if self.rng.random() < 0.2 else 0)
            end = x1 - (self.uniform(0, 0.5) * (x1 - x0) if self.rng.random() < 0.15 else 0)
            text = ""
            while True:
                word = "".join(letters[self.rng.integers(26)] for _ in range(self.rng.integers(1, 10)))
                if draw.textlength(text + word + " ", font=f) > end - x:
                    break
                text += word + " "
            draw.text((x, y), text, fill=colour, font=f)
            y += size * self.uniform(1.3, 1.7)
            if lines is not None:
                lines -= 1

    # The objects, flat, as RGBA float arrays, with their own size (any unit) for the score.

    def sheet(self):
        aspect = [210 / 297, 216 / 279, 148 / 210][self.rng.integers(3)]
        h = 1800; w = int(round(h * aspect))
        paper = tuple(int(v) for v in (self.uniform(238, 255), self.uniform(236, 252), self.uniform(225, 248)))
        im = Image.new("RGB", (w, h), paper)
        d = ImageDraw.Draw(im)
        m = int(w * self.uniform(0.07, 0.12))
        ink = tuple(int(v) for v in self.rng.integers(0, 70, 3))
        y = m
        d.text((m, y), "Heading", fill=ink, font=self.font(h * 0.03)); y += int(h * 0.06)
        extra = self.rng.random()
        if extra < 0.25:  # a printed table: a rectangle on the sheet
            rows, cols = self.rng.integers(4, 10), self.rng.integers(2, 6)
            th = int(h * self.uniform(0.25, 0.45)); tw = w - 2 * m
            lw = int(self.uniform(2, 5))
            for r in range(rows + 1):
                yy = y + r * th // rows; d.line([(m, yy), (m + tw, yy)], fill=ink, width=lw)
            for c in range(cols + 1):
                xx = m + c * tw // cols; d.line([(xx, y), (xx, y + th)], fill=ink, width=lw)
            y += th + int(h * 0.03)
        elif extra < 0.4:  # a boxed figure
            fh = int(h * self.uniform(0.2, 0.35)); fw = int((w - 2 * m) * self.uniform(0.5, 1.0))
            fig = self.photo_crop(fw, fh).clip(0, 255).astype(np.uint8)
            im.paste(Image.fromarray(fig), (m, y))
            d.rectangle([m, y, m + fw, y + fh], outline=ink, width=3)
            y += fh + int(h * 0.03)
        self.words(d, (m, y, w - m, h - m), h * self.uniform(0.012, 0.02), ink)
        return np.asarray(im, np.float32), (w, h), 0.0

    def card(self):
        w, h = 856, 540
        a, b = self.rng.uniform(20, 235, 3), self.rng.uniform(20, 235, 3)
        t = np.linspace(0, 1, w, dtype=np.float32)[None, :, None]
        img = np.broadcast_to(a * (1 - t) + b * t, (h, w, 3)).astype(np.float32).copy()
        if self.rng.random() < 0.5:  # a photo on the card
            pw, ph = int(w * 0.28), int(h * 0.45)
            x, y = int(w * 0.06), int(h * 0.3)
            img[y:y + ph, x:x + pw] = self.photo_crop(pw, ph)
        im = Image.fromarray(img.clip(0, 255).astype(np.uint8))
        d = ImageDraw.Draw(im)
        ink = (255, 255, 255) if a.mean() + b.mean() < 250 else (20, 20, 30)
        d.text((int(w * 0.06), int(h * 0.07)), "CARD", fill=ink, font=self.font(h * 0.1))
        self.words(d, (int(w * 0.4), int(h * 0.35), int(w * 0.94), int(h * 0.9)), h * 0.06, ink, lines=4)
        if self.rng.random() < 0.4:  # a chip
            d.rounded_rectangle([int(w * 0.08), int(h * 0.32), int(w * 0.2), int(h * 0.5)], 8, fill=(200, 170, 90))
        return np.asarray(im, np.float32), (85.6, 54.0), 3.2 / 85.6

    def note(self):
        s = 900
        colour = [(255, 238, 110), (255, 170, 200), (150, 210, 255), (170, 240, 160), (255, 190, 120)]
        c = colour[self.rng.integers(len(colour))]
        im = Image.new("RGB", (s, s), c)
        d = ImageDraw.Draw(im)
        ink = [(20, 20, 160), (10, 10, 10), (160, 10, 10)][self.rng.integers(3)]
        for _ in range(self.rng.integers(3, 9)):  # handwriting: wobbly strokes
            y = self.uniform(0.1, 0.9) * s; x = self.uniform(0.05, 0.3) * s
            pts = []
            for _ in range(self.rng.integers(8, 30)):
                pts.append((x, y + self.uniform(-15, 15))); x += self.uniform(10, 30)
                if x > 0.92 * s:
                    break
            d.line(pts, fill=ink, width=int(self.uniform(3, 7)))
        return np.asarray(im, np.float32), (76.0, 76.0), 0.0

    def cover(self):
        aspect = self.uniform(0.62, 0.8)
        h = 1400; w = int(h * aspect)
        img = self.photo_crop(w, h)
        im = Image.fromarray(img.clip(0, 255).astype(np.uint8))
        d = ImageDraw.Draw(im)
        band = tuple(int(v) for v in self.rng.integers(0, 255, 3))
        y = int(h * self.uniform(0.05, 0.7))
        d.rectangle([0, y, w, y + int(h * 0.15)], fill=band)
        ink = (255, 255, 255) if sum(band) < 380 else (0, 0, 0)
        d.text((int(w * 0.08), y + int(h * 0.03)), "A Title", fill=ink, font=self.font(h * 0.07))
        return np.asarray(im, np.float32), (w, h), 0.0

    def photo(self):
        aspect = [2 / 3, 3 / 4, 5 / 7, 1.0][self.rng.integers(4)]
        h = 1400; w = int(round(h * aspect))
        border = self.uniform(0.04, 0.09) if self.rng.random() < 0.55 else 0
        img = np.full((h, w, 3), self.uniform(240, 253), np.float32)
        bw = int(border * w)
        img[bw:h - bw, bw:w - bw] = self.photo_crop(w - 2 * bw, h - 2 * bw)
        return img, (w, h), 0.0


def rotation(pitch, yaw, roll):
    cx, sx = math.cos(pitch), math.sin(pitch)
    cy, sy = math.cos(yaw), math.sin(yaw)
    cz, sz = math.cos(roll), math.sin(roll)
    rx = np.array([[1, 0, 0], [0, cx, -sx], [0, sx, cx]])
    ry = np.array([[cy, 0, sy], [0, 1, 0], [-sy, 0, cy]])
    rz = np.array([[cz, -sz, 0], [sz, cz, 0], [0, 0, 1]])
    return rz @ rx @ ry


def view(rng, ow, oh, width, height, long_fraction):
    """Image corners (TL, TR, BR, BL of the object) of an ow × oh object seen by a pinhole camera; None when the
    pose leaves the frame or the request's filters."""
    fov = math.radians(rng.uniform(50, 75))
    f = 0.5 * max(width, height) / math.tan(fov / 2)
    pitch, yaw = math.radians(rng.uniform(-55, 55)), math.radians(rng.uniform(-40, 40))
    roll = math.radians(rng.uniform(-180, 180) if rng.random() < 0.3 else rng.uniform(-35, 35))
    r = rotation(pitch, yaw, roll)
    local = np.array([[-ow / 2, -oh / 2, 0], [ow / 2, -oh / 2, 0], [ow / 2, oh / 2, 0], [-ow / 2, oh / 2, 0]])
    pts3 = local @ r.T
    # Distance for the wanted size, then an offset of the object's centre in the frame.
    scale = max(ow, oh) * f / (long_fraction * min(width, height))
    centre = np.array([rng.uniform(-0.25, 0.25) * width, rng.uniform(-0.25, 0.25) * height, 0]) * scale / f
    pts3 = pts3 + np.array([0, 0, scale]) + centre
    if (pts3[:, 2] < 0.2 * scale).any():
        return None, 0
    img = np.stack([f * pts3[:, 0] / pts3[:, 2] + width / 2, f * pts3[:, 1] / pts3[:, 2] + height / 2], axis=1)
    tilt = math.degrees(math.acos(abs(r[2, 2])))
    return img, tilt


def passes(q, width, height):
    margin = 0.01 * min(width, height)
    if (q[:, 0] < margin).any() or (q[:, 1] < margin).any() or (q[:, 0] > width - margin).any() \
            or (q[:, 1] > height - margin).any():
        return False
    turn = 0
    for i in range(4):
        u, v = q[i - 1] - q[i], q[(i + 1) % 4] - q[i]
        z = v[0] * u[1] - v[1] * u[0]
        if z == 0 or (turn and (z > 0) != (turn > 0)):
            return False
        turn = z
        angle = math.degrees(math.acos(np.dot(u, v) / (np.linalg.norm(u) * np.linalg.norm(v))))
        if abs(angle - 90) > 28:
            return False
    hz = (np.linalg.norm(q[0] - q[1]) + np.linalg.norm(q[2] - q[3])) / 2
    vt = (np.linalg.norm(q[1] - q[2]) + np.linalg.norm(q[3] - q[0])) / 2
    if min(hz, vt) / max(hz, vt) < 0.52:
        return False
    return max(hz, vt) >= 0.25 * min(width, height)


def displayed_order(q):
    """The object's corners rotated so the first is the displayed top-left: the corner nearest the image's
    top-left among the two topmost, keeping the clockwise order."""
    q = np.asarray(q)
    signed = sum(q[i, 0] * q[(i + 1) % 4, 1] - q[(i + 1) % 4, 0] * q[i, 1] for i in range(4))
    if signed < 0:
        q = q[::-1]
    start = min(range(4), key=lambda i: q[i, 0] + q[i, 1])
    return np.roll(q, -start, axis=0)


def warp(obj, alpha, quad, size):
    """`obj` (h × w × 3) and its alpha mapped onto an image of `size` (supersampled) with its pixel-edge corners
    (0,0), (w,0), (w,h), (0,h) at `quad`."""
    h, w = obj.shape[:2]
    src = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    m = cv2.getPerspectiveTransform(src, np.float32(quad))
    # Pixel-edge grid → OpenCV's pixel-centre grid on both sides.
    shift = lambda dx: np.array([[1, 0, dx], [0, 1, dx], [0, 0, 1]], np.float64)
    m = shift(-0.5) @ m @ shift(0.5)
    flags = cv2.INTER_LINEAR
    out = cv2.warpPerspective(obj, m, size, flags=flags, borderMode=cv2.BORDER_REPLICATE)
    a = cv2.warpPerspective(alpha, m, size, flags=flags, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    return out, a


def rounded_alpha(w, h, radius):
    a = np.ones((h, w), np.float32)
    r = int(radius * w)
    if r > 1:
        im = Image.new("L", (w * 2, h * 2), 0)
        ImageDraw.Draw(im).rounded_rectangle([0, 0, w * 2 - 1, h * 2 - 1], r * 2, fill=255)
        a = np.asarray(im.resize((w, h), Image.BOX), np.float32) / 255
    return a


def make_case(index, rng, scene, out_dir):
    width, height = SIZES[rng.integers(len(SIZES))]
    if rng.random() < 0.4:
        width, height = height, width
    kinds, weights = zip(*KINDS)
    kind = kinds[rng.choice(len(kinds), p=np.array(weights) / sum(weights))]
    low = kind in ("sheet", "note") and rng.random() < 0.3
    if kind == "sheet":
        obj, size, radius = scene.sheet()
    else:
        obj, size, radius = getattr(scene, kind)()
    oh, ow = obj.shape[:2]
    for _ in range(200):
        quad, tilt = view(rng, size[0], size[1], width, height, rng.uniform(0.35, 0.95))
        if quad is not None and passes(quad, width, height):
            break
    else:
        return None
    W, H = width * SS, height * SS
    canvas = scene.table(W, H, light=low) if (low or rng.random() < 0.45) else scene.photo_crop(W, H)
    subsets = []
    if low:
        subsets.append("lowContrast")
    if tilt > 40:
        subsets.append("steep")
    # Clutter: things that are not rectangles the request returns (cut off by the border, or too thin).
    if rng.random() < 0.35:
        subsets.append("clutter")
        for _ in range(rng.integers(1, 3)):
            thin = rng.random() < 0.5
            lw, lh = (rng.uniform(0.3, 0.7) * W, rng.uniform(0.01, 0.03) * H) if thin else (0.5 * W, 0.32 * W)
            cx, cy = rng.uniform(0, W), rng.uniform(0, H)
            if not thin:  # half outside the image
                cx = rng.choice([rng.uniform(-0.2, 0.05), rng.uniform(0.95, 1.2)]) * W
            ang = rng.uniform(0, math.pi)
            rect = cv2.boxPoints(((cx, cy), (lw, lh), math.degrees(ang)))
            a = np.zeros((H, W), np.float32)
            cv2.fillPoly(a, [np.int32(np.round(rect * 16))], 1.0, lineType=cv2.LINE_AA, shift=4)
            canvas = canvas * (1 - a[..., None]) + rng.uniform(0, 255, 3).astype(np.float32) * a[..., None]
    alpha = rounded_alpha(ow, oh, radius)
    quad_ss = quad * SS
    out, a = warp(obj, alpha, quad_ss, (W, H))
    # A contact shadow under the object.
    if not low or rng.random() < 0.5:
        offset = rng.uniform(-4, 8, 2) * SS
        sh = cv2.GaussianBlur(np.roll(np.roll(a, int(offset[1]), 0), int(offset[0]), 1), (0, 0), rng.uniform(2, 10) * SS)
        canvas = canvas * (1 - rng.uniform(0.15, 0.45) * sh[..., None])
    canvas = canvas * (1 - a[..., None]) + out * a[..., None]
    # Light: a gradient over the scene, and sometimes a soft shadow (a hand, a phone) across part of it.
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    g = rng.uniform(-1, 1, 2)
    light = 1 + rng.uniform(0.05, 0.3) * ((xx / W - 0.5) * g[0] + (yy / H - 0.5) * g[1])
    if rng.random() < 0.3:
        subsets.append("shadow")
        poly = np.float32(rng.uniform(0, 1, (5, 2)) * [W, H])
        mask = np.zeros((H, W), np.float32)
        cv2.fillPoly(mask, [cv2.convexHull(poly).astype(np.int32)], 1.0)
        mask = cv2.GaussianBlur(mask, (0, 0), rng.uniform(10, 40) * SS)
        light = light * (1 - rng.uniform(0.2, 0.45) * mask)
    tint = np.array([1, rng.uniform(0.95, 1.02), rng.uniform(0.85, 1.05)], np.float32)
    canvas = canvas * light[..., None] * tint
    img = cv2.resize(canvas, (width, height), interpolation=cv2.INTER_AREA)
    if rng.random() < 0.2:  # a little motion
        k = int(rng.integers(3, 6)); kern = np.zeros((k, k), np.float32)
        cv2.line(kern, (0, int(rng.integers(k))), (k - 1, int(rng.integers(k))), 1.0, 1)
        img = cv2.filter2D(img, -1, kern / kern.sum())
    else:
        img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.3, 1.1))
    img = img + rng.normal(0, rng.uniform(1, 4), img.shape).astype(np.float32)
    img = img.clip(0, 255).astype(np.uint8)
    quality = int(rng.integers(72, 96))
    name = f"{index:03d}.jpg"
    cv2.imwrite(os.path.join(out_dir, "cases", name), cv2.cvtColor(img, cv2.COLOR_RGB2BGR),
                [cv2.IMWRITE_JPEG_QUALITY, quality])
    corners = displayed_order(quad)
    return {"file": name, "kind": kind, "subsets": subsets, "width": width, "height": height,
            "corners": [[round(float(x), 4), round(float(y), 4)] for x, y in corners],
            "documentSize": [float(size[0]), float(size[1])], "tiltDegrees": round(tilt, 2), "jpegQuality": quality}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default="/tmp/swiftseg-rectangles-heldout", help="folder to write (default %(default)s)")
    ap.add_argument("--count", type=int, default=150, help="cases (default %(default)s)")
    ap.add_argument("--seed", type=int, default=2026, help="random seed (default %(default)s)")
    args = ap.parse_args()
    os.makedirs(os.path.join(args.out, "cases"), exist_ok=True)
    rng = np.random.default_rng(args.seed)
    scene = Scene(rng, load_photos(), fonts())
    cases = []
    while len(cases) < args.count:
        c = make_case(len(cases), rng, scene, args.out)
        if c is not None:
            cases.append(c)
            if len(cases) % 25 == 0:
                print(f"{len(cases)} / {args.count}", flush=True)
    with open(os.path.join(args.out, "cases.json"), "w") as f:
        json.dump({"about": "Tools/make_rectangle_heldout.py --seed %d; corners TL, TR, BR, BL in pixels, top-left "
                            "origin" % args.seed, "cases": cases}, f, indent=1)
    print(f"wrote {len(cases)} cases to {args.out}")


if __name__ == "__main__":
    main()
