"""sdk.library and sdk.ops with ops defined in Python: schemas, calls, errors, autograd,
opcheck, threads. (C++ registrations: tests/cpp_extension/test_op_registration.py.)"""

from __future__ import annotations

import threading
import uuid
from typing import Optional

import numpy as np
import pytest

import sdk
import sdk.library as L


def ns() -> str:
    """A fresh namespace per test (registrations are process-wide)."""
    return "t" + uuid.uuid4().hex[:10]


def test_custom_op_schema_inference_and_call():
    n = ns()

    @L.custom_op(f"{n}::scale", mutates_args=())
    def scale(x: sdk.Tensor, factor: float = 2.0, *, shift: int = 0) -> sdk.Tensor:
        return x * factor + shift

    assert scale._schema == "(Tensor x, float factor=2.0, *, int shift=0) -> Tensor"
    op = getattr(sdk.ops, n).scale
    assert op.schema == f"{n}::scale(Tensor x, float factor=2.0, *, int shift=0) -> Tensor"
    x = sdk.tensor([1.0, 2.0])
    np.testing.assert_array_equal(op(x).numpy(), [2.0, 4.0])
    np.testing.assert_array_equal(op(x, 3.0, shift=1).numpy(), [4.0, 7.0])
    np.testing.assert_array_equal(op(x, factor=1).numpy(), [1.0, 2.0])  # an int for a float
    np.testing.assert_array_equal(scale(np.array([1.0, 2.0]), 1.0).numpy(), [1.0, 2.0])
    assert op.default is op and op is getattr(sdk.ops, n).scale


def test_every_schema_type_round_trips_through_a_python_kernel():
    n = ns()
    lib = L.Library(n, "DEF")
    lib.define(
        "echo(Tensor t, Tensor? ot, Tensor[] ts, Tensor?[] ots, int i, SymInt si, int[] il, "
        "int[2] i2, float f, float[] fl, bool b, bool[] bl, str s, Scalar sc, ScalarType dt, "
        "ScalarType? odt, Device dev, int? oi=None) -> (Tensor, Tensor?, Tensor[], int, int[], "
        "float, bool, str, Scalar, ScalarType, Device, int?)"
    )
    seen = {}

    def echo(t, ot, ts, ots, i, si, il, i2, f, fl, b, bl, s, sc, dt, odt, dev, oi):
        seen.update(ots=ots, si=si, i2=i2, fl=fl, bl=bl, odt=odt)
        return t, ot, ts, i, il, f, b, s, sc, dt, dev, oi

    lib.impl("echo", echo, "CPU")
    t = sdk.ones(2)
    out = getattr(sdk.ops, n).echo(
        t, None, [t, t], [t, None], 3, 4, [5, 6], 7, 1.5, [0.5, 1], True, [True, False],
        "hé", 2.5, sdk.float64, None, "cpu",
    )  # fmt: skip
    rt, rot, rts, ri, ril, rf, rb, rs, rsc, rdt, rdev, roi = out
    assert rt.data_ptr() == t.data_ptr() and rot is None and len(rts) == 2
    assert (ri, ril, rf, rb, rs, rsc) == (3, [5, 6], 1.5, True, "hé", 2.5)
    assert rdt == sdk.float64 and rdev == sdk.device("cpu") and roi is None
    assert seen["ots"][1] is None and seen["si"] == 4 and seen["i2"] == [7, 7]
    assert seen["fl"] == [0.5, 1.0] and seen["bl"] == [True, False] and seen["odt"] is None
    lib._destroy()


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda op: op("x"), "argument 'x' must be Tensor, not str"),
        (lambda op: op(sdk.ones(1), "2"), "argument 'factor' must be float, not str"),
        (lambda op: op(), "missing required argument 'x'"),
        (lambda op: op(sdk.ones(1), 1.0, 2.0), "takes 2 positional arguments but 3 were given"),
        (lambda op: op(sdk.ones(1), bad=1), "unexpected keyword argument 'bad'"),
        (lambda op: op(sdk.ones(1), 1.0, factor=1.0), "multiple values for argument 'factor'"),
        (lambda op: op(1.5), "argument 'x' must be Tensor, not float"),
    ],
)
def test_call_errors_name_the_op_the_argument_and_the_schema(call, message):
    n = ns()

    @L.custom_op(f"{n}::f", mutates_args=())
    def f(x: sdk.Tensor, factor: float = 1.0) -> sdk.Tensor:
        return x * factor

    with pytest.raises(TypeError) as e:
        call(getattr(sdk.ops, n).f)
    assert message in str(e.value) and f"{n}::f" in str(e.value)


