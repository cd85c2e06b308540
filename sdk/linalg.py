"""sdk.linalg: torch.linalg's functions. det, inv, cross, cholesky, solve_triangular and
householder_product (orgqr) rename sdk ops; the norms compose sdk ops; solve, svd, svdvals, qr and eigh run numpy.linalg on the CPU
(no core op exists), with autograd for solve, svdvals and the norms built on them."""

from __future__ import annotations

import math
from collections import namedtuple
from typing import Any

import numpy as np

import sdk
from sdk import _C, _ops_linalg
from sdk._ops_linalg import cholesky as _cholesky
from sdk._ops_linalg import det, inverse, linalg_cross, triangular_solve
from sdk.autograd import Function

__all__ = ["cholesky", "cross", "det", "eigh", "householder_product", "inv", "matrix_norm",
           "norm", "qr", "solve", "solve_triangular", "svd", "svdvals", "vector_norm"]  # fmt: skip

QRResult, SVDResult = _ops_linalg.QRResult, _ops_linalg.SVDResult
EighResult = namedtuple("EighResult", ["eigenvalues", "eigenvectors"])

inv = inverse
householder_product = _ops_linalg.orgqr
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


# ----------------------------------------------------------------------------- checks


def _float_tensor(x: Any, fn: str, name: str = "A") -> Any:
    if not isinstance(x, _C.TensorBase):
        raise TypeError(f"linalg.{fn}(): argument '{name}' must be Tensor, not {type(x).__name__}")
    if x.dtype not in (sdk.float32, sdk.float64):
        raise TypeError(f"linalg.{fn}: expected a float32 or float64 tensor, got {x.dtype}")
    return x


_matrix = _ops_linalg.host_matrix
_forward_only = _ops_linalg.forward_only


def _np(x: Any) -> Any:
    return np.ascontiguousarray(x.detach().numpy())


def _sdk(a: Any, like: Any) -> Any:
    return sdk.from_numpy(np.ascontiguousarray(a)).to(like.dtype)


def _sum_to(g: Any, shape: tuple) -> Any:
    """g summed over the leading dims that broadcasting added to a tensor of `shape`."""
    lead = g.ndim - len(shape)
    if lead:
        g = g.sum(tuple(range(lead)))
    dims = tuple(i for i, n in enumerate(shape) if n == 1 and g.shape[i] != 1)
    return g.sum(dims, keepdim=True) if dims else g


# ----------------------------------------------------------------------------- norms


def _dims(dim: Any, ndim: int) -> tuple:
    if dim is None:
        return tuple(range(ndim))
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    return tuple(d % ndim if ndim else 0 for d in dims)


class _VectorNorm(Function):
    """The p-norm with torch's subgradient where it is not differentiable: 0 at a zero norm,
    and for inf-norms the gradient shared evenly by the entries that reach the max/min."""

    @staticmethod
    def forward(ctx: Any, x: Any, ord: float, dims: tuple, keepdim: bool) -> Any:
        n = sdk.norm(x, ord, dims if dims else None, keepdim=True)
        ctx.save_for_backward(x, n)
        ctx.ord, ctx.dims, ctx.keepdim = ord, dims, keepdim
        return n if keepdim else n.squeeze(dims) if dims else n.reshape(())

    @staticmethod
    def backward(ctx: Any, g: Any) -> Any:
        x, n = ctx.saved_tensors
        p = ctx.ord
        if not ctx.keepdim:
            g = g.reshape(n.shape)
        a = x.abs()
        if p == 0:
            gx = sdk.zeros_like(x)
        elif math.isinf(p):
            hit = (a == n).to(x.dtype)
            gx = x.sign() * hit / hit.sum(ctx.dims if ctx.dims else None, keepdim=True)
        elif p == 1:
            gx = x.sign()
        else:
            safe = sdk.where(n == 0, sdk.ones_like(n), n)
            gx = x.sign() * (a / safe) ** (p - 1)
            gx = sdk.where(n == 0, sdk.zeros_like(gx), gx)
        return g * gx, None, None, None


