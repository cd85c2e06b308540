"""The CUDA backend's host-side kernel choices, checked without a GPU: the host-memory test
backend runs the same planning code (core/src/cuda/backend/fast_path.h, gemm_plan.h) on the
problems the core hands it and records the plan, read back here through ctypes."""

from __future__ import annotations

import ctypes
import json

import pytest

from tests._support import build_once, run_folder
from tests.cuda.conftest import build_fake_backend, gpu_available, run_python

pytestmark = pytest.mark.skipif(gpu_available(), reason="a real GPU is visible")

# Each case: a name and an expression over x (float32, 4096), m (64 x 48), m50 (64 x 50).
ELEMENTWISE = {
    "add_f32": "x + x",
    "add_offset": "x[1:] + x[1:]",
    "add_f16": "x.half() + x.half()",
    "add_bf16": "x.bfloat16() * x.bfloat16()",
    "add_f64": "x.double() - x.double()",
    "add_int64": "x.long() + x.long()",
    "mul_scalar": "x * 2.0",
    "exp": "x.exp()",
    "transposed": "m.t() + m.t().contiguous()",
    "broadcast": "m + m[0]",
    "compare": "x < x",
    "fill": "x.clone().fill_(3.0)",
}
REDUCE = {
    "full": "x.sum()",
    "full_offset": "x[1:].sum()",
    "inner": "m.sum(1)",
    "inner_unaligned_rows": "m50.sum(1)",
    "outer": "m.sum(0)",
    "outer_of_transpose": "m.t().sum(1)",
    "outer_f16": "m.half().sum(0)",
    "outer_f64": "m.double().amax(0)",
    "outer_unaligned": "x[1:].reshape(63, 65).sum(0)",  # 4-byte base offset: one column a load
    "two_inner_dims": "x.reshape(4, 32, 32).amax((1, 2))",
    "mean_f16": "m.half().mean(1)",
    "int64": "m.long().sum(1)",
    "prod": "m.prod(1)",
    "strided": "m[:, ::2].sum(1)",
}
GEMM = {
    "f16": "m.half() @ m.t().half()",
    "bf16": "m.bfloat16() @ m.t().bfloat16()",
    "f32": "m @ m.t()",
    "f64": "m.double() @ m.t().double()",
    "strided_cols": "m[:, ::2] @ m[:, ::2].t()",
    "bmm": "m.reshape(4, 16, 48) @ m.reshape(4, 48, 16)",
    "bmm_f16": "m.reshape(4, 16, 48).half() @ m.reshape(4, 48, 16).half()",
    "bmm_repeated": "m[:16, :48] @ m.reshape(4, 48, 16)",
    "bmm_uneven": "m.reshape(2, 2, 16, 48).transpose(0, 1) @ m[:48, :16]",
}

SCRIPT = """
import ctypes, json, os
import sdk
lib = ctypes.CDLL(os.environ["SDK_CUDA_LIBRARY"])
buf = (ctypes.c_int64 * 10)()
def plans(expr):
    x = sdk.arange(4096, dtype=sdk.float32).cuda() / 4096
    m = sdk.arange(64 * 48, dtype=sdk.float32).reshape(64, 48).cuda() / 100
    m50 = sdk.arange(64 * 50, dtype=sdk.float32).reshape(64, 50).cuda() / 100
    sdk.cuda.synchronize()
    lib.sdk_fake_last_plans(buf)
    before = list(buf)
    eval(expr)
    lib.sdk_fake_last_plans(buf)
    return list(buf)[:9] + [buf[9] - before[9]]  # the last: gemm calls made by expr
print(json.dumps({k: plans(v) for k, v in CASES.items()}))
"""


@pytest.fixture(scope="module")
def fake(tmp_path_factory):
    return build_once(run_folder(tmp_path_factory, "fake_backend"), build_fake_backend)


