#!/usr/bin/env bash
# The CUDA path on a GPU machine in one call: build, tests/cuda, the LLTM check, a benchmark,
# and the CPU thread-scaling table (the GPU hosts have 16 cores).
#
# Usage, from anywhere:   scripts/gpu_check.sh [OUT_DIR]
#   OUT_DIR   the summary and the logs (default: $OUT when set, else build/gpu-check)
#   PYTHON    the interpreter (default: python3); nothing is downloaded
#   GPU_CHECK_BUDGET  seconds for the whole run (default 480): a step that would start with
#             less time left than it needs is skipped and says so
#   GPU_CHECK_STEPS   comma-separated steps to run (modules,build,available,tests,lltm_check,
#             bench,sanitizer; default all); the others are recorded as not requested
#   GPU_CHECK_SKIP_BUILD=1  use the carried sdk/lib and sdk/_C*.so when present (same Python)
#   GPU_CHECK_CARRIED_BACKEND=1  build the core and sdk._C here but keep a carried
#             sdk/lib/libsdk_cuda.so when it loads (nvcc's minutes are spent elsewhere)
#   GPU_CHECK_TESTS   what the tests step runs (default tests/cuda)
#   GPU_CHECK_BENCH_ARGS  extra arguments for bench_cuda.py, e.g. "--quick --only bandwidth,gemm16"
# A module the build or the tests need and the interpreter lacks (scipy-openblas32, say) is
# installed from the wheels in .whl/, when there are any, into a private folder.
#
# Without a GPU (a rehearsal) every step that needs one fails with the reason and the others
# still run. Writes OUT_DIR/summary.md (machine, steps, tests, LLTM check, benchmark tables),
# and OUT_DIR/steps.log (every step's output, in order), and bench.json. Exit status: the
# number of failed steps.
set -uo pipefail
cd "$(dirname "$0")/.."
REPO=$(pwd)
OUT_DIR=${1:-${OUT:-build/gpu-check}}
mkdir -p "$OUT_DIR" && OUT_DIR=$(cd "$OUT_DIR" && pwd)
SUMMARY=$OUT_DIR/summary.md
LOGS=$(mktemp -d)  # one log per step, joined into OUT_DIR/steps.log at the end
PY=${PYTHON:-python3}
BUDGET=${GPU_CHECK_BUDGET:-480}
START=$(date +%s)
FAILED=0
ROWS=()
# A private JIT cache: the LLTM check and the benchmark share its builds, nothing else does.
export SDK_EXTENSIONS_DIR=${SDK_EXTENSIONS_DIR:-$(mktemp -d)/extensions}
export PYTHONUNBUFFERED=1

elapsed() { echo $(($(date +%s) - START)); }

# step NAME NEEDS_GPU MIN_SECONDS TIMEOUT LOG COMMAND...: run, time and record one step.
step() {
  local name=$1 needs_gpu=$2 min_left=$3 limit=$4 log=$5
  shift 5
  local left=$((BUDGET - $(elapsed)))
  echo "== $name"
  if [ -n "${GPU_CHECK_STEPS:-}" ] && [[ ",$GPU_CHECK_STEPS," != *",${log%.log},"* ]]; then
    ROWS+=("| $name | not requested | 0 | GPU_CHECK_STEPS=$GPU_CHECK_STEPS |")
    echo "   not requested (GPU_CHECK_STEPS)"
    return 0
  fi
  if [ "$needs_gpu" = 1 ] && [ -z "$GPU" ]; then
    ROWS+=("| $name | FAILED | 0 | needs a GPU: $NO_GPU |")
    FAILED=$((FAILED + 1))
    echo "   FAILED: needs a GPU: $NO_GPU"
    return 1
  fi
  if [ "$left" -lt "$min_left" ]; then
    ROWS+=("| $name | SKIPPED | 0 | ${left} s left of the ${BUDGET} s budget, needs ${min_left} s |")
    echo "   SKIPPED: out of time"
    return 1
  fi
  [ "$limit" -gt "$left" ] && limit=$left
  local t0 rc note
  t0=$(date +%s)
  # timeout signals the whole process group (ninja, pytest workers); functions run in a bash
  timeout "$limit" bash -c '"$@"' "$name" "$@" >"$LOGS/$log" 2>&1
  rc=$?
  note="steps.log: ${log%.log}"
  [ "$rc" = 124 ] && note="timed out after ${limit} s; $note"
  if [ "$rc" = 0 ]; then
    ROWS+=("| $name | passed | $(($(date +%s) - t0)) | $note |")
    echo "   passed ($(($(date +%s) - t0)) s)"
  else
    ROWS+=("| $name | FAILED (exit $rc) | $(($(date +%s) - t0)) | $note |")
    FAILED=$((FAILED + 1))
    echo "   FAILED (exit $rc); the end of $log:"
    tail -n 25 "$LOGS/$log" | sed 's/^/   | /'
  fi
  return "$rc"
}

