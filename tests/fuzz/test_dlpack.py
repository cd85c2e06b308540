"""Fuzzing DLPack import with well-formed and malformed capsules built in ctypes (foreign
versions, legacy capsules, bad ndim/shape/dtype/device, NULL pointers, used or misnamed
capsules, producers whose protocol methods misbehave), checking each is accepted with the
right values or refused with a clear message, and that the producer's deleter runs exactly
once either way; and DLPack export consumed by a ctypes consumer that calls the deleter."""

from __future__ import annotations

import gc
import weakref

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import sdk
from tests.fuzz import dlpack_ctypes as dl
from tests.fuzz.conftest import examples


def _collect() -> None:
    """Objects here die by reference counting; a young-generation pass catches any cycle
    (a full gc.collect() per example would dominate the run time)."""
    gc.collect(0)


REFUSED = (ValueError, TypeError, RuntimeError, NotImplementedError, BufferError)
NP_DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64"]

# mutation -> (field overrides, regex the refusal must match); None: still valid
MUTATIONS = {
    "none": None,
    "legacy": None,
    "read_only": None,
    "is_copied": None,
    "version 1.0": None,
    "version 1.7": None,
    "version 2.0": ({"version": (2, 0)}, r"version 2\.0.*1\.x"),
    "version 0.8": ({"version": (0, 8)}, r"version 0\.8.*1\.x"),
    "version 255.3": ({"version": (255, 3)}, r"version 255\.3"),
    "ndim -1": ({"ndim": -1}, r"ndim -1"),
    "ndim 65": ({"ndim": 65}, r"ndim 65"),
    "ndim 2**31-1": ({"ndim": 2**31 - 1}, r"ndim 2147483647"),
    "shape NULL": ("shape NULL", r"shape.*NULL"),
    "negative size": ("negative size", r"negative size"),
    "dtype opaque": ({"dtype": (3, 64, 1)}, r"unsupported DLPack dtype \(code 3"),
    "dtype complex32": ({"dtype": (5, 32, 1)}, r"code 5"),  # complex64/128 are dtypes
    "dtype 255": ({"dtype": (255, 8, 1)}, r"code 255"),
    "bits mismatch": ("bits", r"unsupported DLPack dtype"),
    "lanes 4": ("lanes 4", r"lanes=4"),
    "lanes 0": ("lanes 0", r"lanes=0"),
    "device cuda": ({"device": (2, 0)}, r"CUDA|cuda|device"),
    "device cuda 7": ({"device": (2, 7)}, r"CUDA|cuda|device"),
    "device cuda host": ({"device": (3, 0)}, r"device type 3"),
    "device vulkan": ({"device": (7, 0)}, r"device type 7"),
    "device -1": ({"device": (-1, 0)}, r"device type -1"),
    "data NULL": ("data NULL", r"data.*NULL"),
    "negative stride": ("negative stride", r"negative strides"),
    "strides overflow": ("strides overflow", r"strides \[4611686018427387904\].*overflow"),
    "byte_offset overflow": ("byte_offset overflow", r"byte_offset \d+ overflows"),
    "byte_offset": ("byte_offset", None),  # data 16 bytes early, byte_offset 16: valid
}


@st.composite
def arrays(draw):
    dt = draw(st.sampled_from(NP_DTYPES))
    shape = tuple(draw(st.lists(st.integers(0, 4), max_size=4)))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    a = np.asarray((rng.standard_normal(shape) * 50).astype(dt))
    if draw(st.booleans()) and a.ndim:
        a = np.asarray(a.T)  # non-contiguous strides in the capsule
    if draw(st.booleans()) and a.ndim and a.shape[0] > 1:
        a = a[::2]
    return a


def _fields(mutation: str, a: np.ndarray):
    spec = MUTATIONS[mutation]
    if spec is None:
        return {
            "read_only": {"flags": dl.FLAG_READ_ONLY},
            "is_copied": {"flags": dl.FLAG_IS_COPIED},
            "version 1.0": {"version": (1, 0)},
            "version 1.7": {"version": (1, 7)},  # a newer minor stays readable
        }.get(mutation, {}), None
    fields, pattern = spec
    if isinstance(fields, dict) or pattern is None:
        return (fields if isinstance(fields, dict) else None), pattern
    bits = a.itemsize * 8
    code = dl.CODES[a.dtype.kind]
    if fields == "bits":
        return {"dtype": (code, bits + 3, 1)}, pattern  # 11, 19, 35 or 67 bits: no such type
    if fields.startswith("lanes"):
        return {"dtype": (code, bits, int(fields.split()[1]))}, pattern
    return None, pattern  # needs the array's own shape: built by _mutated


