#!/usr/bin/env python3
"""Real phone photos of sheets, a receipt and a card, corners marked by hand: a development set, a held-out set, and
the committed fixtures (Tests/Fixtures/rectangles-sheets).

    Tools/.venv/bin/python Tools/make_real_sheet_cases.py --jscanify DIR --out /tmp/sheets          # development
    Tools/.venv/bin/python Tools/make_real_sheet_cases.py --jscanify DIR --fixtures                 # committed subset
    Tools/.venv/bin/python Tools/make_real_sheet_cases.py --heldout DIR... --out /tmp/sheets-heldout  # held-out

The photos come from public GitHub repositories, read from a clone or a bare snapshot (any folder `git` reads;
DIR for --jscanify is github.com/puffinsoft/jscanify, for --heldout the four repositories named in HELDOUT, in
any order). Every file is checked against its sha256.

- Development (8 photos, `--jscanify`): jscanify's test photos (docs/images/test/, MIT licence, copied beside the
  committed fixtures): sheets of paper on desks and tables (flat, curled at a corner, bowed along a side, a
  printed table on one), a notepad and a receipt, handheld, 0.5–16 MP. Left out: test8.JPG (the sheet runs out of
  the frame) and test5.JPG (a dollar bill, aspect 0.44: under Vision's default minimum aspect 0.5 the right
  answer is no rectangle; with `--min-aspect 0.3` it is found).
- Held-out (17 photos, 19 rectangles, `--heldout`, never tuned on; not committed): from three repositories (MPL-2.0
  and unlicensed files) two sheets with a frame printed on each (the frame is a second case of the same photo,
  kind `frame`: ranked after the sheet that encloses it, so its top-1 is a miss by design and "anywhere" is its
  measure), a stack of forms curled at the corners, and a card; from HED-document-detection's demo photos (MIT,
  800–1417 px as stored there) 11 train and bus tickets with rounded corners and 2 invoices on tables, cloths and
  plastic bags (long receipts left out: aspect under 0.5). Their marks started from a detection's corners, each
  then read off crops as above.

Photos are turned upright by their EXIF tag and shrunk to at most 1600 px (Pillow's Lanczos; JPEG quality 92);
the fixtures to 800 px (quality 90). Corners were marked on the 1600-px photos: each corner read off 4× crops
with a 10-px scale around a first guess (the paper's corner where its two edges meet; a torn or curled corner
where the straight parts of its sides would meet), about ±2 px; written in the corners.csv format RectangleTestSet
reads (the document size is the marked quad's mean side lengths).
"""

import argparse
import csv
import hashlib
import io
import os
import shutil
import subprocess

from PIL import Image, ImageOps

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "..", "Tests", "Fixtures", "rectangles-sheets")
COLUMNS = ["file", "camera", "width", "height", "tl_x", "tl_y", "tr_x", "tr_y", "br_x", "br_y", "bl_x", "bl_y"]

