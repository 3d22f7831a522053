#!/usr/bin/env python3
"""The OpenCV peer for `swiftseg-bench --rectangles`: a detector in the style of OpenCV's samples/cpp/squares.cpp,
scored the same way on the same cases, printing the same table (Tools/bench_rectangles.sh runs both).

    Tools/.venv/bin/python Tools/bench_rectangles_opencv.py [Tests/Fixtures/rectangles/cases.json] [--rounds 3]
    Tools/.venv/bin/python Tools/bench_rectangles_opencv.py ../shared/data/rectangles-real/corners.csv --style scanner

A manifest is a cases.json (images in cases/ beside it) or a corners.csv of marked photos (images in photos/
beside it; the document size is the marked quad's mean side lengths), as RectangleTestSet reads them.

Two styles (--style): `squares` (below) and `scanner`, the document-scanner recipe of countless tutorials:
grayscale, Gaussian blur 5×5, Canny 75/200, external contours, the largest by area whose approxPolyDP at 2 % of
the perimeter has four corners and passes the same filters.

The detector (written from the sample's description): per colour channel, Canny + dilation and ten threshold
levels; contours; approxPolyDP at 2 % of the perimeter; convex 4-gons whose largest |cos| of a corner angle is
under 0.3 (OpenCV's value). Of what it finds, the top result is the largest quad that passes the same default
filters DetectRectanglesRequest applies (aspect 0.5…1, longer side ≥ 0.2 of the short dimension, corners within
30° of square) and does not run along the image border: the sample has no confidence, and document scanners
built on it take the largest.

Scoring as SmartDoc 2015 (and RectangleTestSet in Swift): the found quad mapped by the homography taking the true
quad to the document's own rectangle, Jaccard index there; hit = J ≥ 0.9; a miss scores 0.
"""

import argparse
import csv
import json
import math
import os
import time

import cv2
import numpy as np

THRESHOLD_LEVELS = 10


def angle_cos(p0, p1, p2):
    d1, d2 = (p0 - p1).astype(float), (p2 - p1).astype(float)
    return abs(np.dot(d1, d2) / math.sqrt(np.dot(d1, d1) * np.dot(d2, d2) + 1e-10))


