"""sdk.linalg: torch.linalg's spellings of the linear-algebra functions in sdk (det, inv,
cross, cholesky, solve_triangular, vector_norm); this layer only renames."""

from __future__ import annotations

from typing import Any

from sdk._ops_linalg import cholesky as _cholesky
from sdk._ops_linalg import det, inverse, linalg_cross, triangular_solve

__all__ = ["cholesky", "cross", "det", "inv", "solve_triangular"]

inv = inverse
cross = linalg_cross


def cholesky(A: Any, *, upper: bool = False) -> Any:
    """L with L L^T = A (U = L^T when upper), as torch.linalg.cholesky."""
    return _cholesky(A, upper=upper)


def solve_triangular(A: Any, B: Any, *, upper: bool, left: bool = True,
                     unitriangular: bool = False) -> Any:  # fmt: skip
    """X with A X = B (left) or X A = B (left=False) for triangular A."""
    if left:
        return triangular_solve(B, A, upper=upper, unitriangular=unitriangular).solution
    # X A = B  <=>  A^T X^T = B^T
    sol = triangular_solve(B.mT, A, upper=upper, transpose=True, unitriangular=unitriangular)
    return sol.solution.mT
