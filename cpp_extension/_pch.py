"""A precompiled <sdk/extension.h> (gcc), shared by the pybind11 JIT builds of one cache root.

Parsing pybind11 + the sdk headers is about 40% of a small extension's compile. The header
is precompiled once per (compiler, flags, pybind11, Python headers, sdk headers) into
``<cache root>/pch/<key>/sdk_extension.h.gch`` and force-included (``-include``) into a
translation unit only when the first preprocessing directive of its source already is
``#include <sdk/extension.h>``: the force-include then changes nothing but the speed (gcc
falls back to the text header if it judges the .gch unusable).

The first build that lacks it builds it in the same ninja graph, in parallel with the
extension's own compiles, when a job slot is free; it never fails the build.
``SDK_EXTENSIONS_NO_PCH=1`` turns all of this off.

A .gch is large (~140 MB with gcc 12), and a new one appears whenever the flags, the compiler
or the sdk headers change (every upgrade), so only the ``KEEP`` most recently used ones are
kept: each use touches its file, and making a new one deletes the oldest beyond that.
"""

from __future__ import annotations

import hashlib
import os
import re
import shlex
import shutil
import sys
import time
import uuid
from pathlib import Path

from . import _cache, _toolchain

STUB = "sdk_extension.h"
KEEP = 3  # precompiled headers kept per cache root (see the module docstring)
_GRACE = 600.0  # seconds: a younger folder may be another process's build in progress
_DIRECTIVE = re.compile(rb"[ \t]*#[ \t]*(\w+)(.*)")
_EXTENSION_INCLUDE = re.compile(rb'[ \t]*[<"]sdk/extension\.h[>"]')
_COMMENT = re.compile(rb"/\*.*?\*/|//[^\n]*", re.S)


def enabled(compiler_ident: str) -> bool:
    if os.environ.get("SDK_EXTENSIONS_NO_PCH", "") not in ("", "0"):
        return False
    return _toolchain.is_gcc(compiler_ident)


def starts_with_extension_header(text: bytes) -> bool:
    """Whether the first thing in `text` besides comments is #include <sdk/extension.h>."""
    head = _COMMENT.sub(b" ", text[:8192])
    for line in head.splitlines():
        if not line.strip():
            continue
        m = _DIRECTIVE.match(line)
        return bool(m and m.group(1) == b"include" and _EXTENSION_INCLUDE.match(m.group(2)))
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


def _key(flags: list[str], compiler_ident: str, include_dir: str) -> str:
    import pybind11

    h = hashlib.sha256()
    for part in (compiler_ident, "\0".join(flags), pybind11.__version__, sys.version):
        h.update(part.encode() + b"\n")
    # gcc does not check the headers a .gch was made from: their contents are in the key
    sdk_headers = Path(include_dir, "sdk")
    for header in sorted(sdk_headers.glob("*.h")):
        h.update(header.name.encode() + b"\0" + header.read_bytes())
    return h.hexdigest()[:20]


class Pch:
    """Where the precompiled header of one flag set lives, and whether it is usable."""

    def __init__(self, cxx_flags: list[str], compiler_ident: str) -> None:
        self.flags = pch_flags(cxx_flags)
        include_dir = _toolchain.sdk_paths().include_dir
        self.dir = _cache.extensions_root() / "pch" / _key(self.flags, compiler_ident, include_dir)
        self.stub = self.dir / STUB
        self.gch = self.dir / (STUB + ".gch")

    @property
    def ready(self) -> bool:
        return self.gch.is_file()

    @property
    def failed(self) -> bool:
        return (self.dir / "failed").exists()

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

    def prepare(self) -> None:
        """Create the folder and the stub header the .gch is made from."""
        self.dir.mkdir(parents=True, exist_ok=True)
        self.evict_others()
        text = "// precompiled by cpp_extension for the flags in flags.txt\n"
        text += "#include <sdk/extension.h>\n"
        if not self.stub.is_file() or self.stub.read_text() != text:
            tmp = self.stub.with_name(f"{STUB}.{uuid.uuid4().hex}.tmp")
            tmp.write_text(text)
            os.replace(tmp, self.stub)
        (self.dir / "flags.txt").write_text(" ".join(shlex.quote(f) for f in self.flags) + "\n")

    def build_command(self, compiler: list[str]) -> str:
        """A shell command that writes the .gch atomically and never fails the build (a
        failure is remembered in `failed` so that later builds do not retry it)."""
        tmp = f"{self.gch}.{uuid.uuid4().hex}.tmp"
        q = shlex.quote
        compile_cmd = " ".join(
            q(a) for a in [*compiler, *self.flags, "-x", "c++-header", str(self.stub), "-o", tmp]
        )
        return (
            f"( {compile_cmd} && mv -f {q(tmp)} {q(str(self.gch))} ) >/dev/null 2>&1 "
            f"|| {{ rm -f {q(tmp)}; touch {q(str(self.dir / 'failed'))}; }} >/dev/null 2>&1 "
            "|| true"
        )


def attach(plan, bridge: str, cxx_flags: list[str], compiler: list[str], jobs: int) -> None:
    """Make the C++ compiles of `plan` that start with <sdk/extension.h> use the shared
    precompiled header, or add a step that builds it when a job slot is free."""
    if bridge != "pybind11":
        return
    ident = _toolchain.compiler_identity(compiler, _cache.extensions_root() / "toolchains.json")
    if not enabled(ident):
        return
    steps = []
    for step in plan.compiles:
        if step.language != "cxx":
            continue
        try:
            with open(step.source, "rb") as f:
                if starts_with_extension_header(f.read(8192)):
                    steps.append(step)
        except OSError:
            continue
    if not steps or shadowed(cxx_flags, _toolchain.sdk_paths().include_dir):
        return
    try:
        pch = Pch(cxx_flags, ident)
        if pch.ready:
            pch.touch()
            for step in steps:
                step.flags = step.flags + pch.use_flags()
        elif not pch.failed and len(plan.compiles) < jobs:
            pch.prepare()
            plan.commands.append((str(pch.gch), pch.build_command(plan.compilers["cxx"])))
    except (OSError, ImportError):
        return  # an unwritable cache root or no pybind11: build without it
