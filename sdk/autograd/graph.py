"""The autograd graph: nodes that ops attach with record(), leaf accumulators, hooks, retain_grad.

Ownership (no reference cycles, so graphs die by refcount alone):
output tensor -> grad_fn Node -> input tensors and parent Nodes (edges). A node never
holds its own output: results it needs are kept as detached aliases (same storage and
version counter, no grad_fn). A leaf keeps only a weak reference to its AccumulateGrad
node, which holds the leaf (the graph keeps the accumulator alive, not the leaf).
"""

from __future__ import annotations

import itertools
import weakref
from typing import Any, Callable

from sdk import _C

from .derivatives import DERIVATIVES, D

__all__ = [
    "Node",
    "AccumulateGrad",
    "record",
    "retain_grad",
    "retains_grad",
    "register_hook",
    "set_requires_grad",
    "detach",
    "check_inplace",
    "RemovableHandle",
]

_TensorBase = _C.TensorBase
_NO_EDGE = (None, 0)
_SEQ = (list, tuple)
_handle_ids = itertools.count()


def _alias(t: Any) -> Any:
    """A new tensor object viewing t's storage (shares the version counter), no history."""
    return _C._alias(t)


class TensorMeta:
    """Shape and dtype of an input whose value a formula does not read (kept after release)."""

    __slots__ = ("shape", "dtype", "ndim")

    def __init__(self, t: Any) -> None:
        self.shape = tuple(t.shape)
        self.dtype = t.dtype
        self.ndim = len(self.shape)


class _AutogradMeta:
    """Per-tensor autograd state kept in the tensor's ``_ag`` slot (only when needed)."""

    __slots__ = ("output_nr", "acc", "hooks", "retains_grad", "base", "base_fn")

    def __init__(self, output_nr: int = 0) -> None:
        self.output_nr = output_nr
        self.acc = None  # weakref to the leaf's AccumulateGrad
        self.hooks = None  # leaf hooks: {id: fn}
        self.retains_grad = False
        self.base = None  # for views: the tensor whose storage this one views
        self.base_fn = None  # the base's grad_fn when the view was taken


class RemovableHandle:
    """Returned by register_hook; ``remove()`` unregisters the hook (idempotent)."""

    __slots__ = ("_dict", "id")

    def __init__(self, hooks: dict) -> None:
        self._dict = hooks
        self.id = next(_handle_ids)

    def remove(self) -> None:
        self._dict.pop(self.id, None)

    def __enter__(self) -> RemovableHandle:
        return self

    def __exit__(self, *exc: object) -> None:
        self.remove()


class Node:
    """A backward function of the graph (``tensor.grad_fn``).

    ``next_functions``: one ``(node, input_nr)`` edge per recorded input, ``(None, 0)``
    for inputs that need no gradient.
    """

    __slots__ = (
        "next_functions",
        "inputs",
        "result",
        "attrs",
        "versions",
        "_d",
        "_nout",
        "_pre_hooks",
        "_retains",
        "_post_hooks",
        "__weakref__",
    )

    def __init__(self, d: D, next_functions: tuple, inputs: tuple, attrs: dict) -> None:
        self._d = d
        self.next_functions = next_functions
        self.inputs = inputs
        self.attrs = attrs
        self.result = None
        self.versions = None
        self._nout = None
        self._pre_hooks = None
        self._retains = None
        self._post_hooks = None

    def name(self) -> str:
        return self._d.name

    def needs(self, i: int) -> bool:
        """Does input i want a gradient (has an edge)?"""
        return self.next_functions[i][0] is not None

    def register_hook(self, fn: Callable) -> RemovableHandle:
        """fn(grad_inputs, grad_outputs) runs after this node; may return new grad_inputs."""
        if self._post_hooks is None:
            self._post_hooks = {}
        h = RemovableHandle(self._post_hooks)
        self._post_hooks[h.id] = fn
        return h

    def register_prehook(self, fn: Callable) -> RemovableHandle:
        """fn(grad_outputs) runs before this node; may return new grad_outputs (a tuple)."""
        return _add_pre_hook(self, -1, fn)

    @property
    def metadata(self) -> dict:
        return self.attrs

    def _release(self) -> None:
        """Drop saved values after a backward without retain_graph."""
        d = self._d
        if d.saves or d.result is True or type(d.result) is int:
            self.inputs = None
            self.result = None
        elif self.inputs is not None and type(self.inputs) is tuple:
            # Nothing saved: keep only shapes/dtypes, so a second backward still works.
            self.inputs = tuple(
                [TensorMeta(x) if isinstance(x, _TensorBase) else x for x in self.inputs]
            )

    def __repr__(self) -> str:
        return f"<{self.name()} object at {hex(id(self))}>"