def vector_norm(x: Any, ord: float = 2, dim: Any = None, keepdim: bool = False, *,
                dtype: Any = None) -> Any:  # fmt: skip
    """The ord-norm of x over dim (all of it by default), as torch.linalg.vector_norm."""
    _float_tensor(x if dtype is None else x.to(dtype), "vector_norm", "x")
    if isinstance(ord, (bool, str)) or not isinstance(ord, (int, float)):
        raise TypeError(f"linalg.vector_norm: ord must be a number, got {ord!r}")
    if dtype is not None:
        x = x.to(dtype)
    return _VectorNorm.apply(x, float(ord), _dims(dim, x.ndim), keepdim)


class _SVDVals(Function):
    """Singular values; dA = U diag(dS) Vh (valid where they are distinct, as in torch)."""

    @staticmethod
    def forward(ctx: Any, A: Any) -> Any:
        u, s, vh = np.linalg.svd(_np(A), full_matrices=False)
        ctx.u, ctx.vh = _sdk(u, A), _sdk(vh, A)
        return _sdk(s, A)

    @staticmethod
    def backward(ctx: Any, g: Any) -> Any:
        return (ctx.u * g.unsqueeze(-2)) @ ctx.vh


def svdvals(A: Any) -> Any:
    """The singular values of A, descending (differentiable), as torch.linalg.svdvals."""
    return _SVDVals.apply(_matrix(A, "svdvals"))


_MATRIX_ORDS = ("fro", "nuc", 1, -1, 2, -2, math.inf, -math.inf)


def matrix_norm(A: Any, ord: Any = "fro", dim: Any = (-2, -1), keepdim: bool = False, *,
                dtype: Any = None) -> Any:  # fmt: skip
    """The ord-norm of the matrices over the two dims `dim`, as torch.linalg.matrix_norm."""
    if dtype is not None:
        A = _float_tensor(A, "matrix_norm").to(dtype)
    _matrix(A, "matrix_norm")
    if ord not in _MATRIX_ORDS or isinstance(ord, bool):
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    d0, d1 = _dims(dim, A.ndim) if len(tuple(dim)) == 2 else (None, None)
    if d0 is None or d0 == d1:
        raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple of distinct dims, got {dim}")
    if ord == "fro":
        return vector_norm(A, 2, (d0, d1), keepdim)
    if ord in (1, -1, math.inf, -math.inf):
        rows, cols = (d0, d1) if ord in (1, -1) else (d1, d0)
        s = A.abs().sum(rows, keepdim=True)
        out = s.amax(cols, keepdim=True) if ord > 0 else s.amin(cols, keepdim=True)
    else:
        sv = svdvals(A.movedim((d0, d1), (-2, -1)))
        red = sv.sum(-1) if ord == "nuc" else sv.amax(-1) if ord == 2 else sv.amin(-1)
        out = red.unsqueeze(-1).unsqueeze(-1).movedim((-2, -1), (min(d0, d1), max(d0, d1)))
    return out if keepdim else out.squeeze((d0, d1))


def norm(A: Any, ord: Any = None, dim: Any = None, keepdim: bool = False, *,
         dtype: Any = None) -> Any:  # fmt: skip
    """A vector or matrix norm, chosen as torch.linalg.norm does: by dim (an int: vector, a
    2-tuple: matrix), else by A's dims when ord is given (1-d: vector, 2-d: matrix)."""
    _float_tensor(A if dtype is None else A.to(dtype), "norm")
    if dim is not None:
        dims = (dim,) if isinstance(dim, int) else tuple(dim)
        if len(dims) == 2:
            return matrix_norm(A, "fro" if ord is None else ord, dims, keepdim, dtype=dtype)
        return vector_norm(A, 2 if ord is None else ord, dims, keepdim, dtype=dtype)
    if ord is None:
        return vector_norm(A, 2, None, keepdim, dtype=dtype)
    if A.ndim == 2:
        return matrix_norm(A, ord, (-2, -1), keepdim, dtype=dtype)
    if A.ndim == 1:
        return vector_norm(A, ord, None, keepdim, dtype=dtype)
    raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input must be 1D "
                       f"or 2D. Got {A.ndim}D.")  # fmt: skip


