"""numpy and DLPack interop: zero-copy checked by pointer, lifetimes, dtypes, errors."""

from __future__ import annotations

import gc

import numpy as np
import pytest

import sdk
from tests._support import run_python

NP_DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64"]


@pytest.mark.parametrize("dtype", NP_DTYPES)
def test_from_numpy_shares_memory(dtype):
    a = np.arange(12).reshape(3, 4).astype(dtype)
    t = sdk.from_numpy(a)
    assert t.data_ptr() == a.ctypes.data
    assert t.dtype.name == dtype and tuple(t.shape) == (3, 4)
    np.testing.assert_array_equal(t.numpy(), a)
    if dtype != "bool":
        a[0, 0] = 5
        assert t[0, 0].item() == 5


def test_from_numpy_keeps_array_alive_and_strides():
    a = np.arange(20, dtype=np.float32).reshape(4, 5)
    view = a[::2, 1::2]
    t = sdk.from_numpy(view)
    del a, view
    gc.collect()
    np.testing.assert_array_equal(
        t.numpy(), np.arange(20, dtype=np.float32).reshape(4, 5)[::2, 1::2]
    )
    assert t.stride() == (10, 2)


def test_from_numpy_readonly_and_errors():
    a = np.arange(4.0)
    a.setflags(write=False)
    t = sdk.from_numpy(a)
    assert t.data_ptr() == a.ctypes.data and t._is_read_only  # shared, and never written
    with pytest.raises(RuntimeError, match=r"add_\(\): the tensor is read-only"):
        t.add_(1)
    with pytest.raises(ValueError, match="negative"):
        sdk.from_numpy(np.arange(4.0)[::-1])
    with pytest.raises(TypeError, match="np.ndarray"):
        sdk.from_numpy([1, 2])
    with pytest.raises(TypeError, match="uint16|type"):
        sdk.from_numpy(np.arange(3, dtype=np.uint16))
    with pytest.raises(TypeError):
        sdk.from_numpy(np.arange(3, dtype=np.clongdouble))  # numpy's 32-byte complex


def test_from_dlpack_of_read_only_memory_is_read_only():
    a = np.frombuffer(bytes(16), dtype=np.float32)  # numpy flags its DLPack export READ_ONLY
    t = sdk.from_dlpack(a)
    assert t.data_ptr() == a.ctypes.data and t.shape == (4,) and t._is_read_only
    with pytest.raises(RuntimeError, match="read-only DLPack tensor"):
        t.fill_(1)
    assert sdk.from_dlpack(a.__dlpack__(max_version=(1, 0)))._is_read_only  # a capsule directly
    assert not sdk.from_dlpack(np.ones(3))._is_read_only  # writable memory stays writable
    assert not sdk.from_numpy(np.ones(3))._is_read_only
    c = sdk.tensor(a)
    assert c.data_ptr() != a.ctypes.data and not c._is_read_only  # a copy of its own


def test_numpy_shares_memory_and_keeps_tensor_alive():
    t = sdk.arange(6, dtype=sdk.float32).reshape(2, 3)
    a = t.numpy()
    assert a.ctypes.data == t.data_ptr()
    ptr = t.data_ptr()
    del t
    gc.collect()
    assert a.ctypes.data == ptr
    np.testing.assert_array_equal(a, np.arange(6).reshape(2, 3))
    t2 = sdk.zeros(3, 4)
    v = t2.t()
    an = v.numpy()
    assert an.strides == (4, 16)
    an[1, 2] = 5
    assert t2[2, 1].item() == 5
    assert np.asarray(t2).ctypes.data == t2.data_ptr()


def test_numpy_errors():
    with pytest.raises(TypeError, match="BFloat16|bfloat16"):
        sdk.zeros(2, dtype=sdk.bfloat16).numpy()
    x = sdk.zeros(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="requires grad"):
        x.numpy()
    assert x.detach().numpy().ctypes.data == x.data_ptr()
    assert x.numpy(force=True).shape == (2,)


def test_zero_size_and_0d_numpy():
    e = sdk.zeros(0, 3)
    assert e.numpy().shape == (0, 3)
    s = sdk.tensor(2.5)
    assert s.numpy().shape == () and s.numpy() == 2.5
    assert sdk.from_numpy(np.zeros((0, 2))).shape == (0, 2)


