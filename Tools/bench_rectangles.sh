#!/usr/bin/env bash
# Rectangle detection against the two OpenCV-style peers (squares.cpp and the document-scanner recipe), same
# cases, same scoring, alternating runs so that the shared machine's slow stretches hit all three; each set's
# table printed apart (PERF.md, "Rectangles").
#   Tools/bench_rectangles.sh [MANIFEST ...] [--rounds N]   # default Tests/Fixtures/rectangles/cases.json, 3 rounds
#   Tools/bench_rectangles.sh ../shared/data/rectangles-real/corners.csv /tmp/sheets/corners.csv --rounds 1
# A manifest is a cases.json or a corners.csv (RectangleTestSet reads both); the real sheet sets come from
# Tools/make_real_sheet_cases.py, the held-out synthetic one from Tools/make_rectangle_heldout.py.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/venv.sh"
cd "$TOOLS_DIR/.."
manifests=(); rounds=3
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) rounds="$2"; shift 2 ;;
    -h|--help) sed -n '2,8p' "$0"; exit 0 ;;
    -*) echo "bench_rectangles.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    *) [ -f "$1" ] || { echo "bench_rectangles.sh: $1: no such manifest" >&2; exit 2; }
       manifests+=("$1"); shift ;;
  esac
done
[ ${#manifests[@]} -gt 0 ] || manifests=("Tests/Fixtures/rectangles/cases.json")
swift build -c release --product swiftseg-bench >/dev/null
for r in $(seq 1 "$rounds"); do
  for m in "${manifests[@]}"; do
    echo "## round $r: $m"
    .build/release/swiftseg-bench --rectangles "$m" --iterations 3 | tail -n +2
    "$PY" Tools/bench_rectangles_opencv.py "$m" --rounds 3 --style squares | tail -n +4
    "$PY" Tools/bench_rectangles_opencv.py "$m" --rounds 3 --style scanner | tail -n +4
  done
done