@pytest.fixture(scope="module")
def recorded(fake):
    cases = {**ELEMENTWISE, **{f"r_{k}": v for k, v in REDUCE.items()}}
    cases.update({f"g_{k}": v for k, v in GEMM.items()})
    code = f"CASES = {cases!r}\n" + SCRIPT
    proc = run_python(code, SDK_CUDA_LIBRARY=str(fake), SDK_CUDA_FAKE="1")
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize(
    ("case", "path", "vec"),
    [
        ("add_f32", 1, 4),
        ("add_offset", 1, 1),  # contiguous, but 4 bytes past a 16-byte boundary
        ("add_f16", 1, 8),
        ("add_bf16", 1, 8),
        ("add_f64", 1, 2),
        ("mul_scalar", 1, 4),
        ("exp", 1, 4),
        ("fill", 1, 4),
        ("add_int64", 0, 1),  # integers keep the general kernels
        ("transposed", 0, 1),
        ("broadcast", 0, 1),
        ("compare", 0, 1),  # bool output: not one dtype
    ],
)
def test_elementwise_path_choice(recorded, case, path, vec):
    got = recorded[case]
    assert got[0] == path, (case, got)
    if path == 1:
        assert got[1] == vec and got[2] == 1, (case, got)


@pytest.mark.parametrize(
    ("case", "path", "vec", "rows", "cols"),
    [
        ("full", 1, 4, 1, 4096),
        ("full_offset", 1, 1, 1, 4095),
        ("inner", 2, 4, 64, 48),
        ("inner_unaligned_rows", 2, 1, 64, 50),  # 200-byte rows break 16-byte alignment
        ("outer", 3, 2, 64, 48),  # 8 bytes a load: two float32 columns per thread
        ("outer_of_transpose", 3, 2, 64, 48),
        ("outer_f16", 3, 4, 64, 48),
        ("outer_f64", 3, 1, 64, 48),
        ("outer_unaligned", 3, 1, 63, 65),
        ("two_inner_dims", 2, 4, 4, 1024),
        ("mean_f16", 2, 8, 64, 48),
        ("int64", 0, None, None, None),
        ("prod", 0, None, None, None),
        ("strided", 0, None, None, None),
    ],
)
def test_reduction_path_choice(recorded, case, path, vec, rows, cols):
    got = recorded[f"r_{case}"]
    assert got[3] == path, (case, got)
    if path:
        assert got[4:7] == [vec, rows, cols], (case, got)


@pytest.mark.parametrize(
    ("case", "route"), [("f16", 2), ("bf16", 2), ("f32", 1), ("f64", 1), ("strided_cols", 0)]
)
def test_gemm_route(recorded, case, route):
    # 2: cublasGemmEx with float accumulation; 1: cublasSgemm/Dgemm; 0: the naive kernel
    assert recorded[f"g_{case}"][7] == route, recorded[f"g_{case}"]
    assert recorded[f"g_{case}"][8:] == [1, 1], recorded[f"g_{case}"]  # one product, one call


@pytest.mark.parametrize(
    ("case", "route", "batch", "calls"),
    [
        ("bmm", 1, 4, 1),  # cublasSgemmStridedBatched
        ("bmm_f16", 2, 4, 1),  # cublasGemmStridedBatchedEx
        ("bmm_repeated", 1, 4, 1),  # a repeated: batch stride 0
        ("bmm_uneven", 1, 1, 4),  # batch offsets 0, 2, 1, 3 (x 768 elements): one call each
    ],
)
def test_batched_gemm_is_one_call(recorded, case, route, batch, calls):
    assert recorded[f"g_{case}"][7:] == [route, batch, calls], recorded[f"g_{case}"]


def split(lib, numel, limit):
    out = (ctypes.c_int64 * 8)()
    n = lib.sdk_fake_split(ctypes.c_int64(numel), ctypes.c_int64(limit), out)
    return n, list(out)[:7]


