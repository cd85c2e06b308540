"""sdk.cuda's and sdk.backends.cudnn's torch names that scripts and extensions' glue call
(device(), manual_seed(_all), is_initialized, cudnn's flags), with or without a GPU."""

from __future__ import annotations

import pytest

import sdk
import sdk.backends.cudnn as cudnn
from tests.cuda.conftest import gpu_available


def test_cuda_manual_seed_seeds_the_generator_cuda_tensors_draw_from():
    sdk.cuda.manual_seed(7)
    first = sdk.rand(4).tolist()
    sdk.cuda.manual_seed_all(7)
    assert sdk.rand(4).tolist() == first
    sdk.manual_seed(7)
    assert sdk.rand(4).tolist() == first
    sdk.cuda.manual_seed(8)
    assert sdk.rand(4).tolist() != first


def test_device_none_and_minus_one_change_nothing():
    with sdk.cuda.device(None):
        pass
    with sdk.cuda.device(-1):
        pass
    with pytest.raises(ValueError, match="expected a CUDA device, got cpu"):
        sdk.cuda.device("cpu")


@pytest.mark.skipif(gpu_available(), reason="a CUDA GPU is visible here")
def test_device_without_a_gpu_says_why():
    assert sdk.cuda.is_initialized() is False
    with pytest.raises(RuntimeError, match="CUDA is not available"):
        with sdk.cuda.device(0):
            pass


@pytest.mark.skipif(not gpu_available(), reason="no CUDA GPU visible")
def test_device_sets_and_restores_the_current_device():
    assert sdk.cuda.is_initialized() is True
    last = sdk.cuda.device_count() - 1
    before = sdk.cuda.current_device()
    with sdk.cuda.device(f"cuda:{last}"):
        assert sdk.cuda.current_device() == last
    assert sdk.cuda.current_device() == before


def test_cudnn_flags_keep_what_is_set_and_say_there_is_no_cudnn():
    assert cudnn.is_available() is False and cudnn.version() is None
    assert (cudnn.enabled, cudnn.benchmark, cudnn.deterministic) == (True, False, False)
    old = cudnn.benchmark
    try:
        sdk.backends.cudnn.benchmark = True
        assert cudnn.benchmark is True
    finally:
        cudnn.benchmark = old


def test_defaults_match_torch():
    torch = pytest.importorskip("torch")
    for name in ("enabled", "benchmark", "deterministic", "allow_tf32"):
        assert getattr(cudnn, name) == getattr(torch.backends.cudnn, name), name
