"""Read-only memory: every way it comes in (numpy, DLPack, views, pickles, the C ABI) times
every kind of writer (in place, out=, copy_, fill_, setitem, index_put_, scatter_, random
fills ...): the write raises naming the op and the memory stays as it was."""

from __future__ import annotations

import ctypes
import pickle

import numpy as np
import pytest

import sdk
from sdk import _C
from tests._support import run_python
from tests.fuzz import dlpack_ctypes as dl

BASE = np.arange(6.0).reshape(2, 3)


def _ro_array():
    a = BASE.copy()
    a.flags.writeable = False
    return a


def _via_capsule():
    a = BASE.copy()
    p = dl.Producer(a, flags=dl.FLAG_READ_ONLY)
    t = sdk.from_dlpack(p.capsule())
    return t, a


def _via_c_abi():
    a = BASE.copy()  # writable memory that the tensor is told not to write
    t = sdk.from_numpy(a)
    _C._set_read_only(t, "a test's buffer")
    return t, a


# way in -> () -> (read-only tensor, the array whose bytes must not change)
WAYS_IN = {
    "from_numpy": lambda: (lambda a: (sdk.from_numpy(a), a))(_ro_array()),
    "as_tensor": lambda: (lambda a: (sdk.as_tensor(a), a))(_ro_array()),
    "asarray": lambda: (lambda a: (sdk.asarray(a), a))(_ro_array()),
    "from_array_interface": lambda: (lambda a: (_C.from_array_interface(a), a))(_ro_array()),
    "dlpack capsule": _via_capsule,
    "c abi": _via_c_abi,
    "view of one": lambda: (lambda a: (sdk.from_numpy(a)[:, :], a))(_ro_array()),
    "alias of one": lambda: (lambda a: (_C._alias(sdk.from_numpy(a)), a))(_ro_array()),
}
if hasattr(BASE, "__dlpack__"):
    try:
        _numpy_flags_read_only = sdk.from_dlpack(_ro_array())._is_read_only
    except BufferError:  # an older numpy refuses to export read-only memory
        _numpy_flags_read_only = False
    if _numpy_flags_read_only:
        WAYS_IN["numpy __dlpack__"] = lambda: (lambda a: (sdk.from_dlpack(a), a))(_ro_array())


def _idx():
    return sdk.tensor([[0, 1, 0]])


# writer name -> the call that would write into t (2 x 3 float64)
WRITERS = {
    "mul_": lambda t: t.mul_(2),
    "add_": lambda t: t.add_(1),
    "add_ tensor": lambda t: t.add_(sdk.ones(3, dtype=sdk.float64)),
    "exp_": lambda t: t.exp_(),
    "neg_": lambda t: t.neg_(),
    "clamp_": lambda t: t.clamp_(0, 1),
    "addcmul_": lambda t: t.addcmul_(t, t),
    "lerp_": lambda t: t.lerp_(sdk.zeros(2, 3, dtype=sdk.float64), 0.5),
    "masked_fill_": lambda t: t.masked_fill_(sdk.ones(2, 3, dtype=sdk.bool), 0.0),
    "add out=": lambda t: sdk.add(sdk.ones(2, 3), 1, out=t),
    "mul out= self": lambda t: sdk.mul(t, 2, out=t),
    "sum out=": lambda t: sdk.sum(sdk.ones(2, 3, 4, dtype=sdk.float64), 2, out=t),
    "matmul out=": lambda t: sdk.matmul(
        sdk.ones(2, 2, dtype=sdk.float64), sdk.ones(2, 3, dtype=sdk.float64), out=t
    ),
    "cat out=": lambda t: sdk.cat([sdk.ones(1, 3, dtype=sdk.float64)] * 2, 0, out=t),
    "cumsum out=": lambda t: sdk.cumsum(sdk.ones(2, 3, dtype=sdk.float64), 1, out=t),
    "copy_": lambda t: t.copy_(sdk.zeros(2, 3)),
    "fill_": lambda t: t.fill_(7),
    "zero_": lambda t: t.zero_(),
    "setitem int": lambda t: t.__setitem__(0, 5.0),
    "setitem slice": lambda t: t.__setitem__((slice(None), 1), sdk.zeros(2, dtype=sdk.float64)),
    "setitem mask": lambda t: t.__setitem__(t > 2, 0.0),
    "setitem index": lambda t: t.__setitem__(sdk.tensor([1]), 0.0),
    "index_put_": lambda t: t.index_put_((sdk.tensor([0]),), sdk.tensor(9.0, dtype=sdk.float64)),
    "scatter_": lambda t: t.scatter_(0, _idx(), sdk.zeros(1, 3, dtype=sdk.float64)),
    "scatter_add_": lambda t: t.scatter_add_(0, _idx(), sdk.ones(1, 3, dtype=sdk.float64)),
    "index_add_": lambda t: t.index_add_(0, sdk.tensor([1]), sdk.ones(1, 3, dtype=sdk.float64)),
    "index_fill_": lambda t: t.index_fill_(1, sdk.tensor([0]), -1.0),
    "tril_": lambda t: t.tril_(),
    "uniform_": lambda t: t.uniform_(),
    "normal_": lambda t: t.normal_(),
    "resize_": lambda t: t.resize_(3, 2),
}