# name: (path in the repository, sha256, kind, corners TL TR BR BL on the upright ≤1600-px photo)
JSCANIFY = {
    "test.jpg": ("docs/images/test/test.png", "e482a787047ad7b404675c0d9bdd443d2846177d09f9b94b4a1831e287765ff6",
                 "sheet", [315, 85, 645, 102, 648, 592, 154, 530]),
    "test10.jpg": ("docs/images/test/test10.jpg", "eca2f046d77bbe604553265b9ab6651b02d6cd8534aebaea4ba5753f590c9ddd",
                   "sheet", [31, 230, 572, 150, 729, 862, 133, 986]),
    "test2.jpg": ("docs/images/test/test2.png", "a24418ccb96eb3157f71294f4c7ccb7472133a35d89e6e76396efb912519018d",
                  "sheet", [208, 185, 963, 196, 1143, 1356, 58, 1377]),
    "test3.jpg": ("docs/images/test/test3.jpg", "951f33af39289a2b00106fa98e705e3fc8ddfb3a1a3461e1186ef540d15f0c64",
                  "sheet", [90, 360, 796, 353, 898, 1323, 18, 1339]),
    "test4.jpg": ("docs/images/test/test4.JPG", "59cb72bb0585097a0a1cdec1fdd48a300724fe7d1d78d0fd1bd7dae353b0448a",
                  "sheet", [162, 113, 1434, 132, 1492, 1146, 100, 1155]),
    "test6.jpg": ("docs/images/test/test6.JPG", "471d600535151d97d11cf2b13361bbcc72836d1dcdd10678da3450485e01de81",
                  "sheet", [41, 316, 757, 195, 1155, 1033, 397, 1368]),
    "test7.jpg": ("docs/images/test/test7.JPG", "4a0a92ffa83fd1a17337b82d1790db36304e8c8080f6b0ef2ef19003d728da1c",
                  "notepad", [170, 164, 971, 152, 1062, 1544, 67, 1543]),
    "test9.jpg": ("docs/images/test/test9.jpg", "baff7d961e444164eb1b5680bace59709f584c6dbb5a5ccd44708499396cc325",
                  "receipt", [264, 484, 773, 457, 902, 1246, 328, 1327]),
}
# The printed table on test4's sheet: a second rectangle of the same photo (fixtures only: the nested test).
TABLE = ("test4.jpg", "table", [259, 424, 1350, 429, 1375, 991, 231, 998])
# Committed, at 800 px: a flat sheet, a sheet curled at a corner with a table printed on it, a sheet bowed along
# one side, a receipt.
FIXTURE_PHOTOS = ["test2.jpg", "test4.jpg", "test6.jpg", "test9.jpg"]

