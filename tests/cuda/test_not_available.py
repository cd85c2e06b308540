"""Without a GPU (or without the backend), CUDA requests fail cleanly and CPU use is untouched."""

from __future__ import annotations

import ctypes

import pytest

import sdk
import sdk.cuda
from tests.cuda.conftest import gpu_available, run_python

pytestmark = pytest.mark.skipif(gpu_available(), reason="a CUDA GPU is visible here")


def test_queries_answer_without_failing():
    assert sdk.cuda.is_available() is False
    assert sdk.cuda.device_count() == 0
    reason = sdk.cuda.unavailable_reason()
    assert reason and isinstance(reason, str)
    sdk.cuda.empty_cache()  # nothing cached: not an error, as in torch


@pytest.mark.parametrize(
    "call",
    [
        lambda: sdk.cuda.memory_stats(),
        lambda: sdk.cuda.synchronize(),
        lambda: sdk.cuda.current_device(),
        lambda: sdk.cuda.current_stream(),
        lambda: sdk.cuda.set_device(0),
        lambda: sdk.cuda._to_device(sdk.ones(3), "cuda"),
        lambda: sdk.cuda._to_device(sdk.ones(3), "cuda:1"),
    ],
)
def test_cuda_calls_raise_not_available(call):
    with pytest.raises(RuntimeError, match="CUDA is not available: .+"):
        call()


def test_reason_is_in_the_message():
    with pytest.raises(RuntimeError) as info:
        sdk.cuda._to_device(sdk.ones(2), "cuda")
    assert sdk.cuda.unavailable_reason() in str(info.value)


def test_tensor_api_raises_runtime_error():
    # the public spellings a torch user types; never a crash
    x = sdk.ones(2)
    for make in (
        lambda: sdk.zeros(2, device="cuda"),
        lambda: sdk.ones(2, 3).cuda(),
        lambda: sdk.ones(2).to("cuda"),
        lambda: sdk.ones(2).to("cuda", sdk.float64),
        lambda: sdk.ones(2).cuda(1),
        lambda: sdk.tensor([1.0, 2.0], device="cuda:0"),
        lambda: sdk.randn(3, device="cuda"),
        lambda: sdk.arange(4, device=sdk.device("cuda")),
        lambda: sdk.zeros_like(x, device="cuda"),
    ):
        with pytest.raises(RuntimeError, match="CUDA is not available: "):
            make()
    assert x.cpu() is x and x.to("cpu") is x


def test_to_device_through_the_c_abi():
    lib = ctypes.CDLL(sdk.get_library_path())

    class Dev(ctypes.Structure):
        _fields_ = [("type", ctypes.c_int32), ("index", ctypes.c_int32)]

    lib.sdk_empty.argtypes = [
        ctypes.c_int64,
        ctypes.POINTER(ctypes.c_int64),
        ctypes.c_int32,
        Dev,
        ctypes.POINTER(ctypes.c_void_p),
    ]
    lib.sdk_to_device.argtypes = [ctypes.c_void_p, Dev, ctypes.POINTER(ctypes.c_void_p)]
    lib.sdk_last_error_message.restype = ctypes.c_char_p
    sizes = (ctypes.c_int64 * 1)(4)
    t, out = ctypes.c_void_p(), ctypes.c_void_p()
    assert lib.sdk_empty(1, sizes, 8, Dev(1, 0), ctypes.byref(t)) == 0
    try:
        assert lib.sdk_to_device(t, Dev(2, 0), ctypes.byref(out)) == 4  # SDK_ERROR_RUNTIME
        assert lib.sdk_last_error_message().startswith(b"CUDA is not available: ")
        assert not out.value
        # CPU -> CPU is the tensor itself
        assert lib.sdk_to_device(t, Dev(1, 0), ctypes.byref(out)) == 0
        assert out.value == t.value
        lib.sdk_tensor_release(out)
        assert lib.sdk_to_device(t, Dev(7, 0), ctypes.byref(out)) == 1  # unknown type
    finally:
        lib.sdk_tensor_release(t)


def test_cpu_only_process_never_loads_cuda():
    # importing sdk and computing on the CPU opens no CUDA library at all
    proc = run_python(
        """
        import sdk
        x = (sdk.ones(3) * 2).sum()
        assert float(x) == 6.0
        maps = open("/proc/self/maps").read()
        print("cudart" in maps, "libsdk_cuda" in maps)
        """
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["False", "False"]


def test_missing_backend_library_is_named(tmp_path):
    proc = run_python(
        """
        import sdk, sdk.cuda
        print(sdk.cuda.is_available())
        print(sdk.cuda.unavailable_reason())
        """,
        SDK_CUDA_LIBRARY=str(tmp_path / "libsdk_cuda.so"),
    )
    assert proc.returncode == 0, proc.stderr
    first, reason = proc.stdout.strip().split("\n", 1)
    assert first == "False"
    assert "libsdk_cuda.so" in reason and "without its CUDA backend" in reason
