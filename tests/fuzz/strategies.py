"""Hypothesis strategies for the fuzz tests: dtypes, shapes, values and tensor layouts, plus
numpy references for dtype casts, torch's type promotion and result comparison.

Values are drawn from a seeded numpy generator (fast, and reproducible from the seed the
test draws) and are made exactly representable in the tensor's dtype, so the reference sees
the very numbers the tensor holds. A tensor comes in one of several layouts with the same
logical values: contiguous, permuted (incl. transposed), stepped slices at an offset,
expanded (stride 0), or a non-contiguous numpy view shared through from_numpy.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from hypothesis import strategies as st

import sdk
from sdk.testing import assert_close
from tests.conftest import _tol

FLOATS = ("float16", "bfloat16", "float32", "float64")
INTS = ("uint8", "int8", "int16", "int32", "int64")
DTYPES = ("bool",) + INTS + FLOATS
SDK_DTYPES = {name: getattr(sdk, name) for name in DTYPES}
LAYOUTS = ("contiguous", "permuted", "stepped", "expanded", "numpy_view")


def is_float(name: str) -> bool:
    return name in FLOATS


def category(name: str) -> int:
    """bool < integral < floating, as in torch's promotion."""
    return 2 if name in FLOATS else 0 if name == "bool" else 1


def ref_dtype(name: str) -> np.dtype:
    """numpy dtype that holds values of sdk dtype `name` exactly (bfloat16 in float32)."""
    return np.dtype(np.float32 if name == "bfloat16" else name)


# ------------------------------------------------------------------------ casts and promotion


def round_bf16(x: np.ndarray) -> np.ndarray:
    """float values rounded to bfloat16 (to nearest, ties to even), returned as float32."""
    f = np.asarray(x, dtype=np.float64).astype(np.float32)
    u = f.view(np.uint32).astype(np.uint64)
    r = ((u + 0x7FFF + ((u >> 16) & 1)) & 0xFFFF0000).astype(np.uint32).view(np.float32)
    return np.where(np.isnan(f), f, r).astype(np.float32)


def cast(a: np.ndarray, name: str) -> np.ndarray:
    """Values of `a` converted to sdk dtype `name` (integers wrap, as the core's casts do)."""
    a = np.asarray(a)
    if name == "bfloat16":
        return round_bf16(a)
    if name == "bool":
        return a != 0
    if name in INTS and a.dtype.kind == "f":
        return np.trunc(a).astype(np.int64).astype(name)
    if name in INTS and a.dtype.kind == "b":
        return a.astype(name)
    if name in INTS:
        return a.astype(np.int64).astype(name)  # modular
    with np.errstate(over="ignore"):  # past the dtype's range is inf, as in the core
        return a.astype(name)


def promote(a: str, b: str) -> str:
    """torch.promote_types on dtype names (written from torch's documented lattice)."""
    if a == b:
        return a
    if a == "bool" or b == "bool":
        return b if a == "bool" else a
    fa, fb = is_float(a), is_float(b)
    if fa != fb:
        return a if fa else b
    if fa:
        if {a, b} == {"float16", "bfloat16"}:
            return "float32"
        return max(a, b, key=FLOATS.index)
    if {a, b} == {"uint8", "int8"}:
        return "int16"
    return max(a, b, key=INTS.index)


def operand_kind(x) -> tuple:
    """(dtype name, is a dimensioned tensor, is a Python number) of an op operand."""
    if isinstance(x, sdk.Tensor):
        return x.dtype.name, x.ndim > 0, False
    if isinstance(x, bool):
        return "bool", False, True
    if isinstance(x, int):
        return "int64", False, True
    return "float32", False, True  # a Python float: the default float dtype


