"""sdk.interop.jax: SDK ops (C++ and Python ones) under jax.jit, jax.grad and jax.vmap, and on
concrete arrays, checked against numpy; bad input raises naming the op and the argument."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

jax = pytest.importorskip("jax", reason="jax is not installed")
jnp = pytest.importorskip("jax.numpy")

import sdk  # noqa: E402
import sdk.library  # noqa: E402
from tests._support import kept_folder, run_python, toolchain_key  # noqa: E402

HERE = Path(__file__).resolve().parent


def _same_shape(x, *rest, **kw):
    return sdk.empty_like(x)


def _sum_dim_shape(x, dim, keepdim=False):
    return x.sum(dim, keepdim=keepdim)


# The C++ ops' shape functions, written as torch's fake functions are: they run on meta tensors.
FAKES = {
    "muladd": _same_shape,
    "sum_dim": _sum_dim_shape,
    "halves": lambda x: (sdk.empty_like(x), sdk.empty_like(x)),
    "weighted_sum": lambda xs, weights: sdk.empty_like(xs[0]),
    "scale_by_text": _same_shape,
    "cast": lambda x, dtype: sdk.empty_like(x, dtype=dtype),
    "cube": _same_shape,
}


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    """A private extension cache for this module's builds (the handler, the test ops)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SDK_EXTENSIONS_DIR", str(kept_folder(tmp_path_factory, "jax", *toolchain_key())))
        yield


@pytest.fixture(scope="module")
def jtc(cache):
    """The C++ test ops (tests/interop/jax_ops.cpp) as jax functions; muladd differentiable."""
    import cpp_extension
    import sdk.interop.jax

    cpp_extension.load("jax_test_ops", [str(HERE / "jax_ops.cpp")], is_python_module=False)
    for name, fn in FAKES.items():
        sdk.library.register_fake(f"jtc::{name}", fn)
    sdk.library.register_autograd("jtc::muladd", _muladd_backward, setup_context=_save_inputs)
    return sdk.interop.jax.register("jtc", broadcasting=["muladd"])


def _save_inputs(ctx, inputs, output):
    ctx.save_for_backward(inputs[0], inputs[1])


def _muladd_backward(ctx, grad):
    a, b = ctx.saved_tensors
    return grad * b, grad * a, None


@pytest.fixture(scope="module")
def pyops(cache):
    """Ops defined in Python (sdk.library.custom_op): one with a derivative, one without."""
    import sdk.interop.jax

    @sdk.library.custom_op("jaxtest::sin_mul", mutates_args=())
    def sin_mul(x: sdk.Tensor, y: sdk.Tensor) -> sdk.Tensor:
        return x.sin() * y

    def backward(ctx, grad):
        x, y = ctx.saved_tensors
        return grad * x.cos() * y, grad * x.sin()

    sin_mul.register_autograd(backward, setup_context=_save_inputs)
    sin_mul.register_fake(lambda x, y: sdk.empty_like(x))

    @sdk.library.custom_op("jaxtest::no_grad", mutates_args=())
    def no_grad(x: sdk.Tensor) -> sdk.Tensor:
        return x * 2.0

    @sdk.library.custom_op("jaxtest::no_shape", mutates_args=())
    def no_shape(x: sdk.Tensor) -> sdk.Tensor:
        return x * 3.0

    # no_grad's shape function given to register (jax.ShapeDtypeStruct in and out)
    shapes = {"no_grad": lambda x: jax.ShapeDtypeStruct(x.shape, x.dtype)}
    return sdk.interop.jax.register("jaxtest", shapes=shapes)


def _arrays(rng, *shape, n=2):
    return [jnp.asarray(rng.standard_normal(shape).astype(np.float32)) for _ in range(n)]


def _np(x):
    return np.asarray(x)


# ---- eager and jit -------------------------------------------------------------------------


def test_eager_call_returns_jax_arrays(jtc, rng):
    a, b = _arrays(rng, 2, 3)
    out = jtc.muladd(a, b, 0.25)
    assert isinstance(out, jax.Array)
    np.testing.assert_allclose(_np(out), _np(a) * _np(b) + 0.25, rtol=1e-6)


