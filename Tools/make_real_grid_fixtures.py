#!/usr/bin/env python3
"""A few real phone photos of printed Sudoku grids, downscaled, as test fixtures (Tests/Fixtures/rectangles-grids).

    Tools/.venv/bin/python Tools/make_real_grid_fixtures.py [--data ../shared/data/rectangles-real]

From the development set in shared/data/rectangles-real (the puzzle-localization dataset of the open-source
`sudoku-scanner` project, val split, MIT licence; its LICENSE is copied beside the photos): the photos named below,
shrunk to 800 px on the longer side with Pillow's Lanczos filter and saved as JPEG quality 90, and their marked grid
corners scaled to match, in the same corners.csv format (RectangleTestSet reads it). Chosen to cover both phones,
both orientations, and a grid next to the sheet's edge, a booklet's edge and a stack of sheets. Two more at 1400 px,
where the detector before the cut-quad test (`RectangleDetector.isCut`) returned the grid cut by one of its lines
beside it (at 800 px it does not).
"""

import argparse
import csv
import os
import shutil

from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "Tests", "Fixtures", "rectangles-grids")
PHOTOS = [("01_01_honor_view_10_1.jpg", 800), ("01_04_iphone_14_0.jpg", 800), ("02_15_iphone_14_1.jpg", 800),
          ("01_08_iphone_14_0.jpg", 800), ("01_15_honor_view_10_0.jpg", 1400), ("01_31_iphone_14_0.jpg", 1400)]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default=os.path.join(HERE, "..", "..", "shared", "data", "rectangles-real"))
    parser.add_argument("--out", default=OUT)
    args = parser.parse_args()
    os.makedirs(os.path.join(args.out, "photos"), exist_ok=True)
    shutil.copy(os.path.join(args.data, "LICENSE"), os.path.join(args.out, "LICENSE"))
    rows = {r["file"]: r for r in csv.DictReader(open(os.path.join(args.data, "corners.csv")))}
    columns = ["file", "camera", "width", "height", "tl_x", "tl_y", "tr_x", "tr_y", "br_x", "br_y", "bl_x", "bl_y"]
    with open(os.path.join(args.out, "corners.csv"), "w", newline="") as f:
        out = csv.writer(f, lineterminator="\n")
        out.writerow(columns)
        for name, side in PHOTOS:
            row = rows[name]
            image = Image.open(os.path.join(args.data, "photos", name)).convert("RGB")
            s = side / max(image.size)
            w, h = round(image.width * s), round(image.height * s)
            image.resize((w, h), Image.LANCZOS).save(os.path.join(args.out, "photos", name), quality=90)
            # Pixel-edge coordinates scale by the same factor per axis.
            sx, sy = w / image.width, h / image.height
            corners = [round(float(row[k]) * (sx if k.endswith("_x") else sy), 2) for k in columns[4:]]
            out.writerow([name, row["camera"], w, h] + corners)
            print(name, w, h)


if __name__ == "__main__":
    main()
