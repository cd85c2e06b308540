"""sdk.utils: data loading (``sdk.utils.data``), hook handles (``sdk.utils.hooks``) and
activation checkpointing (``sdk.utils.checkpoint``, without recomputation), as torch.utils,
and the ELF reader loaders use (``sdk.utils.elf``).

Layering rule: utils.data and utils.hooks use sdk's public tensor API only; sdk's core
modules never import them (nn imports utils.hooks for Module hooks). utils.elf imports
nothing from sdk: sdk.ops uses it. The subpackages load on first use, so that importing
utils.elf does not load the data pipeline."""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["checkpoint", "data", "elf", "hooks"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        return importlib.import_module(f"sdk.utils.{name}")
    raise AttributeError(f"module 'sdk.utils' has no attribute '{name}'")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
