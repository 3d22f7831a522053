#!/usr/bin/env bash
# swiftseg against other CPU runtimes on the same machine, in one run: ONNX Runtime, MNN and ncnn (both of which
# run 3×3 convolutions as Winograd on x86, like swiftseg), and with --openvino OpenVINO. They alternate (ROUNDS
# times, each runtime once per round) so load from other users of a shared machine hits all alike; prints the
# medians and the ratio of swiftseg's median to each peer's.
#
#   Tools/bench_compare.sh [--model u2netp|u2net|efficientnet-lite0] [--size S] [--threads 1,2] [--rounds 3] [--iterations 10]
#                          [--peers ort,mnn,ncnn] [--openvino] [--input FILE.npy]
#
# --input feeds every runtime the same preprocessed tensor (e.g. Tests/Fixtures/classify/astronaut.input.npy)
# instead of the synthetic ramp, for a photo's activations (mostly zeros after ReLU6, unlike the ramp's).
#
# Needs the model's ONNX file next to its safetensors (Tools/fetch_weights.sh MODEL --keep-onnx; for
# efficientnet-lite0, Tools/export_efficientnet_lite_onnx.py). The size defaults to the model's (224 for
# EfficientNet-Lite0, 320 for U²-Net). MNN (3.6.1),
# ncnn and pnnx (its converter, without torch) are installed into the Tools venv on first use; the ONNX file is
# converted once for each (NAME.mnn, NAME.ncnn.param/.bin beside it). --openvino needs `pip install openvino`.
set -euo pipefail
model=u2netp; sizes=""; threads_list=2; rounds=3; iterations=10; peers=ort,mnn,ncnn; input_args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --model) model="$2"; shift 2 ;;
    --size) sizes="$2"; shift 2 ;;
    --threads) threads_list="$2"; shift 2 ;;
    --rounds) rounds="$2"; shift 2 ;;
    --iterations) iterations="$2"; shift 2 ;;
    --peers) peers="$2"; shift 2 ;;
    --openvino) peers="$peers,openvino"; shift ;;
    --input) input_args=(--input "$2"); shift 2 ;;
    -h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench_compare: unknown argument $1" >&2; exit 2 ;;
  esac
done
[ -n "$sizes" ] || case "$model" in efficientnet*) sizes=224 ;; *) sizes=320 ;; esac
source "$(dirname "${BASH_SOURCE[0]}")/venv.sh"
cd "$TOOLS_DIR/.."
for peer in ${peers//,/ }; do
  case "$peer" in
    ort|openvino) ;;
    mnn) "$PY" -c 'import MNN' 2>/dev/null || "$PY" -m pip install -q MNN==3.6.1 ;;
    ncnn)
      "$PY" -c 'import ncnn' 2>/dev/null || "$PY" -m pip install -q ncnn==1.0.20261020
      "$PY" -c 'import importlib.util, sys; sys.exit(importlib.util.find_spec("pnnx") is None)' ||
        "$PY" -m pip install -q --no-deps pnnx==20261020 ;;
    *) echo "bench_compare: unknown peer '$peer' (ort, mnn, ncnn, openvino)" >&2; exit 2 ;;
  esac
done
model_dir="${SWIFTSEG_MODEL_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/swiftseg}"
onnx="$model_dir/$model.onnx"
if [ ! -f "$onnx" ]; then
  case "$model" in
    efficientnet*) how="Tools/fetch_weights.sh $model --keep-onnx && Tools/.venv/bin/python Tools/export_efficientnet_lite_onnx.py $model_dir/$model.pth -o $onnx" ;;
    *) how="Tools/fetch_weights.sh $model --keep-onnx" ;;
  esac
  echo "bench_compare: $onnx missing; run: $how" >&2; exit 1
fi
swift build -c release --product swiftseg-bench >/dev/null
bench=".build/release/swiftseg-bench"
out="$(mktemp)"; trap 'rm -f "$out"' EXIT
for size in ${sizes//,/ }; do
  for threads in ${threads_list//,/ }; do
    for round in $(seq "$rounds"); do
      "$bench" --model "$model" --size "$size" --threads "$threads" --iterations "$iterations" "${input_args[@]}" --json \
        | sed "s/^/swiftseg $round /" >> "$out"
      for peer in ${peers//,/ }; do
        # Only the JSON line: MNN prints what the CPU supports on standard output.
        "$PY" "$TOOLS_DIR/bench_$peer.py" --onnx "$onnx" --size "$size" --threads "$threads" \
          --iterations "$iterations" "${input_args[@]}" --json | grep '^{' | sed "s/^/$peer $round /" >> "$out"
      done
    done
  done
done
"$PY" - "$out" "$peers" <<'PYEOF'
import json, statistics, sys
names = {"ort": "ORT", "mnn": "MNN", "ncnn": "ncnn", "openvino": "OpenVINO"}
peers = sys.argv[2].split(",")
rows = {}
for line in open(sys.argv[1]):
    who, rnd, blob = line.split(" ", 2)
    r = json.loads(blob)
    rows.setdefault((r["model"], r["size"], r["threads"]), {}).setdefault(who, []).append(r)
head = "| model | size | threads | swiftseg median ms |"
for p in peers:
    head += f" {names[p]} median ms | swiftseg / {names[p]} |"
head += " swiftseg RSS MB |" + "".join(f" {names[p]} RSS MB |" for p in peers)
print(head)
print("|---" * (head.count("|") - 1) + "|")
med = lambda rs: statistics.median(x for r in rs for x in r["samples_ms"])
rss = lambda rs: max(r["peak_rss_mb"] for r in rs)
for (model, size, threads), by in sorted(rows.items()):
    s = med(by["swiftseg"])
    row = f"| {model} | {size} | {threads} | {s:.1f} |"
    for p in peers:
        v = med(by[p])
        row += f" {v:.1f} | **{s / v:.2f}** |"
    row += f" {rss(by['swiftseg']):.0f} |" + "".join(f" {rss(by[p]):.0f} |" for p in peers)
    print(row)
first = next(iter(rows.values()))
runtimes = "; ".join(first[p][0]["runtime"] for p in peers)
print(f"\nswiftseg: {first['swiftseg'][0]['blas']}, kernels {first['swiftseg'][0].get('isa', '?')}; {runtimes}; "
      f"cpu: {first['swiftseg'][0]['cpu']}; commit {first['swiftseg'][0]['commit']}; "
      f"{len(first['swiftseg'])} alternating rounds of {first['swiftseg'][0]['iterations']} runs; "
      f"input {first['swiftseg'][0].get('input', 'ramp')}")
PYEOF
