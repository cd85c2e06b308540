"""Every differentiable op through gradcheck (float64, random shapes, broadcasting), table-driven."""

from __future__ import annotations

import math

import numpy as np
import pytest

import sdk

RNG_SEED = 1234


def _t(shape, rng, low=None, high=None, away_from=None, requires_grad=True):
    """Random float64 leaf; optionally uniform in [low, high) and kept 0.1 away from values."""
    if low is not None:
        a = rng.uniform(low, high, size=shape)
    else:
        a = rng.standard_normal(shape)
    if away_from is not None:
        for v in away_from:
            close = np.abs(a - v) < 0.1
            a = np.where(close, a + np.sign(a - v + 1e-12) * 0.2, a)
    return sdk.tensor(a, dtype=sdk.float64, requires_grad=requires_grad)


def _idx(values):
    return sdk.tensor(np.asarray(values, dtype=np.int64))


# Fixed operands of the structural cases: zeros inside cumprod's lines, repeated scatter
# indices, a mask broadcast against (3, 4).
_ZEROS = sdk.tensor([[1.0, 0.0, 1.0, 1.0, 1.0], [0.0, 1.0, 0.0, 1.0, 1.0], [1.0] * 5])
_REP = sdk.tensor(np.asarray([[0, 0, 3, 1, 0], [2, 2, 2, 2, 2], [1, 3, 3, 0, 1]], np.int64))
_MASK = sdk.tensor(np.arange(24).reshape(2, 3, 4) % 3 != 1)


_NONFINITE = sdk.tensor([math.nan, math.inf, -math.inf, 0.0, 1.0, 0.0], dtype=sdk.float64)

