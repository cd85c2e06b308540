"""Point the core at scipy-openblas32 when its own search would miss it (import side effect)."""

from __future__ import annotations

import os as _os


def _point_core_at_blas() -> None:
    """Tell the core where scipy-openblas32 lives, for layouts its own search misses.

    The core opens the BLAS lazily (first matmul) and looks next to itself in
    site-packages; an editable install keeps the core in the source tree, so the
    package's location is passed through SDK_BLAS_LIBRARY (a user's value wins).
    """
    if _os.environ.get("SDK_BLAS_LIBRARY"):
        return
    from importlib.util import find_spec

    spec = find_spec("scipy_openblas32")
    if spec is None or not spec.submodule_search_locations:
        return
    lib = _os.path.join(spec.submodule_search_locations[0], "lib", "libscipy_openblas.so")
    if _os.path.exists(lib):
        _os.environ["SDK_BLAS_LIBRARY"] = lib


_point_core_at_blas()
