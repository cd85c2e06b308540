"""Custom autograd Functions: the LLTM pattern through gradcheck, error reporting, ctx features."""

from __future__ import annotations

import numpy as np
import pytest

import sdk
from sdk.autograd import Function, GradcheckError, gradcheck
from sdk.autograd.function import once_differentiable

B, F, S = 3, 17, 5


def d_sigmoid(z):
    s = sdk.sigmoid(z)
    return (1 - s) * s


def d_tanh(z):
    t = sdk.tanh(z)
    return 1 - t * t


def d_elu(z, alpha=1.0):
    e = z.exp()
    neg = (alpha * (e - 1)) < 0
    return (z > 0).to(z.dtype) + neg.to(z.dtype) * (alpha * e)


def lltm_forward(input, weights, bias, old_h, old_cell):
    """The LLTM forward with sdk ops (differentiable when recorded)."""
    X = sdk.cat([old_h, input], dim=1)
    gate_weights = sdk.addmm(bias, X, weights.t())
    gates = gate_weights.chunk(3, dim=1)
    input_gate = sdk.sigmoid(gates[0])
    output_gate = sdk.sigmoid(gates[1])
    candidate_cell = sdk.nn.functional.elu(gates[2], alpha=1.0)
    new_cell = old_cell + candidate_cell * input_gate
    new_h = sdk.tanh(new_cell) * output_gate
    return new_h, new_cell, input_gate, output_gate, candidate_cell, X, gate_weights


class LLTMFunction(Function):
    """Forward with sdk ops under no_grad; explicit backward from the LLTM formulas."""

    wrong_bias_grad = False

    @staticmethod
    def forward(ctx, input, weights, bias, old_h, old_cell):
        assert not sdk.is_grad_enabled()
        new_h, new_cell, ig, og, cc, X, gw = lltm_forward(input, weights, bias, old_h, old_cell)
        ctx.save_for_backward(new_cell, ig, og, cc, X, gw, weights)
        return new_h, new_cell

    @staticmethod
    def backward(ctx, grad_h, grad_cell):
        new_cell, input_gate, output_gate, candidate_cell, X, gate_weights, weights = (
            ctx.saved_tensors
        )
        d_output_gate = sdk.tanh(new_cell) * grad_h
        d_new_cell = d_tanh(new_cell) * (output_gate * grad_h) + grad_cell
        d_old_cell = d_new_cell
        d_candidate_cell = input_gate * d_new_cell
        d_input_gate = candidate_cell * d_new_cell
        gates = gate_weights.chunk(3, dim=1)
        d_gates = sdk.cat(
            [
                d_input_gate * d_sigmoid(gates[0]),
                d_output_gate * d_sigmoid(gates[1]),
                d_candidate_cell * d_elu(gates[2]),
            ],
            dim=1,
        )
        d_weights = d_gates.t().mm(X)
        d_bias = d_gates.sum(dim=0, keepdim=True)
        if LLTMFunction.wrong_bias_grad:
            d_bias = d_bias * 2
        d_X = d_gates.mm(weights)
        d_old_h = d_X[:, :S]
        d_input = d_X[:, S:]
        return d_input, d_weights, d_bias, d_old_h, d_old_cell


def lltm_inputs(seed=0):
    rng = np.random.default_rng(seed)
    shapes = [(B, F), (3 * S, F + S), (1, 3 * S), (B, S), (B, S)]
    return [
        sdk.tensor(rng.standard_normal(s), dtype=sdk.float64, requires_grad=True) for s in shapes
    ]


def test_lltm_function_passes_gradcheck():
    assert gradcheck(LLTMFunction.apply, lltm_inputs(), eps=1e-6, atol=1e-5, rtol=1e-3)


def test_lltm_function_matches_recorded_graph():
    a = lltm_inputs(1)
    b = [x.detach().requires_grad_() for x in a]
    h1, c1 = LLTMFunction.apply(*a)
    (h1.sum() + c1.sum()).backward()
    h2, c2 = lltm_forward(*b)[:2]
    (h2.sum() + c2.sum()).backward()
    sdk.testing.assert_close(h1, h2)
    for x, y in zip(a, b):
        sdk.testing.assert_close(x.grad, y.grad, rtol=1e-7, atol=1e-9)


def test_wrong_backward_fails_gradcheck():
    LLTMFunction.wrong_bias_grad = True
    try:
        assert gradcheck(LLTMFunction.apply, lltm_inputs(), raise_exception=False) is False
        with pytest.raises(GradcheckError, match="input 2") as info:
            gradcheck(LLTMFunction.apply, lltm_inputs())
        assert "numerical" in str(info.value) and "analytical" in str(info.value)
        assert isinstance(info.value, RuntimeError)
    finally:
        LLTMFunction.wrong_bias_grad = False


def test_grad_fn_of_function_output():
    h, c = LLTMFunction.apply(*lltm_inputs())
    assert h.grad_fn is c.grad_fn
    assert h.grad_fn.name() == "LLTMFunctionBackward"
    assert len(h.grad_fn.next_functions) == 5


