"""sdk.interop.torch: the ops of an SDK library as torch operators, torch.ops.<ns>.<op>.

    import sdk.interop.torch
    sdk.interop.torch.register("muladd_ops")
    y = torch.ops.muladd_ops.mymuladd(a, b, 1.0)     # torch tensors in and out, zero-copy
    torch.compile(model, fullgraph=True)             # fake tensors from the shape function

``register(ns)`` defines each op in torch's dispatcher with the op's own schema (so
``Tensor(a!)`` keeps its meaning) and gives it:
- CPU (and CUDA, where the SDK op has a CUDA kernel) kernels that pass the tensors through
  DLPack both ways, without copying;
- a fake implementation from the op's shape function (sdk.library.register_fake, else its
  C++ Meta kernel), which torch.compile and torch.library.opcheck use;
- autograd from sdk.library.register_autograd: the same setup_context and backward, given
  torch tensors (calls of sdk.ops.<ns>.<op> inside them with torch tensors go to
  torch.ops.<ns>.<op>, so the backward is traced and differentiated by torch too).

The library binary is built against the SDK's C ABI only, never against torch: one build
runs under every torch version that has torch.library's Python registration API. torch is
imported inside the functions, so importing this module does not need it.
"""

from __future__ import annotations

import functools
import re
from typing import Any, Callable

import sdk
from sdk import _C, _op_frameworks
from sdk._ops_meta import MetaTensor
from sdk.library import _AUTOGRAD_FNS, fake_call, has_fake

__all__ = ["register", "registered"]

# ns -> (its torch.library.Library, the names registered); the libraries stay alive here
_REGISTERED: dict[str, tuple[Any, list[str]]] = {}


def registered(ns: str) -> bool:
    """Whether register(ns) ran in this process."""
    return ns in _REGISTERED


def register(ns: str) -> list[str]:
    """Define every op of SDK library `ns` as ``torch.ops.<ns>.<op>`` (see the module's
    doc); returns the qualified names. Calling it again returns the same names; ops the
    library defines later need a call of their own (on another namespace state)."""
    import torch  # lazy: sdk does not depend on torch

    if ns in _REGISTERED:
        return list(_REGISTERED[ns][1])
    names = _C.op_list(ns)
    if not names:
        raise ValueError(
            f"sdk.interop.torch.register: the SDK has no ops in namespace {ns!r} "
            "(import or load the library that defines them first)"
        )
    lib = torch.library.Library(ns, "FRAGMENT")
    _REGISTERED[ns] = (lib, names)
    try:
        for qualname in names:
            try:
                _register_op(torch, lib, _C.op_find(qualname))
            except Exception as e:
                raise RuntimeError(f"sdk.interop.torch.register: {qualname}: {e}") from e
    except Exception:
        del _REGISTERED[ns]
        lib._destroy()
        raise
    return list(names)


def _register_op(torch: Any, lib: Any, handle: Any) -> None:
    qualname = handle.name
    ns, name = qualname.split("::", 1)
    lib.define(handle.schema.split("::", 1)[1])
    kernel = _kernel(torch, handle)
    lib.impl(name, kernel, "CPU")
    if handle._has_kernel(_C.DISPATCH_CUDA):
        lib.impl(name, kernel, "CUDA")
    if has_fake(handle):  # a Python shape function, a C++ Meta kernel, or no results
        torch.library.register_fake(qualname, _fake(torch, handle), lib=lib)
    if qualname in _AUTOGRAD_FNS:
        backward, setup_context = _AUTOGRAD_FNS[qualname]
        torch.library.register_autograd(qualname, backward, setup_context=setup_context, lib=lib)
    elif handle._has_kernel(_C.DISPATCH_AUTOGRAD):
        backward, setup_context = _cpp_autograd(torch, lib, handle)
        torch.library.register_autograd(qualname, backward, setup_context=setup_context, lib=lib)
    packet = getattr(getattr(torch.ops, ns), name.split(".", 1)[0])
    op = getattr(packet, name.split(".", 1)[1]) if "." in name else packet
    _op_frameworks.register_redirect("torch", qualname, op)


