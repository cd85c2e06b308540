"""sdk.backends: switches for how ops run, with torch.backends' names (cuda, cudnn's flags,
mps's queries)."""

from __future__ import annotations

from sdk.backends import cuda, cudnn, mps

__all__ = ["cuda", "cudnn", "mps"]
