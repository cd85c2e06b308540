# Sourced by scripts/*.sh: create (once) the virtual environment and install the SDK into it.
# Sets REPO and VENV (absolute paths) and VPY (its python), whatever folder the caller is in.
#   PYTHON   the interpreter that creates the venv (default python3)
#   SDK_VENV the venv folder (default: .venv in the checkout)
#   EXTRAS   the package's extras to install (set by the calling script; venv_install_extras
#            adds others later)
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PY=${PYTHON:-python3}
VENV=${SDK_VENV:-$REPO/.venv}
if [ ! -x "$VENV/bin/python" ]; then
  echo "== creating $VENV with $("$PY" --version 2>&1)"
  "$PY" -m venv "$VENV"
fi
VENV=$(cd "$VENV" && pwd)
VPY="$VENV/bin/python"

# pip's own upgrade cost ~3 of a first run's CPU seconds: only a pip older than 23 is replaced
# (editable installs of a pyproject.toml project need 21.3; Python 3.12 brings 23.2).
# --no-compile: Python compiles what is imported when it is first imported, pip would
# compile every module of every package now (numpy: 1.9 CPU s against 0.3); not where
# PYTHONDONTWRITEBYTECODE keeps Python from saving what it compiles.
PIP=("$VPY" -m pip --disable-pip-version-check)
NO_COMPILE=--no-compile
[ -z "${PYTHONDONTWRITEBYTECODE:-}" ] || NO_COMPILE=--compile
TOOLS=("setuptools>=70.1" wheel "ninja>=1.11" "pybind11>=2.10")
if ! "$VPY" -c 'import sys, pip; sys.exit(int(pip.__version__.split(".")[0]) < 23)' 2>/dev/null; then
  TOOLS=(pip "${TOOLS[@]}")
fi
echo "== installing the build tools (setuptools, ninja, pybind11)"
"${PIP[@]}" install -q "$NO_COMPILE" --upgrade "${TOOLS[@]}"

# The build runs in this venv (no isolated build environment to create each time), and its
# progress is shown as it goes: pip -v streams setup.py's output, of which the steps and
# the compiler's "[n/N]" lines are kept; the whole log is kept for a failure.
BUILD_LOG="$VENV/sdk-install.log"
echo "== building and installing the SDK (editable, extras: ${EXTRAS:-none}); log: $BUILD_LOG"
# With no GPU here the CUDA backend is only compiled and linked (its tests run a host-memory
# stand-in): one architecture with PTX does that in a fraction of nvcc's time for all of them.
# An arch list the caller set, or a visible GPU, keeps setup.py's own choice. The choice is
# exported, so that later builds from this checkout in the same run (the test suite's
# `pip wheel .`) reuse this build's CUDA objects instead of compiling every architecture.
ARCHS=${SDK_CUDA_ARCH_LIST:-${TORCH_CUDA_ARCH_LIST:-}}
if [ -z "$ARCHS" ] && ! compgen -G '/dev/nvidia[0-9]*' >/dev/null; then
  ARCHS="9.0+PTX"
  export SDK_CUDA_ARCH_LIST=$ARCHS
fi
SDK_CUDA_ARCH_LIST=$ARCHS "${PIP[@]}" install -v "$NO_COMPILE" --no-build-isolation \
  -e "$REPO${EXTRAS:+[$EXTRAS]}" >"$BUILD_LOG" 2>&1 </dev/null &
PIP_PID=$!
{ tail -n +1 -F --pid="$PIP_PID" "$BUILD_LOG" 2>/dev/null |
  grep --line-buffered -E '^ *(Building [^ ]+: \[[0-9]+/[0-9]+\] |sdk build: |Successfully installed)' |
  sed -u -E 's/^ +//; s/^Building [^ ]+: //; s#'"$REPO"'/##g; s/^/   /'; } || true
if ! wait "$PIP_PID"; then
  echo "== installing the SDK failed; the end of $BUILD_LOG:"
  tail -n 40 "$BUILD_LOG"
  exit 1
fi

# Add the package's extras ($1, e.g. "examples") after the install above: pip finds tensor-sdk
# installed (editable) and installs only what the extras require, without building again.
venv_install_extras() {
  "${PIP[@]}" install -q "$NO_COMPILE" "tensor-sdk[$1]"
}