def _cpp_autograd(torch: Any, lib: Any, handle: Any) -> tuple[Callable, Callable]:
    """torch autograd for an op whose derivative is a C++ Autograd kernel (sdk/autograd.h).
    The backward is a torch op of its own, ``<op>_sdk_backward`` (the op's arguments, then the
    outputs' gradients; one gradient per tensor argument back): its kernel runs the op again
    under sdk's autograd on the saved inputs and asks sdk's engine for the gradients, and its
    fake gives each gradient its input's shape, so torch.compile traces the backward as one
    opaque call. Ops that mutate an argument or return more than tensors keep the eager-only
    form (_eager_cpp_autograd)."""
    rets_are_tensors = all(r["type"] == "Tensor" for r in handle.returns) and handle.returns
    if any(a["is_write"] for a in handle.arguments) or not rets_are_tensors:
        return _eager_cpp_autograd(torch, handle)
    backward_op = _define_backward_op(torch, lib, handle)
    grad_args = _gradient_arguments(handle)
    n_in = len(handle.arguments)

    def setup_context(ctx: Any, inputs: tuple, output: Any) -> None:
        outs = output if isinstance(output, tuple) else (output,)
        ctx.sdk_values = [None if isinstance(x, torch.Tensor) else x for x in inputs]
        saved = [x if isinstance(x, torch.Tensor) else None for x in inputs]
        ctx.save_for_backward(*saved, *outs)

    def backward(ctx: Any, *grads: Any) -> tuple:
        saved = ctx.saved_tensors
        values = [t if t is not None else v for t, v in zip(saved[:n_in], ctx.sdk_values)]
        outs = saved[n_in:]
        gs = [torch.zeros_like(o) if g is None else g for g, o in zip(grads, outs)]
        found = backward_op(*values, gs)
        result: list = [None] * n_in
        for k, i in enumerate(grad_args):
            if ctx.needs_input_grad[i]:
                result[i] = found[k]
        return tuple(result)

    return backward, setup_context


def _gradient_arguments(handle: Any) -> list[int]:
    """Indices of the arguments that can get a gradient: Tensor and Tensor? ones."""
    return [i for i, a in enumerate(handle.arguments) if a["type"] in ("Tensor", "Tensor?")]


def _define_backward_op(torch: Any, lib: Any, handle: Any) -> Any:
    """Define ``<ns>::<op>_sdk_backward`` in torch (see _cpp_autograd) and return it."""
    ns, name = handle.name.split("::", 1)
    bw_name = name.replace(".", "_") + "_sdk_backward"
    params = ", ".join(f"{_plain_type(a['type'])} {a['name']}" for a in handle.arguments)
    lib.define(f"{bw_name}({params}, Tensor[] sdk_grads) -> Tensor[]")
    grad_args = _gradient_arguments(handle)

    def kernel(*args: Any) -> list:
        *values, grads = args
        needs = [i in grad_args and _differentiable(torch, v) for i, v in enumerate(values)]
        found = _run_sdk_backward(torch, handle, values, grads, needs)
        return [_grad_or_zeros(torch, found[i], values[i]) for i in grad_args]

    def fake(*args: Any) -> list:
        values = args[:-1]
        return [_grad_or_zeros(torch, None, values[i], empty=True) for i in grad_args]

    lib.impl(bw_name, kernel, "CPU")
    if handle._has_kernel(_C.DISPATCH_CUDA):
        lib.impl(bw_name, kernel, "CUDA")
    torch.library.register_fake(f"{ns}::{bw_name}", fake, lib=lib)
    return getattr(getattr(torch.ops, ns), bw_name).default


def _plain_type(schema_type: str) -> str:
    """A schema type without its alias annotation: "Tensor(a)" -> "Tensor"."""
    return re.sub(r"\([^)]*\)", "", schema_type)


