"""sdk with Dask: tensors as chunks and sources of arrays, sdk ops inside map_blocks, and a
LocalCluster of worker processes receiving JIT-built ops and tensors by pickle."""

from __future__ import annotations

import uuid

import numpy as np
import pytest

import sdk

da = pytest.importorskip("dask.array")


@pytest.fixture
def synchronous():
    import dask

    with dask.config.set(scheduler="synchronous"):
        yield


def test_from_array_of_a_tensor_gives_numpy_chunks(synchronous):
    t = sdk.arange(24, dtype=sdk.float32).reshape(4, 6)
    x = da.from_array(t, chunks=(2, 3))
    assert np.dtype(x.dtype) == np.float32  # x.dtype is sdk.float32, which numpy reads
    got = (x * 2 + 1).compute()
    assert isinstance(got, np.ndarray)
    np.testing.assert_array_equal(got, np.arange(24, dtype=np.float32).reshape(4, 6) * 2 + 1)


def test_a_tensor_viewed_as_numpy_supports_reductions(synchronous):
    t = sdk.arange(24, dtype=sdk.float64).reshape(4, 6)
    x = da.from_array(t.numpy(), chunks=(2, 3))  # the documented path: same memory, numpy meta
    np.testing.assert_allclose(x.sum(axis=0).compute(), np.arange(24.0).reshape(4, 6).sum(0))
    assert x.mean().compute() == pytest.approx(11.5)


def _sdk_block(b):
    t = sdk.as_tensor(b)
    assert t.data_ptr() == b.ctypes.data  # numpy -> sdk without a copy
    out = sdk.tanh(t) * 2
    result = out.numpy()
    assert result.ctypes.data == out.data_ptr()  # sdk -> numpy without a copy
    return result


def test_map_blocks_with_sdk_ops_then_numpy_reductions(synchronous):
    a = np.random.default_rng(0).standard_normal((64, 10)).astype(np.float32)
    x = da.from_array(a, chunks=(16, 5))
    y = x.map_blocks(_sdk_block, meta=np.empty((0, 0), np.float32))
    np.testing.assert_allclose(y.compute(), np.tanh(a) * 2, rtol=1e-6)
    np.testing.assert_allclose(y.sum(axis=1).compute(), (np.tanh(a) * 2).sum(1), rtol=1e-5)
    back = sdk.from_numpy(result := y.compute())
    assert back.data_ptr() == result.ctypes.data  # results come back without a copy


OP_SRC = """
#include <sdk/library.h>
sdk::Tensor shifted_square(const sdk::Tensor& x, double s) {{ return (x + s) * (x + s); }}
SDK_LIBRARY({ns}, m) {{ m.def("shifted_square(Tensor x, float s) -> Tensor"); }}
SDK_LIBRARY_IMPL({ns}, CPU, m) {{ m.impl("shifted_square", &shifted_square); }}
"""


def _op_block(b, *, op, scale):
    return (op(sdk.as_tensor(b), 0.5) * scale).numpy()


@pytest.mark.slow
def test_local_cluster_runs_a_jit_op_and_shipped_tensors(tmp_path, monkeypatch):
    distributed = pytest.importorskip("distributed")
    from cpp_extension import load_inline

    monkeypatch.setenv("SDK_EXTENSIONS_DIR", str(tmp_path / "ext"))
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    ns = "dk_" + uuid.uuid4().hex[:8]
    load_inline(f"lib_{ns}", cpp_sources=OP_SRC.format(ns=ns), bridge="ctypes")
    op = getattr(sdk.ops, ns).shifted_square
    scale = sdk.full((5,), 3.0, dtype=sdk.float64)  # travels pickled, out of band
    a = np.random.default_rng(1).standard_normal((400, 5))
    expected = (a + 0.5) ** 2 * 3.0
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster, distributed.Client(cluster, timeout=60) as client:  # fmt: skip
        x = da.from_array(a, chunks=(50, 5))  # 8 tasks over 2 worker processes
        y = x.map_blocks(_op_block, op=op, scale=scale, meta=np.empty((0, 0)))
        got, total = client.compute([y, y.sum()], sync=False)
        np.testing.assert_allclose(got.result(timeout=120), expected, rtol=1e-12)
        assert total.result(timeout=60) == pytest.approx(expected.sum())
        workers = client.run(lambda: __import__("os").getpid())
    assert len(set(workers.values())) == 2 and __import__("os").getpid() not in workers.values()