@pytest.mark.parametrize("dtype", NP_DTYPES)
def test_dlpack_from_numpy_and_back(dtype):
    a = np.arange(12).reshape(3, 4).astype(dtype)
    t = sdk.from_dlpack(a)
    assert t.data_ptr() == a.ctypes.data
    np.testing.assert_array_equal(t.numpy(), a)
    b = np.from_dlpack(t)
    assert b.ctypes.data == t.data_ptr()
    np.testing.assert_array_equal(b, a)


def test_dlpack_protocol_details():
    t = sdk.arange(6, dtype=sdk.float32).reshape(2, 3).t()
    assert t.__dlpack_device__() == (1, 0)
    cap = t.__dlpack__()
    assert "dltensor" in repr(cap) and "versioned" not in repr(cap)
    capv = t.__dlpack__(max_version=(1, 0))
    assert "dltensor_versioned" in repr(capv)
    u = sdk.from_dlpack(capv)
    assert u.data_ptr() == t.data_ptr() and u.stride() == t.stride()
    with pytest.raises(ValueError):
        sdk.from_dlpack(capv)  # consumed
    c = sdk.from_dlpack(cap)
    assert c.data_ptr() == t.data_ptr()
    copy = t.__dlpack__(copy=True, max_version=(1, 0))
    assert sdk.from_dlpack(copy).data_ptr() != t.data_ptr()
    with pytest.raises(BufferError):
        t.__dlpack__(dl_device=(2, 0))
    unused = t.__dlpack__(max_version=(1, 0))  # deleted without being consumed: no leak/crash
    del unused
    x = sdk.zeros(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="gradient"):
        x.__dlpack__()


def test_dlpack_keeps_storage_alive():
    t = sdk.arange(5, dtype=sdk.float64)
    b = np.from_dlpack(t)
    del t
    gc.collect()
    np.testing.assert_array_equal(b, np.arange(5.0))
    a = np.arange(4.0)
    u = sdk.from_dlpack(a)
    del a
    gc.collect()
    np.testing.assert_array_equal(u.numpy(), np.arange(4.0))


def test_torch_round_trip():
    torch = pytest.importorskip("torch")
    x = torch.arange(6, dtype=torch.float32).reshape(2, 3)
    t = sdk.from_dlpack(x)
    assert t.data_ptr() == x.data_ptr()
    y = torch.from_dlpack(t)
    assert y.data_ptr() == t.data_ptr()


def test_tensor_copies_and_as_tensor_shares(close):
    a = np.arange(6.0).reshape(2, 3)
    t = sdk.tensor(a)
    assert t.data_ptr() != a.ctypes.data and t.dtype == sdk.float64
    s = sdk.as_tensor(a)
    assert s.data_ptr() == a.ctypes.data
    assert sdk.as_tensor(s) is s
    close(sdk.tensor(a[::-1]), a[::-1])  # negative strides are copied by tensor()
    close(sdk.tensor(np.arange(3, dtype=np.uint16)), np.arange(3, dtype=np.int32))
    close(sdk.tensor(a, dtype=sdk.float32), a.astype(np.float32))
    close(sdk.tensor(np.float64(2.5)), np.array(2.5))
    close(sdk.tensor([np.int64(1), 2]), np.array([1, 2]))
    close(sdk.tensor([np.True_, np.False_]), np.array([True, False]))
    close(sdk.tensor([np.float32(0.5), 1]), np.array([0.5, 1.0], np.float32))


def test_capsule_table_published():
    cap = sdk._C._PYTHON_API
    assert "sdk._C._PYTHON_API" in repr(cap)


def test_import_does_not_load_numpy():
    code = "import sys, sdk; t = sdk.ones(3) + 1; print('numpy' in sys.modules)"
    out = run_python(code, check=True)
    assert out.stdout.strip() == "False"


def test_deleters_safe_at_interpreter_exit():
    code = (
        "import numpy as np, sdk\n"
        "a = np.arange(10.0)\n"
        "t = sdk.from_numpy(a)\n"
        "u = sdk.from_dlpack(np.arange(3))\n"
        "c = sdk.ones(3).__dlpack__(max_version=(1, 0))\n"
        "G = [t, u, c, np.from_dlpack(sdk.ones(2))]\n"
    )
    out = run_python(code)
    assert out.returncode == 0, out.stderr


