"""Differentiable functions written in C++ (sdk::autograd::Function, sdk/autograd.h): reached
from a pybind11 function and from a registered op's Autograd kernel, recorded into the graph
Python's backward() runs; leaves made in C++; autograd state kept across the boundary."""

from __future__ import annotations

import gc
import uuid
import weakref

import numpy as np
import pytest

import sdk
from cpp_extension import load_inline
from tests._support import kept_folder, toolchain_key

SOURCE = r"""
#include <sdk/extension.h>

using sdk::Tensor;
using sdk::autograd::AutogradContext;
using sdk::autograd::variable_list;

// y = x * c, with c kept in saved_data
struct MulConst : sdk::autograd::Function<MulConst> {
  static Tensor forward(AutogradContext* ctx, Tensor x, double c) {
    ctx->saved_data["c"] = c;
    return x * c;
  }
  static variable_list backward(AutogradContext* ctx, variable_list g) {
    return {g[0] * ctx->saved_data["c"].toDouble(), Tensor()};
  }
};

// (a * b, a + b): two outputs, both inputs saved, needs_input_grad honoured
struct MulAdd : sdk::autograd::Function<MulAdd> {
  static variable_list forward(AutogradContext* ctx, const Tensor& a, const Tensor& b) {
    ctx->save_for_backward({a, b});
    return {a * b, a + b};
  }
  static variable_list backward(AutogradContext* ctx, variable_list g) {
    auto saved = ctx->get_saved_variables();
    Tensor ga, gb;
    if (ctx->needs_input_grad(0)) ga = g[0] * saved[1] + g[1];
    if (ctx->needs_input_grad(1)) gb = g[0] * saved[0] + g[1];
    return {ga, gb};
  }
};

// exp(x), saving its own output (kept as a history-free view)
struct Exp : sdk::autograd::Function<Exp> {
  static Tensor forward(AutogradContext* ctx, const Tensor& x) {
    Tensor y = x.exp();
    ctx->save_for_backward({y});
    return y;
  }
  static variable_list backward(AutogradContext* ctx, variable_list g) {
    return {g[0] * ctx->get_saved_variables()[0]};
  }
};

// (sorted-ish values, a float "index" output marked non-differentiable); the backward sees
// zeros for the index output unless materialization is off
struct WithAux : sdk::autograd::Function<WithAux> {
  static variable_list forward(AutogradContext* ctx, const Tensor& x, bool materialize) {
    Tensor aux = sdk::zeros_like(x);
    ctx->mark_non_differentiable({aux});
    ctx->set_materialize_grads(materialize);
    return {x * 3, aux};
  }
  static variable_list backward(AutogradContext* ctx, variable_list g) {
    SDK_CHECK(g.size() == 2, "two grads");
    Tensor gx = g[0] * 3;
    if (g[1].defined()) gx = gx + g[1];  // zeros when materialized
    else gx = gx + 100;                  // marks that an undefined grad arrived
    return {gx, Tensor()};
  }
};

struct Faulty : sdk::autograd::Function<Faulty> {
  static Tensor forward(AutogradContext* ctx, const Tensor& x, int64_t mode) {
    ctx->saved_data["mode"] = mode;
    ctx->save_for_backward({x});
    return x * 1.0;
  }
  static variable_list backward(AutogradContext* ctx, variable_list g) {
    int64_t mode = ctx->saved_data["mode"].toInt();
    if (mode == 0) SDK_CHECK(false, "backward refused on purpose");
    if (mode == 1) return {g[0], g[0], g[0]};  // one too many, and defined
    if (mode == 2) return {g[0], g[0]};        // gradient for the int argument
    if (mode == 3) return {ctx->get_saved_variables()[0]};  // reads a modified saved tensor
    return {g[0].sum().expand({2, 3}), sdk::Tensor()};  // wrong shape
  }
};

Tensor mul_const(const Tensor& x, double c) { return MulConst::apply(x, c); }
std::vector<Tensor> mul_add(const Tensor& a, const Tensor& b) { return MulAdd::apply(a, b); }
Tensor exp_fn(const Tensor& x) { return Exp::apply(x); }
std::vector<Tensor> with_aux(const Tensor& x, bool m) { return WithAux::apply(x, m); }
Tensor faulty(const Tensor& x, int64_t mode) { return Faulty::apply(x, mode); }

// what C++ sees of a tensor's autograd state
std::tuple<bool, bool, bool> info(const Tensor& x) {
  return {x.requires_grad(), x.is_leaf(), x.grad().defined()};
}
Tensor grad_of(const Tensor& x) { return x.grad(); }
Tensor detached(const Tensor& x) { return x.detach(); }
Tensor same(const Tensor& x) { return x; }
bool grad_mode() { return sdk::GradMode::is_enabled(); }
Tensor mul_const_no_grad(const Tensor& x) {
  sdk::NoGradGuard guard;
  return MulConst::apply(x, 2.0);
}

// a parameter made and kept in C++, used by a Function, its gradient read back in C++
static Tensor g_weight;
Tensor make_weight(int64_t n) {
  g_weight = sdk::full({n}, 2.0, sdk::TensorOptions().dtype(sdk::kDouble).requires_grad(true));
  return g_weight;
}
Tensor scale_by_weight(const Tensor& x) { return MulAdd::apply(x, g_weight)[0]; }
std::tuple<bool, bool, Tensor> weight_state() {
  return {g_weight.requires_grad(), g_weight.is_leaf(), g_weight.grad()};
}
void drop_weight() { g_weight = Tensor(); }
void set_rg(const Tensor& x, bool on) { x.set_requires_grad(on); }

// an op whose Autograd kernel calls a Function that redispatches to the CPU kernel
Tensor myscale_cpu(const Tensor& x, double s) { return x * s; }
struct ScaleFn : sdk::autograd::Function<ScaleFn> {
  static Tensor forward(AutogradContext* ctx, const Tensor& x, double s) {
    sdk::AutoDispatchBelowADInplaceOrView guard;
    ctx->saved_data["s"] = s;
    static auto op = sdk::Dispatcher::singleton()
                         .findSchemaOrThrow("{NS}::myscale", "")
                         .typed<Tensor(const Tensor&, double)>();
    return op.call(x, s);
  }
  static variable_list backward(AutogradContext* ctx, variable_list g) {
    return {g[0] * ctx->saved_data["s"].toDouble(), Tensor()};
  }
};
Tensor myscale_autograd(const Tensor& x, double s) { return ScaleFn::apply(x, s); }
SDK_LIBRARY({NS}, m) { m.def("myscale(Tensor x, float s) -> Tensor"); }
SDK_LIBRARY_IMPL({NS}, CPU, m) { m.impl("myscale", &myscale_cpu); }
SDK_LIBRARY_IMPL({NS}, Autograd, m) { m.impl("myscale", &myscale_autograd); }
"""

