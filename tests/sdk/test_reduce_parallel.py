"""Reductions, softmax and exp/sigmoid on several threads: accurate against float64, the same on
every call and at every thread count, exact for integers and bools, NaN-propagating."""

from __future__ import annotations

import numpy as np
import pytest

import sdk

THREADS = [1, 2, 7]


@pytest.fixture
def threads():
    """Set the thread count inside a test; the old count comes back afterwards."""
    old = sdk.get_num_threads()
    yield sdk.set_num_threads
    sdk.set_num_threads(old)


def _layouts(rng):
    """(name, numpy array, sdk tensor with the same values and layout, dim) over the reductions'
    code paths: one long run, rows, columns, few columns, slices, transposes, broadcasts."""
    pos = (rng.random((1000, 1100)) + 0.5).astype(np.float32)  # same-sign: errors add up
    base = sdk.from_numpy(pos)
    few = (rng.random((300_000, 5)) + 0.5).astype(np.float32)
    long2 = (rng.random((2, 400_000)) + 0.5).astype(np.float32)
    flat = (rng.random(3_000_001) + 0.5).astype(np.float32)
    cube = (rng.random((30, 200, 70)) + 0.5).astype(np.float32)
    row = (rng.random((1, 5000)) + 0.5).astype(np.float32)
    return [
        ("flat", flat, sdk.from_numpy(flat), None),
        ("full", pos, base, None),
        ("full of a slice", pos[:, :999], base[:, :999], None),
        ("full of a transpose", pos.T, base.t(), None),
        ("rows", pos, base, 1),
        ("columns", pos, base, 0),
        ("columns of a slice", pos[:, 3:40], base[:, 3:40], 0),
        ("few columns", few, sdk.from_numpy(few), 0),
        ("two long rows", long2, sdk.from_numpy(long2), 1),
        ("outer and inner dims", cube, sdk.from_numpy(cube), (0, 2)),
        (
            "expanded",
            np.broadcast_to(row, (400, 5000)),
            sdk.from_numpy(row).expand(400, 5000),
            None,
        ),
        ("small", flat[:1000], sdk.from_numpy(flat[:1000]), None),
    ]


def _red(t, name, dim):
    f = getattr(t, name)
    return (f() if dim is None else f(dim)).numpy()


def test_float_sums_accurate_and_the_same_at_every_thread_count(rng, threads):
    results = {}
    layouts = _layouts(rng)
    for n in THREADS:
        threads(n)
        for name, a, t, dim in layouts:
            got = _red(t, "sum", dim)
            assert np.array_equal(got, _red(t, "sum", dim)), f"{name}: differs between calls"
            ref = a.astype(np.float64).sum(axis=dim)
            # A sequential float32 sum of these same-sign values is off by ~1e-4 or more.
            err = np.max(np.abs(got - ref) / ref)
            assert err < 2e-6, (name, n, err)
            mean = _red(t, "mean", dim)
            np.testing.assert_allclose(mean, a.astype(np.float64).mean(axis=dim), rtol=2e-6)
            results.setdefault(name, []).append(got)
    for name, per_thread in results.items():
        for got in per_thread[1:]:
            assert np.array_equal(got, per_thread[0]), f"{name}: depends on the thread count"


def test_integer_bool_and_extremum_reductions_exact_on_threads(rng, threads):
    layouts = _layouts(rng)
    for n in THREADS:
        threads(n)
        for name, a, t, dim in layouts:
            assert np.array_equal(_red(t, "amax", dim), a.max(axis=dim)), (name, n)
            assert np.array_equal(_red(t, "amin", dim), a.min(axis=dim)), (name, n)
            ai = (a * 1000).astype(np.int32)
            ti = sdk.from_numpy(np.ascontiguousarray(ai))
            assert np.array_equal(_red(ti, "sum", dim), ai.sum(axis=dim, dtype=np.int64)), name
            ab = ai > 1490  # rare Trues: any and all both have work to do
            tb = sdk.from_numpy(np.ascontiguousarray(ab))
            assert np.array_equal(_red(tb, "any", dim), ab.any(axis=dim)), (name, n)
            assert np.array_equal(_red(tb, "all", dim), ab.all(axis=dim)), (name, n)
            assert np.array_equal(_red(~tb, "all", dim), (~ab).all(axis=dim)), (name, n)


@pytest.mark.parametrize("where", [0, 1, 777_777, (1 << 20) - 1])
def test_nan_anywhere_propagates_through_parallel_max_min_sum(where, rng, threads):
    a = rng.standard_normal(1 << 20).astype(np.float32)
    a[where] = np.nan
    t = sdk.from_numpy(a)
    for n in THREADS:
        threads(n)
        assert np.isnan(t.amax().item()) and np.isnan(t.amin().item()), (where, n)
        assert np.isnan(t.sum().item()), (where, n)
        cols = t.reshape(1024, 1024).amax(0).numpy()
        assert np.isnan(cols[where % 1024]) and np.isnan(cols).sum() == 1


def test_empty_inputs_on_threads(threads):
    threads(2)
    e = sdk.from_numpy(np.zeros((0, 300_000), np.float32))
    assert e.sum().item() == 0.0
    assert e.sum(0).numpy().shape == (300_000,) and not e.sum(0).numpy().any()
    assert e.sum(1).numpy().shape == (0,)
    with pytest.raises(ValueError):
        e.amax()


def _np_softmax(a, dim, log):
    a = a.astype(np.float64)
    m = a.max(axis=dim, keepdims=True)
    z = a - m
    lse = np.log(np.exp(z).sum(axis=dim, keepdims=True))
    return z - lse if log else np.exp(z - lse)