def test_eager_call_shares_memory_with_the_jax_arrays(cache, rng):
    import sdk.interop.jax

    seen = []

    @sdk.library.custom_op("jaxzc::ident_plus", mutates_args=())
    def ident_plus(x: sdk.Tensor) -> sdk.Tensor:
        seen.append(x.data_ptr())
        out = x + 1.0
        seen.append(out.data_ptr())
        return out

    ops = sdk.interop.jax.register("jaxzc")
    (x,) = _arrays(rng, 16, n=1)
    out = ops.ident_plus(x)
    assert seen == [x.unsafe_buffer_pointer(), out.unsafe_buffer_pointer()]  # no copy either way
    np.testing.assert_allclose(_np(out), _np(x) + 1)


def test_jit_goes_through_the_one_ffi_handler(jtc, pyops, rng):
    a, b = _arrays(rng, 4)
    f = jax.jit(lambda a, b: jtc.muladd(a, b, 1.5))
    text = f.lower(a, b).as_text()
    assert "sdk_op_call" in text and "jtc::muladd" in text
    np.testing.assert_allclose(_np(f(a, b)), _np(a) * _np(b) + 1.5, rtol=1e-6)
    g = jax.jit(lambda x, y: pyops.sin_mul(x, y))  # a Python kernel, through the same handler
    assert "sdk_op_call" in g.lower(a, b).as_text()
    np.testing.assert_allclose(_np(g(a, b)), np.sin(_np(a)) * _np(b), rtol=1e-5)


def test_many_calls_in_one_program(jtc, pyops, rng):
    """Independent calls XLA may run at once, C++ and Python kernels mixed, one plan each."""
    a, b = _arrays(rng, 64)

    def f(a, b):
        outs = [jtc.muladd(a, b, float(k)) for k in range(8)]
        outs += [pyops.sin_mul(a + k, b) for k in range(8)]
        return outs

    got = jax.jit(f)(a, b)
    x, y = _np(a), _np(b)
    for k in range(8):
        np.testing.assert_allclose(_np(got[k]), x * y + k, rtol=1e-5)
        np.testing.assert_allclose(_np(got[8 + k]), np.sin(x + k) * y, rtol=1e-4, atol=1e-6)


def test_jit_uses_the_out_overload(jtc, rng):
    a, b = _arrays(rng, 3)
    text = jax.jit(lambda a, b: jtc.muladd(a, b, 2.0)).lower(a, b).as_text()
    assert "jtc::muladd.out" in text  # results written into XLA's buffer, not copied
    # called by itself, the out= form returns its result, then the new value of `out`
    result, out = jax.jit(lambda a, b: jtc.muladd_out(a, b, 2.0, out=a))(a, b)
    np.testing.assert_allclose(_np(result), _np(a) * _np(b) + 2, rtol=1e-6)
    np.testing.assert_allclose(_np(out), _np(a) * _np(b) + 2, rtol=1e-6)


@pytest.mark.parametrize("dim,keepdim", [([1], False), ([0], True), ([-1], True)])
def test_jit_int_list_and_bool_arguments(jtc, rng, dim, keepdim):
    (x,) = _arrays(rng, 3, 4, n=1)
    out = jax.jit(lambda x: jtc.sum_dim(x, dim, keepdim=keepdim))(x)
    np.testing.assert_allclose(_np(out), _np(x).sum(axis=tuple(dim), keepdims=keepdim), rtol=1e-5)


def test_default_argument_and_int_for_a_sized_list(jtc, rng):
    (x,) = _arrays(rng, 3, 4, n=1)
    np.testing.assert_allclose(
        _np(jax.jit(lambda x: jtc.sum_dim(x, 0))(x)), _np(x).sum(0), rtol=1e-5
    )


def test_two_results(jtc, rng):
    (x,) = _arrays(rng, 5, n=1)
    half, double = jax.jit(jtc.halves)(x)
    np.testing.assert_allclose(_np(half), _np(x) * 0.5)
    np.testing.assert_allclose(_np(double), _np(x) * 2.0)


def test_tensor_list_and_float_list(jtc, rng):
    xs = _arrays(rng, 2, 2, n=3)
    out = jax.jit(lambda xs: jtc.weighted_sum(xs, [1.0, -2.0, 0.5]))(xs)
    np.testing.assert_allclose(_np(out), _np(xs[0]) - 2 * _np(xs[1]) + 0.5 * _np(xs[2]), rtol=1e-5)


