"""Ops from 8 Python threads give numpy's results, with private and with shared inputs; each
thread sees its own error messages and its own random streams."""

from __future__ import annotations

import numpy as np
import pytest

import sdk
from tests.reliability.conftest import run_threads

THREADS = 8
ROUNDS = 30
COLS = 128  # rows * COLS reaches 32768 elements from 256 rows: the ops that drop the GIL


def close(got, want, rtol=1e-5, atol=1e-5) -> None:
    np.testing.assert_allclose(got.numpy(), want, rtol=rtol, atol=atol)


def _elementwise(a, b, an, bn) -> None:
    close(a * b + 2.0, an * bn + 2)
    close(sdk.exp(a).tanh() - b, np.tanh(np.exp(an)) - bn)
    close(sdk.where(a > 0, a, b), np.where(an > 0, an, bn))
    close(-abs(a) / 2, -np.abs(an) / 2)


def _reductions(a, an) -> None:
    close(a.sum(0), an.sum(0), rtol=1e-4, atol=1e-4)
    close(a.mean(1), an.mean(1), rtol=1e-4, atol=1e-5)
    close(a.amax(1), an.max(1))
    assert np.array_equal(a.argmax(1).numpy(), an.argmax(1))
    assert abs(a.sum().item() - float(an.astype(np.float64).sum())) < 1e-2


def _matmul_cat_index(a, b, an, bn, idx) -> None:
    close(a @ b.T, an @ bn.T, rtol=1e-4, atol=1e-3)
    joined = sdk.cat([a, b], 1)
    close(joined[sdk.from_numpy(idx)], np.concatenate([an, bn], 1)[idx])
    close(a.index_select(0, sdk.from_numpy(idx)), an[idx])
    close(a[a > 1.0], an[an > 1.0])
    close(a[idx[:5], 3], an[idx[:5], 3])


def _inplace(a, b, an, bn) -> None:
    c = a.clone()
    c += b
    c.mul_(0.5)
    c[:, :3] = 7.0
    c.clamp_(-1.0, 1.0)
    ref = np.clip(
        np.concatenate([np.full((an.shape[0], 3), 7.0, np.float32), ((an + bn) * 0.5)[:, 3:]], 1),
        -1,
        1,
    )
    close(c, ref)


def _errors(i: int, k: int) -> None:
    """Errors raised on purpose with shapes unique to thread i and round k; the big ones
    fail with the GIL released, while other threads record errors of their own."""
    w = 4096 + k
    with pytest.raises(ValueError) as e:
        sdk.ones(i + 2, w) + sdk.ones(i + 3, w)
    want = f"add: shapes [{i + 2}, {w}] and [{i + 3}, {w}] cannot be broadcast together"
    assert str(e.value).startswith(want), (str(e.value), want)
    with pytest.raises(ValueError) as e:
        sdk.matmul(sdk.ones(i + 2, k + 5), sdk.ones(i + 40, k + 5))
    assert f"shapes [{i + 2}, {k + 5}] and [{i + 40}, {k + 5}]" in str(e.value), str(e.value)
    with pytest.raises(IndexError) as e:
        sdk.ones(i + 2)[i + 2 + k]
    assert f"index {i + 2 + k} is out of range for dim 0 of size {i + 2}" in str(e.value)


def _draws(g, k: int) -> list[np.ndarray]:
    """One round of draws from generator g (uniform, normal, integers)."""
    return [
        sdk.rand(40000 + k, generator=g).numpy(),
        sdk.randn(3, 700, generator=g).numpy(),
        sdk.randint(0, 1000, (64,), generator=g).numpy(),
    ]


def test_mixed_ops_on_private_inputs_match_numpy():
    expected = {}
    for i in range(THREADS):  # each thread's stream, drawn here one thread at a time
        g = sdk.Generator(seed=100 + i)
        expected[i] = [_draws(g, k) for k in range(ROUNDS)]
    done = [0] * THREADS

    def work(i: int) -> None:
        rng = np.random.default_rng(1000 + i)
        gen = sdk.Generator(seed=100 + i)
        for k in range(ROUNDS):
            rows = int(rng.integers(1, 5)) * 96
            an = rng.standard_normal((rows, COLS)).astype(np.float32)
            bn = rng.standard_normal((rows, COLS)).astype(np.float32)
            a, b = sdk.tensor(an), sdk.from_numpy(bn)
            idx = rng.integers(0, rows, 50)
            _elementwise(a, b, an, bn)
            _reductions(a, an)
            _matmul_cat_index(a, b, an, bn, idx)
            _inplace(a, b, an, bn)
            _errors(i, k)
            for got, want in zip(_draws(gen, k), expected[i][k]):
                assert np.array_equal(got, want), "a per-thread generator's stream changed"
            assert np.array_equal(b.numpy(), bn), "an input changed"
            done[i] += 1

    failures = run_threads(work, THREADS)
    assert not failures, "\n".join(failures[:3])
    assert done == [ROUNDS] * THREADS