@pytest.mark.parametrize("writer", list(WRITERS))
@pytest.mark.parametrize("way", list(WAYS_IN))
def test_every_writer_refuses_read_only_memory(way, writer):
    t, a = WAYS_IN[way]()
    assert t._is_read_only
    before = a.copy()
    with pytest.raises(
        RuntimeError, match=r"\(\): (the tensor|out) is read-only .*clone\(\) it first"
    ):
        WRITERS[writer](t)
    np.testing.assert_array_equal(a, before)
    np.testing.assert_array_equal(t.numpy(), before)  # still readable, still the same


def test_message_names_the_op_and_the_owner():
    t = sdk.from_numpy(_ro_array())
    with pytest.raises(RuntimeError) as info:
        t.mul_(2)
    assert str(info.value) == (
        "mul_(): the tensor is read-only (it shares memory with a read-only numpy array); "
        "clone() it first"
    )
    with pytest.raises(RuntimeError, match=r"^add\(\): out is read-only"):
        sdk.add(sdk.ones(2, 3), 1, out=t)
    with pytest.raises(RuntimeError, match=r"^fill_\(\): the tensor is read-only"):
        t.fill_(0)
    with pytest.raises(RuntimeError, match="read-only DLPack tensor"):
        _via_capsule()[0].add_(1)


def test_reads_copies_and_new_results_are_fine():
    a = _ro_array()
    t = sdk.from_numpy(a)
    assert t.data_ptr() == a.ctypes.data  # still zero-copy
    np.testing.assert_array_equal((t * 2).numpy(), BASE * 2)
    c = t.clone()
    assert not c._is_read_only
    c.mul_(2)
    np.testing.assert_array_equal(c.numpy(), BASE * 2)
    assert not sdk.tensor(a)._is_read_only  # tensor() copies
    assert not t.contiguous().t().contiguous()._is_read_only
    assert not t.float()._is_read_only
    assert not sdk.from_numpy(BASE.copy())._is_read_only
    v = t.t()[0]
    assert v._is_read_only  # a view of read-only memory is read-only
    sdk.add(t, 1, out=c)  # read-only inputs to a writable out


def test_mmap_read_only_file_is_refused_not_crashed(tmp_path):
    """Pages mapped read-only crash a process that writes them: the write must raise first."""
    path = tmp_path / "a.npy"
    np.save(path, BASE)
    code = f"""
import numpy as np, sdk
m = np.load({str(path)!r}, mmap_mode="r")
t = sdk.from_numpy(m)
for write in (lambda: t.mul_(2), lambda: t.fill_(0), lambda: t.copy_(sdk.zeros(2, 3)),
              lambda: sdk.add(t, 1, out=t), lambda: t.__setitem__(0, 1.0)):
    try:
        write()
    except RuntimeError as e:
        assert "read-only" in str(e), e
    else:
        raise SystemExit("a write went through")
assert (np.asarray(m) == np.arange(6.0).reshape(2, 3)).all()
print("refused")
"""
    r = run_python(code)
    assert r.returncode == 0, r.stderr
    assert "refused" in r.stdout


# ---- exports: the read-only state goes out with the memory ----------------------------------


