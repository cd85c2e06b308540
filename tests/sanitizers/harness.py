"""Runs the core's tests against an AddressSanitizer + UndefinedBehaviorSanitizer debug build.

``python -m tests.sanitizers.harness [pytest args]`` (or ``scripts/sanitize.sh``) builds
and runs; ``tests/sanitizers/test_sanitizers.py`` does the same inside the test suite.

How it is put together, and why:

* Build (ninja, incremental, under ``build/sanitize/``): the core through setup.py's
  ``build_core(sanitize=...)`` into ``build/sanitize/lib/libsdk_core.so``, and the
  binding ``sdk._C`` with the same flags, so that the C++ on both sides of the C ABI is
  checked. ``sdk/lib`` and ``sdk/_C*.so`` are never touched.
* Stage (``build/sanitize/stage/``): a throwaway copy of the ``sdk`` package holding the
  sanitized ``_C`` and ``lib/``, plus a copy of the selected test folders, and ``core``
  as a link to the repo's headers. The tests locate the library relative to their own
  file (``ROOT/sdk/lib``: ctypes loads, ``-L``/rpath of the programs they compile), so
  running copies of them from the stage points every one of them at the sanitized
  library, and a process can never hold both cores. (``LD_LIBRARY_PATH`` would redirect
  ``sdk._C``, whose ``$ORIGIN/lib`` is a RUNPATH, but not those absolute ctypes loads.)
  The tests themselves need no switch for this. ``check_loaded()`` proves it from
  /proc/self/maps before every run.
* Run: the interpreter is not instrumented, so the sanitizer runtimes are preloaded
  (``LD_PRELOAD``; ASan must come first in the process), and ``PYTHONMALLOC=malloc``
  makes Python objects plain heap blocks that ASan watches, so that ``_C`` misusing an
  object's memory is caught too. Leak detection is off: CPython and numpy keep memory
  until exit by design (leaks are the reliability tests' job).
  ``allocator_may_return_null=1`` keeps malloc's contract (NULL on impossible sizes),
  which the core's out-of-memory errors rely on.
  Reports go to stderr and any report ends its process (``-fno-sanitize-recover``,
  ``halt_on_error``), so a test fails; pytest runs with ``--capture=sys`` so that a
  report printed as the pytest process itself dies is not lost in a capture file.
* Compilers: the C/C++ tests compile programs and extensions. ``stage/bin`` holds
  ``cc``/``c++``/``gcc``/``g++`` wrappers (first on PATH, and as CC/CXX) that add the
  sanitizer flags, so those programs are checked as well, and that drop ``LD_PRELOAD``,
  which the test process passes down but which has no business inside the compiler.
  The nvcc tests are deselected: they only compile and nvcc's own tools would inherit
  the preload.
"""

from __future__ import annotations

import importlib.util
import os
import shlex
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BUILD = ROOT / "build" / "sanitize"
STAGE = BUILD / "stage"
CORE_LIB = BUILD / "lib" / "libsdk_core.so"
SANITIZE = "address,undefined"
RUNTIMES = {"address": "libasan.so", "undefined": "libubsan.so"}  # preload order matters
# The core's own tests, the Python-level op tests and the property-based fuzzing of the ops.
TEST_DIRS = ("core", "sdk", "fuzz")
# --capture=sys: a report is printed to fd 2 as the process dies; pytest's default fd
# capture would take it to a temporary file that nobody reads. "not nvcc": compile-only
# checks, whose nvcc tools would run under the preloaded runtimes. "not forks": worker
# processes forked from a multi-threaded process can hang on ASan's allocator lock.
PYTEST_ARGS = ["-p", "no:cacheprovider", "--capture=sys", "-k", "not nvcc", "-m", "not forks"]
ENV = {
    "ASAN_OPTIONS": ":".join(
        [
            "detect_leaks=0",
            "allocator_may_return_null=1",
            "check_initialization_order=1",
            "strict_init_order=1",
            "detect_stack_use_after_return=1",
            "abort_on_error=0",
        ]
    ),
    "UBSAN_OPTIONS": "halt_on_error=1:print_stacktrace=1",
    "PYTHONMALLOC": "malloc",
    "PYTHONFAULTHANDLER": "1",
}
# What a report looks like in the output (the exit status is checked too).
REPORT_MARKERS = ("ERROR: AddressSanitizer", "runtime error:", "ERROR: LeakSanitizer")


