"""sdk.backends: switches for how ops run, with torch.backends' names (cuda, and cudnn's flags)."""

from __future__ import annotations

from sdk.backends import cuda, cudnn

__all__ = ["cuda", "cudnn"]