def _differentiable(torch: Any, v: Any) -> bool:
    return isinstance(v, torch.Tensor) and v.is_floating_point()


def _grad_or_zeros(torch: Any, g: Any, like: Any, empty: bool = False) -> Any:
    """A gradient for the backward op's Tensor[] result: g, else zeros (or, in the fake, an
    empty tensor) shaped like the argument; a 0-element tensor for a None argument."""
    if g is not None:
        return g
    if not isinstance(like, torch.Tensor):
        return torch.empty(0)
    return torch.empty_like(like) if empty else torch.zeros_like(like)


def _run_sdk_backward(torch: Any, handle: Any, values: list, grads: list, needs: list) -> list:
    """The gradients (torch tensors, or None) of the op's arguments marked in `needs`, from its
    C++ Autograd kernel: the op runs again under sdk's autograd on the (torch) arguments."""
    names = [a["name"] for a in handle.arguments]
    saved = [v if isinstance(v, torch.Tensor) else None for v in values]
    plain = [None if isinstance(v, torch.Tensor) else v for v in values]
    try:
        args, leaves = _sdk_leaves(saved, plain, needs)
        with sdk.enable_grad():
            out = handle._call_key(_C.DISPATCH_AUTOGRAD, **dict(zip(names, args)))
        outs = list(out) if isinstance(out, tuple) else [out]
        g = [_C.import_zero_copy(x.detach().contiguous()) for x in grads]
    except (RuntimeError, TypeError, BufferError) as e:
        raise RuntimeError(
            f"{handle.name}: its derivative is a C++ Autograd kernel, which runs on real "
            f"tensors only ({e})"
        ) from e
    pairs = [(o, gi) for o, gi in zip(outs, g) if o.requires_grad]
    wanted = [x for x in leaves if x is not None]
    if not pairs or not wanted:
        return [None] * len(values)
    found = sdk.autograd.grad([o for o, _ in pairs], wanted, [gi for _, gi in pairs],
                              allow_unused=True)  # fmt: skip
    it = iter(found)
    return [None if x is None else _grad_to_torch(torch, next(it)) for x in leaves]


def _eager_cpp_autograd(torch: Any, handle: Any) -> tuple[Callable, Callable]:
    """torch autograd from a C++ Autograd kernel, for ops _cpp_autograd cannot give a backward
    op: backward runs sdk's engine directly. Eager only: a tracer cannot see into it."""

    def setup_context(ctx: Any, inputs: tuple, output: Any) -> None:
        ctx.sdk_values = [None if isinstance(x, torch.Tensor) else x for x in inputs]
        ctx.save_for_backward(*[x if isinstance(x, torch.Tensor) else None for x in inputs])

    def backward(ctx: Any, *grads: Any) -> tuple:
        saved = ctx.saved_tensors
        values = [t if t is not None else v for t, v in zip(saved, ctx.sdk_values)]
        try:
            return tuple(_run_sdk_backward(torch, handle, values, list(grads),
                                           list(ctx.needs_input_grad)))  # fmt: skip
        except RuntimeError as e:
            raise RuntimeError(
                f"{e}; not under torch.compile's tracing: register a Python formula with "
                "sdk.library.register_autograd to compile it"
            ) from e

    return backward, setup_context


def _sdk_leaves(saved: tuple, values: list, needs: tuple) -> tuple[list, list]:
    """The op's arguments with torch tensors imported into sdk (those needing a gradient as
    sdk leaves that require grad), and the leaves by argument (None where none is needed)."""
    args, leaves = [], []
    for t, v, need in zip(saved, values, needs):
        if t is None:
            args.append(v)
            leaves.append(None)
            continue
        x = _C.import_zero_copy(t.detach())
        if need:
            x = x.detach().requires_grad_(True)
        args.append(x)
        leaves.append(x if need else None)
    return args, leaves


def _grad_to_torch(torch: Any, g: Any) -> Any:
    return None if g is None else torch.from_dlpack(g)


