"""Reductions against numpy: dims, keepdim, dtypes, non-contiguous and empty inputs."""

from __future__ import annotations

import numpy as np
import pytest

import sdk

FLOATS = ["float16", "bfloat16", "float32", "float64"]
DIMS = [None, 0, 1, -1, (0, 2), (1, 2), (0, 1, 2)]


def _np_dims(d):
    return d


@pytest.mark.parametrize("name", ["sum", "mean", "prod", "amax", "amin"])
@pytest.mark.parametrize("dim", DIMS, ids=str)
@pytest.mark.parametrize("keepdim", [False, True])
def test_reductions_float32(name, dim, keepdim, rng, close):
    a = (rng.standard_normal((3, 4, 5)) * 0.8 + 0.2).astype(np.float32)
    t = sdk.tensor(a)
    npf = {"sum": np.sum, "mean": np.mean, "prod": np.prod, "amax": np.max, "amin": np.min}[name]
    ref = npf(a.astype(np.float64), axis=dim, keepdims=keepdim).astype(np.float32)
    f = getattr(sdk, name)
    got = (
        f(t, dim, keepdim)
        if dim is not None
        else f(t, keepdim=keepdim)
        if name != "amax"
        else f(t, (), keepdim)
    )
    close(got, ref, rtol=1e-4, atol=1e-5)
    # the same through a transposed (non-contiguous) view
    tt = sdk.from_numpy(np.ascontiguousarray(a.transpose(2, 1, 0))).permute(2, 1, 0)
    assert not tt.is_contiguous()
    got2 = (
        f(tt, dim, keepdim)
        if dim is not None
        else f(tt, keepdim=keepdim)
        if name != "amax"
        else f(tt, (), keepdim)
    )
    close(got2, ref, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("dtype", FLOATS)
def test_sum_mean_dtypes(dtype, rng, close, to_sdk):
    a = rng.standard_normal((6, 7)).astype(np.float32)
    t = to_sdk(a, dtype)
    r = t.float().numpy().astype(np.float64)
    close(t.sum(1), r.sum(1).astype(np.float32), rtol=2e-2, atol=2e-2, check_dtype=False)
    close(t.mean(0), r.mean(0).astype(np.float32), rtol=2e-2, atol=2e-2, check_dtype=False)
    assert t.sum().dtype == t.dtype


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int32", "int64"])
def test_integer_sums_promote_to_int64(dtype, rng, close):
    a = rng.integers(0, 3, size=(4, 5)).astype(dtype)
    t = sdk.tensor(a)
    close(t.sum(), np.array(a.astype(np.int64).sum()))
    close(t.sum(0), a.astype(np.int64).sum(0))
    close(t.sum(0, dtype=sdk.float64), a.astype(np.float64).sum(0))


def test_all_any_argmax(rng, close):
    a = rng.standard_normal((4, 5)).astype(np.float32)
    t = sdk.tensor(a)
    close(sdk.all(t > -10), np.array(True))
    close((t > 0).any(1), (a > 0).any(1))
    close((t > 0).all(0, keepdim=True), (a > 0).all(0, keepdims=True))
    close(sdk.argmax(t), np.array(a.argmax()))
    close(sdk.argmin(t, 1), a.argmin(1))
    close(t.argmax(0, keepdim=True), a.argmax(0)[None])


def test_max_min_with_dim(rng, close):
    a = rng.standard_normal((4, 5)).astype(np.float32)
    t = sdk.tensor(a)
    r = t.max(1)
    close(r.values, a.max(1))
    close(r.indices, a.argmax(1))
    v, i = sdk.min(t, 0, keepdim=True)
    close(v, a.min(0, keepdims=True))
    close(i, a.argmin(0)[None])
    close(t.max(), np.array(a.max()))
    close(sdk.max(t, sdk.zeros(5)), np.maximum(a, 0))
    with pytest.raises(RuntimeError):
        sdk.zeros(0).max()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", [15, 16, 17, 31, 33, 64, 100, 1023, 1024, 1025, 3000, 70000])
def test_argmax_argmin_find_the_first_extremum_and_the_first_nan(dtype, n, rng):
    """Float rows are searched a block of 1024 at a time, or (float32 on AVX2) in one pass of
    16 lanes whose last step rereads up to 15 floats (reduce_dim.cpp, extremum_run): ties,
    signed zeros and NaNs must resolve to the first occurrence, as numpy's, wherever the
    blocks and the reread fall; max/min return the value at that index."""
    cases = {"random": rng.standard_normal((3, n)).astype(dtype)}
    ties = np.zeros((3, n), dtype)
    ties[:, [n // 3, n // 2, n - 1]] = 5  # equal extrema in different blocks
    ties[:, [n // 4, n - 2]] = -5
    cases["ties"] = ties
    late = np.zeros((3, n), dtype)
    late[:, [max(0, n - 15), max(0, n - 9), n - 1]] = 5  # ties where the last step rereads
    late[:, [max(0, n - 12), n - 2]] = -5
    cases["late ties"] = late
    zeros = np.full((3, n), -1, dtype)
    zeros[:, n // 2], zeros[:, n - 1] = -0.0, 0.0  # -0 first: it is the max, and kept as -0
    cases["zeros"] = zeros
    cases["rising"] = np.tile(np.arange(n, dtype=dtype), (3, 1))
    nans = rng.standard_normal((3, n)).astype(dtype)
    nans[0, [n // 2, n - 1]] = np.nan
    nans[1, 0] = np.nan
    nans[2, [n - 1]] = np.nan
    cases["nans"] = nans
    for name, a in cases.items():
        t = sdk.from_numpy(a)
        for arg, ext, npf in [(t.argmax, t.max, np.argmax), (t.argmin, t.min, np.argmin)]:
            want = npf(a, axis=1)
            np.testing.assert_array_equal(arg(1).numpy(), want, err_msg=name)
            values = ext(1).values.numpy()
            picked = a[np.arange(3), want]
            assert values.tobytes() == picked.tobytes(), (name, values, picked)
        assert sdk.from_numpy(a[1].copy()).argmax().item() == np.argmax(a[1]), name


SUMSQ = sdk._C.REDUCE_OPS["sumsq"]


@pytest.mark.parametrize("threads", [1, 3])
@pytest.mark.parametrize(
    "shape, dim",
    [((7, 1000), 1), ((1500, 40), 0), ((2000, 16), 0), ((3, 700, 5), (0, 2)), ((300000,), None)],
    ids=str,
)
def test_sum_of_squares_squares_each_element_once(shape, dim, threads, rng):
    """SDK_REDUCE_SUMSQ squares elements as they enter and adds partial sums as they are:
    column reductions combine blocks of rows and partial rows (reduce.cpp, PartOf), which must
    not be squared again; the result must not depend on the thread count or the layout."""
    x = rng.standard_normal(shape).astype(np.float32) * 3
    want = (x.astype(np.float64) ** 2).sum(axis=dim)
    d = None if dim is None else (dim,) if isinstance(dim, int) else dim
    old = sdk.get_num_threads()
    sdk.set_num_threads(threads)
    try:
        got = sdk._C.reduce(SUMSQ, sdk.from_numpy(x), d, False, None).numpy()
        flipped = np.asfortranarray(x)  # the same values, reduced in another order of memory
        again = sdk._C.reduce(SUMSQ, sdk.from_numpy(flipped), d, False, None).numpy()
        norm = sdk.from_numpy(x).norm(dim=dim).numpy()
    finally:
        sdk.set_num_threads(old)
    np.testing.assert_allclose(got, want, rtol=2e-6)
    np.testing.assert_allclose(again, want, rtol=2e-6)
    np.testing.assert_allclose(norm, np.sqrt(want), rtol=2e-6)


def test_sum_of_squares_dtypes_and_16_bit_norms():
    """Integers square and add in int64, as sum; float16/bfloat16 norms square and add in
    float32 and round once (x * x in float16 would overflow past 256, as torch's does not)."""
    ints = np.arange(-50, 50, dtype=np.int32).reshape(10, 10)
    got = sdk._C.reduce(SUMSQ, sdk.from_numpy(ints), (1,), False, None)
    assert got.dtype == sdk.int64
    np.testing.assert_array_equal(got.numpy(), (ints.astype(np.int64) ** 2).sum(1))
    big = np.linspace(-900, 900, 64, dtype=np.float32).reshape(4, 16)
    for dt in (sdk.float16, sdk.bfloat16):
        n = sdk.from_numpy(big).to(dt).norm(dim=1)
        assert n.dtype == dt
        exact = np.sqrt((big.astype(np.float64) ** 2).sum(1))
        np.testing.assert_allclose(n.to(sdk.float32).numpy(), exact, rtol=1e-2)
        leaf = sdk.from_numpy(big).to(dt).requires_grad_(True)  # the path autograd records
        g = leaf.norm(dim=1)
        np.testing.assert_allclose(g.detach().to(sdk.float32).numpy(), exact, rtol=1e-2)
        g.sum().backward()
        want = big / exact[:, None]
        np.testing.assert_allclose(leaf.grad.to(sdk.float32).numpy(), want, atol=1e-2)


@pytest.mark.parametrize("dim", [None, 0, 1, (0, 1)], ids=str)
def test_var_std(dim, rng, close):
    a = rng.standard_normal((5, 6))
    t = sdk.tensor(a)
    close(sdk.var(t, dim), np.var(a, axis=dim, ddof=1))
    close(sdk.std(t, dim, correction=0), np.std(a, axis=dim))
    close(t.var(dim, unbiased=False, keepdim=True), np.var(a, axis=dim, keepdims=True))


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_softmax(dim, rng, close):
    a = rng.standard_normal((4, 6)).astype(np.float32) * 3
    t = sdk.tensor(a)
    e = np.exp(a - a.max(dim, keepdims=True))
    ref = e / e.sum(dim, keepdims=True)
    close(sdk.softmax(t, dim), ref, rtol=1e-5, atol=1e-6)
    close(t.log_softmax(dim), np.log(ref), rtol=1e-5, atol=1e-5)
    close(
        sdk.softmax(t.t(), dim),
        (e / e.sum(dim, keepdims=True)).T if False else _sm(a.T, dim),
        rtol=1e-5,
        atol=1e-6,
    )
    close(sdk.logsumexp(t, dim), np.log(np.exp(a).sum(dim)), rtol=1e-5, atol=1e-5)


def _sm(a, dim):
    e = np.exp(a - a.max(dim, keepdims=True))
    return e / e.sum(dim, keepdims=True)


def test_empty_and_zero_dim_reductions(close):
    close(sdk.zeros(0, 3).sum(0), np.zeros(3, np.float32))
    close(sdk.zeros(0, 3).sum(), np.array(0.0, np.float32))
    close(sdk.tensor(3.0).sum(), np.array(3.0, np.float32))
    close(sdk.ones(2, 0).prod(1), np.ones(2, np.float32))


def test_reduction_out_and_errors(rng, close):
    a = rng.standard_normal((3, 4)).astype(np.float32)
    t = sdk.tensor(a)
    out = sdk.empty(4)
    assert sdk.sum(t, 0, out=out) is out
    close(out, a.sum(0), rtol=1e-5)
    with pytest.raises(IndexError):
        t.sum(2)
    with pytest.raises(RuntimeError, match="multiple"):
        t.sum((0, 0))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("offset", [0, 1, 3, 4, 9])
@pytest.mark.parametrize("n", [128, 129, 191, 1000, 4099])
def test_max_min_of_unaligned_views_and_nan_anywhere(dtype, offset, n, rng):
    """The SIMD max/min start on a cache line; the elements before it and NaNs count too."""
    buf = np.empty(n + offset, dtype)
    a = buf[offset:]  # numpy memory at every alignment, seen without a copy
    a[:] = rng.standard_normal(n)
    t = sdk.from_numpy(a)
    assert t.amax().item() == a.max() and t.amin().item() == a.min()
    for k in (0, 1, 7, 15, n // 2, n - 1):
        a[:] = rng.standard_normal(n)
        extreme = 1e30 if k % 2 else -1e30  # an extreme in the scalar head or the vector body
        a[k] = extreme
        assert t.amax().item() == a.max() and t.amin().item() == a.min()
        assert (a.max() if extreme > 0 else a.min()) == a[k]
        a[k] = np.nan
        assert np.isnan(t.amax().item()) and np.isnan(t.amin().item()), k


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int8", "int16"])
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "sliced", "expanded"])
@pytest.mark.parametrize("dim", [None, 0, 1])
def test_narrow_integers_reduce_exactly_in_every_layout(dtype, layout, dim, rng):
    """Inputs with no reduction loop of their own are reduced through a converted copy in the
    plan's order (reduce.cpp, reduce_cast): every layout must still give numpy's exact result,
    the outer (dim=0 of a row-major input) and inner paths alike, and the copy-first one."""
    lo = 0 if dtype in ("bool", "uint8") else -100
    base = rng.integers(lo, 100, (60, 70)).astype(dtype)
    view = {
        "contiguous": lambda a: a,
        "transposed": lambda a: a.T,
        "sliced": lambda a: a[::3, 1::2],
        "expanded": lambda a: a[:1],
    }[layout]
    src = sdk.from_numpy(base)
    a, t = view(base), view(src)
    if layout == "expanded":
        a, t = np.broadcast_to(a, (50, 70)), t.expand(50, 70)
    kw = {} if dim is None else {"axis": dim}
    tk = () if dim is None else (dim,)
    assert sdk.sum(t, *tk).numpy().tolist() == np.sum(a.astype(np.int64), **kw).tolist()
    assert sdk.prod(t, *tk).numpy().tolist() == np.prod(a.astype(np.int64), **kw).tolist()
    assert sdk.amax(t, *tk).numpy().tolist() == np.max(a, **kw).tolist()
    assert sdk.amin(t, *tk).numpy().tolist() == np.min(a, **kw).tolist()
    assert sdk.all(t, *tk).numpy().tolist() == np.all(a, **kw).tolist()
    assert sdk.any(t, *tk).numpy().tolist() == np.any(a, **kw).tolist()
    ref = np.sum(a.astype(np.float64), **kw)
    got = sdk.sum(t, *tk, dtype=sdk.float64).numpy()
    assert np.array_equal(got, ref)  # small integers: every float64 partial sum is exact


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("n", [1, 13, 16, 64, 100, 2047, 2048, 2049, 5000, 65536 + 7])
def test_full_sum_does_not_depend_on_the_address(dtype, n, rng):
    """The contiguous sum reads whole 64-byte lines from the line before its first element
    (reduce_kernels.h, sum_block_avx512): the same n values must sum to the same bits wherever
    they start, at every element offset within a line, and near the float64 sum."""
    vals = (rng.random(n) + 0.5).astype(dtype)
    buf = sdk.zeros(n + 16, dtype=getattr(sdk, dtype))
    results = set()
    for off in range(16):
        buf.zero_()
        view = buf[off : off + n]
        view.copy_(sdk.from_numpy(vals))
        results.add(view.sum().numpy().tobytes())
    assert len(results) == 1, f"{len(results)} different sums over 16 offsets"
    got = float(np.frombuffer(results.pop(), dtype=dtype)[0])
    assert abs(got - vals.astype(np.float64).sum()) <= 1e-5 * n * (
        1e-7 if dtype == "float64" else 1
    )


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("n", [1, 5, 8, 13, 16, 31, 32, 33, 64, 100, 2048, 2049])
def test_sums_over_rows_match_each_rows_own_sum(dtype, n, rng):
    """A sum over the last dim folds eight rows together (reduce_kernels.h, sum_rows_avx2):
    each row must still sum to the bits of that row alone, whatever the row count, the start
    offset and the values (signed zeros, inf, NaN, magnitudes 1e-20 to 1e20). 40 rows: a
    stride of n elements visits up to 16 line offsets, each with its own LinePlan."""
    for rows, off in [(1, 0), (7, 1), (8, 4), (19, 3), (40, 2)]:
        buf = rng.standard_normal(rows * n + off) * 10.0 ** rng.integers(-20, 21, rows * n + off)
        x = buf.astype(dtype)[off:].reshape(rows, n)
        x[0] = -0.0
        if rows > 2:
            x[1, n // 2], x[2, n - 1] = np.inf, np.nan
        sums, means = sdk.from_numpy(x).sum(1).numpy(), sdk.from_numpy(x).mean(1).numpy()
        for r in range(rows):
            row = sdk.from_numpy(x[r].copy())
            assert sums[r].tobytes() == row.sum().numpy().tobytes(), (rows, off, r)
            assert means[r].tobytes() == row.mean().numpy().tobytes(), (rows, off, r)
        if rows > 2:
            assert np.isinf(sums[1]) and np.isnan(sums[2])
        x64 = x[3:].astype(np.float64)
        err = np.abs(sums[3:] - x64.sum(1))
        assert (err <= 1e-5 * np.abs(x64).sum(1)).all(), err


@pytest.mark.parametrize("n", [64, 65, 79, 100, 1000])
def test_float_amax_amin_at_every_offset(n, rng):
    """amax/amin of float32 rows take the first line's elements in one masked load from the
    line start (vec_simd.h, extremum_avx512): an extreme or a NaN in that head, or right after
    it, must still be found at every element offset."""
    buf = sdk.zeros(n + 16)
    for off in range(16):
        view = buf[off : off + n]
        for k in (0, 1, 15 - off, 16 - off, n - 1):
            a = rng.standard_normal(n).astype(np.float32)
            a[k] = 1e30
            a[(k + 1) % n] = -1e30
            view.copy_(sdk.from_numpy(a))
            big = float(np.float32(1e30))
            assert view.amax().item() == big and view.amin().item() == -big, (off, k)
            a[k] = np.nan
            view.copy_(sdk.from_numpy(a))
            assert np.isnan(view.amax().item()) and np.isnan(view.amin().item()), (off, k)


@pytest.mark.parametrize("n", [15, 16, 17, 31, 32, 33, 64])
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int32"])
def test_block_reductions_of_short_rows(n, dtype, rng):
    """Rows of 16 or more go through reduce_block's 16 accumulators (reduce_kernels.h), shorter
    ones one by one: products, half-precision sums and norms agree with numpy either way."""
    a = (1 + rng.standard_normal((5, n)) * 0.05) if dtype != "int32" else rng.integers(1, 3, (5, n))
    a = a.astype(dtype)
    t = sdk.from_numpy(a)
    wide = a.astype(np.float64)
    rtol = {"float16": 2e-3, "float32": 1e-5}.get(dtype, 1e-12)
    np.testing.assert_allclose(t.prod(1).numpy().astype(np.float64), wide.prod(1), rtol=rtol)
    np.testing.assert_allclose(t.sum(1).numpy().astype(np.float64), wide.sum(1), rtol=rtol)
    if dtype != "int32":
        np.testing.assert_allclose(
            t.norm(dim=1).numpy().astype(np.float64), np.sqrt((wide * wide).sum(1)), rtol=rtol
        )


@pytest.mark.parametrize("n", [16, 17, 31, 64, 77, 1000, 2048, 2049])
def test_float_products_over_rows_are_each_rows_own_product(n, rng):
    """Rows of up to 2048 take reduce_block in one loop on AVX2 (reduce_kernels.h,
    reduce_rows_avx2), as the whole-tensor product does: the same bits, NaN, inf and 0
    included; columns (another order) and a strided view agree within rounding."""
    a = (1 + rng.standard_normal((7, n)) * 0.05).astype(np.float32)
    a[3, n // 2], a[4, 1], a[5, -1] = np.nan, np.inf, 0.0
    t = sdk.from_numpy(a)
    each = np.array([sdk.from_numpy(a[i].copy()).prod().item() for i in range(7)], np.float32)
    assert t.prod(1).numpy().tobytes() == each.tobytes()
    wide = a.astype(np.float64).prod(1)
    np.testing.assert_allclose(sdk.from_numpy(a.T.copy()).prod(0).numpy(), wide, rtol=1e-5)
    np.testing.assert_allclose(t[::2].prod(1).numpy(), wide[::2], rtol=1e-5)
