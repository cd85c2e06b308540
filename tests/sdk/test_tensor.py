"""The Tensor object: attributes, repr, conversions, protocols, autograd API, package metadata."""

from __future__ import annotations

import copy
import gc
import os
import pickle
import weakref

import numpy as np
import pytest

import sdk


def test_construction_is_guided():
    with pytest.raises(TypeError, match=r"sdk\.tensor"):
        sdk.Tensor([1, 2])
    assert isinstance(sdk.ones(2), sdk.Tensor) and sdk.is_tensor(sdk.ones(2))
    assert not sdk.is_tensor(np.ones(2))


def test_attributes():
    t = sdk.zeros(2, 3, dtype=sdk.float64)
    assert t.shape == (2, 3) and isinstance(t.shape, sdk.Size) and isinstance(t.shape, tuple)
    assert repr(t.shape) == "sdk.Size([2, 3])" and t.shape.numel() == 6
    assert t.size() == (2, 3) and t.size(1) == 3 and t.size(-2) == 2
    assert t.dim() == 2 == t.ndim and t.numel() == 6
    assert t.stride() == (3, 1) and t.stride(0) == 3 and t.t().stride() == (1, 3)
    assert t.element_size() == 8 == t.itemsize and t.nbytes == 48
    assert t.storage_offset() == 0 and t[1].storage_offset() == 3
    assert t.is_contiguous() and not t.t().is_contiguous()
    assert t.dtype is sdk.float64 and t.is_floating_point()
    assert t.device == sdk.device("cpu") and repr(t.device) == "device(type='cpu')"
    assert t.device.type == "cpu" and t.device.index is None and t.is_cpu and not t.is_cuda
    assert t[1].data_ptr() == t.data_ptr() + 24
    with pytest.raises(IndexError, match="range"):
        t.size(2)


def test_dtypes():
    assert repr(sdk.float32) == "sdk.float32"
    assert sdk.float is sdk.float32 and sdk.double is sdk.float64 and sdk.half is sdk.float16
    assert sdk.long is sdk.int64 and sdk.int is sdk.int32 and sdk.short is sdk.int16
    assert sdk.bool.itemsize == 1 and sdk.bfloat16.itemsize == 2 and sdk.float64.itemsize == 8
    assert sdk.bfloat16.is_floating_point and not sdk.int8.is_floating_point
    assert sdk.get_default_dtype() is sdk.float32
    assert sdk.promote_types(sdk.int32, sdk.float16) is sdk.float16
    assert pickle.loads(pickle.dumps(sdk.int16)) is sdk.int16


def test_item_and_python_numbers():
    assert sdk.tensor(2.5).item() == 2.5 and isinstance(sdk.tensor(3).item(), int)
    assert sdk.tensor([True]).item() is True
    assert float(sdk.tensor([1.5])) == 1.5 and int(sdk.tensor(7)) == 7
    assert bool(sdk.tensor(1)) and not bool(sdk.tensor([0.0]))
    assert sdk.tensor(1.0, dtype=sdk.float16).item() == 1.0
    assert sdk.tensor(0.1, dtype=sdk.bfloat16).item() == pytest.approx(0.1, rel=1e-2)
    assert list(range(10))[sdk.tensor(3)] == 3
    with pytest.raises(RuntimeError, match="ambiguous"):
        bool(sdk.ones(2))
    with pytest.raises(RuntimeError):
        sdk.ones(2).item()
    with pytest.raises(TypeError):
        [1, 2][sdk.tensor(1.0)]
    assert f"{sdk.tensor(2.5):.2f}" == "2.50"


def test_tolist():
    a = np.arange(6).reshape(2, 3)
    assert sdk.tensor(a).tolist() == a.tolist()
    assert sdk.tensor(a).t().tolist() == a.T.tolist()
    assert sdk.tensor(2.0).tolist() == 2.0
    assert sdk.zeros(0, 2).tolist() == []
    assert sdk.tensor([True, False]).tolist() == [True, False]


def test_repr_torch_style():
    assert repr(sdk.tensor([[1.0, 2.0], [3.0, 4.0]])) == "tensor([[1., 2.],\n        [3., 4.]])"
    assert repr(sdk.tensor([1, 2, 3])) == "tensor([1, 2, 3])"
    assert repr(sdk.tensor([1, 2], dtype=sdk.int32)) == "tensor([1, 2], dtype=sdk.int32)"
    assert (
        repr(sdk.tensor([0.5, 1.25], dtype=sdk.float64))
        == "tensor([0.5000, 1.2500], dtype=sdk.float64)"
    )
    assert repr(sdk.tensor(3.0)) == "tensor(3.)"
    assert repr(sdk.tensor([True, False])) == "tensor([ True, False])"
    assert repr(sdk.zeros(0)) == "tensor([])"
    assert repr(sdk.zeros(0, 3)) == "tensor([], size=(0, 3))"
    assert repr(sdk.tensor([1e-5, 1.0])) == "tensor([1.0000e-05, 1.0000e+00])"
    assert repr(sdk.ones(2, requires_grad=True)) == "tensor([1., 1.], requires_grad=True)"
    assert "grad_fn=<" in repr(sdk.ones(2, requires_grad=True) * 2)
    big = repr(sdk.arange(2000))
    assert "..." in big and big.startswith("tensor([   0,    1,    2")
    three = repr(sdk.zeros(2, 2, 2))
    assert "\n\n" in three