# Each case: id -> (function, list of input specs). A spec is a shape, or a dict with
# "shape" and keyword arguments of _t (domain restrictions).
POS = {"low": 0.5, "high": 2.0}
CASES = {
    # arithmetic with broadcasting
    "add_broadcast": (lambda a, b: a + b, [(3, 4), (4,)]),
    "add_outer": (lambda a, b: sdk.add(a, b, alpha=2.5), [(3, 1), (1, 4)]),
    "add_scalar": (lambda a: a + 1.5, [(2, 3)]),
    "sub_broadcast": (lambda a, b: a - b, [(2, 3, 4), (3, 1)]),
    "sub_alpha": (lambda a, b: sdk.sub(a, b, alpha=0.5), [(3, 4), (3, 4)]),
    "rsub_scalar": (lambda a: 2.0 - a, [(5,)]),
    "mul_broadcast": (lambda a, b: a * b, [(4, 1, 3), (2, 3)]),
    "mul_scalar": (lambda a: a * 3.0, [(3,)]),
    "div_broadcast": (lambda a, b: a / b, [(3, 4), {"shape": (4,), **POS}]),
    "rdiv_scalar": (lambda b: 2.0 / b, [{"shape": (3, 2), **POS}]),
    "pow_scalar": (lambda a: a**3, [(3, 4)]),
    "pow_frac": (lambda a: a**1.5, [{"shape": (3,), **POS}]),
    "rpow_scalar": (lambda b: 2.0**b, [(2, 3)]),
    "pow_tensor": (lambda a, b: a**b, [{"shape": (2, 3), **POS}, (3,)]),
    "neg": (lambda a: -a, [(2, 3)]),
    # away from the jumps of floor(a / b) (b in [0.5, 2), so a away from multiples of 0.5)
    "remainder": (
        lambda a, b: sdk.remainder(a, b),
        [{"shape": (3, 4), "low": 0.1, "high": 0.4}, {"shape": (4,), "low": 0.5, "high": 2.0}],
    ),
    "remainder_scalar": (lambda a: a % 0.75, [{"shape": (5,), "low": 0.1, "high": 0.6}]),
    "maximum": (lambda a, b: sdk.maximum(a, b), [(3, 4), (4,)]),
    "minimum": (lambda a, b: sdk.minimum(a, b), [(3, 4), (3, 1)]),
    "where": (lambda a, b: sdk.where(a > 0, a, b), [(3, 4), (4,)]),
    "where_scalar": (lambda a: sdk.where(a > 0, a, 0.0), [(3, 4)]),
    "masked_fill": (lambda a: a.masked_fill(a > 0.5, 2.0), [(3, 4)]),
    "clamp": (lambda a: sdk.clamp(a, -0.5, 0.5), [{"shape": (4, 5), "away_from": (-0.5, 0.5)}]),
    "clamp_min": (lambda a: a.clamp(min=0.2), [{"shape": (6,), "away_from": (0.2,)}]),
    # unary math
    "exp": (lambda a: a.exp(), [(3, 4)]),
    "log": (lambda a: a.log(), [{"shape": (3, 4), **POS}]),
    "sqrt": (lambda a: a.sqrt(), [{"shape": (3, 4), **POS}]),
    "rsqrt": (lambda a: a.rsqrt(), [{"shape": (3,), **POS}]),
    "sin": (lambda a: a.sin(), [(3, 4)]),
    "cos": (lambda a: a.cos(), [(3, 4)]),
    "tanh": (lambda a: a.tanh(), [(3, 4)]),
    "sigmoid": (lambda a: a.sigmoid(), [(3, 4)]),
    "relu": (lambda a: a.relu(), [{"shape": (3, 4), "away_from": (0.0,)}]),
    "elu": (
        lambda a: sdk.nn.functional.elu(a, alpha=1.3),
        [{"shape": (3, 4), "away_from": (0.0,)}],
    ),
    "gelu": (lambda a: sdk.nn.functional.gelu(a), [(3, 4)]),
    "gelu_tanh": (lambda a: sdk.nn.functional.gelu(a, approximate="tanh"), [(3, 4)]),
    "abs": (lambda a: a.abs(), [{"shape": (3, 4), "away_from": (0.0,)}]),
    "square": (lambda a: sdk.square(a), [(3, 4)]),
    "reciprocal": (lambda a: sdk.reciprocal(a), [{"shape": (3, 4), **POS}]),
    "log1p": (lambda a: sdk.log1p(a), [{"shape": (3, 4), **POS}]),
    "expm1": (lambda a: sdk.expm1(a), [(3, 4)]),
    "erf": (lambda a: sdk.erf(a), [(3, 4)]),
    # the ops added with ABI 1.3 (tables, parameters, ternary)
    "tan": (lambda a: a.tan(), [{"shape": (3, 4), "low": -1.2, "high": 1.2}]),
    "asin": (lambda a: a.asin(), [{"shape": (3, 4), "low": -0.9, "high": 0.9}]),
    "acos": (lambda a: sdk.acos(a), [{"shape": (3, 4), "low": -0.9, "high": 0.9}]),
    "atan": (lambda a: a.atan(), [(3, 4)]),
    "sinh": (lambda a: a.sinh(), [(3, 4)]),
    "cosh": (lambda a: a.cosh(), [(3, 4)]),
    "asinh": (lambda a: a.asinh(), [(3, 4)]),
    "acosh": (lambda a: a.acosh(), [{"shape": (3, 4), "low": 1.2, "high": 4.0}]),
    "atanh": (lambda a: a.atanh(), [{"shape": (3, 4), "low": -0.9, "high": 0.9}]),
    "log2": (lambda a: a.log2(), [{"shape": (3, 4), **POS}]),
    "log10": (lambda a: sdk.log10(a), [{"shape": (3, 4), **POS}]),
    "exp2": (lambda a: a.exp2(), [(3, 4)]),
    "trunc": (lambda a: a.trunc() + a, [{"shape": (3, 4), "away_from": (-1.0, 0.0, 1.0)}]),
    "frac": (lambda a: a.frac(), [{"shape": (3, 4), "away_from": (-1.0, 0.0, 1.0)}]),
    "silu": (lambda a: sdk.nn.functional.silu(a), [(3, 4)]),
    "mish": (lambda a: sdk.nn.functional.mish(a), [(3, 4)]),
    "erfc": (lambda a: a.erfc(), [(3, 4)]),
    "erfinv": (lambda a: a.erfinv(), [{"shape": (3, 4), "low": -0.9, "high": 0.9}]),
    "softplus": (lambda a: sdk.nn.functional.softplus(a * 8, beta=0.7, threshold=3.0), [(3, 5)]),
    "leaky_relu": (
        lambda a: sdk.nn.functional.leaky_relu(a, 0.2),
        [{"shape": (3, 4), "away_from": (0.0,)}],
    ),
    "hardtanh": (
        lambda a: sdk.nn.functional.hardtanh(a * 2, -1.0, 1.5),
        [{"shape": (4, 5), "away_from": (-0.5, 0.75)}],
    ),
    "relu6": (
        lambda a: sdk.nn.functional.relu6(a * 5),
        [{"shape": (4, 5), "away_from": (0.0, 1.2)}],
    ),
    "nan_to_num": (  # the non-finite entries' gradients are 0
        lambda a: sdk.nan_to_num(a + _NONFINITE, posinf=3.0),
        [(6,)],
    ),
    "fmod": (
        lambda a, b: sdk.fmod(a, b),
        [{"shape": (3, 4), "low": 0.1, "high": 0.4}, {"shape": (4,), "low": 0.5, "high": 2.0}],
    ),
    "fmod_scalar": (lambda a: a.fmod(0.75), [{"shape": (5,), "low": -0.6, "high": 0.6}]),
    "hypot": (lambda a, b: sdk.hypot(a, b), [(3, 4), (4,)]),
    "copysign": (lambda a, b: sdk.copysign(a, b), [(3, 4), {"shape": (3, 1), "away_from": (0.0,)}]),
    "logaddexp": (lambda a, b: sdk.logaddexp(a, b), [(3, 4), (3, 1)]),
    "xlogy": (lambda a, b: sdk.xlogy(a, b), [(3, 4), {"shape": (4,), **POS}]),
    "xlogy_scalar_x": (lambda b: sdk.xlogy(2.0, b), [{"shape": (4,), **POS}]),
    "lerp_scalar": (lambda a, b: sdk.lerp(a, b, 0.3), [(3, 4), (4,)]),
    "lerp_tensor": (lambda a, b, w: sdk.lerp(a, b, w), [(3, 4), (4,), (3, 1)]),
    "addcmul": (lambda s, a, b: sdk.addcmul(s, a, b, value=0.5), [(3, 4), (3, 1), (4,)]),
    "addcdiv": (
        lambda s, a, b: sdk.addcdiv(s, a, b, value=-2.0),
        [(3, 4), (3, 1), {"shape": (4,), **POS}],
    ),
    "clamp_tensor": (
        lambda a, lo, hi: sdk.clamp(a, lo, hi),
        [
            {"shape": (4, 5)},
            {"shape": (5,), "low": -1.0, "high": -0.2},
            {"shape": (4, 1), "low": 0.2, "high": 1.0},
        ],
    ),  # fmt: skip
    "clamp_tensor_min": (
        lambda a, lo: a.clamp_min(lo),
        [{"shape": (4, 5)}, {"shape": (5,), "low": -0.5, "high": 0.5}],
    ),
    "div_trunc": (lambda a, b: sdk.div(a, b, rounding_mode="trunc") + a * b, [(3, 4), (4,)]),
    "lerp_inplace": (lambda a, b: (a * 1.0).lerp_(b, 0.25), [(3, 4), (3, 4)]),
    "addcmul_inplace": (lambda s, a, b: (s * 1.0).addcmul_(a, b), [(3, 4), (4,), (3, 1)]),
    "clamp_tensor_inplace": (
        lambda a, lo: (a * 1.0).clamp_(min=lo),
        [{"shape": (4, 5)}, {"shape": (5,), "low": -0.5, "high": 0.5}],
    ),
    "tan_inplace": (lambda a: (a * 1.0).tan_(), [{"shape": (3, 4), "low": -1.0, "high": 1.0}]),
    # reductions
    "sum_all": (lambda a: a.sum(), [(3, 4)]),
    "sum_dim": (lambda a: a.sum(1), [(3, 4, 2)]),
    "sum_dims_keepdim": (lambda a: a.sum((0, 2), keepdim=True), [(3, 4, 2)]),
    "sum_neg_dim": (lambda a: a.sum(-1), [(3, 4)]),
    "mean_all": (lambda a: a.mean(), [(3, 4)]),
    "mean_dim": (lambda a: a.mean(0), [(3, 4)]),
    "prod_all": (lambda a: a.prod(), [(2, 3)]),
    "prod_dim": (lambda a: a.prod(1, keepdim=True), [(3, 4)]),
    "prod_with_zero": (
        lambda a: (a * sdk.tensor([[1.0, 0.0, 1.0]], dtype=sdk.float64)).prod(1),
        [(2, 3)],
    ),
    "amax_dim": (lambda a: a.amax(1), [(3, 5)]),
    "amin_all": (lambda a: a.amin(), [(3, 5)]),
    "max_all": (lambda a: a.max(), [(3, 5)]),
    "max_dim": (lambda a: a.max(1).values, [(3, 5)]),
    "min_dim_keepdim": (lambda a: a.min(0, keepdim=True)[0], [(3, 5)]),
    "var_all": (lambda a: a.var(), [(3, 4)]),
    "var_dim": (lambda a: a.var(1, correction=0), [(3, 4)]),
    "std_dim": (lambda a: a.std(0, keepdim=True), [(3, 4)]),
    "softmax": (lambda a: a.softmax(1), [(3, 5)]),
    "softmax_dim0": (lambda a: sdk.softmax(a, 0), [(3, 5)]),
    "log_softmax": (lambda a: a.log_softmax(-1), [(2, 3, 4)]),
    # linear algebra
    "mm": (lambda a, b: a.mm(b), [(3, 4), (4, 2)]),
    "addmm": (lambda c, a, b: sdk.addmm(c, a, b), [(2,), (3, 4), (4, 2)]),
    "addmm_beta_alpha": (
        lambda c, a, b: sdk.addmm(c, a, b, beta=0.5, alpha=2.0),
        [(3, 2), (3, 4), (4, 2)],
    ),
    "bmm": (lambda a, b: a.bmm(b), [(2, 3, 4), (2, 4, 2)]),
    "matmul_2d": (lambda a, b: a @ b, [(3, 4), (4, 2)]),
    "matmul_1d_2d": (lambda a, b: a @ b, [(4,), (4, 2)]),
    "matmul_2d_1d": (lambda a, b: a @ b, [(3, 4), (4,)]),
    "matmul_1d_1d": (lambda a, b: sdk.matmul(a, b), [(4,), (4,)]),
    "matmul_batch_broadcast": (lambda a, b: a @ b, [(2, 3, 4), (4, 2)]),
    "matmul_batch_both": (lambda a, b: a @ b, [(2, 1, 3, 4), (3, 4, 2)]),
    "mv": (lambda a, x: a.mv(x), [(3, 4), (4,)]),
    "dot": (lambda a, b: a.dot(b), [(5,), (5,)]),
    # shape and views
    "view": (lambda a: a.view(4, 3) * 2, [(3, 4)]),
    "reshape": (lambda a: a.reshape(2, -1), [(3, 4)]),
    "transpose": (lambda a: a.transpose(0, 2), [(2, 3, 4)]),
    "t": (lambda a: a.t(), [(3, 4)]),
    "permute": (lambda a: a.permute(2, 0, 1), [(2, 3, 4)]),
    "expand": (lambda a: a.expand(3, 4), [(1, 4)]),
    "expand_new_dims": (lambda a: a.expand(2, 3, 4), [(3, 1)]),
    "squeeze": (lambda a: a.squeeze(1), [(3, 1, 4)]),
    "unsqueeze": (lambda a: a.unsqueeze(0), [(3, 4)]),
    "flatten": (lambda a: a.flatten(1), [(2, 3, 4)]),
    "contiguous": (lambda a: a.t().contiguous(), [(3, 4)]),
    "clone": (lambda a: a.clone(), [(3, 4)]),
    "narrow": (lambda a: a.narrow(1, 1, 2), [(3, 4)]),
    "select": (lambda a: a.select(0, 1), [(3, 4)]),
    "getitem_int": (lambda a: a[1], [(3, 4)]),
    "getitem_slice": (lambda a: a[:, 1:3], [(3, 4)]),
    "getitem_step": (lambda a: a[::2], [(5, 2)]),
    "cat": (lambda a, b: sdk.cat([a, b], dim=1), [(2, 3), (2, 2)]),
    "cat_dim0": (lambda a, b, c: sdk.cat([a, b, c]), [(1, 3), (2, 3), (1, 3)]),
    "stack": (lambda a, b: sdk.stack([a, b], dim=1), [(2, 3), (2, 3)]),
    "chunk": (lambda a: a.chunk(3, dim=1), [(2, 7)]),
    "chunk_partial_use": (lambda a: a.chunk(2)[1] * 3, [(4, 3)]),
    "split_sizes": (lambda a: sdk.split(a, [1, 3], dim=0), [(4, 2)]),
    "unbind": (lambda a: a.unbind(1), [(2, 3)]),
    "index_select": (lambda a: a.index_select(0, _idx([2, 0, 2])), [(3, 4)]),
    "gather": (lambda a: a.gather(1, _idx([[0, 0], [1, 0], [2, 1]])), [(3, 4)]),
    "advanced_index_repeat": (lambda a: a[_idx([0, 2, 0])], [(3, 4)]),
    "advanced_index_2d": (lambda a: a[_idx([0, 1]), _idx([2, 3])], [(3, 4)]),
    # sorting and scans (random inputs: no ties)
    "sort": (lambda a: a.sort(1, descending=True).values, [(3, 5)]),
    "sort_dim0": (lambda a: sdk.sort(a, 0).values, [(4, 3)]),
    "topk": (lambda a: a.topk(2, dim=0).values, [(4, 3)]),
    "kthvalue": (lambda a: a.kthvalue(2, 1).values, [(3, 4)]),
    "median_dim": (lambda a: a.median(1, keepdim=True).values, [(3, 5)]),
    "median_all": (lambda a: sdk.median(a), [(3, 4)]),
    "cummax": (lambda a: a.cummax(1).values, [(3, 5)]),
    "cummin": (lambda a: a.cummin(0).values, [(4, 3)]),
    "cumsum": (lambda a: a.cumsum(1), [(3, 4)]),
    "cumsum_inplace": (lambda a: (a * 1).cumsum_(0), [(3, 4)]),
    "cumprod": (lambda a: a.cumprod(1), [(3, 5)]),
    "cumprod_zeros": (lambda a: (a * _ZEROS).cumprod(1), [(3, 5)]),
    # scatter and index
    "scatter": (lambda a, b: a.scatter(1, _idx([[0, 3], [4, 1], [2, 0]]), b), [(3, 5), (3, 2)]),
    "scatter_small_index": (lambda a, b: a.scatter(0, _idx([[2, 0]]), b), [(3, 2), (2, 3)]),
    "scatter_value": (lambda a: a.scatter(0, _idx([[1, 0, 2]]), 1.5), [(3, 3)]),
    "scatter_inplace": (lambda a, b: (a * 1).scatter_(1, _idx([[1], [0]]), b), [(2, 3), (2, 1)]),
    "scatter_reduce_sum": (lambda a, b: a.scatter_reduce(1, _REP, b, "sum"), [(3, 4), (3, 5)]),
    "scatter_reduce_sum_noself": (
        lambda a, b: a.scatter_reduce(1, _REP, b, "sum", include_self=False),
        [(3, 4), (3, 5)],
    ),
    "scatter_reduce_mean": (lambda a, b: a.scatter_reduce(1, _REP, b, "mean"), [(3, 4), (3, 5)]),
    "scatter_reduce_mean_noself": (
        lambda a, b: a.scatter_reduce(1, _REP, b, "mean", include_self=False),
        [(3, 4), (3, 5)],
    ),
    "scatter_reduce_amax": (lambda a, b: a.scatter_reduce(1, _REP, b, "amax"), [(3, 4), (3, 5)]),
    "scatter_reduce_amin_noself": (
        lambda a, b: a.scatter_reduce(1, _REP, b, "amin", include_self=False),
        [(3, 4), (3, 5)],
    ),
    "scatter_reduce_prod": (
        lambda a, b: a.scatter_reduce(1, _REP, b, "prod"),
        [{"shape": (3, 4), **POS}, {"shape": (3, 5), **POS}],
    ),
    "index_copy": (lambda a, b: a.index_copy(0, _idx([2, 0]), b), [(3, 4), (2, 4)]),
    "index_copy_inplace": (lambda a, b: (a * 1).index_copy_(1, _idx([1]), b), [(2, 3), (2, 1)]),
    "index_fill": (lambda a: a.index_fill(1, _idx([0, -1]), 0.5), [(3, 4)]),
    "masked_select_broadcast": (lambda a: a.masked_select(_MASK), [(3, 4)]),
    "masked_scatter": (lambda a, b: a.masked_scatter(_MASK[0], b), [(3, 4), (13,)]),
    "take": (lambda a: a.take(_idx([[0, -1], [5, 5]])), [(3, 4)]),
    "take_along_dim": (lambda a: a.take_along_dim(_idx([[0, 2], [1, 1]]), 1), [(2, 3)]),
    # reordering and views
    "flip": (lambda a: a.flip(0, 1), [(3, 4)]),
    "roll": (lambda a: a.roll((1, -2), (0, 1)), [(3, 4)]),
    "roll_flat": (lambda a: a.roll(3), [(3, 4)]),
    "tril": (lambda a: a.tril(-1), [(4, 3)]),
    "triu_batched": (lambda a: sdk.triu(a, 1), [(2, 3, 4)]),
    "tril_inplace": (lambda a: (a * 1).tril_(), [(3, 3)]),
    "diagonal": (lambda a: a.diagonal(1, 0, 2), [(3, 4, 4)]),
    "diag_vector": (lambda a: sdk.diag(a, -1), [(4,)]),
    "diag_matrix": (lambda a: sdk.diag(a, 1), [(3, 4)]),
    "diag_embed": (lambda a: a.diag_embed(1, 0, 2), [(2, 3)]),
    "repeat_interleave_int": (lambda a: a.repeat_interleave(2, 0), [(3, 2)]),
    "repeat_interleave_tensor": (lambda a: a.repeat_interleave(_idx([1, 0, 2]), 0), [(3, 2)]),
    "repeat_interleave_flat": (lambda a: a.repeat_interleave(_idx([2]), None), [(2, 2)]),
    "unfold": (lambda a: a.unfold(1, 3, 2), [(2, 7)]),
    "unfold_overlapping": (lambda a: a.unfold(0, 2, 1), [(4, 3)]),
    # compositions
    "chain": (lambda a, b: ((a * b).sin() + a.exp() / (1 + b * b)).sum(0), [(3, 4), (4,)]),
    "leaf_used_twice": (lambda a: a * a + a, [(3,)]),
}


