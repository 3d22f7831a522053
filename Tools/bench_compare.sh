#!/usr/bin/env bash
# swiftseg vs ONNX Runtime (and, with --openvino, OpenVINO) on the same machine, in one run: they alternate
# (ROUNDS times) so load from other users of a shared machine hits all alike; prints the ratio of medians.
#
#   Tools/bench_compare.sh [--model u2netp|u2net] [--size 320] [--threads 1,2] [--rounds 3] [--iterations 10]
#                          [--openvino]
#
# Needs the model's ONNX file next to its safetensors (Tools/fetch_weights.sh MODEL --keep-onnx); --openvino
# needs `pip install openvino` in the Tools venv.
set -euo pipefail
model=u2netp; sizes=320; threads_list=2; rounds=3; iterations=10; openvino=0
while [ $# -gt 0 ]; do
  case "$1" in
    --model) model="$2"; shift 2 ;;
    --size) sizes="$2"; shift 2 ;;
    --threads) threads_list="$2"; shift 2 ;;
    --rounds) rounds="$2"; shift 2 ;;
    --iterations) iterations="$2"; shift 2 ;;
    --openvino) openvino=1; shift ;;
    -h|--help) sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench_compare: unknown argument $1" >&2; exit 2 ;;
  esac
done
source "$(dirname "${BASH_SOURCE[0]}")/venv.sh"
cd "$TOOLS_DIR/.."
model_dir="${SWIFTSEG_MODEL_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/swiftseg}"
onnx="$model_dir/$model.onnx"
[ -f "$onnx" ] || { echo "bench_compare: $onnx missing; run: Tools/fetch_weights.sh $model --keep-onnx" >&2; exit 1; }
swift build -c release --product swiftseg-bench >/dev/null
bench=".build/release/swiftseg-bench"
out="$(mktemp)"
for size in ${sizes//,/ }; do
  for threads in ${threads_list//,/ }; do
    for round in $(seq "$rounds"); do
      "$bench" --model "$model" --size "$size" --threads "$threads" --iterations "$iterations" --json \
        | sed "s/^/swiftseg $round /" >> "$out"
      "$PY" "$TOOLS_DIR/bench_ort.py" --onnx "$onnx" --size "$size" --threads "$threads" --iterations "$iterations" \
        --json | sed "s/^/ort $round /" >> "$out"
      if [ "$openvino" = 1 ]; then
        "$PY" "$TOOLS_DIR/bench_openvino.py" --onnx "$onnx" --size "$size" --threads "$threads" \
          --iterations "$iterations" --json | sed "s/^/openvino $round /" >> "$out"
      fi
    done
  done
done
"$PY" - "$out" <<'PYEOF'
import json, statistics, sys
rows = {}
for line in open(sys.argv[1]):
    who, rnd, blob = line.split(" ", 2)
    r = json.loads(blob)
    rows.setdefault((r["model"], r["size"], r["threads"]), {}).setdefault(who, []).append(r)
ov = any("openvino" in by for by in rows.values())
head = "| model | size | threads | swiftseg median ms | ORT median ms | ratio (swiftseg / ORT) |"
head += " OpenVINO median ms | ratio (swiftseg / OpenVINO) |" if ov else ""
print(head + " swiftseg RSS MB | ORT RSS MB |")
print("|---" * (head.count("|") + 1) + "|")
med = lambda rs: statistics.median(x for r in rs for x in r["samples_ms"])
for (model, size, threads), by in sorted(rows.items()):
    s = med(by["swiftseg"]); o = med(by["ort"])
    srss = max(r["peak_rss_mb"] for r in by["swiftseg"]); orss = max(r["peak_rss_mb"] for r in by["ort"])
    row = f"| {model} | {size} | {threads} | {s:.1f} | {o:.1f} | {s / o:.2f} |"
    if ov:
        v = med(by["openvino"])
        row += f" {v:.1f} | {s / v:.2f} |"
    print(row + f" {srss:.0f} | {orss:.0f} |")
first = next(iter(rows.values()))
runtimes = "; ".join(first[k][0]["runtime"] for k in ("ort", "openvino") if k in first)
print(f"\nswiftseg: {first['swiftseg'][0]['blas']}, kernels {first['swiftseg'][0].get('isa', '?')}; {runtimes}; "
      f"cpu: {first['swiftseg'][0]['cpu']}; commit {first['swiftseg'][0]['commit']}")
PYEOF
rm -f "$out"