class Scale(Function):
    @staticmethod
    def forward(ctx, x, factor, mode="mul"):
        ctx.factor = factor
        ctx.mode = mode
        return x * factor

    @staticmethod
    def backward(ctx, g):
        assert ctx.needs_input_grad == (True, False)  # keyword arguments are not inputs
        return g * ctx.factor, None, None


def test_non_tensor_arguments_get_none_gradients():
    x = sdk.tensor([1.0, 2.0], dtype=sdk.float64, requires_grad=True)
    y = Scale.apply(x, 3.0, mode="mul")
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [3.0, 3.0])


class TooFew(Function):
    @staticmethod
    def forward(ctx, x, y):
        return x + y

    @staticmethod
    def backward(ctx, g):
        return g


class BadShape(Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, g):
        return sdk.ones(7, dtype=g.dtype)


class GradForNonTensor(Function):
    @staticmethod
    def forward(ctx, x, k):
        return x * k

    @staticmethod
    def backward(ctx, g):
        return g, g


def test_wrong_number_of_gradients_names_the_function():
    x = sdk.ones(2, dtype=sdk.float64, requires_grad=True)
    with pytest.raises(
        RuntimeError,
        match=r"TooFewBackward returned an incorrect number of gradients \(expected 2, got 1\)",
    ):
        TooFew.apply(x, x).sum().backward()


def test_wrong_gradient_shape_names_the_function():
    x = sdk.ones(2, 3, dtype=sdk.float64, requires_grad=True)
    with pytest.raises(
        RuntimeError, match=r"BadShapeBackward returned an invalid gradient at index 0"
    ):
        BadShape.apply(x).sum().backward()


def test_gradient_for_non_tensor_input_is_refused():
    x = sdk.ones(2, dtype=sdk.float64, requires_grad=True)
    with pytest.raises(RuntimeError, match="not a Tensor"):
        GradForNonTensor.apply(x, 2.0).sum().backward()


class SortLike(Function):
    """Two outputs, the second (indices) non-differentiable."""

    @staticmethod
    def forward(ctx, x):
        values, idx = x.max(0)
        ctx.mark_non_differentiable(idx)
        ctx.save_for_backward(idx)
        ctx.n = x.shape[0]
        return values, idx

    @staticmethod
    @once_differentiable
    def backward(ctx, g_values, g_idx):
        (idx,) = ctx.saved_tensors
        out = sdk.zeros(ctx.n, *g_values.shape, dtype=g_values.dtype)
        out.scatter_add_(0, idx.unsqueeze(0), g_values.unsqueeze(0))
        return out


def test_mark_non_differentiable_and_once_differentiable():
    x = sdk.tensor([[1.0, 5.0], [3.0, 2.0]], dtype=sdk.float64, requires_grad=True)
    values, idx = SortLike.apply(x)
    assert values.requires_grad and not idx.requires_grad
    values.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [[0.0, 1.0], [1.0, 0.0]])


class SaveInput(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return 2 * x * g


def test_function_saved_tensor_version_check():
    x = sdk.ones(2, dtype=sdk.float64, requires_grad=True)
    a = x * 1.0
    y = SaveInput.apply(a)
    a.add_(1.0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def test_function_second_backward_needs_retain_graph():
    x = sdk.ones(2, dtype=sdk.float64, requires_grad=True)
    y = SaveInput.apply(x).sum()
    y.backward()
    with pytest.raises(RuntimeError, match="second time"):
        y.backward()


def test_function_without_grad_inputs_records_nothing():
    x = sdk.ones(2, dtype=sdk.float64)
    y = SaveInput.apply(x)
    assert y.grad_fn is None and not y.requires_grad
    with sdk.no_grad():
        z = SaveInput.apply(x.requires_grad_())
    assert z.grad_fn is None


def test_function_cannot_be_instantiated():
    with pytest.raises(RuntimeError, match="apply"):
        SaveInput()


def test_saved_variables_is_the_old_name_of_saved_tensors():
    seen = []

    class Double(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            with pytest.warns(DeprecationWarning, match="use 'saved_tensors'"):
                (x,) = ctx.saved_variables
            seen.append(x is ctx.saved_tensors[0])
            return grad * 2

    x = sdk.ones(3, requires_grad=True)
    Double.apply(x).sum().backward()
    assert seen == [True] and x.grad.tolist() == [2.0, 2.0, 2.0]


def test_variable_is_a_detached_tensor_as_in_torch():
    from sdk.autograd import Variable

    x = sdk.ones(2, 3)
    v = Variable(x)
    assert v is not x and v.data_ptr() == x.data_ptr() and not v.requires_grad
    assert isinstance(x, Variable) and not isinstance([1], Variable)
    y = sdk.ones(2, requires_grad=True) * 2
    w = Variable(y, requires_grad=True)  # cut from y's graph: a leaf of its own
    assert w.requires_grad and w.grad_fn is None
    (w * 3).sum().backward()
    assert w.grad.tolist() == [3.0, 3.0]
    with pytest.raises(TypeError, match="Variable data has to be a tensor, but got list"):
        Variable([1, 2])
    with pytest.warns(UserWarning, match="volatile was removed"):
        Variable(x, volatile=True)