def _make_inputs(specs, rng):
    out = []
    for spec in specs:
        if isinstance(spec, dict):
            kw = dict(spec)
            shape = kw.pop("shape")
            out.append(_t(shape, rng, **kw))
        else:
            out.append(_t(spec, rng))
    return out


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradcheck_op(name):
    fn, specs = CASES[name]
    rng = np.random.default_rng(RNG_SEED + sum(map(ord, name)))
    inputs = _make_inputs(specs, rng)
    assert sdk.autograd.gradcheck(fn, inputs, eps=1e-6, atol=1e-5, rtol=1e-3)


def test_floor_divide_records_and_refuses_at_backward_as_torch():
    x = sdk.tensor([3.0, 5.0], requires_grad=True)
    y = sdk.floor_divide(x, 2)
    assert y.requires_grad  # torch's result requires grad too
    np.testing.assert_array_equal(y.detach().numpy(), [1.0, 2.0])
    with pytest.raises(NotImplementedError, match="derivative for 'floor_divide'"):
        y.sum().backward()


def test_every_core_differentiable_op_has_a_formula():
    from sdk.autograd.derivatives import DERIVATIVES

    required = [
        "add", "sub", "mul", "div", "pow", "neg", "exp", "log", "sqrt", "rsqrt", "sin", "cos",
        "tanh", "sigmoid", "relu", "elu", "gelu", "abs", "clamp", "maximum", "minimum", "where",
        "masked_fill", "sum", "mean", "prod", "amax", "amin", "max", "min", "var", "std",
        "softmax", "log_softmax", "mm", "addmm", "bmm", "matmul", "mv", "dot", "cat", "stack",
        "chunk", "split", "unbind", "narrow", "select", "slice", "index", "index_select",
        "gather", "view", "reshape", "transpose", "t", "permute", "expand", "squeeze",
        "unsqueeze", "flatten", "contiguous", "clone", "to", "square", "reciprocal", "log1p",
        "expm1", "erf", "rsub",
    ]  # fmt: skip
    missing = [op for op in required if op not in DERIVATIVES]
    assert not missing


