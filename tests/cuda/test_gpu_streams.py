"""Device queries, pooled streams and events on a GPU (test_fake_backend.py also runs this
file on the host-memory stand-in). Skipped with "no CUDA GPU visible" elsewhere."""

from __future__ import annotations

import pytest

import sdk
import sdk.cuda as cuda
from tests.cuda.conftest import requires_gpu

pytestmark = requires_gpu


def test_device_properties_agree_with_each_other():
    p = cuda.get_device_properties()
    assert p.name and p.name == cuda.get_device_name(0)
    assert (p.major, p.minor) == cuda.get_device_capability("cuda:0") and p.major >= 3
    assert p.total_memory > 0 and p.multi_processor_count > 0 and p.warp_size == 32
    assert p.max_threads_per_block >= 512 and p.shared_memory_per_block > 0
    free, total = cuda.mem_get_info()
    assert total == p.total_memory and 0 < free <= total
    assert cuda.is_bf16_supported() is True  # natively from 8.0, emulated below
    assert cuda.is_bf16_supported(including_emulation=False) is (p.major >= 8)
    archs = cuda.get_arch_list()
    assert archs and all(a.startswith("sm_") and a[3:].isdigit() for a in archs)


def test_work_on_a_pooled_stream_is_ordered_by_events():
    side = cuda.Stream()
    side.wait_stream(cuda.current_stream())
    start, end = cuda.Event(enable_timing=True), cuda.Event(enable_timing=True)
    with cuda.stream(side):
        start.record()
        x = sdk.ones(1 << 20, device="cuda") * 3
        total = x.sum()
        end.record()
    cuda.current_stream().wait_event(end)
    end.synchronize()
    assert end.query() is True and side.query() is True
    assert start.elapsed_time(end) >= 0.0
    assert total.item() == 3.0 * (1 << 20)
    x.record_stream(side)  # its block is reused only after the side stream's work


def test_high_priority_pool_and_default_stream():
    hi = cuda.Stream(priority=-1)
    lo = cuda.Stream()
    assert hi.cuda_stream != lo.cuda_stream and hi.cuda_stream and lo.cuda_stream
    assert cuda.default_stream().cuda_stream == 0
    with hi:
        assert cuda.current_stream() == hi
        y = sdk.arange(10, device="cuda").sum()
    hi.synchronize()
    assert y.item() == 45


def test_event_errors_are_named():
    timed = cuda.Event(enable_timing=True)
    with pytest.raises(RuntimeError, match="recorded"):
        timed.elapsed_time(cuda.Event(enable_timing=True))
    e = cuda.Event()
    e.record()
    with pytest.raises(ValueError, match="enable_timing"):
        e.elapsed_time(e)
    with pytest.raises(ValueError, match="out of range"):
        cuda.get_device_properties(cuda.device_count())