def _setup():
    """setup.py as a module (its setup() call runs only as __main__)."""
    name = "_sdk_setup_py"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, ROOT / "setup.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        sys.modules[name] = module
    return sys.modules[name]


def _cxx() -> str:
    return os.environ.get("CXX", "c++")


def runtime_libraries() -> list[str] | None:
    """Absolute paths of the sanitizer runtimes to preload, or None if the compiler lacks one."""
    found = []
    for check in SANITIZE.split(","):
        name = RUNTIMES[check]
        try:
            out = subprocess.run(
                [_cxx(), f"-print-file-name={name}"], capture_output=True, text=True, check=True
            ).stdout.strip()
        except (OSError, subprocess.CalledProcessError):
            return None
        if not os.path.isabs(out) or not os.path.exists(out):  # prints the bare name if absent
            return None
        found.append(os.path.realpath(out))
    return found


def _sanitize_flags() -> list[str]:
    return _setup().SANITIZE_CXXFLAGS + [f"-fsanitize={SANITIZE}"]


def build_binding(verbose: bool = False) -> Path:
    """sdk._C (sdk/csrc/*.cpp) instrumented, linked to the sanitized core; returns its path."""
    setup = _setup()
    build_dir = BUILD / "binding"
    build_dir.mkdir(parents=True, exist_ok=True)
    out = build_dir / ("_C" + sysconfig.get_config_var("EXT_SUFFIX"))
    includes = [f"-I{setup.CORE_INCLUDE}", f"-I{sysconfig.get_paths()['include']}"]
    cflags = ["-std=c++17", "-fPIC", "-fvisibility=hidden", "-Wall", *includes]
    cflags += _sanitize_flags()
    ldflags = ["-shared", f"-L{CORE_LIB.parent}", "-lsdk_core", "-Wl,-rpath,$ORIGIN/lib"]
    ldflags.append(f"-fsanitize={SANITIZE}")
    sources = sorted((ROOT / "sdk" / "csrc").glob("*.cpp"))
    flags = {"cxx": cflags, "ld": ldflags}
    setup.build_library(build_dir, out, sources, flags, verbose=verbose, implicit=(CORE_LIB,))
    return out


def build(verbose: bool = False) -> Path:
    """The sanitized core and binding (incremental); returns the binding's path."""
    _setup().build_core(BUILD / "core", CORE_LIB, verbose=verbose, sanitize=SANITIZE)
    return build_binding(verbose)


def _write_wrappers(bin_dir: Path) -> None:
    """cc/c++/gcc/g++ that instrument what they build and run without the preload."""
    bin_dir.mkdir(parents=True, exist_ok=True)
    flags = [f"-fsanitize={SANITIZE}", "-fno-sanitize-recover=all", "-fno-omit-frame-pointer"]
    flags = " ".join(shlex.quote(f) for f in flags)
    for name in ("cc", "c++", "gcc", "g++"):
        real = shutil.which(name)
        if real is None:
            continue
        wrapper = bin_dir / name
        text = (
            "#!/bin/sh\n"
            "# The sanitized test run's compiler (tests/sanitizers/harness.py).\n"
            "unset LD_PRELOAD\n"
            f'exec {shlex.quote(real)} "$@" {flags}\n'
        )
        if not wrapper.exists() or wrapper.read_text() != text:
            wrapper.write_text(text)
            wrapper.chmod(0o755)


def stage(binding: Path, test_dirs: tuple[str, ...] = TEST_DIRS) -> Path:
    """The staged package and tests (see the module docstring); returns the stage root."""
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.so", ".hypothesis")
    STAGE.mkdir(parents=True, exist_ok=True)
    for sub in ("sdk", "tests"):
        shutil.rmtree(STAGE / sub, ignore_errors=True)
    shutil.copytree(ROOT / "sdk", STAGE / "sdk", ignore=ignore)
    lib = STAGE / "sdk" / "lib"
    lib.mkdir(exist_ok=True)
    shutil.copy2(CORE_LIB, lib / CORE_LIB.name)
    for other in (ROOT / "sdk" / "lib").glob("*.so*"):  # the CUDA backend, as installed
        if other.name != CORE_LIB.name:
            shutil.copy2(other, lib / other.name)
    shutil.copy2(binding, STAGE / "sdk" / binding.name)
    _setup().copy_headers(STAGE / "sdk" / "include")
    tests = STAGE / "tests"
    tests.mkdir()
    for name in ("__init__.py", "conftest.py", "_support.py"):
        shutil.copy2(ROOT / "tests" / name, tests / name)
    for sub in test_dirs:
        if (ROOT / "tests" / sub).is_dir():
            shutil.copytree(ROOT / "tests" / sub, tests / sub, ignore=ignore)
    core = STAGE / "core"
    if not core.is_symlink():
        core.symlink_to(ROOT / "core", target_is_directory=True)
    (STAGE / "pytest.ini").write_text(
        "[pytest]\n"
        "pythonpath = .\n"
        "addopts = -ra\n"
        "markers =\n"
        "    slow: builds an extension or trains (seconds to a minute)\n"
    )
    _write_wrappers(STAGE / "bin")
    return STAGE


