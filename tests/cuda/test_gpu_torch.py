"""CUDA tensors shared with torch through DLPack, both ways, on a real GPU: the same device
memory (no copy), writes seen on the other side, and the stream handshake. Skipped without a
GPU or without a CUDA build of torch (torch is never a dependency of sdk)."""

from __future__ import annotations

import numpy as np
import pytest

import sdk
from tests.cuda.conftest import requires_gpu

pytestmark = requires_gpu
torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("torch has no CUDA device here", allow_module_level=True)


def test_torch_cuda_tensor_into_sdk_shares_memory():
    t = torch.arange(12, dtype=torch.float32, device="cuda").reshape(3, 4)
    s = sdk.from_dlpack(t)
    assert s.is_cuda and s.shape == (3, 4) and s.dtype == sdk.float32
    assert s.data_ptr() == t.data_ptr()
    np.testing.assert_array_equal(s.cpu().numpy(), t.cpu().numpy())
    s.mul_(2)  # an SDK kernel writes torch's memory
    torch.cuda.synchronize()
    np.testing.assert_array_equal(
        t.cpu().numpy(), np.arange(12, dtype=np.float32).reshape(3, 4) * 2
    )


def test_sdk_cuda_tensor_into_torch_shares_memory():
    s = sdk.arange(10, dtype=sdk.float64).cuda()
    t = torch.from_dlpack(s)
    assert t.is_cuda and t.dtype == torch.float64 and t.data_ptr() == s.data_ptr()
    t.add_(1)  # torch writes the SDK's memory
    torch.cuda.synchronize()
    np.testing.assert_array_equal(s.cpu().numpy(), np.arange(10) + 1.0)


def test_strided_views_cross_both_ways():
    t = torch.randn(64, 32, device="cuda").t()[::2]  # non-contiguous, offset-free view
    s = sdk.from_dlpack(t)
    assert s.stride() == t.stride()
    np.testing.assert_allclose(s.sum(1).cpu().numpy(), t.sum(1).cpu().numpy(), rtol=1e-5)
    back = torch.from_dlpack(s[1:])
    assert back.data_ptr() == t[1:].data_ptr() and back.stride() == t[1:].stride()


def test_work_on_a_torch_stream_is_finished_before_sdk_reads():
    # torch fills on a side stream; from_dlpack passes sdk's current stream to __dlpack__, so
    # torch orders its (current, side) stream's work before anything sdk then launches.
    side = torch.cuda.Stream()
    n = 1 << 24
    with torch.cuda.stream(side):
        torch.cuda._sleep(20_000_000)  # keep the side stream busy: a missing wait reads zeros
        big = torch.zeros(n, device="cuda")
        big.fill_(3.0)
        s = sdk.from_dlpack(big)
    assert float(s.sum().item()) == 3.0 * n


def test_sdk_results_match_torch_on_the_gpu():
    g = torch.Generator(device="cuda").manual_seed(0)
    a = torch.randn(257, 129, device="cuda", generator=g)
    b = torch.randn(129, 65, device="cuda", generator=g)
    sa, sb = sdk.from_dlpack(a), sdk.from_dlpack(b)
    np.testing.assert_allclose(
        sdk.mm(sa, sb).cpu().numpy(), (a @ b).cpu().numpy(), rtol=1e-4, atol=1e-4
    )
    np.testing.assert_allclose(
        sa.exp().sum(0).cpu().numpy(), a.exp().sum(0).cpu().numpy(), rtol=1e-5
    )
