#!/usr/bin/env bash
# Set up everything from a fresh machine and run the main job: build the LLTM op with
# cpp_extension.load(), check it against references, benchmark it, and train briefly.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/_venv.sh
cd examples/lltm
echo "== build (JIT, cpp_extension.load) and check against numpy and sdk references"
"$VPY" check.py
echo "== gradcheck"
"$VPY" grad_check.py
echo "== benchmark (one thread)"
"$VPY" benchmark.py --variant all
echo "== train"
"$VPY" train.py