def test_broadcast_gradient_is_summed_to_input_shape():
    a = sdk.ones(3, 4, dtype=sdk.float64, requires_grad=True)
    b = sdk.ones(4, dtype=sdk.float64, requires_grad=True)
    c = sdk.ones(3, 1, dtype=sdk.float64, requires_grad=True)
    (a * b * c * 2).sum().backward()
    assert tuple(b.grad.shape) == (4,)
    assert tuple(c.grad.shape) == (3, 1)
    np.testing.assert_allclose(b.grad.numpy(), np.full(4, 6.0))
    np.testing.assert_allclose(c.grad.numpy(), np.full((3, 1), 8.0))


def test_mixed_dtype_gradient_has_input_dtype():
    a = sdk.ones(3, dtype=sdk.float32, requires_grad=True)
    b = sdk.ones(3, dtype=sdk.float64, requires_grad=True)
    (a * b).sum().backward()
    assert a.grad.dtype == sdk.float32
    assert b.grad.dtype == sdk.float64


def test_cast_backward_returns_source_dtype():
    a = sdk.ones(3, dtype=sdk.float32, requires_grad=True)
    (a.to(sdk.float64) * 2).sum().backward()
    assert a.grad.dtype == sdk.float32
    np.testing.assert_allclose(a.grad.numpy(), [2.0, 2.0, 2.0])


