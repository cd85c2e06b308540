"""Whom the JIT cache trusts: the folder checks load() makes, and files written without
following symbolic links.

The cache holds binaries that load() imports, so whoever can write a folder on the way to
one runs code in every process that loads it. The rules (docs/DESIGN.md, "Security"):

- The cache root and every folder below it that load() uses (a build folder, ``pch/`` and
  ``pch/<key>/`` with the shared precompiled header and runtime object) must be a real
  folder (not a symbolic link), owned by this user (or root), and writable by nobody else.
  Group write is allowed only for the user's own private group (``umask 002`` systems,
  where a user's group has no other member). A missing folder is created with mode 0700.
- The folders above the root (each folder a name of the path is looked up in, links
  followed) may belong only to someone trusted anyway (this user or root) and may be
  writable by others only with the sticky bit (``/tmp``): otherwise another user could
  rename the root away and put their own in its place between a check and a use. A link on
  the way must be this user's or root's too (its owner can point it elsewhere).
- Anything else raises CacheError naming the folder, what is wrong and the fix.

Files the cache writes are made under a fresh name with O_CREAT | O_EXCL | O_NOFOLLOW and
renamed into place (a symbolic link at the final name is replaced, never followed), and
files it opens in place (locks) are opened with O_NOFOLLOW.

This module imports only the standard library and ``_errors``: setup.py loads it by name.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import uuid
from collections.abc import Iterator
from pathlib import Path

from ._errors import CacheError

FOLDER_MODE = 0o700
FILE_MODE = 0o666  # less the umask: the 0700 folders keep what is in them private
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_private_groups: dict[int, bool] = {}


def _user_name(uid: int) -> str:
    try:
        import pwd

        return pwd.getpwuid(uid).pw_name
    except (ImportError, KeyError):
        return f"uid {uid}"


def _owner(st: os.stat_result) -> str:
    name = _user_name(st.st_uid)
    return name if name.startswith("uid ") else f"{name} (uid {st.st_uid})"


def _private_group(gid: int) -> bool:
    """Whether `gid` is this user's own group, with no other member (a user private group,
    which umask 002 systems make every folder group-writable for). Looked up once."""
    found = _private_groups.get(gid)
    if found is None:
        found = False
        try:
            import grp
            import pwd

            user = pwd.getpwuid(os.geteuid())
            group = grp.getgrgid(gid)
            found = (
                gid == user.pw_gid
                and group.gr_name == user.pw_name
                and set(group.gr_mem) <= {user.pw_name}
            )
        except (ImportError, KeyError):
            pass
        _private_groups[gid] = found
    return found


def _trusted_owner(st: os.stat_result) -> bool:
    return st.st_uid in (os.geteuid(), 0)


def _others_may_write(st: os.stat_result) -> str | None:
    """'everyone' or 'group <name>' when users besides the owner may write, else None."""
    if st.st_mode & stat.S_IWOTH:
        return "everyone"
    if st.st_mode & stat.S_IWGRP and not _private_group(st.st_gid):
        try:
            import grp

            return f"group {grp.getgrgid(st.st_gid).gr_name}"
        except (ImportError, KeyError):
            return f"group {st.st_gid}"
    return None


def _refuse(path: Path, problem: str, fix: str) -> CacheError:
    return CacheError(
        f"Refusing to use the JIT cache folder {path}: {problem}. Another user could put a "
        f"binary there that load() would run. Fix: {fix}, or set SDK_EXTENSIONS_DIR to a "
        "folder of your own (see 'Security' in the README).",
        None,
        str(path),
    )


def check_folder(path: Path, st: os.stat_result | None = None) -> None:
    """CacheError unless `path` is a real folder owned by this user (or root) that nobody
    else may write (see the module doc); NotADirectoryError for something else that is not
    a link (a file). `st`: its lstat when the caller has it."""
    if st is None:
        st = os.lstat(path)
    if stat.S_ISLNK(st.st_mode):
        target = os.readlink(path)
        raise _refuse(
            path,
            f"it is a symbolic link (to {target})",
            f"point SDK_EXTENSIONS_DIR (or build_directory=) at the real folder, "
            f"{os.path.realpath(path)}, after checking that it is yours",
        )
    if not stat.S_ISDIR(st.st_mode):  # unusable, not a way in: the usual OSError
        raise NotADirectoryError(
            errno.ENOTDIR, "Not a folder, where the JIT cache needs one", str(path)
        )
    if not _trusted_owner(st):
        raise _refuse(
            path,
            f"it belongs to {_owner(st)}, not to you ({_user_name(os.geteuid())})",
            "remove it (as its owner) and let load() create it again",
        )
    who = _others_may_write(st)
    if who is not None:
        mode = stat.S_IMODE(st.st_mode)
        raise _refuse(
            path,
            f"{who} may write it (mode {mode:04o})",
            f"chmod go-w {path} (after checking what is in it), or remove it",
        )


def _check_ancestor(path: str, st: os.stat_result) -> None:
    """A folder above the cache root: owned by this user or root, and writable by others
    only with the sticky bit (then they cannot rename what is ours in it)."""
    if not _trusted_owner(st):
        raise _refuse(
            Path(path),
            f"this folder above the cache belongs to {_owner(st)}, who could replace what is in it",
            "put the cache in a folder of your own",
        )
    who = _others_may_write(st)
    if who is not None and not st.st_mode & stat.S_ISVTX:
        raise _refuse(
            Path(path),
            f"{who} may write this folder above the cache (mode "
            f"{stat.S_IMODE(st.st_mode):04o}, no sticky bit), and so replace the cache in it",
            "put the cache in a folder of your own",
        )


def _make_folder(path: Path) -> os.stat_result:
    """Create `path` with mode 0700 (a concurrent creator is fine: the check follows)."""
    try:
        os.mkdir(path, FOLDER_MODE)
    except FileExistsError:
        pass
    return os.lstat(path)


def _trusted_path(path: str, create: bool) -> str:
    """The physical path of the folder `path` (absolute), found as the kernel finds it, name
    by name: every folder a name is looked up in must pass _check_ancestor and every link
    followed must be this user's or root's, so that no other user can redirect the path.
    Missing folders are made (mode 0700) with `create`, else FileNotFoundError."""
    todo = [p for p in path.split("/") if p][::-1]  # a stack: the next name last
    current = "/"
    _check_ancestor(current, os.lstat(current))
    links = 0
    while todo:
        name = todo.pop()
        if name == ".":
            continue
        if name == "..":  # `current` is physical and was checked: so is its parent
            current = os.path.dirname(current)
            continue
        candidate = os.path.join(current, name)
        try:
            st = os.lstat(candidate)
        except FileNotFoundError:
            if not create:
                raise
            st = _make_folder(candidate)
        if stat.S_ISLNK(st.st_mode):
            links += 1
            if links > 40:
                raise OSError(errno.ELOOP, os.strerror(errno.ELOOP), path)
            if not _trusted_owner(st):
                raise _refuse(
                    Path(candidate),
                    f"this link above the cache belongs to {_owner(st)}, who could point it "
                    "elsewhere",
                    "put the cache in a folder of your own",
                )
            target = os.readlink(candidate)
            if target.startswith("/"):
                current = "/"
            todo.extend([p for p in target.split("/") if p][::-1])
            continue
        _check_ancestor(candidate, st)
        current = candidate
    return current


def trusted_folders(root: Path, *below: str, create: bool = True) -> Path:
    """Check the cache root, its ancestors and root/below[0]/below[1]/... (see the module
    doc), creating the missing ones (mode 0700) with `create`; returns the last folder.

    CacheError when one fails a check; OSError (FileNotFoundError without `create`,
    PermissionError in a read-only place) when one cannot be made. A few us per folder."""
    root_path = os.path.join(os.getcwd(), os.fspath(root))  # not normalised: ".." as the
    head, name = os.path.split(root_path.rstrip("/"))  # kernel resolves it
    if name in ("", ".", ".."):
        head, name = os.path.split(_trusted_path(root_path, create))
    folder = Path(_trusted_path(head, create)) / name if name else Path("/")
    for part in ("", *below):
        if part:
            folder = folder / part
        try:
            st = os.lstat(folder)
        except FileNotFoundError:
            if not create:
                raise
            st = _make_folder(folder)
        check_folder(folder, st)
    return folder


def check_cache(root: Path, build_dir: Path, *, create: bool = True) -> None:
    """Check the folders from the cache root down to `build_dir` when it lies in the root,
    else the root (when it exists) and `build_dir` on its own, as its own root."""
    root = Path(os.path.abspath(root))
    build_dir = Path(os.path.abspath(build_dir))
    try:
        rel = build_dir.relative_to(root)
    except ValueError:
        rel = None
    if rel is not None:
        trusted_folders(root, *rel.parts, create=create)
        return
    trusted_folders(build_dir, create=create)
    with contextlib.suppress(FileNotFoundError):
        # other files of the root (compiler identities, the precompiled header) are read
        # even when builds go elsewhere: checked when the root is there at all
        trusted_folders(root, create=False)


# ------------------------------------------------------------------------------ files


@contextlib.contextmanager
def atomic_file(path: Path, mode: int = FILE_MODE) -> Iterator:
    """A binary file object whose contents replace `path` when the block ends without an
    exception: written under a fresh name (O_EXCL | O_NOFOLLOW: no file or link there is
    ever followed or truncated) then renamed over `path`. On failure `path` stays as it
    was and the temporary file is removed."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex[:12]}.tmp")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC
    fd = os.open(tmp, flags, mode)
    try:
        with os.fdopen(fd, "wb") as f:
            yield f
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def write_atomic(path: Path, data: bytes | str, mode: int = FILE_MODE) -> None:
    """Replace `path` with `data` (see atomic_file)."""
    with atomic_file(path, mode) as f:
        f.write(data.encode() if isinstance(data, str) else data)


