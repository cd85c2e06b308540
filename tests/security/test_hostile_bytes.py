"""Hostile bytes: crafted pickles, sdk.load archives and DLPack capsules are refused with a
ValueError (or TypeError) naming the field, before any memory is touched.

Pickled tensors are unpickled through ``sdk._tensor._rebuild``; restricted unpicklers (an
allow-list of callables, like torch's ``weights_only``) let exactly that call through, so
its arguments are all an attacker controls. The crafted cases run in a child process: before
the checks, too many bytes overflowed the heap (a crash, or worse, later).
"""

from __future__ import annotations

import ctypes
import io
import json
import pickle
import zipfile

import numpy as np
import pytest

import sdk
from sdk._dtype import DTYPES
from tests.cpp_extension.conftest import run_python
from tests.fuzz import dlpack_ctypes as dl

# (raw, dtype, shape, requires_grad) -> (exception type, text the message must contain)
CRAFTED = [
    ((b"\0" * 4096, "float32", (2,), False), "ValueError", "needs 8 bytes, the data has 4096"),
    ((b"\0" * 4, "float32", (2, 3), False), "ValueError", "needs 24 bytes, the data has 4"),
    ((b"", "float64", (1 << 20,), False), "ValueError", "byte count"),
    ((b"\0" * 8, "float32", (-1, -2), False), "ValueError", "shape[0] is negative"),
    ((b"\0" * 8, "float32", (2**62, 2**62), False), "ValueError", "too many elements"),
    ((b"", "float32", (0, 2**63, 2**63), False), "ValueError", "too many elements"),
    ((b"\0" * 4, "float32", (1,) * 65, False), "ValueError", "65 dimensions"),
    ((b"\0" * 4, "float32", (1.5,), False), "TypeError", "shape[0] must be an int"),
    ((b"\0" * 4, "float32", (True,), False), "TypeError", "shape[0] must be an int"),
    ((b"\0" * 4, "float32", 4, False), "TypeError", "shape must be a tuple"),
    ((b"\0" * 4, "complex32", (1,), False), "ValueError", "dtype: unknown dtype 'complex32'"),
    ((b"\0" * 4, ["float32"], (1,), False), "ValueError", "dtype: unknown dtype"),
    (("abcd", "float32", (1,), False), "TypeError", "the data must be bytes"),
    ((b"\2", "bool", (1,), False), "ValueError", "bool tensor holds only the bytes 0 and 1"),
    ((b"\0" * 8, "int64", (1,), True), "ValueError", "requires_grad"),
    ((b"\0" * 4, "float32", (1,), "yes"), "TypeError", "requires_grad must be a bool"),
]


class _Crafted:
    """Pickles as the call a pickled tensor makes, with any arguments."""

    def __init__(self, args) -> None:
        self.args = args

    def __reduce__(self):
        return (sdk._tensor._rebuild, self.args)


ALLOW_LIST = """
class AllowList(pickle.Unpickler):
    # a restricted unpickler: only the tensor rebuild function may be called
    def find_class(self, module, name):
        if (module, name) == ("sdk._tensor", "_rebuild"):
            return sdk._tensor._rebuild
        raise pickle.UnpicklingError(f"{module}.{name} is not allowed")
"""


def test_crafted_pickles_are_refused_naming_the_field():
    blobs = [pickle.dumps(_Crafted(args)) for args, _, _ in CRAFTED]
    code = (
        "import io, json, pickle, sdk\n"
        + ALLOW_LIST
        + f"""
out = []
for blob in {blobs!r}:
    for load in (pickle.loads, lambda b: AllowList(io.BytesIO(b)).load()):
        try:
            load(blob)
            out.append(["accepted", ""])
        except Exception as e:
            out.append([type(e).__name__, str(e)])
print(json.dumps(out))
"""
    )
    got = json.loads(run_python(code).stdout.strip().splitlines()[-1])
    assert len(got) == 2 * len(CRAFTED)
    for i, (args, kind, text) in enumerate(CRAFTED):
        for name, msg in got[2 * i : 2 * i + 2]:
            assert name == kind and text in msg, (args[1:], name, msg)
            assert msg.startswith("unpickling a tensor: ")