def _argument_plan(handle: Any) -> tuple[list[int], list[str], dict[str, int]]:
    """Positions and names of the tensor arguments, and the write aliases' argument index."""
    positions, names, written = [], [], {}
    for i, a in enumerate(handle.arguments):
        if a["type"].startswith("Tensor"):
            positions.append(i)
            names.append(a["name"])
        if a["is_write"]:
            written[a["alias"]] = i
    return positions, names, written


def _kernel(torch: Any, handle: Any) -> Callable[..., Any]:
    """A torch kernel of the SDK op: torch tensors in and out zero-copy. With torch's DLPack
    C exchange table (torch.Tensor.__dlpack_c_exchange_api__) the conversions happen in C
    (OpHandle._call_exchange); otherwise through DLPack capsules."""
    _, _, written = _argument_plan(handle)
    aliases = tuple(written[r["alias"]] if r["alias"] else -1 for r in handle.returns)
    api = getattr(torch.Tensor, "__dlpack_c_exchange_api__", None)
    if api is not None:
        return functools.partial(handle._call_exchange, api, aliases)
    return _capsule_kernel(torch, handle, aliases)


def _capsule_kernel(torch: Any, handle: Any, aliases: tuple) -> Callable[..., Any]:
    to_capsule, from_capsule = torch._C._to_dlpack, torch._C._from_dlpack
    sdk_from_capsule, sdk_to_capsule = _C.from_dlpack_capsule, _C.to_dlpack
    call = handle._call_below_autograd

    def convert(x: Any, to_sdk: bool) -> Any:
        if isinstance(x, (list, tuple)):
            return [convert(v, to_sdk) for v in x]
        if to_sdk and isinstance(x, torch.Tensor):
            return sdk_from_capsule(to_capsule(x))
        if not to_sdk and isinstance(x, _C.TensorBase):
            return from_capsule(sdk_to_capsule(x, False))
        return x

    def kernel(*args: Any, **kwargs: Any) -> Any:
        out = call(*convert(args, True), **{k: convert(v, True) for k, v in kwargs.items()})
        items = out if isinstance(out, tuple) else (out,)
        back = [
            _original(handle, k, args, kwargs) if k >= 0 else convert(o, False)
            for k, o in zip(aliases, items)
        ]
        return None if not aliases else tuple(back) if isinstance(out, tuple) else back[0]

    return kernel


def _original(handle: Any, index: int, args: tuple, kwargs: dict) -> Any:
    """The caller's tensor for argument `index` (returned as the schema's alias of it)."""
    return args[index] if index < len(args) else kwargs[handle.arguments[index]["name"]]


def _torch_dtype(torch: Any, dtype: Any) -> Any:
    return getattr(torch, str(dtype).rsplit(".", 1)[-1].replace("bool_", "bool"))


def _fake(torch: Any, handle: Any) -> Callable[..., Any]:
    """torch's fake implementation: the SDK shape function on meta copies of the fake
    tensors, its results made fake tensors on the inputs' device."""
    _, names, written = _argument_plan(handle)
    ret_alias = [r["alias"] for r in handle.returns]

    def fake(*args: Any, **kwargs: Any) -> Any:
        result = fake_call(handle, *args, **kwargs)
        device = _first_device(torch, args, kwargs)
        items = list(result) if len(ret_alias) > 1 else [result]
        out = []
        for alias, m in zip(ret_alias, items):
            if alias:
                out.append(_original(handle, written[alias], args, kwargs))
            elif isinstance(m, MetaTensor):
                dtype = _torch_dtype(torch, m.dtype)
                out.append(torch.empty(tuple(m.shape), dtype=dtype, device=device))
            else:
                out.append(m)
        if not ret_alias:
            return None
        return tuple(out) if len(ret_alias) > 1 else out[0]

    return fake


def _first_device(torch: Any, args: tuple, kwargs: dict) -> Any:
    for x in (*args, *kwargs.values()):
        for v in x if isinstance(x, (list, tuple)) else (x,):
            if isinstance(v, torch.Tensor):
                return v.device
    return torch.device("cpu")
