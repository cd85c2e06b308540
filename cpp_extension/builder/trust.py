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

from .._errors import CacheError

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


def _others_may_write(st: os.stat_result, path: str | os.PathLike) -> str | None:
    """'everyone', 'group <name>' or 'user <name> (ACL)' when users besides the owner may
    write, else None: the mode bits, then the POSIX access ACL (which the mode bits do not
    show: `setfacl -m u:other:rwx` leaves them as they were for a private group)."""
    if st.st_mode & stat.S_IWOTH:
        return "everyone"
    if st.st_mode & stat.S_IWGRP and not _private_group(st.st_gid):
        return _group_name(st.st_gid)
    return _acl_writers(path, st)


def _group_name(gid: int) -> str:
    try:
        import grp

        return f"group {grp.getgrgid(gid).gr_name}"
    except (ImportError, KeyError):
        return f"group {gid}"


# system.posix_acl_access, as the kernel hands it out: a little-endian u32 version (2), then
# 8-byte entries (u16 tag, u16 permissions, u32 uid/gid) -- linux/posix_acl_xattr.h
_ACL_XATTR = "system.posix_acl_access"
_ACL_VERSION = 2
_ACL_USER, _ACL_GROUP_OBJ, _ACL_GROUP, _ACL_MASK = 0x02, 0x04, 0x08, 0x10
_ACL_WRITE = 0x02


def parse_acl(data: bytes) -> list[tuple[int, int, int]]:
    """(tag, permissions, id) of each entry of an ACL xattr; ValueError when malformed."""
    import struct

    if len(data) < 4 or (len(data) - 4) % 8:
        raise ValueError(f"an ACL of {len(data)} bytes is not a header and whole entries")
    (version,) = struct.unpack_from("<I", data)
    if version != _ACL_VERSION:
        raise ValueError(f"ACL version {version}, not {_ACL_VERSION}")
    return [struct.unpack_from("<HHI", data, off) for off in range(4, len(data), 8)]


def _acl_writers(path: str | os.PathLike, st: os.stat_result) -> str | None:
    """Who besides the owner may write `path` by its access ACL (named users and groups,
    and the owning group, each limited by the mask), else None. None too where the file
    system or platform has no ACLs (no xattr, or none set: the mode bits say it all)."""
    getxattr = getattr(os, "getxattr", None)
    if getxattr is None:
        return None
    try:
        data = getxattr(path, _ACL_XATTR, follow_symlinks=False)
    except OSError as e:
        if e.errno in (errno.ENODATA, errno.ENOTSUP, errno.EOPNOTSUPP, errno.ENOSYS):
            return None
        raise
    try:
        entries = parse_acl(data)
    except ValueError as e:
        return f"an ACL this check cannot read ({e})"
    mask = next((perm for tag, perm, _ in entries if tag == _ACL_MASK), 0o7)
    for tag, perm, ident in entries:
        if not perm & mask & _ACL_WRITE:
            continue
        if tag == _ACL_USER and ident not in (os.geteuid(), 0, st.st_uid):
            return f"user {_user_name(ident)} (by an ACL entry)"
        if tag == _ACL_GROUP and not _private_group(ident):
            return f"{_group_name(ident)} (by an ACL entry)"
        if tag == _ACL_GROUP_OBJ and not _private_group(st.st_gid):
            return f"{_group_name(st.st_gid)} (by an ACL entry)"
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
    who = _others_may_write(st, path)
    if who is not None:
        mode = stat.S_IMODE(st.st_mode)
        raise _refuse(
            path,
            f"{who} may write it (mode {mode:04o})",
            (f"setfacl -b {path}" if "ACL" in who else f"chmod go-w {path}")
            + " (after checking what is in it), or remove it",
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
    who = _others_may_write(st, path)
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


def check_cache(root: Path, build_dir: Path, *, create: bool = True) -> Path:
    """Check the folders from the cache root down to `build_dir` when it lies in the root,
    else the root (when it exists) and `build_dir` on its own, as its own root. Returns the
    physical build folder, the one checked (use it rather than `build_dir`).

    The paths are compared as given, never normalised: the kernel resolves ``att/../x`` by
    following ``att`` first, so ``..`` in a path is walked the same way here (see
    _trusted_path), and the folder checked is the folder used."""
    root_path = os.path.join(os.getcwd(), os.fspath(root)).rstrip("/")
    build_path = os.path.join(os.getcwd(), os.fspath(build_dir))
    rel = None
    if build_path.startswith(root_path + "/"):
        rel = [p for p in build_path[len(root_path) + 1 :].split("/") if p not in ("", ".")]
        if ".." in rel:
            rel = None
    if rel is not None:
        return trusted_folders(root, *rel, create=create)
    found = trusted_folders(build_dir, create=create)
    with contextlib.suppress(FileNotFoundError):
        # other files of the root (compiler identities, the precompiled header) are read
        # even when builds go elsewhere: checked when the root is there at all
        trusted_folders(root, create=False)
    return found


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


MAX_READ = 64 << 20  # bytes: sources, headers, stamps; more is not a file load() reads


class NotARegularFile(OSError):
    """A path that names something other than a regular file (a FIFO, a device, a folder),
    or one larger than the reader's limit: never read, whatever its permissions."""


def read_regular(path: Path, *, follow: bool = True, limit: int = MAX_READ) -> bytes:
    """The bytes of the regular file `path`. Opened with O_NONBLOCK (opening a FIFO cannot
    block) and, unless `follow`, O_NOFOLLOW; then fstat must show a regular file of at most
    `limit` bytes (a link to /dev/zero or a FIFO is refused before a byte is read).
    NotARegularFile then; other failures the usual OSError."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | _CLOEXEC | (0 if follow else _NOFOLLOW)
    fd = os.open(path, flags)
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise NotARegularFile(errno.EINVAL, "not a regular file; not read", str(path))
        if st.st_size > limit:
            raise NotARegularFile(
                errno.EFBIG, f"{st.st_size} bytes, more than the {limit} read", str(path)
            )
        data = f.read(limit + 1)
    if len(data) > limit:  # it grew while read
        raise NotARegularFile(errno.EFBIG, f"more than the {limit} bytes read", str(path))
    return data


def read_no_follow(path: Path) -> bytes:
    """The bytes of `path`, not following a symbolic link (OSError then, as when missing),
    a regular file only (see read_regular)."""
    return read_regular(path, follow=False)
