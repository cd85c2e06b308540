"""sdk/cuda.h's helpers (OptionalCUDAGuard, CUDAStreamGuard, getStreamFromPool, CUDAEvent,
getCurrentDeviceProperties, getCurrentCUDABlasHandle): built with nvcc without a GPU, with
clear errors there; their behaviour where a GPU is visible."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import sdk
from tests._support import kept_folder, toolchain_key
from tests.cuda.conftest import TEST_ARCH, gpu_available, require_nvcc

SOURCE = Path(__file__).resolve().parent / "cuda_helpers.cu"
on_gpu = pytest.mark.skipif(not gpu_available(), reason="no CUDA GPU visible")


def _has_cublas(toolkit) -> bool:
    return (Path(toolkit.include_dir) / "cublas_v2.h").is_file()


@pytest.fixture(scope="module")
def helpers(tmp_path_factory):
    toolkit = require_nvcc()
    import cpp_extension

    mp = pytest.MonkeyPatch()
    mp.setenv(
        "SDK_EXTENSIONS_DIR", str(kept_folder(tmp_path_factory, "cuda_helpers", *toolchain_key()))
    )
    mp.setenv("SDK_CUDA_ARCH_LIST", TEST_ARCH)
    mp.setenv("MAX_JOBS", "2")
    try:
        ldflags = ["-lcublas"] if _has_cublas(toolkit) else []
        yield cpp_extension.load("cuda_helpers", [str(SOURCE)], extra_ldflags=ldflags)
    finally:
        mp.undo()


def test_cuda_data_types_need_no_device(helpers):
    # CUDA_R_32F, _64F, _16F, _16BF, _32I, _64I, _8I, _8U, _16I (library_types.h)
    assert helpers.cuda_data_types(False) == [0, 1, 2, 14, 10, 24, 3, 8, 20]
    with pytest.raises(ValueError, match="Cannot convert ScalarType bool to cudaDataType"):
        helpers.cuda_data_types(True)


def test_record_stream_refuses_a_cpu_tensor(helpers):
    with pytest.raises(ValueError, match="record_stream: expected a CUDA tensor"):
        helpers.record_on_stream(sdk.ones(3), 0)


@on_gpu
def test_record_stream_on_a_pool_stream(helpers):
    x = sdk.ones(1024, device="cuda")
    (streams, _) = helpers.pool_streams(1, False)
    helpers.record_on_stream(x, streams[0])  # held until that stream's work is done when freed
    del x
    sdk.cuda.synchronize()
    assert float(sdk.ones(1024, device="cuda").sum().item()) == 1024.0


def test_optional_guard_and_unrecorded_event_need_no_device(helpers):
    assert helpers.optional_guard_without_device() is True
    assert helpers.unrecorded_event() == (False, True, False)


def test_optional_guard_refuses_a_cpu_device(helpers):
    with pytest.raises(ValueError, match="OptionalCUDAGuard: expected a CUDA device, got cpu"):
        helpers.optional_guard_on_cpu()


@pytest.mark.skipif(gpu_available(), reason="checks the errors of a machine without a GPU")
def test_device_properties_without_cuda_say_why(helpers):
    with pytest.raises(RuntimeError, match="getDeviceProperties: CUDA is not available"):
        helpers.warp_size()


@on_gpu
def test_device_properties(helpers):
    assert helpers.warp_size() == 32
    assert helpers.properties_of(0) > 0
    with pytest.raises(IndexError, match="out of range"):
        helpers.properties_of(1000)


@on_gpu
def test_stream_pool_round_robin(helpers):
    streams, same_device = helpers.pool_streams(33, False)
    assert same_device and 0 not in streams
    assert len(set(streams[:32])) == 32 and streams[32] == streams[0]
    high, _ = helpers.pool_streams(2, True)
    assert not set(high) & set(streams)


@on_gpu
def test_stream_guard_sets_and_restores(helpers):
    inside, restored, device = helpers.stream_guard()
    assert inside and restored and device == sdk.cuda.current_device()


@on_gpu
def test_timed_event(helpers):
    x = sdk.from_numpy(np.ones(1 << 20, dtype=np.float32)).cuda()
    ms, done, waited = helpers.timed_event(x)
    assert ms > 0 and done and waited


@on_gpu
def test_blas_handle(helpers):
    toolkit = require_nvcc()
    if not _has_cublas(toolkit):
        pytest.skip("cublas_v2.h is not installed with this toolkit")
    assert helpers.blas_handle() is True
