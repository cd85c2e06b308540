"""CUDA tensors on a real GPU: ops against numpy, the caching allocator, streams, DLPack and the
LLTM CUDA op against the CPU op. Skipped with "no CUDA GPU visible" elsewhere."""

from __future__ import annotations

import os

import numpy as np
import pytest

import sdk
from tests.cuda.conftest import REPO, requires_gpu, run_python

pytestmark = requires_gpu

RNG = np.random.default_rng(0)
# test_fake_backend.py runs this file on a host-memory stand-in backend (no GPU needed);
# what only real hardware can show is skipped there.
real_gpu_only = pytest.mark.skipif(
    os.environ.get("SDK_CUDA_FAKE") == "1", reason="needs a real GPU (host-memory test backend)"
)


def cuda(a, dtype=None):
    return sdk.tensor(a, dtype=dtype).cuda()


def host(t):
    assert t.is_cuda
    return t.cpu().numpy()


def test_round_trip_and_device():
    a = RNG.standard_normal((3, 4)).astype(np.float32)
    t = cuda(a)
    assert t.device == sdk.device("cuda", 0) and t.is_cuda
    np.testing.assert_array_equal(host(t), a)
    assert t.to("cuda") is t  # already there
    np.testing.assert_array_equal(t.t().cpu().numpy(), a.T)  # strided device -> host


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int32", "float16", "bool"])
def test_creation(dtype):
    d = getattr(sdk, dtype if dtype != "bool" else "bool")
    z = sdk.zeros(2, 3, dtype=d, device="cuda")
    o = sdk.ones(2, 3, dtype=d, device="cuda")
    np.testing.assert_array_equal(host(z), np.zeros((2, 3), dtype=dtype))
    np.testing.assert_array_equal(host(o), np.ones((2, 3), dtype=dtype))
    f = sdk.full((4,), 3, dtype=d, device="cuda")
    np.testing.assert_array_equal(host(f), np.full((4,), 3, dtype=dtype))


UNARY = ["neg", "abs", "exp", "log", "sqrt", "sin", "cos", "tanh", "sigmoid", "relu", "floor"]


@pytest.mark.parametrize("name", UNARY)
def test_unary_float32(name):
    a = RNG.uniform(0.1, 3.0, (5, 7)).astype(np.float32)
    ref = {
        "neg": -a,
        "abs": np.abs(a),
        "exp": np.exp(a),
        "log": np.log(a),
        "sqrt": np.sqrt(a),
        "sin": np.sin(a),
        "cos": np.cos(a),
        "tanh": np.tanh(a),
        "sigmoid": 1 / (1 + np.exp(-a)),
        "relu": np.maximum(a, 0),
        "floor": np.floor(a),
    }[name]
    got = host(getattr(sdk, name)(cuda(a)))
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_binary_broadcast(dtype):
    a = (RNG.standard_normal((4, 1, 3)) * 10).astype(dtype)
    b = (RNG.standard_normal((5, 3)) * 10).astype(dtype)
    ta, tb = cuda(a), cuda(b)
    np.testing.assert_allclose(host(ta + tb), a + b, rtol=1e-6)
    np.testing.assert_allclose(host(ta * tb), a * b, rtol=1e-6)
    np.testing.assert_array_equal(host(ta < tb), a < b)
    np.testing.assert_allclose(host(sdk.maximum(ta, tb)), np.maximum(a, b))


def test_scalar_ops_and_promotion():
    a = np.arange(6, dtype=np.int64).reshape(2, 3)
    t = cuda(a)
    np.testing.assert_array_equal(host(t + 1), a + 1)
    r = t * 1.5
    assert r.dtype == sdk.float32
    np.testing.assert_allclose(host(r), a * 1.5)
    np.testing.assert_allclose(host(2.0 / (t + 1)), 2.0 / (a + 1), rtol=1e-6)


def test_where_fill_copy_to_dtype():
    a = RNG.standard_normal((3, 4)).astype(np.float32)
    t = cuda(a)
    np.testing.assert_array_equal(
        host(sdk.where(t > 0, t, sdk.zeros_like(t))), np.where(a > 0, a, 0)
    )
    u = sdk.empty(3, 4, device="cuda").fill_(2.5)
    np.testing.assert_array_equal(host(u), np.full((3, 4), 2.5, np.float32))
    u.copy_(t.t().contiguous().t())
    np.testing.assert_array_equal(host(u), a)
    u.copy_(sdk.tensor(a[0]))  # host source, broadcast
    np.testing.assert_array_equal(host(u), np.broadcast_to(a[0], (3, 4)))
    np.testing.assert_array_equal(host(t.to(sdk.float64)), a.astype(np.float64))
    np.testing.assert_array_equal(host(t.to(sdk.int32)), a.astype(np.int32))