def test_max_dim_ties_gradient_goes_to_returned_index():
    a = sdk.tensor([[1.0, 3.0, 3.0], [2.0, 0.0, 2.0]], dtype=sdk.float64, requires_grad=True)
    values, indices = a.max(1)
    values.sum().backward()
    expected = np.zeros((2, 3))
    for row, col in enumerate(indices.tolist()):
        expected[row, col] = 1.0
    np.testing.assert_allclose(a.grad.numpy(), expected)


def test_amax_ties_share_gradient_evenly():
    a = sdk.tensor([1.0, 3.0, 3.0], dtype=sdk.float64, requires_grad=True)
    a.amax().backward()
    np.testing.assert_allclose(a.grad.numpy(), [0.0, 0.5, 0.5])


@pytest.mark.parametrize(
    "op", ["log_", "sin_", "cos_", "abs_", "square_", "log1p_", "erf_", "sqrt_", "exp_"]
)
def test_inplace_ops_whose_derivative_needs_the_old_value(op):
    """Kept as a differentiable clone before the write, like torch; matches out-of-place."""
    rng = np.random.default_rng(1)
    x = _t((2, 3), rng, low=0.2, high=2.0)

    def f(x):
        y = x * 1.5
        getattr(y, op)()
        return y * y

    assert sdk.autograd.gradcheck(f, [x])
    y = x * 1.5
    getattr(y, op)()
    want = getattr(x * 1.5, op[:-1])().detach().numpy()
    np.testing.assert_allclose(y.detach().numpy(), want)
    assert y.grad_fn.name().lower().startswith(op[:-1].replace("_", ""))


