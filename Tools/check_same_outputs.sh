#!/usr/bin/env bash
# Byte-for-byte comparison of the CLI's outputs between two builds: a refactor must not change one byte.
# Runs the same infer / run-tensor / inspect commands (cutouts, masks, label maps, saliency maps, composites,
# effects, crops, alpha-matted cutouts, JPEG, reports with timings removed, a batch with its manifest, raw d0) with the binary built
# from REV (in a temporary clone) and with this work tree's, on the committed photos, and diffs every file.
#
#   Tools/check_same_outputs.sh REV            # e.g. Tools/check_same_outputs.sh HEAD~3
#   Tools/check_same_outputs.sh --binary PATH  # compare against an already built swiftseg binary
#   Tools/check_same_outputs.sh --pixels REV   # a PNG whose bytes differ passes if it decodes to the same
#                                              # pixels (for a change of encoder; needs Pillow: Tools/venv.sh)
#
# Both builds run on this machine, so they pick the same kernel build and the same OpenBLAS kernels.
set -euo pipefail
cd "$(dirname "$0")/.."
usage() { sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit "${1:-0}"; }
pixels=0
if [ "${1:-}" = --pixels ]; then pixels=1; shift; fi
[ $# -ge 1 ] || usage 2
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
case "$1" in
  -h|--help) usage ;;
  --binary) [ $# -eq 2 ] || usage 2; old="$2" ;;
  *)
    git clone -q . "$tmp/old-src"
    git -C "$tmp/old-src" checkout -q "$1"
    (cd "$tmp/old-src" && swift build -c release --product swiftseg >/dev/null)
    old="$tmp/old-src/.build/release/swiftseg" ;;
esac
swift build -c release --product swiftseg >/dev/null
new=".build/release/swiftseg"
photos=Tests/Fixtures/photos

untimed() {  # a JSON report with its timings' values zeroed (their keys stay)
  python3 -c 'import json, sys; r = json.load(sys.stdin); r["timingsMs"] = {k: 0 for k in r["timingsMs"]}; print(json.dumps(r, indent=1, sort_keys=True))'
}
run() {  # run BINARY OUTDIR: every command writes into OUTDIR
  local bin="$1" out="$2"
  mkdir -p "$out"
  "$bin" infer "$photos/astronaut.png" -o "$out/cutout.png" --instances "$out/labels.png" \
    --saliency "$out/saliency.png" --json | untimed > "$out/report.json"
  "$bin" infer "$photos/coins.png" --mask -o "$out/mask.png"
  "$bin" infer "$photos/coins.png" --select 2,3 --crop -o "$out/select-crop.png"
  "$bin" infer "$photos/chelsea.png" --point 0.5,0.5 --background '#336699' -o "$out/point-bg.jpg"
  "$bin" infer "$photos/coffee.png" --effect blur -o "$out/blur.png"
  "$bin" infer "$photos/coffee.png" --effect highlight --png-compression 9 -o "$out/highlight.png"
  "$bin" infer "$photos/rocket.jpg" --effect darken -o "$out/darken.png"
  "$bin" infer "$photos/rocket.jpg" --effect mask-preview --post-process -o "$out/preview.png"
  "$bin" infer "$photos/chelsea.png" --background "$photos/coffee.png" --exact -o "$out/exact-bg.png"
  "$bin" infer "$photos/astronaut.png" --alpha-matting -o "$out/matted-astronaut.png"
  "$bin" infer "$photos/chelsea.png" --alpha-matting -o "$out/matted-chelsea.png"
  "$bin" infer "$photos/rocket.jpg" --alpha-matting --alpha-matting-erode-size 4 \
    --alpha-matting-foreground-threshold 200 -o "$out/matted-rocket.png"
  "$bin" infer "$photos" -o "$out/batch" --manifest "$out/manifest.jsonl" --quiet
  sed -e 's/"ms":[0-9.]*,//' -e "s#$out#OUT#g" "$out/manifest.jsonl" | sort > "$out/manifest.sorted" && rm "$out/manifest.jsonl"
  "$bin" run-tensor "$photos/coins.input.npy" -o "$out/d0.npy"
  "$bin" run-tensor "$photos/coins.input.npy" -o "$out/d0-gemm.npy" --policy gemm
  "$bin" inspect > "$out/inspect.txt"
}
run "$old" "$tmp/old"
run "$new" "$tmp/new"
if diff -r "$tmp/old" "$tmp/new"; then
  echo "same outputs: $(find "$tmp/new" -type f | wc -l) files identical"
elif [ "$pixels" = 1 ]; then
  # Every difference must be a PNG present in both whose decoded pixels (and mode) are equal.
  python="$(pwd)/Tools/.venv/bin/python"; [ -x "$python" ] || python=python3
  (cd "$tmp" && "$python" - <<'EOF'
import filecmp, os, sys
from PIL import Image
same = pixels = 0
bad = []
for root, _, files in os.walk("new"):
    for f in files:
        new = os.path.join(root, f); old = "old" + new[3:]
        if not os.path.exists(old): bad.append(new); continue
        if filecmp.cmp(old, new, shallow=False): same += 1; continue
        if f.endswith(".png"):
            a, b = Image.open(old), Image.open(new)
            if a.mode == b.mode and a.size == b.size and a.tobytes() == b.tobytes(): pixels += 1; continue
        bad.append(new)
if bad:
    sys.exit("outputs differ beyond PNG bytes: " + ", ".join(sorted(bad)))
print(f"same outputs: {same} files identical, {pixels} PNGs with the same pixels in other bytes")
EOF
  )
else
  echo "outputs differ (above)" >&2
  exit 1
fi
