"""What setup.py compiles once for the flags load() uses by default: pybind11's per-module
runtime object and the precompiled <sdk/extension.h>; their sources, their key, the installed
copies.

Every pybind11 module compiles pybind11's runtime again (the dispatcher, signatures, error
handling, internals, and here the sdk casters): ~85% of an extension object's machine code.
An object of a stub module holding those inline (COMDAT) functions, put first on a link line
with split code generation (``_toolchain.split_codegen_jobs``), makes its copies prevail, so
the link does not generate them again (the LLTM op's link: 1.8 -> 0.9 s).

Two places keep one:
- ``sdk/lib/pybind11_runtime.o`` with its key in ``pybind11_runtime.key``, compiled when the
  package is built (setup.py) for the flags ``load()`` uses by default. This is what makes a
  first build fast: nothing has to be made for it.
- ``<cache root>/pch/<key>/pybind11_runtime.o``, made in the background after a build whose
  flags the installed one does not match (see pch.py).

The precompiled header (see pch.py) is ~140 MB, so the package holds it compressed
(``sdk_extension.h.gch.zlib``, ~22 MB, key in ``sdk_extension.h.gch.key``): the first build
of a cache root whose flags have its key unpacks it into the cache (~0.3 s) instead of parsing
pybind11 (~2 s) and starting a job to make one.

The key is independent of where the headers are (a package is built in one folder and
installed in another) and depends on what they say: the compiler's identity, the flags with
the sdk, pybind11 and Python include folders replaced by names, the contents of the sdk and
pybind11 headers, and the Python build. Copies of the same inline functions from another
key would break the one-definition rule, so an object is only ever used under its own key;
a precompiled header is only ever used under its own key too (gcc would take one made with
other headers without a word).

This module is loaded by setup.py before the package exists: it imports only the standard
library and ``_toolchain`` (which imports only ``_errors``), by name.
"""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

# names, not `from . import`: setup.py loads this file without its package
from .toolchain import (
    CXX_FLAGS,
    GCC_SPEED_ARGS,
    TOOLCHAINS_FILE_NAME,
    BuildError,
    compiler_command,
    compiler_identity,
    is_gcc,
    python_include_dirs,
)
from .trust import atomic_file

SOURCE_NAME = "pybind11_runtime.cpp"
OBJECT_NAME = "pybind11_runtime.o"
KEY_NAME = "pybind11_runtime.key"
PCH_STUB_NAME = "sdk_extension.h"  # precompiled as <stub>.gch, force-included (-include)
PCH_SEED_NAME = "sdk_extension.h.gch.zlib"  # the installed precompiled header, compressed
PCH_KEY_NAME = "sdk_extension.h.gch.key"
PCH_STUB = (
    "// precompiled by cpp_extension for the flags in flags.txt\n#include <sdk/extension.h>\n"
)

# The flags load() compiles pybind11 extensions with before the include folders and the
# user's flags (_build._flags); the installed runtime object is compiled with exactly these.
# (CXX_FLAGS, from _toolchain.base_flags, then -fvisibility=hidden: after the warnings, not
# where base_flags(hidden=True) puts it, since this order is what installed runtime objects,
# precompiled headers and JIT cache keys were made with.)
PYBIND11_BASE_FLAGS = [*CXX_FLAGS, "-fvisibility=hidden"]

