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

With split code generation (see ``_toolchain.split_codegen_jobs``) the folder also gets
``pybind11_runtime.o``: a plain (not LTO) object of a stub module that holds the functions
every pybind11 module compiles again (pybind11's dispatcher, signatures, errors, internals,
the sdk casters). Put first on a link line, its copies of those inline (COMDAT) functions
prevail, so the link-time code generation skips them (the LLTM op's link: 1.8 -> 0.9 s). It
is made from the same headers and flags as the .gch, so the copies are the same functions; it
is built, from the .gch, by the first build that finds the .gch, beside that build's own
compile and link, and used by the builds after. Its module's entry point is hidden: it adds
no exported symbol. A link that fails on it deletes it and links without it.
``SDK_EXTENSIONS_NO_PCH=1`` turns it off with the .gch.

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
RUNTIME = "pybind11_runtime"
# The stub module whose object holds pybind11's per-module runtime. Its entry point is
# compiled hidden; the signatures are the common ones of extensions (tensors, lists and
# tuples of them, scalars, strings), whose casters are then shared too.
RUNTIME_SOURCE = """// compiled by cpp_extension once per precompiled header; see _pch.py
#include <sdk/extension.h>

#include <optional>
#include <string>
#include <tuple>
#include <vector>

#undef PYBIND11_EXPORT
#define PYBIND11_EXPORT __attribute__((visibility("hidden")))

namespace sdk_pybind11_runtime {
sdk::Tensor one(sdk::Tensor x, double a, int64_t n, bool b) { return x; }
std::vector<sdk::Tensor> many(std::vector<sdk::Tensor> xs, sdk::Scalar s) { return xs; }
std::tuple<sdk::Tensor, sdk::Tensor> two(const sdk::Tensor& x, std::optional<sdk::Tensor> y) {
  return {x, x};
}
std::string text(const std::string& s, int i) { return s; }
}  // namespace sdk_pybind11_runtime

PYBIND11_MODULE(sdk_pybind11_runtime_stub, m) {
  namespace r = sdk_pybind11_runtime;
  m.doc() = "never imported";
  m.def("one", &r::one, "doc", pybind11::arg("x"), pybind11::arg("a") = 1.0,
        pybind11::arg("n") = 0, pybind11::arg("b") = false);
  m.def("many", &r::many, "doc");
  m.def("two", &r::two, "doc");
  m.def("text", &r::text, "doc");
}
"""
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
        self.runtime = self.dir / (RUNTIME + ".o")

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
        return (self.dir / (RUNTIME + ".failed")).exists()

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
        argv = [*compiler, *self.flags, "-x", "c++-header", str(self.stub)]
        return _never_failing(argv, self.gch, self.dir / "failed")

    def runtime_command(self, compiler: list[str]) -> str:
        """Like build_command, for pybind11_runtime.o (compiled with the .gch, no -flto)."""
        source = self.dir / (RUNTIME + ".cpp")
        if not source.is_file() or source.read_text() != RUNTIME_SOURCE:
            tmp = source.with_name(f"{source.name}.{uuid.uuid4().hex}.tmp")
            tmp.write_text(RUNTIME_SOURCE)
            os.replace(tmp, source)
        argv = [*compiler, *self.flags, *self.use_flags(), "-c", str(source)]
        return _never_failing(argv, self.runtime, self.dir / (RUNTIME + ".failed"))


def _never_failing(argv: list[str], output: Path, failed: Path) -> str:
    """`argv -o output` as a shell command that writes `output` atomically, prints nothing
    and always succeeds; a failure creates `failed` instead."""
    q = shlex.quote
    tmp = f"{output}.{uuid.uuid4().hex}.tmp"
    compile_cmd = " ".join(q(a) for a in [*argv, "-o", tmp])
    return (
        f"( {compile_cmd} && mv -f {q(tmp)} {q(str(output))} ) >/dev/null 2>&1 "
        f"|| {{ rm -f {q(tmp)}; touch {q(str(failed))}; }} >/dev/null 2>&1 "
        "|| true"
    )


def attach(
    plan, bridge: str, cxx_flags: list[str], compiler: list[str], jobs: int, split: bool = False
) -> list[str]:
    """Make the C++ compiles of `plan` that start with <sdk/extension.h> use the shared
    precompiled header, or add a step that builds it when a job slot is free.

    With `split` (link-time code generation), returns the objects to put first on the link
    line: pybind11_runtime.o when it is ready (a step builds it when it is not)."""
    if bridge != "pybind11":
        return []
    ident = _toolchain.compiler_identity(compiler, _cache.extensions_root() / "toolchains.json")
    if not enabled(ident):
        return []
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
        return []
    try:
        pch = Pch(cxx_flags, ident)
        free = len(plan.compiles) < jobs  # a job slot the extension's own compiles leave
        if not pch.ready:
            if not pch.failed and free:
                pch.prepare()
                plan.commands.append((str(pch.gch), pch.build_command(plan.compilers["cxx"])))
            return []
        pch.touch()
        for step in steps:
            step.flags = step.flags + pch.use_flags()
        # every C++ source must start with the header: one that defines macros before it
        # could compile pybind11's functions differently from the shared object
        if not split or len(steps) != sum(1 for st in plan.compiles if st.language == "cxx"):
            return []
        if pch.runtime_ready:
            return [str(pch.runtime)]
        if free and not pch.runtime_failed:
            # made beside this build's compile and link, for the builds after (waiting for
            # it would cost this one more than its shorter link saves)
            plan.commands.append((str(pch.runtime), pch.runtime_command(plan.compilers["cxx"])))
        return []
    except (OSError, ImportError):
        return []  # an unwritable cache root or no pybind11: build without it
