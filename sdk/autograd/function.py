"""User-defined differentiable ops: ``class F(sdk.autograd.Function)`` with static forward/backward.

``F.apply(*args)`` runs ``forward(ctx, *args)`` under no_grad; when grad mode is on and a
tensor argument requires grad, the tensor outputs get a ``<F>Backward`` node whose
backward calls ``F.backward(ctx, *grad_outputs)``. The node *is* the ctx, as in torch.
"""

from __future__ import annotations

import functools
import warnings
from typing import Any, Callable

import sdk
from sdk import _C

from .derivatives import D, _sum_to
from .engine import _SECOND_TIME
from .graph import Node, TensorMeta, _alias, _AutogradMeta, _edge, _is_float

__all__ = ["Function", "FunctionCtx", "BackwardCFunction", "once_differentiable"]

_TensorBase = _C.TensorBase
_NO_EDGE = (None, 0)


class FunctionCtx:
    """What ``forward``/``backward`` see as ``ctx`` (methods shared by the graph node)."""

    __slots__ = ()

    def save_for_backward(self, *tensors: Any) -> None:
        """Keep tensors (or None) for backward; in-place changes to them are detected."""
        for i, t in enumerate(tensors):
            if t is not None and not isinstance(t, _TensorBase):
                raise TypeError(
                    f"save_for_backward can only save tensors or None, got {type(t).__name__} "
                    f"at position {i}; store other values as ctx attributes"
                )
        self._to_save = tensors

    def mark_non_differentiable(self, *tensors: Any) -> None:
        """Outputs that never get a gradient (e.g. indices); backward receives zeros for them."""
        self._non_diff = tuple(tensors)

    def mark_dirty(self, *tensors: Any) -> None:
        """Declare inputs modified in place by forward (accepted for API compatibility)."""
        self._dirty = tuple(tensors)

    def set_materialize_grads(self, value: bool) -> None:
        """With False, backward receives None (not zeros) for outputs without gradient."""
        self._materialize = bool(value)

    @property
    def saved_tensors(self) -> tuple:
        saved = self._saved
        if saved is None:
            if self._released:
                raise RuntimeError(_SECOND_TIME)
            return tuple(self._to_save or ())
        out = []
        for t, v in zip(saved, self._saved_versions):
            if t is not None and t._version != v:
                raise RuntimeError(
                    "one of the tensors needed for gradient computation has been modified by an "
                    f"inplace operation: saved tensor of '{self.name()}' "
                    f"({str(t.dtype).rsplit('.', 1)[-1]}{list(t.shape)}) is at version "
                    f"{t._version}; expected version {v} instead."
                )
            out.append(t)
        return tuple(out)

    @property
    def saved_variables(self) -> tuple:
        """torch's old name of saved_tensors (still in older extensions): the same, warned."""
        warnings.warn(
            "'saved_variables' is deprecated; use 'saved_tensors'", DeprecationWarning, stacklevel=2
        )
        return self.saved_tensors


class BackwardCFunction(Node, FunctionCtx):
    """Graph node of one ``Function.apply`` call; also its ``ctx``."""

    __slots__ = (
        "_fcls",
        "_to_save",
        "_saved",
        "_saved_versions",
        "_non_diff",
        "_dirty",
        "_materialize",
        "_released",
        "_out_meta",
        "needs_input_grad",
        "__dict__",
    )

    def __init__(self, fcls: type) -> None:
        Node.__init__(self, _node_kind(fcls), (), (), {})
        self._fcls = fcls
        self._to_save = None
        self._saved = None
        self._saved_versions = None
        self._non_diff = ()
        self._dirty = ()
        self._materialize = True
        self._released = False
        self._out_meta = None
        self.needs_input_grad = ()

    def _release(self) -> None:
        self._saved = None
        self._to_save = None
        self._released = True


_kinds: dict = {}


def _node_kind(fcls: type) -> D:
    d = _kinds.get(fcls)
    if d is None:
        d = _kinds[fcls] = D(_call_backward)
        d.name = fcls.__name__ + "Backward"
        d.op = fcls.__name__
    return d


def _call_backward(g: Any, ctx: BackwardCFunction) -> tuple:
    """Run the user's backward and validate what it returns against the inputs."""
    name = ctx.name()
    grads = list(g) if ctx._nout is not None else [g]
    if ctx._materialize:
        for i, gi in enumerate(grads):
            if gi is None and ctx._out_meta[i] is not None:  # (None: not a tensor)
                shape, dtype = ctx._out_meta[i]
                grads[i] = sdk.zeros(shape, dtype=dtype)
    res = ctx._fcls.backward(ctx, *grads)
    if not isinstance(res, tuple):
        res = (res,)
    n_in = len(ctx.next_functions)
    if len(res) != n_in:
        if len(res) > n_in and all(r is None for r in res[n_in:]):
            res = res[:n_in]
        else:
            raise RuntimeError(
                f"function {name} returned an incorrect number of gradients "
                f"(expected {n_in}, got {len(res)})"
            )
    out = []
    for i, (r, meta) in enumerate(zip(res, ctx.inputs)):
        if r is None:
            out.append(None)
            continue
        if meta is None:
            raise RuntimeError(
                f"function {name} returned a gradient different than None at position {i + 1}, "
                "but the corresponding forward input was not a Tensor"
            )
        if not isinstance(r, _TensorBase):
            raise TypeError(
                f"function {name} returned a {type(r).__name__} as gradient {i}; expected a Tensor or None"
            )
        if ctx.next_functions[i][0] is None:  # input does not need a gradient
            out.append(None)
            continue
        if r.shape != meta.shape:
            if not _expandable(meta.shape, tuple(r.shape)):
                raise RuntimeError(
                    f"Function {name} returned an invalid gradient at index {i} - got "
                    f"{list(r.shape)} but expected shape compatible with {list(meta.shape)}"
                )
            r = _sum_to(r, meta.shape)
        if r.dtype != meta.dtype:
            r = r.to(meta.dtype)
        out.append(r)
    return tuple(out)