def test_definition_errors():
    n = ns()
    lib = L.Library(n, "DEF")
    with pytest.raises(ValueError, match="invalid schema .*expected '->'"):
        lib.define("broken(Tensor x)")
    with pytest.raises(ValueError, match="unknown type 'Tensr'"):
        lib.define("broken(Tensr x) -> Tensor")
    lib.define("ok(Tensor x) -> Tensor")
    with pytest.raises(ValueError, match=f"op {n}::ok is already defined"):
        lib.define("ok(Tensor y) -> Tensor")
    with pytest.raises(ValueError, match=f"namespace '{n}' is already defined"):
        L.Library(n, "DEF")
    with pytest.raises(ValueError, match="already has a CPU kernel"):
        lib.impl("ok", lambda x: x, "CPU")
        lib.impl("ok", lambda x: x, "CPU")
    with pytest.raises(ValueError, match="unknown dispatch key"):
        lib.impl("ok", lambda x: x, "TPU")
    lib._destroy()
    with pytest.raises(AttributeError, match="has no op named 'ok_missing'"):
        getattr(sdk.ops, n).ok_missing  # noqa: B018
    L.Library(n, "DEF")._destroy()  # the namespace is free again


def test_closed_library_makes_its_ops_undefined():
    n = ns()
    lib = L.Library(n, "DEF")
    lib.define("g(Tensor x) -> Tensor")
    lib.impl("g", lambda x: x + 1, "CompositeExplicitAutograd")
    op = getattr(sdk.ops, n).g
    np.testing.assert_array_equal(op(sdk.zeros(1)).numpy(), [1.0])
    lib._destroy()
    with pytest.raises(RuntimeError, match="not defined"):
        op(sdk.zeros(1))


def test_python_kernel_exceptions_reach_the_caller_unchanged():
    n = ns()

    class Custom(Exception):
        pass

    @L.custom_op(f"{n}::boom", mutates_args=())
    def boom(x: sdk.Tensor) -> sdk.Tensor:
        raise Custom("kernel failed on purpose")

    with pytest.raises(Custom, match="on purpose"):
        boom(sdk.ones(1))


def test_kernel_per_device_and_missing_kernel_message():
    n = ns()
    lib = L.Library(n, "DEF")
    lib.define("h(Tensor x) -> Tensor")
    lib.impl("h", lambda x: x * 2, "CUDA")
    with pytest.raises(NotImplementedError, match=f"{n}::h: no kernel for CPU tensors .*CUDA"):
        getattr(sdk.ops, n).h(sdk.ones(1))
    lib.impl("h", lambda x: x * 3, "CPU")
    np.testing.assert_array_equal(getattr(sdk.ops, n).h(sdk.ones(1)).numpy(), [3.0])
    lib._destroy()


def test_register_autograd_gradcheck_and_setup_context():
    n = ns()

    @L.custom_op(f"{n}::mysin", mutates_args=())
    def mysin(x: sdk.Tensor, scale: float = 1.0) -> sdk.Tensor:
        return x.sin() * scale

    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(inputs[0])
        ctx.scale = inputs[1]

    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * x.cos() * ctx.scale, None

    mysin.register_autograd(backward, setup_context=setup_context)
    x = sdk.tensor([0.1, 0.7, 1.3], dtype=sdk.float64, requires_grad=True)
    assert sdk.autograd.gradcheck(lambda t: mysin(t, 2.5), (x,))
    y = mysin(x)  # the default scale, filled in for setup_context
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.cos([0.1, 0.7, 1.3]))
    with sdk.no_grad():
        assert not mysin(x).requires_grad


def test_without_autograd_registration_backward_refuses():
    n = ns()

    @L.custom_op(f"{n}::noform", mutates_args=())
    def noform(x: sdk.Tensor) -> sdk.Tensor:
        return x * 2

    y = noform(sdk.ones(2, requires_grad=True))
    assert y.requires_grad
    with pytest.raises(RuntimeError, match=f"backward through {n}::noform but no autograd formula"):
        y.sum().backward()


def test_a_composite_implicit_kernel_that_records_nothing_refuses_at_backward():
    # a CompositeImplicitAutograd kernel runs with grad mode on (C++ autograd Functions in it
    # record: tests/port/test_corpus_idioms.py); a result with no history is refused at
    # backward, never returned without a gradient (a Python kernel's ops record nothing)
    n = ns()
    lib = L.Library(n, "DEF")
    lib.define("opaque(Tensor x) -> Tensor")
    lib.impl(
        "opaque", lambda x: sdk.from_numpy(x.detach().numpy() * 2), "CompositeImplicitAutograd"
    )
    y = getattr(sdk.ops, n).opaque(sdk.ones(2, requires_grad=True))
    np.testing.assert_array_equal(y.detach().numpy(), [2.0, 2.0])
    assert y.requires_grad
    with pytest.raises(RuntimeError, match=f"backward through {n}::opaque but no autograd formula"):
        y.sum().backward()
    lib._destroy()


