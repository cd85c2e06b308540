#!/usr/bin/env bash
# Set up everything from a fresh machine (PyPI only) and run every check: lint, format, tests.
# Usage: scripts/test.sh [pytest args...]     (env: PYTHON=python3.11, SDK_VENV=.venv)
set -euo pipefail
# SDK_TEST_EXTRAS=test,examples,notebook,interop also installs torch and jax, so that the
# interop and torch-parity tests run instead of skipping (.ci/run does).
EXTRAS=${SDK_TEST_EXTRAS:-test,examples,notebook}
# The CUDA backend is built wherever a toolkit is found, GPU or not: its tests compile and
# load it (setup.py's own default builds it only where a GPU is visible).
export SDK_WITH_CUDA=${SDK_WITH_CUDA:-auto}
source "$(dirname "$0")/_venv.sh"
cd "$REPO"

echo "== lint (ruff) and format (ruff format, clang-format)"
"$VPY" -m ruff check .
"$VPY" -m ruff format --check .
git ls-files -- '*.h' '*.c' '*.cpp' '*.cu' '*.cuh' | grep -v -e '^templates/' -e '^tests/abi/abi_' \
  | xargs "$VENV/bin/clang-format" --dry-run --Werror

echo "== tests"
exec "$VPY" -m pytest -q -n 2 "$@"