def _mutated(mutation: str, a: np.ndarray, legacy: bool):
    """A producer for `a` with the mutation applied (in a pre-1.0 "dltensor" capsule if
    legacy and the mutation is not about versioned-only fields), and the refusal pattern."""
    fields, pattern = _fields(mutation, a)
    legacy = mutation == "legacy" or (legacy and not {"version", "flags"} & set(fields or ()))
    if fields is not None:
        return dl.Producer(a, legacy=legacy, **fields), pattern
    p = dl.Producer(a, legacy=legacy)
    d = p.managed.dl_tensor
    if mutation == "shape NULL":
        d.shape, d.ndim = None, max(d.ndim, 1)  # NULL shape is fine for ndim 0 only
    elif mutation == "negative size":
        p.shape[0] = -3
        d.ndim = max(d.ndim, 1)
    elif mutation == "data NULL":
        d.data = None
        if a.size == 0:  # NULL data is fine for an empty tensor: make it non-empty
            p.array = np.zeros(3, a.dtype)
            p.shape[0], p.strides[0], d.ndim = 3, 1, 1
    elif mutation in ("negative stride", "strides overflow"):
        p.array = np.zeros(4, a.dtype)
        d.data = p.array.ctypes.data
        p.shape[0], p.strides[0], d.ndim = 4, -1 if mutation == "negative stride" else 2**62, 1
    elif mutation == "byte_offset overflow":
        p.array = np.zeros(4, a.dtype)
        d.data = p.array.ctypes.data
        p.shape[0], p.strides[0], d.ndim = 4, 1, 1
        d.byte_offset = 2**64 - 8
    elif mutation == "byte_offset" and a.size:
        d.data, d.byte_offset = a.ctypes.data - 16, 16
    return p, pattern


@examples(300)
@given(
    a=arrays(),
    mutation=st.sampled_from(sorted(MUTATIONS)),
    via=st.sampled_from(["capsule", "producer"]),
    legacy=st.booleans(),
)
def test_capsules_are_imported_or_refused_and_freed_once(a, mutation, via, legacy):
    p, pattern = _mutated(mutation, a, legacy)
    cap = p.capsule()
    src = cap if via == "capsule" else dl.Exporter(cap)
    if pattern is not None:
        with pytest.raises(REFUSED, match=pattern):
            sdk.from_dlpack(src)
        assert p.calls == 0, "the producer's deleter ran although the import was refused"
        del cap, src
        _collect()
        assert p.calls == 1, f"refused capsule: deleter ran {p.calls} times (once expected)"
        p.release()
        return
    t = sdk.from_dlpack(src)
    assert p.calls == 0
    assert tuple(t.shape) == a.shape and t.dtype.name == a.dtype.name
    if a.size:
        assert t.data_ptr() == a.ctypes.data, "import copied instead of sharing memory"
    np.testing.assert_array_equal(t.numpy(), a)
    view = t[..., None] if t.ndim else t.reshape(1)
    del cap, src, t
    _collect()
    assert p.calls == 0, "deleter ran while a view of the tensor still lives"
    np.testing.assert_array_equal(view.numpy().reshape(a.shape), a)
    del view
    _collect()
    assert p.calls == 1, f"deleter ran {p.calls} times after the tensor died (once expected)"
    p.release()


@pytest.mark.parametrize(
    "name, match",
    [
        (b"wrong_name", r"expected a capsule named 'dltensor' or 'dltensor_versioned'.*wrong_name"),
        (dl.USED_VERSIONED, r"consumed only once.*used_dltensor_versioned"),
        (dl.USED_LEGACY, r"used_dltensor"),
        (b"", r"got ''"),
    ],
)
def test_misnamed_and_used_capsules_are_refused(name, match):
    p = dl.Producer(np.arange(6.0).reshape(2, 3))
    cap = p.capsule(name)
    with pytest.raises(ValueError, match=match):
        sdk.from_dlpack(cap)
    with pytest.raises(ValueError, match=match):
        sdk.from_dlpack(dl.Exporter(cap))
    assert p.calls == 0
    del cap
    _collect()
    # A used capsule belongs to whoever consumed it; a misnamed one to its producer.
    assert p.calls == (0 if name.startswith(b"used_") else 1)
    p.release()


def test_a_capsule_is_consumed_only_once():
    a = np.arange(4, dtype=np.int32)
    p = dl.Producer(a)
    cap = p.capsule()
    t = sdk.from_dlpack(cap)
    with pytest.raises(ValueError, match="used_dltensor_versioned"):
        sdk.from_dlpack(cap)
    del cap
    _collect()
    assert p.calls == 0
    t.add_(1)  # memory shared with the producer
    np.testing.assert_array_equal(a, [1, 2, 3, 4])
    del t
    _collect()
    assert p.calls == 1
    p.release()