def test_string_argument_crosses_intact(jtc, rng):
    (x,) = _arrays(rng, 3, n=1)
    for mode in ["ab", "a;b;c", "f1;t"]:  # ';' separates the plan's tokens
        out = jax.jit(lambda x, mode=mode: jtc.scale_by_text(x, mode))(x)
        np.testing.assert_allclose(_np(out), _np(x) * len(mode), rtol=1e-6)


@pytest.mark.parametrize("dtype", [sdk.int32, sdk.int16, "float16", "bfloat16"])
def test_scalar_type_argument(jtc, dtype):
    x = jnp.asarray([1.5, -2.25, 3.0], dtype=jnp.float32)
    out = jax.jit(lambda x: jtc.cast(x, dtype))(x)
    name = dtype if isinstance(dtype, str) else dtype.name
    assert out.dtype == jnp.dtype(name)
    np.testing.assert_array_equal(_np(out), _np(x.astype(name)))


def test_written_argument_comes_back_and_the_input_is_unchanged(jtc, rng):
    x, y = _arrays(rng, 2, 3)
    before = _np(x).copy()
    for f in (jtc.add_, jax.jit(jtc.add_)):
        np.testing.assert_allclose(_np(f(x, y)), before + _np(y), rtol=1e-6)
        np.testing.assert_array_equal(_np(x), before)


@pytest.mark.filterwarnings("ignore:os.fork:RuntimeWarning")  # the build's compilers exec at once
def test_the_library_the_torch_tests_use(cache, rng):
    """tests/interop/ops_library.py's binary, shape functions and derivatives, under jax."""
    import sdk.interop.jax
    from tests.interop import ops_library

    ops_library.build()
    ops = sdk.interop.jax.register(ops_library.NS)
    a, b = _arrays(rng, 3, 4)
    loss = jax.jit(jax.grad(lambda a, b: ops.muladd(a, b, 2.0).sum(), argnums=(0, 1)))
    ga, gb = loss(a, b)
    np.testing.assert_allclose(_np(ga), _np(b), rtol=1e-6)
    np.testing.assert_allclose(_np(gb), _np(a), rtol=1e-6)
    sums, maxima = jax.jit(ops.sum_max)(a)
    np.testing.assert_allclose(_np(sums), _np(a).sum(1), rtol=1e-5)
    np.testing.assert_array_equal(_np(maxima), _np(a).max(1))
    result, new_self = jax.jit(ops.add_)(a, b)  # returns self: the result, then its new value
    np.testing.assert_allclose(_np(result), _np(a) + _np(b), rtol=1e-6)
    np.testing.assert_allclose(_np(new_self), _np(a) + _np(b), rtol=1e-6)
    out = jax.jit(ops.add_out)(a, b, jnp.zeros_like(a))
    np.testing.assert_allclose(_np(out), _np(a) + _np(b), rtol=1e-6)


# ---- grad ------------------------------------------------------------------------------------


def test_grad_matches_the_analytic_derivative(jtc, rng):
    a, b, w = _arrays(rng, 2, 3, n=3)

    def loss(a, b):
        return (jtc.muladd(a, b, 0.5) * w).sum()

    for grad in (jax.grad(loss, argnums=(0, 1)), jax.jit(jax.grad(loss, argnums=(0, 1)))):
        ga, gb = grad(a, b)
        np.testing.assert_allclose(_np(ga), _np(b) * _np(w), rtol=1e-5)
        np.testing.assert_allclose(_np(gb), _np(a) * _np(w), rtol=1e-5)


def test_grad_matches_finite_differences(pyops, rng):
    x, y = _arrays(rng, 4)

    def loss(x, y):
        return (pyops.sin_mul(x, y) ** 2).sum()

    gx, gy = jax.jit(jax.grad(loss, argnums=(0, 1)))(x, y)
    xs, ys, eps = _np(x).astype(np.float64), _np(y).astype(np.float64), 1e-6

    def ref(x, y):
        return ((np.sin(x) * y) ** 2).sum()

    for i in range(4):
        e = np.zeros(4)
        e[i] = eps
        dx = (ref(xs + e, ys) - ref(xs - e, ys)) / (2 * eps)
        dy = (ref(xs, ys + e) - ref(xs, ys - e)) / (2 * eps)
        np.testing.assert_allclose(_np(gx)[i], dx, rtol=1e-3, atol=1e-4)
        np.testing.assert_allclose(_np(gy)[i], dy, rtol=1e-3, atol=1e-4)


