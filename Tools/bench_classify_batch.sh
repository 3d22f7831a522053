#!/usr/bin/env bash
# `swiftseg classify DIR` against the same loop in Python (Pillow + ONNX Runtime, Tools/bench_classify_python.py)
# on the same photos — the committed samples, copied PHOTOS times over in all — alternating ROUNDS times; prints
# each run's photos/s and the ratio of the medians. swiftseg's figure is its whole command (start-up and model
# load included); Python's is given twice: its loop alone (its own timer, started after the imports and the
# ONNX Runtime session) and its whole command, timed like swiftseg's.
#
#   Tools/bench_classify_batch.sh [--photos 200] [--rounds 3] [--threads 2]
#
# Needs ~/.cache/swiftseg/efficientnet-lite0.onnx (Tools/export_efficientnet_lite_onnx.py).
set -euo pipefail
photos=200; rounds=3; threads=2
while [ $# -gt 0 ]; do
  case "$1" in
    --photos) photos="$2"; shift 2 ;;
    --rounds) rounds="$2"; shift 2 ;;
    --threads) threads="$2"; shift 2 ;;
    -h|--help) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench_classify_batch: unknown argument $1" >&2; exit 2 ;;
  esac
done
source "$(dirname "${BASH_SOURCE[0]}")/venv.sh"
cd "$TOOLS_DIR/.."
onnx="${SWIFTSEG_MODEL_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/swiftseg}/efficientnet-lite0.onnx"
[ -f "$onnx" ] || { echo "bench_classify_batch: $onnx missing; see Tools/export_efficientnet_lite_onnx.py" >&2; exit 1; }
swift build -c release --product swiftseg >/dev/null
dir="$(mktemp -d)"; trap 'rm -rf "$dir"' EXIT
samples=(Tests/Fixtures/photos/astronaut.png Tests/Fixtures/photos/chelsea.png Tests/Fixtures/photos/coffee.png
         Tests/Fixtures/photos/rocket.jpg Tests/Fixtures/photos/coins.png)
for i in $(seq 0 $((photos - 1))); do
  src="${samples[$((i % ${#samples[@]}))]}"
  cp "$src" "$dir/$i.${src##*.}"
done
ours=(); theirs=(); theirs_whole=()
for round in $(seq "$rounds"); do
  t0=$(date +%s.%N)
  .build/release/swiftseg classify "$dir" --threads "$threads" --quiet --json > /dev/null
  t1=$(date +%s.%N)
  ours+=("$(echo "$photos / ($t1 - $t0)" | bc -l)")
  t0=$(date +%s.%N)
  report="$("$PY" "$TOOLS_DIR/bench_classify_python.py" "$dir" --onnx "$onnx" --threads "$threads" --json)"
  t1=$(date +%s.%N)
  theirs+=("$(echo "$report" | "$PY" -c 'import json, sys; print(json.load(sys.stdin)["photos_per_s"])')")
  theirs_whole+=("$(echo "$photos / ($t1 - $t0)" | bc -l)")
  printf 'round %d: swiftseg %.1f photos/s; Python + ORT %.1f photos/s (loop), %.1f (whole command)\n' \
    "$round" "${ours[-1]}" "${theirs[-1]}" "${theirs_whole[-1]}"
done
"$PY" - "${ours[*]}" "${theirs[*]}" "${theirs_whole[*]}" <<'PYEOF'
import statistics, sys
ours, loop, whole = ([float(v) for v in arg.split()] for arg in sys.argv[1:4])
o, l, w = statistics.median(ours), statistics.median(loop), statistics.median(whole)
print(f"medians: swiftseg {o:.1f} photos/s; Python + ORT {l:.1f} (loop) {o / l:.2f}x, {w:.1f} (whole command) {o / w:.2f}x")
PYEOF