class AccumulateGrad:
    """The node that adds an incoming gradient into a leaf's ``.grad``."""

    __slots__ = ("variable", "next_functions", "_pre_hooks", "_post_hooks", "__weakref__")
    _d = None
    _nout = None
    _retains = None

    def __init__(self, variable: Any) -> None:
        self.variable = variable
        self.next_functions = ()
        self._pre_hooks = None
        self._post_hooks = None

    def name(self) -> str:
        return "torch::autograd::AccumulateGrad"

    def _release(self) -> None:
        pass

    def __repr__(self) -> str:
        return f"<AccumulateGrad object at {hex(id(self))}>"


def _accumulator(x: Any) -> AccumulateGrad:
    """The (unique while alive) AccumulateGrad node of leaf x."""
    m = x._ag
    if m is None:
        m = x._ag = _AutogradMeta()
    else:
        ref = m.acc
        if ref is not None:
            acc = ref()
            if acc is not None:
                return acc
    acc = AccumulateGrad(x)
    m.acc = weakref.ref(acc)
    return acc


def _edge(x: Any) -> tuple:
    fn = x.grad_fn
    if fn is None:
        return (_accumulator(x), 0)
    m = x._ag
    return (fn, m.output_nr if m is not None else 0)


def gradient_edge(x: Any) -> tuple:
    """(node, output_nr) through which gradient reaches tensor x."""
    return _edge(x)


def _is_float(t: Any) -> bool:
    return t.dtype.is_floating_point


def check_inplace(t: Any) -> None:
    """Raise like torch when an in-place op would overwrite a leaf that requires grad.

    Ops should call this BEFORE writing (record() checks again after the fact)."""
    if t._requires_grad and t.grad_fn is None and _C.is_grad_enabled():
        raise RuntimeError(
            "a leaf Variable that requires grad is being used in an in-place operation."
        )


def record(op: str, inputs: tuple, output: Any, **attrs: Any) -> Any:
    """Attach a grad_fn node for `op` to `output` (the hook every differentiable op calls)."""
    d = DERIVATIVES.get(op)
    if d is None:
        _no_derivative(op)
    if len(inputs) == 1 and type(inputs[0]) in _SEQ:  # cat/stack take a sequence
        inputs = tuple(inputs[0])
    edges = []
    add_edge = edges.append
    any_grad = False
    for x in inputs:  # _edge() inlined: this loop runs for every recorded op
        if isinstance(x, _TensorBase) and x._requires_grad:
            fn = x.grad_fn
            if fn is None:
                add_edge((_accumulator(x), 0))
            else:
                m = x._ag
                if m is None:
                    add_edge((fn, 0))
                else:
                    if m.base is not None and m.base.grad_fn is not m.base_fn:
                        _stale_view(op)
                    add_edge((fn, m.output_nr))
            any_grad = True
        else:
            add_edge(_NO_EDGE)
    if not any_grad:
        return output
    inplace = op[-1] == "_"
    if inplace:
        _check_inplace_target(op, output)
        inputs = (_alias(inputs[0]),) + tuple(inputs[1:])
    node = Node(d, tuple(edges), inputs, attrs)
    if d.saves:
        n = len(inputs)
        vs = []
        for i in d.saves:
            x = inputs[i] if i < n else None
            vs.append(x._version if isinstance(x, _TensorBase) else -1)
        node.versions = tuple(vs)
    if d.result is not False:
        _keep_result(node, d.result, output)
    if type(output) is tuple:
        node._nout = len(output)
        for i, o in enumerate(output):
            if isinstance(o, _TensorBase) and _is_float(o):
                o._requires_grad = True
                o.grad_fn = node
                o._ag = _AutogradMeta(i) if i else None
    else:
        output._requires_grad = True
        output.grad_fn = node
        if inplace and output._ag is not None:
            output._ag = None
    if d.view:
        _mark_views(inputs[0], output)
    return output


def _no_derivative(op: str) -> None:
    """NotImplementedError for an op without a row in DERIVATIVES."""
    if op.endswith("_") and op[:-1] in DERIVATIVES:
        raise NotImplementedError(
            f"autograd: the in-place '{op}' on a tensor that requires grad is not "
            f"differentiable here (its input value is overwritten); use the out-of-place "
            f"'{op[:-1]}' instead"
        )
    raise NotImplementedError(
        f"autograd: the derivative of '{op}' is not implemented (see sdk/autograd/derivatives.py)"
    )


