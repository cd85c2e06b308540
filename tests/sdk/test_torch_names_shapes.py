"""torch's block, split, copy, scatter, matrix and creation functions that the sdk composes
(sdk/_ops_compose.py, _ops_copies.py, _ops_linalg.py, _ops_layout.py, _ops_creation.py,
_ops_windows.py): values and gradients against torch on the same inputs (skipped without
torch)."""

from __future__ import annotations

import functools
import warnings

import numpy as np
import pytest

import sdk
from tests.sdk._torch_compare import assert_same, compare

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(5)
A = RNG.standard_normal((2, 3, 4))
M = RNG.standard_normal((4, 4))
SPD = M @ M.T + 4 * np.eye(4)
CHOL = np.linalg.cholesky(SPD)
V = RNG.standard_normal(4)

CASES = [
    ("atleast_1d", lambda m, x: m.atleast_1d(x[0, 0, 0]), [A]),
    ("atleast_2d_many", lambda m, x, v: m.atleast_2d(x[0, 0, 0], v), [A, V]),
    ("atleast_3d_list", lambda m, x, v: m.atleast_3d([v, x[0]]), [A, V]),
    ("hsplit", lambda m, x: m.hsplit(x, [1, 2]), [A]),
    ("hsplit_1d", lambda m, v: v.hsplit(2), [V]),
    ("vsplit", lambda m, x: x.vsplit(2), [A]),
    ("dsplit", lambda m, x: m.dsplit(x, [1, 3]), [A]),
    ("column_stack", lambda m, v, x: m.column_stack([v, x[0].t()]), [V, A]),
    ("row_stack", lambda m, v, x: m.row_stack([v, x[0, 0]]), [V, A]),
    ("dstack", lambda m, v: m.dstack([v, v * 2]), [V]),
    ("block_diag", lambda m, x, v: m.block_diag(x[0], v, v[0]), [A, V]),
    ("cartesian_prod", lambda m, v, w: m.cartesian_prod(v, w[:2]), [V, V]),
    ("combinations", lambda m, v: m.combinations(v, 3), [V]),
    ("combinations_repl", lambda m, v: m.combinations(v, 2, with_replacement=True), [V]),
    ("rot90", lambda m, x: m.rot90(x, 1, [1, 2]), [A]),
    ("rot90_neg", lambda m, x: x.rot90(-3, [2, 0]), [A]),
    ("rot90_2", lambda m, x: x.rot90(2), [A]),
    ("unsafe_chunk", lambda m, x: m.unsafe_chunk(x, 2, 2), [A]),
    ("unsafe_split", lambda m, x: x.unsafe_split(2, 1), [A]),
    ("unsafe_split_with_sizes", lambda m, x: x.unsafe_split_with_sizes([1, 3], 2), [A]),
    ("narrow_copy", lambda m, x: m.narrow_copy(x, 2, 1, 2), [A]),
    ("view_copy", lambda m, x: m.view_copy(x, (6, 4)), [A]),
    ("permute_copy", lambda m, x: m.permute_copy(x, (2, 0, 1)), [A]),
    ("transpose_copy", lambda m, x: m.transpose_copy(x, 0, 2), [A]),
    ("t_copy", lambda m, x: m.t_copy(x[0]), [A]),
    ("expand_copy", lambda m, x: m.expand_copy(x[:, :1], (2, 5, 4)), [A]),
    ("select_copy", lambda m, x: m.select_copy(x, 1, 2), [A]),
    ("slice_copy", lambda m, x: m.slice_copy(x, 2, 0, 3, 2), [A]),
    ("diagonal_copy", lambda m, x: m.diagonal_copy(x, 1, 1, 2), [A]),
    ("squeeze_copy", lambda m, x: m.squeeze_copy(x[:1]), [A]),
    ("unsqueeze_copy", lambda m, x: m.unsqueeze_copy(x, 1), [A]),
    ("unbind_copy", lambda m, x: m.unbind_copy(x, 1), [A]),
    ("split_copy", lambda m, x: m.split_copy(x, 3, 2), [A]),
    ("split_with_sizes_copy", lambda m, x: m.split_with_sizes_copy(x, [1, 2], 1), [A]),
    ("unfold_copy", lambda m, x: m.unfold_copy(x, 2, 2, 1), [A]),
    ("as_strided_copy", lambda m, x: m.as_strided_copy(x, (3, 3), (4, 1), 1), [A]),
    ("alias_copy", lambda m, x: m.alias_copy(x), [A]),
    ("detach_copy", lambda m, x: m.detach_copy(x), [A], {"grad": False}),
    ("select_scatter", lambda m, x, s: m.select_scatter(x, s[:, 0], 1, 1), [A, A]),
    ("slice_scatter", lambda m, x, s: x.slice_scatter(s[..., :2], 2, 0, None, 2), [A, A]),
    ("diagonal_scatter", lambda m, x, s: m.diagonal_scatter(x, s[:, :, 0], 1, 1, 2), [A, A]),
    # (torch's gradient for input is nonzero at the overwritten elements: checked below)
    (
        "as_strided_scatter",
        lambda m, x, s: m.as_strided_scatter(x, s[0, :, :3], (3, 3), (4, 1), 1),
        [A, A],
        {"grad": (False, True)},
    ),
    ("sum_to_size", lambda m, x: x.sum_to_size(3, 1), [A]),
    ("kron", lambda m, x, y: m.kron(x[0, :2], y), [A, M]),
    ("kron_method", lambda m, v, y: v.kron(y), [V, M]),
    ("tensordot", lambda m, x, y: m.tensordot(x, y[:3], ([1], [0])), [A, M]),
    ("tensordot_int", lambda m, x, y: m.tensordot(x, y, 1), [A, M]),
    ("vdot", lambda m, v, w: m.vdot(v, w), [V, V * 2]),
    ("chain_matmul", lambda m, x, y: m.chain_matmul(x, y, x), [M, SPD]),
    ("matrix_power", lambda m, x: m.matrix_power(x, 5), [M]),
    ("matrix_power_neg", lambda m, x: x.matrix_power(-2), [SPD]),
    ("matrix_power_0", lambda m, x: m.matrix_power(x, 0), [M], {"grad": False}),
    ("matrix_exp", lambda m, x: m.matrix_exp(x * 2), [M]),
    ("slogdet", lambda m, x: tuple(m.slogdet(x)), [M]),
    ("logdet", lambda m, x: x.logdet(), [SPD]),
    # (torch's gradient for the factor fills its unread triangle too: only B's is compared)
    ("cholesky_solve", lambda m, b, f: m.cholesky_solve(b, f), [M, CHOL], {"grad": (True, False)}),
    (
        "cholesky_solve_upper",
        lambda m, b, f: b.cholesky_solve(f.t(), True),
        [M, CHOL],
        {"grad": (True, False)},
    ),
    ("cholesky_inverse", lambda m, f: m.cholesky_inverse(f), [CHOL], {"grad": False}),
    ("det_method", lambda m, x: x.det(), [M]),
    ("inverse_method", lambda m, x: x.inverse(), [SPD]),
    # (torch's vander cannot backward: its gradient is checked against the formula below)
    ("vander", lambda m, v: m.vander(v), [V], {"grad": False}),
    ("vander_inc", lambda m, v: m.vander(v, 3, True), [V], {"grad": False}),
    ("vander_int", lambda m, v: m.vander(v), [np.array([1, 2, 3])]),
    (
        "unique_consecutive",
        lambda m, v: m.unique_consecutive(v, True, True),
        [np.array([1, 1, 2, 2, 3, 1, 1, 2])],
    ),
    (
        "unique_consecutive_dim",
        lambda m, v: v.unique_consecutive(True, True, dim=1),
        [np.array([[1, 1, 2], [1, 1, 2], [3, 3, 2]])],
    ),
    ("isin", lambda m, e, t: m.isin(e, t), [np.array([[1, 2], [3, 4]]), np.array([2, 3, 9])]),
    (
        "isin_invert",
        lambda m, e, t: m.isin(e, t, invert=True),
        [np.array([1.0, np.nan, 3.0]), np.array([3.0, 1.0])],
    ),
    ("count_nonzero_method", lambda m, v: v.count_nonzero(), [np.array([0.0, 1.0, 0.0, 2.0])]),
    ("histc_method", lambda m, v: v.histc(4, 0, 1), [np.array([0.1, 0.5, 0.9, 0.95])]),
    ("bincount_method", lambda m, v: v.bincount(), [np.array([0, 2, 2, 5])]),
    ("put", lambda m, x, s: m.put(x, x.new_tensor([[0, -1], [5, 7]]).long(), s[0, 0]), [A[0], A]),
    (
        "put_accumulate",
        lambda m, x, s: x.put(x.new_tensor([0, 0, 5]).long(), s[0, 0, :3], True),
        [A[0], A],
    ),
    (
        "index_reduce_amax",
        lambda m, x, s: x.index_reduce(0, x.new_tensor([2, 0]).long(), s[0, :2], "amax"),
        [M, A],
    ),
    (
        "index_reduce_prod_no_self",
        lambda m, x, s: m.index_reduce(
            x, 1, x.new_tensor([3, 3, 1]).long(), s[0][:, :3], "prod", include_self=False
        ),
        [M[:3], A],
        {"grad": False},
    ),
    (
        "index_reduce_mean",
        lambda m, x, s: x.index_reduce(1, x.new_tensor([3, 3, 1]).long(), s[0].t()[:, :3], "mean"),
        [M, A],
    ),
    ("positive", lambda m, x: m.positive(x), [A]),
    ("fill", lambda m, x: m.fill(x, 2.5), [A], {"grad": False}),
    (
        "nonzero_static",
        lambda m, x: m.nonzero_static(x, size=5, fill_value=-7),
        [np.array([[0, 1, 0], [2, 0, 3]])],
    ),
    ("nonzero_static_short", lambda m, x: x.nonzero_static(size=1), [np.array([[0, 1], [2, 0]])]),
    ("histogram", lambda m, x: tuple(m.histogram(x, 4)), [V], {"grad": False}),
    (
        "histogram_edges",
        lambda m, x, w: tuple(x.histogram(x.new_tensor([-1.0, 0.0, 2.0]), weight=w, density=True)),
        [V, np.abs(V)],
        {"grad": False},
    ),
    ("frobenius_norm", lambda m, x: m.frobenius_norm(x, [0, 2]), [A]),
    ("nuclear_norm", lambda m, x: m.nuclear_norm(x), [M]),
    ("nuclear_norm_dims", lambda m, x: m.nuclear_norm(x, [0, 2], True), [A]),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_matches_torch(case):
    _, fn, arrays, *kw = case
    compare(torch, functools.partial(fn, sdk), functools.partial(fn, torch), *arrays,
            rtol=1e-9, atol=1e-9, **(kw[0] if kw else {}))  # fmt: skip


@pytest.mark.parametrize("shape, wrap", [((5, 3), True), ((5, 3), False), ((3, 5), True),
                                         ((3, 3, 3), False), ((7, 3), True)])  # fmt: skip
def test_fill_diagonal_(shape, wrap):
    s, t = sdk.zeros(*shape), torch.zeros(*shape)
    assert s.fill_diagonal_(2.0, wrap) is s
    t.fill_diagonal_(2.0, wrap)
    assert_same(s, t)


@pytest.mark.parametrize("args", [(3, 4, 1), (3, 2, -1), (4, 4, 0), (0, 3, 0), (5, 3, -2)], ids=str)
def test_tril_and_triu_indices(args):
    assert_same(sdk.tril_indices(*args), torch.tril_indices(*args))
    assert_same(sdk.triu_indices(*args), torch.triu_indices(*args))


@pytest.mark.parametrize("args", [(0, 1, 0.25), (1, 4), (3, 0, -0.5)], ids=str)
def test_range_includes_end_and_warns(args):
    with pytest.warns(UserWarning, match="deprecated"):
        got = sdk.range(*args)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_same(got, torch.range(*args))


def test_unravel_index_wraps_as_torch():
    got = sdk.unravel_index(sdk.tensor([-1, 5, 4, 7]), (2, 3))
    assert_same(got, torch.unravel_index(torch.tensor([-1, 5, 4, 7]), (2, 3)))


@pytest.mark.parametrize("name", ["hann_window", "hamming_window", "blackman_window",
                                  "bartlett_window", "kaiser_window"])  # fmt: skip
@pytest.mark.parametrize("n", [0, 1, 2, 7, 8])
@pytest.mark.parametrize("periodic", [True, False])
def test_windows(name, n, periodic):
    got = getattr(sdk, name)(n, periodic)
    assert_same(got, getattr(torch, name)(n, periodic), rtol=1e-6, atol=1e-7)
    got64 = getattr(sdk, name)(n, periodic, dtype=sdk.float64)
    assert_same(got64, getattr(torch, name)(n, periodic, dtype=torch.float64), rtol=1e-12)


def test_kaiser_beta_and_hamming_coefficients():
    assert_same(sdk.kaiser_window(9, False, 5.0), torch.kaiser_window(9, False, 5.0), rtol=1e-6)
    assert_same(sdk.hamming_window(6, True, 0.5, 0.4), torch.hamming_window(6, True, 0.5, 0.4))


def test_as_strided_scatter_gradient_skips_the_overwritten_elements():
    x = sdk.tensor(A, requires_grad=True)
    src = sdk.tensor(A[0, :, :3] * 10, requires_grad=True)
    weight = np.arange(24.0).reshape(2, 3, 4) + 1
    (sdk.as_strided_scatter(x, src, (3, 3), (4, 1), 1) * sdk.tensor(weight)).sum().backward()
    covered = np.zeros(24, dtype=bool)
    covered[[1 + 4 * i + j for i in range(3) for j in range(3)]] = True
    np.testing.assert_array_equal(
        x.grad.numpy().reshape(-1), np.where(covered, 0, weight.reshape(-1))
    )
    np.testing.assert_array_equal(src.grad.numpy(), weight.reshape(-1)[covered].reshape(3, 3))


def test_vander_gradient_is_the_power_rule():
    v = sdk.tensor(V, requires_grad=True)
    weight = RNG.standard_normal((4, 4))
    (sdk.vander(v) * sdk.tensor(weight)).sum().backward()
    powers = np.arange(3, -1, -1)  # columns x^3, x^2, x^1, x^0
    want = (weight * powers * V[:, None] ** np.maximum(powers - 1, 0)).sum(1)
    np.testing.assert_allclose(v.grad.numpy(), want, rtol=1e-12)


def test_cholesky_factor_gradient_matches_finite_differences():
    """d/dL of sum(w * cholesky_solve(B, L)) over L's lower triangle, the part it reads."""
    weight, h = RNG.standard_normal((4, 4)), 1e-6
    low = sdk.tensor(CHOL, requires_grad=True)
    (sdk.cholesky_solve(sdk.tensor(M), low) * sdk.tensor(weight)).sum().backward()

    def loss(f):
        return (np.linalg.solve(f @ f.T, M) * weight).sum()

    for i, j in [(0, 0), (2, 1), (3, 0), (3, 3)]:
        bump = np.zeros((4, 4))
        bump[i, j] = h
        numeric = (loss(CHOL + bump) - loss(CHOL - bump)) / (2 * h)
        assert abs(low.grad[i, j].item() - numeric) < 1e-6 * max(1, abs(numeric))
    assert low.grad.triu(1).abs().sum().item() == 0


def test_empty_permuted_lays_dims_out_in_the_given_order():
    got = sdk.empty_permuted((2, 3, 4), (0, 2, 1))
    want = torch.empty_permuted((2, 3, 4), (0, 2, 1))
    assert tuple(got.shape) == tuple(want.shape) and got.stride() == want.stride()


def test_in_place_shifts_keep_the_dtype():
    s, t = sdk.tensor([1, 2, 3], dtype=sdk.int32), torch.tensor([1, 2, 3], dtype=torch.int32)
    assert s.bitwise_left_shift_(2) is s
    assert_same(s, t.bitwise_left_shift_(2))
    assert_same(s.bitwise_right_shift_(1), t.bitwise_right_shift_(1))


@pytest.mark.parametrize("shape", [(5, 3), (2, 4, 4)], ids=str)
def test_householder_family(shape):
    a = RNG.standard_normal(shape)
    h, tau = sdk.geqrf(sdk.tensor(a))
    th, ttau = torch.geqrf(torch.tensor(a))
    assert_same((h, tau), (th, ttau), rtol=1e-10, atol=1e-12)
    compare(torch, sdk.orgqr, torch.orgqr, th.numpy(), ttau.numpy(), rtol=1e-10)
    assert_same(sdk.linalg.householder_product(h, tau), torch.linalg.householder_product(th, ttau))
    for left in (True, False):
        for transpose in (True, False):
            other = RNG.standard_normal(shape[:-2] + ((shape[-2], 2) if left else (2, shape[-2])))
            compare(
                torch,
                lambda x, t, o, left=left, tr=transpose: x.ormqr(t, o, left, tr),
                lambda x, t, o, left=left, tr=transpose: x.ormqr(t, o, left, tr),
                th.numpy(), ttau.numpy(), other, grad=(False, False, True), rtol=1e-10,
            )  # fmt: skip