# name: (repository, path, sha256, [(kind, corners), ...])
HELDOUT = {
    "amit-example_01.jpg": ("AmitKulkarni23/OpenCV", "Projects/PyImageSearch/DocumentScanner/example_01.png",
                            "24d889916e45007f07d5ad6c85cef268639863e8a306ca82eaf544998800d87e",
                            [("card", [72.5, 238, 355, 116, 472, 259, 187, 439])]),
    "sarthak-1.jpg": ("SarthakTiwari/Paper-Page-Scanner", "static/1.jpg",
                      "226390be4cb94fe038fc18e966b0c8bab5f36d90753550fe852966b257bff088",
                      [("sheet", [12, 252, 807, 103, 1164, 1256, 203, 1482])]),
    "sina-4.jpg": ("sinaalinejad/Computer_Vision", "HW3/images/Q4/4.jpg",
                   "ae62bdfd252c782c6f195a3d8f60e03c53033c80983eaebe85dbfcc167e3057b",
                   [("sheet", [180, 161, 934, 262, 1100, 1327, 215, 1486]),
                    ("frame", [244, 276, 901, 348, 1043, 1214, 282, 1324])]),
    "sina-4_1.jpg": ("sinaalinejad/Computer_Vision", "HW3/images/Q4/4_1.jpg",
                     "71b678d6e7be0c93580cfdab0394352faa10bef13fe1a422176a0911182bffee",
                     [("sheet", [48, 86, 895, 154, 1020, 1302, 135, 1476]),
                      ("frame", [124, 213, 863, 249, 962, 1194, 195, 1321])]),
    "hed-1555164687399.jpg": ("Duchen521/HED-document-detection", "demo/1555164687399.jpg",
        "edefe897bf3c67144879da819193612a2bcbe929f663dc009f318bdc0620e6c0", [("ticket", [72, 453, 753, 459, 766, 909, 59, 901])]),
    "hed-1555330172836.jpg": ("Duchen521/HED-document-detection", "demo/1555330172836.jpg",
        "e85589edad9cc8a3489977dce155ac8ede175fe258041e8f86a22cfb716355eb", [("ticket", [72, 409, 708, 419, 700, 873, 42, 843])]),
    "hed-1555330300968.jpg": ("Duchen521/HED-document-detection", "demo/1555330300968.jpg",
        "d5ede6ce240ab001ec2e5f37c1f20cba70e062c0ae48d40e586beabd8d40fd62", [("ticket", [86, 446, 722, 413, 762, 870, 61, 881])]),
    "hed-1555330315047.jpg": ("Duchen521/HED-document-detection", "demo/1555330315047.jpg",
        "e21d156b09fb6c579849928f05d80a8fe6ab12035fed60d55f9a47ffbf85ffc0", [("ticket", [74, 493, 703, 459, 730, 859, 85, 890])]),
    "hed-1555330409157.jpg": ("Duchen521/HED-document-detection", "demo/1555330409157.jpg",
        "bf58d0ecc5b646db75fc478e6fe5d6f1d6e530b1aeae005c1f851a0296670343", [("ticket", [41, 448, 670, 446, 680, 842, 28, 841])]),
    "hed-1555330612760.jpg": ("Duchen521/HED-document-detection", "demo/1555330612760.jpg",
        "9ce2da105d7b70113a1cc8092bad0d891323f676d9df9a15ac0462783f17fa01", [("ticket", [37, 492, 689, 470, 722, 801, 38, 834])]),
    "hed-1555330958524.jpg": ("Duchen521/HED-document-detection", "demo/1555330958524.jpg",
        "9c94b8c984b90ca99455ffb734eb4c4d7f4b164f05805d1ddf19dceea8a8b8ae", [("invoice", [95, 195, 695, 179, 716, 1251, 77, 1248])]),
    "hed-2016004_2017112013811_1.jpg": ("Duchen521/HED-document-detection", "demo/2016004_2017112013811_1.jpg",
        "335f0a711557d760ea8842225d45e0f42b895be18a5411c8f245e24d4696763f", [("ticket", [92, 127, 852, 119, 867, 594, 80, 603])]),
    "hed-2016004_2017112015747_1.jpg": ("Duchen521/HED-document-detection", "demo/2016004_2017112015747_1.jpg",
        "c2020758d65bbb62db628f93836f92668b4a26afa96687c7951b050584c36ed0", [("ticket", [46, 133, 864, 125, 873, 637, 40, 654])]),
    "hed-bus_14_honor9_3.jpg": ("Duchen521/HED-document-detection", "demo/bus_14_honor9_3.jpg",
        "e1048d961f71c347f560cc852b9c65a363b3081cd4a785fafedd872731c0b15a", [("ticket", [111, 568, 672, 565, 683, 955, 98, 951])]),
    "hed-quote_66_honor9_10.jpg": ("Duchen521/HED-document-detection", "demo/quote_66_honor9_10.jpg",
        "6ab21e531cdb95348a1a679ad47f1309bff4d60381d794d297ac804084835028", [("ticket", [23, 416, 712, 428, 720, 863, 15, 865])]),
    "hed-train_452_honor9_6.jpg": ("Duchen521/HED-document-detection", "demo/train_452_honor9_6.jpg",
        "e6a3a1d3c88b504831793d8da9eea28d1fe3b1e2336bad1bb50eb8a0ae4ce98e", [("ticket", [67, 537, 702, 520, 709, 922, 71, 931])]),
    "hed-vat_491_honor9_8.jpg": ("Duchen521/HED-document-detection", "demo/vat_491_honor9_8.jpg",
        "5a2a2cc91cb0a6941e97843fd6e2a9a1b958bd25d70df025cf8e34b01db788ba", [("invoice", [81, 183, 720, 165, 712, 1188, 130, 1203])]),
}


def show(folder, path):
    """A file of a git clone or bare snapshot at HEAD."""
    return subprocess.run(["git", "-C", folder, "show", f"HEAD:{path}"], capture_output=True, check=True).stdout