def test_grad_through_a_cpp_autograd_kernel(jtc, rng):
    (x,) = _arrays(rng, 5, n=1)
    for grad in (
        jax.grad(lambda x: jtc.cube(x).sum()),
        jax.jit(jax.grad(lambda x: jtc.cube(x).sum())),
    ):
        np.testing.assert_allclose(_np(grad(x)), 3 * _np(x) ** 2, rtol=1e-5)


def test_grad_without_a_derivative_names_the_op(pyops, rng):
    (x,) = _arrays(rng, 3, n=1)
    with pytest.raises(NotImplementedError, match="jaxtest::no_grad.*register_autograd"):
        jax.grad(lambda x: pyops.no_grad(x).sum())(x)


def test_a_python_kernel_that_runs_jax_inside_jit(cache, rng):
    """The handler re-entered on one thread (the kernel runs a jitted sdk op) keeps each
    call's arguments apart."""
    import sdk.interop.jax

    @sdk.library.custom_op("jaxnest::inner", mutates_args=())
    def inner(x: sdk.Tensor) -> sdk.Tensor:
        return x + 1.0

    inner.register_fake(lambda x: sdk.empty_like(x))
    nest = None

    @sdk.library.custom_op("jaxnest::outer", mutates_args=())
    def outer(x: sdk.Tensor, y: sdk.Tensor) -> sdk.Tensor:
        z = jax.jit(nest.inner)(jax.dlpack.from_dlpack(x))  # the handler again, from a kernel
        return sdk.from_dlpack(z) * y

    outer.register_fake(lambda x, y: sdk.empty_like(x))
    nest = sdk.interop.jax.register("jaxnest")
    x, y = _arrays(rng, 4)
    out = jax.jit(nest.outer)(x, y)
    np.testing.assert_allclose(_np(out), (_np(x) + 1) * _np(y), rtol=1e-6)


# ---- vmap ------------------------------------------------------------------------------------


def test_vmap_runs_once_per_element_by_default(pyops, rng):
    x, y = _arrays(rng, 3, 4)
    f = jax.jit(jax.vmap(pyops.sin_mul))
    assert "while" in f.lower(x, y).as_text()  # one handler call per batch element
    np.testing.assert_allclose(_np(f(x, y)), np.sin(_np(x)) * _np(y), rtol=1e-5)


def test_vmap_of_a_broadcasting_op_is_one_call(jtc, rng):
    a, b = _arrays(rng, 3, 4)
    f = jax.jit(jax.vmap(lambda a, b: jtc.muladd(a, b, 1.0), in_axes=(0, None)))
    text = f.lower(a, b[0]).as_text()
    assert "while" not in text and "sdk_op_call" in text
    np.testing.assert_allclose(_np(f(a, b[0])), _np(a) * _np(b[0]) + 1.0, rtol=1e-6)


def test_vmap_of_grad(jtc, rng):
    a, b = _arrays(rng, 3, 4)
    ga = jax.jit(jax.vmap(jax.grad(lambda a, b: jtc.muladd(a, b, 0.0).sum())))(a, b)
    np.testing.assert_allclose(_np(ga), _np(b), rtol=1e-6)


def test_grad_of_vmap(jtc, rng):
    a, b = _arrays(rng, 3, 4)
    ga = jax.grad(lambda a: jax.vmap(lambda a, b: jtc.muladd(a, b, 0.0))(a, b).sum())(a)
    np.testing.assert_allclose(_np(ga), _np(b), rtol=1e-6)


# ---- bad input -------------------------------------------------------------------------------


def test_wrong_dtype_names_the_op(jtc, rng):
    a, b = _arrays(rng, 4)
    with pytest.raises(RuntimeError, match="must be float32"):
        jtc.muladd(a, b.astype(jnp.int32), 1.0)
    with pytest.raises(RuntimeError, match="jtc::muladd.*must be float32"):
        jax.jit(lambda a, b: jtc.muladd(a, b, 1.0))(a, b.astype(jnp.int32))