# ---- the machine ----------------------------------------------------------------------------
GPU=""
NO_GPU=""
ARCH=""
if ! command -v nvidia-smi >/dev/null 2>&1; then
  NO_GPU="nvidia-smi not found (no NVIDIA driver on this machine)"
elif ! GPU=$(nvidia-smi --query-gpu=name,driver_version,compute_cap,memory.total \
  --format=csv,noheader 2>&1 | head -n 1) || [ -z "$GPU" ] || [[ $GPU == *"failed"* ]]; then
  NO_GPU="nvidia-smi lists no GPU: ${GPU:-no output}"
  GPU=""
else
  ARCH=$(echo "$GPU" | cut -d, -f3 | tr -d ' ')
fi
{
  echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "git: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet 2>/dev/null || echo ' (with local changes)')"
  echo "gpu: ${GPU:-none ($NO_GPU)}"
  echo "cpu: $(nproc) cores, $(uname -m), $(uname -r)"
  echo "nvcc: $(nvcc --version 2>/dev/null | tail -n 2 | head -n 1 || echo 'not found')"
  echo "python: $("$PY" --version 2>&1) at $(command -v "$PY")"
} >"$LOGS/machine.log"
# cuBLAS: the backend dlopens libcublas.so.13/.12 through its RUNPATH (the toolkit's lib64)
# and the loader's paths; when neither has it, point it at NVIDIA's pip wheel if installed.
if [ -z "${SDK_CUBLAS_LIBRARY:-}" ] && ! ldconfig -p 2>/dev/null | grep -q 'libcublas\.so\.1[23] ' &&
  ! ls "$(dirname "$(command -v nvcc 2>/dev/null || echo /usr/local/cuda/bin/nvcc)")"/../lib64/libcublas.so.1[23] >/dev/null 2>&1; then
  SDK_CUBLAS_LIBRARY=$("$PY" -c "
import glob, os, sys
for d in sys.path:
    for p in sorted(glob.glob(os.path.join(d, 'nvidia', '*', 'lib', 'libcublas.so.1[23]')), reverse=True):
        print(p); raise SystemExit
" 2>/dev/null)
  [ -n "$SDK_CUBLAS_LIBRARY" ] && export SDK_CUBLAS_LIBRARY
fi
echo "cuBLAS: ${SDK_CUBLAS_LIBRARY:-found by the backend (toolkit lib64 or ldconfig)}" >>"$LOGS/machine.log"
sed 's/^/   /' "$LOGS/machine.log"
export SDK_GPU_NAME=${GPU%%,*}

# ---- Python modules ---------------------------------------------------------------------------
MODULES="numpy pybind11 ninja setuptools pytest scipy_openblas32"
missing() {
  "$PY" - "$@" <<'EOF'
import importlib.util, sys
print(" ".join(m for m in sys.argv[1:] if importlib.util.find_spec(m) is None))
EOF
}
python_modules() {
  local gone
  gone=$(missing $MODULES)
  if [ -n "$gone" ] && compgen -G ".whl/*.whl" >/dev/null; then
    echo "missing: $gone; installing .whl/*.whl into $SITE"
    "$PY" -m pip install -q --no-index --no-deps --no-compile --target "$SITE" .whl/*.whl || return 1
    gone=$(missing $MODULES)
  fi
  "$PY" -c "import numpy, pybind11, setuptools; print('numpy', numpy.__version__, \
'pybind11', pybind11.__version__, 'setuptools', setuptools.__version__)" || true
  [ -z "$gone" ] || { echo "missing Python modules: $gone (carry their wheels in .whl/)"; return 1; }
}
SITE=$(mktemp -d)/site
export PYTHONPATH="$REPO:$SITE${PYTHONPATH:+:$PYTHONPATH}"
export -f missing python_modules
export PY MODULES SITE
step "python modules" 0 0 120 modules.log python_modules

# ---- build: the core, the CUDA backend for this GPU, sdk._C -----------------------------------
build() {
  local arch_env=()
  # the carried sdk._C must be for this interpreter (its file name carries the ABI tag)
  if [ "${GPU_CHECK_SKIP_BUILD:-0}" = 1 ] && [ -f sdk/lib/libsdk_cuda.so ] &&
    "$PY" -c "import glob, sys, sysconfig
sys.exit(not glob.glob('sdk/_C' + sysconfig.get_config_var('EXT_SUFFIX')))"; then
    echo "GPU_CHECK_SKIP_BUILD=1: using the carried build"
    ls -la sdk/lib sdk/_C*.so
    return 0
  fi
  # A carried backend (built elsewhere for this GPU: nvcc's minutes saved): build the core
  # and sdk._C only, and keep it if it loads here; else build the backend as usual.
  if [ "${GPU_CHECK_CARRIED_BACKEND:-0}" = 1 ] && [ -f sdk/lib/libsdk_cuda.so ]; then
    echo "GPU_CHECK_CARRIED_BACKEND=1: the core and sdk._C only, the carried backend kept"
    SDK_WITH_CUDA=0 MAX_JOBS="$(nproc)" "$PY" setup.py build_ext --inplace || return 1
    if [ -z "$GPU" ] || "$PY" -c "import sys, sdk.cuda as c
sys.exit(0 if c.is_available() else print('carried backend:', c.unavailable_reason()) or 1)"; then
      ls -la sdk/lib
      return 0
    fi
    echo "the carried backend does not load here: building it"
  fi
  # The visible GPU's architecture only (one SASS, fast); no GPU: the portable default list.
  [ -n "$ARCH" ] && arch_env=(SDK_CUDA_ARCH_LIST="$ARCH")
  env "${arch_env[@]}" SDK_WITH_CUDA="${GPU:+1}" MAX_JOBS="$(nproc)" \
    "$PY" setup.py build_ext --inplace || return 1
  ls -la sdk/lib
  test -f sdk/lib/libsdk_cuda.so || { echo "sdk/lib/libsdk_cuda.so was not built"; return 1; }
}
export -f build
export ARCH GPU
step "build (setup.py build_ext --inplace, arch ${ARCH:-default})" 0 60 420 build.log build

# ---- CUDA visible to the SDK ------------------------------------------------------------------
available() {
  "$PY" -c "
import sys, sdk, sdk.cuda as c
print('available:', c.is_available(), '| reason:', c.unavailable_reason() or '-',
      '| devices:', c.device_count() if c.is_available() else 0)
sys.exit(0 if c.is_available() else 1)"
}
export -f available
step "sdk.cuda.is_available()" 1 10 60 available.log available

# ---- tests/cuda -------------------------------------------------------------------------------
cuda_tests() {
  local par=()
  "$PY" -c "import xdist" 2>/dev/null && par=(-n "$(($(nproc) < 8 ? $(nproc) : 8))")
  # shellcheck disable=SC2086  # GPU_CHECK_TESTS may name several files
  "$PY" -m pytest ${GPU_CHECK_TESTS:-tests/cuda} -rs -q -p no:cacheprovider "${par[@]}" \
    --junitxml="$LOGS/tests.xml" || return 1
  # With a GPU, a test skipped for want of one means the run proved nothing.
  if [ -n "$GPU" ] && grep -q "no CUDA GPU visible" "$LOGS/tests.xml"; then
    echo "FAILED: a GPU is here but tests skipped with 'no CUDA GPU visible'"
    return 1
  fi
}
export -f cuda_tests
export LOGS
step "tests/cuda" 0 60 300 tests.log cuda_tests

# ---- the LLTM CUDA op against the CPU op ------------------------------------------------------
step "LLTM CUDA vs CPU (examples/lltm/cuda/check.py)" 1 30 240 lltm_check.log \
  "$PY" examples/lltm/cuda/check.py

# ---- benchmark ----------------------------------------------------------------------------------
step "benchmark (benchmarks/bench_cuda.py)" 1 60 240 bench.log \
  "$PY" benchmarks/bench_cuda.py --json "$OUT_DIR/bench.json" --markdown "$LOGS/bench.md" \
  ${GPU_CHECK_BENCH_ARGS:-}

# ---- CPU thread scaling (issue 31): LLTM and the core rows at 1-16 threads, 4M elements -------
scaling() {
  "$PY" benchmarks/bench_threads.py --threads 1,2,4,8,16,8x --sizes 4M --scaling --quick \
    --json "$OUT_DIR/threads.json" >"$LOGS/threads.md"
  local rc=$?
  cat "$LOGS/threads.md"
  return "$rc"
}
export -f scaling
export OUT_DIR
step "CPU thread scaling (benchmarks/bench_threads.py)" 0 30 90 threads.log scaling

# ---- memory checks of the GPU tests -----------------------------------------------------------
sanitize() {
  command -v compute-sanitizer >/dev/null || { echo "compute-sanitizer not found"; return 1; }
  compute-sanitizer --tool memcheck --error-exitcode 99 --print-limit 20 \
    "$PY" -m pytest tests/cuda/test_gpu.py -q -x -p no:cacheprovider -k "not lltm"
}
export -f sanitize
step "compute-sanitizer memcheck (tests/cuda/test_gpu.py)" 1 90 180 sanitizer.log sanitize

# ---- summary ------------------------------------------------------------------------------------
{
  echo "# GPU check"
  echo
  sed 's/^/- /' "$LOGS/machine.log"
  echo "- total: $(elapsed) s of a ${BUDGET} s budget; failed steps: $FAILED"
  echo
  echo "| step | result | seconds | note |"
  echo "|---|---|---|---|"
  printf '%s\n' "${ROWS[@]}"
  if [ -f "$LOGS/tests.log" ]; then
    echo
    echo "## tests/cuda"
    echo
    echo '```'
    grep -E "^(SKIPPED|FAILED|ERROR)|passed|failed" "$LOGS/tests.log" | tail -n 40
    echo '```'
  fi
  if [ -f "$LOGS/lltm_check.log" ]; then
    echo
    echo "## LLTM CUDA vs CPU"
    echo
    echo '```'
    tail -n 12 "$LOGS/lltm_check.log"
    echo '```'
  fi
  if [ -f "$LOGS/threads.md" ]; then
    echo
    echo "## CPU thread scaling"
    echo
    cat "$LOGS/threads.md"
  fi
  if [ -f "$LOGS/bench.md" ]; then
    echo
    echo "## Benchmark"
    echo
    cat "$LOGS/bench.md"
  fi
} >"$SUMMARY"
for log in machine modules build available tests lltm_check bench threads sanitizer; do
  [ -f "$LOGS/$log.log" ] && { echo "===== $log"; cat "$LOGS/$log.log"; }
done >"$OUT_DIR/steps.log"
echo
cat "$SUMMARY"
exit "$FAILED"