def test_split_into_32bit_launches(fake):
    lib = ctypes.CDLL(str(fake))
    lib.sdk_fake_split.restype = ctypes.c_int64
    n, out = split(lib, 10, 4)
    assert n == 3
    assert out[:4] == [4, 0, 4, 16]  # (size, byte offset) of the first two launches
    assert out[4:6] == [2, 32] and out[6] == 1  # the last one; the scalar operand untouched
    big = 5 * 2**31 + 7
    n, out = split(lib, big, 2**31)
    assert n == 6 and out[:4] == [2**31, 0, 2**31, 2**31 * 4]
    assert out[4:6] == [7, 5 * 2**31 * 4]
    assert split(lib, 2**31, 2**31)[0] == 1  # exactly the limit: one launch
    assert split(lib, 0, 2**31)[0] == 0


# A child's view of the stand-in backend: uses(ptr) lists the streams recorded on a block.
FAKE_STREAM_USES = """
import ctypes, os
import sdk, sdk.cuda
lib = ctypes.CDLL(os.environ["SDK_CUDA_LIBRARY"])
lib.sdk_fake_stream_uses.restype = ctypes.c_int64
def uses(ptr):
    out = (ctypes.c_void_p * 4)()
    n = lib.sdk_fake_stream_uses(ctypes.c_void_p(ptr), out, 4)
    return [out[i] or 0 for i in range(min(n, 4))]
"""

RECORD_SCRIPT = (
    FAKE_STREAM_USES
    + """
x = sdk.ones(1000, device="cuda")
base = x.data_ptr()
x[10:].record_stream(sdk.cuda.ExternalStream(0x1234))  # a view records its storage's block
x.record_stream(0x5678)
print("uses", uses(base))
for bad in (x.cpu(), ):
    try:
        bad.record_stream(sdk.cuda.ExternalStream(0x1234))
    except ValueError as e:
        print("cpu", isinstance(e, ValueError), "CUDA tensor" in str(e))
try:
    x.record_stream("stream")
except TypeError as e:
    print("type", "record_stream" in str(e))
del x
print("after free", uses(base))
"""
)


def test_record_stream_reaches_the_allocator(fake):
    proc = run_python(RECORD_SCRIPT, SDK_CUDA_LIBRARY=str(fake), SDK_CUDA_FAKE="1")
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = proc.stdout.strip().splitlines()
    assert lines[0] == f"uses {[0x1234, 0x5678]}"
    assert lines[1] == "cpu True True"
    assert lines[2] == "type True"
    assert lines[3] == "after free []"  # the block's record goes with it


TF32_SCRIPT = """
import ctypes, os
import sdk
lib = ctypes.CDLL(os.environ["SDK_CUDA_LIBRARY"])
buf = (ctypes.c_int64 * 10)()
m = sdk.ones(8, 8).cuda()
def route():
    m @ m
    lib.sdk_fake_last_plans(buf)
    return buf[7]
print(sdk.backends.cuda.matmul.allow_tf32, route())
sdk.backends.cuda.matmul.allow_tf32 = True
print(sdk.backends.cuda.matmul.allow_tf32, route(), end=" ")
m16 = m.half()
m16 @ m16
lib.sdk_fake_last_plans(buf)
print(buf[7], end=" ")
md = m.double()
md @ md
lib.sdk_fake_last_plans(buf)
print(buf[7])
sdk.backends.cuda.matmul.allow_tf32 = False
print(sdk.backends.cuda.matmul.allow_tf32, route())
for bad in (1, "yes"):
    try:
        sdk.backends.cuda.matmul.allow_tf32 = bad
    except TypeError as e:
        print("refused", "bool" in str(e))
try:
    sdk.backends.cuda.matmul.allow_fp16 = True
except AttributeError:
    print("unknown setting refused")
"""


def test_allow_tf32_routes_float32_gemm(fake):
    proc = run_python(TF32_SCRIPT, SDK_CUDA_LIBRARY=str(fake), SDK_CUDA_FAKE="1")
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = proc.stdout.strip().splitlines()
    assert lines[0] == "False 1"  # off by default: cublasSgemm
    assert lines[1] == "True 3 2 1"  # float32 -> GemmEx TF32; float16 and float64 unchanged
    assert lines[2] == "False 1"
    assert lines[3:] == ["refused True", "refused True", "unknown setting refused"]
