"""sdk.backends.mps: torch.backends.mps's queries, which device-picking code asks first.

The SDK has no Metal backend: is_available() and is_built() are False, so code written as
`"mps" if torch.backends.mps.is_available() else "cpu"` picks the CPU."""

from __future__ import annotations

__all__ = ["is_available", "is_built", "is_macos13_or_newer"]


def is_available() -> bool:
    """False: no Metal (MPS) backend."""
    return False


def is_built() -> bool:
    """False: the SDK is not built with MPS."""
    return False


def is_macos13_or_newer(minor: int = 0) -> bool:
    """False: without an MPS backend no macOS version check applies."""
    return False
