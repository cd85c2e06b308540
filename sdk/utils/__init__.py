"""sdk.utils: data loading (``sdk.utils.data``) and hook handles (``sdk.utils.hooks``), as
torch.utils.

Layering rule: utils uses sdk's public tensor API only; sdk's core modules never import it
(nn imports utils.hooks for Module hooks)."""

from __future__ import annotations

from . import data, hooks

__all__ = ["data", "hooks"]
