"""Autograd engine behaviour: graph structure, accumulation, retain_graph, versions, hooks, grad mode."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import sdk


def leaf(values, dtype=None):
    return sdk.tensor(
        np.asarray(values, dtype=np.float64), dtype=dtype or sdk.float64, requires_grad=True
    )


# ----------------------------------------------------------------------------- graph structure


def test_leaf_and_non_leaf_flags():
    x = leaf([1.0, 2.0])
    y = x * 2
    assert x.is_leaf and x.requires_grad and x.grad_fn is None
    assert not y.is_leaf and y.requires_grad and y.grad_fn is not None
    z = sdk.ones(2)
    assert z.is_leaf and not z.requires_grad


def test_grad_fn_name_and_next_functions():
    x = leaf([1.0, 2.0])
    w = leaf([3.0, 4.0])
    y = (x * w).exp()
    assert y.grad_fn.name() == "ExpBackward0"
    ((mul_node, nr),) = y.grad_fn.next_functions
    assert mul_node.name() == "MulBackward0" and nr == 0
    (acc_x, _), (acc_w, _) = mul_node.next_functions
    assert acc_x.name().endswith("AccumulateGrad")
    assert acc_x.variable is x and acc_w.variable is w
    # The same leaf gets the same accumulator while the graph lives.
    z = x + 1
    assert z.grad_fn.next_functions[0][0] is acc_x


def test_input_without_grad_has_empty_edge():
    x = leaf([1.0])
    c = sdk.ones(1, dtype=sdk.float64)
    y = x * c
    assert y.grad_fn.next_functions[1] == (None, 0)


def test_multi_output_edges_carry_output_index():
    x = leaf(np.arange(6.0).reshape(2, 3))
    a, b, c = x.unbind(1)
    y = c * 2
    node, nr = y.grad_fn.next_functions[0]
    assert node is c.grad_fn and nr == 2


# ----------------------------------------------------------------------------- accumulation


def test_leaf_used_twice_accumulates():
    x = leaf([1.0, 2.0, 3.0])
    y = x * x + 3 * x
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * np.array([1.0, 2.0, 3.0]) + 3)


def test_grad_accumulates_across_backward_calls():
    x = leaf([1.0, 2.0])
    (x * 2).sum().backward()
    (x * 3).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [5.0, 5.0])


def test_leaf_grads_do_not_alias_each_other():
    a = leaf([1.0, 2.0])
    b = leaf([1.0, 2.0])
    (a + b).sum().backward()
    a.grad.add_(1.0)
    np.testing.assert_allclose(b.grad.numpy(), [1.0, 1.0])


def test_backward_with_gradient_argument_and_shape_check():
    x = leaf([1.0, 2.0, 3.0])
    y = x * 2
    y.backward(sdk.tensor([1.0, 0.5, 0.0], dtype=sdk.float64))
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 1.0, 0.0])
    with pytest.raises(RuntimeError, match="Mismatch in shape"):
        (x * 2).backward(sdk.ones(2, dtype=sdk.float64))


def test_implicit_gradient_only_for_scalars():
    x = leaf([1.0, 2.0])
    with pytest.raises(RuntimeError, match="only for scalar outputs"):
        (x * 2).backward()


def test_backward_on_tensor_without_grad_raises():
    with pytest.raises(RuntimeError, match="does not require grad"):
        sdk.ones(2).sum().backward()


def test_non_leaf_grad_only_with_retain_grad():
    x = leaf([1.0, 2.0])
    y = x * 3
    z = y * y
    y.retain_grad()
    assert y.retains_grad
    w = x * 2
    (z.sum() + w.sum()).backward()
    np.testing.assert_allclose(y.grad.numpy(), 2 * 3 * np.array([1.0, 2.0]))
    assert w.grad is None


# ----------------------------------------------------------------------------- graph freeing


def test_second_backward_without_retain_graph_raises():
    x = leaf([1.0, 2.0])
    y = (x.exp() * x).sum()
    y.backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.backward()


def test_retain_graph_allows_second_backward():
    x = leaf([1.0, 2.0])
    y = (x.exp() * x).sum()
    y.backward(retain_graph=True)
    first = x.grad.numpy().copy()
    y.backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * first)


def test_saved_tensors_dropped_after_backward():
    x = leaf([1.0, 2.0])
    y = x.exp()
    node = y.grad_fn
    y.sum().backward()
    assert node.inputs is None and node.result is None


# ----------------------------------------------------------------------------- version counter


def test_inplace_change_of_saved_input_is_detected():
    x = leaf(np.ones((3, 4)))
    a = x * 1.0
    y = a.exp()
    a.add_(1.0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation") as info:
        y.sum().backward()
    msg = str(info.value)
    assert "'exp'" in msg and "float64[3, 4]" in msg and "expected version" in msg


def test_inplace_change_of_saved_result_is_detected():
    x = leaf([0.5, 1.0])
    y = x.sigmoid()
    y.mul_(2.0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def test_inplace_change_of_unsaved_input_is_fine():
    x = leaf([1.0, 2.0])
    a = x * 1.0
    y = a + 3.0  # add saves nothing
    a.mul_(5.0)
    y.sum().backward()
    # a = x * 1 was then scaled by 5 in place: the in-place mul is part of a's history,
    # but y was computed before it, so d(sum y)/dx = 1.
    np.testing.assert_allclose(x.grad.numpy(), [1.0, 1.0])


def test_inplace_on_leaf_requiring_grad_raises():
    x = leaf([1.0, 2.0])
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        x.add_(1.0)
    with sdk.no_grad():
        x.add_(1.0)  # allowed without recording
    np.testing.assert_allclose(x.detach().numpy(), [2.0, 3.0])


# ----------------------------------------------------------------------------- hooks


def test_hook_on_leaf_can_replace_gradient():
    x = leaf([1.0, 2.0])
    seen = []
    x.register_hook(lambda g: seen.append(g.numpy().copy()))
    h = x.register_hook(lambda g: g * 10)
    (x * 2).sum().backward()
    np.testing.assert_allclose(seen[0], [2.0, 2.0])
    np.testing.assert_allclose(x.grad.numpy(), [20.0, 20.0])
    h.remove()
    x.grad = None
    (x * 2).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 2.0])


def test_hook_on_non_leaf_changes_downstream_gradient():
    x = leaf([1.0, 2.0])
    y = x * 3
    y.register_hook(lambda g: g * 0 + 1)
    (y * y).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [3.0, 3.0])


def test_hook_on_tensor_without_grad_raises():
    with pytest.raises(RuntimeError, match="doesn't require gradient"):
        sdk.ones(2).register_hook(lambda g: g)


def test_hook_sees_total_gradient_of_leaf_used_twice():
    x = leaf([1.0])
    seen = []
    x.register_hook(lambda g: seen.append(float(g.item())))
    (x * 2 + x * 3).sum().backward()
    assert seen == [5.0]


# ----------------------------------------------------------------------------- autograd.grad


def test_autograd_grad_returns_without_accumulating():
    x = leaf([1.0, 2.0])
    w = leaf([3.0, 4.0])
    y = (x * w).sum()
    gx, gw = sdk.autograd.grad(y, [x, w])
    np.testing.assert_allclose(gx.numpy(), [3.0, 4.0])
    np.testing.assert_allclose(gw.numpy(), [1.0, 2.0])
    assert x.grad is None and w.grad is None


def test_autograd_grad_of_intermediate():
    x = leaf([1.0, 2.0])
    h = x * 2
    y = (h * h).sum()
    (gh,) = sdk.autograd.grad(y, h)
    np.testing.assert_allclose(gh.numpy(), [4.0, 8.0])


def test_autograd_grad_allow_unused():
    x = leaf([1.0])
    unused = leaf([2.0])
    y = (x * 2).sum()
    with pytest.raises(RuntimeError, match="allow_unused=True"):
        sdk.autograd.grad(y, [x, unused], retain_graph=True)
    gx, gu = sdk.autograd.grad(y, [x, unused], allow_unused=True)
    assert gu is None
    np.testing.assert_allclose(gx.numpy(), [2.0])


def test_create_graph_gives_second_derivative():
    x = leaf([1.0, 2.0])
    y = (x**3).sum()
    (g,) = sdk.autograd.grad(y, x, create_graph=True)
    np.testing.assert_allclose(g.detach().numpy(), 3 * np.array([1.0, 4.0]))
    g.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 6 * np.array([1.0, 2.0]))


def test_gradgradcheck_on_smooth_function():
    rng = np.random.default_rng(0)
    a = sdk.tensor(rng.standard_normal((2, 3)), requires_grad=True)
    b = sdk.tensor(rng.standard_normal((3,)), requires_grad=True)
    assert sdk.autograd.gradgradcheck(lambda a, b: (a * b).tanh().sum(1), [a, b])


# ----------------------------------------------------------------------------- grad mode


def test_no_grad_context_and_decorator():
    x = leaf([1.0])
    with sdk.no_grad():
        y = x * 2
        assert not sdk.is_grad_enabled()
    assert sdk.is_grad_enabled()
    assert y.grad_fn is None and not y.requires_grad

    @sdk.no_grad()
    def f(t):
        return t * 2

    assert f(x).grad_fn is None
    assert sdk.is_grad_enabled()


def test_enable_grad_inside_no_grad():
    x = leaf([1.0])
    with sdk.no_grad():
        with sdk.enable_grad():
            y = x * 2
        z = x * 2
    assert y.requires_grad and not z.requires_grad


def test_set_grad_enabled_as_function_context_and_decorator():
    x = leaf([1.0])
    with sdk.set_grad_enabled(False):
        assert (x * 2).grad_fn is None
    assert sdk.is_grad_enabled()
    sdk.set_grad_enabled(False)
    try:
        assert not sdk.is_grad_enabled()
    finally:
        sdk.set_grad_enabled(True)

    @sdk.set_grad_enabled(False)
    def g(t):
        return t * 2

    assert sdk.is_grad_enabled()
    assert g(x).grad_fn is None


def test_no_grad_on_generator():
    x = leaf([1.0])

    @sdk.no_grad()
    def gen():
        yield x * 2
        yield x * 3

    outs = list(gen())
    assert all(o.grad_fn is None for o in outs)


def test_grad_mode_is_thread_local():
    seen = []

    def worker():
        seen.append(sdk.is_grad_enabled())

    with sdk.no_grad():
        t = threading.Thread(target=worker)
        t.start()
        t.join()
    assert seen == [True]


# ----------------------------------------------------------------------------- requires_grad, detach


def test_requires_grad_setter_rules():
    x = sdk.ones(2)
    x.requires_grad = True
    assert x.requires_grad
    x.requires_grad_(False)
    assert not x.requires_grad
    with pytest.raises(RuntimeError, match="floating point"):
        sdk.ones(2, dtype=sdk.int64).requires_grad_()
    y = leaf([1.0]) * 2
    with pytest.raises(RuntimeError, match="leaf variables"):
        y.requires_grad = False


def test_detach_shares_storage_and_cuts_graph():
    x = leaf([1.0, 2.0])
    y = x * 2
    d = y.detach()
    assert d.grad_fn is None and not d.requires_grad
    d.add_(1.0)  # shares memory with y
    np.testing.assert_allclose(y.detach().numpy(), [3.0, 5.0])


def test_graph_is_freed_with_output():
    import gc
    import weakref

    x = leaf([1.0, 2.0])
    y = (x.exp() * 2).sum()
    ref = weakref.ref(y.grad_fn)
    del y
    gc.collect()
    assert ref() is None


def test_backward_inputs_restricts_accumulation():
    x = leaf([1.0])
    w = leaf([2.0])
    (x * w).sum().backward(inputs=[w])
    assert x.grad is None
    np.testing.assert_allclose(w.grad.numpy(), [1.0])


def test_node_post_hook_and_prehook():
    x = leaf([1.0, 2.0])
    y = x * 3
    calls = []
    y.grad_fn.register_prehook(lambda grads: calls.append("pre"))
    y.grad_fn.register_hook(lambda gin, gout: calls.append("post"))
    y.sum().backward()
    assert calls == ["pre", "post"]


def test_inplace_through_view_is_refused_not_silently_wrong():
    x = leaf(np.ones((2, 3)))
    y = x * 1.0
    with pytest.raises(NotImplementedError, match="view"):
        y[0].mul_(2.0)
    y2 = x * 1.0
    with pytest.raises(NotImplementedError, match="view"):
        y2.t().add_(1.0)
    # refused before anything is written
    np.testing.assert_array_equal(y.detach().numpy(), np.ones((2, 3)))
    np.testing.assert_array_equal(y2.detach().numpy(), np.ones((2, 3)))


def test_view_used_after_base_modified_in_place_is_refused():
    x = leaf(np.ones((2, 3)))
    y = x * 1.0
    v = y[0]
    y.mul_(2.0)
    with pytest.raises(RuntimeError, match="stale"):
        (v * 1.0).sum()


def test_view_of_leaf_survives_optimizer_style_updates():
    w = leaf(np.ones((2, 3)))
    wt = w.t()
    for _ in range(2):
        (wt * 2).sum().backward()
        with sdk.no_grad():
            w.sub_(w.grad * 0.1)
    np.testing.assert_allclose(w.grad.numpy(), np.full((2, 3), 4.0))