@pytest.mark.parametrize(
    "dims, keepdim", [(None, False), ((0,), False), ((1, 2), True), ((-1,), False)]
)
def test_reductions(dims, keepdim):
    a = RNG.standard_normal((4, 5, 6))
    t = cuda(a)
    kw = {} if dims is None else {"dim": dims, "keepdim": keepdim}
    np_kw = {} if dims is None else {"axis": dims, "keepdims": keepdim}
    np.testing.assert_allclose(host(t.sum(**kw)), a.sum(**np_kw), rtol=1e-10)
    np.testing.assert_allclose(host(t.mean(**kw)), a.mean(**np_kw), rtol=1e-10)
    np.testing.assert_array_equal(host(sdk.amax(t, **kw)), a.max(**np_kw))
    np.testing.assert_array_equal(host(sdk.amin(t, **kw)), a.min(**np_kw))


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_norm_and_the_sum_of_squares(dtype):
    """SDK_REDUCE_SUMSQ on a CUDA tensor squares in the accumulator's type, then sums: a
    float16 norm past 256 must not overflow."""
    a = (RNG.standard_normal((4, 50)) * 300).astype(dtype)
    t = cuda(a)
    ref = np.sqrt((a.astype(np.float64) ** 2).sum(1))
    got = host(t.norm(dim=1))
    assert got.dtype == np.dtype(dtype)
    np.testing.assert_allclose(
        got.astype(np.float64), ref, rtol=2e-3 if dtype == "float16" else 1e-6
    )
    sq = sdk._C.reduce(sdk._C.REDUCE_OPS["sumsq"], t, None, False, sdk.float32)  # 1.8e7
    np.testing.assert_allclose(float(host(sq)), (a.astype(np.float64) ** 2).sum(), rtol=2e-3)


def test_large_full_reduction_and_int_sum():
    a = RNG.integers(-5, 5, size=1_000_003)
    t = cuda(a)
    assert int(t.sum().item()) == int(a.sum())


