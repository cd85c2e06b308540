"""The JIT entry points behind the package's load(), load_inline() and load_library(), kept
below the package so that the modules which call them (the notebook magic, the unpickler in
_remote) import them without importing the package that imports those modules."""

from __future__ import annotations

import os
import sys
from typing import Any

from ._ctypes_bridge import ABI_SYMBOL, SIG_PREFIX
from ._ctypes_bridge import load_library as load_ctypes
from ._loading import import_pybind11
from .builder.jit import inline_sources, jit_build, make_request, resolve_bridge


def _refuse_sycl(fn: str, name: str, **given: Any) -> None:
    """torch's SYCL parameters are accepted in their positions and refused when used."""
    used = [k for k, v in given.items() if v]
    if used:
        raise ValueError(
            f"{fn}('{name}'): SYCL is not supported ({', '.join(used)} given); build C++ or CUDA "
            "sources instead"
        )


def load(
    name: str,
    sources,
    extra_cflags=None,
    extra_cuda_cflags=None,
    extra_sycl_cflags=None,
    extra_ldflags=None,
    extra_include_paths=None,
    build_directory=None,
    verbose: bool = False,
    with_cuda: bool | None = None,
    with_sycl: bool | None = None,
    is_python_module: bool = True,
    is_standalone: bool = False,
    keep_intermediates: bool = True,
    *,
    bridge: str | None = None,
    dlink: bool = False,
):
    """Compile `sources` (cached by content) and load the result.

    Returns the imported pybind11 module (default); with is_python_module=False
    or bridge="ctypes", an object whose attributes call the SDK_EXPORT functions;
    with is_standalone=True, the path of an executable linked against the core.
    Raises BuildError with the first compiler errors on failure. The parameters are
    torch's, in its order (the SYCL ones are refused when used); bridge and dlink are
    this SDK's own.
    """
    _refuse_sycl("load", name, extra_sycl_cflags=extra_sycl_cflags, with_sycl=with_sycl)
    req = make_request(
        name,
        sources,
        extra_cflags=extra_cflags,
        extra_cuda_cflags=extra_cuda_cflags,
        extra_ldflags=extra_ldflags,
        extra_include_paths=extra_include_paths,
        build_directory=build_directory,
        verbose=verbose,
        with_cuda=with_cuda,
        keep_intermediates=keep_intermediates,
        bridge=resolve_bridge(bridge, is_python_module, is_standalone),
        dlink=dlink,
    )
    return jit_build(req)


def load_inline(
    name: str,
    cpp_sources,
    cuda_sources=None,
    sycl_sources=None,
    functions=None,
    extra_cflags=None,
    extra_cuda_cflags=None,
    extra_sycl_cflags=None,
    extra_ldflags=None,
    extra_include_paths=None,
    build_directory=None,
    verbose: bool = False,
    with_cuda: bool | None = None,
    with_sycl: bool | None = None,
    is_python_module: bool = True,
    with_pytorch_error_handling: bool = True,
    keep_intermediates: bool = True,
    use_pch: bool = False,
    no_implicit_headers: bool = False,
    *,
    bridge: str | None = None,
):
    """Like load(), from source strings: writes main.cpp with <sdk/extension.h> prepended
    (<sdk/export.h> with the ctypes bridge; nothing with no_implicit_headers=True) and a
    PYBIND11_MODULE generated from `functions` (a name, a list, or {name: doc}).
    torch's parameters in its order: `with_pytorch_error_handling` is accepted and ignored
    (sdk::Error always becomes the matching Python exception), `use_pch` too (pybind11
    builds use a shared precompiled header whenever the compiler allows), SYCL is refused.
    """
    _refuse_sycl(
        "load_inline", name, sycl_sources=sycl_sources, extra_sycl_cflags=extra_sycl_cflags,
        with_sycl=with_sycl,
    )  # fmt: skip
    chosen = resolve_bridge(bridge, is_python_module, False)
    texts = inline_sources(name, cpp_sources, cuda_sources, functions, chosen, no_implicit_headers)
    req = make_request(
        name,
        texts,
        inline=True,
        extra_cflags=extra_cflags,
        extra_cuda_cflags=extra_cuda_cflags,
        extra_ldflags=extra_ldflags,
        extra_include_paths=extra_include_paths,
        build_directory=build_directory,
        verbose=verbose,
        with_cuda=with_cuda if with_cuda is not None else bool(cuda_sources),
        keep_intermediates=keep_intermediates,
        bridge=chosen,
    )
    return jit_build(req)


def load_library(path: str | os.PathLike, name: str | None = None):
    """Load a prebuilt extension binary (what load() would load, built elsewhere).

    - A ctypes-bridge library (functions marked SDK_EXPORT in <sdk/export.h>): returns the
      object load(..., is_python_module=False) returns, named `name` (default: the file name
      up to its first dot); its ABI version is checked against the running core.
    - A Python extension module (pybind11 / CPython: it exports ``PyInit_<x>``): imported as
      module ``<x>`` and returned; it is registered in sys.modules as `name` (default ``<x>``).

    torch's counterpart is ``torch.ops.load_library`` (which registers ops and returns None);
    here the functions come back on the returned object. Raises FileNotFoundError for a
    missing file and ImportError (naming the file, and the function when one is at fault)
    for a binary of neither kind, of another ABI, or malformed: not ELF, truncated, or with
    SDK_EXPORT signatures the bridge refuses (see _ctypes_bridge).
    """
    from sdk.utils import elf as _elf  # the one ELF reader (sdk is importable when loading)

    path = os.path.abspath(os.fspath(path))
    if not os.path.isfile(path):
        raise FileNotFoundError(f"load_library: no such file: {path}")
    stem = os.path.basename(path).split(".", 1)[0]
    try:
        elf = _elf.ElfFile(path)
        elf.check_loadable()  # a truncated file would crash dlopen (SIGBUS)
        symbols = list(elf.dynamic_symbols())
    except (_elf.ElfError, OSError) as e:  # not a shared library, or a damaged one
        raise ImportError(f"load_library: {e}", path=path) from None
    inits = sorted(s[len("PyInit_") :] for s in symbols if s.startswith("PyInit_"))
    if inits:
        init = stem if stem in inits else inits[0]
        module_name = name or init
        loaded = sys.modules.get(module_name)
        if loaded is not None and os.path.realpath(getattr(loaded, "__file__", "")) == (
            os.path.realpath(path)
        ):
            return loaded
        return import_pybind11(init, module_name, path)
    if ABI_SYMBOL in symbols or any(s.startswith(SIG_PREFIX) for s in symbols):
        return load_ctypes(path, name or stem)
    raise ImportError(
        f"load_library: {path} is neither a Python extension module (no PyInit_ function) nor "
        f"a ctypes-bridge library (no {ABI_SYMBOL} symbol; #include <sdk/export.h> and mark "
        'functions with SDK_EXPORT(name, "signature"))',
        path=path,
    )
