# Sourced by scripts/*.sh: create (once) the virtual environment and install the SDK into it.
PY=${PYTHON:-python3}
VENV=${SDK_VENV:-.venv}
if [ ! -x "$VENV/bin/python" ]; then
  echo "== creating $VENV with $("$PY" --version)"
  "$PY" -m venv "$VENV"
fi
VPY="$VENV/bin/python"
echo "== installing the SDK (editable) and its test tools"
"$VPY" -m pip install -q --upgrade pip
"$VPY" -m pip install -q -e ".[test,examples,notebook]"
