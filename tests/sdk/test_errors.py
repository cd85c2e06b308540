"""Bad input gets the right exception with a useful message, never a crash."""

from __future__ import annotations

import numpy as np
import pytest

import sdk
from sdk import _C


def test_core_error_kinds_map_to_python_exceptions():
    cases = {
        1: ValueError,
        2: TypeError,
        3: IndexError,
        4: RuntimeError,
        5: MemoryError,
        6: NotImplementedError,
    }
    for kind, exc in cases.items():
        with pytest.raises(exc, match="boom"):
            _C._raise_error(kind, "boom")


def test_value_and_memory_errors_are_also_runtime_errors():
    # torch raises RuntimeError for a shape mismatch or a failed allocation: code ported from it
    # keeps catching ours, and code written for ValueError/MemoryError does too.
    assert issubclass(sdk.InvalidArgumentError, ValueError)
    assert issubclass(sdk.InvalidArgumentError, RuntimeError)
    assert issubclass(sdk.OutOfMemoryError, MemoryError)
    assert issubclass(sdk.OutOfMemoryError, RuntimeError)
    with pytest.raises(sdk.InvalidArgumentError, match="boom"):
        _C._raise_error(1, "boom")
    with pytest.raises(sdk.OutOfMemoryError, match="boom"):
        _C._raise_error(5, "boom")
    for call in (
        lambda: sdk.ones(3) + sdk.ones(4),  # the core's broadcast check
        lambda: sdk.ones(3).view(5),
        lambda: sdk.ones(3)[::0],  # a check in the Python layer
        lambda: sdk.full((2,), 1.0, out=sdk.empty(3)),
        lambda: sdk.eye(-1),  # a check in sdk._C
        lambda: float(sdk.ones(2)),
    ):
        with pytest.raises(RuntimeError) as info:
            call()
        assert type(info.value) is sdk.InvalidArgumentError
    with pytest.raises(RuntimeError) as info:
        sdk.empty(2**40, 2**20)  # 2**60 floats: the allocator refuses
    assert type(info.value) is sdk.OutOfMemoryError, info.value


@pytest.mark.parametrize(
    "call,exc,match",
    [
        (lambda: sdk.exp("a"), TypeError, r"exp\(\): argument 'input' must be Tensor, not str"),
        (lambda: sdk.add(sdk.ones(2), "x"), TypeError, "add"),
        (lambda: sdk.mm(sdk.ones(2, 3), 3), TypeError, r"mm\(\): argument 'mat2'"),
        (lambda: sdk.cat([sdk.ones(2), 3]), TypeError, "element 1"),
        (lambda: sdk.sum(sdk.ones(2), "a"), TypeError, "dim"),
        (lambda: sdk.zeros(2, "3"), TypeError, "size"),
        (lambda: sdk.zeros(-1), ValueError, "negative"),
        (lambda: sdk.empty(2, dtype="float128"), TypeError, "dtype"),
        (lambda: sdk.ones(2).to(object), TypeError, ""),
        (lambda: sdk.mm(sdk.ones(2, 3), sdk.ones(2, 3)), (ValueError, RuntimeError), "mm"),
        (lambda: sdk.ones(2, 3) + sdk.ones(4), (ValueError, RuntimeError), ""),
        (lambda: sdk.ones(3).view(2, 2), (ValueError, RuntimeError), ""),
        (lambda: sdk.ones(3).reshape(-1, -1), (ValueError, RuntimeError), ""),
        (lambda: sdk.ones(2).sum(5), IndexError, "range"),
        (lambda: sdk.ones(2, 2).softmax(3), IndexError, ""),
        (lambda: sdk.arange(0, 10, 0), RuntimeError, "step"),
        (lambda: sdk.linspace(0, 1, -2), ValueError, "steps"),
        (lambda: sdk.eye(-1), ValueError, ""),
        (lambda: sdk.tensor([[1, 2], [3]]), ValueError, "length"),
        (lambda: sdk.tensor(["a"]), TypeError, "str"),
        (lambda: sdk.tensor(object()), TypeError, ""),
        (lambda: sdk.tensor([1, 2]).requires_grad_(), RuntimeError, "floating"),
        (
            lambda: sdk.ones(2).numpy() if False else sdk.zeros(1, dtype=sdk.bfloat16).numpy(),
            TypeError,
            "BFloat16",
        ),
        (lambda: sdk.ones(2).gather(0, sdk.ones(2)), (TypeError, RuntimeError, ValueError), ""),
        (lambda: sdk.ones(2).index_select(0, sdk.tensor([5])), IndexError, ""),
        (
            lambda: sdk.where(sdk.ones(2), sdk.ones(2), sdk.ones(2)),
            (TypeError, RuntimeError, ValueError),
            "",
        ),
        (
            lambda: sdk.ones(2).masked_fill(sdk.ones(2), 1.0),
            (TypeError, RuntimeError, ValueError),
            "",
        ),
        (lambda: sdk.ones(2, 3).permute(0, 0), RuntimeError, "permutation"),
        (lambda: sdk.set_num_threads(-3), ValueError, ""),
        (lambda: sdk.ones(2) @ 3, TypeError, ""),
        (lambda: pow(sdk.ones(2), 2, 3), TypeError, ""),
        (lambda: sdk.ones(2).to("cuda:99"), (RuntimeError, ValueError), "CUDA|out of range"),
        (lambda: sdk.device("tpu"), ValueError, "tpu"),
        (lambda: _C.unary(0, None), TypeError, "Tensor"),
        (
            lambda: _C.unary(999, sdk.ones(2)),
            (ValueError, TypeError, RuntimeError, NotImplementedError),
            "",
        ),
        (lambda: _C.binary(0, 1, 2), TypeError, ""),
        (lambda: _C.reduce(0, sdk.ones(2), None, False, 77), ValueError, "dtype"),
        (lambda: _C.empty((2**62, 2**62), None), (ValueError, MemoryError, RuntimeError), ""),
        (lambda: _C.empty((2**62,), None), (MemoryError, ValueError, RuntimeError), ""),
        (lambda: _C.full((2,), 2**70, None), OverflowError, ""),
        (lambda: _C.view(sdk.ones(4), (-2, -2)), (ValueError, RuntimeError), ""),
        (
            lambda: _C.as_strided(sdk.ones(4), (3,), (5,), 0),
            (ValueError, RuntimeError, IndexError),
            "",
        ),
        (lambda: _C.from_array_interface(object()), AttributeError, ""),
        (lambda: _C.from_dlpack_capsule(3), TypeError, "capsule"),
        (lambda: _C._set_tensor_class(int), TypeError, "subclass"),
        (lambda: _C._register_fallbacks({"nope": abs}), KeyError, "nope"),
        (lambda: sdk.from_dlpack(3), TypeError, "DLPack"),
        (lambda: sdk.Generator("x"), TypeError, ""),
    ],
)
def test_bad_input(call, exc, match):
    with pytest.raises(exc, match=match or None):
        call()


