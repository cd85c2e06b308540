"""Fuzzing elementwise ops against numpy: unary and binary ops (arithmetic, comparisons,
logical, bitwise), Python scalars on either side, torch's type promotion, where, clamp,
masked_fill, in-place ops -- every dtype, broadcasting, 0-size and 0-dim shapes, and
non-contiguous (permuted, stepped, expanded, numpy-strided) inputs."""

from __future__ import annotations

import math
import operator

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import sdk
from tests.fuzz.conftest import examples
from tests.fuzz.strategies import (
    DTYPES,
    FLOATS,
    INTS,
    SDK_DTYPES,
    broadcastable,
    cast,
    category,
    expect,
    is_float,
    promote,
    python_scalars,
    result_type,
    shapes,
    tensors,
)

_erf = np.vectorize(math.erf, otypes=[np.float64])

# name -> float64 reference; these give a floating result (float32 for bool/int inputs).
FLOAT_UNARY = {
    "exp": np.exp,
    "log": np.log,
    "sqrt": np.sqrt,
    "rsqrt": lambda x: 1 / np.sqrt(x),
    "sin": np.sin,
    "cos": np.cos,
    "tanh": np.tanh,
    "sigmoid": lambda x: 1 / (1 + np.exp(-x)),
    "gelu": lambda x: 0.5 * x * (1 + _erf(x / math.sqrt(2))),
    "reciprocal": lambda x: 1 / x,
    "log1p": np.log1p,
    "expm1": np.expm1,
    "erf": _erf,
}
# name -> reference in the input's own dtype (integers wrap).
SAME_UNARY = {
    "neg": np.negative,
    "abs": np.abs,
    "relu": lambda x: np.maximum(x, np.zeros((), x.dtype)),
    "sign": np.sign,
    "square": lambda x: x * x,
    "floor": np.floor,
    "ceil": np.ceil,
    "round": np.round,
    "logical_not": np.logical_not,
    "bitwise_not": np.invert,
}


def unary_expected(name: str, a: np.ndarray, dt: str):
    """(result dtype, reference) of unary op `name` on values a of dtype dt; None: must raise."""
    if name in FLOAT_UNARY:
        rd = dt if is_float(dt) else "float32"
        with np.errstate(all="ignore"):
            return rd, FLOAT_UNARY[name](cast(a, rd).astype(np.float64))
    if name == "logical_not":
        return "bool", np.logical_not(a)
    if dt == "bool":
        if name == "neg":
            return None
        if name == "square":
            return "int64", a.astype(np.int64)
        return "bool", np.logical_not(a) if name == "bitwise_not" else a
    if is_float(dt):
        if name == "bitwise_not":
            return None
        with np.errstate(all="ignore"):
            return dt, SAME_UNARY[name](a.astype(np.float64))
    if name in ("floor", "ceil", "round"):
        return dt, a
    with np.errstate(all="ignore"):
        return dt, SAME_UNARY[name](a)


@examples(300)
@given(
    name=st.sampled_from(sorted(FLOAT_UNARY) + sorted(SAME_UNARY)),
    x=tensors(),
    how=st.sampled_from(["function", "method", "out", "inplace"]),
)
def test_unary(name, x, how):
    dt = x.t.dtype.name
    want = unary_expected(name, x.a, dt)
    fn = getattr(sdk, name)
    if want is None:
        with pytest.raises((TypeError, RuntimeError)):
            fn(x.t)
        return
    rd, ref = want
    if how == "function" or (how == "out" and name == "gelu"):
        got = fn(x.t)
    elif how == "method":
        got = getattr(x.t, name)()
    elif how == "out" and name != "gelu":  # out= must have the result's shape (no resizing)
        out = sdk.empty(*np.shape(ref), dtype=SDK_DTYPES[rd])
        got = fn(x.t, out=out)
        assert got is out
    else:
        if rd != dt or x.layout == "expanded" or not hasattr(x.t, name + "_"):
            return  # in place needs the same dtype and no overlapping elements
        got = getattr(x.t, name + "_")()
        assert got is x.t
    expect(got, ref, rd, msg=f"{name}({x})")