# The stub module: its entry point is compiled hidden; the signatures are the common ones of
# extensions (tensors, lists and tuples of them, scalars, strings), whose casters are then
# shared too.
SOURCE = """// compiled by cpp_extension once per key; see cpp_extension/builder/runtime.py
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

_FILE_DIGESTS: dict[tuple[str, int, int], bytes] = {}  # (path, size, mtime) -> SHA-256


def _tree_digest(folder: str, pattern: str) -> str:
    """SHA-256 over the relative names and contents of the files matching `pattern` (a file
    is read again only when its size or mtime changed)."""
    h = hashlib.sha256()
    root = Path(folder)
    for path in sorted(root.glob(pattern)):
        st = path.stat()
        stamp = (str(path), st.st_size, st.st_mtime_ns)
        if stamp not in _FILE_DIGESTS:
            _FILE_DIGESTS[stamp] = hashlib.sha256(path.read_bytes()).digest()
        h.update(path.relative_to(root).as_posix().encode() + b"\0" + _FILE_DIGESTS[stamp])
    return h.hexdigest()


def include_roots(sdk_include: str) -> dict[str, str]:
    """The folders whose headers make up <sdk/extension.h>, by name."""
    import pybind11

    roots = {"sdk": sdk_include, "pybind11": pybind11.get_include()}
    for i, d in enumerate(python_include_dirs()):
        roots[f"python{i}"] = d
    return roots


def macro_prefix_map(sdk_include: str) -> list[str]:
    """gcc flags that spell the header folders by name in __FILE__ (pybind11's asserts):
    the installed objects are compiled where the package is built, often a temporary
    folder (pip's build environment), and would otherwise name paths that are gone."""
    return [f"-fmacro-prefix-map={d}={name}" for name, d in include_roots(sdk_include).items()]


def key(flags: list[str], compiler_ident: str, sdk_include: str) -> str:
    """The key of what <sdk/extension.h> compiles to under `flags` (see the module doc).

    `flags` are an extension's C++ flags; its name (-DSDK_EXTENSION_NAME) is left out."""
    import pybind11

    roots = include_roots(sdk_include)
    names = {os.path.realpath(d): name for name, d in roots.items()}
    h = hashlib.sha256()
    h.update(compiler_ident.encode() + b"\n")
    for flag in flags:
        if flag.startswith("-DSDK_EXTENSION_NAME="):
            continue
        if flag.startswith("-I") and os.path.realpath(flag[2:]) in names:
            flag = "-I<" + names[os.path.realpath(flag[2:])] + ">"
        h.update(flag.encode() + b"\0")
    h.update(f"\npybind11 {pybind11.__version__}\npython {sys.version} {sys.abiflags}\n".encode())
    h.update(_tree_digest(roots["sdk"], "sdk/*.h").encode())
    h.update(_tree_digest(roots["pybind11"], "pybind11/**/*.h").encode())
    h.update(_tree_digest(roots["python0"], "pyconfig.h").encode())
    return h.hexdigest()[:20]


def _codegen_only(flag: str) -> bool:
    """Flags that change how code is generated, never what a definition means: objects
    compiled with and without them link together as with any library (-O3, -g, -Wall,
    -march=native). -Wp,/-Wa,/-Wl, pass other flags on and are not among them."""
    if flag.startswith("-W"):
        return not flag.startswith(("-Wp,", "-Wa,", "-Wl,"))
    return flag.startswith(("-O", "-g", "-march=", "-mtune=", "-pipe", "-fdiagnostics"))


def object_key(flags: list[str], compiler_ident: str, sdk_include: str) -> str:
    """The key of a runtime object: `key` without the codegen-only flags, so that one object
    serves -O2 and -O3 builds alike (a precompiled header needs the exact flags)."""
    kept = [f for f in flags if not _codegen_only(f)]
    return key(kept, compiler_ident, sdk_include)


def installed_flags(sdk_include: str) -> list[str]:
    """The flags of a default load() of a pybind11 extension (without its name)."""
    return [*PYBIND11_BASE_FLAGS, *(f"-I{d}" for d in include_roots(sdk_include).values())]


def installed_object(flags: list[str], compiler_ident: str, sdk_include: str, lib_dir: str):
    """The installed runtime object when it was compiled under this key, else None."""
    key_ = object_key(flags, compiler_ident, sdk_include)
    return installed_file(lib_dir, OBJECT_NAME, KEY_NAME, key_)


def installed_file(lib_dir: str, name: str, key_name: str, key_: str) -> Path | None:
    """lib_dir/name when its key file (key_name) records `key_`, else None."""
    path = Path(lib_dir, name)
    if installed_record(lib_dir, key_name).get("key") != key_ or not path.is_file():
        return None
    return path


def installed_record(lib_dir: str, name: str = KEY_NAME) -> dict[str, str]:
    """What a key file of the installed objects says (KEY_NAME: the runtime object's,
    PCH_KEY_NAME: the precompiled header's): its key and, to explain a mismatch, the pybind11
    version and compiler it was made with ({} when there is none)."""
    try:
        lines = Path(lib_dir, name).read_text().splitlines()
    except OSError:
        return {}
    record = {"key": lines[0].strip()} if lines else {}
    for line in lines[1:]:
        field, _, value = line.partition(": ")
        record[field] = value
    return record


def installed_pch(key_: str, lib_dir: str) -> Path | None:
    """The installed compressed precompiled header when it was made under this key."""
    return installed_file(lib_dir, PCH_SEED_NAME, PCH_KEY_NAME, key_)


PCH_MAGIC = b"sdk-pch-zlib-1\n"
_PCH_CHUNK = 8 << 20  # compressed separately, so that 2 threads inflate at once


def pack_pch(gch: bytes) -> bytes:
    """The seed format: PCH_MAGIC, the number of chunks, each chunk's compressed size (all
    little-endian uint64), then the chunks: zlib streams of _PCH_CHUNK bytes of the .gch."""
    import struct
    import zlib

    chunks = [zlib.compress(gch[i : i + _PCH_CHUNK], 6) for i in range(0, len(gch), _PCH_CHUNK)]
    head = struct.pack(f"<{len(chunks) + 1}Q", len(chunks), *map(len, chunks))
    return PCH_MAGIC + head + b"".join(chunks)


def unpack_pch(seed: Path, out: Path) -> bool:
    """Decompress an installed precompiled header to `out`, atomically; False if the seed is
    damaged or the disk is full (`out` then stays as it was). Two threads inflate chunks
    while this one writes (zlib lets go of the GIL): 0.6 -> 0.3 s for gcc 12's 140 MB."""
    import struct
    import zlib
    from concurrent.futures import ThreadPoolExecutor

    try:
        data = seed.read_bytes()
        if not data.startswith(PCH_MAGIC):
            raise ValueError("not a packed precompiled header")
        at = len(PCH_MAGIC)
        (count,) = struct.unpack_from("<Q", data, at)
        sizes = struct.unpack_from(f"<{count}Q", data, at + 8)
        at += 8 + 8 * count
        if at + sum(sizes) != len(data):
            raise ValueError("truncated")
        views, view = [], memoryview(data)
        for size in sizes:
            views.append(view[at : at + size])
            at += size
        with ThreadPoolExecutor(2) as pool, atomic_file(out) as dst:
            for chunk in pool.map(zlib.decompress, views):
                dst.write(chunk)
        return True
    except (OSError, ValueError, struct.error, zlib.error):
        return False


def _record(key_: str, ident: str, argv: list[str]) -> str:
    import pybind11

    compiler = ident.splitlines()[0] if ident else argv[0]
    return f"{key_}\npybind11: {pybind11.__version__}\ncompiler: {compiler}\n"


def _compile(cmd: list[str]) -> str | None:
    import subprocess

    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        first = next((ln for ln in out.stderr.splitlines() if "error" in ln), out.stderr)
        return f"the compile failed: {first.strip()[:300]}"
    return None


def build_installed(sdk_include: str, lib_dir: Path, work_dir: Path) -> str | None:
    """Compile the runtime object and the compressed precompiled header into `lib_dir` for the
    default flags (setup.py calls this while it builds the core). Returns None when both were
    made, else why not: a failure only costs speed. SDK_EXTENSIONS_NO_PCH=1 leaves out the
    precompiled header (a wheel built for other machines, whose compiler it would not fit)."""
    try:
        argv = compiler_command("cxx")
        work_dir.mkdir(parents=True, exist_ok=True)
        ident = compiler_identity(argv, work_dir / TOOLCHAINS_FILE_NAME)
        if not is_gcc(ident):
            return "the compiler is not gcc (only gcc's split code generation uses it)"
        flags = installed_flags(sdk_include)
        source = work_dir / SOURCE_NAME
        source.write_text(SOURCE)
        tmp = work_dir / (OBJECT_NAME + ".tmp")
        compiler = [*argv, *GCC_SPEED_ARGS, *flags, *macro_prefix_map(sdk_include)]
        why_not = _compile([*compiler, "-c", str(source), "-o", str(tmp)])
        if why_not:
            return why_not
        lib_dir.mkdir(parents=True, exist_ok=True)
        os.replace(tmp, lib_dir / OBJECT_NAME)
        (lib_dir / KEY_NAME).write_text(_record(object_key(flags, ident, sdk_include), ident, argv))
        if os.environ.get("SDK_EXTENSIONS_NO_PCH", "") not in ("", "0"):
            for name in (PCH_SEED_NAME, PCH_KEY_NAME):
                (lib_dir / name).unlink(missing_ok=True)
            return None
        stub = work_dir / PCH_STUB_NAME
        stub.write_text(PCH_STUB)
        gch = work_dir / (PCH_STUB_NAME + ".gch")
        header = ["-x", "c++-header", str(stub), "-o", str(gch)]
        why_not = _compile([*compiler, *header])
        if why_not:
            return why_not
        tmp = work_dir / (PCH_SEED_NAME + ".tmp")
        tmp.write_bytes(pack_pch(gch.read_bytes()))
        gch.unlink()
        (lib_dir / PCH_KEY_NAME).unlink(missing_ok=True)  # no moment with a key and another seed
        os.replace(tmp, lib_dir / PCH_SEED_NAME)
        (lib_dir / PCH_KEY_NAME).write_text(_record(key(flags, ident, sdk_include), ident, argv))
        return None
    except (OSError, ImportError, BuildError) as e:
        return str(e).splitlines()[0] if str(e) else type(e).__name__
