"""The derivative table: one entry per differentiable op name, its backward formula and what it saves.

Find an op's derivative by its public (torch) name in ``DERIVATIVES`` below; the formulas
live in derivatives_<family>.py (elementwise, reduce_linalg, shape, struct).

Each entry is ``D(fn, saves=..., result=...)``:

- ``fn(g, n)`` returns one gradient (or None) per entry of ``n.inputs``, in order.
  ``g`` is the gradient of the output (a list with None holes for multi-output ops),
  ``n`` is the graph node: ``n.inputs`` (the operands as recorded: tensors or Python
  scalars), ``n.attrs`` (the op's keyword arguments, normalized), ``n.result`` (see
  below) and ``n.needs(i)`` (does input i want a gradient).
- ``saves``: indices of the inputs whose values the formula reads. Their version
  counter is checked before the formula runs (in-place modification raises). Inputs
  not listed are only used for their shape and dtype.
- ``result``: ``True`` keeps the output's value (version checked too); ``"shapes"``
  keeps the output shapes of a multi-output op; an int keeps that (non-differentiable)
  output, e.g. the indices of ``max(dim)``.

Formulas run under ``no_grad`` (unless ``create_graph=True``, in which case they record
like any user code, which gives higher-order derivatives for free). They use public
sdk ops only, and every result is reduced to the input's shape and dtype with ``_unb``
where broadcasting or type promotion may have happened.
"""

from __future__ import annotations

import math
from typing import Any, Callable

from sdk.autograd import derivatives_elementwise as _ew
from sdk.autograd import derivatives_reduce_linalg as _rl
from sdk.autograd import derivatives_shape as _sh
from sdk.autograd import derivatives_struct as _st
from sdk.autograd import derivatives_util as _u
from sdk.autograd.derivatives_struct import _sum_to, _unb  # noqa: F401  (function.py uses _sum_to)


class D:
    """One derivative: formula, saved inputs, what of the output is kept (see module doc)."""

    __slots__ = ("fn", "saves", "result", "name", "op", "view")

    def __init__(self, fn: Callable, saves: tuple[int, ...] = (), result: Any = False) -> None:
        self.fn = fn
        self.saves = saves
        self.result = result
        self.name = ""  # set from the table key below
        self.op = ""
        self.view = False  # output shares the input's storage (set from VIEW_OPS)


_X = (0,)  # saves the first input
_XY = (0, 1)