# ----------------------------------------------------------------------------- solve


def _np_solve(a: Any, b: Any) -> Any:
    try:
        return np.linalg.solve(a, b)
    except np.linalg.LinAlgError:
        raise RuntimeError(
            "linalg.solve: The solver failed because the input matrix is singular."
        ) from None


class _Solve(Function):
    """X with A X = B (B a batch of matrices); dB = A^-T dX, dA = -dB X^T."""

    @staticmethod
    def forward(ctx: Any, A: Any, B: Any) -> Any:
        a, b = _np(A), _np(B)
        x = _sdk(_np_solve(a, b), A)
        ctx.a, ctx.shapes = a, (tuple(A.shape), tuple(B.shape))
        ctx.save_for_backward(x)
        return x

    @staticmethod
    def backward(ctx: Any, g: Any) -> Any:
        (x,) = ctx.saved_tensors
        gb = _sdk(_np_solve(np.swapaxes(ctx.a, -1, -2), _np(g)), g)
        ga = -(gb @ x.mT)
        return _sum_to(ga, ctx.shapes[0]), _sum_to(gb, ctx.shapes[1])


def solve(A: Any, B: Any, *, left: bool = True) -> Any:
    """X with A X = B (left) or X A = B, as torch.linalg.solve (differentiable in A and B); B
    is a batch of vectors when it has one dim less than A and matches its leading shape."""
    _matrix(A, "solve", square=True)
    _float_tensor(B, "solve", "B")
    if A.dtype != B.dtype:
        raise RuntimeError(f"linalg.solve: Expected A and B to have the same dtype, but found "
                           f"A of type {A.dtype} and B of type {B.dtype} instead")  # fmt: skip
    vector = B.ndim == 1 or (B.ndim == A.ndim - 1 and tuple(B.shape) == tuple(A.shape[:-1]))
    if not left:
        if vector:
            raise RuntimeError("linalg.solve: Vector broadcasting of the left hand side is not "
                               "supported for left=False.")  # fmt: skip
        return solve(A.mT, B.mT).mT
    b = B.unsqueeze(-1) if vector else B
    if b.shape[-2] != A.shape[-1]:
        raise RuntimeError(f"linalg.solve: Incompatible shapes of A and B for the equation "
                           f"AX = B ({list(A.shape)} and {list(B.shape)})")  # fmt: skip
    batch = sdk.broadcast_shapes(tuple(A.shape[:-2]), tuple(b.shape[:-2]))
    a_full = A.expand(*batch, *A.shape[-2:]) if tuple(A.shape[:-2]) != batch else A
    b_full = b.expand(*batch, *b.shape[-2:]) if tuple(b.shape[:-2]) != batch else b
    x = _Solve.apply(a_full, b_full)
    return x.squeeze(-1) if vector else x


# ----------------------------------------------------------------------------- decompositions


qr = _ops_linalg.linalg_qr
svd = _ops_linalg.linalg_svd


def eigh(A: Any, UPLO: str = "L") -> Any:
    """Eigenvalues (ascending) and eigenvectors of symmetric A, read from its UPLO triangle,
    as torch.linalg.eigh (forward only)."""
    _matrix(A, "eigh", square=True)
    _forward_only(A, "eigh")
    if UPLO not in ("L", "U"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    w, v = np.linalg.eigh(_np(A), UPLO=UPLO)
    return EighResult(_sdk(w, A), _sdk(v, A))
