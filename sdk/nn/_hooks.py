"""Module.__call__ when hooks are registered: forward pre/post hooks, and full backward
(pre) hooks through identity autograd nodes placed on the module's inputs and outputs."""

from __future__ import annotations

from typing import Any

from sdk import _C
from sdk.autograd import Function

_TensorBase = _C.TensorBase


class _Identity(Function):
    """Passes tensors through; in backward hands their gradients to `on_grads`, which may
    replace them."""

    @staticmethod
    def forward(ctx: Any, on_grads: Any, *tensors: Any) -> Any:
        ctx.on_grads = on_grads
        out = tuple(_C._alias(t) for t in tensors)
        return out if len(out) > 1 else out[0]

    @staticmethod
    def backward(ctx: Any, *grads: Any) -> Any:
        return (None, *ctx.on_grads(grads))


class _BackwardHooks:
    """The gradients of one call of a module, between its output and input nodes."""

    def __init__(self, module: Any) -> None:
        self.module = module
        self.grad_output: tuple = ()
        self.n_inputs = 0
        self.inputs_wrapped = False

    def wrap_inputs(self, args: tuple) -> tuple:
        positions = [i for i, a in enumerate(args) if isinstance(a, _TensorBase)]
        self.n_inputs = len(positions)
        if not any(args[i].requires_grad for i in positions):
            return args
        self.inputs_wrapped = True
        new = _Identity.apply(self.on_input_grads, *(args[i] for i in positions))
        new = new if isinstance(new, tuple) else (new,)
        out = list(args)
        for i, t in zip(positions, new):
            out[i] = t
        return tuple(out)

    def wrap_outputs(self, output: Any) -> Any:
        single = isinstance(output, _TensorBase)
        outs = (output,) if single else output
        if not isinstance(outs, tuple) or not all(isinstance(o, _TensorBase) for o in outs):
            return output  # torch also only hooks tensors and tuples of tensors
        if not any(o.requires_grad for o in outs):
            return output
        new = _Identity.apply(self.on_output_grads, *outs)
        return new if single or isinstance(new, tuple) else (new,)

    def on_output_grads(self, grads: tuple) -> tuple:
        for (hook,) in _table(self.module, "_backward_pre_hooks"):
            r = hook(self.module, grads)
            if r is not None:
                grads = _as_grads(r, len(grads), "backward pre-hook")
        self.grad_output = grads
        if not self.inputs_wrapped:  # nothing upstream asks for input gradients
            self._run((None,) * self.n_inputs)
        return grads

    def on_input_grads(self, grads: tuple) -> tuple:
        return self._run(grads)

    def _run(self, grad_input: tuple) -> tuple:
        for (hook,) in _table(self.module, "_backward_hooks"):
            r = hook(self.module, grad_input, self.grad_output)
            if r is not None:
                grad_input = _as_grads(r, len(grad_input), "backward hook")
        return grad_input


def _as_grads(r: Any, n: int, what: str) -> tuple:
    if isinstance(r, _TensorBase):
        r = (r,)
    elif isinstance(r, list):
        r = tuple(r)
    if not isinstance(r, tuple) or not all(g is None or isinstance(g, _TensorBase) for g in r):
        raise TypeError(
            f"{what} must return None, a Tensor or a tuple of Tensors/None, got {type(r).__name__}"
        )
    if len(r) != n:
        raise RuntimeError(f"{what} returned {len(r)} gradients, expected {n}")
    return r


def _table(module: Any, name: str) -> list:
    """The hooks in one table (modules unpickled from before hooks existed have none)."""
    return list((module.__dict__.get(name) or {}).values())


def call_with_hooks(module: Any, args: tuple, kwargs: dict) -> Any:
    for hook, with_kwargs in _table(module, "_forward_pre_hooks"):
        if with_kwargs:
            r = hook(module, args, kwargs)
            if r is not None:
                if not (isinstance(r, tuple) and len(r) == 2):
                    raise RuntimeError(
                        "forward pre-hook must return None or a tuple of (new_args, new_kwargs), "
                        f"but got {r}"
                    )
                args, kwargs = r
        else:
            r = hook(module, args)
            if r is not None:
                args = r if isinstance(r, tuple) else (r,)
    backward = None
    if _table(module, "_backward_hooks") or _table(module, "_backward_pre_hooks"):
        backward = _BackwardHooks(module)
        args = backward.wrap_inputs(args)
    try:
        output = module.forward(*args, **kwargs)
    except Exception:
        for hook, with_kwargs, always in _table(module, "_forward_hooks"):
            if always:
                try:
                    hook(module, args, kwargs, None) if with_kwargs else hook(module, args, None)
                except Exception:
                    pass  # the forward's own exception is the one to see
        raise
    for hook, with_kwargs, _ in _table(module, "_forward_hooks"):
        r = hook(module, args, kwargs, output) if with_kwargs else hook(module, args, output)
        if r is not None:
            output = r
    if backward is not None:
        output = backward.wrap_outputs(output)
    return output
