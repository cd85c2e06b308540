"""The porter's file handling: it reads only regular files inside SRC (never through a link
out of SRC, never a FIFO or device), and writes only below --out or over the file it read
(never through a link, never over an input).

Links below SRC are not followed. A link whose target lies inside the same SRC is copied as
a link into --out (relative, so that it points at the ported copy) and left alone in place
(its target is ported on its own); any other link (out of SRC, dangling, a loop) is skipped.
Both are reported with the reason. FIFOs, sockets and devices are skipped and reported. A
source larger than MAX_REWRITE bytes is not ported (a data file, or generated code): --out
copies it unchanged, by streaming, and the report says so.
"""

from __future__ import annotations

import os
import stat
import uuid
from dataclasses import dataclass
from pathlib import Path

from ..builder.trust import atomic_file

MAX_REWRITE = 16 << 20  # bytes: a larger source is copied unchanged, not read into memory
_OPEN_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_CLOEXEC", 0)
)


@dataclass
class Entry:
    """One walked path: a regular "file", a "link" to copy as a link (`link_text`, relative)
    or something to "skip"; `why` says why for links and skips."""

    path: Path
    rel: str
    kind: str
    why: str = ""
    link_text: str = ""


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def classify(path: Path, rel: str, roots: list[Path]) -> Entry:
    """What `path` is, by lstat (never following it), and what the porter does with it."""
    try:
        st = os.lstat(path)
    except OSError as e:
        return Entry(path, rel, "skip", f"skipped: cannot be read ({e.strerror})")
    if stat.S_ISREG(st.st_mode):
        return Entry(path, rel, "file")
    if not stat.S_ISLNK(st.st_mode):
        what = "a FIFO" if stat.S_ISFIFO(st.st_mode) else "a device, socket or other special file"
        return Entry(path, rel, "skip", f"skipped: {what}, not a regular file; never read")
    text = os.readlink(path)
    try:
        target = path.resolve(strict=True)
    except FileNotFoundError:
        return Entry(path, rel, "skip", f"skipped: a dangling link (to {text})")
    except (OSError, RuntimeError):  # ELOOP; Python < 3.13 raises RuntimeError for loops
        return Entry(path, rel, "skip", f"skipped: a link loop (to {text})")
    root = next((r for r in roots if _inside(path.parent.resolve(), r)), None)
    if root is None or not _inside(target, root):
        return Entry(
            path, rel, "skip", f"skipped: a link to {target}, outside SRC; links are not followed"
        )
    relative = os.path.relpath(target, path.parent.resolve())
    why = f"a link inside SRC (to {relative}): copied as a link, or left as it is in place"
    return Entry(path, rel, "link", why, link_text=relative)


class NotRegular(OSError):
    """What was a regular file when walked is a link or special file when opened."""


def open_regular(path: Path) -> tuple[int, os.stat_result]:
    """(fd, fstat) of the regular file `path`, opened without following a link and without
    blocking on a FIFO; NotRegular when it is something else now."""
    try:
        fd = os.open(path, _OPEN_FLAGS)
    except OSError as e:
        if os.path.islink(path):
            raise NotRegular(e.errno, "became a link; not followed", str(path)) from None
        raise
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        raise NotRegular(0, "not a regular file; not read", str(path))
    return fd, st


def read_fd(fd: int, size: int) -> bytes:
    """Up to `size` + 1 bytes from `fd` (one more shows that the file grew), and close it."""
    with os.fdopen(fd, "rb") as f:
        return f.read(size + 1)


def make_parents(out_dir: Path, rel: str) -> Path:
    """The folder of out_dir/rel, made as needed; ValueError when a folder on the way is a
    link or not a folder (the porter never writes through a link)."""
    out_dir.mkdir(parents=True, exist_ok=True)  # DIR itself: the user's own choice
    folder = out_dir
    for part in Path(rel).parts[:-1]:
        folder = folder / part
        try:
            st = os.lstat(folder)
        except FileNotFoundError:
            os.mkdir(folder)
            continue
        if stat.S_ISLNK(st.st_mode) or not stat.S_ISDIR(st.st_mode):
            raise ValueError(
                f"cpp_extension port: {folder} is {'a link' if stat.S_ISLNK(st.st_mode) else 'not a folder'};"  # noqa: E501
                " the porter never writes through one (remove it or choose another --out)"
            )
    return folder


def write_file(target: Path, data: bytes, mode: int) -> None:
    """Replace `target` with `data` (a fresh file renamed over it: a link there is replaced,
    never followed), with permission bits `mode`."""
    with atomic_file(target) as f:
        os.fchmod(f.fileno(), stat.S_IMODE(mode))
        f.write(data)


def copy_fd(fd: int, target: Path, mode: int) -> None:
    """Stream the open file `fd` into `target` (as write_file), 1 MiB at a time; closes fd."""
    with os.fdopen(fd, "rb") as src, atomic_file(target) as f:
        os.fchmod(f.fileno(), stat.S_IMODE(mode))
        while chunk := src.read(1 << 20):
            f.write(chunk)


def write_link(target: Path, text: str) -> None:
    """Make `target` a symbolic link with `text` (made under a fresh name, renamed over)."""
    tmp = target.with_name(f".{target.name}.{uuid.uuid4().hex[:12]}.tmp")
    os.symlink(text, tmp)
    try:
        os.replace(tmp, target)
    except OSError:
        os.unlink(tmp)
        raise


def check_targets(entries: list[Entry], roots: list[Path], out_dir: Path, base: Path) -> None:
    """ValueError unless every file --out writes lies outside the sources: DIR == SRC, or
    SRC inside DIR such that a copy would land in SRC (over an input, say), is refused; DIR
    inside SRC is fine (the walk leaves it out)."""
    for entry in entries:
        target = out_dir / entry.rel
        for root in roots:
            if _inside(target, root) and not (out_dir != root and _inside(out_dir, root)):
                raise ValueError(
                    f"cpp_extension port: --out {out_dir} would write {target}, inside the "
                    f"source folder {root} (from {base / entry.rel}); choose a DIR outside "
                    "SRC (or a new folder inside it), or use --in-place"
                )