def _check_inplace_target(op: str, output: Any) -> None:
    """An in-place op may not write a leaf that requires grad, nor a view of a tensor that
    requires grad (its base's history would need rewriting)."""
    if output.grad_fn is None and output._requires_grad:
        raise RuntimeError(
            "a leaf Variable that requires grad is being used in an in-place operation."
        )
    m = output._ag
    if m is not None and m.base is not None:
        raise NotImplementedError(
            f"autograd: in-place '{op}' on a view of a tensor that requires grad is not "
            "supported (the base tensor's history would need rewriting); clone() the "
            "view first or use an out-of-place op"
        )


def _keep_result(node: Any, keep: Any, output: Any) -> None:
    """Keep what the formula reads of the output (see derivatives.D's `result`): its value
    (version-checked), the outputs' shapes, or one non-differentiable output."""
    if keep == "shapes":
        node.result = tuple(tuple(o.shape) for o in output)
    elif keep is not True and type(output) is tuple:  # an int: that output
        node.result = output[keep]
    else:
        r = node.result = _alias(output)
        node.versions = (node.versions or ()) + (r._version,)


def _mark_views(src: Any, output: Any) -> None:
    """Remember, on each output view, its base and the base's grad_fn at this point."""
    m = src._ag
    base = m.base if m is not None and m.base is not None else src
    base_fn = base.grad_fn
    outs = output if type(output) is tuple else (output,)
    ptr = src.data_ptr()
    for i, o in enumerate(outs):
        if o.grad_fn is None:
            continue
        if len(outs) == 1 and o.data_ptr() != ptr and o.storage_offset() == 0:
            continue  # reshape/flatten that had to copy: not a view
        om = o._ag
        if om is None:
            om = o._ag = _AutogradMeta(i)
        om.base = base
        om.base_fn = base_fn


def _stale_view(op: str) -> None:
    raise RuntimeError(
        f"autograd: '{op}' uses a view whose base tensor was modified by an in-place operation "
        "after the view was taken; its recorded history is stale. Take the view again after "
        "the in-place operation (or clone() it before)."
    )


# --------------------------------------------------------------------------- tensor API


def _add_pre_hook(node: Any, output_nr: int, fn: Callable) -> RemovableHandle:
    if node._pre_hooks is None:
        node._pre_hooks = {}
    h = RemovableHandle(node._pre_hooks)
    node._pre_hooks[h.id] = (output_nr, fn)
    return h


def register_hook(t: Any, fn: Callable) -> RemovableHandle:
    """Run fn(grad) when t's gradient is computed; a non-None return replaces the gradient."""
    if not t._requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    if t.grad_fn is None:
        m = t._ag
        if m is None:
            m = t._ag = _AutogradMeta()
        if m.hooks is None:
            m.hooks = {}
        h = RemovableHandle(m.hooks)
        m.hooks[h.id] = fn
        return h
    node, nr = _edge(t)
    return _add_pre_hook(node, nr, fn)


def retain_grad(t: Any) -> None:
    """Make a non-leaf tensor keep its .grad after backward (a no-op on leaves)."""
    if not t._requires_grad:
        raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
    if t.grad_fn is None:
        return
    node, nr = _edge(t)
    if node._retains is None:
        node._retains = []
    for r_nr, _ in node._retains:
        if r_nr == nr:
            return
    try:
        ref = weakref.ref(t)
    except TypeError:  # tensors without weakref support: a strong ref (freed with the graph)
        ref = (lambda obj: lambda: obj)(t)
    node._retains.append((nr, ref))


def retains_grad(t: Any) -> bool:
    fn = t.grad_fn
    if fn is None or fn._retains is None:
        return False
    nr = _edge(t)[1]
    return any(r_nr == nr for r_nr, _ in fn._retains)


def set_requires_grad(t: Any, requires_grad: bool = True) -> Any:
    """The ``requires_grad`` setter / ``requires_grad_()``: leaves only, floating dtypes only."""
    requires_grad = bool(requires_grad)
    if t.grad_fn is not None:
        if not requires_grad:
            raise RuntimeError(
                "you can only change requires_grad flags of leaf variables. If you want to use "
                "a computed variable in a subgraph that doesn't require differentiation use "
                "var_no_grad = var.detach()."
            )
        return t
    if requires_grad and not _is_float(t):
        raise RuntimeError(
            f"only Tensors of floating point dtype can require gradients (got {t.dtype})"
        )
    t._requires_grad = requires_grad
    return t


def detach(t: Any) -> Any:
    """A new tensor sharing t's storage, cut from the graph (requires_grad=False)."""
    return _alias(t)
