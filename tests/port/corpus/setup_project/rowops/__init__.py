"""rowops: row-wise operations in C++."""

import torch

from . import _C


def normalize_rows(x: torch.Tensor, eps: float = 1e-12) -> torch.Tensor:
    """Each row divided by its 2-norm."""
    if not isinstance(x, torch.Tensor):
        x = torch.as_tensor(x)
    return _C.normalize_rows(x, eps)


def center_rows(x: torch.Tensor) -> torch.Tensor:
    return _C.center_rows(x)