def test_cat():
    parts = [RNG.standard_normal((2, k)).astype(np.float32) for k in (1, 3, 2)]
    got = sdk.cat([cuda(p) for p in parts], dim=1)
    np.testing.assert_array_equal(host(got), np.concatenate(parts, axis=1))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_mm_addmm(dtype):
    a = RNG.standard_normal((5, 7)).astype(dtype)
    b = RNG.standard_normal((7, 3)).astype(dtype)
    bias = RNG.standard_normal((1, 3)).astype(dtype)
    tol = 1e-5 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(host(sdk.mm(cuda(a), cuda(b))), a @ b, rtol=tol, atol=tol)
    np.testing.assert_allclose(host(cuda(a) @ cuda(b.T).t()), a @ b, rtol=tol, atol=tol)
    got = sdk.addmm(cuda(bias), cuda(a), cuda(b), beta=0.5, alpha=2.0)
    np.testing.assert_allclose(host(got), 0.5 * bias + 2.0 * (a @ b), rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_batched_matmul(dtype):
    """Evenly spaced batches (one backend call), a repeated operand (batch stride 0) and
    batches a transpose left unevenly spaced (one call per product) give numpy's products."""
    a = RNG.standard_normal((6, 5, 7)).astype(dtype)
    b = RNG.standard_normal((6, 7, 3)).astype(dtype)
    tol = 1e-5 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(host(sdk.bmm(cuda(a), cuda(b))), a @ b, rtol=tol, atol=tol)
    np.testing.assert_allclose(host(cuda(a[0]) @ cuda(b)), a[0] @ b, rtol=tol, atol=tol)
    a4 = a.reshape(2, 3, 5, 7)
    uneven = cuda(a4.transpose(1, 0, 2, 3).copy()).transpose(0, 1)  # batch offsets 0, 3, 1, ...
    np.testing.assert_allclose(host(uneven @ cuda(b[:1])), a4 @ b[0], rtol=tol, atol=tol)
    c = RNG.standard_normal((6, 5, 3)).astype(dtype)
    got = sdk.baddbmm(cuda(c), cuda(a), cuda(b), beta=0.5, alpha=2.0)
    np.testing.assert_allclose(host(got), 0.5 * c + 2.0 * (a @ b), rtol=tol, atol=tol)


def test_mixed_devices_are_refused():
    with pytest.raises(RuntimeError, match="same device"):
        cuda([1.0]) + sdk.tensor([1.0])


@real_gpu_only
def test_allocator_reuses_blocks():
    # A fresh process: blocks cached by earlier tests would serve the first request too.
    proc = run_python(
        """
        import sdk, sdk.cuda
        base = sdk.cuda.memory_stats()
        x = sdk.empty(1000, device="cuda")
        s1 = sdk.cuda.memory_stats()
        assert s1["allocated_bytes"] - base["allocated_bytes"] == 4096, s1  # 4000 in 512s
        assert s1["num_device_allocs"] == base["num_device_allocs"] + 1, (base, s1)
        del x
        s2 = sdk.cuda.memory_stats()
        assert s2["allocated_bytes"] == base["allocated_bytes"], s2
        assert s2["reserved_bytes"] == s1["reserved_bytes"], s2  # kept in the cache
        for _ in range(10):
            y = sdk.empty(900, device="cuda")
            del y
        s3 = sdk.cuda.memory_stats()
        assert s3["num_device_allocs"] == s1["num_device_allocs"], s3  # no new cudaMalloc
        assert s3["num_allocs"] == s1["num_allocs"] + 10, s3
        assert s3["peak_allocated_bytes"] >= 4096, s3
        sdk.cuda.empty_cache()
        s4 = sdk.cuda.memory_stats()
        assert s4["reserved_bytes"] == 0 and s4["num_device_frees"] == 1, s4
        print("OK")
        """
    )
    assert proc.returncode == 0 and "OK" in proc.stdout, proc.stdout + proc.stderr


def test_streams_default_and_set():
    s = sdk.cuda.current_stream()
    assert s.cuda_stream == 0
    with sdk.cuda.stream(s):
        assert sdk.cuda.current_stream() == s


def test_dlpack_device():
    t = sdk.ones(3, device="cuda")
    assert t.__dlpack_device__() == (2, 0)


@pytest.fixture(scope="module")
def lltm_cache(tmp_path_factory):
    """One JIT cache for the LLTM CUDA tests of this module (one build)."""
    return str(tmp_path_factory.mktemp("lltm_cuda_cache"))


@real_gpu_only
def test_lltm_cuda_matches_cpu(lltm_cache):
    proc = run_python(
        "import runpy, sys; sys.argv = ['check.py']; "
        f"runpy.run_path({str(REPO / 'examples/lltm/cuda/check.py')!r}, run_name='__main__')",
        SDK_EXTENSIONS_DIR=lltm_cache,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "float32 B,F,S=64,256,512" in proc.stdout and "FAILED" not in proc.stdout


@real_gpu_only
def test_lltm_cuda_edge_cases(lltm_cache):
    """Empty inputs (no 0-sized grid), a batch over the 65535 grid rows, a CPU tensor among
    the backward inputs (refused, not dereferenced on the GPU)."""
    proc = run_python(
        f"""
        import sys
        sys.path[:0] = [{str(REPO / "examples/lltm/cuda")!r}, {str(REPO / "examples/lltm")!r}]
        import numpy as np, sdk
        from jit import lltm_cuda
        from lltm import load_backend

        def args(batch, features, state):
            sdk.manual_seed(1)
            return [sdk.randn(batch, features, dtype=sdk.float64),
                    sdk.randn(3 * state, features + state, dtype=sdk.float64),
                    sdk.randn(1, 3 * state, dtype=sdk.float64),
                    sdk.randn(batch, state, dtype=sdk.float64),
                    sdk.randn(batch, state, dtype=sdk.float64)]

        for shape in ((0, 3, 4), (2, 3, 0)):
            a = [t.cuda() for t in args(*shape)]
            out = lltm_cuda.forward(*a)
            assert tuple(out[0].shape) == (shape[0], shape[2]), out[0].shape
            g = [sdk.zeros_like(out[0]), sdk.zeros_like(out[1])]
            back = lltm_cuda.backward(*g, *out[1:], a[1])
            assert tuple(back[4].shape) == (shape[0], shape[2])
        sdk.cuda.synchronize()

        a = args(70000, 2, 3)  # gridDim.y is at most 65535
        ref = load_backend("cpp").forward(*a)
        got = lltm_cuda.forward(*[t.cuda() for t in a])
        for r, g in zip(ref[:5], got[:5]):
            np.testing.assert_allclose(g.cpu().numpy(), r.numpy(), rtol=1e-10, atol=1e-12)

        a = [t.cuda() for t in args(4, 3, 5)]
        out = lltm_cuda.forward(*a)
        g = [sdk.ones_like(out[0]), sdk.ones_like(out[1])]
        try:
            lltm_cuda.backward(*g, out[1].cpu(), *out[2:], a[1])
        except RuntimeError as e:
            assert "new_cell must be a CUDA tensor" in str(e), e
        else:
            raise AssertionError("a CPU new_cell was accepted")
        sdk.cuda.synchronize()  # the context is still usable
        print("OK")
        """,
        SDK_EXTENSIONS_DIR=lltm_cache,
    )
    assert proc.returncode == 0 and "OK" in proc.stdout, proc.stdout + proc.stderr


def test_dlpack_copy_is_finished_and_separate():
    t = sdk.arange(1 << 20, dtype=sdk.float32).cuda() * 2  # queued work feeding the copy
    cap = t.__dlpack__(copy=True)
    u = sdk.from_dlpack(cap)
    assert u.is_cuda and u.data_ptr() != t.data_ptr()
    np.testing.assert_array_equal(host(u), np.arange(1 << 20, dtype=np.float32) * 2)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_precision_arithmetic(dtype):
    a = RNG.uniform(-2, 2, (64, 33)).astype(np.float32)
    b = RNG.uniform(0.5, 2, (64, 33)).astype(np.float32)
    d = getattr(sdk, dtype)
    ta, tb = cuda(a).to(d), cuda(b).to(d)
    # reference: the same rounding of the inputs, math in float32
    ra, rb = ta.float().cpu().numpy(), tb.float().cpu().numpy()
    tol = 1e-2 if dtype == "float16" else 2e-2
    for got, ref in (
        (ta + tb, ra + rb),
        (ta * tb, ra * rb),
        (ta / tb, ra / rb),
        (ta.exp(), np.exp(ra)),
        (sdk.tanh(ta), np.tanh(ra)),
    ):
        assert got.dtype == d
        np.testing.assert_allclose(got.float().cpu().numpy(), ref, rtol=tol, atol=tol)
    np.testing.assert_allclose(ta.float().sum().item(), ra.sum(), rtol=1e-5)
    np.testing.assert_allclose(float(ta.sum().float().item()), ra.sum(), rtol=tol, atol=0.5)


def test_a_registered_op_without_a_cuda_kernel_names_the_device_and_the_kernels():
    import uuid

    import sdk.library as L

    ns = "g" + uuid.uuid4().hex[:10]
    lib = L.Library(ns, "DEF")
    lib.define("twice(Tensor x) -> Tensor")
    lib.impl("twice", lambda x: x * 2, "CPU")
    op = getattr(sdk.ops, ns).twice
    with pytest.raises(NotImplementedError, match=f"{ns}::twice: no kernel for CUDA tensors "
                       r"\(it has kernels for: CPU\)"):  # fmt: skip
        op(sdk.ones(2, device="cuda"))
    lib.impl("twice", lambda x: x * 3, "CUDA")  # a kernel of its own for CUDA tensors
    np.testing.assert_array_equal(host(op(sdk.ones(2, device="cuda"))), [3.0, 3.0])
    np.testing.assert_array_equal(op(sdk.ones(2)).numpy(), [2.0, 2.0])
    lib._destroy()


def test_random_fills_match_the_host_generator():
    sdk.manual_seed(7)
    host_vals = sdk.empty(6).uniform_(-1, 1).numpy()
    sdk.manual_seed(7)
    dev = sdk.empty(6, device="cuda").uniform_(-1, 1)
    np.testing.assert_array_equal(host(dev), host_vals)


def test_bad_device_index():
    with pytest.raises(ValueError, match="out of range"):
        sdk.zeros(2, device=f"cuda:{sdk.cuda.device_count()}")


def test_autograd_across_devices():
    w = sdk.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = (w.cuda() * 3).sum()
    y.backward()
    assert w.grad is not None and not w.grad.is_cuda
    np.testing.assert_array_equal(w.grad.numpy(), [3.0, 3.0, 3.0])


def test_item_tolist_repr():
    t = cuda([[1.5, 2.0]])
    assert t.sum().item() == 3.5
    assert t.tolist() == [[1.5, 2.0]]
    assert "device='cuda:0'" in repr(t)
    with pytest.raises(TypeError):
        t.numpy()  # as in torch: copy to the host first
