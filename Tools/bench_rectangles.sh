#!/usr/bin/env bash
# Rectangle detection against the OpenCV squares.cpp-style peer, same cases, same scoring, alternating runs so
# that the shared machine's slow stretches hit both (PERF.md, "Rectangles").
#   Tools/bench_rectangles.sh [MANIFEST] [--rounds N]      # default Tests/Fixtures/rectangles/cases.json, 3 rounds
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/venv.sh"
cd "$TOOLS_DIR/.."
manifest="Tests/Fixtures/rectangles/cases.json"; rounds=3
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) rounds="$2"; shift 2 ;;
    -h|--help) sed -n '2,4p' "$0"; exit 0 ;;
    *) manifest="$1"; shift ;;
  esac
done
swift build -c release --product swiftseg-bench >/dev/null
for r in $(seq 1 "$rounds"); do
  echo "## round $r"
  .build/release/swiftseg-bench --rectangles "$manifest" --iterations 3 | tail -n +2
  "$PY" Tools/bench_rectangles_opencv.py "$manifest" --rounds 3 | tail -n +4
done
