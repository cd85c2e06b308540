"""Public linear-algebra functions: the core's products (mm, bmm, matmul, mv, dot, addmm,
einsum) with autograd hooks, and those the C++ API adds (cross, cdist, inverse, det, cholesky,
triangular_solve, addmv, addbmm), composed from differentiable ops (so autograd flows through
them); the factorizations loop over columns, meant for the small matrices extensions use."""

from __future__ import annotations

import math
from collections import namedtuple
from typing import Any, Callable

from sdk import _C
from sdk._interop import from_numpy
from sdk._ops_common import TensorBase, needs_grad, operand, record, tensor_arg, wrap_dim
from sdk._ops_creation import eye
from sdk._ops_math import _no_out_grad, copy_, where
from sdk._ops_shape import cat, stack

Tensor = Any
Number = Any

triangular_solve_result = namedtuple("triangular_solve", ["solution", "cloned_coefficient"])


# ------------------------------------------------------------------------------ products


def _make_mat(name: str, fn: Callable, arg: str) -> Callable[..., Tensor]:
    def op(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:
        if out is not None:
            _no_out_grad(name, input, other)
            return fn(input, other, out)
        r = fn(input, other)
        if needs_grad(input, other):
            record(name, (input, other), r)
        return r

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"torch.{name}(input, {arg}, *, out=None)"
    return op


mm = _make_mat("mm", _C.mm, "mat2")
bmm = _make_mat("bmm", _C.bmm, "mat2")
matmul = _make_mat("matmul", _C.matmul, "other")
mv = _make_mat("mv", _C.mv, "vec")


def dot(input: Tensor, tensor: Tensor) -> Tensor:
    """Inner product of two 1-D tensors."""
    r = _C.dot(input, tensor)
    if needs_grad(input, tensor):
        record("dot", (input, tensor), r)
    return r


inner = dot


def addmm(
    input: Tensor,
    mat1: Tensor,
    mat2: Tensor,
    *,
    beta: Number = 1,
    alpha: Number = 1,
    out: Tensor | None = None,
) -> Tensor:
    """beta * input + alpha * (mat1 @ mat2)."""
    if out is not None:
        _no_out_grad("addmm", input, mat1, mat2)
        return _C.addmm(input, mat1, mat2, beta, alpha, out)
    r = _C.addmm(input, mat1, mat2, beta, alpha)
    if needs_grad(input, mat1, mat2):
        record("addmm", (input, mat1, mat2), r, beta=beta, alpha=alpha)
    return r


def baddbmm(
    input: Tensor,
    batch1: Tensor,
    batch2: Tensor,
    *,
    beta: Number = 1,
    alpha: Number = 1,
    out: Tensor | None = None,
) -> Tensor:
    """beta * input + alpha * (batch1 @ batch2) over a batch of matrices."""
    prod = bmm(batch1, batch2)
    if alpha != 1:
        prod = prod * alpha
    r = prod if beta == 0 else prod + (input if beta == 1 else input * beta)
    if out is not None:
        return copy_(out, r)
    return r


def outer(input: Tensor, vec2: Tensor) -> Tensor:
    """Outer product of two 1-D tensors."""
    tensor_arg(input, "outer", "input")
    tensor_arg(vec2, "outer", "vec2")
    if input.ndim != 1 or vec2.ndim != 1:
        raise _C.InvalidArgumentError(
            f"outer: expected 1-D tensors, got shapes {list(input.shape)} and {list(vec2.shape)}"
        )
    return input.unsqueeze(1) * vec2.unsqueeze(0)


ger = outer


def einsum(equation: str, *operands: Any) -> Tensor:
    """Sums of products in Einstein notation: einsum("ij,jk->ik", a, b). Operands may also
    be given as one list. Repeated subscripts take diagonals; "..." stands for any dims."""
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    r = _C.einsum(equation, operands)
    if needs_grad(*operands):
        record("einsum", operands, r, equation=equation)
    return r


def _mat_operand(x: Any) -> Tensor:
    if isinstance(x, TensorBase):
        return x
    y = operand(x, "matmul", "other")
    if not isinstance(y, TensorBase):
        raise TypeError(f"matmul(): argument 'other' must be Tensor, not {type(x).__name__}")
    return y


# The @ operator's autograd path (sdk._C's arithmetic slots call it when an operand needs grad).
FALLBACKS = {"matmul": lambda a, b: matmul(_mat_operand(a), _mat_operand(b))}


# ------------------------------------------------------------------------------ the C++ API's extras


def _error(message: str) -> _C.InvalidArgumentError:
    return _C.InvalidArgumentError(message)


def cross(input: Tensor, other: Tensor, dim: int | None = None):
    """The 3-vector cross product along dim (None: the first dim of size 3)."""
    a = tensor_arg(input, "cross", "input")
    b = tensor_arg(other, "cross", "other")
    if dim is None:
        sizes = [i for i, n in enumerate(a.shape) if n == 3]
        if not sizes:
            raise _error(f"cross: no dimension of size 3 in input of shape {list(a.shape)}")
        dim = sizes[0]
    return linalg_cross(a, b, dim=dim)


def linalg_cross(input: Tensor, other: Tensor, *, dim: int = -1):
    """The 3-vector cross product along dim (inputs broadcast), as torch.linalg.cross."""
    a = tensor_arg(input, "linalg.cross", "input")
    b = tensor_arg(other, "linalg.cross", "other")
    if a.dim() != b.dim():
        raise _error(f"linalg.cross: inputs must have the same number of dimensions, got "
                     f"{a.dim()} and {b.dim()}")  # fmt: skip
    d = wrap_dim(dim, a.dim(), "linalg.cross")
    if a.shape[d] != 3 or b.shape[d] != 3:
        raise _error(f"linalg.cross: inputs dimension {dim} must have length 3. Got "
                     f"{a.shape[d]} and {b.shape[d]}")  # fmt: skip
    a0, a1, a2 = (a.narrow(d, i, 1) for i in range(3))
    b0, b1, b2 = (b.narrow(d, i, 1) for i in range(3))
    return cat([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], d)


def cdist(x1: Tensor, x2: Tensor, p: float = 2.0, compute_mode: str | None = None):
    """p-norm distances between the rows of x1 (..., P, M) and x2 (..., R, M): (..., P, R)."""
    a = tensor_arg(x1, "cdist", "x1")
    b = tensor_arg(x2, "cdist", "x2")
    if a.dim() < 2 or b.dim() < 2:
        raise _error(f"cdist only supports at least 2D tensors, X1 got: {a.dim()}D, "
                     f"X2 got: {b.dim()}D")  # fmt: skip
    if a.shape[-1] != b.shape[-1]:
        raise _error(f"X1 and X2 must have the same number of columns. X1: {a.shape[-1]} "
                     f"X2: {b.shape[-1]}")  # fmt: skip
    if p < 0:
        raise _error("cdist only supports non-negative p values")
    if not a.is_floating_point() or not b.is_floating_point():
        raise _error(f"cdist only supports floating-point dtypes, X1 got: {a.dtype}")
    diff = (a.unsqueeze(-2) - b.unsqueeze(-3)).abs()
    if p == 0:
        return diff.ne(0).to(a.dtype).sum(-1)
    if p == float("inf"):
        return diff.amax(-1)
    if p == 1:
        return diff.sum(-1)
    if p == 2:
        return (diff * diff).sum(-1).sqrt()
    return (diff**p).sum(-1) ** (1.0 / p)


def _square(a: Tensor, op: str) -> Tensor:
    if a.dim() < 2 or a.shape[-1] != a.shape[-2]:
        raise _error(f"{op}: A must be batches of square matrices, but they are "
                     f"{a.shape[-2] if a.dim() >= 2 else 1} by {a.shape[-1] if a.dim() else 1}"
                     " matrices")  # fmt: skip
    if not a.is_floating_point():
        raise _error(f"{op}: Expected a floating point tensor as input. Got {a.dtype}")
    return a


def _gauss_jordan(a: Tensor, rhs: Tensor | None):
    """Eliminate (..., n, n) `a` with partial pivoting, applying the same row operations to rhs:
    (reduced rhs / pivots, pivots, sign of the row permutation). Row swaps are permutation
    matrices and eliminations are products, so autograd follows every step."""
    n = a.shape[-1]
    ident = eye(n, dtype=a.dtype, device=a.device)
    pivots = []
    sign = a.new_ones(a.shape[:-2])
    for k in range(n):
        e_k = ident[k]
        below = ident[k:].sum(0).ne(0)  # only rows >= k may be swapped in
        piv = where(below, a[..., :, k].detach().abs(), -1.0).argmax(-1)
        e_p = ident.index_select(0, piv.reshape(-1)).reshape(*piv.shape, n)
        swap = piv.ne(k)
        sign = where(swap, -sign, sign)
        outer = e_k.unsqueeze(-1) * e_p.unsqueeze(-2)
        perm = ident - e_k.unsqueeze(-1) * e_k - e_p.unsqueeze(-1) * e_p.unsqueeze(-2)
        perm = perm + outer + outer.transpose(-1, -2)
        a = perm @ a
        rhs = perm @ rhs if rhs is not None else None
        pivot = a[..., k, k]
        pivots.append(pivot)
        safe = where(pivot.eq(0), 1.0, pivot)
        factor = (a[..., :, k] / safe.unsqueeze(-1) * (1 - e_k)).unsqueeze(-1)
        a = a - factor * a[..., k : k + 1, :]
        if rhs is not None:
            rhs = rhs - factor * rhs[..., k : k + 1, :]
    return rhs, stack(pivots, -1), sign


def det(input: Tensor):
    """The determinant of (..., n, n) float matrices (0 for a singular one)."""
    a = _square(tensor_arg(input, "det", "input"), "linalg.det")
    if a.shape[-1] == 0:
        return a.new_ones(a.shape[:-2])
    _, pivots, sign = _gauss_jordan(a, None)
    return pivots.prod(-1) * sign


def inverse(input: Tensor):
    """The inverse of (..., n, n) float matrices; an error names a singular one."""
    a = _square(tensor_arg(input, "inverse", "input"), "linalg.inv")
    n = a.shape[-1]
    ident = eye(n, dtype=a.dtype, device=a.device).expand(a.shape)
    reduced, pivots, _ = _gauss_jordan(a, ident)
    if n and bool(pivots.eq(0).any()):
        k = int(pivots.eq(0).to(a.dtype).argmax(-1).reshape(-1).amin()) + 1
        raise _error(f"linalg.inv: The diagonal element {k} is zero, the inversion could not be "
                     "completed because the input matrix is singular.")  # fmt: skip
    return reduced / pivots.unsqueeze(-1)


def cholesky(input: Tensor, upper: bool = False):
    """L with L L^T = A for symmetric positive-definite (..., n, n) A (U = L^T when upper)."""
    a = _square(tensor_arg(input, "cholesky", "input"), "linalg.cholesky")
    n = a.shape[-1]
    cols: list[Tensor] = []  # column j of L, zero above the diagonal
    for j in range(n):
        col = a[..., :, j]
        for prev in cols:
            col = col - prev * prev[..., j : j + 1]
        d = col[..., j]
        if bool(d.le(0).any()) or bool(d.isnan().any()):
            raise _error(f"linalg.cholesky: The factorization could not be completed because the "
                         f"input is not positive-definite (the leading minor of order {j + 1} is "
                         "not positive-definite).")  # fmt: skip
        mask = a.new_zeros(n)
        mask[j:] = 1
        cols.append(col * mask / d.sqrt().unsqueeze(-1))
    low = stack(cols, -1) if cols else a.new_zeros(a.shape)
    return low.transpose(-1, -2) if upper else low


def triangular_solve(
    b: Tensor, A: Tensor, upper: bool = True, transpose: bool = False, unitriangular: bool = False
):
    """Solve A X = b for triangular (..., n, n) A (only its upper or lower triangle is read):
    (solution, a copy of A)."""
    rhs = tensor_arg(b, "triangular_solve", "b")
    coef = _square(tensor_arg(A, "triangular_solve", "A"), "triangular_solve")
    n = coef.shape[-1]
    if rhs.dim() < 2 or rhs.shape[-2] != n:
        raise _error(f"triangular_solve: Incompatible matrix sizes for A X = b: A is {n} by {n}, "
                     f"b has shape {list(rhs.shape)}")  # fmt: skip
    m = coef.triu() if upper else coef.tril()
    if transpose:
        m, upper = m.transpose(-1, -2), not upper
    if unitriangular:
        ident = eye(n, dtype=m.dtype, device=m.device)
        m = m * (1 - ident) + ident
    rows: list[Tensor | None] = [None] * n
    order = range(n - 1, -1, -1) if upper else range(n)
    for i in order:
        acc = rhs[..., i, :]
        for j in range(n):
            if rows[j] is not None and j != i:
                acc = acc - m[..., i, j : j + 1] * rows[j]
        rows[i] = acc / m[..., i, i : i + 1]
    solution = stack(rows, -2) if n else rhs.clone()
    return triangular_solve_result(solution, coef.clone())


def addmv(input: Tensor, mat: Tensor, vec: Tensor, *, beta: float = 1, alpha: float = 1):
    """beta * input + alpha * (mat @ vec)."""
    prod = tensor_arg(mat, "addmv", "mat") @ tensor_arg(vec, "addmv", "vec")
    return _scaled_sum(tensor_arg(input, "addmv", "input"), prod, beta, alpha)


def addbmm(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta: float = 1, alpha: float = 1):
    """beta * input + alpha * sum_i(batch1[i] @ batch2[i])."""
    b1 = tensor_arg(batch1, "addbmm", "batch1")
    b2 = tensor_arg(batch2, "addbmm", "batch2")
    if b1.dim() != 3 or b2.dim() != 3:
        raise _error(f"addbmm: batch1 must be a 3D tensor, got {b1.dim()}D and {b2.dim()}D")
    return _scaled_sum(tensor_arg(input, "addbmm", "input"), (b1 @ b2).sum(0), beta, alpha)


def _scaled_sum(input: Tensor, prod: Tensor, beta: float, alpha: float) -> Tensor:
    scaled = prod if alpha == 1 else prod * alpha
    if beta == 0:  # torch ignores input (NaN included) when beta is 0
        return scaled + input.new_zeros(input.shape)
    return scaled + (input if beta == 1 else input * beta)


# torch.linalg.det / torch.linalg.inv under the C++ API's flat spelling
linalg_det = det
linalg_inv = inverse


# ------------------------------------------------------------------------------ compositions

# torch's matrix functions composed of the ops above; their gradients come from the parts.

slogdet_result = namedtuple("slogdet", ["sign", "logabsdet"])


def slogdet(input: Tensor):
    """(sign, log |det|) of (..., n, n) matrices, from the elimination's pivots (no overflow
    of the determinant itself); a singular matrix gives (0, -inf)."""
    a = _square(tensor_arg(input, "slogdet", "input"), "linalg.slogdet")
    if a.shape[-1] == 0:
        return slogdet_result(a.new_ones(a.shape[:-2]), a.new_zeros(a.shape[:-2]))
    _, pivots, sign = _gauss_jordan(a, None)
    return slogdet_result(pivots.sign().prod(-1) * sign, pivots.abs().log().sum(-1))


def logdet(input: Tensor):
    """log det: nan for a negative determinant, -inf for a singular matrix."""
    sign, logabs = slogdet(input)
    return where(sign < 0, float("nan"), logabs)


def vdot(input: Tensor, other: Tensor) -> Tensor:
    """The dot product of two 1-D tensors (real dtypes: dot)."""
    return dot(input, other)


def kron(input: Tensor, other: Tensor) -> Tensor:
    """The Kronecker product: every element of input times the whole of other."""
    a, b = tensor_arg(input, "kron", "input"), tensor_arg(other, "kron", "other")
    nd = max(a.ndim, b.ndim)
    sa = (1,) * (nd - a.ndim) + tuple(a.shape)
    sb = (1,) * (nd - b.ndim) + tuple(b.shape)
    left = a.reshape(tuple(v for s in sa for v in (s, 1)))
    right = b.reshape(tuple(v for s in sb for v in (1, s)))
    return (left * right).reshape(tuple(x * y for x, y in zip(sa, sb)))


def tensordot(a: Tensor, b: Tensor, dims: Any = 2, out: Tensor | None = None) -> Tensor:
    """Sum over dims of a and b: the last `dims` of a with the first of b, or the two lists."""
    tensor_arg(a, "tensordot", "a")
    tensor_arg(b, "tensordot", "b")
    da, db = _tensordot_dims(a, b, dims)
    for i, j in zip(da, db):
        if a.shape[i] != b.shape[j]:
            raise RuntimeError(f"contracted dimensions need to match, but first has size "
                               f"{a.shape[i]} in dim {i} and second has size {b.shape[j]} in "
                               f"dim {j}")  # fmt: skip
    free_a = [i for i in range(a.ndim) if i not in da]
    free_b = [j for j in range(b.ndim) if j not in db]
    k = 1
    for i in da:
        k *= a.shape[i]
    left = a.permute(*free_a, *da).reshape(-1, k)
    right = b.permute(*db, *free_b).reshape(k, -1)
    r = mm(left, right).reshape([a.shape[i] for i in free_a] + [b.shape[j] for j in free_b])
    return copy_(out.resize_(r.shape), r) if out is not None else r


def _tensordot_dims(a: Tensor, b: Tensor, dims: Any) -> tuple[list, list]:
    if isinstance(dims, TensorBase):
        dims = dims.tolist()
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > min(a.ndim, b.ndim):
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        return list(range(a.ndim - dims, a.ndim)), list(range(dims))
    if not isinstance(dims, (list, tuple)) or len(dims) != 2:
        raise RuntimeError("tensordot expects dims to be an int or a pair of dim lists")
    da, db = ([d] if isinstance(d, int) else list(d) for d in dims)
    if len(da) != len(db):
        raise RuntimeError("both dimension lists should have same length")
    return [wrap_dim(d, a.ndim, "tensordot") for d in da], [
        wrap_dim(d, b.ndim, "tensordot") for d in db
    ]


def chain_matmul(*matrices: Tensor, out: Tensor | None = None) -> Tensor:
    """The product of 2-D matrices, left to right (torch.linalg.multi_dot's forerunner)."""
    if not matrices:
        raise RuntimeError("chain_matmul(): Expected one or more matrices")
    r = tensor_arg(matrices[0], "chain_matmul", "matrices")
    for m in matrices[1:]:
        r = mm(r, m)
    return copy_(out.resize_(r.shape), r) if out is not None else r


def matrix_power(input: Tensor, n: int) -> Tensor:
    """The n-th power of square matrices by repeated squaring (n < 0: of the inverse)."""
    a = _square(tensor_arg(input, "matrix_power", "input"), "linalg.matrix_power")
    if isinstance(n, bool) or not isinstance(n, int):
        raise TypeError(f"matrix_power(): argument 'n' must be int, not {type(n).__name__}")
    if n == 0:
        return eye(a.shape[-1], dtype=a.dtype, device=a.device).expand(a.shape).clone()
    base, n = (inverse(a), -n) if n < 0 else (a, n)
    result = None
    while n:
        if n & 1:
            result = base if result is None else matmul(result, base)
        n >>= 1
        if n:
            base = matmul(base, base)
    return result if result is not input else result.clone()


def matrix_exp(input: Tensor) -> Tensor:
    """exp of square matrices: scaled to norm <= 1/2, an 18-term Taylor series (error below
    1e-22 there), squared back."""
    a = _square(tensor_arg(input, "matrix_exp", "input"), "linalg.matrix_exp")
    n = a.shape[-1]
    norm = float(a.abs().sum(-2).amax()) if a.numel() else 0.0
    squarings = max(0, math.ceil(math.log2(norm / 0.5))) if norm > 0.5 else 0
    x = a / (2.0**squarings)
    ident = eye(n, dtype=a.dtype, device=a.device).expand(a.shape)
    term, total = ident, ident
    for k in range(1, 19):
        term = matmul(term, x) / k
        total = total + term
    for _ in range(squarings):
        total = matmul(total, total)
    return total


def cholesky_solve(B: Tensor, L: Tensor, upper: bool = False) -> Tensor:
    """X with A X = B, given A's Cholesky factor L (A = L L^T), or U (A = U^T U) when upper."""
    tensor_arg(B, "cholesky_solve", "B")
    tensor_arg(L, "cholesky_solve", "L")
    y = triangular_solve(B, L, upper=upper, transpose=upper).solution
    return triangular_solve(y, L, upper=upper, transpose=not upper).solution


def cholesky_inverse(L: Tensor, upper: bool = False) -> Tensor:
    """A^-1 given A's Cholesky factor L (A = L L^T), or U (A = U^T U) when upper."""
    f = _square(tensor_arg(L, "cholesky_inverse", "L"), "cholesky_inverse")
    ident = eye(f.shape[-1], dtype=f.dtype, device=f.device).expand(f.shape)
    return cholesky_solve(ident, f, upper)


def addr(input: Tensor, vec1: Tensor, vec2: Tensor, *, beta: float = 1, alpha: float = 1):
    """beta * input + alpha * outer(vec1, vec2)."""
    prod = outer(tensor_arg(vec1, "addr", "vec1"), tensor_arg(vec2, "addr", "vec2"))
    return _scaled_sum(tensor_arg(input, "addr", "input"), prod, beta, alpha)


def _make_inplace(name: str, fn: Callable[..., Tensor]) -> Callable[..., Tensor]:
    """Tensor.<name>_: fn on self's old value, written back into self."""

    def op_(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        tensor_arg(self, name + "_", "self")
        r = fn(self.clone() if needs_grad(self) else self, *args, **kwargs)
        return copy_(self, r.expand(self.shape) if tuple(r.shape) != tuple(self.shape) else r)

    op_.__name__ = op_.__qualname__ = name + "_"
    op_.__doc__ = f"In-place {name} (Tensor.{name}_)."
    return op_


addmm_ = _make_inplace("addmm", addmm)
addmv_ = _make_inplace("addmv", addmv)
addbmm_ = _make_inplace("addbmm", addbmm)
baddbmm_ = _make_inplace("baddbmm", baddbmm)
addr_ = _make_inplace("addr", addr)


# ------------------------------------------------------------------------------ Householder

geqrf_result = namedtuple("geqrf", ["a", "tau"])


def _reflector(a: Tensor, i: int) -> Tensor:
    """Column i's Householder vector v (..., m, 1): 0 above row i, 1 at row i, a's below."""
    m = a.shape[-2]
    col = a[..., :, i : i + 1]
    mask = a.new_zeros(m, 1)
    mask[i + 1 :] = 1
    unit = a.new_zeros(m, 1)
    unit[i] = 1
    return col * mask + unit


def _apply_reflectors(a: Tensor, tau: Tensor, x: Tensor, order: Any) -> Tensor:
    """x after H_i = I - tau_i v_i v_i^T for i in order (H applied on the left)."""
    for i in order:
        v = _reflector(a, i)
        t = tau[..., i : i + 1].unsqueeze(-1)
        x = x - t * matmul(v, matmul(v.transpose(-2, -1), x))
    return x


def _householder_args(op: str, input: Tensor, tau: Tensor) -> int:
    tensor_arg(input, op, "input")
    tensor_arg(tau, op, "tau")
    if input.ndim < 2 or input.shape[-2] < input.shape[-1] or tau.shape[-1] > input.shape[-1]:
        raise _error(f"{op}: expected input (..., m, n) with m >= n and tau (..., k) with "
                     f"k <= n, got {list(input.shape)} and {list(tau.shape)}")  # fmt: skip
    return tau.shape[-1]


def orgqr(input: Tensor, tau: Tensor) -> Tensor:
    """The first n columns of Q = H_1 ... H_k from Householder reflectors (geqrf's output):
    torch.linalg.householder_product; differentiable in both."""
    k = _householder_args("orgqr", input, tau)
    m, n = input.shape[-2], input.shape[-1]
    start = eye(m, n, dtype=input.dtype, device=input.device).expand(*input.shape[:-2], m, n)
    return _apply_reflectors(input, tau, start, range(k - 1, -1, -1))


def ormqr(input: Tensor, tau: Tensor, other: Tensor, left: bool = True,
          transpose: bool = False) -> Tensor:  # fmt: skip
    """other multiplied by Q = H_1 ... H_k (Q^T with transpose), from the left or right."""
    k = _householder_args("ormqr", input, tau)
    tensor_arg(other, "ormqr", "other")
    x = other if left else other.transpose(-2, -1)
    # left: Q x applies H_k first; Q^T x applies H_1 first; right (x Q = (Q^T x^T)^T) swaps them
    first_is_last = transpose != left
    order = range(k - 1, -1, -1) if first_is_last else range(k)
    r = _apply_reflectors(input, tau, x, order)
    return r if left else r.transpose(-2, -1)


def geqrf(input: Tensor) -> Any:
    """(a, tau): the QR factorization as LAPACK's geqrf stores it (R on and above the
    diagonal, the Householder vectors below it), computed by numpy on the host; not
    differentiable (as torch)."""
    import numpy as np  # lazy: import sdk stays free of numpy

    a = tensor_arg(input, "geqrf", "input")
    if a.ndim < 2 or not a.dtype.is_floating_point:
        raise _error(f"geqrf: expected a floating (..., m, n) matrix, got {a.dtype} of shape "
                     f"{list(a.shape)}")  # fmt: skip
    host = np.asarray(a.detach().cpu().numpy(), dtype="float64")
    m, n = host.shape[-2:]
    flat = host.reshape(-1, m, n)
    h, tau = np.empty_like(flat), np.empty((len(flat), min(m, n)))
    for i, matrix in enumerate(flat):
        raw, tau[i] = np.linalg.qr(matrix, mode="raw")  # raw is the transposed LAPACK layout
        h[i] = raw.T
    shape = host.shape[:-2]
    h_out = from_numpy(h.reshape(host.shape)).to(a.dtype)
    return geqrf_result(h_out, from_numpy(tau.reshape(*shape, min(m, n))).to(a.dtype))


# ------------------------------------------------------------------------------ on the host

# The decompositions the core has no kernel for run numpy.linalg on the host, forward only
# (sdk.linalg binds linalg_qr and linalg_svd as its qr and svd; its svdvals, solve and norms
# add autograd where they can).

QRResult = namedtuple("QRResult", ["Q", "R"])
SVDResult = namedtuple("SVDResult", ["U", "S", "Vh"])
svd_result = namedtuple("svd", ["U", "S", "V"])
qr_result = namedtuple("qr", ["Q", "R"])


def host_matrix(x: Tensor, fn: str, square: bool = False) -> Tensor:
    """x when it is a float32/float64 tensor of (batches of) matrices; else a clear error."""
    if not isinstance(x, TensorBase):
        raise TypeError(f"linalg.{fn}(): argument 'A' must be Tensor, not {type(x).__name__}")
    if x.dtype.name not in ("float32", "float64"):
        raise TypeError(f"linalg.{fn}: expected a float32 or float64 tensor, got {x.dtype}")
    if x.ndim < 2:
        raise RuntimeError(f"linalg.{fn}: the input tensor A must have at least 2 dimensions.")
    if square and x.shape[-1] != x.shape[-2]:
        raise RuntimeError(f"linalg.{fn}: A must be batches of square matrices, but they are "
                           f"{x.shape[-2]} by {x.shape[-1]} matrices")  # fmt: skip
    return x


def forward_only(x: Tensor, fn: str) -> None:
    """Refuse a gradient that a host decomposition would silently drop."""
    if needs_grad(x):
        raise NotImplementedError(
            f"linalg.{fn}: autograd is not supported (forward only); call it under "
            "sdk.no_grad() or on A.detach()"
        )


def _host(fn: Any, a: Tensor) -> Any:
    import numpy as np  # lazy: import sdk stays free of numpy

    return fn(np, np.ascontiguousarray(a.detach().cpu().numpy()))


def _back(array: Any, like: Tensor) -> Tensor:
    import numpy as np  # lazy: import sdk stays free of numpy

    r = from_numpy(np.ascontiguousarray(array)).to(like.dtype)
    return r.to(like.device) if like.is_cuda else r


def linalg_qr(A: Tensor, mode: str = "reduced") -> Any:
    """(Q, R) with A = Q R, as torch.linalg.qr (forward only); mode 'r' gives an empty Q."""
    host_matrix(A, "qr")
    forward_only(A, "qr")
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of "
                           "'reduced' (default), 'r', or 'complete'")  # fmt: skip
    if mode == "r":
        r = _host(lambda np, a: np.linalg.qr(a, mode="r"), A)
        return QRResult(A.new_empty(0), _back(r, A))
    q, r = _host(lambda np, a: np.linalg.qr(a, mode=mode), A)
    return QRResult(_back(q, A), _back(r, A))


def linalg_svd(A: Tensor, full_matrices: bool = True) -> Any:
    """(U, S, Vh) with A = U diag(S) Vh, as torch.linalg.svd (forward only)."""
    host_matrix(A, "svd")
    forward_only(A, "svd")
    u, s, vh = _host(lambda np, a: np.linalg.svd(a, full_matrices=full_matrices), A)
    return SVDResult(_back(u, A), _back(s, A), _back(vh, A))


def qr(input: Tensor, some: bool = True) -> Any:
    """torch.qr: (Q, R), reduced (some=True) or complete."""
    q, r = linalg_qr(input, "reduced" if some else "complete")
    return qr_result(q, r)


def svd(input: Tensor, some: bool = True, compute_uv: bool = True) -> Any:
    """torch.svd: (U, S, V) with input = U diag(S) V^T (V, where linalg.svd gives Vh);
    without compute_uv, U and V are zeros, as torch's."""
    u, s, vh = linalg_svd(input, full_matrices=not some)
    v = vh.transpose(-2, -1)
    if not compute_uv:
        u, v = u.new_zeros(u.shape), v.new_zeros(v.shape)
    return svd_result(u, s, v)


def pinverse(input: Tensor, rcond: float = 1e-15) -> Tensor:
    """The Moore-Penrose pseudo-inverse from the SVD, singular values at most rcond times the
    largest counted as zero (forward only)."""
    u, s, vh = linalg_svd(input, full_matrices=False)
    if s.numel() == 0:
        return input.transpose(-2, -1).clone()
    cutoff = s.amax(-1, keepdim=True) * rcond
    inv = where(s > cutoff, 1.0 / s, s.new_zeros(()))
    return matmul(vh.transpose(-2, -1) * inv.unsqueeze(-2), u.transpose(-2, -1))