def test_threads_sharing_read_only_inputs():
    rng = np.random.default_rng(7)
    an = rng.standard_normal((384, COLS)).astype(np.float32)
    bn = rng.standard_normal((COLS, 256)).astype(np.float32)
    idx = rng.integers(0, 384, 300)
    a, b, index = sdk.tensor(an), sdk.from_numpy(bn), sdk.from_numpy(idx)
    cases = {
        "matmul": (lambda: a @ b, an @ bn),
        "elementwise": (lambda: sdk.sigmoid(a) * a - 1.0, an / (1 + np.exp(-an)) - 1.0),
        "sum": (lambda: a.sum(1), an.sum(1)),
        "amax": (lambda: a.amax(0), an.max(0)),
        "cat": (lambda: sdk.cat([a, a[:7]]), np.concatenate([an, an[:7]])),
        "index": (lambda: a[index], an[idx]),
        "transpose": (lambda: a.t().contiguous(), np.ascontiguousarray(an.T)),
        "softmax": (
            lambda: sdk.softmax(a, 1),
            np.exp(an - an.max(1, keepdims=True))
            / np.exp(an - an.max(1, keepdims=True)).sum(1, keepdims=True),
        ),
    }
    versions = (a._version, b._version)
    counts = [0] * THREADS

    def work(i: int) -> None:
        names = list(cases)
        for k in range(100):
            name = names[(i + k) % len(names)]
            fn, want = cases[name]
            np.testing.assert_allclose(fn().numpy(), want, rtol=1e-4, atol=1e-4, err_msg=name)
            counts[i] += 1

    failures = run_threads(work, THREADS)
    assert not failures, "\n".join(failures[:3])
    assert counts == [100] * THREADS
    assert (a._version, b._version) == versions, "a read-only input was written"
    assert np.array_equal(a.numpy(), an) and np.array_equal(b.numpy(), bn)
    assert a._use_count == 1 and b._use_count == 1 and index._use_count == 1


def test_default_generator_shared_by_threads_loses_no_draws():
    """Every fill takes the shared generator's lock for the whole fill: whatever the
    interleaving, the threads' blocks together are the sequential stream's blocks."""
    per_thread, n = 20, 5000
    sdk.manual_seed(2024)
    reference = sorted(sdk.rand(n).numpy().tobytes() for _ in range(THREADS * per_thread))
    sdk.manual_seed(2024)
    blocks: list[bytes] = []

    def work(i: int) -> None:
        for _ in range(per_thread):
            blocks.append(sdk.rand(n).numpy().tobytes())

    failures = run_threads(work, THREADS)
    assert not failures, "\n".join(failures[:3])
    assert sorted(blocks) == reference


def test_extension_calls_from_threads(extensions):
    mods = {"pybind11": extensions.pybind11, "ctypes": extensions.ctypes}

    def work(i: int) -> None:
        rng = np.random.default_rng(i)
        for k in range(200):
            for bridge, m in mods.items():
                an = rng.standard_normal(64 + i).astype(np.float32)
                bn = rng.standard_normal(64 + i).astype(np.float32)
                alpha = float(i + k)
                b = bn if k % 2 else sdk.tensor(bn)
                close(m.scaled_add(sdk.tensor(an), b, alpha), an * alpha + bn, rtol=1e-5, atol=1e-3)
                with pytest.raises(ValueError) as e:
                    m.scaled_add(sdk.ones(i + 1), sdk.ones(i + 50 + k), 1.0)
                msg = str(e.value)
                if bridge == "pybind11":
                    assert f"shapes differ: [{i + 1}] vs [{i + 50 + k}]" in msg, msg
                else:
                    assert f"shapes differ: {i + 1} vs {i + 50 + k} elements" in msg, msg

    failures = run_threads(work, THREADS)
    assert not failures, "\n".join(failures[:3])