# ------------------------------------------------------------------------------- binary

ARITH = ("add", "sub", "mul", "div", "pow", "maximum", "minimum", "atan2")
ARITH += ("floor_divide", "remainder")
COMPARE = ("eq", "ne", "lt", "le", "gt", "ge")
LOGICAL = ("logical_and", "logical_or", "logical_xor")
BITWISE = ("bitwise_and", "bitwise_or", "bitwise_xor")
BINARY = ARITH + COMPARE + LOGICAL + BITWISE
OPERATORS = {
    "add": operator.add, "sub": operator.sub, "mul": operator.mul, "div": operator.truediv,
    "pow": operator.pow, "floor_divide": operator.floordiv, "remainder": operator.mod,
    "eq": operator.eq, "ne": operator.ne, "lt": operator.lt, "le": operator.le,
    "gt": operator.gt, "ge": operator.ge, "bitwise_and": operator.and_,
    "bitwise_or": operator.or_, "bitwise_xor": operator.xor,
}  # fmt: skip


def _int_pow(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Integer power with wrap-around; negative exponents give 1, +-1 or 0 (torch's rule)."""
    a, b = np.broadcast_arrays(a, b)
    out = np.empty(a.shape, a.dtype)
    for i in np.ndindex(a.shape):
        x, e = int(a[i]), int(b[i])
        if e < 0:
            r = 1 if x == 1 else (-1 if e % 2 else 1) if x == -1 else 0
        else:
            r = pow(x, e, 2**64)
        out[i] = np.array(r % 2**64, dtype=np.uint64).astype(a.dtype)
    return out


def _floor_ref(name: str, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        if name == "floor_divide":
            return np.floor_divide(a, b)
        return np.mod(a, b)


def binary_expected(name: str, a0, b0, ct: str):
    """(result dtype, reference) of op `name` on values a0 and b0 of the operands, whose
    common dtype is ct; None when the op must raise for these dtypes/values."""
    fl = is_float(ct)
    a, b = cast(a0, ct), cast(b0, ct)
    if name == "sub" and ct == "bool":
        return None
    if name in ("floor_divide", "remainder"):
        if ct == "bool" or (not fl and np.any(np.asarray(b) == 0)):
            return None
    if name in BITWISE and fl:
        return None
    if name in ("div", "atan2"):
        rd = ct if fl else "float32"  # integers go to float32 directly, not through ct
        x, y = (cast(v, rd).astype(np.float64) for v in (a0, b0))
        with np.errstate(all="ignore"):
            return rd, (x / y if name == "div" else np.arctan2(x, y))
    if name in COMPARE:
        x, y = (np.asarray(v, np.float64 if fl else None) for v in (a, b))
        return "bool", getattr(np, {"eq": "equal", "ne": "not_equal", "lt": "less",
                                    "le": "less_equal", "gt": "greater",
                                    "ge": "greater_equal"}[name])(x, y)  # fmt: skip
    if name in LOGICAL:
        return "bool", getattr(np, name)(np.asarray(a) != 0, np.asarray(b) != 0)
    if name == "pow":
        if ct == "bool":
            return "int64", _int_pow(a.astype(np.int64), b.astype(np.int64))
        if not fl:
            return ct, _int_pow(np.asarray(a), np.asarray(b))
    x, y = (np.asarray(v, np.float64) if fl else np.asarray(v) for v in (a, b))
    with np.errstate(all="ignore"):
        if name in ("floor_divide", "remainder"):
            return ct, _floor_ref(name, x, y)
        fn = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "pow": np.power,
              "maximum": np.maximum, "minimum": np.minimum, "bitwise_and": np.bitwise_and,
              "bitwise_or": np.bitwise_or, "bitwise_xor": np.bitwise_xor}[name]  # fmt: skip
        return ct, fn(x, y)


def _call(name: str, how: str, x, y):
    if how == "operator" and name in OPERATORS:
        return OPERATORS[name](x, y)
    if how == "method" and isinstance(x, sdk.Tensor):
        return getattr(x, name)(y)
    return getattr(sdk, name)(x, y)


@st.composite
def tensor_pairs(draw):
    """Two tensors whose shapes broadcast (or, sometimes, do not)."""
    s = draw(shapes())
    if draw(st.integers(0, 9)) == 0:
        s2 = draw(shapes())  # anything: numpy decides whether it broadcasts
    else:
        s2 = draw(broadcastable(s))
        if draw(st.booleans()):
            s, s2 = s2, s
    x, y = draw(tensors(shape=s)), draw(tensors(shape=s2))
    return x, y


@examples(350)
@given(
    name=st.sampled_from(BINARY),
    xy=tensor_pairs(),
    how=st.sampled_from(["function", "method", "operator"]),
)
def test_binary_tensor_tensor(name, xy, how):
    x, y = xy
    try:
        shape = np.broadcast_shapes(x.a.shape, y.a.shape)
    except ValueError:
        with pytest.raises((ValueError, RuntimeError, TypeError)):  # dtypes may be checked first
            _call(name, how, x.t, y.t)
        return
    ct = result_type(x.t, y.t)
    want = binary_expected(name, x.a, y.a, ct)
    if want is None:
        with pytest.raises((TypeError, RuntimeError, ValueError)):
            _call(name, how, x.t, y.t)
        return
    got = _call(name, how, x.t, y.t)
    rd, ref = want
    expect(got, np.broadcast_to(ref, shape), rd, msg=f"{name}({x}, {y})")


@examples(350)
@given(
    name=st.sampled_from(BINARY),
    x=tensors(),
    data=st.data(),
    scalar_first=st.booleans(),
    how=st.sampled_from(["function", "operator", "method"]),
)
def test_binary_tensor_scalar(name, x, data, scalar_first, how):
    dt = x.t.dtype.name
    s = data.draw(python_scalars(dt), label="scalar")
    if scalar_first and how == "method":
        how = "function"
    if scalar_first and how == "function" and name not in OPERATORS:
        scalar_first = False  # sdk.maximum(2, t) etc. are covered by the tensor-tensor test
    ct = result_type(x.t, s)  # the scalar is converted to the computation's dtype
    args = (s, x.t) if scalar_first else (x.t, s)
    negative_power = name == "pow" and not is_float(ct) and not scalar_first and s < 0
    want = (
        None
        if negative_power
        else binary_expected(name, *((s, x.a) if scalar_first else (x.a, s)), ct)
    )
    if want is None:
        with pytest.raises((TypeError, RuntimeError, ValueError)):
            _call(name, how, *args)
        return
    got = _call(name, how, *args)
    expect(got, want[1], want[0], msg=f"{name}({args[0]!r}, {args[1]!r}) [{x}]")


# ---------------------------------------------------------------- promotion on its own


@examples(100)
@given(a=st.sampled_from(DTYPES), b=st.sampled_from(DTYPES))
def test_promote_types_matches_torch_lattice(a, b):
    assert sdk.promote_types(SDK_DTYPES[a], SDK_DTYPES[b]).name == promote(a, b)


@examples(100)
@given(x=tensors(), data=st.data())
def test_add_result_dtype(x, data):
    """add's result dtype follows torch's rules for 0-dim tensors and Python numbers."""
    y = data.draw(
        st.one_of(
            tensors(shape=broadcastable(tuple(x.t.shape))),
            st.booleans(),
            st.integers(-5, 5),
            st.floats(-4, 4),
        )
    )
    other = y.t if hasattr(y, "t") else y
    want = result_type(x.t, other)
    got = x.t + other
    assert got.dtype.name == want, f"{x} + {other!r}: {got.dtype.name}, expected {want}"


# ----------------------------------------------------------- where, clamp, masked_fill


@examples(100)
@given(data=st.data(), s=shapes(max_dims=3))
def test_where(data, s):
    c = data.draw(tensors(dtypes="bool", shape=broadcastable(s)), label="cond")
    x = data.draw(st.one_of(tensors(shape=broadcastable(s)), python_scalars("float16")))
    y = data.draw(st.one_of(tensors(shape=s), python_scalars("float16")))
    xv, yv = (v.t if hasattr(v, "t") else v for v in (x, y))
    ct = result_type(xv, yv)
    xa, ya = (cast(v.a if hasattr(v, "t") else np.asarray(v), ct) for v in (x, y))
    got = sdk.where(c.t, xv, yv)
    ref = np.where(c.a, xa, ya)
    expect(got, ref, ct, msg=f"where({c}, {xv!r}, {yv!r})")


@examples(120)
@given(
    x=tensors(dtypes=INTS + FLOATS),
    lo=st.one_of(st.none(), st.integers(-6, 6), st.floats(-4, 4), st.just(math.nan)),
    hi=st.one_of(st.none(), st.integers(-6, 6), st.floats(-4, 4)),
)
def test_clamp_scalars(x, lo, hi):
    if lo is None and hi is None:
        with pytest.raises((RuntimeError, ValueError, TypeError)):
            sdk.clamp(x.t, lo, hi)
        return
    ct = x.t.dtype.name
    for b in (lo, hi):
        if b is not None:
            ct = result_type(sdk.empty(1, dtype=SDK_DTYPES[ct]), b)
    got = sdk.clamp(x.t, lo, hi)
    r = cast(x.a, ct)
    r = r.astype(np.float64) if is_float(ct) else r
    with np.errstate(all="ignore"):
        if lo is not None:
            r = np.maximum(r, cast(np.asarray(lo), ct))
        if hi is not None:
            r = np.minimum(r, cast(np.asarray(hi), ct))
    expect(got, r, ct, msg=f"clamp({x}, {lo}, {hi})")


@examples(100)
@given(data=st.data(), s=shapes(max_dims=3), inplace=st.booleans())
def test_masked_fill(data, s, inplace):
    x = data.draw(tensors(shape=s, layouts=("contiguous", "permuted", "stepped", "numpy_view")))
    m = data.draw(tensors(dtypes="bool", shape=broadcastable(s)), label="mask")
    dt = x.t.dtype.name
    v = data.draw(st.integers(-100, 100) if not is_float(dt) else st.floats(-100, 100))
    got = x.t.masked_fill_(m.t, v) if inplace else sdk.masked_fill(x.t, m.t, v)
    ref = np.where(m.a, cast(np.asarray(v), dt), x.a)
    expect(got, ref, dt, msg=f"masked_fill({x}, {m}, {v})")


@examples(100)
@given(
    x=tensors(layouts=("contiguous", "permuted", "stepped", "numpy_view")),
    data=st.data(),
    op=st.sampled_from(["add_", "sub_", "mul_", "div_"]),
)
def test_inplace_binary_keeps_dtype_or_refuses(x, data, op):
    """t.op_(other) writes t's dtype; a result dtype t can't hold is refused (torch's rule)."""
    y = data.draw(tensors(shape=broadcastable(tuple(x.t.shape))))
    dt = x.t.dtype.name
    name = op[:-1]
    ct = result_type(x.t, y.t)
    want = binary_expected(name, x.a, y.a, ct)
    if want is None or category(want[0]) > category(dt):
        with pytest.raises((TypeError, RuntimeError, ValueError)):
            getattr(x.t, op)(y.t)
        expect(x.t, x.a, dt, msg="unchanged on refusal")
        return
    got = getattr(x.t, op)(y.t)
    assert got is x.t
    expect(got, cast(np.broadcast_to(want[1], x.a.shape), want[0]), dt, msg=f"{x}.{op}({y})")