def test_inplace_pow_with_tensor_exponent():
    rng = np.random.default_rng(2)
    x, e = _t((3,), rng, low=0.5, high=2.0), _t((3,), rng, low=1.0, high=3.0)

    def f(x, e):
        y = x * 1.0
        y.pow_(e)
        return y

    assert sdk.autograd.gradcheck(f, [x, e])


def test_inplace_ops_on_non_leaf_are_differentiated():
    rng = np.random.default_rng(0)
    x = _t((3, 4), rng)

    def f(x):
        y = x * 1.0
        y.add_(2.0)
        y.mul_(3.0)
        y.exp_()
        return y

    assert sdk.autograd.gradcheck(f, [x])


@pytest.mark.parametrize(
    "name",
    [
        "sort", "median_all", "cummax", "cumsum", "cumprod", "cumprod_zeros", "scatter",
        "scatter_reduce_mean", "index_copy", "masked_select_broadcast", "masked_scatter", "take",
        "flip", "roll", "triu_batched", "diagonal", "diag_embed", "unfold_overlapping",
        "repeat_interleave_tensor",
    ],
)  # fmt: skip
def test_gradgradcheck_structural_ops(name):
    """The backward formulas of the structural ops are built from recorded ops themselves."""
    fn, specs = CASES[name]
    rng = np.random.default_rng(RNG_SEED + sum(map(ord, name)))
    inputs = _make_inputs(specs, rng)
    assert sdk.autograd.gradgradcheck(fn, inputs, eps=1e-6, atol=1e-4, rtol=1e-3)


