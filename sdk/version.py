"""sdk.version: torch.version's names, which extensions' setup.py files branch on.

`cuda` is the CUDA toolkit release ("12.4") the SDK's CUDA backend was built with, or None
when the SDK was built without it (read from the build's record; no GPU and no CUDA library
needed). Whether the backend runs here is `sdk.cuda.is_available()`, and the toolkit an
extension compiles with is `cpp_extension.CUDA_HOME`'s. `hip` is None: the SDK has no ROCm
backend, so a ported setup.py takes its CUDA or CPU path."""

from __future__ import annotations

import sdk
from sdk import _C

__version__: str = sdk.__version__
cuda: str | None = _C.cuda_build_version()
hip: str | None = None
debug: bool = False  # the core is an optimized build; its debug flavours are the sanitizer jobs'

__all__ = ["__version__", "cuda", "debug", "hip"]
