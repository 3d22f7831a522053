#!/usr/bin/env bash
# Regenerate docs/subject-lifting.png: input | mask | instances | composite, made by the swiftseg CLI on the
# committed sample photos (Pillow only lays the panels out and colours the label map).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/venv.sh"
cd "$TOOLS_DIR/.."
swift build -c release --product swiftseg >/dev/null
bin=.build/release/swiftseg
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
for photo in coins.png astronaut.png; do
  name="${photo%.*}"
  "$bin" infer "Tests/Fixtures/photos/$photo" --mask -o "$tmp/$name.mask.png" --instances "$tmp/$name.labels.png"
  "$bin" infer "Tests/Fixtures/photos/$photo" --effect highlight -o "$tmp/$name.highlight.png"
done
"$bin" infer Tests/Fixtures/photos/astronaut.png --effect blur -o "$tmp/astronaut.blur.png"
"$PY" - "$tmp" docs/subject-lifting.png <<'PYEOF'
import sys
import numpy as np
from PIL import Image, ImageDraw
tmp, out = sys.argv[1], sys.argv[2]
H = 240
def panel(img):
    img = img.convert("RGB")
    return img.resize((round(img.width * H / img.height), H), Image.LANCZOS)
def labels(path):
    lab = np.array(Image.open(path))
    rng = np.random.default_rng(3)
    colours = np.concatenate([[[24, 24, 24]], rng.integers(60, 255, size=(lab.max() + 1, 3))]).astype(np.uint8)
    return Image.fromarray(colours[lab])
rows = []
for name, last in [("coins", "highlight"), ("astronaut", "blur")]:
    photo = Image.open(f"Tests/Fixtures/photos/{name}.png")
    rows.append([panel(photo), panel(Image.open(f"{tmp}/{name}.mask.png")), panel(labels(f"{tmp}/{name}.labels.png")),
                 panel(Image.open(f"{tmp}/{name}.{last}.png"))])
titles = ["input", "--mask", "--instances", "--effect highlight / blur"]
width = max(sum(p.width for p in r) for r in rows) + 5 * 8
canvas = Image.new("RGB", (width, 24 + len(rows) * (H + 8)), (255, 255, 255))
draw = ImageDraw.Draw(canvas)
for ri, row in enumerate(rows):
    x = 8
    for ci, p in enumerate(row):
        canvas.paste(p, (x, 24 + ri * (H + 8)))
        if ri == 0:
            draw.text((x, 6), titles[ci], fill=(0, 0, 0))
        x += p.width + 8
canvas.save(out, optimize=True)
print(f"wrote {out} {canvas.size}")
PYEOF