def find_squares(img):
    squares = []
    blurred = cv2.pyrUp(cv2.pyrDown(img))  # the sample's noise removal
    for channel in cv2.split(blurred):
        for level in range(THRESHOLD_LEVELS):
            if level == 0:
                binary = cv2.dilate(cv2.Canny(channel, 0, 50, apertureSize=5), None)
            else:
                _, binary = cv2.threshold(channel, (level + 1) * 255 // THRESHOLD_LEVELS, 255, cv2.THRESH_BINARY)
            contours, _ = cv2.findContours(binary, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
            for c in contours:
                approx = cv2.approxPolyDP(c, cv2.arcLength(c, True) * 0.02, True)
                if len(approx) == 4 and abs(cv2.contourArea(approx)) > 1000 and cv2.isContourConvex(approx):
                    q = approx.reshape(-1, 2)
                    if max(angle_cos(q[i], q[(i + 1) % 4], q[(i + 2) % 4]) for i in range(4)) < 0.3:
                        squares.append(q.astype(np.float64))
    return squares


def passes_defaults(q, w, h):
    sides = np.linalg.norm(q - np.roll(q, -1, axis=0), axis=1)
    a, b = (sides[0] + sides[2]) / 2, (sides[1] + sides[3]) / 2
    if min(a, b) / max(a, b) < 0.5 or max(a, b) < 0.2 * min(w, h):
        return False
    for i in range(4):
        u, v = q[i - 1] - q[i], q[(i + 1) % 4] - q[i]
        if abs(np.dot(u, v)) / (np.linalg.norm(u) * np.linalg.norm(v)) > math.sin(math.radians(30)):
            return False
    on_border = (q[:, 0] <= 2) | (q[:, 1] <= 2) | (q[:, 0] >= w - 3) | (q[:, 1] >= h - 3)
    return on_border.sum() < 2  # the whole frame, or a quad cut by it


def find_scanner_quads(img):
    gray = cv2.GaussianBlur(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY), (5, 5), 0)
    contours, _ = cv2.findContours(cv2.Canny(gray, 75, 200), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    quads = []
    for c in sorted(contours, key=cv2.contourArea, reverse=True)[:10]:
        approx = cv2.approxPolyDP(c, cv2.arcLength(c, True) * 0.02, True)
        if len(approx) == 4 and cv2.isContourConvex(approx):
            quads.append(approx.reshape(-1, 2).astype(np.float64))
    return quads


def detect(img, style="squares"):
    h, w = img.shape[:2]
    found = find_squares(img) if style == "squares" else find_scanner_quads(img)
    kept = [q for q in found if passes_defaults(q, w, h)]
    if not kept:
        return None
    # Pixel centres to the pixel-edge grid the ground truth uses.
    return max(kept, key=lambda q: abs(cv2.contourArea(q.astype(np.float32)))) + 0.5


def jaccard(found, case):
    if found is None:
        return 0.0
    truth = np.array(case["corners"], np.float32)
    dw, dh = case["documentSize"]
    page = np.array([[0, 0], [dw, 0], [dw, dh], [0, dh]], np.float32)
    hmat = cv2.getPerspectiveTransform(truth, page)
    mapped = cv2.perspectiveTransform(found.reshape(-1, 1, 2).astype(np.float32), hmat).reshape(-1, 2)
    if not cv2.isContourConvex(mapped.astype(np.float32)):
        return 0.0
    inter, _ = cv2.intersectConvexConvex(mapped.astype(np.float32), page)
    union = abs(cv2.contourArea(mapped)) + dw * dh - inter
    return float(inter / union) if union > 0 else 0.0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    here = os.path.dirname(os.path.abspath(__file__))
    parser.add_argument("manifest", nargs="?", default=os.path.join(here, "..", "Tests", "Fixtures", "rectangles", "cases.json"))
    parser.add_argument("--rounds", type=int, default=3, help="timed passes (median per image)")
    parser.add_argument("--cases", action="store_true", help="also one line per case")
    parser.add_argument("--style", choices=["squares", "scanner"], default="squares")
    args = parser.parse_args()
    cv2.setNumThreads(1)
    if args.manifest.endswith(".csv"):
        cases = []
        for r in csv.DictReader(open(args.manifest)):
            q = np.array([[float(r[k + "_x"]), float(r[k + "_y"])] for k in ["tl", "tr", "br", "bl"]])
            side = lambda i, j: float(np.linalg.norm(q[i] - q[j]))
            cases.append({"file": r["file"], "kind": r["camera"], "subsets": ["real"], "corners": q.tolist(),
                          "documentSize": [(side(0, 1) + side(3, 2)) / 2, (side(1, 2) + side(0, 3)) / 2]})
        folder = os.path.join(os.path.dirname(args.manifest), "photos")
    else:
        cases = json.load(open(args.manifest))["cases"]
        folder = os.path.join(os.path.dirname(args.manifest), "cases")
    images = [cv2.imread(os.path.join(folder, c["file"])) for c in cases]
    times = [[] for _ in cases]
    scores = [0.0] * len(cases)
    for r in range(args.rounds):
        for i, img in enumerate(images):
            t0 = time.perf_counter()
            found = detect(img, args.style)
            times[i].append((time.perf_counter() - t0) * 1000)
            if r == 0:
                scores[i] = jaccard(found, cases[i])
    ms = [float(np.median(t)) for t in times]
    if args.cases:
        for c, j, t in zip(cases, scores, ms):
            print(f"{c['file']} {c['kind']:<8} {','.join(c['subsets']):<22} J={j:.3f} {t:6.1f} ms")
    groups = [("all", list(range(len(cases))))]
    kinds = list(dict.fromkeys(c["kind"] for c in cases))
    if len(kinds) > 1:
        groups += [(k, [i for i, c in enumerate(cases) if c["kind"] == k]) for k in kinds]
    groups += [(s, [i for i, c in enumerate(cases) if s in c["subsets"]]) for s in ["lowContrast", "steep"]]
    print(f"rectangles: {len(cases)} cases ({args.manifest}), OpenCV {cv2.__version__} {args.style}-style, largest "
          f"quad within the defaults, median of {args.rounds} timed passes, one thread")
    print("| detector | subset | cases | hits | hit rate | mean J | median ms |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for name, idx in groups:
        if not idx:
            continue
        hits = sum(scores[i] >= 0.9 for i in idx)
        print(f"| opencv-{args.style} | {name} | {len(idx)} | {hits} | {100 * hits / len(idx):.1f} % | "
              f"{np.mean([scores[i] for i in idx]):.3f} | {np.median([ms[i] for i in idx]):.2f} |")


if __name__ == "__main__":
    main()
