"""The legacy typed tensor classes (sdk.FloatTensor, sdk.cuda.LongTensor, ...): construction,
isinstance, Tensor.type(), and torch's behaviour on the same calls when torch is installed."""

import numpy as np
import pytest

import sdk
from sdk import _tensor_types

NAMES = [
    ("FloatTensor", sdk.float32),
    ("DoubleTensor", sdk.float64),
    ("HalfTensor", sdk.float16),
    ("BFloat16Tensor", sdk.bfloat16),
    ("ByteTensor", sdk.uint8),
    ("CharTensor", sdk.int8),
    ("ShortTensor", sdk.int16),
    ("IntTensor", sdk.int32),
    ("LongTensor", sdk.int64),
    ("BoolTensor", sdk.bool),
]


@pytest.mark.parametrize("name,dtype", NAMES)
def test_each_class_allocates_converts_and_recognizes_its_dtype(name, dtype):
    cls = getattr(sdk, name)
    assert cls.dtype == dtype and not cls.is_cuda
    assert getattr(sdk.cuda, name).dtype == dtype and getattr(sdk.cuda, name).is_cuda
    t = cls(2, 3)
    assert t.shape == (2, 3) and t.dtype == dtype
    assert isinstance(t, cls) and t.type() == f"sdk.{name}"
    assert not isinstance(t, getattr(sdk.cuda, name))
    assert isinstance(t, sdk.Tensor)
    others = [getattr(sdk, n) for n, _ in NAMES if n != name]
    assert not any(isinstance(t, o) for o in others)
    data = cls([[1, 0], [0, 1]])
    assert data.dtype == dtype and data.tolist() == [[1, 0], [0, 1]]
    assert sdk.ones(2, dtype=sdk.float64).type(cls).dtype == dtype
    assert sdk.ones(2).type(f"torch.{name}").dtype == dtype


def test_sizes_data_and_aliases_read_as_torch_reads_them():
    assert sdk.FloatTensor().shape == (0,)
    assert sdk.FloatTensor(sdk.Size([2, 3])).shape == (2, 3)  # a Size is a size
    np.testing.assert_array_equal(sdk.FloatTensor((2, 3)).numpy(), [2.0, 3.0])  # a tuple is data
    np.testing.assert_array_equal(sdk.LongTensor(np.arange(3)).numpy(), [0, 1, 2])
    a = sdk.ones(2)
    assert sdk.FloatTensor(a) is a  # the same tensor, as torch returns an alias
    assert sdk.IntTensor(2).fill_(3).tolist() == [3, 3]


@pytest.mark.parametrize(
    "call,error,words",
    [
        (lambda: sdk.FloatTensor(sdk.ones(2, dtype=sdk.float64)), TypeError, "DoubleTensor"),
        (lambda: sdk.FloatTensor(2, -1), ValueError, "negative dimension -1"),
        (lambda: sdk.FloatTensor("ab"), TypeError, "got str"),
        (lambda: sdk.FloatTensor(2.5), TypeError, "got float"),
        (lambda: sdk.FloatTensor(True), TypeError, "got bool"),
        (lambda: sdk.FloatTensor(2, "x"), TypeError, "(int, str)"),
        (lambda: sdk.FloatTensor(2, device="cuda"), TypeError, "does not match"),
        (lambda: sdk.cuda.NotATensor, AttributeError, "NotATensor"),
    ],
)
def test_bad_arguments_name_the_class_and_what_was_wrong(call, error, words):
    with pytest.raises(error) as info:
        call()
    assert words in str(info.value)


def test_cuda_classes_allocate_on_the_gpu_or_say_why_not():
    if sdk.cuda.is_available():
        t = sdk.cuda.LongTensor(3)
        assert t.device.type == "cuda" and t.type() == "sdk.cuda.LongTensor"
        assert isinstance(t, sdk.cuda.LongTensor) and not isinstance(t, sdk.LongTensor)
    else:
        with pytest.raises(RuntimeError, match="CUDA is not available"):
            sdk.cuda.LongTensor(3)
        with pytest.raises(RuntimeError, match="CUDA is not available"):
            sdk.ones(2).type("torch.cuda.FloatTensor")


def test_lookup_refuses_what_is_no_class_name():
    assert _tensor_types.lookup("torch.FloatTensor") is sdk.FloatTensor
    assert _tensor_types.lookup("sdk.cuda.IntTensor") is sdk.cuda.IntTensor
    assert _tensor_types.lookup("torch.Float32Tensor") is None
    assert _tensor_types.lookup(sdk.float32) is None
    with pytest.raises(TypeError, match="unknown dtype name"):
        sdk.ones(2).type("torch.NopeTensor")


def test_same_calls_as_torch():
    torch = pytest.importorskip("torch")
    for name, _ in NAMES:
        ours, theirs = getattr(sdk, name), getattr(torch, name)
        for args in [(), (2, 3), ([1, 0, 1],), ((2, 3),)]:
            a, b = ours(*args), theirs(*args)
            assert tuple(a.shape) == tuple(b.shape), (name, args)
            assert a.dtype.name == str(b.dtype).removeprefix("torch."), (name, args)
            if args and not isinstance(args[0], int):
                assert a.tolist() == b.tolist(), (name, args)
        x = torch.ones(2)
        assert x.type(theirs).type() == f"torch.{name}"
        assert sdk.ones(2).type(ours).type() == f"sdk.{name}"


def test_new_is_the_legacy_constructor_with_the_tensor_s_dtype():
    x = sdk.ones(2, 3)
    ints = sdk.ones(2, dtype=sdk.int32)
    assert x.new(4, 5).shape == (4, 5) and x.new(4, 5).dtype == sdk.float32
    assert x.new().shape == (0,) and x.new(sdk.Size([4])).shape == (4,)
    assert ints.new([1.5, 2]).tolist() == [1, 2] and ints.new([1.5, 2]).dtype == sdk.int32
    assert x.new(x) is x
    with pytest.raises(
        TypeError, match=r"Tensor.new\(\): expected a sdk.FloatTensor, got sdk.IntTensor"
    ):
        x.new(ints)
    assert x.get_device() == -1


def test_new_and_get_device_match_torch():
    torch = pytest.importorskip("torch")
    for dtype in ("float32", "int64", "uint8"):
        ours = sdk.ones(2, dtype=getattr(sdk, dtype))
        theirs = torch.ones(2, dtype=getattr(torch, dtype))
        for args in [(), (3, 2), ([1, 2, 3],), ((4, 5),)]:
            a, b = ours.new(*args), theirs.new(*args)
            assert tuple(a.shape) == tuple(b.shape) and a.dtype.name == str(b.dtype)[6:]
        assert ours.get_device() == theirs.get_device()
