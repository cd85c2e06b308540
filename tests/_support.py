"""What the tests share: where the checkout is, which sdk they exercise, and subprocesses
that exercise the same one.

The tests run against the checkout when it is built (an editable install, or
`python setup.py build_ext --inplace`), and against the installed package otherwise
(`pip install .` then `pytest`): the source tree's `sdk/` has no compiled `_C` and must not
shadow the installed one. In that case the checkout leaves `sys.path`, and a private folder
of links to its `tests/`, `examples/` and `benchmarks/` takes its place, so those stay
importable while `sdk` and `cpp_extension` resolve to the installed package.
"""

from __future__ import annotations

import atexit
import contextlib
import fcntl
import functools
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
LINKED = ("tests", "examples", "benchmarks")


def checkout_is_built() -> bool:
    """Whether the checkout's own sdk can be imported by this interpreter."""
    suffix = sysconfig.get_config_var("EXT_SUFFIX") or ".so"
    sdk = REPO / "sdk"
    return (sdk / "lib" / "libsdk_core.so").is_file() and (sdk / f"_C{suffix}").is_file()


TESTS_CHECKOUT = checkout_is_built()
_links: str | None = None


def import_path() -> str:
    """The folder that goes first on the import path: the checkout when it is built, else the
    private folder of links (made once per process, removed at exit)."""
    global _links
    if TESTS_CHECKOUT:
        return str(REPO)
    if _links is None:
        folder = tempfile.mkdtemp(prefix="sdk-tests-path-")  # 0700, unique: nobody else's
        for name in LINKED:
            os.symlink(REPO / name, os.path.join(folder, name))
        atexit.register(shutil.rmtree, folder, True)
        _links = folder
    return _links


def package_dir() -> Path:
    """The folder of the sdk package under test (found without importing it)."""
    if TESTS_CHECKOUT:
        return REPO / "sdk"
    import importlib.util

    spec = importlib.util.find_spec("sdk")
    if spec is None or not spec.origin:
        raise ImportError("sdk is not installed (and this checkout is not built)")
    return Path(spec.origin).parent


def lib_dir() -> Path:
    """Where the package under test keeps libsdk_core.so."""
    return package_dir() / "lib"


def include_dir() -> Path:
    """The public headers of the package under test (the checkout's own sources there)."""
    return REPO / "core" / "include" if TESTS_CHECKOUT else package_dir() / "include"


def use_tested_package() -> None:
    """Make `import sdk` in this process find the package under test (see the module doc)."""
    if TESTS_CHECKOUT:
        return
    here = os.path.realpath(REPO)
    sys.path[:] = [p for p in sys.path if os.path.realpath(p or os.getcwd()) != here]
    sys.path.insert(0, import_path())
    import importlib.util

    spec = importlib.util.find_spec("sdk")
    if spec is None or not spec.origin:
        raise ImportError(
            "sdk is neither built in this checkout nor installed: run scripts/test.sh, or "
            "`pip install -e .` (or `pip install .`) first"
        )
    # Import the installed packages now: pytest puts the checkout back on sys.path when it
    # imports each test module (rootdir insertion), and a later first import would then find
    # the unbuilt source tree. Once in sys.modules, they stay the installed ones.
    import cpp_extension
    import sdk

    # A child `python -c`/`-m` puts its working folder first on sys.path: run from the folder
    # of links, never from the unbuilt checkout.
    os.chdir(import_path())
    for module in (sdk, cpp_extension):
        if Path(module.__file__).resolve().is_relative_to(Path(here)):
            raise ImportError(
                f"{module.__name__} resolved to the unbuilt checkout: {module.__file__}"
            )


