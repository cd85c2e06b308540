"""The JIT cache: where builds live, the content hash that decides a rebuild, the stamp on disk."""

from __future__ import annotations

import hashlib
import json
import os
import re
import sys
import time
from pathlib import Path

from . import trust as _trust
from .toolchain import TOOLCHAINS_FILE_NAME

STAMP_NAME = "build.stamp"
# Bump when the build recipe changes in a way the other hash inputs do not show.
RECIPE_VERSION = "1"
_INCLUDE = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*([<"])([^>"\n]+)[>"]', re.MULTILINE)


def extensions_root() -> Path:
    """$SDK_EXTENSIONS_DIR, else $TORCH_EXTENSIONS_DIR (what a torch user has set already;
    builds go to a sub-folder of their own there), else <XDG_CACHE_HOME or
    ~/.cache>/sdk_extensions."""
    env = os.environ.get("SDK_EXTENSIONS_DIR") or os.environ.get("TORCH_EXTENSIONS_DIR")
    if env:
        return Path(env).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
    return base / "sdk_extensions"


def toolchains_file() -> Path:
    """Where the cache remembers compiler identities and LTO failures (see _toolchain)."""
    return extensions_root() / TOOLCHAINS_FILE_NAME


def flavor(abi_major: int) -> str:
    """Cache sub-folder per Python version and core ABI major, e.g. py311_abi1."""
    return f"py{sys.version_info.major}{sys.version_info.minor}_abi{abi_major}"


def default_build_dir(name: str, abi_major: int) -> Path:
    return extensions_root() / flavor(abi_major) / name


def local_headers(roots: list[tuple[str, bytes]], include_dirs: list[str]) -> list[str]:
    """Headers that `roots` ((folder, text) of each source) include, transitively, found in
    the including file's folder (for "...") or in `include_dirs`. System headers are not
    scanned: the compiler identity and library versions stand for them."""
    seen: set[str] = set()
    found: list[str] = []
    todo = list(roots)
    while todo:
        here, text = todo.pop()
        for kind, name in _INCLUDE.findall(text):
            rel = name.decode(errors="replace").strip()
            dirs = ([here] if kind == b'"' else []) + include_dirs
            for d in dirs:
                cand = os.path.normpath(os.path.join(d, rel))
                if cand in seen:
                    break
                if os.path.isfile(cand):
                    seen.add(cand)
                    found.append(cand)
                    try:  # a regular file only: a FIFO or device there is never opened
                        todo.append((os.path.dirname(cand), _trust.read_regular(cand)))
                    except OSError:
                        pass
                    break
    return sorted(found)


def content_hash(inputs: list[tuple[str, bytes]], headers: list[str], config: dict) -> str:
    """sha256 over the configuration, each (label, text) source, and the headers' bytes."""
    h = hashlib.sha256()
    h.update(json.dumps(config, sort_keys=True, default=str).encode())
    for label, text in inputs:
        h.update(f"\0src\0{label}\0{len(text)}\0".encode())
        h.update(text)
    for p in headers:
        h.update(f"\0hdr\0{p}\0".encode())
        try:
            h.update(_trust.read_regular(p))
        except OSError:
            h.update(b"<missing>")
    return h.hexdigest()


def file_digest(path: Path) -> str | None:
    """sha256 of a built binary (about 1 ms per MB), or None when it cannot be read."""
    h = hashlib.sha256()
    try:
        with open(path, "rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                h.update(chunk)
    except OSError:
        return None
    return h.hexdigest()


def check_output(stamp: dict, digest: str, output: Path) -> str:
    """'fresh' (built from these inputs and intact), 'stale' (inputs changed or never
    built) or 'corrupt' (built from these inputs, but the binary on disk is not the one the
    build wrote: truncated, overwritten or deleted)."""
    if stamp.get("hash") != digest:
        return "stale"
    try:
        size = output.stat().st_size
    except OSError:
        return "corrupt"
    if size != stamp.get("output_size") or file_digest(output) != stamp.get("output_sha256"):
        return "corrupt"
    return "fresh"


def read_stamp(build_dir: Path) -> dict:
    try:
        stamp = json.loads(_trust.read_no_follow(build_dir / STAMP_NAME))
    except (OSError, ValueError):
        return {}
    return stamp if isinstance(stamp, dict) else {}


def write_stamp(build_dir: Path, digest: str, output: str, seconds: float) -> dict:
    """Record a successful build (after its output is in place): the last write of a build.
    The output's size and sha256 let a later load detect a damaged binary (not a planted
    one: whoever can write the folder can write the stamp too; the folder checks of
    _trust keep others out)."""
    old = read_stamp(build_dir)
    stamp = {
        "hash": digest,
        "output": output,
        "output_size": os.path.getsize(output),
        "output_sha256": file_digest(Path(output)),
        "built_at": time.time(),
        "build_seconds": round(seconds, 3),
        "builds": int(old.get("builds", 0)) + 1,
    }
    _trust.write_atomic(build_dir / STAMP_NAME, json.dumps(stamp, indent=1))
    return stamp
