"""sdk.version: torch.version's names, which extensions' setup.py files branch on.

`hip` is None: the SDK has no ROCm backend, so a ported setup.py takes its CUDA or CPU path.
There is no `cuda` here: whether the SDK's CUDA backend runs is `sdk.cuda.is_available()`,
and the toolkit an extension compiles with is `cpp_extension.CUDA_HOME`'s."""

from __future__ import annotations

import sdk

__version__: str = sdk.__version__
hip: str | None = None
debug: bool = False  # the core is an optimized build; its debug flavours are the sanitizer jobs'

__all__ = ["__version__", "debug", "hip"]
