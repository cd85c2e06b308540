"""sdk.interop.torch: the ops of an SDK library as torch operators, torch.ops.<ns>.<op>.

    import sdk.interop.torch
    sdk.interop.torch.register("muladd_ops")
    y = torch.ops.muladd_ops.mymuladd(a, b, 1.0)     # torch tensors in and out, zero-copy
    torch.compile(model, fullgraph=True)             # fake tensors from the shape function

``register(ns)`` defines each op in torch's dispatcher with the op's own schema (so
``Tensor(a!)`` keeps its meaning) and gives it:
- CPU (and CUDA, where the SDK op has a CUDA kernel) kernels that pass the tensors through
  DLPack both ways, without copying;
- a fake implementation from the op's shape function (sdk.library.register_fake), which
  torch.compile and torch.library.opcheck use;
- autograd from sdk.library.register_autograd: the same setup_context and backward, given
  torch tensors (calls of sdk.ops.<ns>.<op> inside them with torch tensors go to
  torch.ops.<ns>.<op>, so the backward is traced and differentiated by torch too).

The library binary is built against the SDK's C ABI only, never against torch: one build
runs under every torch version that has torch.library's Python registration API. torch is
imported inside the functions, so importing this module does not need it.
"""

from __future__ import annotations

from typing import Any, Callable

from sdk import _C, _op_frameworks
from sdk._ops_meta import MetaTensor
from sdk.library import _AUTOGRAD_FNS, _FAKE, fake_call

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
            _register_op(torch, lib, _C.op_find(qualname))
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
    if qualname in _FAKE or not handle.returns:
        torch.library.register_fake(qualname, _fake(torch, handle), lib=lib)
    if qualname in _AUTOGRAD_FNS:
        backward, setup_context = _AUTOGRAD_FNS[qualname]
        torch.library.register_autograd(qualname, backward, setup_context=setup_context, lib=lib)
    packet = getattr(getattr(torch.ops, ns), name.split(".", 1)[0])
    op = getattr(packet, name.split(".", 1)[1]) if "." in name else packet
    _op_frameworks.register_redirect("torch", qualname, op)


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
    """A torch kernel of the SDK op: torch tensors in and out through DLPack capsules."""
    to_capsule, from_capsule = torch._C._to_dlpack, torch._C._from_dlpack
    sdk_from_capsule, sdk_to_capsule = _C.from_dlpack_capsule, _C.to_dlpack
    call = handle._call_below_autograd
    positions, names, written = _argument_plan(handle)
    ret_alias = [r["alias"] for r in handle.returns]

    def to_sdk(x: Any) -> Any:
        if x is None:
            return None
        if isinstance(x, (list, tuple)):
            return [to_sdk(v) for v in x]
        return sdk_from_capsule(to_capsule(x))

    def to_torch(x: Any) -> Any:
        if isinstance(x, _C.TensorBase):
            return from_capsule(sdk_to_capsule(x, False))
        if isinstance(x, (list, tuple)):
            return [to_torch(v) for v in x]
        return x

    def kernel(*args: Any, **kwargs: Any) -> Any:
        given = list(args)
        for i in positions:
            if i < len(given):
                given[i] = to_sdk(given[i])
        for n in names:
            if n in kwargs:
                kwargs[n] = to_sdk(kwargs[n])
        out = call(*given, **kwargs)
        if len(ret_alias) == 1:
            alias = ret_alias[0]
            return _original(handle, written[alias], args, kwargs) if alias else to_torch(out)
        if not ret_alias:
            return None
        return tuple(
            _original(handle, written[a], args, kwargs) if a else to_torch(o)
            for a, o in zip(ret_alias, out)
        )

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
