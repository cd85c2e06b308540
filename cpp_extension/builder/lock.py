"""Build-folder locks: fcntl.flock between processes, a threading lock within one.

Rationale: a lock held by the kernel on an open file dies with its process,
so a builder killed mid-compile can never block later loads (unlike a lock
*file* whose existence is the lock). Compilers orphaned by such a kill are
found by a token in their environment and stopped before the next build.
"""

from __future__ import annotations

import contextlib
import errno
import os
import signal
import threading
from collections.abc import Iterator
from pathlib import Path

# by name, not `from . import`: setup.py loads this file without its package
from .trust import FOLDER_MODE, open_no_follow, read_no_follow, write_atomic

LOCK_NAME = ".lock"
BUILDER_NAME = ".builder"
TOKEN_ENV = "SDK_EXTENSIONS_BUILD_TOKEN"

_registry_guard = threading.Lock()
_thread_locks: dict[str, threading.RLock] = {}


def thread_lock(build_dir: Path) -> threading.RLock:
    """One lock per build folder for the threads of this process."""
    key = os.path.realpath(build_dir)
    with _registry_guard:
        lock = _thread_locks.get(key)
        if lock is None:
            lock = _thread_locks[key] = threading.RLock()
        return lock


@contextlib.contextmanager
def file_lock(build_dir: Path, exclusive: bool) -> Iterator[None]:
    """Hold flock on <build_dir>/.lock: shared to read the cache, exclusive to build.

    In a folder this process cannot write, a shared lock is taken through a read-only
    descriptor (or skipped when the lock file was never made: then nobody builds there),
    so that a read-only cache still serves its up-to-date builds. A symbolic link in place
    of the lock file is a CacheError (see _trust.open_no_follow)."""
    import fcntl

    from .._errors import CacheError

    lock = build_dir / LOCK_NAME
    try:
        build_dir.mkdir(mode=FOLDER_MODE, parents=True, exist_ok=True)
        fd = open_no_follow(lock, os.O_RDWR | os.O_CREAT)
    except CacheError:
        raise
    except OSError as e:
        if exclusive or e.errno not in (errno.EACCES, errno.EPERM, errno.EROFS):
            raise
        try:
            fd = open_no_follow(lock, os.O_RDONLY)
        except CacheError:
            raise
        except OSError:
            yield
            return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
        yield
    finally:
        os.close(fd)  # closing the last descriptor releases the lock


def start_builder(build_dir: Path) -> dict[str, str]:
    """Record a token for this build; returns the environment to run the build with."""
    token = os.urandom(16).hex()
    write_atomic(build_dir / BUILDER_NAME, f"{token}\n{os.getpid()}\n")
    env = dict(os.environ)
    env[TOKEN_ENV] = token
    return env


def finish_builder(build_dir: Path) -> None:
    with contextlib.suppress(FileNotFoundError):
        (build_dir / BUILDER_NAME).unlink()


def reap_stale_builder(build_dir: Path) -> int:
    """Kill what is left of a builder that died mid-build; returns how many processes.

    Called with the exclusive lock held, so any recorded builder is dead (or
    it would still hold the lock) and its compilers are orphans that would
    otherwise keep writing into this folder.
    """
    marker = build_dir / BUILDER_NAME
    try:
        token = read_no_follow(marker).decode().split()[0]
    except (OSError, IndexError, UnicodeDecodeError):
        return 0
    needle = f"{TOKEN_ENV}={token}".encode()
    killed = 0
    for pid in _pids():
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                if needle not in f.read().split(b"\0"):
                    continue
            os.kill(pid, signal.SIGKILL)
            killed += 1
        except (OSError, ProcessLookupError):
            continue
    finish_builder(build_dir)
    return killed


def _pids() -> list[int]:
    try:
        return [int(p) for p in os.listdir("/proc") if p.isdigit() and int(p) != os.getpid()]
    except OSError:
        return []


def parent_death_hook():
    """A preexec_fn giving the child (ninja) SIGKILL when the builder dies (Linux), or None.

    libc is resolved here, in the parent, so the child only makes one call.
    """
    try:
        import ctypes

        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    pr_set_pdeathsig = 1

    def hook() -> None:
        prctl(pr_set_pdeathsig, int(signal.SIGKILL), 0, 0, 0)

    return hook