def test_wrong_shape_names_the_op(jtc, rng):
    a, b = _arrays(rng, 4)
    with pytest.raises(RuntimeError, match="jtc::muladd.*same shape"):
        jax.jit(lambda a, b: jtc.muladd(a, b, 1.0))(a, b[:2])


def test_dtype_sdk_lacks_is_a_type_error(jtc, rng):
    a, _ = _arrays(rng, 4)
    with pytest.raises(TypeError, match="argument 'b' has dtype uint32"):
        jtc.muladd(a, a.astype(jnp.uint32), 1.0)


def test_traced_value_for_a_float_argument(jtc, rng):
    a, b = _arrays(rng, 4)
    with pytest.raises(TypeError, match="argument 'c' \\(float\\).*static"):
        jax.jit(lambda a, b, c: jtc.muladd(a, b, c))(a, b, 1.0)


@pytest.mark.parametrize(
    "args,kwargs,message",
    [
        ((1.0,), {}, "missing argument 'b'"),
        ((1.0, 1.0, 1.0, 1.0), {}, "positional argument"),
        ((1.0, 1.0, 1.0), {"d": 1}, "unexpected keyword argument 'd'"),
        ((1.0, 1.0, "x"), {}, "argument 'c' must be float, got str"),
    ],
)
def test_bad_arguments(jtc, args, kwargs, message):
    with pytest.raises(TypeError, match=message):
        jtc.muladd(*args, **kwargs)


def test_shape_functions_from_register_and_from_register_fake(pyops, rng):
    (x,) = _arrays(rng, 3, n=1)
    np.testing.assert_allclose(_np(jax.jit(pyops.no_grad)(x)), _np(x) * 2)  # register(shapes=)
    np.testing.assert_allclose(_np(jax.jit(pyops.sin_mul)(x, x)), np.sin(_np(x)) * _np(x), 1e-5)
    np.testing.assert_allclose(_np(pyops.no_shape(x)), _np(x) * 3)  # eager needs none
    with pytest.raises(NotImplementedError, match="jaxtest::no_shape.*register_fake.*shapes="):
        jax.jit(pyops.no_shape)(x)


def test_sdk_ops_with_jax_arrays_go_to_the_jax_op(jtc, rng):
    a, b = _arrays(rng, 4)
    f = jax.jit(jax.grad(lambda a: sdk.ops.jtc.muladd(a, b, 1.0).sum()))
    np.testing.assert_allclose(_np(f(a)), _np(b), rtol=1e-6)
    out = sdk.ops.jtc.muladd(a, b, 1.0)
    assert isinstance(out, jax.Array)
    np.testing.assert_allclose(_np(out), _np(a) * _np(b) + 1, rtol=1e-6)


def test_an_op_that_writes_an_undeclared_input_is_refused(cache, rng):
    import sdk.interop.jax

    @sdk.library.custom_op("jaxro::sneaky", mutates_args=())  # says it writes nothing
    def sneaky(x: sdk.Tensor) -> sdk.Tensor:
        x.add_(1.0)
        return x.clone()

    sneaky.register_fake(lambda x: sdk.empty_like(x))
    ops = sdk.interop.jax.register("jaxro")
    (x,) = _arrays(rng, 3, n=1)
    before = _np(x).copy()
    for f in (ops.sneaky, jax.jit(ops.sneaky)):
        with pytest.raises(RuntimeError, match="a jax array \\(jax arrays are immutable\\)"):
            f(x)
        np.testing.assert_array_equal(_np(x), before)


def test_non_tensor_results_eager_only(cache):
    import sdk.interop.jax

    @sdk.library.custom_op("jaxnt::count_pos", mutates_args=())
    def count_pos(x: sdk.Tensor) -> int:
        return int((x > 0).sum().item())

    @sdk.library.custom_op("jaxnt::split_first", mutates_args=())
    def split_first(x: sdk.Tensor) -> list[sdk.Tensor]:
        return [x[:1].clone(), x[1:].clone()]

    ops = sdk.interop.jax.register("jaxnt")
    x = jnp.asarray([1.0, -1.0, 2.0])
    assert ops.count_pos(x) == 2
    first, rest = ops.split_first(x)
    assert isinstance(rest, jax.Array) and _np(rest).tolist() == [-1.0, 2.0]
    with pytest.raises(NotImplementedError, match="jaxnt::count_pos: returns int"):
        jax.jit(ops.count_pos)(x)