def test_inplace_structural_ops_refuse_a_leaf_that_requires_grad():
    x = sdk.zeros(2, 3, dtype=sdk.float64, requires_grad=True)
    for write in (
        lambda: x.scatter_(1, _idx([[0], [1]]), 1.0),
        lambda: x.index_fill_(1, _idx([0]), 1.0),
        lambda: x.tril_(),
        lambda: x.cumsum_(1),
        lambda: x.masked_scatter_(x > 0, sdk.ones(6, dtype=sdk.float64)),
    ):
        with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
            write()


def test_rounded_division_has_zero_gradient_in_place_too():
    x = sdk.tensor([3.0, -5.5], dtype=sdk.float64, requires_grad=True)
    y = x * 1.0
    y.div_(2.0, rounding_mode="floor")
    (y + x).sum().backward()  # only the + x path carries gradient
    np.testing.assert_array_equal(x.grad.numpy(), [1.0, 1.0])
    z = sdk.div(x, 2.0, rounding_mode="trunc")
    assert z.requires_grad
    np.testing.assert_array_equal(z.detach().numpy(), [1.0, -2.0])


def test_clamp_with_a_tensor_bound_in_place_differentiates_the_bound():
    x = sdk.tensor([-2.0, 0.5, 3.0], dtype=sdk.float64, requires_grad=True)
    lo = sdk.tensor([0.0, 0.0, 0.0], dtype=sdk.float64, requires_grad=True)
    y = x * 1.0
    y.clamp_(min=lo)
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 1.0, 1.0])
    np.testing.assert_array_equal(lo.grad.numpy(), [1.0, 0.0, 0.0])
