"""muladd_ops: three operators in C++ and CUDA, registered with SDK_LIBRARY, used from Python.

Built as a package (``pip install --no-build-isolation .`` in examples/muladd), importing it
loads the compiled library ``_C`` (which registers the operators) and then ``ops`` (which
registers their derivatives). ``load_jit()`` builds the same sources with
``cpp_extension.load`` instead, for use without installing.
"""

from __future__ import annotations

import glob
import os

HERE = os.path.dirname(os.path.abspath(__file__))


def load_jit(verbose: bool = False, with_cuda: bool | None = None) -> None:
    """Build the operators just in time and register them (no package build needed). The
    CUDA kernels are built when a CUDA toolkit is found (with_cuda=None)."""
    import cpp_extension

    sources = [os.path.join(HERE, "csrc", "muladd.cpp")]
    if with_cuda is None:
        with_cuda = cpp_extension.CUDA_HOME is not None
    if with_cuda:
        sources.append(os.path.join(HERE, "csrc", "muladd.cu"))
    cpp_extension.load("muladd_ops_jit", sources, is_python_module=False, verbose=verbose)


import sdk  # noqa: E402, F401  (first: it loads the core the compiled library links)

if glob.glob(os.path.join(HERE, "_C.*so")):
    from . import _C  # noqa: F401  (the built library: its import registers the operators)
else:  # the source tree, not built: build just in time
    load_jit()

from . import ops  # noqa: E402, F401  (the derivatives, once the operators exist)
from .ops import myadd_out, mymul, mymuladd  # noqa: E402

__all__ = ["mymuladd", "mymul", "myadd_out", "load_jit"]