def subprocess_env(**extra: str) -> dict[str, str]:
    """os.environ with the package under test importable (and tests/, examples/), plus `extra`."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [import_path(), env.get("PYTHONPATH")]))
    env.update(extra)
    return env


def run_python(
    code: str,
    *,
    timeout: float = 300,
    cwd: str | Path | None = None,
    check: bool = False,
    **env: str,
) -> subprocess.CompletedProcess:
    """Run `code` (dedented) in a fresh interpreter that sees the package under test."""
    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=subprocess_env(**env),
        cwd=str(cwd or import_path()),  # not the unbuilt checkout: '' is first on sys.path
    )
    if check and proc.returncode != 0:
        raise AssertionError(
            f"subprocess failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}"
        )
    return proc


def run_folder(tmp_path_factory, name: str) -> Path:
    """The folder `name` that every xdist worker of this pytest run shares (under the run's
    base temp folder, above each worker's own): an extension one worker builds there, through
    load()'s cache lock, the other loads instead of building it again."""
    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent  # .../pytest-N/popen-gwK: the run's folder is the parent
    folder = base / "shared" / name
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    return folder


def keeping() -> bool:
    """Whether builds outlive the run (`kept_folder`): unless SDK_TEST_CACHE=off."""
    return os.environ.get("SDK_TEST_CACHE", "").lower() not in ("0", "off", "no", "false")


def kept_folder(tmp_path_factory, name: str, *key: str) -> Path:
    """A folder that outlives the run, for builds whose staleness a build tool judges (ninja's
    command lines and header lists, a .gch's own checks): the porting corpus's builds, which a
    warm run then loads instead of compiling again. `key` names what those tools cannot see
    (the compiler and torch installed, the Python); a new key starts a new folder, and the
    folders of other keys go once unused for a day. Under `$SDK_TEST_CACHE`, else
    build/test-cache in the checkout; SDK_TEST_CACHE=off gives the run's own `run_folder`
    (every build cold)."""
    import hashlib

    if not keeping():
        return run_folder(tmp_path_factory, name)
    where = os.environ.get("SDK_TEST_CACHE", "")
    root = Path(where) if where else REPO / "build" / "test-cache"
    digest = hashlib.sha256("\0".join(key).encode()).hexdigest()[:12]
    folder = root / f"{name}-{digest}"
    for old in root.glob(f"{name}-*"):  # another key's, unused for a day
        if old != folder and re.fullmatch(re.escape(name) + "-[0-9a-f]{12}", old.name):
            with contextlib.suppress(OSError):  # another run may be removing it too
                if time.time() - old.stat().st_mtime > 86400:
                    shutil.rmtree(old, ignore_errors=True)
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    os.utime(folder)
    return folder


_CXX_AT_START = os.environ.get("CXX", "c++")  # not a test's own CXX, set while it runs


@functools.cache
def toolchain_key() -> tuple[str, ...]:
    """What a kept build depends on beyond its command lines: the compilers' versions and
    the Python (its extension suffix)."""
    key = [sysconfig.get_config_var("EXT_SUFFIX") or ""]
    for tool in (_CXX_AT_START, "nvcc"):
        try:
            out = subprocess.run([tool, "--version"], capture_output=True, text=True, timeout=60)
            key.append(f"{shutil.which(tool)} {out.stdout}")
        except (OSError, subprocess.SubprocessError):
            key.append(f"{tool}: none")
    return tuple(key)


def torch_key() -> tuple[str, ...]:
    """What a kept build of torch's depends on beyond its command lines: the toolchain and
    the torch installed (its version and place)."""
    return (*toolchain_key(), *_torch_keys())


@functools.cache
def _torch_keys() -> tuple[str, ...]:
    import importlib.metadata
    import importlib.util

    spec = importlib.util.find_spec("torch")
    try:
        return (importlib.metadata.version("torch"), str(spec and spec.origin))
    except importlib.metadata.PackageNotFoundError:
        return ("no torch",)


def sync_tree(src: Path, dst: Path) -> None:
    """Make `dst` a copy of `src` (files and folders only), writing only the files whose bytes
    differ and removing what `src` lacks: an unchanged file keeps its time stamp, so a build
    over `dst` redoes only what changed (a fresh copy would rebuild everything)."""
    dst.mkdir(parents=True, exist_ok=True)
    for path in sorted(dst.rglob("*"), reverse=True):  # children before their folders
        twin = src / path.relative_to(dst)
        if path.is_symlink() or path.is_dir() != twin.is_dir() or not twin.exists():
            shutil.rmtree(path) if path.is_dir() and not path.is_symlink() else path.unlink()
    for path in sorted(src.rglob("*")):  # folders before their children
        out = dst / path.relative_to(src)
        if path.is_symlink() or not (path.is_dir() or path.is_file()):
            raise ValueError(f"sync_tree copies files and folders only, not {path}")
        if path.is_dir():
            out.mkdir(exist_ok=True)
        elif not out.exists() or out.read_bytes() != path.read_bytes():
            shutil.copyfile(path, out)
            shutil.copymode(path, out)


def kept_source(folder: Path, name: str, text: str) -> Path:
    """`folder/name` holding `text`, rewritten only when its text changed (under a lock on
    `folder`, atomically), so that a kept build of it finds it as old as before and rebuilds
    nothing: a source the test writes from a string, built into a `kept_folder`."""
    path = folder / name
    with open(folder / ".source-lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not path.is_file() or path.read_text() != text:
            part = path.with_name(f".{name}.{os.getpid()}")
            part.write_text(text)
            os.replace(part, path)
    return path


def build_once(folder: Path, build: Callable[[Path], Path]) -> Path:
    """`build(folder)`'s result, built once per run under an exclusive lock on `folder` (a
    `run_folder`): later callers, in any worker or test file, wait for it and reuse it. A
    build that fails or skips records nothing, so the next caller tries (and fails) again."""
    with open(folder / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        done = folder / ".built"
        if done.is_file():
            return Path(done.read_text())
        out = build(folder)
        done.write_text(str(out))
        return out
