#!/usr/bin/env bash
# Regenerate the README's figures, made by the swiftseg CLI (Pillow only lays the panels out and colours the
# label map): docs/subject-lifting.png (input | mask | instances | composite, on the committed sample photos) and
# docs/rectangles.png (test-set photos with the found quad drawn, `--draw`, beside the upright crop, `--extract`).
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

cases=(019 003 028)
for c in "${cases[@]}"; do
  "$bin" rectangles "Tests/Fixtures/rectangles/cases/$c.jpg" --draw "$tmp/$c.drawn.png" --extract "$tmp/$c.crop.png" >/dev/null
done
"$PY" - "$tmp" docs/rectangles.png "${cases[@]}" <<'PYEOF'
import sys
from PIL import Image
tmp, out, cases = sys.argv[1], sys.argv[2], sys.argv[3:]
H = 240
def panel(path):
    img = Image.open(path).convert("RGB")
    return img.resize((round(img.width * H / img.height), H), Image.LANCZOS)
rows = [(panel(f"{tmp}/{c}.drawn.png"), panel(f"{tmp}/{c}.crop.png")) for c in cases]
width = max(a.width + b.width for a, b in rows) + 12
sheet = Image.new("RGB", (width, len(rows) * (H + 6) - 6), (255, 255, 255))
for i, (a, b) in enumerate(rows):
    sheet.paste(a, (0, i * (H + 6)))
    sheet.paste(b, (a.width + 12, i * (H + 6)))
sheet.save(out, optimize=True)
PYEOF
echo "wrote docs/rectangles.png"