def blob(folder, path, digest):
    """The same, checked against its sha256."""
    data = show(folder, path)
    actual = hashlib.sha256(data).hexdigest()
    if actual != digest:
        raise SystemExit(f"{folder}: {path} has sha256 {actual}, expected {digest} (another version?)")
    return data


def upright(data, side):
    """The photo turned upright and shrunk to at most `side` px, and its scale per axis from the ≤1600-px photo."""
    image = ImageOps.exif_transpose(Image.open(io.BytesIO(data))).convert("RGB")
    s = min(1, 1600 / max(image.size))
    marked = (round(image.width * s), round(image.height * s))
    t = min(1, side / max(marked))
    size = (round(marked[0] * t), round(marked[1] * t))
    if size != image.size:
        image = image.resize(size, Image.LANCZOS)
    return image, size[0] / marked[0], size[1] / marked[1]


def write(folder, rows, photos, quality):
    os.makedirs(os.path.join(folder, "photos"), exist_ok=True)
    for name, image in photos.items():
        image.save(os.path.join(folder, "photos", name), quality=quality)
    with open(os.path.join(folder, "corners.csv"), "w", newline="") as f:
        out = csv.writer(f, lineterminator="\n")
        out.writerow(COLUMNS)
        out.writerows(rows)
    print(f"{len(rows)} rectangles in {len(photos)} photos → {folder}")


def row(name, kind, image, sx, sy, corners):
    return [name, kind, image.width, image.height] + [round(v * (sx if i % 2 == 0 else sy), 2) for i, v in enumerate(corners)]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jscanify", help="a clone or snapshot of github.com/puffinsoft/jscanify")
    parser.add_argument("--heldout", nargs="+", help="clones or snapshots of the four repositories in HELDOUT")
    parser.add_argument("--fixtures", action="store_true", help="write the committed subset to Tests/Fixtures/rectangles-sheets")
    parser.add_argument("--out", help="folder for the set (photos/ and corners.csv)")
    args = parser.parse_args()
    if bool(args.jscanify) == bool(args.heldout) or bool(args.out) == args.fixtures or (args.fixtures and not args.jscanify):
        parser.error("give --jscanify with --out or --fixtures, or --heldout with --out")
    rows, photos = [], {}
    if args.jscanify:
        side = 800 if args.fixtures else 1600
        names = FIXTURE_PHOTOS if args.fixtures else list(JSCANIFY)
        for name in names:
            path, digest, kind, corners = JSCANIFY[name]
            image, sx, sy = upright(blob(args.jscanify, path, digest), side)
            photos[name] = image
            rows.append(row(name, kind, image, sx, sy, corners))
            if args.fixtures and name == TABLE[0]:
                rows.append(row(name, TABLE[1], image, sx, sy, TABLE[2]))
        folder = FIXTURES if args.fixtures else args.out
        write(folder, rows, photos, 90 if args.fixtures else 92)
        licence = show(args.jscanify, "LICENSE")
        with open(os.path.join(folder, "LICENSE"), "wb") as f:
            f.write(b"Photos from jscanify (github.com/puffinsoft/jscanify, docs/images/test/), under its licence:\n\n" + licence)
        return
    # Held-out: find each photo's repository among the folders given by its snapshot's remote or folder name.
    for name, (repo, path, digest, marks) in HELDOUT.items():
        key = repo.replace("/", "+").lower()
        folder = next((d for d in args.heldout if key in os.path.abspath(d).lower()
                       or repo.split("/")[1].lower() in os.path.abspath(d).lower()), None)
        if folder is None:
            raise SystemExit(f"{name}: give a clone or snapshot of github.com/{repo} (its folder name holding '{repo.split('/')[1]}')")
        image, sx, sy = upright(blob(folder, path, digest), 1600)
        photos[name] = image
        for kind, corners in marks:
            rows.append(row(name, kind, image, sx, sy, corners))
    write(args.out, rows, photos, 92)


if __name__ == "__main__":
    main()