def test_null_deleter_is_allowed():
    """DLPack allows a NULL deleter (nothing to free)."""
    a = np.arange(3.0)
    p = dl.Producer(a, deleter=None)
    t = sdk.from_dlpack(p.capsule())
    np.testing.assert_array_equal(t.numpy(), a)
    del t
    _collect()
    assert p.calls == 0
    p.release()


def test_read_only_capsules_give_read_only_tensors():
    """A READ_ONLY capsule is imported sharing memory, as a read-only tensor: writes raise
    instead of changing the producer's memory (tests/sdk/test_read_only.py has the rest)."""
    a = np.arange(3.0)
    p = dl.Producer(a, flags=dl.FLAG_READ_ONLY)
    t = sdk.from_dlpack(p.capsule())
    assert t.data_ptr() == a.ctypes.data and t._is_read_only
    with pytest.raises(RuntimeError, match="read-only"):
        t.mul_(2)
    np.testing.assert_array_equal(a, [0.0, 1.0, 2.0])
    assert not sdk.from_dlpack(dl.Producer(np.arange(2.0)).capsule())._is_read_only
    del t
    _collect()
    assert p.calls == 1
    p.release()


class Boom(RuntimeError):
    pass


@pytest.mark.parametrize(
    "exporter, error, match",
    [
        (dl.Exporter(capsule=5), TypeError, "capsule.*int"),
        (dl.Exporter(capsule=None), TypeError, "capsule.*NoneType"),
        (dl.Exporter(capsule=np.ones(2)), TypeError, "capsule.*ndarray"),
        (dl.Exporter(raises=Boom("producer failed")), Boom, "producer failed"),
        (dl.Exporter(raises=TypeError("always")), TypeError, "always"),
        (dl.Exporter(device=(2, 0)), (RuntimeError, BufferError), "CUDA|device type 2"),
        (dl.Exporter(device=(13, 1)), BufferError, "device type 13"),
        (dl.Exporter(device=None), TypeError, None),
        (dl.Exporter(device=(1,)), ValueError, None),
        (dl.Exporter(device="cpu"), ValueError, None),
        (dl.Exporter(device=("x", 0)), ValueError, None),
        (dl.Exporter(device=lambda: 1 / 0), ZeroDivisionError, None),
    ],
)
def test_misbehaving_producers(exporter, error, match):
    with pytest.raises(error, match=match):
        sdk.from_dlpack(exporter)


def test_producer_without_max_version_gets_a_legacy_request():
    a = np.arange(5, dtype=np.int64)
    p = dl.Producer(a, legacy=True)
    t = sdk.from_dlpack(dl.Exporter(p.capsule(), old_style=True))
    np.testing.assert_array_equal(t.numpy(), a)
    del t
    _collect()
    assert p.calls == 1
    p.release()


# ------------------------------------------------------------------------------ export


@examples(80)
@given(a=arrays(), versioned=st.booleans(), copy=st.sampled_from([None, True]))
def test_export_to_a_ctypes_consumer(a, versioned, copy):
    """The consumer reads the values through the capsule after the tensor is gone, then
    calls the deleter once: only then is the memory released."""
    owner = a.copy()
    ref = weakref.ref(owner)
    t = sdk.from_numpy(owner)
    kw = {"max_version": (1, 1)} if versioned else {}
    cap = t.__dlpack__(copy=copy, **kw)
    name = dl.VERSIONED if versioned else dl.LEGACY
    m = dl.take_capsule(cap, name)
    if versioned:
        assert (m.contents.version.major, m.contents.version.minor) == (1, 1)
        assert m.contents.flags & dl.FLAG_READ_ONLY == 0
    dlt = m.contents.dl_tensor
    assert dlt.device.device_type == dl.KDL_CPU and dlt.ndim == a.ndim
    assert (dlt.dtype.code, dlt.dtype.bits, dlt.dtype.lanes) == (
        dl.CODES[a.dtype.kind], a.itemsize * 8, 1)  # fmt: skip
    del t, owner, cap
    _collect()
    if copy is None:
        assert ref() is not None, "exported memory was freed before the consumer's deleter ran"
    np.testing.assert_array_equal(dl.read_values(dlt, a.dtype), a)
    m.contents.deleter(m)
    _collect()
    assert ref() is None, "the deleter did not release the exported memory"


def test_unconsumed_export_is_freed_by_the_capsule():
    owner = np.arange(4.0)
    ref = weakref.ref(owner)
    cap = sdk.from_numpy(owner).__dlpack__(max_version=(1, 0))
    del owner
    _collect()
    assert ref() is not None
    del cap
    _collect()
    assert ref() is None
