#!/usr/bin/env bash
# Build the core and sdk._C with AddressSanitizer + UndefinedBehaviorSanitizer (a debug
# build under build/sanitize/, sdk/lib untouched) and run the core's tests under them;
# with --tsan first, with ThreadSanitizer (build/tsan/) over the registry and thread tests.
# Usage: scripts/sanitize.sh [--tsan] [pytest args...]   e.g. -x -q, -n 2, tests/core/test_c_header.py
# (env: PYTHON=python3.11, SDK_VENV=.venv, MAX_JOBS=2). See tests/sanitizers/harness.py.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/_venv.sh

echo "== sanitized build and run"
exec "$VPY" -m tests.sanitizers.harness "$@"