def result_type(x, y) -> str:
    """torch's result_type: dimensioned tensors > 0-dim tensors > Python numbers, where a
    lower-priority operand only counts when its category is higher than the others'."""
    (da, dima, sca), (db, dimb, scb) = operand_kind(x), operand_kind(y)
    prio_a = 2 if dima else (0 if sca else 1)
    prio_b = 2 if dimb else (0 if scb else 1)
    if prio_a == prio_b:
        return promote(da, db)
    hi, lo = (da, db) if prio_a > prio_b else (db, da)
    # A number's dtype here is already the default of its kind (int64 / float32).
    return lo if category(lo) > category(hi) else hi


# --------------------------------------------------------------------------- shapes, values


def shapes(min_dims: int = 0, max_dims: int = 4, max_side: int = 4):
    """Shapes with sides 0..max_side (0 and 1 drawn often)."""
    side = st.one_of(st.sampled_from([0, 1, 1, 2]), st.integers(0, max_side))
    return st.lists(side, min_size=min_dims, max_size=max_dims).map(tuple)


def values(rng: np.random.Generator, name: str, shape: tuple, kind: str) -> np.ndarray:
    """Random values for dtype `name`, exactly representable in it (see ref_dtype).

    kind: "small" (few distinct values: ties, duplicates), "wide" (the whole range:
    integer overflow, large and tiny floats) or "special" (floats with nan/inf/-0.0)."""
    if name == "bool":
        return rng.integers(0, 2, size=shape).astype(bool)
    if name in INTS:
        info = np.iinfo(name)
        if kind == "small":
            lo = 0 if name == "uint8" else -4
            return rng.integers(lo, 5, size=shape).astype(name)
        return rng.integers(int(info.min), int(info.max), size=shape, endpoint=True).astype(name)
    if kind == "small":
        v = rng.integers(-12, 13, size=shape) / 4.0
    elif kind == "wide":
        big = 4.0 if name in ("float16",) else 30.0
        v = rng.standard_normal(size=shape) * np.exp(rng.uniform(-big, big, size=shape))
    else:
        v = rng.standard_normal(size=shape) * 3
        specials = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0, 1.0, -1.0])
        pick = rng.random(size=shape) < 0.3
        v = np.where(pick, rng.choice(specials, size=shape), v)
    return cast(v, name).astype(ref_dtype(name))


def to_sdk(a: np.ndarray, name: str):
    """A contiguous tensor of dtype `name` holding a's values (bfloat16 through float32)."""
    if name == "bfloat16":
        return sdk.tensor(np.array(a, dtype=np.float32, order="C")).to(sdk.bfloat16)
    return sdk.tensor(np.array(a, dtype=ref_dtype(name), order="C"))


@dataclass
class Case:
    """A generated tensor, the numpy array of its logical values, and how it was laid out."""

    t: object
    a: np.ndarray
    layout: str

    def __repr__(self) -> str:
        t = self.t
        return f"<{self.layout} {t.dtype.name}{list(t.shape)} strides={t.stride()}>"


def _lay_out(draw, rng, a: np.ndarray, name: str, layout: str) -> tuple:
    """(tensor, logical values) for values `a` in `layout`."""
    shape, n = a.shape, a.ndim
    if layout == "numpy_view" and name == "bfloat16":
        layout = "stepped"  # numpy has no bfloat16
    if n == 0 or layout == "contiguous":
        return to_sdk(a, name), a
    if layout == "permuted":
        p = draw(st.permutations(range(n)))
        inv = tuple(np.argsort(p))
        return to_sdk(np.ascontiguousarray(a.transpose(p)), name).permute(*inv), a
    if layout == "expanded":
        flat = draw(st.lists(st.booleans(), min_size=n, max_size=n))
        small = tuple(1 if f else s for f, s in zip(flat, shape))
        base = values(rng, name, small, "small")
        drop = 0
        while drop < n and flat[drop] and draw(st.booleans()):
            drop += 1  # leading dims expand() adds rather than broadcasts
        t = to_sdk(base.reshape(small[drop:]), name).expand(*shape)
        return t, np.broadcast_to(base, shape).copy()
    steps = draw(st.lists(st.integers(1, 3), min_size=n, max_size=n))
    offs = draw(st.lists(st.integers(0, 2), min_size=n, max_size=n))
    big = tuple(o + s * k for o, s, k in zip(offs, shape, steps))
    base = values(rng, name, big, "wide")
    idx = tuple(slice(o, o + s * k, k) for o, s, k in zip(offs, shape, steps))
    base[idx] = a
    if layout == "stepped":
        return to_sdk(base, name)[idx], a
    p = draw(st.permutations(range(n)))  # numpy_view: stepped and permuted, numpy's strides
    inv = tuple(np.argsort(p))
    view = base.transpose(p)[tuple(idx[i] for i in p)].transpose(inv)
    return sdk.from_numpy(view), a