FUNCS = [
    "mul_const", "mul_add", "exp_fn", "with_aux", "faulty", "info", "grad_of", "detached",
    "same", "grad_mode", "mul_const_no_grad", "make_weight", "scale_by_weight",
    "weight_state", "drop_weight", "set_rg",
]  # fmt: skip


@pytest.fixture(scope="module")
def ext(tmp_path_factory):
    ns = "agkept"  # stable: later runs load the kept build instead of compiling again
    mp = pytest.MonkeyPatch()
    cache = kept_folder(tmp_path_factory, "cpp_autograd", *toolchain_key())
    mp.setenv("SDK_EXTENSIONS_DIR", str(cache))
    m = load_inline(f"cpp_autograd_{ns}", cpp_sources=SOURCE.replace("{NS}", ns), functions=FUNCS)
    mp.undo()
    m.ns = ns
    return m


def _x(*shape, seed=0):
    rng = np.random.default_rng(seed)
    return sdk.tensor(rng.standard_normal(shape), dtype=sdk.float64, requires_grad=True)


def test_function_from_pybind11_records_a_node(ext):
    x = _x(3, 4)
    y = ext.mul_const(x, 2.5)
    assert y.requires_grad and not y.is_leaf
    assert y.grad_fn.name() == "MulConstBackward"
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.full((3, 4), 2.5))
    assert sdk.autograd.gradcheck(lambda t: ext.mul_const(t, -1.5), (_x(2, 3),))


def test_two_outputs_saved_inputs_and_needs_input_grad(ext):
    a, b = _x(4, seed=1), _x(4, seed=2)
    p, s = ext.mul_add(a, b)
    (p * 2 + s * 3).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), 2 * b.detach().numpy() + 3)
    np.testing.assert_allclose(b.grad.numpy(), 2 * a.detach().numpy() + 3)
    assert sdk.autograd.gradcheck(lambda u, v: ext.mul_add(u, v), (_x(3, seed=3), _x(3, seed=4)))
    # b needs no gradient: backward leaves it undefined (needs_input_grad(1) is false)
    c = sdk.tensor([1.0, 2.0], dtype=sdk.float64)
    a2 = _x(2, seed=5)
    ext.mul_add(a2, c)[0].sum().backward()
    np.testing.assert_allclose(a2.grad.numpy(), [1.0, 2.0])
    assert c.grad is None


