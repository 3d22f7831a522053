# Sourced by the Tools/ scripts: a private virtualenv at Tools/.venv with Tools/requirements.txt installed.
TOOLS_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
VENV="${SWIFTSEG_TOOLS_VENV:-$TOOLS_DIR/.venv}"
if [ ! -x "$VENV/bin/python" ]; then
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q --upgrade pip
fi
if [ ! -f "$VENV/.requirements-ok" ] || [ "$TOOLS_DIR/requirements.txt" -nt "$VENV/.requirements-ok" ]; then
  "$VENV/bin/pip" install -q -r "$TOOLS_DIR/requirements.txt" && touch "$VENV/.requirements-ok"
fi
PY="$VENV/bin/python"