def test_a_lying_shape_function_is_caught(cache, rng):
    import sdk.interop.jax

    ops = sdk.interop.jax.register(
        "jtc", shapes={"halves": lambda x: (jax.ShapeDtypeStruct((7,), x.dtype),) * 2}
    )
    (x,) = _arrays(rng, 3, n=1)
    with pytest.raises(RuntimeError, match="result 0 is float32\\[3\\].*shape function said"):
        jax.jit(ops.halves)(x)


def test_register_refuses_unknown_names(jtc):
    import sdk.interop.jax

    with pytest.raises(ValueError, match="no ops are registered in namespace 'nosuchlib'"):
        sdk.interop.jax.register("nosuchlib")
    with pytest.raises(ValueError, match="'nosuchop'.* name no op of 'jtc'"):
        sdk.interop.jax.register("jtc", shapes={"nosuchop": _same_shape})
    with pytest.raises(AttributeError, match="no op 'nosuch'"):
        jtc.nosuch  # noqa: B018


@pytest.mark.parametrize(
    "sdk_call,message",
    [
        ("jtc::muladd", "no op name"),
        ("jtc::nosuch\nt", "nosuch"),
        ("jtc::muladd\nt;t;fzz", "malformed plan token 'fzz'"),
        ("jtc::muladd\nt;t;s99:x", "malformed plan"),
        ("jtc::muladd\nt", "2 operands, the plan needs 1"),
    ],
)
def test_handler_refuses_a_malformed_call(jtc, rng, sdk_call, message):
    import sdk.interop.jax

    a, b = _arrays(rng, 4)
    sdk.interop.jax._ensure_target()  # registered at the first jitted op call, whichever test ran
    call = jax.ffi.ffi_call(sdk.interop.jax.TARGET, jax.ShapeDtypeStruct(a.shape, a.dtype))
    with pytest.raises(RuntimeError, match=message):
        jax.jit(lambda a, b: call(a, b, sdk_call=sdk_call))(a, b)


def test_reused_handles_follow_each_calls_buffers_and_shapes(jtc, rng):
    """The handler re-points the tensors it wrapped for a call site at the next call's buffers:
    every call reads its own operands, also when the same site runs at other shapes."""
    f = jax.jit(lambda a, b: jtc.muladd(a, b, 0.5))
    for shape in [(4,), (4,), (2, 3), (4,), (2, 3)]:
        a, b = _arrays(rng, *shape)
        np.testing.assert_allclose(_np(f(a, b)), _np(a) * _np(b) + 0.5, rtol=1e-6)


def test_a_tensor_a_kernel_keeps_is_never_re_pointed(cache, rng):
    import sdk.interop.jax

    kept = []

    @sdk.library.custom_op("jaxkeep::keep_plus", mutates_args=())
    def keep_plus(x: sdk.Tensor) -> sdk.Tensor:
        kept.append((x, x.data_ptr()))  # holds the wrapped operand past the call
        return x + 1.0

    keep_plus.register_fake(lambda x: sdk.empty_like(x))
    ops = sdk.interop.jax.register("jaxkeep")
    f = jax.jit(lambda x: ops.keep_plus(x))
    for _ in range(3):
        (x,) = _arrays(rng, 8, n=1)
        np.testing.assert_allclose(_np(f(x)), _np(x) + 1.0)
    # each kept tensor still wraps the buffer it was called with
    assert [t.data_ptr() for t, _ in kept] == [p for _, p in kept]


def test_build_handler_gives_the_registered_library(jtc):
    import sdk.interop.jax

    path = Path(sdk.interop.jax.build_handler())
    assert path.is_file() and path.name.startswith("sdk_xla_ffi")
    assert path == Path(sdk.interop.jax.build_handler())  # built once


def test_sdk_never_imports_jax():
    code = (
        "import sys, sdk, sdk.library, sdk.interop.jax\n"
        "assert 'jax' not in sys.modules, 'jax was imported'\n"
        "print('ok')\n"
    )
    assert run_python(code).stdout.strip() == "ok"


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q"]))