def test_saved_output_and_graph_is_freed(ext):
    x = _x(5)
    y = ext.exp_fn(x)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.exp(x.detach().numpy()))
    y2 = ext.exp_fn(x)
    node = weakref.ref(y2.grad_fn)
    del y2
    gc.collect()
    assert node() is None  # no cycle through the saved output


def test_non_differentiable_output_and_materialize(ext):
    for materialize, extra in ((True, 0.0), (False, 100.0)):
        x = _x(3)
        out, aux = ext.with_aux(x, materialize)
        assert out.requires_grad and not aux.requires_grad
        out.sum().backward()
        np.testing.assert_allclose(x.grad.numpy(), np.full(3, 3.0 + extra))


def test_backward_errors_are_python_exceptions(ext):
    with pytest.raises(RuntimeError, match="backward refused on purpose"):
        ext.faulty(_x(2), 0).sum().backward()
    with pytest.raises(RuntimeError, match="incorrect number of gradients"):
        ext.faulty(_x(2), 1).sum().backward()
    with pytest.raises(RuntimeError, match="not a Tensor"):
        ext.faulty(_x(2), 2).sum().backward()
    x = _x(2)
    base = x * 1  # a non-leaf we can modify in place
    y = ext.faulty(base, 3)
    with sdk.no_grad():
        base.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()
    with pytest.raises(RuntimeError, match="invalid gradient|shape"):
        ext.faulty(_x(2, 2), 4).sum().backward()


def test_state_seen_from_cpp(ext):
    x = _x(2)
    assert ext.info(x) == (True, True, False)
    (x * 2).sum().backward()
    assert ext.info(x) == (True, True, True)
    np.testing.assert_allclose(ext.grad_of(x).numpy(), [2.0, 2.0])
    y = x * 3
    assert ext.info(y)[:2] == (True, False)
    plain = sdk.ones(2)
    assert ext.info(plain) == (False, True, False)
    d = x.detach()  # shares x's view: must not look like x to C++
    assert ext.info(d) == (False, True, False)
    assert ext.info(x)[0] is True
    assert not ext.detached(x).requires_grad


def test_identity_and_history_survive_the_round_trip(ext):
    x = _x(3)
    assert ext.same(x) is x
    y = x * 2
    z = ext.same(y)
    assert z is y and z.grad_fn is y.grad_fn
    w = ext.mul_const(x, 1.0)
    back = ext.same(w)
    assert back is w


def test_grad_mode_is_shared(ext):
    assert ext.grad_mode() is True
    with sdk.no_grad():
        assert ext.grad_mode() is False
        assert not ext.mul_const(_x(2), 2.0).requires_grad
    assert not ext.mul_const_no_grad(_x(2)).requires_grad
    assert ext.grad_mode() is True


def test_leaf_made_and_kept_in_cpp(ext):
    w = ext.make_weight(3)
    assert w.requires_grad and w.is_leaf
    del w
    gc.collect()  # only C++ holds the weight now: its state lives on its view
    assert ext.weight_state()[:2] == (True, True)
    x = sdk.tensor([1.0, 2.0, 3.0], dtype=sdk.float64, requires_grad=True)
    ext.scale_by_weight(x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 2.0, 2.0])
    gc.collect()
    rg, leaf, g = ext.weight_state()
    assert rg and leaf
    np.testing.assert_allclose(g.numpy(), [1.0, 2.0, 3.0])
    # the same C++ tensor handed to Python again carries its grad
    w = ext.make_weight(3)
    assert w.grad is None  # a new weight
    ext.drop_weight()


def test_set_requires_grad_from_cpp(ext):
    x = sdk.ones(2, dtype=sdk.float64)
    ext.set_rg(x, True)
    assert x.requires_grad
    ext.set_rg(x, False)
    assert not x.requires_grad
    with pytest.raises(RuntimeError, match="floating point|float"):
        ext.set_rg(sdk.ones(2, dtype=sdk.int64), True)
    y = _x(2) * 2
    with pytest.raises(RuntimeError, match="leaf"):
        ext.set_rg(y, False)


def test_registered_op_autograd_kernel(ext):
    op = getattr(sdk.ops, ext.ns).myscale
    x = _x(2, 3)
    y = op(x, 4.0)
    assert y.requires_grad
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.full((2, 3), 4.0))
    assert sdk.autograd.gradcheck(lambda t: op(t, -0.5), (_x(3),))
    # without grad the device kernel runs directly
    assert not op(sdk.ones(2), 2.0).requires_grad