DERIVATIVES: dict[str, D] = {
    # arithmetic (broadcasting: _unb sums the gradient back to each input's shape)
    "add": D(_ew._add),
    "sub": D(_ew._sub),
    "rsub": D(_ew._rsub),
    "mul": D(_ew._mul, saves=_XY),
    "div": D(_ew._div, saves=_XY),
    "true_divide": D(_ew._div, saves=_XY),
    "pow": D(_ew._pow, saves=_XY, result=True),
    "neg": D(lambda g, n: (-g,)),
    "maximum": D(lambda g, n: _ew._maximum_like(g, n, True), saves=_XY),
    "minimum": D(lambda g, n: _ew._maximum_like(g, n, False), saves=_XY),
    "atan2": D(_ew._atan2, saves=_XY),
    "remainder": D(_ew._remainder, saves=_XY),
    "floor_divide": D(_ew._not_implemented("floor_divide")),
    "fmod": D(_ew._fmod, saves=_XY),
    "hypot": D(_ew._hypot, saves=_XY, result=True),
    "copysign": D(_ew._copysign, saves=(0,), result=True),
    "logaddexp": D(_ew._logaddexp, saves=_XY, result=True),
    "xlogy": D(_ew._xlogy, saves=_XY),
    "lerp": D(_ew._lerp, saves=(0, 1, 2)),
    "addcmul": D(_ew._addcmul, saves=(1, 2)),
    "addcdiv": D(_ew._addcdiv, saves=(1, 2)),
    "setitem_": D(_ew._setitem_),
    "where": D(_ew._where, saves=(0,)),
    "masked_fill": D(_ew._masked_fill, saves=(1,)),
    "clamp": D(_ew._clamp, saves=(0, 1, 2)),
    "clip": D(_ew._clamp, saves=(0, 1, 2)),
    # unary math
    "exp": D(lambda g, n: (g * n.result,), saves=_X, result=True),
    "log": D(lambda g, n: (g / n.inputs[0],), saves=_X),
    "sqrt": D(lambda g, n: (g / (2 * n.result),), result=True),
    "rsqrt": D(lambda g, n: (g * -0.5 * n.result * n.result * n.result,), result=True),
    "sin": D(lambda g, n: (g * n.inputs[0].cos(),), saves=_X),
    "cos": D(lambda g, n: (g * -n.inputs[0].sin(),), saves=_X),
    "tanh": D(lambda g, n: (g * (1 - n.result * n.result),), result=True),
    "sigmoid": D(lambda g, n: (g * n.result * (1 - n.result),), result=True),
    "relu": D(_ew._relu, result=True),
    "elu": D(_ew._elu, saves=_X),
    "gelu": D(_ew._gelu, saves=_X),
    "abs": D(lambda g, n: (g * n.inputs[0].sign(),), saves=_X),
    "square": D(lambda g, n: (g * 2 * n.inputs[0],), saves=_X),
    "reciprocal": D(lambda g, n: (g * -(n.result * n.result),), result=True),
    "log1p": D(lambda g, n: (g / (n.inputs[0] + 1),), saves=_X),
    "expm1": D(lambda g, n: (g * (n.result + 1),), result=True),
    "erf": D(
        lambda g, n: (g * (2 / math.sqrt(math.pi)) * (-(n.inputs[0] * n.inputs[0])).exp(),),
        saves=_X,
    ),
    "sign": D(lambda g, n: (g * 0,)),
    "floor": D(lambda g, n: (g * 0,)),
    "ceil": D(lambda g, n: (g * 0,)),
    "round": D(lambda g, n: (g * 0,)),
    "trunc": D(lambda g, n: (g * 0,)),
    "frac": D(_sh._pass),
    "tan": D(lambda g, n: (g * (1 + n.result * n.result),), result=True),
    "asin": D(lambda g, n: (g * (1 - n.inputs[0] * n.inputs[0]).rsqrt(),), saves=_X),
    "acos": D(lambda g, n: (-g * (1 - n.inputs[0] * n.inputs[0]).rsqrt(),), saves=_X),
    "atan": D(lambda g, n: (g / (1 + n.inputs[0] * n.inputs[0]),), saves=_X),
    "sinh": D(lambda g, n: (g * n.inputs[0].cosh(),), saves=_X),
    "cosh": D(lambda g, n: (g * n.inputs[0].sinh(),), saves=_X),
    "asinh": D(lambda g, n: (g * (n.inputs[0] * n.inputs[0] + 1).rsqrt(),), saves=_X),
    "acosh": D(lambda g, n: (g * (n.inputs[0] * n.inputs[0] - 1).rsqrt(),), saves=_X),
    "atanh": D(lambda g, n: (g / (1 - n.inputs[0] * n.inputs[0]),), saves=_X),
    "log2": D(lambda g, n: (g / (n.inputs[0] * math.log(2.0)),), saves=_X),
    "log10": D(lambda g, n: (g / (n.inputs[0] * math.log(10.0)),), saves=_X),
    "exp2": D(lambda g, n: (g * n.result * math.log(2.0),), result=True),
    "erfc": D(
        lambda g, n: (g * (-2 / math.sqrt(math.pi)) * (-(n.inputs[0] * n.inputs[0])).exp(),),
        saves=_X,
    ),
    # the special functions (sdk/_ops_special.py): each derivative is the next function
    "lgamma": D(lambda g, n: (g * n.inputs[0].digamma(),), saves=_X),
    "digamma": D(lambda g, n: (g * n.inputs[0].polygamma(1),), saves=_X),
    "polygamma": D(lambda g, n: (g * n.inputs[0].polygamma(n.attrs["n"] + 1),), saves=_X),
    "i0": D(lambda g, n: (g * _ew.i1(n.inputs[0]),), saves=_X),
    "erfinv": D(
        lambda g, n: (g * (math.sqrt(math.pi) / 2) * (n.result * n.result).exp(),), result=True
    ),
    "silu": D(_ew._silu, saves=_X),
    "mish": D(_ew._mish, saves=_X),
    "softplus": D(_ew._softplus, saves=_X),
    "leaky_relu": D(_ew._leaky_relu, saves=_X),
    "hardtanh": D(_ew._hardtanh, saves=_X),
    "nan_to_num": D(lambda g, n: (_u._mask_keep(g, n.inputs[0].isfinite()),), saves=_X),
    # reductions
    "sum": D(_rl._sum),
    "mean": D(_rl._mean),
    "prod": D(_rl._prod, saves=_X),
    "amax": D(_rl._extremum_all, saves=_X, result=True),
    "amin": D(_rl._extremum_all, saves=_X, result=True),
    "max": D(_rl._extremum, saves=_X, result=1),
    "min": D(_rl._extremum, saves=_X, result=1),
    "var": D(lambda g, n: _rl._var_std(g, n, False), saves=_X),
    "std": D(lambda g, n: _rl._var_std(g, n, True), saves=_X, result=True),
    "softmax": D(_rl._softmax, result=True),
    "log_softmax": D(_rl._log_softmax, result=True),
    # linear algebra
    "mm": D(_rl._mm, saves=_XY),
    "addmm": D(_rl._addmm, saves=(1, 2)),
    "layer_norm": D(_rl._layer_norm, saves=_XY),
    "einsum": D(_rl._einsum, saves=tuple(range(32))),
    "convolution": D(_rl._convolution, saves=_XY),
    "bmm": D(_rl._bmm, saves=_XY),
    "matmul": D(_rl._matmul, saves=_XY),
    "mv": D(_rl._mv, saves=_XY),
    "dot": D(_rl._dot, saves=_XY),
    # views and shape
    "view": D(_sh._reshape_back),
    "reshape": D(_sh._reshape_back),
    "flatten": D(_sh._reshape_back),
    "squeeze": D(_sh._reshape_back),
    "unsqueeze": D(_sh._reshape_back),
    "view_as": D(lambda g, n: (g.reshape(_u._shape(n.inputs[0])), None)),
    "reshape_as": D(lambda g, n: (g.reshape(_u._shape(n.inputs[0])), None)),
    "transpose": D(_sh._transpose),
    "swapaxes": D(_sh._transpose),
    "t": D(lambda g, n: (g.t(),)),
    "permute": D(_sh._permute),
    "expand": D(lambda g, n: (_unb(g, n.inputs[0]),)),
    "expand_as": D(lambda g, n: (_unb(g, n.inputs[0]), None)),
    "broadcast_to": D(lambda g, n: (_unb(g, n.inputs[0]),)),
    "contiguous": D(_sh._pass),
    "clone": D(_sh._pass),
    "alias": D(_sh._pass),
    "to": D(_sh._to),
    "type": D(_sh._to),
    "float": D(_sh._to),
    "double": D(_sh._to),
    "half": D(_sh._to),
    "bfloat16": D(_sh._to),
    # slicing, joining, indexing
    "narrow": D(_sh._narrow),
    "select": D(_sh._select),
    "slice": D(_sh._slice),
    "index": D(_sh._index, saves=tuple(range(1, 9))),
    "index_select": D(_sh._index_select, saves=(1, 2)),
    "gather": D(_sh._gather, saves=(1, 2)),
    "cat": D(_sh._cat),
    "concat": D(_sh._cat),
    "concatenate": D(_sh._cat),
    "stack": D(_sh._stack),
    "chunk": D(lambda g, n: _sh._join_pieces(g, n, False), result="shapes"),
    "split": D(lambda g, n: _sh._join_pieces(g, n, False), result="shapes"),
    "split_with_sizes": D(lambda g, n: _sh._join_pieces(g, n, False), result="shapes"),
    "unbind": D(lambda g, n: _sh._join_pieces(g, n, True), result="shapes"),
    # in place (input 0 is self; it now holds the result)
    "add_": D(_ew._add),
    "sub_": D(_ew._sub),
    "mul_": D(_ew._mul_, saves=(1,)),
    "div_": D(_ew._div_, saves=(1,), result=True),
    "neg_": D(lambda g, n: (-g,)),
    "exp_": D(lambda g, n: (g * n.result,), result=True),
    "tanh_": D(lambda g, n: (g * (1 - n.result * n.result),), result=True),
    "sigmoid_": D(lambda g, n: (g * n.result * (1 - n.result),), result=True),
    "relu_": D(_ew._relu, result=True),
    "clamp_": D(_ew._clamp_, result=True),
    "masked_fill_": D(_ew._masked_fill, saves=(1,)),
    "sqrt_": D(lambda g, n: (g / (2 * n.result),), result=True),
    "rsqrt_": D(lambda g, n: (g * -0.5 * n.result * n.result * n.result,), result=True),
    "reciprocal_": D(lambda g, n: (g * -(n.result * n.result),), result=True),
    "expm1_": D(lambda g, n: (g * (n.result + 1),), result=True),
    "sign_": D(lambda g, n: (g * 0,)),
    "floor_": D(lambda g, n: (g * 0,)),
    "ceil_": D(lambda g, n: (g * 0,)),
    "round_": D(lambda g, n: (g * 0,)),
    "index_put_": D(_sh._index_put_, saves=tuple(range(1, 9))),
    "scatter_add_": D(_sh._scatter_add_, saves=(1,)),
    "index_add_": D(_sh._index_add_, saves=(1,)),
    "fill_": D(_sh._fill),
    "zero_": D(_sh._fill),
    "copy_": D(_sh._copy_),
    # sorting, scans, scatter/index and reordering (formulas in derivatives_struct.py)
    "sort": D(_st.by_indices, result=1),
    "topk": D(_st.by_indices, result=1),
    "kthvalue": D(_st.by_indices, result=1),
    "median": D(_st.by_indices, result=1),
    "cummax": D(_st.by_indices, result=1),
    "cummin": D(_st.by_indices, result=1),
    "cumsum": D(_st.cumsum),
    "cumprod": D(_st.cumprod, saves=_X, result=True),
    "scatter": D(_st.scatter, saves=(1,)),
    "scatter_": D(_st.scatter, saves=(1,)),
    "scatter_reduce": D(_st.scatter_reduce, saves=(0, 1, 2), result=True),
    "index_copy": D(_st.index_copy, saves=(1,)),
    "index_copy_": D(_st.index_copy, saves=(1,)),
    "index_fill": D(_st.index_fill, saves=(1,)),
    "index_fill_": D(_st.index_fill, saves=(1,)),
    "masked_select": D(_st.masked_select, saves=(1,)),
    "masked_scatter": D(_st.masked_scatter, saves=(1,)),
    "masked_scatter_": D(_st.masked_scatter, saves=(1,)),
    "take": D(_st.take, saves=(1,)),
    "flip": D(_st.flip),
    "roll": D(_st.roll),
    "tril": D(_st.tril),
    "triu": D(_st.triu),
    "tril_": D(_st.tril),
    "triu_": D(_st.triu),
    "diagonal": D(_st.diagonal),
    "unfold": D(_st.unfold),
    "diag_embed": D(_st.diag_embed),
    "repeat_interleave": D(_st.repeat_interleave, saves=(1,)),
    "as_strided": D(_st.as_strided),
}

# Ops whose output is a view of input 0: autograd refuses in-place writes through such a
# view, and uses of a view after its base was modified in place (both would need the
# base's history rewritten, which this engine does not do).
VIEW_OPS = {
    "view", "reshape", "flatten", "squeeze", "unsqueeze", "view_as", "reshape_as", "transpose",
    "swapaxes", "t", "permute", "expand", "expand_as", "broadcast_to", "alias", "narrow",
    "select", "slice", "chunk", "split", "split_with_sizes", "unbind", "diagonal", "unfold",
    "as_strided",
}  # fmt: skip

for _name, _d in DERIVATIVES.items():
    _d.view = _name in VIEW_OPS
    _d.op = _name
    _d.name = "".join(p.capitalize() for p in _name.strip("_").split("_")) + "Backward0"