def copy_atomic(src: Path, dst: Path, mode: int = FILE_MODE) -> None:
    """Replace `dst` with a copy of `src` (see atomic_file)."""
    import shutil

    with open(src, "rb") as s, atomic_file(dst, mode) as d:
        shutil.copyfileobj(s, d, 1 << 20)


def open_no_follow(path: Path, flags: int, mode: int = FILE_MODE) -> int:
    """os.open(path, flags | O_NOFOLLOW | O_CLOEXEC); a symbolic link there is a CacheError
    naming it (the cache never makes one), other failures the usual OSError."""
    try:
        return os.open(path, flags | _NOFOLLOW | _CLOEXEC, mode)
    except OSError as e:
        if e.errno == errno.ELOOP or (e.errno == errno.EMLINK and os.path.islink(path)):
            raise CacheError(
                f"Refusing to open {path}: it is a symbolic link (to {os.readlink(path)}), "
                "which the JIT cache never makes; someone put it there to make load() write "
                f"elsewhere. Fix: remove it (rm {path}) after checking the folder.",
                None,
                str(Path(path).parent),
            ) from None
        raise


def read_no_follow(path: Path) -> bytes:
    """The bytes of `path`, not following a symbolic link (OSError then, as when missing)."""
    fd = os.open(path, os.O_RDONLY | _NOFOLLOW | _CLOEXEC)
    with os.fdopen(fd, "rb") as f:
        return f.read()
