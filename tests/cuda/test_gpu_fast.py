"""The contiguous fast kernels (elementwise, reductions) and the float16/bfloat16 gemm against
numpy, for every floating dtype: aligned and unaligned operands, sizes that end inside a
block's tile, scalars, NaN. Runs on a real GPU, and on the host-memory test backend through
test_fake_backend.py (there it checks the tests themselves and the core's side)."""

from __future__ import annotations

import os

import numpy as np
import pytest

import sdk
from tests.cuda.conftest import requires_gpu, run_python

pytestmark = requires_gpu

RNG = np.random.default_rng(31)
DTYPES = ["float16", "bfloat16", "float32", "float64"]
TOL = {"float16": 2e-3, "bfloat16": 1.6e-2, "float32": 2e-6, "float64": 1e-12}
# 1 element, a tile's edge (128 threads x 16 floats), one past it, and a long odd run
SIZES = [1, 2047, 2048, 2049, 100_003]


def device(x: np.ndarray, dtype: str):
    """x rounded to dtype on the GPU, and the rounded values as float64 (the reference input)."""
    t = sdk.tensor(x).to(getattr(sdk, dtype))
    return t.cuda(), t.double().numpy()


def host(t) -> np.ndarray:
    return t.cpu().double().numpy()


def close(got, ref, dtype, scale=1.0):
    tol = TOL[dtype] * scale
    np.testing.assert_allclose(host(got), ref, rtol=tol, atol=tol)


BINARY = {
    "add": (lambda a, b: a + b, np.add),
    "sub": (lambda a, b: a - b, np.subtract),
    "mul": (lambda a, b: a * b, np.multiply),
    "div": (lambda a, b: a / b, np.divide),
    "maximum": (sdk.maximum, np.maximum),
    "minimum": (sdk.minimum, np.minimum),
    "atan2": (sdk.atan2, np.arctan2),  # an op without its own functor
}
UNARY = {
    "neg": (lambda a: -a, np.negative),
    "exp": (sdk.exp, np.exp),
    "sigmoid": (sdk.sigmoid, lambda a: 1 / (1 + np.exp(-a))),
    "relu": (sdk.relu, lambda a: np.maximum(a, 0)),
    "tanh": (sdk.tanh, np.tanh),
    "sqrt": (lambda a: sdk.sqrt(a.abs()), lambda a: np.sqrt(np.abs(a))),
    "abs": (sdk.abs, np.abs),
    "sin": (sdk.sin, np.sin),  # the switch fallback
}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", sorted(BINARY))
@pytest.mark.parametrize("n", SIZES)
def test_binary_contiguous(dtype, name, n):
    ours, theirs = BINARY[name]
    a, ra = device(RNG.uniform(-3, 3, n), dtype)
    b, rb = device(RNG.uniform(0.5, 3, n), dtype)
    close(ours(a, b), theirs(ra, rb), dtype, scale=2)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_contiguous_aligned_and_not(dtype, name):
    ours, theirs = UNARY[name]
    x, rx = device(RNG.uniform(-3, 3, 4099), dtype)
    close(ours(x), theirs(rx), dtype, scale=2)
    close(ours(x[1:]), theirs(rx[1:]), dtype, scale=2)  # 1 element off 16 bytes: scalar kernel


@pytest.mark.parametrize("dtype", DTYPES)
def test_scalar_operands_in_place_and_fill(dtype):
    x, rx = device(RNG.uniform(-3, 3, 5000), dtype)
    close(x * 2.5, rx * 2.5, dtype)
    close(1.5 - x, 1.5 - rx, dtype)
    y = x.clone()
    y += x
    close(y, rx + rx, dtype)
    y.fill_(0.25)
    assert np.all(host(y) == 0.25)
    close(sdk.add(x, x, alpha=3), rx + 3 * rx, dtype, scale=4)