def test_capsule_table_entries_via_ctypes():
    import ctypes

    obj = ctypes.py_object
    # A private handle: prototypes set on the shared ctypes.pythonapi would change it for
    # every other module of the process that declared PyCapsule_GetPointer differently.
    api = ctypes.PyDLL(None)
    api.PyCapsule_GetPointer.restype = ctypes.c_void_p
    api.PyCapsule_GetPointer.argtypes = [obj, ctypes.c_char_p]
    ptr = api.PyCapsule_GetPointer(sdk._C._PYTHON_API, b"sdk._C._PYTHON_API")

    class Table(ctypes.Structure):
        _fields_ = [
            ("size", ctypes.c_uint32),
            ("abi_major", ctypes.c_uint32),
            ("abi_minor", ctypes.c_uint32),
            ("reserved", ctypes.c_uint32),
            ("is_tensor", ctypes.PYFUNCTYPE(ctypes.c_int, obj)),
            ("to_handle", ctypes.PYFUNCTYPE(ctypes.c_int, obj, ctypes.POINTER(ctypes.c_void_p))),
            ("from_handle", ctypes.PYFUNCTYPE(obj, ctypes.c_void_p)),
            ("raise_last_error", ctypes.PYFUNCTYPE(obj)),
        ]

    table = Table.from_address(ptr)
    assert table.size >= ctypes.sizeof(Table)
    assert (table.abi_major, table.abi_minor) == sdk.abi_version()
    t = sdk.ones(3)
    assert table.is_tensor(t) == 1 and table.is_tensor(np.ones(3)) == 0
    a = np.arange(6.0).reshape(2, 3)
    h = ctypes.c_void_p()
    assert table.to_handle(a, ctypes.byref(h)) == 0
    u = table.from_handle(h)  # steals the handle
    assert isinstance(u, sdk.Tensor) and u.data_ptr() == a.ctypes.data and u.shape == (2, 3)
    assert table.to_handle(t, ctypes.byref(h)) == 0
    v = table.from_handle(h)  # a tensor that crossed comes back as the same object
    assert v is t and t._use_count == 1
    with pytest.raises(TypeError, match="str"):
        table.to_handle("nope", ctypes.byref(h))
    core = ctypes.CDLL(sdk.get_library_path())
    core.sdk_set_last_error(3, b"index 7 is out of range")
    with pytest.raises(IndexError, match="index 7"):
        table.raise_last_error()


def test_handle_address_and_from_handle_for_bridges():
    import ctypes

    core = ctypes.CDLL(sdk.get_library_path())
    core.sdk_tensor_retain.argtypes = [ctypes.c_void_p]
    t = sdk.arange(6.0).reshape(2, 3)
    addr = t._handle_address()  # borrowed: the count does not move
    assert isinstance(addr, int) and addr != 0 and t._use_count == 1
    assert t.t()._handle_address() != addr  # a view has its own handle
    core.sdk_tensor_retain(addr)  # _from_handle adopts a NEW reference
    u = sdk._from_handle(addr)  # t's own handle: t itself, the new reference released
    assert u is t and t._use_count == 1
    w = t.t()
    waddr = w._handle_address()
    core.sdk_tensor_retain(waddr)
    del w  # the view now lives only through the reference just taken
    gc.collect()
    u = sdk._from_handle(waddr)
    assert isinstance(u, sdk.Tensor) and u._handle_address() == waddr
    np.testing.assert_array_equal(u.numpy(), t.numpy().T)
    assert t._use_count == 1
    with pytest.raises(ValueError, match="NULL"):
        sdk._from_handle(0)
    with pytest.raises(ValueError, match="not a pointer"):
        sdk._from_handle(-8)
    with pytest.raises(ValueError, match="not an sdk_tensor handle"):
        sdk._from_handle(addr + 1)
    with pytest.raises(TypeError, match="expected an int"):
        sdk._from_handle(ctypes.c_void_p(addr))


def test_numpy_reads_sdk_dtypes():
    """np.dtype(sdk.float32) works (numpy reads dtype.dtype): what numpy-based libraries
    such as Dask need to accept a tensor's dtype."""
    from sdk._dtype import DTYPES

    for d in DTYPES:
        if d is sdk.bfloat16 or d.name.startswith("float8_"):
            with pytest.raises(TypeError, match=f"numpy has no {d.name}"):
                np.dtype(d)
            continue
        assert np.dtype(d) == np.dtype(d.name)
        assert np.zeros(2, dtype=d).dtype == np.dtype(d.name)