def environment(runtimes: list[str]) -> dict[str, str]:
    """The run's environment: preloaded runtimes, options, staged package and compilers."""
    env = dict(os.environ)
    env.update(ENV)
    env["LD_PRELOAD"] = " ".join(runtimes)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(STAGE), env.get("PYTHONPATH")]))
    env["PATH"] = os.pathsep.join([str(STAGE / "bin"), env.get("PATH", "")])
    env["CC"] = str(STAGE / "bin" / "cc")
    env["CXX"] = str(STAGE / "bin" / "c++")
    env.pop("LD_LIBRARY_PATH", None)  # the staged rpaths decide
    return env


PROBE = """
import sdk, ctypes
ctypes.CDLL(sdk.get_library_path())  # as the ctypes tests load it
maps = open("/proc/self/maps").read()
print(sdk.__file__)
print(sorted({line.split()[-1] for line in maps.splitlines() if line.endswith(".so") or ".so." in line}))
"""


def check_loaded(env: dict[str, str]) -> str:
    """Fails unless a staged run maps the runtimes and the sanitized core, never sdk/lib's."""
    proc = subprocess.run(
        [sys.executable, "-c", PROBE], cwd=STAGE, env=env, capture_output=True, text=True
    )
    out = proc.stdout + proc.stderr
    if proc.returncode != 0:
        raise RuntimeError(f"the staged sdk does not import:\n{out}")
    mapped = out.splitlines()[-1]
    problems = []
    if str(STAGE / "sdk" / "lib" / "libsdk_core.so") not in mapped:
        problems.append("the staged libsdk_core.so is not loaded")
    if str(ROOT / "sdk" / "lib") in mapped or str(ROOT / "sdk" / "_C") in mapped:
        problems.append("the repo's own sdk/lib or sdk._C is loaded")
    if "libasan" not in mapped or "libubsan" not in mapped:
        problems.append("the sanitizer runtimes are not loaded")
    if not out.startswith(str(STAGE / "sdk")):
        problems.append("sdk is not imported from the stage")
    if problems:
        raise RuntimeError("; ".join(problems) + f"\n{out}")
    return out


def run(
    pytest_args: list[str],
    test_dirs: tuple[str, ...] = TEST_DIRS,
    capture: bool = True,
    verbose: bool = False,
    timeout: float | None = None,
) -> subprocess.CompletedProcess:
    """Build, stage, check, then run pytest over the staged tests (output captured or not)."""
    runtimes = runtime_libraries()
    if runtimes is None:
        raise RuntimeError(f"{_cxx()} has no sanitizer runtimes ({', '.join(RUNTIMES.values())})")
    import fcntl  # one staged run at a time: the stage is rebuilt in place

    BUILD.mkdir(parents=True, exist_ok=True)
    with open(BUILD / ".stage.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        binding = build(verbose)
        stage(binding, test_dirs)
        env = environment(runtimes)
        check_loaded(env)
        paths = [f"tests/{d}" for d in test_dirs if (STAGE / "tests" / d).is_dir()]
        if any(a.startswith("tests/") for a in pytest_args):
            paths = []  # the caller chose (paths inside the stage mirror the repo's)
        cmd = [sys.executable, "-m", "pytest", *PYTEST_ARGS, *paths, *pytest_args]
        return subprocess.run(
            cmd, cwd=STAGE, env=env, capture_output=capture, text=True, timeout=timeout
        )


def reports(output: str) -> list[str]:
    """The lines of a run's output that open a sanitizer report."""
    return [line for line in output.splitlines() if any(m in line for m in REPORT_MARKERS)]


def main(argv: list[str]) -> int:
    """Streams the run; a report fails it (-fno-sanitize-recover, halt_on_error)."""
    return run(argv, capture=False).returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
