#!/usr/bin/env bash
# The README's second route, as printed, from a fresh clone: `pip install ".[test]"`, then
# `pytest` from the checkout. Collects the whole suite (an unbuilt checkout must never
# shadow the installed package) and runs a small part of it against the installed build.
# Usage: scripts/check_pip_route.sh   (env: PYTHON=python3.11)
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
git clone -q "$REPO" "$WORK/tensor-sdk"
"${PYTHON:-python3}" -m venv "$WORK/venv"
cd "$WORK/tensor-sdk"
start=$(date +%s)
"$WORK/venv/bin/python" -m pip install -q ".[test]" >"$WORK/install.log" 2>&1 ||
  { tail -n 40 "$WORK/install.log"; exit 1; }
echo "== pip install \".[test]\" took $(($(date +%s) - start)) s"
test ! -e sdk/_C || { echo "the checkout has an sdk/_C folder: it shadows the compiled sdk._C"; exit 1; }
"$WORK/venv/bin/python" -m pytest -q --collect-only >"$WORK/collect.log" 2>&1 ||
  { tail -n 40 "$WORK/collect.log"; exit 1; }
tail -n 1 "$WORK/collect.log"
"$WORK/venv/bin/python" -m pytest -q -p no:cacheprovider tests/sdk/test_layers.py \
  tests/sdk/test_tensor.py tests/cpp_extension/test_load_pybind11.py