def test_numpy_export_is_read_only():
    t = sdk.from_numpy(_ro_array())
    for arr in (t.numpy(), np.asarray(t), np.asarray(t[1])):
        assert not arr.flags.writeable
        with pytest.raises(ValueError, match="read-only"):
            arr[0] = 1
    assert sdk.ones(2).numpy().flags.writeable


def _capsule_flags(cap) -> int:
    ctypes.pythonapi.PyCapsule_GetPointer.restype = ctypes.c_void_p
    ctypes.pythonapi.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
    p = ctypes.pythonapi.PyCapsule_GetPointer(cap, dl.VERSIONED)
    return dl.DLManagedTensorVersioned.from_address(p).flags


def test_dlpack_export_sets_read_only_flag_and_legacy_consumers_get_a_copy():
    t = sdk.from_numpy(_ro_array())
    cap = t.__dlpack__(max_version=(1, 0))
    assert _capsule_flags(cap) & dl.FLAG_READ_ONLY
    back = sdk.from_dlpack(cap)  # our own consumer keeps it read-only
    assert back._is_read_only and back.data_ptr() == t.data_ptr()
    assert not _capsule_flags(sdk.ones(2).__dlpack__(max_version=(1, 0))) & dl.FLAG_READ_ONLY
    # A pre-1.0 consumer cannot see the flag: it gets a copy, or BufferError with copy=False.
    legacy = sdk.from_dlpack(t.__dlpack__())
    assert legacy.data_ptr() != t.data_ptr() and not legacy._is_read_only
    with pytest.raises(BufferError, match="read-only"):
        t.__dlpack__(copy=False)
    n = np.from_dlpack(t)  # numpy reads the flag: a read-only array over the same memory
    assert n.ctypes.data == t.data_ptr() and not n.flags.writeable


def test_pickle_out_of_band_buffer_of_read_only_tensor_is_read_only():
    a = _ro_array()
    t = sdk.from_numpy(a)
    bufs: list = []
    data = pickle.dumps(t, protocol=5, buffer_callback=bufs.append)
    assert len(bufs) == 1 and bufs[0].raw().readonly
    back = pickle.loads(data, buffers=bufs)
    back.add_(1)  # a copy of its own: the read-only memory is untouched
    np.testing.assert_array_equal(a, BASE)
    np.testing.assert_array_equal(back.numpy(), BASE + 1)
    for proto in (2, 4, 5):
        np.testing.assert_array_equal(pickle.loads(pickle.dumps(t, protocol=proto)).numpy(), BASE)


def test_set_read_only_is_for_good_and_checks_its_arguments():
    t = sdk.zeros(3)
    v = t[1:]
    _C._set_read_only(t, "first owner")
    _C._set_read_only(t, "second owner")  # the first name stays
    assert v._is_read_only and t[0:1]._is_read_only
    with pytest.raises(RuntimeError, match="first owner"):
        v.add_(1)
    with pytest.raises(TypeError):
        _C._set_read_only(t, 5)
    with pytest.raises(TypeError):
        _C._set_read_only([1], "x")


def test_mutating_op_argument_refuses_read_only_memory_before_its_kernel_runs():
    import uuid

    import sdk.library as L

    n = "ro" + uuid.uuid4().hex[:10]
    lib = L.Library(n, "DEF")
    lib.define("fill_ones_(Tensor(a!) x) -> ()")
    lib.define("fill_all_(Tensor(a!)[] xs) -> ()")
    lib.define("peek(Tensor x) -> Tensor")
    ran = []
    lib.impl("fill_ones_", lambda x: ran.append(x), "CPU")
    lib.impl("fill_all_", lambda xs: ran.append(xs), "CPU")
    lib.impl("peek", lambda x: x.clone(), "CPU")
    ops = getattr(sdk.ops, n)
    ro = sdk.from_numpy(_ro_array())
    with pytest.raises(RuntimeError, match=r"fill_ones_\(\): argument 'x' is written .* read-only"):
        ops.fill_ones_(ro)
    with pytest.raises(RuntimeError, match=r"argument 'xs' .* read-only numpy array"):
        ops.fill_all_([sdk.zeros(2), ro])
    assert ran == []  # refused before the kernel ran
    np.testing.assert_array_equal(ops.peek(ro).numpy(), BASE)  # reading is fine
    ops.fill_ones_(sdk.zeros(2))
    assert len(ran) == 1
