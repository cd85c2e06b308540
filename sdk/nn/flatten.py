"""Reshaping layers Flatten and Unflatten (torch.nn.modules.flatten)."""

from __future__ import annotations

from typing import Any

from ._functional.common import check_tensor
from .module import Module

__all__ = ["Flatten", "Unflatten"]


class Flatten(Module):
    """input.flatten(start_dim, end_dim) (batch dim kept by default)."""

    def __init__(self, start_dim: int = 1, end_dim: int = -1) -> None:
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def forward(self, input: Any) -> Any:
        check_tensor(input, "Flatten")
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self) -> str:
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Unflatten(Module):
    """Split dim `dim` of the input into the shape unflattened_size (one entry may be -1)."""

    def __init__(self, dim: int, unflattened_size: Any) -> None:
        super().__init__()
        if isinstance(unflattened_size, int) or not all(
            isinstance(s, int) and not isinstance(s, bool) for s in unflattened_size
        ):
            raise TypeError(
                f"Unflatten: unflattened_size must be a tuple of ints, got {unflattened_size!r}"
            )
        self.dim, self.unflattened_size = dim, tuple(unflattened_size)

    def forward(self, input: Any) -> Any:
        check_tensor(input, "Unflatten")
        n = input.ndim
        if not -n <= self.dim < n:
            raise IndexError(f"Unflatten: dim {self.dim} is out of range for a {n}-d input")
        d = self.dim % n
        shape = list(input.shape)
        shape[d : d + 1] = self.unflattened_size
        return input.reshape(shape)

    def extra_repr(self) -> str:
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"