@pytest.mark.parametrize(
    "shape,dim",
    [((1, 1 << 20), 1), ((3, 300_001), 1), ((256, 1000), 1), ((4000, 3), 0), ((2, 300, 129), 1)],
    ids=str,
)
@pytest.mark.parametrize("log", [False, True])
def test_softmax_on_threads_against_float64(shape, dim, log, rng, threads):
    a = (rng.standard_normal(shape) * 4).astype(np.float32)
    t = sdk.from_numpy(a)
    f = sdk.log_softmax if log else sdk.softmax
    ref = _np_softmax(a, dim, log)
    per_thread = []
    for n in THREADS:
        threads(n)
        got = f(t, dim).numpy()
        assert np.array_equal(got, f(t, dim).numpy()), "differs between calls"
        if log:
            np.testing.assert_allclose(got, ref, rtol=0, atol=2e-5)
        else:
            np.testing.assert_allclose(got, ref, rtol=2e-5, atol=1e-30)
        per_thread.append(got)
    long_rows = dim == len(shape) - 1 and shape[dim] >= 1 << 16  # split by the thread count
    if not long_rows:
        for got in per_thread[1:]:  # each row or column block is done by one thread
            assert np.array_equal(got, per_thread[0])


@pytest.mark.parametrize("dim", [0, 1])
def test_softmax_nan_and_all_minus_inf_lines(dim, threads):
    a = np.array([[1, np.nan, 2], [-np.inf] * 3, [0, -np.inf, 1], [3, 4, 5]], np.float32)
    a = a if dim == 1 else np.ascontiguousarray(a.T)
    for n in (1, 2):
        threads(n)
        for f in (sdk.softmax, sdk.log_softmax):
            got = f(sdk.from_numpy(a), dim).numpy()
            lines = got if dim == 1 else got.T
            assert np.isnan(lines[0]).all() and np.isnan(lines[1]).all()  # NaN row; 0/0 row
            ref = _np_softmax(np.array([[0, -np.inf, 1], [3, 4, 5]]), 1, f is sdk.log_softmax)
            np.testing.assert_allclose(lines[2], ref[0], rtol=1e-6, atol=1e-7)
            np.testing.assert_allclose(lines[3], ref[1], rtol=1e-6, atol=1e-7)


def _ulps(got, ref64):
    ref = ref64.astype(np.float32)
    spacing = np.spacing(np.abs(ref))
    spacing[spacing == 0] = np.float32(1.4e-45)
    ok = np.isfinite(ref)
    return np.max(np.abs(got[ok].astype(np.float64) - ref64[ok]) / spacing[ok])


@pytest.mark.parametrize("op", ["exp", "sigmoid"])
def test_float32_exp_sigmoid_accuracy_and_special_values(op, rng, threads):
    special = [0.0, -0.0, np.inf, -np.inf, np.nan, 88.7228, 88.72284, -103.97, -103.98, -87.5]
    x = np.concatenate([rng.uniform(-110, 95, 200_001), rng.standard_normal(50_000) * 4, special])
    x = x.astype(np.float32)
    with np.errstate(over="ignore"):
        ref = np.exp(x.astype(np.float64))
        if op == "sigmoid":
            ref = 1.0 / (1.0 + np.exp(-x.astype(np.float64)))
    f = getattr(sdk, op)
    for n in (1, 2):
        threads(n)
        for sl in (slice(None), slice(3, None), slice(0, 77), slice(None, None, 3)):
            got = f(sdk.from_numpy(x)[sl]).numpy()
            r = ref[sl]
            assert _ulps(got, r) <= (1.5 if op == "exp" else 3.0), (sl, _ulps(got, r))
            np.testing.assert_array_equal(
                got[~np.isfinite(r)], r[~np.isfinite(r)].astype(np.float32)
            )
            assert np.array_equal(np.isnan(got), np.isnan(r))


def test_argmax_argmin_of_a_long_run_on_threads(rng, threads):
    a = rng.standard_normal(1_000_003).astype(np.float32)
    a[[500_000, 900_000]] = a.max() + 1  # a tie: the first index wins
    a[[300_000, 950_000]] = a.min() - 1
    t = sdk.from_numpy(a)
    with_nan = a.copy()
    with_nan[[700_000, 800_000]] = np.nan  # the first NaN wins, as in torch
    tn = sdk.from_numpy(with_nan)
    for n in THREADS:
        threads(n)
        assert (t.argmax().item(), t.argmin().item()) == (500_000, 300_000), n
        assert (tn.argmax().item(), tn.argmin().item()) == (700_000, 700_000), n
        v, i = tn.max(0)
        assert np.isnan(v.item()) and i.item() == 700_000


@pytest.mark.parametrize("dim", [None, 0, 1], ids=str)
def test_var_std_on_threads_against_float64(dim, rng, threads):
    m = (rng.standard_normal((3, 400_000)) * 2 + 5).astype(np.float32)  # mean far from 0
    t = sdk.from_numpy(m)
    ref = m.astype(np.float64).var(axis=dim, ddof=1)
    per_thread = []
    for n in THREADS:
        threads(n)
        got = (t.var() if dim is None else t.var(dim)).numpy()
        np.testing.assert_allclose(got, ref, rtol=1e-6)
        std = (t.std() if dim is None else t.std(dim)).numpy()
        np.testing.assert_allclose(std, np.sqrt(ref), rtol=1e-6)
        per_thread.append(got)
    for got in per_thread[1:]:  # pieces of fixed size, combined in order
        assert np.array_equal(got, per_thread[0])