@st.composite
def tensors(draw, dtypes=DTYPES, shape=None, layouts=LAYOUTS, kinds=("small", "wide", "special")):
    """A Case: a tensor of one of `dtypes`, of `shape` (a tuple, a strategy, or None for any),
    in a drawn layout."""
    name = draw(st.sampled_from(dtypes)) if not isinstance(dtypes, str) else dtypes
    if shape is None:
        shape = draw(shapes())
    elif isinstance(shape, st.SearchStrategy):
        shape = draw(shape)
    kind = draw(st.sampled_from(kinds))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    a = values(rng, name, tuple(shape), kind)
    layout = draw(st.sampled_from(layouts))
    t, a = _lay_out(draw, rng, a, name, layout)
    return Case(t, a, layout)


def broadcastable(shape: tuple):
    """A shape that broadcasts with `shape` (fewer dims, or 1 in some places)."""

    @st.composite
    def make(draw):
        n = draw(st.integers(0, len(shape)))
        tail = list(shape[len(shape) - n :])
        for i in range(n):
            if draw(st.integers(0, 3)) == 0:
                tail[i] = 1
        return tuple(tail)

    return make()


def python_scalars(name: str):
    """Python numbers that may meet a tensor of dtype `name` (kept in the dtype's range for
    floats, where whether a scalar is rounded before or after the op would matter)."""
    limit = 1e4 if name in ("float16", "bfloat16") else 1e30
    return st.one_of(
        st.booleans(),
        st.integers(-300, 300),
        st.integers(-(2**63), 2**63 - 1),
        st.floats(-limit, limit, allow_nan=False),
        st.sampled_from([math.nan, math.inf, -math.inf, -0.0, 0.5]),
    )


# ------------------------------------------------------------------------------ comparison


def expect(got, ref, name: str, *, scale=None, rtol=None, atol=None, msg: str = "") -> None:
    """Assert tensor `got` has dtype `name`, ref's shape, and ref's values (ref computed in
    float64 or the exact integer type) after rounding ref to `name`. `scale` (an array
    broadcastable to ref) widens atol for results of sums that cancel."""
    assert isinstance(got, sdk.Tensor), f"{msg}: expected a Tensor, got {type(got).__name__}"
    assert got.dtype.name == name, f"{msg}: dtype {got.dtype.name}, expected {name}"
    ref = np.asarray(ref)
    assert tuple(got.shape) == ref.shape, f"{msg}: shape {tuple(got.shape)} != {ref.shape}"
    r0, a0 = _tol(name)
    rtol = r0 if rtol is None else rtol
    atol = a0 if atol is None else atol
    if is_float(name):
        with np.errstate(all="ignore"):
            want = cast(ref, name).astype(np.float64)
        if scale is not None:
            atol = atol + rtol * np.max(np.abs(scale), initial=0.0)
        with np.errstate(all="ignore"):
            assert_close(
                got, want, rtol=rtol, atol=atol, equal_nan=True, check_dtype=False, msg=msg
            )
    else:
        want = cast(ref, name)
        got_np = got.numpy()
        if not np.array_equal(got_np, want):
            bad = np.argwhere(got_np != want)[:5].tolist()
            raise AssertionError(f"{msg}: values differ at {bad}\ngot {got_np}\nwant {want}")