def test_opcheck_catches_an_unannotated_mutation_and_an_unannotated_alias():
    n = ns()

    @L.custom_op(f"{n}::good", mutates_args=("out",))
    def good(x: sdk.Tensor, out: sdk.Tensor) -> None:
        out.copy_(x * 2)

    @L.custom_op(f"{n}::sneaky", mutates_args=())
    def sneaky(x: sdk.Tensor) -> sdk.Tensor:
        x.mul_(2)
        return x.clone()

    @L.custom_op(f"{n}::alias", mutates_args=())
    def alias(x: sdk.Tensor) -> sdk.Tensor:
        return x.view(-1)

    res = L.opcheck(good, (sdk.ones(3), sdk.zeros(3)))
    # an op that returns nothing needs no shape function: its fake result is None
    assert res["test_schema"] == "SUCCESS" and res["test_faketensor"] == "SUCCESS"
    with pytest.raises(L.OpCheckError, match="argument 'x' was modified"):
        L.opcheck(sneaky, (sdk.ones(3),))
    with pytest.raises(L.OpCheckError, match="shares memory with argument 'x'"):
        L.opcheck(alias, (sdk.ones(3),))
    res = L.opcheck(sneaky, (sdk.ones(3),), raise_exception=False)
    assert isinstance(res["test_schema"], L.OpCheckError)


def test_opcheck_runs_gradcheck_on_the_registered_formula():
    n = ns()

    @L.custom_op(f"{n}::cube", mutates_args=())
    def cube(x: sdk.Tensor) -> sdk.Tensor:
        return x * x * x

    cube.register_autograd(
        lambda ctx, g: g * 2 * ctx.saved_tensors[0] ** 2,  # wrong: should be 3 x^2
        setup_context=lambda ctx, inputs, output: ctx.save_for_backward(inputs[0]),
    )
    with pytest.raises(L.OpCheckError, match="does not match finite differences"):
        L.opcheck(cube, (sdk.randn(4),))


def test_infer_schema_types_and_errors():
    def f(a: sdk.Tensor, b: Optional[sdk.Tensor], c: list[int], d: list[sdk.Tensor],  # noqa: UP045
          e: bool = True, g: str = "mean", h: Optional[int] = None) -> tuple[sdk.Tensor, int]:  # fmt: skip  # noqa: UP045
        return a, 0

    assert L.infer_schema(f, mutates_args=("a",)) == (
        '(Tensor(a0!) a, Tensor? b, int[] c, Tensor[] d, bool e=True, str g="mean", '
        "int? h=None) -> (Tensor, int)"
    )

    def no_hint(a):
        return a

    with pytest.raises(ValueError, match="argument 'a' of no_hint has no type annotation"):
        L.infer_schema(no_hint, mutates_args=())

    def bad(a: dict) -> sdk.Tensor:
        return a

    with pytest.raises(ValueError, match="has no schema type"):
        L.infer_schema(bad, mutates_args=())
    with pytest.raises(ValueError, match="not arguments"):
        L.infer_schema(f, mutates_args=("zz",))


def test_threads_call_one_op():
    n = ns()

    @L.custom_op(f"{n}::add1", mutates_args=())
    def add1(x: sdk.Tensor) -> sdk.Tensor:
        return x + 1

    op = getattr(sdk.ops, n).add1
    errors = []

    def work(k: int) -> None:
        try:
            for _ in range(200):
                x = sdk.full((3,), float(k))
                np.testing.assert_array_equal(op(x).numpy(), [k + 1.0] * 3)
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors


def test_ops_listing_and_unknown_namespace():
    n = ns()
    assert dir(getattr(sdk.ops, n)) == []
    with pytest.raises(AttributeError, match="nothing is registered"):
        getattr(sdk.ops, n).anything  # noqa: B018

    @L.custom_op(f"{n}::listed", mutates_args=())
    def listed(x: sdk.Tensor) -> sdk.Tensor:
        return x

    assert "listed" in dir(getattr(sdk.ops, n)) and n in dir(sdk.ops)


def test_load_library_errors():
    with pytest.raises(ImportError, match="no such file"):
        sdk.ops.load_library("/nonexistent/libops.so")