def test_hash_weakref_identity():
    t = sdk.ones(2)
    d = {t: 1}
    assert d[t] == 1 and hash(t) == hash(t)
    r = weakref.ref(t)
    assert r() is t
    del t, d
    gc.collect()
    assert r() is None


def test_gc_collects_cycles():
    t = sdk.ones(2)
    t._ag = [t]  # a cycle through the autograd slot
    r = weakref.ref(t)
    del t
    gc.collect()
    assert r() is None


def test_grad_slots():
    t = sdk.ones(2)
    assert t.grad is None and t.grad_fn is None and t._ag is None and t.is_leaf
    g = sdk.zeros(2)
    t.grad = g
    assert t.grad is g
    t.grad = None
    assert t.grad is None
    with pytest.raises(TypeError):
        t.grad = 3


def test_requires_grad_api():
    t = sdk.ones(2)
    assert not t.requires_grad
    t.requires_grad = True
    assert t.requires_grad and t._requires_grad
    assert t.requires_grad_(False) is t and not t.requires_grad
    with pytest.raises(RuntimeError, match="floating point"):
        sdk.tensor([1, 2]).requires_grad_()
    x = sdk.ones(2, requires_grad=True)
    y = x * 3
    with pytest.raises(RuntimeError, match="leaf"):
        y.requires_grad = False
    d = y.detach()
    assert d.grad_fn is None and not d.requires_grad and d.data_ptr() == y.data_ptr()
    y.retain_grad()
    seen = []
    x.register_hook(lambda g: seen.append(g) or None)
    y.sum().backward()
    assert y.grad.tolist() == [1.0, 1.0] and x.grad.tolist() == [3.0, 3.0] and len(seen) == 1
    y.detach_()
    assert y.grad_fn is None and not y.requires_grad


def test_version_counter_shared_by_views():
    t = sdk.zeros(4)
    v = t[1:3]
    before = t._version
    v.add_(1)
    assert t._version > before and v._version == t._version
    t[0] = 5.0
    assert v._version == t._version


def test_grad_mode_thread_local():
    import threading

    seen = []
    with sdk.no_grad():
        assert not sdk.is_grad_enabled()
        th = threading.Thread(target=lambda: seen.append(sdk.is_grad_enabled()))
        th.start()
        th.join()
    assert seen == [True] and sdk.is_grad_enabled()
    prev = sdk._C._set_grad_enabled(False)
    assert prev is True and sdk._C._set_grad_enabled(prev) is False


def test_copy_and_pickle():
    t = sdk.arange(6, dtype=sdk.float64).reshape(2, 3).t()
    c = copy.deepcopy(t)
    assert c.tolist() == t.tolist() and c.data_ptr() != t.data_ptr()
    p = pickle.loads(pickle.dumps(t))
    assert p.tolist() == t.tolist() and p.dtype == sdk.float64
    b = pickle.loads(pickle.dumps(sdk.ones(2, dtype=sdk.bfloat16)))
    assert b.dtype == sdk.bfloat16 and b.tolist() == [1.0, 1.0]


def test_new_helpers_and_contains():
    t = sdk.ones(2, dtype=sdk.float64)
    assert t.new_zeros(3).dtype == sdk.float64 and t.new_ones((1, 2)).shape == (1, 2)
    assert t.new_full((2,), 4).tolist() == [4.0, 4.0] and t.new_tensor([1]).dtype == sdk.float64
    assert 1.0 in t and 2.0 not in t


def test_package_metadata(tmp_path):
    assert sdk.abi_version() == (sdk._C.ABI_VERSION_MAJOR, sdk._C.ABI_VERSION_MINOR)
    assert isinstance(sdk.__version__, str) and sdk.__version__ == sdk._C.version_string()
    assert os.path.exists(os.path.join(sdk.get_include(), "sdk", "c_api.h"))
    assert os.path.isabs(sdk.get_library_path()) and os.path.exists(sdk.get_library_path())
    assert os.path.dirname(sdk.get_library_path()) == sdk.get_library_dir()
    n = sdk.get_num_threads()
    sdk.set_num_threads(1)
    assert sdk.get_num_threads() == 1
    sdk.set_num_threads(n)
    with pytest.raises(ValueError):
        sdk.set_num_threads(0)


def test_lazy_subpackages():
    assert sdk.autograd.backward is not None
    assert callable(sdk.no_grad)
