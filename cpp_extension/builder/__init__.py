"""The build subsystem behind cpp_extension's public names (load, load_inline, BuildExtension):
plan (targets and flags), toolchain (compilers, base flags, sdk paths), ninja (the graph
runner), cache, lock and trust (the JIT cache and who may write it), pch and runtime (the
shared precompiled header and pybind11 runtime object), jit (load()'s build steps).

Layering rule: these modules import one another and cpp_extension's shared modules (_errors,
_cuda, _loading, the bridges), never its front ends (_jit, _setuptools, _remote, port)."""
