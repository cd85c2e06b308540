"""Storages and set_ (sdk/_storage.py over the core's storages, ABI 1.12): what a storage
reports, set_ in each of torch's forms, the memory outliving the tensor it came from, and the
refusals (past the storage's bytes, dtype, read-only memory, autograd); side by side with torch
where it is installed: the same calls give the same values, sizes, strides, offsets and the
same sharing of memory (equal or different storage addresses)."""

from __future__ import annotations

import gc
import warnings

import numpy as np
import pytest

import sdk


def _run_sequence(lib):
    """One sequence of storage and set_ calls, run on sdk or on torch: what it observed."""
    a = lib.arange(12, dtype=lib.float32)
    s = a.untyped_storage()
    b = lib.empty(0)
    b.set_(s, 2, (2, 3), (3, 1))
    c = lib.empty(0).set_(b)
    d = lib.empty(0, dtype=lib.float64).set_(s)  # the 48 bytes as 6 doubles
    e = lib.empty(0)
    e.set_(source=s, storage_offset=1, size=(4,))
    f = lib.empty(0).set_(a.reshape(3, 4).t())
    c.mul_(10)  # writes a's memory through c
    g = lib.empty(5).set_()
    views = (a, b, c, d, e, f)
    base = s.data_ptr()
    return {
        "values": [x.tolist() for x in (a, b, c, e, f)],
        "doubles": np.array(d.tolist()).view(np.uint64).tolist(),  # compare the bits
        "shapes": [tuple(x.shape) for x in views],
        "strides": [tuple(x.stride()) for x in views],
        "offsets": [x.storage_offset() for x in views],
        "same_storage": [x.untyped_storage().data_ptr() == base for x in views],
        "data_ptr_from_base": [x.data_ptr() - base for x in views],
        "nbytes": [x.untyped_storage().nbytes() for x in views],
        "is_set_to": [c.is_set_to(b), b.is_set_to(c), e.is_set_to(b)],
        "empty": (tuple(g.shape), g.untyped_storage().nbytes(), g.untyped_storage().data_ptr() == base),
        "bytes": s.tolist()[8:16],
        "typed": _typed(lib, a),
    }  # fmt: skip


def _typed(lib, a):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = a.storage()
    return (t.size(), t.nbytes(), str(t.dtype).split(".")[-1], t.tolist()[:3], t[2], len(t))


def test_the_same_sequence_matches_torch():
    torch = pytest.importorskip("torch")
    assert _run_sequence(sdk) == _run_sequence(torch)


def test_the_sequence_values_match_numpy():
    got = _run_sequence(sdk)
    a = np.arange(12, dtype=np.float32)
    a[2:8] *= 10  # c (= b) covers elements 2..7
    assert got["values"][0] == a.tolist()
    assert got["values"][1] == a[2:8].reshape(2, 3).tolist()
    assert got["values"][3] == a[1:5].tolist()
    assert got["values"][4] == a.reshape(3, 4).T.tolist()
    assert got["doubles"] == a.view(np.uint64).tolist()
    assert got["bytes"] == list(a[2:4].tobytes())
    assert got["same_storage"] == [True] * 6
    assert got["data_ptr_from_base"] == [0, 8, 8, 0, 4, 0]
    assert got["empty"] == ((0,), 0, False)


def test_untyped_storage_reports_the_whole_allocation():
    a = sdk.arange(12, dtype=sdk.float32).reshape(3, 4)
    row = a[1]
    s = row.untyped_storage()
    assert isinstance(s, sdk.UntypedStorage) and sdk.is_storage(s)
    assert not sdk.is_storage(a) and not sdk.is_storage(a.numpy())
    assert s.nbytes() == s.size() == len(s) == 48 and s.element_size() == 1
    assert s.data_ptr() == a.data_ptr() == row.data_ptr() - 16
    assert s.device == a.device and not s.is_cuda
    raw = a.numpy().tobytes()
    assert s.tolist() == list(raw) and list(s) == list(raw)
    assert s[5] == raw[5] and s[-1] == raw[-1]
    assert s._cdata == a.untyped_storage()._cdata != sdk.zeros(12).untyped_storage()._cdata
    assert "of size 48" in repr(s)


def test_storage_writes_reach_every_tensor_on_it():
    a = sdk.zeros(4, dtype=sdk.int32)
    s = a.untyped_storage()
    s[4] = 7  # the low byte of element 1 (little-endian)
    s.fill_(0)
    s[8] = 1
    assert a.tolist() == [0, 0, 1, 0]
    b = sdk.UntypedStorage(list(np.int32([5, 6, 7, 8]).tobytes()))
    s.copy_(b)
    assert a.tolist() == [5, 6, 7, 8]
    c = s.clone()
    assert c.tolist() == s.tolist() and c._cdata != s._cdata and c.data_ptr() != s.data_ptr()
    c.fill_(0)
    assert a.tolist() == [5, 6, 7, 8]