def test_a_buffer_with_gaps_or_no_buffer_is_refused():
    # protocol 5 hands over any buffer (out of band); only contiguous bytes are taken
    with pytest.raises(TypeError, match="the data buffer is not contiguous"):
        sdk._tensor._rebuild(memoryview(b"abcdefgh")[::2], "float32", (1,), False)
    with pytest.raises(TypeError, match="the data must be bytes or a buffer, got str"):
        sdk._tensor._rebuild("abcd", "float32", (1,), False)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: d.name)
def test_pickles_still_round_trip(dtype):
    x = sdk.arange(6).reshape(2, 3).to(dtype)
    for t in (x, x.t(), x[:, 1:], sdk.empty(0, 3, dtype=dtype)):
        back = pickle.loads(pickle.dumps(t))
        assert back.dtype == dtype and back.shape == t.shape
        assert back.to(sdk.float64).tolist() == t.to(sdk.float64).tolist()


def test_unpickling_fuzz_only_raises_value_or_type_errors():
    """Random lengths, shapes and dtypes: either refused (ValueError/TypeError) or a tensor
    holding exactly the bytes given."""
    rng = np.random.default_rng(23)
    names = [d.name for d in DTYPES] + ["float", "complex32", ""]
    accepted = 0
    for _ in range(3000):
        ndim = int(rng.integers(0, 5))
        shape = tuple(int(v) for v in rng.choice([0, 1, 2, 3, 7, -1, 2**31, 2**62], ndim))
        name = str(rng.choice(names))
        n = int(rng.choice([0, 1, 2, 4, 8, 12, 24, 48, 56, 97]))
        raw = bytes(rng.integers(0, 2, n, dtype=np.uint8))  # bool-valid bytes
        try:
            t = sdk._tensor._rebuild(raw, name, shape, bool(rng.integers(0, 2)))
        except (ValueError, TypeError):
            continue
        accepted += 1
        assert tuple(t.shape) == shape and t.nbytes == len(raw)
        assert ctypes.string_at(t.data_ptr(), t.nbytes) == raw
    assert accepted > 50  # the valid cases do get through


# ------------------------------------------------------------------------- sdk.load


def _archive(manifest, members: dict[str, bytes] | None = None) -> io.BytesIO:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr(
            "manifest.json", manifest if isinstance(manifest, str) else json.dumps(manifest)
        )
        for name, data in (members or {}).items():
            zf.writestr(name, data)
    buf.seek(0)
    return buf