@pytest.mark.parametrize("dtype", DTYPES)
def test_nan_propagates_through_fast_kernels(dtype):
    v = np.array([1.0, np.nan, -2.0, 3.0] * 600)
    x, _ = device(v, dtype)
    assert np.isnan(host(sdk.maximum(x, x))[1::4]).all()
    assert np.isnan(host(x.relu())[1::4]).all()
    assert np.isnan(host(x.amax())) and np.isnan(host(x.sum()))
    assert np.isnan(host(x.reshape(600, 4).amin(1))).all()


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", ["sum", "mean", "amax", "amin"])
def test_reductions_full_inner_outer(dtype, op):
    ref_op = {"sum": np.sum, "mean": np.mean, "amax": np.max, "amin": np.min}[op]
    scale = 20 if op in ("sum", "mean") else 1  # float accumulation vs numpy's pairwise double
    for shape in [(2,), (3000,), (100_001,)]:
        x, rx = device(RNG.uniform(-1, 1, shape), dtype)
        close(getattr(x, op)(), ref_op(rx), dtype, scale)
        close(getattr(x[1:], op)(), ref_op(rx[1:]), dtype, scale)  # unaligned start
    # (5000, 40): rows split over blocks (partials + a second kernel), most threads idle
    for shape in [(7, 5), (64, 48), (33, 1000), (3, 4099), (5000, 40)]:
        m, rm = device(RNG.uniform(-1, 1, shape), dtype)
        for dim in (0, 1):
            close(getattr(m, op)(dim), ref_op(rm, axis=dim), dtype, scale)
        close(getattr(m.t(), op)(1), ref_op(rm, axis=0), dtype, scale)


@pytest.mark.parametrize("dtype", DTYPES)
def test_reduction_of_trailing_dims_and_large_rows(dtype):
    x, rx = device(RNG.uniform(-1, 1, (4, 6, 1024)), dtype)
    close(x.sum((1, 2)), rx.sum(axis=(1, 2)), dtype, scale=50)
    close(x.sum((0, 1)), rx.sum(axis=(0, 1)), dtype, scale=20)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize(("m", "k", "n"), [(64, 48, 32), (129, 257, 65), (1, 300, 1)])
def test_half_gemm_against_numpy(dtype, m, k, n):
    a, ra = device(RNG.uniform(-1, 1, (m, k)), dtype)
    b, rb = device(RNG.uniform(-1, 1, (k, n)), dtype)
    got = host(a @ b)
    ref = ra @ rb
    # float accumulation, one rounding of the result to the 16-bit type
    tol = {"float16": 1e-3, "bfloat16": 8e-3}[dtype] * (1 + np.abs(ref))
    assert np.all(np.abs(got - ref) <= tol * 2 + 1e-3 * np.sqrt(k))
    got_t = host(a @ b.t().contiguous().t())  # b column-major: the transposed cuBLAS operand
    np.testing.assert_allclose(got_t, got, rtol=0, atol=0)


RECORD_STREAM_GPU = """
import ctypes, threading
import sdk, sdk.cuda
sdk.empty(1, device="cuda")  # loads the runtime
path = next(l.split()[-1] for l in open("/proc/self/maps") if "libcudart" in l)
rt = ctypes.CDLL(path)
side = ctypes.c_void_p()
assert rt.cudaStreamCreateWithFlags(ctypes.byref(side), 1) == 0  # cudaStreamNonBlocking
gate = threading.Event()
HOSTFN = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
hold = HOSTFN(lambda _: gate.wait())  # the side stream waits here until the gate opens
assert rt.cudaLaunchHostFunc(side, hold, None) == 0
n = 1 << 20  # 4 MiB of float32
x = sdk.ones(n, device="cuda")
x.record_stream(sdk.cuda.ExternalStream(side.value))
ptr = x.data_ptr()
del x
z = sdk.empty(n, device="cuda")
print("reused while busy:", z.data_ptr() == ptr)
gate.set()
assert rt.cudaStreamSynchronize(side) == 0
w = sdk.empty(n, device="cuda")
print("reused when done:", w.data_ptr() == ptr)
"""


@pytest.mark.skipif(os.environ.get("SDK_CUDA_FAKE") == "1", reason="needs a real GPU")
def test_record_stream_holds_the_block_until_the_stream_is_done():
    proc = run_python(RECORD_STREAM_GPU, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr[-3000:]
    assert "reused while busy: False" in proc.stdout, proc.stdout
    assert "reused when done: True" in proc.stdout, proc.stdout