def _expandable(shape: tuple, to: tuple) -> bool:
    """Can `shape` broadcast to `to` (so a gradient of shape `to` sums back to `shape`)?"""
    if len(shape) > len(to):
        return False
    for s, t in zip(reversed(shape), reversed(to)):
        if s != t and s != 1:
            return False
    return True


class Function:
    """Base class of custom autograd ops: define static ``forward`` and ``backward``."""

    @staticmethod
    def forward(ctx: Any, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(
            "You must implement the forward function for custom autograd.Function."
        )

    @staticmethod
    def backward(ctx: Any, *grad_outputs: Any) -> Any:
        raise NotImplementedError(
            "You must implement the backward function for custom autograd.Function."
        )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise RuntimeError(
            f"{type(self).__name__}: autograd Functions are not instantiated; call "
            f"{type(self).__name__}.apply(...)"
        )

    @classmethod
    def apply(cls, *args: Any, **kwargs: Any) -> Any:
        ctx = BackwardCFunction(cls)
        needs = tuple(isinstance(a, _TensorBase) and a._requires_grad for a in args)
        ctx.needs_input_grad = needs
        record = any(needs) and _C.is_grad_enabled()
        prev = _C._set_grad_enabled(False)
        try:
            outputs = cls.forward(ctx, *args, **kwargs)
        finally:
            _C._set_grad_enabled(prev)
        if not record:
            ctx._saved = tuple(ctx._to_save or ())
            ctx._saved_versions = tuple(t._version if t is not None else -1 for t in ctx._saved)
            return outputs
        return _attach(ctx, args, outputs)


def _attach(ctx: BackwardCFunction, args: tuple, outputs: Any) -> Any:
    ctx.next_functions = tuple(
        _edge(a) if isinstance(a, _TensorBase) and a._requires_grad else _NO_EDGE for a in args
    )
    ctx.inputs = tuple(TensorMeta(a) if isinstance(a, _TensorBase) else None for a in args)
    single = not isinstance(outputs, tuple)
    outs = [outputs] if single else list(outputs)
    input_ids = {id(a) for a in args if isinstance(a, _TensorBase)}
    non_diff = {id(t) for t in ctx._non_diff}
    meta = []
    for i, o in enumerate(outs):
        if not isinstance(o, _TensorBase):
            meta.append(None)
            continue
        if id(o) in input_ids:  # an input returned as is: give the output its own object
            o = outs[i] = _alias(o)
        meta.append((tuple(o.shape), o.dtype))
        if id(o) in non_diff or not _is_float(o):
            continue
        o._requires_grad = True
        o.grad_fn = ctx
        if not single:
            o._ag = _AutogradMeta(i) if i else None
    ctx._out_meta = meta
    ctx._nout = None if single else len(outs)
    # Saved outputs would point back at this node: keep history-free aliases instead.
    out_ids = {id(o) for o in outs}
    saved = tuple(
        _alias(t) if t is not None and id(t) in out_ids else t for t in (ctx._to_save or ())
    )
    ctx._saved = saved
    ctx._saved_versions = tuple(t._version if t is not None else -1 for t in saved)
    ctx._to_save = None
    return outs[0] if single else tuple(outs)


class _CompiledFunction:
    """Stands for a Function written in C++ (sdk::autograd::Function<T>) in its graph nodes:
    backward runs the compiled backward recorded with the node."""

    @staticmethod
    def backward(ctx: Any, *grads: Any) -> tuple:
        return _C._run_compiled_backward(ctx._compiled, grads)


_compiled_classes: dict = {}


def _record_compiled(name: str, inputs: tuple, outputs: tuple, flags: int, compiled: Any) -> None:
    """sdk_autograd_record (called by sdk._C): give `outputs` a node named ``<name>Backward``
    whose backward runs `compiled`, when grad mode is on and an input requires grad.

    inputs and outputs hold tensors, or None for arguments without a gradient and for
    results that are not differentiable."""
    needs = tuple(isinstance(a, _TensorBase) and a._requires_grad for a in inputs)
    if not (any(needs) and _C.is_grad_enabled()):
        return
    fcls = _compiled_classes.get(name)
    if fcls is None:
        fcls = _compiled_classes[name] = type(name, (_CompiledFunction,), {})
    ctx = BackwardCFunction(fcls)
    ctx.needs_input_grad = needs
    ctx._compiled = compiled
    ctx._materialize = False  # compiled code gets None and materializes zeros itself
    _attach(ctx, inputs, outputs)


def once_differentiable(fn: Callable) -> Callable:
    """Decorate ``backward``: it runs without recording (its result is not differentiable)."""

    @functools.wraps(fn)
    def wrapper(ctx: Any, *args: Any) -> Any:
        prev = _C._set_grad_enabled(False)
        try:
            return fn(ctx, *args)
        finally:
            _C._set_grad_enabled(prev)

    return wrapper