def test_new_storages():
    assert sdk.UntypedStorage().nbytes() == 0
    assert sdk.UntypedStorage(10).nbytes() == 10
    assert sdk.UntypedStorage([1, 2, 255]).tolist() == [1, 2, 255]
    t = sdk.TypedStorage([1.5, 2.5], dtype=sdk.float64)
    assert t.size() == 2 and t.nbytes() == 16 and t.tolist() == [1.5, 2.5]
    assert t.dtype is sdk.float64 and t.element_size() == 8
    t[1] = 4.0
    t.fill_(3)
    assert t.tolist() == [3.0, 3.0] and sdk.TypedStorage(3, dtype=sdk.int16).size() == 3
    x = sdk.empty(0, dtype=sdk.float64).set_(t)
    assert x.tolist() == [3.0, 3.0] and x.untyped_storage()._cdata == t._cdata


def test_storage_warns_once_as_torch_does():
    import sdk._storage as st

    st._warned_typed = False
    a = sdk.arange(3.0)
    with pytest.warns(UserWarning, match="TypedStorage is deprecated"):
        t = a.storage()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        a.storage()  # once only
    assert isinstance(t, sdk.TypedStorage) and t.dtype is a.dtype and t.size() == 3
    assert t.untyped()._cdata == a.untyped_storage()._cdata and t.tolist() == [0.0, 1.0, 2.0]


def test_set_to_a_tensor_shares_its_memory_and_geometry():
    src = sdk.arange(6.0).reshape(2, 3).t()
    out = sdk.empty(0)
    assert out.set_(src) is out
    assert out.shape == src.shape and out.stride() == src.stride() and out.is_set_to(src)
    out.fill_(1)
    assert src.tolist() == [[1.0] * 2] * 3
    assert not out.is_set_to(src.contiguous())


@pytest.mark.parametrize(
    "offset, size, stride, needle",
    [
        (0, (13,), None, "reach element 12 but the storage holds 12 elements (48 bytes"),
        (10, (3,), None, "reach element 12"),
        (0, (4, 4), None, "reach element 15"),
        (0, (2, 2), (11, 1), "reach element 12"),
        (12, (1,), None, "reach element 12"),
        (-1, (1,), None, "storage_offset must be >= 0"),
        (0, (2,), (-1,), "strides must be >= 0"),
        (0, (-2,), None, "negative size -2"),
    ],
)
def test_set_refuses_what_reaches_past_the_storage(offset, size, stride, needle):
    # torch grows a resizable storage here (reading memory never written); sdk keeps a
    # storage's size and raises naming the extent: a RuntimeError, as torch's for a
    # storage that cannot grow
    a = sdk.arange(12, dtype=sdk.float32)
    b = sdk.zeros(2)
    with pytest.raises(RuntimeError, match=needle.replace("(", r"\(")):
        b.set_(a.untyped_storage(), offset, size, stride)
    assert b.tolist() == [0.0, 0.0] and a.untyped_storage().nbytes() == 48  # nothing changed


def test_set_checks_the_dtype_against_the_bytes():
    s = sdk.arange(5, dtype=sdk.int16).untyped_storage()  # 10 bytes
    x = sdk.empty(0, dtype=sdk.float32)
    x.set_(s)
    assert x.shape == (2,)  # floor(10 / 4), as torch
    with pytest.raises(RuntimeError, match=r"holds 2 elements \(10 bytes, elements of 4\)"):
        x.set_(s, 0, (3,))
    with pytest.raises(TypeError, match="dtype float32 to a source of dtype int16"):
        x.set_(sdk.arange(5, dtype=sdk.int16))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        typed = sdk.arange(5, dtype=sdk.int16).storage()
    with pytest.raises(TypeError, match="expected a storage of dtype float32"):
        x.set_(typed)


def test_bad_arguments_name_what_was_wrong():
    s = sdk.arange(4.0).untyped_storage()
    x = sdk.empty(0)
    with pytest.raises(TypeError, match="argument 'source' must be Tensor or Storage, not list"):
        x.set_([1, 2])
    with pytest.raises(RuntimeError, match="2 sizes but 1 strides"):
        x.set_(s, 0, (2, 2), (1,))
    with pytest.raises(TypeError, match="stride given without size"):
        x.set_(s, 0, None, (1,))
    with pytest.raises(TypeError, match="takes no storage_offset"):
        x.set_(sdk.zeros(1), 1)
    with pytest.raises(IndexError, match="index 16 out of range for a storage of size 16"):
        s[16]
    with pytest.raises(TypeError, match="storage indices must be integers, not str"):
        s["0"]
    with pytest.raises(NotImplementedError, match="no views of part of it"):
        s[1:3]
    with pytest.raises(NotImplementedError, match="keeps its size here"):
        s.resize_(32)
    assert s.resize_(16) is s
    with pytest.raises(RuntimeError, match="size must be >= 0"):
        sdk.UntypedStorage(-1)
    with pytest.raises(TypeError, match="expected a size"):
        sdk.UntypedStorage("abc")
    with pytest.raises(RuntimeError, match="differ in size"):
        s.copy_(sdk.UntypedStorage(3))
    assert x.shape == (0,)


