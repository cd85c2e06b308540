"""A precompiled <sdk/extension.h> (gcc), shared by the pybind11 JIT builds of one cache root.

Parsing pybind11 + the sdk headers is about 40% of a small extension's compile. The header
is precompiled once per key (``_runtime.key``: compiler, flags, pybind11, Python and sdk
headers) into ``<cache root>/pch/<key>/sdk_extension.h.gch`` and force-included
(``-include``) into a translation unit only when its source starts with
``#include <sdk/extension.h>`` (after comments and C++ standard headers, see
``starts_with_extension_header``): the force-include then changes nothing but the speed (gcc
falls back to the text header if it judges the .gch unusable).

The package holds one for the flags a default ``load()`` uses, compressed (see runtime.py):
the first build of a cache root with those flags unpacks it (~0.3 s) and uses it. For other
flags no build waits for one. A build that finds none compiles without it and, once it has
finished (run beside it, the job would slow it down), starts a detached background job at
the lowest priority that makes it, under a lock so that only one job per key runs; the
builds after use it. The same job then makes ``pybind11_runtime.o`` in that folder when the
one installed with the package (``sdk/lib``, see runtime.py) was not compiled under this
key: split-codegen links put it first so that pybind11's runtime is not generated again.
Every step writes its output atomically and never fails a build; a failure is remembered
(``failed``, ``pybind11_runtime.failed``) so that it is not retried.
``SDK_EXTENSIONS_NO_PCH=1`` turns all of this off, the installed runtime object included.

A .gch is large (~140 MB with gcc 12), and a new one appears whenever the flags, the compiler
or the sdk headers change (every upgrade), so only the ``KEEP`` most recently used ones are
kept: each use touches its file, and making a new one deletes the oldest beyond that.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import time
import uuid
from pathlib import Path
from typing import Callable, NamedTuple

from .._errors import CacheError
from . import cache as _cache
from . import lock as _lock
from . import runtime as _runtime
from . import toolchain as _toolchain
from . import trust as _trust

STUB = _runtime.PCH_STUB_NAME
RUNTIME = _runtime.OBJECT_NAME
BUSY = ".building"  # flock'ed by the background job while it runs
REJECTED = "installed-rejected"  # suffix of the note that a link failed on the installed object
KEEP = 3  # precompiled headers kept per cache root (see the module docstring)
_GRACE = 600.0  # seconds: a younger folder may be another process's build in progress
_DIRECTIVE = re.compile(rb"[ \t]*#[ \t]*(\w+)(.*)")
_EXTENSION_INCLUDE = re.compile(rb'[ \t]*[<"]sdk/extension\.h[>"]')
_STANDARD_INCLUDE = re.compile(rb"[ \t]*<[a-z_]+>[ \t]*$")  # <vector>, <cstdint>, <iostream>
_COMMENT = re.compile(rb"/\*.*?\*/|//[^\n]*", re.S)


def off_reason(compiler_ident: str, launcher: list[str] | tuple = ()) -> str | None:
    """Why builds here do not use the shared header, or None when they do.

    `launcher`: a compiler cache the user named (one found on PATH gives way to the header
    instead, see _toolchain.choose_launcher). Rationale for stepping aside under a compiler
    cache the user chose (ccache, sccache, say for a cache shared by machines): the header is
    force-included from the JIT cache's own folder, so its path is part of every compile
    command and differs between machines (and SDK_EXTENSIONS_DIRs): a shared compiler cache
    would never serve an object across them, and ccache refuses precompiled headers unless
    told to be sloppy. A cache hit skips the whole compile, which beats the header."""
    if os.environ.get("SDK_EXTENSIONS_NO_PCH", "") not in ("", "0"):
        return "SDK_EXTENSIONS_NO_PCH is set"
    if not _toolchain.is_gcc(compiler_ident):
        return "gcc only"
    if launcher:
        tool = os.path.basename(launcher[0])
        return (
            f"{tool} in use: the header's path is inside the JIT cache, so {tool} could not "
            "share objects between machines; cached objects skip the compile instead"
        )
    return None


def enabled(compiler_ident: str, launcher: list[str] | tuple = ()) -> bool:
    return off_reason(compiler_ident, launcher) is None


def starts_with_extension_header(text: bytes) -> bool:
    """Whether the first thing in `text` besides comments and C++ standard library headers
    is #include <sdk/extension.h>.

    Rationale: the precompiled header is force-included before everything, and the shared
    runtime object holds functions compiled without anything before the header. Standard
    headers (<vector>, <cmath>: a bare name) define nothing pybind11 or the sdk headers read,
    so both stay exact after them; a macro, a local header or any other line may not."""
    head = _COMMENT.sub(b" ", text[:8192])
    for line in head.splitlines():
        if not line.strip():
            continue
        m = _DIRECTIVE.match(line)
        if not m or m.group(1) != b"include":
            return False
        if _EXTENSION_INCLUDE.match(m.group(2)):
            return True
        if not _STANDARD_INCLUDE.match(m.group(2)):
            return False
    return False


def shadowed(cxx_flags: list[str], include_dir: str) -> bool:
    """Whether an include dir searched before the sdk's own has its own ``sdk/`` or
    ``pybind11/`` headers (say, an older release's): the shared .gch would then be the wrong
    header, and gcc does not notice."""
    for flag in cxx_flags:
        if not flag.startswith("-I"):
            continue
        d = flag[2:]
        if os.path.abspath(d) == os.path.abspath(include_dir):
            return False
        if os.path.isdir(os.path.join(d, "sdk")) or os.path.isdir(os.path.join(d, "pybind11")):
            return True
    return False


def pch_flags(cxx_flags: list[str]) -> list[str]:
    """The extension's C++ flags minus what differs between extensions (its name)."""
    return [f for f in cxx_flags if not f.startswith("-DSDK_EXTENSION_NAME=")]


class Pch:
    """Where the precompiled header of one flag set lives, and whether it is usable."""

    def __init__(self, cxx_flags: list[str], compiler_ident: str) -> None:
        self.flags = pch_flags(cxx_flags)
        self.include_dir = _toolchain.sdk_paths().include_dir
        self.key = _runtime.key(self.flags, compiler_ident, self.include_dir)
        self.dir = _cache.extensions_root() / "pch" / self.key
        self.stub = self.dir / STUB
        self.gch = self.dir / (STUB + ".gch")
        self.runtime = self.dir / RUNTIME

    @property
    def ready(self) -> bool:
        return self.gch.is_file()

    @property
    def failed(self) -> bool:
        return (self.dir / "failed").exists()

    @property
    def runtime_ready(self) -> bool:
        return self.runtime.is_file()

    @property
    def runtime_failed(self) -> bool:
        return (self.dir / "pybind11_runtime.failed").exists()

    def installed_runtime(self, compiler_ident: str) -> Path | None:
        """The runtime object installed with the package, when it fits these flags and no
        link has failed on it (see discard)."""
        lib_dir = _toolchain.sdk_paths().library_dir
        found = _runtime.installed_object(self.flags, compiler_ident, self.include_dir, lib_dir)
        if found is None or _rejected_marker(lib_dir).exists():
            return None
        return found

    def use_flags(self) -> list[str]:
        return ["-include", str(self.stub)]

    def touch(self) -> None:
        """Mark the .gch as just used (its mtime orders the eviction)."""
        try:
            os.utime(self.gch)
        except OSError:
            pass

    def evict_others(self) -> None:
        """Delete the least recently used precompiled headers beyond KEEP - 1 others."""
        entries = []
        for d in self.dir.parent.iterdir():
            if d == self.dir or not d.is_dir():
                continue
            try:
                gch = d / (STUB + ".gch")
                entries.append(((gch if gch.exists() else d).stat().st_mtime, d))
            except OSError:
                continue
        entries.sort(reverse=True)
        now = time.time()
        for mtime, d in entries[KEEP - 1 :]:
            if now - mtime > _GRACE:
                shutil.rmtree(d, ignore_errors=True)

    def check(self) -> None:
        """The cache root, pch/ and this key's folder pass _trust's checks (made 0700 when
        missing): what is in them is compiled into, and linked with, every pybind11 build.
        CacheError when one does not; OSError when one cannot be made."""
        _trust.trusted_folders(_cache.extensions_root(), "pch", self.key)

    def prepare(self) -> None:
        """Create the folder and the stub header the .gch is made from; drop the temp files
        of jobs killed long ago (a .gch one is ~140 MB)."""
        self.check()
        self.evict_others()
        now = time.time()
        for tmp in self.dir.glob("*.tmp"):
            try:
                if now - tmp.stat().st_mtime > _GRACE:
                    tmp.unlink()
            except OSError:
                pass
        _write_atomic(self.stub, _runtime.PCH_STUB)
        _trust.write_atomic(self.dir / "flags.txt", " ".join(map(shlex.quote, self.flags)) + "\n")

    def unpack_installed(self) -> bool:
        """Make the .gch from the compressed one installed with the package, when that was
        made under this key and no other process is making this key's now. True if made."""
        seed = _runtime.installed_pch(self.key, _toolchain.sdk_paths().library_dir)
        if seed is None:
            return False
        try:
            self.prepare()
        except CacheError:
            raise
        except OSError:
            return False  # an unwritable cache root
        fd = self._lock_busy()
        if fd is None:
            return False  # another process makes it: this build parses the header
        try:
            return self.ready or _runtime.unpack_pch(seed, self.gch)
        finally:
            os.close(fd)

    def _lock_busy(self) -> int | None:
        """A descriptor of BUSY under an exclusive flock, or None when another process holds
        it or the folder is unwritable; the caller closes it (which releases the lock)."""
        import fcntl

        try:
            fd = _trust.open_no_follow(self.dir / BUSY, os.O_RDWR | os.O_CREAT)
        except OSError:
            return None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return fd
        except OSError:
            os.close(fd)
            return None

    def build_command(self, compiler: list[str]) -> str:
        """A shell command that writes the .gch atomically and never fails (a failure is
        remembered in `failed` so that later builds do not retry it)."""
        argv = [*compiler, *self.flags, "-x", "c++-header", str(self.stub)]
        return _never_failing(argv, self.gch, self.dir / "failed")

    def runtime_command(self, compiler: list[str]) -> str:
        """Like build_command, for pybind11_runtime.o (compiled with the .gch, no -flto)."""
        source = self.dir / _runtime.SOURCE_NAME
        _write_atomic(source, _runtime.SOURCE)
        argv = [*compiler, *self.flags, *self.use_flags(), "-c", str(source)]
        return _never_failing(argv, self.runtime, self.dir / "pybind11_runtime.failed")

    def start_background(self, compiler: list[str], runtime: bool) -> bool:
        """Start the detached job that makes the .gch, then (with `runtime`) the runtime
        object, whichever is missing. Returns False when there is nothing to make or another
        job of this key is running. The job holds a lock on BUSY until it ends; it does not
        carry this build's token, so the next builder of this folder never stops it."""
        gch = not self.ready and not self.failed
        runtime = runtime and not self.runtime_ready and not self.runtime_failed
        if not gch and not runtime:
            return False
        self.prepare()
        steps = [self.build_command(compiler)] if gch else []
        steps += [self.runtime_command(compiler)] if runtime else []
        fd = self._lock_busy()
        if fd is None:
            return False  # another process's job is making them
        try:
            env = {k: v for k, v in os.environ.items() if k != _lock.TOKEN_ENV}
            # `( ... ) &` leaves a job that outlives this shell; the shell returns at once
            script = f"( {'; '.join(steps)} ) </dev/null >/dev/null 2>&1 &"
            # at the lowest priority: it must not slow what the user runs after the build
            nice = ["nice", "-n", "19"] if shutil.which("nice") else []
            subprocess.run(
                [*nice, "/bin/sh", "-c", script],
                pass_fds=(fd,),  # the job inherits the locked descriptor: busy while it runs
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,  # Ctrl-C in the caller's terminal does not reach it
                check=False,
            )
            return True
        finally:
            os.close(fd)

    def wait(self, timeout: float) -> bool:
        """Wait until no background job of this key runs; False on timeout."""
        return _wait_unlocked(self.dir / BUSY, timeout)


def _write_atomic(path: Path, text: str) -> None:
    if path.is_file() and path.read_text() == text:
        return
    _trust.write_atomic(path, text)


def _wait_unlocked(path: Path, timeout: float) -> bool:
    import fcntl

    try:
        fd = _trust.open_no_follow(path, os.O_RDONLY)
    except OSError:
        return True  # no job was ever started there
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
                return True
            except OSError:
                if time.monotonic() > deadline:
                    return False
                time.sleep(0.05)
    finally:
        os.close(fd)


def wait_for_background_jobs(timeout: float = 300.0, cache_root: Path | None = None) -> bool:
    """Wait for the background jobs of a cache root (default: this process's), as tests and
    benchmarks do to start from a settled cache. False if one still runs after `timeout` s."""
    deadline = time.monotonic() + timeout
    root = Path(cache_root or _cache.extensions_root()) / "pch"
    busy = sorted(root.glob(f"*/{BUSY}")) if root.is_dir() else []
    return all(_wait_unlocked(p, max(0.0, deadline - time.monotonic())) for p in busy)


def _never_failing(argv: list[str], output: Path, failed: Path) -> str:
    """`argv -o output` as a shell command that writes `output` atomically, prints nothing
    and always succeeds; a failure creates `failed` instead."""
    q = shlex.quote
    tmp = f"{output}.{uuid.uuid4().hex}.tmp"
    compile_cmd = " ".join(q(a) for a in [*argv, "-o", tmp])
    return (
        f"{{ {compile_cmd} && mv -f {q(tmp)} {q(str(output))}; }} >/dev/null 2>&1 "
        f"|| {{ rm -f {q(tmp)}; touch {q(str(failed))}; }} >/dev/null 2>&1 "
        "|| true"
    )


class Attached(NamedTuple):
    """What `attach` did to a build: the objects to put first on its link line, the
    background job to start once it has finished (None: nothing to make), and whether the
    shared header applies to it (used now, or once the job has made it)."""

    shared: list[str]
    start_job: Callable[[], object] | None = None
    applies: bool = False


def attach(plan, bridge: str, cxx_flags: list[str], toolchain, split: bool = False) -> Attached:
    """Make the C++ compiles of `plan` that start with <sdk/extension.h> use the shared
    precompiled header: the cache's when it is ready, else the package's unpacked into the
    cache when it has this key. What is still missing is made by a background job that the
    caller starts after its build (`start_job`): run beside the build, it would slow both.

    With `split` (link-time code generation), `shared` holds the objects to put first on the
    link line: the installed pybind11_runtime.o when it has this key, else the cache's.
    None of it under a compiler launcher the user named (see off_reason; one found on PATH
    gives way, see _plan.Toolchain.give_way). `toolchain`: the build's _plan.Toolchain."""
    if bridge != "pybind11":
        return Attached([])
    ident = toolchain.identity()
    if not enabled(ident, toolchain.fast_path_launcher):
        return Attached([])
    cxx_steps = [step for step in plan.compiles if step.language == "cxx"]
    steps = []
    for step in cxx_steps:
        try:  # a regular file only: a FIFO swapped in would block the open
            if starts_with_extension_header(_trust.read_regular(step.source)[:8192]):
                steps.append(step)
        except OSError:
            continue
    if not steps or shadowed(cxx_flags, _toolchain.sdk_paths().include_dir):
        return Attached([])
    try:
        pch = Pch(cxx_flags, ident)
        try:
            pch.check()  # before anything in the cache's folder is used
            usable = True
        except CacheError:
            raise  # someone else could have put something there: the build fails
        except OSError:
            usable = False  # an unwritable cache root, or a file in the way: none of it
        # every C++ source must start with the header: one that defines macros before it
        # could compile pybind11's functions differently from the shared object
        shares_runtime = split and len(steps) == len(cxx_steps)
        installed = pch.installed_runtime(ident) if shares_runtime else None
        if usable and (pch.ready or (not pch.failed and pch.unpack_installed())):
            pch.touch()
            for step in steps:
                step.flags = step.flags + pch.use_flags()
        shared = [str(installed)] if installed is not None else []
        if not shared and shares_runtime and usable and pch.runtime_ready:
            shared = [str(pch.runtime)]

        def start_job() -> None:
            try:
                pch.start_background(plan.compilers["cxx"], shares_runtime and not installed)
            except OSError:
                pass  # an unwritable cache root: no job, the installed object still serves

        return Attached(shared, start_job, applies=True)
    except CacheError:
        raise
    except (OSError, ImportError):
        return Attached([])  # an unwritable cache root or no pybind11: build without it


def _rejected_marker(lib_dir: str) -> Path:
    """The cache's note that a link failed on the installed runtime object of this key (a
    file beside the .gch folders, which eviction leaves alone)."""
    key = _runtime.installed_record(lib_dir).get("key", "none")
    return _cache.extensions_root() / "pch" / f"{key}.{REJECTED}"


def discard(shared: list[str]) -> None:
    """A link failed on these shared objects: delete the cache's (a later job makes it
    again); never touch the installed one (its folder may be read-only), mark it rejected
    in the cache instead."""
    lib_dir = _toolchain.sdk_paths().library_dir
    for p in map(Path, shared):
        if p.parent != Path(lib_dir):
            p.unlink(missing_ok=True)
            continue
        try:
            marker = _rejected_marker(lib_dir)
            _trust.trusted_folders(_cache.extensions_root(), "pch")
            os.close(_trust.open_no_follow(marker, os.O_WRONLY | os.O_CREAT))
        except OSError:
            pass
