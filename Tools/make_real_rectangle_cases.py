#!/usr/bin/env python3
"""Real photos for rectangle detection, corners marked by hand (Tests/Fixtures/rectangles-real), re-runnable.

    Tools/.venv/bin/python Tools/make_real_rectangle_cases.py              # fetches Debian's opencv-doc (96 MB)
    Tools/.venv/bin/python Tools/make_real_rectangle_cases.py --deb F.deb  # or a downloaded copy of it

Five of OpenCV's camera-calibration photos (samples/data/left01.jpg … right13.jpg in Debian's `opencv-doc` 4.6.0,
Apache-2.0 AND BSD-3-Clause): a chessboard on a board with a dark frame and rounded corners, held at several
angles in an office, 640×480, with lens distortion and a frame grabber's black border rows. The rectangle is the
board's outer boundary. Marked by hand: two points on the straight part of each side, read off the photo at
1.3–2× on a 10-px grid (about ±2 px), the corners where the sides meet (rounded corners are not corners);
the document size for SmartDoc's scoring is the marked quad's mean side lengths. This is a hard set on purpose:
the chessboard is full of rectangles of its own.

And sudoku.png (558×563, same package): a phone photo of a newspaper's Sudoku in dim light, the rectangle the
grid's outer border, whose left side runs on collinearly into the box of the puzzle's title above it. Its four
corners were read off 6× crops with an 8-px grid (the border line's centre, about ±1.5 px) and checked drawn
over the photo; its sides below are the lines through those corners.

Writes cases/*.jpg and cases.json in the format of Tests/Fixtures/rectangles (RectangleTestSet reads both).
"""

import argparse
import hashlib
import io
import json
import math
import os
import subprocess
import tarfile
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "Tests", "Fixtures", "rectangles-real")
MEMBER = "./usr/share/doc/opencv-doc/examples/data/"

# Per photo: its sha256, and two hand-marked points (x, y; pixels, top-left origin) on each side: top, right,
# bottom, left. Boards unless KINDS says otherwise; 640×480 unless SIZES does.
KINDS = {"sudoku.png": "grid"}
SIZES = {"sudoku.png": (558, 563)}
SUDOKU = [[72, 86], [491, 71], [517.5, 519.5], [37, 514]]  # top-left, top-right, bottom-right, bottom-left
PHOTOS = {
    "left01.jpg": ("9621899098adffa1440c8264606bb7be535ccfd9ad126ae8e0bd9b0c5a5b8676",
                   [[[265, 37.5], [540, 42.5]], [[547.5, 60], [552.5, 300]], [[240, 292.5], [515, 310]],
                        [[210, 70], [217.5, 270]]]),
    "left03.jpg": ("c85b9426c3d8fcf161e1e727356105091009c3fd0b1b1a65bc2da91fea2724d2",
                   [[[276.9, 32.3], [623.1, 129.2]], [[633.1, 153.8], [600, 430.8]],
                        [[176.9, 306.2], [561.5, 444.6]], [[161.5, 261.5], [253.8, 57.7]]]),
    "left12.jpg": ("04bdd78b3b507fe0551aa7062a3ffd94846a147ee2bea7fb38082c720bdbe231",
                   [[[197.9, 49], [460, 45.5]], [[472.4, 51], [506.9, 433.8]], [[156.6, 439.3], [501.4, 442.8]],
                        [[184.1, 61.4], [146.2, 433.8]]]),
    "left14.jpg": ("d4c032971dd7b859f9d6aed5090c9888bd8039b82e0604bee5bfe05444fce834",
                   [[[176.9, 29.2], [430.8, 13.8]], [[453.8, 46.2], [488.5, 384.6]],
                        [[246.2, 452.3], [476.9, 436.9]], [[157.7, 76.9], [223.1, 423.1]]]),
    "right13.jpg": ("a576cc5e69668d65dd926366d103c4c77377e0cd71403e4e0fc278e335ed953c",
                   [[[44.4, 125.9], [251.9, 29.6]], [[292.6, 44.4], [385.2, 340.7]],
                         [[192.6, 400], [370.4, 363]], [[33.3, 163], [151.9, 385.2]]]),
    "sudoku.png": ("000cf81b7ce795013ae02bc9dfb0952aa34153c8c0e7fc99c81918e0738d1f09",
                   [[SUDOKU[0], SUDOKU[1]], [SUDOKU[1], SUDOKU[2]], [SUDOKU[3], SUDOKU[2]], [SUDOKU[0], SUDOKU[3]]]),
}


def intersect(l1, l2):
    (x1, y1), (x2, y2) = l1
    (x3, y3), (x4, y4) = l2
    d = (x1 - x2) * (y3 - y4) - (y1 - y2) * (x3 - x4)
    a, b = x1 * y2 - y1 * x2, x3 * y4 - y3 * x4
    return [round((a * (x3 - x4) - (x1 - x2) * b) / d, 1), round((a * (y3 - y4) - (y1 - y2) * b) / d, 1)]


def deb_members(deb):
    """The data archive's files of a .deb (an ar archive), by name."""
    with open(deb, "rb") as f:
        blob = f.read()
    assert blob[:8] == b"!<arch>\n", f"{deb}: not a .deb"
    pos = 8
    while pos < len(blob):
        name, size = blob[pos:pos + 16].decode().strip(), int(blob[pos + 48:pos + 58])
        body = blob[pos + 60:pos + 60 + size]
        if name.startswith("data.tar"):
            return tarfile.open(fileobj=io.BytesIO(body))
        pos += 60 + size + (size % 2)
    raise SystemExit(f"{deb}: no data archive")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deb", help="opencv-doc_*.deb (default: apt-get download opencv-doc into a temp folder)")
    parser.add_argument("--out", default=OUT, help="folder to write (default Tests/Fixtures/rectangles-real)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        deb = args.deb
        if deb is None:
            subprocess.run(["apt-get", "download", "opencv-doc"], cwd=tmp, check=True)
            deb = os.path.join(tmp, next(f for f in os.listdir(tmp) if f.endswith(".deb")))
        archive = deb_members(deb)
        os.makedirs(os.path.join(args.out, "cases"), exist_ok=True)
        cases = []
        for name, (digest, (top, right, bottom, left)) in PHOTOS.items():
            data = archive.extractfile(MEMBER + name).read()
            actual = hashlib.sha256(data).hexdigest()
            if digest and actual != digest:
                raise SystemExit(f"{name}: sha256 {actual}, expected {digest} (another opencv-doc version?)")
            with open(os.path.join(args.out, "cases", name), "wb") as f:
                f.write(data)
            q = [intersect(left, top), intersect(top, right), intersect(right, bottom), intersect(bottom, left)]
            side = lambda a, b: math.hypot(a[0] - b[0], a[1] - b[1])
            size = [round((side(q[0], q[1]) + side(q[3], q[2])) / 2, 1), round((side(q[0], q[3]) + side(q[1], q[2])) / 2, 1)]
            width, height = SIZES.get(name, (640, 480))
            cases.append({"file": name, "kind": KINDS.get(name, "board"), "subsets": ["real"], "width": width, "height": height,
                          "corners": q, "documentSize": size})
    with open(os.path.join(args.out, "cases.json"), "w") as f:
        json.dump({"cases": cases}, f, indent=1)
        f.write("\n")
    print(f"{len(cases)} cases → {args.out}")


if __name__ == "__main__":
    main()
