"""Pickling sdk.Tensor (sdk/_tensor_pickle.py): protocol-5 out-of-band buffers, layouts,
autograd flags, and the checks made on what a pickle claims."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import sdk
from sdk._dtype import DTYPES


def _values(t):
    return t.to(sdk.float64).tolist()


def _round_trip(t, protocol=5, out_of_band=True):
    buffers: list = []
    cb = buffers.append if out_of_band and protocol >= 5 else None
    blob = pickle.dumps(t, protocol=protocol, buffer_callback=cb)
    return pickle.loads(blob, buffers=buffers), blob, buffers


def _layouts(dtype):
    x = sdk.arange(24).reshape(2, 3, 4).to(dtype)
    return {
        "contiguous": x,
        "transposed": x.transpose(0, 2),
        "permuted": x.permute(2, 0, 1),
        "offset slice": x[1:, 1:],
        "strided": x[:, :, ::2],
        "expanded": sdk.arange(3).to(dtype).reshape(3, 1).expand(3, 4),
        "0-d": x[1, 2, 3],
        "empty": sdk.empty(0, 3, dtype=dtype),
        "empty 1-d": sdk.empty(0, dtype=dtype),
        "size-1 dims": x[:1, :, :1],
    }


@pytest.mark.parametrize("protocol", [2, 4, 5])
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: d.name)
def test_every_dtype_and_layout_round_trips(dtype, protocol):
    for what, t in _layouts(dtype).items():
        back, _, _ = _round_trip(t, protocol)
        assert back.dtype == dtype, what
        assert tuple(back.shape) == tuple(t.shape), what
        assert _values(back) == _values(t), what


def test_values_match_numpy_for_random_data():
    a = np.random.default_rng(0).standard_normal((5, 7)).astype(np.float32)
    t = sdk.from_numpy(a).t()
    back, _, _ = _round_trip(t)
    np.testing.assert_array_equal(back.numpy(), a.T)


def test_a_dense_permutation_keeps_its_layout():
    x = sdk.arange(24, dtype=sdk.float32).reshape(2, 3, 4).permute(2, 0, 1)
    back, _, _ = _round_trip(x)
    assert back.stride() == x.stride()
    assert not back.is_contiguous()


def test_a_slice_ships_only_its_own_elements():
    x = sdk.zeros(1000, 1000)
    _, _, buffers = _round_trip(x[:2])
    assert sum(memoryview(b).nbytes for b in buffers) == 2 * 1000 * 4


def test_out_of_band_pickle_size_does_not_grow_with_the_data():
    small, big = sdk.zeros(10), sdk.zeros(10_000_000)
    _, blob_small, bufs_small = _round_trip(small)
    _, blob_big, bufs_big = _round_trip(big)
    assert len(blob_big) < len(blob_small) + 8 < 200  # only the shape's digits differ
    assert len(bufs_big) == 1 and memoryview(bufs_big[0]).nbytes == big.nbytes


def test_out_of_band_buffer_is_the_tensor_memory_and_the_result_wraps_it():
    x = sdk.arange(1000, dtype=sdk.float64)
    back, _, buffers = _round_trip(x)
    assert np.frombuffer(buffers[0], np.uint8).ctypes.data == x.data_ptr()  # no copy out
    assert back.data_ptr() == x.data_ptr()  # no copy in: same memory, as numpy does
    in_band, blob, _ = _round_trip(x, out_of_band=False)
    assert len(blob) > x.nbytes and in_band.data_ptr() != x.data_ptr()
    in_band.add_(1)  # the in-band copy is the unpickled tensor's own (writable) memory
    assert in_band.tolist()[0] == 1.0 and x.tolist()[0] == 0.0


def test_read_only_buffers_are_copied():
    x = sdk.arange(6, dtype=sdk.float32)
    blob = pickle.dumps(x, protocol=5, buffer_callback=lambda b: True)  # true: in band
    buffers: list = []
    pickle.dumps(x, protocol=5, buffer_callback=buffers.append)
    frozen = bytes(buffers[0])
    oob = pickle.dumps(x, protocol=5, buffer_callback=lambda b: None)
    back = pickle.loads(oob, buffers=[frozen])
    assert back.tolist() == x.tolist() and back.data_ptr() != x.data_ptr()
    back.add_(1)  # its own memory, not the read-only bytes
    assert frozen == bytes(buffers[0])
    assert pickle.loads(blob).tolist() == x.tolist()


def test_misaligned_buffers_are_copied():
    x = sdk.arange(4, dtype=sdk.float64)
    oob = pickle.dumps(x, protocol=5, buffer_callback=lambda b: None)
    raw = bytearray(x.nbytes + 1)
    view = memoryview(raw)[1:]
    view[:] = np.arange(4, dtype=np.float64).tobytes()
    back = pickle.loads(oob, buffers=[view])
    assert back.tolist() == [0.0, 1.0, 2.0, 3.0]
    assert back.data_ptr() % 8 == 0


@pytest.mark.parametrize("protocol", [4, 5])
def test_requires_grad_is_kept_and_the_graph_dropped(protocol):
    leaf = sdk.ones(3, requires_grad=True)
    y = leaf * 2
    for t in (leaf, y):
        back, _, _ = _round_trip(t, protocol)
        assert back.requires_grad and back.is_leaf and back.grad_fn is None
        back.sum().backward()
        assert back.grad.tolist() == [1.0, 1.0, 1.0]
    assert leaf.grad is None  # the graph did not travel
    back, _, _ = _round_trip(leaf.detach())
    assert not back.requires_grad


def test_the_unpickled_tensor_outlives_the_original():
    x = sdk.arange(5, dtype=sdk.int64)
    blob = pickle.dumps(x, protocol=5)
    del x
    assert pickle.loads(blob).tolist() == [0, 1, 2, 3, 4]


def test_pickled_inside_containers_and_shared_once():
    x = sdk.arange(3, dtype=sdk.float32)
    back = pickle.loads(pickle.dumps({"a": x, "b": [x, x]}, protocol=5))
    assert back["a"] is back["b"][0] is back["b"][1]
    assert back["a"].tolist() == [0.0, 1.0, 2.0]


# ------------------------------------------------------------------ malformed pickles


def _rebuild(*args):
    return sdk._tensor._rebuild(*args)


BAD = [
    # (args, exception, text)
    ((b"\0" * 8, "float128", (2,), False), ValueError, "unknown dtype 'float128'"),
    ((b"\0" * 8, 8, (2,), False), ValueError, "unknown dtype 8"),
    ((b"\0" * 8, "float32", 2, False), TypeError, "shape must be a tuple of ints"),
    ((b"\0" * 8, "float32", (2,), 1), TypeError, "requires_grad must be a bool"),
    ((b"\0" * 8, "int32", (2,), True), ValueError, "only floating point tensors"),
    ((b"\0" * 24, "float32", (2, 3), False, (0, 0)), ValueError, "is not a permutation"),
    ((b"\0" * 24, "float32", (2, 3), False, (0,)), ValueError, "is not a permutation"),
    ((b"\0" * 24, "float32", (2, 3), False, (1, 2)), ValueError, "is not a permutation"),
    ((b"\0" * 24, "float32", (2, 3), False, "10"), TypeError, "order must be a tuple"),
    ((b"\0" * 24, "float32", (2, 3), False, (1.0, 0)), TypeError, "order must be a tuple"),
    ((b"\0" * 20, "float32", (2, 3), False, (1, 0)), ValueError, "needs 24 bytes"),
    ((b"\0" * 8, "float32", (2,), False, None, 5), TypeError, "positional argument"),
    (("abcd", "float32", (1,), False), TypeError, "must be bytes or a buffer"),
    ((memoryview(b"\0" * 8)[::2], "float32", (1,), False), TypeError, "not contiguous"),
    ((bytearray(b"\2"), "bool", (1,), False), ValueError, "only the bytes 0 and 1"),
    ((memoryview(bytearray(b"\0\3")), "bool", (2,), False), ValueError, "bytes 0 and 1"),
    ((np.zeros(3, np.float64), "float64", (4,), False), ValueError, "needs 32 bytes"),
]


@pytest.mark.parametrize("args,kind,text", BAD, ids=[str(i) for i in range(len(BAD))])
def test_malformed_pickles_raise_naming_the_field(args, kind, text):
    with pytest.raises(kind, match=text) as info:
        _rebuild(*args)
    if "positional" not in text:
        assert str(info.value).startswith("unpickling a tensor: ")


def test_any_buffer_of_the_right_size_is_accepted():
    a = np.arange(6, dtype=np.int16)
    for raw in (a, memoryview(a), a.tobytes(), bytearray(a.tobytes()), pickle.PickleBuffer(a)):
        t = _rebuild(raw, "int16", (2, 3), False)
        assert t.tolist() == [[0, 1, 2], [3, 4, 5]]
    t = _rebuild(a.tobytes(), "int16", (3, 2), False, (1, 0))  # memory order: dim 1 outermost
    assert t.tolist() == a.reshape(2, 3).T.tolist() and t.stride() == (1, 3)