def test_the_memory_outlives_the_tensor_it_came_from():
    a = sdk.arange(1000, dtype=sdk.float32)
    b = sdk.empty(0).set_(a.untyped_storage(), 990, (10,))
    alone = sdk.arange(4.0, dtype=sdk.float64).untyped_storage()
    del a
    gc.collect()
    junk = [sdk.full((1000,), -1.0) for _ in range(8)]  # would reuse freed blocks
    assert b.tolist() == [float(v) for v in range(990, 1000)]
    assert sdk.empty(0, dtype=sdk.float64).set_(alone).tolist() == [0.0, 1.0, 2.0, 3.0]
    assert len(junk) == 8


def test_memory_exported_before_a_set_stays_valid():
    t = sdk.arange(64.0)
    view = np.asarray(t)  # holds the tensor, not its storage
    capsule_array = np.from_dlpack(t)
    t.set_(sdk.zeros(2))
    gc.collect()
    junk = [sdk.full((64,), -1.0) for _ in range(8)]
    np.testing.assert_array_equal(view, np.arange(64.0))
    np.testing.assert_array_equal(capsule_array, np.arange(64.0))
    assert t.tolist() == [0.0, 0.0] and len(junk) == 8


def test_read_only_memory_stays_read_only():
    arr = np.arange(4.0)
    arr.flags.writeable = False
    t = sdk.from_numpy(arr)
    s = t.untyped_storage()
    assert s.data_ptr() == arr.ctypes.data
    with pytest.raises(RuntimeError, match="read-only numpy array"):
        s.fill_(0)
    with pytest.raises(RuntimeError, match="read-only"):
        s[0] = 1
    with pytest.raises(RuntimeError, match="read-only"):
        s.copy_(sdk.UntypedStorage(32))
    v = sdk.empty(0, dtype=sdk.float64).set_(s, 1, (2,))
    assert v.tolist() == [1.0, 2.0]
    with pytest.raises(RuntimeError, match="read-only numpy array"):
        v.add_(1)
    w = sdk.empty(0, dtype=sdk.float64).set_(t)
    with pytest.raises(RuntimeError, match="read-only"):
        w.zero_()
    with pytest.raises(ValueError, match="read-only"):
        np.asarray(w)[0] = 5  # the export says read-only too
    np.testing.assert_array_equal(arr, np.arange(4.0))
    # moved onto other memory, a read-only tensor writes that memory, never the array's
    w.set_(sdk.zeros(2, dtype=sdk.float64))
    w.fill_(9)
    np.testing.assert_array_equal(arr, np.arange(4.0))


def test_set_on_a_leaf_that_requires_grad_is_refused_as_torch():
    x = sdk.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used"):
        x.set_(sdk.zeros(2))
    assert x.shape == (3,)
    with sdk.no_grad():
        x.set_(sdk.zeros(2))  # as torch: allowed, and still a leaf requiring grad
    assert x.shape == (2,) and x.requires_grad and x.is_leaf


def test_set_of_a_graph_tensor_is_refused():
    # torch records a node whose backward raises; sdk refuses at once (set_ has no derivative)
    w = sdk.ones(3, requires_grad=True)
    y = w * 2
    with pytest.raises(RuntimeError, match="'self' requires grad, and set_ has no derivative"):
        y.set_(sdk.zeros(3))
    with pytest.raises(RuntimeError, match="'source' requires grad"):
        sdk.empty(0).set_(y)
    out = sdk.empty(0).set_(y.detach())
    assert out.tolist() == [2.0, 2.0, 2.0] and not out.requires_grad


def test_torch_refuses_a_leaf_the_same_way():
    torch = pytest.importorskip("torch")
    x = torch.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used"):
        x.set_(torch.zeros(2))


@pytest.mark.skipif(not sdk.cuda.is_available(), reason="no CUDA device")
def test_cuda_storage_and_set_():
    a = sdk.arange(8.0, device="cuda")
    s = a.untyped_storage()
    assert s.is_cuda and s.nbytes() == 32 and s.data_ptr() == a.data_ptr()
    b = sdk.empty(0, device="cuda").set_(s, 2, (3,))
    assert b.cpu().tolist() == [2.0, 3.0, 4.0]
    with pytest.raises(RuntimeError, match="the devices must match"):
        sdk.empty(0).set_(s)
    with pytest.raises(RuntimeError, match="reach element 8"):
        b.set_(s, 6, (3,))
