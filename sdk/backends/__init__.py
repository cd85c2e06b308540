"""sdk.backends: switches for how ops run, with torch.backends' names (only cuda so far)."""

from __future__ import annotations

from sdk.backends import cuda

__all__ = ["cuda"]
