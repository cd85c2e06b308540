"""Runs the core's tests against an AddressSanitizer + UndefinedBehaviorSanitizer debug build,
and the registry and thread tests against a ThreadSanitizer one.

``python -m tests.sanitizers.harness [--tsan] [pytest args]`` (or ``scripts/sanitize.sh``)
builds and runs; ``tests/sanitizers/test_sanitizers.py`` does the same inside the test suite.
Each sanitizer is a Flavor: its own build and stage folder (TSan cannot share a process or
an object file with ASan), runtimes, options, test folders and report markers; the rest
below is the same for both.

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
* ThreadSanitizer (``--tsan``, build/tsan/): the same build and stage with
  ``-fsanitize=thread`` over the registry and thread tests (TSAN_TESTS). The interpreter
  is not instrumented, but TSan intercepts the pthread calls behind the GIL, so what one
  thread hands another under the GIL is ordered; a report is a race in the core or
  ``_C``. ``tests/sanitizers/tsan.supp`` holds the suppressions, each with its reason.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import os
import shlex
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent


@dataclasses.dataclass(frozen=True)
class Flavor:
    """One sanitizer build and its run."""

    name: str
    sanitize: str  # the -fsanitize= checks
    runtimes: tuple[str, ...]  # libraries to preload, in order
    build: Path
    test_dirs: tuple[str, ...]  # folders of tests/ staged
    default_tests: tuple[str, ...]  # what a run without test paths runs
    env: dict
    markers: tuple[str, ...]  # what a report looks like in the output
    pytest_args: tuple[str, ...] = ()  # added to every run

    @property
    def stage(self) -> Path:
        return self.build / "stage"

    @property
    def core_lib(self) -> Path:
        return self.build / "lib" / "libsdk_core.so"


ASAN = Flavor(
    name="asan",
    sanitize="address,undefined",
    runtimes=("libasan.so", "libubsan.so"),  # ASan must come first in the process
    build=ROOT / "build" / "sanitize",
    # The core's own tests, the Python-level op tests and the property-based fuzzing of the
    # ops, and the registry's thread stress test.
    test_dirs=("core", "sdk", "fuzz", "reliability"),
    default_tests=(
        "tests/core",
        "tests/sdk",
        "tests/fuzz",
        "tests/reliability/test_op_registry_stress.py",
    ),  # fmt: skip
    env={
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
    },
    markers=("ERROR: AddressSanitizer", "runtime error:", "ERROR: LeakSanitizer"),
)

TSAN = Flavor(
    name="tsan",
    sanitize="thread",
    runtimes=("libtsan.so",),
    build=ROOT / "build" / "tsan",
    test_dirs=("sdk", "reliability"),
    # the registry (defined, closed, called from threads), and ops from many threads
    default_tests=(
        "tests/reliability/test_op_registry_stress.py",
        "tests/reliability/test_threads.py",
        "tests/reliability/test_thread_pool.py",  # the pool's chunk claims and its spin
        "tests/sdk/test_reduce_parallel.py",  # reductions split over the pool
        "tests/sdk/test_library.py",
        "tests/sdk/test_library_hostile.py",
    ),
    env={
        # halt_on_error: the first report ends the process (the test fails); exitcode: a
        # report is never mistaken for a pass
        "TSAN_OPTIONS": ":".join(
            [
                "halt_on_error=1",
                "exitcode=66",
                "second_deadlock_stack=1",
                "history_size=4",
                f"suppressions={HERE / 'tsan.supp'}",
            ]
        ),
        "PYTHONFAULTHANDLER": "1",
        # numpy's OpenBLAS hands work to its own uninstrumented threads through spin-waits
        # TSan cannot see: one thread runs its calls in the caller. (The core's copy takes
        # the core's thread count; tsan.supp has the rest.)
        "OPENBLAS_NUM_THREADS": "1",
        # ccache would start under the preloaded runtime (the compiler wrappers drop it
        # only after ccache ran them) and crashes there: the tests' extensions build without
        "SDK_EXTENSIONS_NO_CCACHE": "1",
    },
    markers=("WARNING: ThreadSanitizer", "ERROR: ThreadSanitizer", "FATAL: ThreadSanitizer"),
    # Builds an extension: ninja runs each compile through /bin/sh, and a shell crashes at
    # startup under the preloaded TSan runtime (the calls themselves run in test_threads'
    # other tests and in the registry tests).
    pytest_args=(
        "--deselect",
        "tests/reliability/test_threads.py::test_extension_calls_from_threads",
    ),
)

FLAVORS = {f.name: f for f in (ASAN, TSAN)}
# The ASan flavor's names, as other tools knew them.
BUILD, STAGE, CORE_LIB, SANITIZE = ASAN.build, ASAN.stage, ASAN.core_lib, ASAN.sanitize
TEST_DIRS = ASAN.test_dirs
# --capture=sys: a report is printed to fd 2 as the process dies; pytest's default fd
# capture would take it to a temporary file that nobody reads. "not nvcc": compile-only
# checks, whose nvcc tools would run under the preloaded runtimes. "not forks": worker
# processes forked from a multi-threaded process can hang on ASan's allocator lock.
PYTEST_ARGS = ["-p", "no:cacheprovider", "--capture=sys", "-k", "not nvcc", "-m", "not forks"]
# What a report looks like in the output (the exit status is checked too).
REPORT_MARKERS = ASAN.markers + TSAN.markers


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


def runtime_libraries(flavor: Flavor = ASAN) -> list[str] | None:
    """Absolute paths of the sanitizer runtimes to preload, or None if the compiler lacks one."""
    found = []
    for name in flavor.runtimes:
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


def _sanitize_flags(flavor: Flavor) -> list[str]:
    return _setup().SANITIZE_CXXFLAGS + [f"-fsanitize={flavor.sanitize}"]


def build_binding(verbose: bool = False, flavor: Flavor = ASAN) -> Path:
    """sdk._C (sdk/csrc/*.cpp) instrumented, linked to the sanitized core; returns its path."""
    setup = _setup()
    build_dir = flavor.build / "binding"
    build_dir.mkdir(parents=True, exist_ok=True)
    out = build_dir / ("_C" + sysconfig.get_config_var("EXT_SUFFIX"))
    includes = [f"-I{setup.CORE_INCLUDE}", f"-I{sysconfig.get_paths()['include']}"]
    base = setup._base_flags(opt=None, hidden=True, warnings=False, extra=["-Wall"])
    cflags = [*base, *includes]  # the level comes from _sanitize_flags
    cflags += _sanitize_flags(flavor)
    ldflags = ["-shared", f"-L{flavor.core_lib.parent}", "-lsdk_core", "-Wl,-rpath,$ORIGIN/lib"]
    ldflags.append(f"-fsanitize={flavor.sanitize}")
    sources = sorted((ROOT / "sdk" / "csrc").glob("*.cpp"))
    flags = {"cxx": cflags, "ld": ldflags}
    setup.build_library(
        build_dir, out, sources, flags, verbose=verbose, implicit=(flavor.core_lib,)
    )
    return out


def build(verbose: bool = False, flavor: Flavor = ASAN) -> Path:
    """The sanitized core and binding (incremental); returns the binding's path."""
    _setup().build_core(
        flavor.build / "core", flavor.core_lib, verbose=verbose, sanitize=flavor.sanitize
    )
    return build_binding(verbose, flavor)


def _wrapper_text(real: str, flags: list[str], flavor: Flavor) -> str:
    """The wrapper script. A shell does not start under a preloaded TSan runtime (bash and
    dash crash at startup), so TSan's wrappers are Python, which does."""
    if flavor.sanitize != "thread":
        quoted = " ".join(shlex.quote(f) for f in flags)
        return (
            "#!/bin/sh\n"
            "# The sanitized test run's compiler (tests/sanitizers/harness.py).\n"
            "unset LD_PRELOAD\n"
            f'exec {shlex.quote(real)} "$@" {quoted}\n'
        )
    return (
        f"#!{sys.executable}\n"
        "# The sanitized test run's compiler (tests/sanitizers/harness.py).\n"
        "import os, sys\n"
        "os.environ.pop('LD_PRELOAD', None)\n"
        f"os.execv({real!r}, [{real!r}, *sys.argv[1:], *{flags!r}])\n"
    )


def _write_wrappers(bin_dir: Path, flavor: Flavor = ASAN) -> None:
    """cc/c++/gcc/g++ that instrument what they build and run without the preload."""
    bin_dir.mkdir(parents=True, exist_ok=True)
    flags = [
        f"-fsanitize={flavor.sanitize}",
        "-fno-sanitize-recover=all",
        "-fno-omit-frame-pointer",
    ]
    for name in ("cc", "c++", "gcc", "g++"):
        real = shutil.which(name)
        if real is None:
            continue
        wrapper = bin_dir / name
        text = _wrapper_text(real, flags, flavor)
        if not wrapper.exists() or wrapper.read_text() != text:
            wrapper.write_text(text)
            wrapper.chmod(0o755)


def stage(binding: Path, test_dirs: tuple[str, ...] | None = None, flavor: Flavor = ASAN) -> Path:
    """The staged package and tests (see the module docstring); returns the stage root."""
    test_dirs = flavor.test_dirs if test_dirs is None else test_dirs
    root = flavor.stage
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.so", ".hypothesis")
    root.mkdir(parents=True, exist_ok=True)
    for sub in ("sdk", "tests"):
        shutil.rmtree(root / sub, ignore_errors=True)
    shutil.copytree(ROOT / "sdk", root / "sdk", ignore=ignore)
    lib = root / "sdk" / "lib"
    lib.mkdir(exist_ok=True)
    shutil.copy2(flavor.core_lib, lib / flavor.core_lib.name)
    for other in (ROOT / "sdk" / "lib").glob("*.so*"):  # the CUDA backend, as installed
        if other.name != flavor.core_lib.name:
            shutil.copy2(other, lib / other.name)
    shutil.copy2(binding, root / "sdk" / binding.name)
    _setup().copy_headers(root / "sdk" / "include")
    tests = root / "tests"
    tests.mkdir()
    # conftest and the shared helpers, whatever they are
    for module in (ROOT / "tests").glob("*.py"):
        shutil.copy2(module, tests / module.name)
    for sub in test_dirs:
        if (ROOT / "tests" / sub).is_dir():
            shutil.copytree(ROOT / "tests" / sub, tests / sub, ignore=ignore)
    core = root / "core"
    if not core.is_symlink():
        core.symlink_to(ROOT / "core", target_is_directory=True)
    (root / "pytest.ini").write_text(
        "[pytest]\n"
        "pythonpath = .\n"
        "addopts = -ra\n"
        "markers =\n"
        "    slow: builds an extension or trains (seconds to a minute)\n"
        "    forks: starts worker processes\n"
    )
    _write_wrappers(root / "bin", flavor)
    return root


def environment(runtimes: list[str], flavor: Flavor = ASAN) -> dict[str, str]:
    """The run's environment: preloaded runtimes, options, staged package and compilers."""
    root = flavor.stage
    env = dict(os.environ)
    env.update(flavor.env)
    env["LD_PRELOAD"] = " ".join(runtimes)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(root), env.get("PYTHONPATH")]))
    env["PATH"] = os.pathsep.join([str(root / "bin"), env.get("PATH", "")])
    env["CC"] = str(root / "bin" / "cc")
    env["CXX"] = str(root / "bin" / "c++")
    env.pop("LD_LIBRARY_PATH", None)  # the staged rpaths decide
    return env


PROBE = """
import sdk, ctypes
ctypes.CDLL(sdk.get_library_path())  # as the ctypes tests load it
maps = open("/proc/self/maps").read()
print(sdk.__file__)
print(sorted({line.split()[-1] for line in maps.splitlines() if line.endswith(".so") or ".so." in line}))
"""


def check_loaded(env: dict[str, str], flavor: Flavor = ASAN) -> str:
    """Fails unless a staged run maps the runtimes and the sanitized core, never sdk/lib's."""
    root = flavor.stage
    proc = subprocess.run(
        [sys.executable, "-c", PROBE], cwd=root, env=env, capture_output=True, text=True
    )
    out = proc.stdout + proc.stderr
    if proc.returncode != 0:
        raise RuntimeError(f"the staged sdk does not import:\n{out}")
    mapped = out.splitlines()[-1]
    problems = []
    if str(root / "sdk" / "lib" / "libsdk_core.so") not in mapped:
        problems.append("the staged libsdk_core.so is not loaded")
    if str(ROOT / "sdk" / "lib") in mapped or str(ROOT / "sdk" / "_C") in mapped:
        problems.append("the repo's own sdk/lib or sdk._C is loaded")
    if any(r.split(".so")[0] not in mapped for r in flavor.runtimes):
        problems.append("the sanitizer runtimes are not loaded")
    if not out.startswith(str(root / "sdk")):
        problems.append("sdk is not imported from the stage")
    if problems:
        raise RuntimeError("; ".join(problems) + f"\n{out}")
    return out


def run(
    pytest_args: list[str],
    test_dirs: tuple[str, ...] | None = None,
    capture: bool = True,
    verbose: bool = False,
    timeout: float | None = None,
    flavor: Flavor = ASAN,
) -> subprocess.CompletedProcess:
    """Build, stage, check, then run pytest over the staged tests (output captured or not)."""
    runtimes = runtime_libraries(flavor)
    if runtimes is None:
        raise RuntimeError(f"{_cxx()} has no sanitizer runtimes ({', '.join(flavor.runtimes)})")
    import fcntl  # one staged run at a time: the stage is rebuilt in place

    flavor.build.mkdir(parents=True, exist_ok=True)
    with open(flavor.build / ".stage.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        binding = build(verbose, flavor)
        stage(binding, test_dirs, flavor)
        env = environment(runtimes, flavor)
        check_loaded(env, flavor)
        if test_dirs is None:
            paths = list(flavor.default_tests)
        else:
            paths = [f"tests/{d}" for d in test_dirs]
        paths = [p for p in paths if (flavor.stage / p).exists()]
        if any(a.startswith("tests/") for a in pytest_args):
            paths = []  # the caller chose (paths inside the stage mirror the repo's)
        cmd = [sys.executable, "-m", "pytest", *PYTEST_ARGS, *flavor.pytest_args, *paths]
        cmd += pytest_args
        return subprocess.run(
            cmd, cwd=flavor.stage, env=env, capture_output=capture, text=True, timeout=timeout
        )


def reports(output: str, flavor: Flavor | None = None) -> list[str]:
    """The lines of a run's output that open a sanitizer report."""
    markers = flavor.markers if flavor else REPORT_MARKERS
    return [line for line in output.splitlines() if any(m in line for m in markers)]


def main(argv: list[str]) -> int:
    """Streams the run; a report fails it (-fno-sanitize-recover, halt_on_error).
    ``--tsan`` first: the ThreadSanitizer flavor."""
    flavor = ASAN
    if argv[:1] == ["--tsan"]:
        flavor, argv = TSAN, argv[1:]
    return run(argv, capture=False, flavor=flavor).returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