def _npy(arr: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.save(buf, arr, allow_pickle=False)
    return buf.getvalue()


def _tensor(**fields):
    node = {"type": "tensor", "key": "t0", "dtype": "float32", "shape": [2]}
    node.update(fields)
    return node


def _root(node):
    return {"format": "sdk.save", "version": 1, "root": node}


T0 = {"t0.npy": _npy(np.ones(2, np.float32))}

WRONG_SHAPES = [
    ([], "format 'list'"),
    ("5", "format 'int'"),
    ({"format": "sdk.save", "version": "1", "root": None}, "version '1'"),
    ({"format": "sdk.save", "version": 1}, "no 'root'"),
    (_root([]), "malformed manifest node"),
    (_root({"kind": "tensor"}), "malformed manifest node"),
    (_root({"type": 3}), "malformed manifest node"),
    (_root({"type": "tensor"}), "has no 'key'"),
    (_root(_tensor(key=["t0"])), "'key' is list"),
    (_root(_tensor(dtype=None)), "'dtype' is NoneType"),
    (_root(_tensor(dtype="tensor")), "unknown dtype 'tensor'"),
    (_root(_tensor(shape="2")), "'shape' is str"),
    (_root(_tensor(shape=[-2])), "tensor shape [-2]"),
    (_root(_tensor(shape=[2.0])), "tensor shape [2.0]"),
    (_root(_tensor(key="t9")), "missing member 't9'"),
    (_root(_tensor(dtype="int32", requires_grad=True)), "requires_grad"),
    (_root({"type": "int"}), "has no 'value'"),
    (_root({"type": "int", "value": "x"}), "'value' is str"),
    (_root({"type": "int", "value": True}), "'value' is bool"),
    (_root({"type": "str", "value": 5}), "'value' is int"),
    (_root({"type": "float", "value": "abc"}), "float value 'abc'"),
    (_root({"type": "float", "value": [1]}), "'value' is list"),
    (_root({"type": "list", "items": 3}), "'items' is int"),
    (_root({"type": "list", "items": [5]}), "malformed manifest node"),
    (_root({"type": "dict", "items": [[1]]}), "dict item [1]"),
    (_root({"type": "dict", "items": {"a": 1}}), "'items' is dict"),
    (
        _root({"type": "dict", "items": [[{"type": "list", "items": []}, {"type": "none"}]]}),
        "dict key",
    ),
    (_root({"type": "set", "items": []}), "unknown node type 'set'"),
    (
        '{"format": "sdk.save", "version": 1, "root": ' + "[" * 100000 + "]" * 100000 + "}",
        "manifest",
    ),
    (_root(None), "malformed manifest node"),
]


@pytest.mark.parametrize("manifest, text", WRONG_SHAPES, ids=range(len(WRONG_SHAPES)))
def test_a_manifest_of_the_wrong_shape_is_a_value_error(manifest, text):
    with pytest.raises(ValueError) as info:
        sdk.load(_archive(manifest, T0))
    assert type(info.value) is ValueError and text in str(info.value)
    assert str(info.value).startswith("sdk.load: ")


def test_a_deeply_nested_manifest_is_a_value_error():
    import sys

    depth = sys.getrecursionlimit() + 100  # deeper than Python recurses: RecursionError before
    root = '{"type": "list", "items": [' * depth + '{"type": "none"}' + "]}" * depth
    text = '{"format": "sdk.save", "version": 1, "root": ' + root + "}"
    with pytest.raises(ValueError, match="nested too deeply|unreadable manifest"):
        sdk.load(_archive(text, T0))


def _header_then(arr: np.ndarray, tail: bytes) -> bytes:
    """An .npy member whose header describes `arr` but whose data is `tail`."""
    full = _npy(arr)
    return full[: len(full) - arr.nbytes] + tail


MEMBERS = [
    # (member bytes, manifest node, text the message must contain)
    (_npy(np.ones(3, np.float32)), _tensor(), "shape: [3] in the member, [2] in the manifest"),
    (_npy(np.ones(2, np.float64)), _tensor(), "dtype: float64 in the member, float32"),
    (_npy(np.ones(2, np.int32)), _tensor(), "dtype: int32 in the member, float32"),
    (_header_then(np.ones(2, np.float32), b"\0" * 4), _tensor(), "needs 8 bytes, the data has 4"),
    (_header_then(np.ones(2, np.float32), b"\0" * 64), _tensor(), "needs 8 bytes, the data has 64"),
    (
        _npy(np.array([0, 2], np.uint8)).replace(b"|u1", b"|b1"),
        _tensor(dtype="bool"),
        "bytes 0 and 1",
    ),
    (_npy(np.ones((2,), "V4")), _tensor(), "dtype"),
    (_npy(np.zeros(2, [("a", "<f4")])), _tensor(), "dtype"),
    (b"not an npy file at all", _tensor(), "header"),
    (_npy(np.ones(2, np.float32))[:20], _tensor(), "header"),
]


@pytest.mark.parametrize("member, node, text", MEMBERS, ids=range(len(MEMBERS)))
def test_a_member_that_disagrees_with_the_manifest_is_refused(member, node, text):
    with pytest.raises(ValueError) as info:
        sdk.load(_archive(_root(node), {"t0.npy": member}))
    assert text in str(info.value) and "'t0'" in str(info.value)


def test_a_header_claiming_a_huge_array_allocates_nothing():
    """A 2**40-element header over a few bytes: refused from the sizes, not a MemoryError."""
    small = _npy(np.ones(2, np.float32))
    huge = small.replace(b"(2,)", b"(1099511627776,)")
    node = _tensor(shape=[2**40])
    with pytest.raises(ValueError, match="byte count"):
        sdk.load(_archive(_root(node), {"t0.npy": huge}))


def test_big_endian_members_from_other_writers_are_read():
    arr = np.arange(4, dtype=">f4")
    out = sdk.load(_archive(_root(_tensor(shape=[4])), {"t0.npy": _npy(arr)}))
    assert out.tolist() == [0.0, 1.0, 2.0, 3.0]


# --------------------------------------------------------------------------- DLPack


@pytest.mark.parametrize("offset", [2**56, 2**60, 2**62, 2**63, 2**64 - 8])
def test_a_byte_offset_past_the_address_space_is_refused(offset):
    a = np.arange(4, dtype=np.float32)
    producer = dl.Producer(a, byte_offset=offset)
    with pytest.raises(ValueError, match=f"byte_offset {offset} overflows the address space"):
        sdk.from_dlpack(dl.Exporter(producer.capsule()))


def test_strides_whose_extent_no_memory_can_have_are_refused():
    a = np.arange(4, dtype=np.float32)
    strides = (dl.c_int64 * 1)(2**60)  # 2**62 bytes apart: fits int64, fits no process
    producer = dl.Producer(a[:2], strides=dl.ctypes.cast(strides, dl.POINTER(dl.c_int64)))
    with pytest.raises(ValueError, match="overflow the address space"):
        sdk.from_dlpack(dl.Exporter(producer.capsule()))


def test_a_valid_byte_offset_is_honoured():
    a = np.arange(8, dtype=np.float32)
    producer = dl.Producer(a[2:], data=a.ctypes.data, byte_offset=8)
    t = sdk.from_dlpack(dl.Exporter(producer.capsule()))
    assert t.tolist() == [2.0, 3.0, 4.0, 5.0, 6.0, 7.0]


def test_dlpack_fuzz_offsets_shapes_strides():
    """Random offsets, shapes and strides over a real buffer: each capsule is refused with a
    ValueError/TypeError, or imported; an import whose memory lies inside the buffer reads
    the values numpy reads there (others are the producer's lie: never read)."""
    rng = np.random.default_rng(5)
    buf = np.arange(256, dtype=np.float32)
    base, size = buf.ctypes.data, buf.nbytes
    offsets = [0, 4, 8, 60, 2**20, 2**47, 2**55, 2**56, 2**62, 2**63, 2**64 - 4]
    stride_choices = [0, 1, 2, 3, 5, -1, 2**30, 2**61, 2**62, -(2**62)]
    imported = refused = 0

    def pick(values: list[int]) -> int:  # exact: rng.choice would go through float64
        return values[int(rng.integers(len(values)))]

    for _ in range(1500):
        ndim = int(rng.integers(0, 4))
        shape = [pick([0, 1, 2, 3, 4, 2**31]) for _ in range(ndim)]
        strides = [pick(stride_choices) for _ in range(ndim)]
        offset = pick(offsets)
        sh = (dl.c_int64 * max(ndim, 1))(*shape)
        st = (dl.c_int64 * max(ndim, 1))(*strides)
        producer = dl.Producer(
            buf[:1],
            ndim=ndim,
            shape=dl.ctypes.cast(sh, dl.POINTER(dl.c_int64)),
            strides=dl.ctypes.cast(st, dl.POINTER(dl.c_int64)),
            data=base,
            byte_offset=offset,
        )
        try:
            t = sdk.from_dlpack(dl.Exporter(producer.capsule()))
        except (ValueError, TypeError):
            refused += 1
            continue
        imported += 1
        assert list(t.shape) == shape
        numel = int(np.prod(shape)) if shape else 1
        if numel == 0 or numel > 4096:
            continue
        moving = [(n, st) for n, st in zip(shape, strides) if n > 1]  # others: any stride
        extent = 4 * (1 + sum((n - 1) * st for n, st in moving))
        if offset + extent <= size and all(st >= 0 for _, st in moving):
            start = offset // 4
            steps = [4 * st if n > 1 else 0 for n, st in zip(shape, strides)]
            want = np.lib.stride_tricks.as_strided(buf[start:], shape, steps, writeable=False)
            assert t.numpy().tolist() == want.tolist()
        else:  # the producer's lie, not read; but it lies inside the address space
            assert base + offset + extent <= 2**56
    assert imported > 100 and refused > 100