def test_messages_name_shapes():
    with pytest.raises((ValueError, RuntimeError)) as e:
        sdk.ones(2, 3) + sdk.ones(4)
    msg = str(e.value)
    assert "3" in msg and "4" in msg


def test_errors_leave_state_usable():
    t = sdk.ones(3)
    for _ in range(3):
        with pytest.raises((ValueError, RuntimeError)):
            t.view(4)
    assert (t + 1).tolist() == [2.0, 2.0, 2.0]


def test_unknown_operand_types_fall_back_to_python():
    t = sdk.ones(2)
    assert (t == "a") is False
    assert (t != None) is True  # noqa: E711
    with pytest.raises(TypeError):
        t + object()
    with pytest.raises(TypeError):
        _ = t < "x"
    np.testing.assert_array_equal((t + np.ones(2, np.float32)).numpy(), [2, 2])
    np.testing.assert_array_equal((np.ones(2, np.float32) + t).numpy(), [2, 2])
    np.testing.assert_array_equal((t + [1.0, 2.0]).numpy(), [2, 3])


_A = sdk.ones(2, 3)
# (call, the op name the message must start with)
_USER_TERMS = [
    (lambda: _A.matmul(sdk.ones(4)), "matmul"),
    (lambda: sdk.cat([_A, sdk.ones(4)]), "cat"),
    (lambda: _A.index_select(0, sdk.tensor([9])), "index_select"),
    (lambda: _A.gather(1, sdk.tensor([[9]])), "gather"),
    (lambda: _A.topk(9), "topk"),
    (lambda: _A.flip(3), "flip"),
    (lambda: _A.to(dtype=sdk.int32).mean(), "mean"),  # sdk_reduce(mean) in the C ABI
    (lambda: sdk.bmm(_A, _A), "bmm"),
    (lambda: _A.kthvalue(9), "kthvalue"),
    (lambda: _A.unfold(0, 5, 1), "unfold"),
    (lambda: _A.diagonal(0, 0, 0), "diagonal"),
]


@pytest.mark.parametrize("call, op", _USER_TERMS, ids=[op for _, op in _USER_TERMS])
def test_messages_name_the_op_not_the_c_entry_point(call, op):
    with pytest.raises(Exception) as err:
        call()
    msg = str(err.value)
    assert msg.startswith(f"{op}(): "), msg
    assert "sdk_" not in msg, msg