C_SOURCE = r"""
/* y = x * s recorded from plain C through the C ABI, exported through the ctypes bridge */
#include <stdlib.h>
#include <sdk/export.h>

typedef struct { double s; } ScaleCtx;
static int g_live = 0;  /* contexts not yet freed */

static void scale_free(void* p) { free(p); --g_live; }

static sdk_status scale_backward(void* p, sdk_values* v) {
  sdk_tensor* g = NULL;
  sdk_tensor* r = NULL;
  sdk_scalar s = {((ScaleCtx*)p)->s, 0, SDK_SCALAR_FLOAT, 0};
  sdk_status st = sdk_values_take_tensor(v, 0, &g);
  if (st == SDK_OK && g) st = sdk_binary_scalar(SDK_MUL, g, s, 0, NULL, &r);
  sdk_tensor_release(g);
  if (st != SDK_OK) return st;
  sdk_values_clear(v);
  st = r ? sdk_values_push_tensor_steal(v, r) : sdk_values_push_none(v);
  return st == SDK_OK ? sdk_values_push_none(v) : st;  /* none for the float argument */
}

SDK_EXPORT(c_scale, "(Tensor x, float s) -> Tensor")
sdk_status c_scale(const sdk_tensor* x, double s, sdk_tensor** result) {
  sdk_scalar sc = {s, 0, SDK_SCALAR_FLOAT, 0};
  sdk_status st = sdk_binary_scalar(SDK_MUL, x, sc, 0, NULL, result);
  if (st != SDK_OK || !sdk_grad_mode_is_enabled() || !sdk_tensor_requires_grad(x)) return st;
  ScaleCtx* ctx = (ScaleCtx*)malloc(sizeof(ScaleCtx));
  ctx->s = s;
  ++g_live;
  sdk_tensor* ins[2] = {(sdk_tensor*)x, NULL};
  st = sdk_autograd_record("CScale", ins, 2, result, 1, 0, scale_backward, ctx, scale_free);
  if (st != SDK_OK) sdk_tensor_release(*result);
  return st;
}

SDK_EXPORT(c_live_contexts, "() -> Tensor")
sdk_status c_live_contexts(sdk_tensor** result) {
  sdk_scalar n = {0.0, g_live, SDK_SCALAR_INT, 0};
  sdk_device cpu = {SDK_CPU, 0};
  return sdk_full(0, NULL, n, SDK_INT64, cpu, result);
}

SDK_EXPORT(c_record_input_as_output, "(Tensor x) -> Tensor")
sdk_status c_record_input_as_output(const sdk_tensor* x, sdk_tensor** result) {
  sdk_tensor* t = (sdk_tensor*)x;
  ScaleCtx* ctx = (ScaleCtx*)malloc(sizeof(ScaleCtx));
  ++g_live;
  sdk_status st = sdk_autograd_record("Bad", &t, 1, &t, 1, 0, scale_backward, ctx, scale_free);
  if (st != SDK_OK) return st;
  sdk_tensor_retain(t);
  *result = t;
  return SDK_OK;
}
"""


@pytest.fixture(scope="module")
def c_ext(tmp_path_factory):
    mp = pytest.MonkeyPatch()
    mp.setenv("SDK_EXTENSIONS_DIR", str(tmp_path_factory.mktemp("cache")))
    src = tmp_path_factory.mktemp("csrc") / "c_scale.c"
    src.write_text(C_SOURCE)
    from cpp_extension import load

    m = load("c_autograd_" + uuid.uuid4().hex[:8], [str(src)], is_python_module=False)
    mp.undo()
    return m


def test_pure_c_records_through_the_ctypes_bridge(c_ext):
    base = c_ext.c_live_contexts().item()
    x = _x(4)
    y = c_ext.c_scale(x, 3.0)
    assert y.requires_grad and y.grad_fn.name() == "CScaleBackward"
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.full(4, 3.0))
    assert c_ext.c_live_contexts().item() == base + 1
    del y
    gc.collect()
    assert c_ext.c_live_contexts().item() == base  # the node freed its context
    assert not c_ext.c_scale(sdk.ones(2), 3.0).requires_grad  # nothing to record
    assert sdk.autograd.gradcheck(lambda t: c_ext.c_scale(t, 0.5), (_x(3),))
    with pytest.raises(ValueError, match="output 0 is input 0"):
        c_ext.c_record_input_as_output(_x(2))
    assert c_ext.c_live_contexts().item() == base  # freed on failure too
