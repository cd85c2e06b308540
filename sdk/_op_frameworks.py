"""Registered ops called with other frameworks' arrays: the caller's type comes back.

sdk._C sends an ``sdk.ops.<ns>.<op>`` call here when a tensor argument is a DLPack producer
other than an sdk tensor or a numpy array (a torch tensor, a jax or CuPy array) or a meta
tensor. The arrays cross zero-copy through DLPack, the op runs on sdk tensors, and its
tensor results go back through DLPack into the caller's framework: torch in, torch out.
Meta tensors run the op's shape function instead. numpy and sdk inputs never come here
(they return sdk tensors). One call takes one framework: mixing raises, naming both.
"""

from __future__ import annotations

from typing import Any, Callable

from sdk import _C
from sdk._ops_meta import MetaTensor
from sdk.library import fake_call

# Frameworks whose arrays sdk hands back in their own type: name -> (sdk tensor -> array).
# An array of any other DLPack producer is taken, and sdk tensors come back.
_RETURNS: dict[str, Callable[[Any], Any]] = {}
# The names by which frameworks' array types are known (the top module of the type).
_ALIASES = {"jaxlib": "jax", "jax": "jax", "torch": "torch", "cupy": "cupy", "numpy": "numpy"}
_NATIVE = ("sdk", "numpy")  # these give sdk tensors, and mix freely


def register_framework(name: str, from_sdk: Callable[[Any], Any]) -> None:
    """Hand results back to callers whose arrays come from framework `name` (the top-level
    module of their type, e.g. "torch") through `from_sdk(sdk_tensor)`."""
    _RETURNS[name] = from_sdk


# (framework, "ns::op") -> the framework's own operator for the op (torch.ops.<ns>.<op> once
# sdk.interop.torch.register(ns) ran): calls with that framework's arrays go to it, so they
# are differentiated and traced by the framework.
_REDIRECTS: dict[tuple[str, str], Callable[..., Any]] = {}


def register_redirect(framework: str, qualname: str, op: Callable[..., Any]) -> None:
    """Send calls of sdk op `qualname` with `framework`'s arrays to `op` (keyword arguments)."""
    _REDIRECTS[(framework, qualname)] = op


def _torch_from_sdk(t: Any) -> Any:
    import torch  # lazy: sdk never depends on torch; its tensors only come from torch

    return torch.from_dlpack(t)


def _jax_from_sdk(t: Any) -> Any:
    import jax.dlpack  # lazy: as above

    return jax.dlpack.from_dlpack(t)


def _cupy_from_sdk(t: Any) -> Any:
    import cupy  # lazy: as above

    return cupy.from_dlpack(t)


register_framework("torch", _torch_from_sdk)
register_framework("jax", _jax_from_sdk)
register_framework("cupy", _cupy_from_sdk)


def framework_of(x: Any) -> str:
    """'sdk', 'meta', 'numpy', 'torch', 'jax', 'cupy' or the top module of x's type."""
    if isinstance(x, _C.TensorBase):
        return "sdk"
    if isinstance(x, MetaTensor):
        return "meta"
    root = type(x).__module__.split(".", 1)[0]
    return _ALIASES.get(root, root)


def _tensors(handle: Any, kwargs: dict) -> list[tuple[str, Any]]:
    """(argument name, array) for every array among the tensor arguments."""
    out = []
    for a in handle.arguments:
        v = kwargs.get(a["name"])
        if v is None or not a["type"].startswith("Tensor"):
            continue
        items = v if isinstance(v, (list, tuple)) else [v]
        out.extend((a["name"], x) for x in items if x is not None)
    return out


def _framework(handle: Any, kwargs: dict) -> str:
    """The one framework of the call's arrays; TypeError naming two that are mixed."""
    seen: dict[str, str] = {}
    for name, x in _tensors(handle, kwargs):
        if isinstance(x, (int, float, complex)):
            continue
        seen.setdefault(framework_of(x), name)
    foreign = [f for f in seen if f not in _NATIVE]
    if len(seen) > 1 and foreign:
        (f1, a1), (f2, a2) = [(f, seen[f]) for f in seen][:2]
        if f1 not in foreign:
            (f1, a1), (f2, a2) = (f2, a2), (f1, a1)
        raise TypeError(
            f"{handle.name}(): argument '{a2}' comes from {f2} but argument '{a1}' from {f1}; "
            f"one op call takes the arrays of one framework (convert one side with "
            f"{f1}.from_dlpack or sdk.from_dlpack first)"
        )
    return foreign[0] if foreign else "sdk"  # e.g. a numpy subclass: sdk tensors back


def _check_torch_grad(handle: Any, kwargs: dict) -> None:
    import torch  # lazy: only reached with torch tensors, so torch is imported already

    if not torch.is_grad_enabled():
        return
    for name, x in _tensors(handle, kwargs):
        if getattr(x, "requires_grad", False):
            ns = handle.name.split("::", 1)[0]
            raise RuntimeError(
                f"{handle.name}(): argument '{name}' is a torch tensor that requires grad, "
                "and sdk.ops does not record torch's autograd; call "
                f"sdk.interop.torch.register('{ns}') and use torch.ops.{ns}."
                f"{handle.name.split('::', 1)[1].split('.')[0]} (or call it under "
                "torch.no_grad())"
            )


def _to_sdk(v: Any) -> Any:
    if isinstance(v, (list, tuple)):
        return type(v)(_to_sdk(x) for x in v)
    if (
        v is None
        or isinstance(v, (int, float, bool, _C.TensorBase))
        or not hasattr(v, "__dlpack__")
    ):
        return v
    if getattr(v, "requires_grad", False):
        v = v.detach()  # grad mode is off here (checked above): no graph to lose
    return _C.import_zero_copy(v)


def _results_back(handle: Any, result: Any, kwargs: dict, back: Callable[[Any], Any]) -> Any:
    """The op's results in the caller's type; a result that is a mutated argument (the
    schema's Tensor(a!) returned) is the caller's own object, as in the caller's framework."""
    rets = handle.returns
    written = {a["alias"]: kwargs.get(a["name"]) for a in handle.arguments if a["is_write"]}
    items = list(result) if isinstance(result, tuple) else [result]
    out = []
    for i, r in enumerate(items):
        alias = rets[i]["alias"] if i < len(rets) else ""
        if alias and written.get(alias) is not None:
            out.append(written[alias])
        elif isinstance(r, _C.TensorBase):
            out.append(back(r))
        elif isinstance(r, list):
            out.append([back(x) if isinstance(x, _C.TensorBase) else x for x in r])
        else:
            out.append(r)
    return tuple(out) if isinstance(result, tuple) else out[0]


def _call(handle: Any, kwargs: dict, key: int, no_hook: bool) -> Any:
    if key >= 0:
        return handle._call_key(key, **kwargs)
    return handle._call_below_autograd(**kwargs) if no_hook else handle(**kwargs)


def call_foreign(handle: Any, kwargs: dict, key: int, no_hook: bool) -> Any:
    """What sdk._C calls for an op call with another framework's arrays (see the top)."""
    fw = _framework(handle, kwargs)
    if fw == "meta":
        return fake_call(handle, **kwargs)
    redirect = _REDIRECTS.get((fw, handle.name)) if key < 0 else None
    if redirect is not None:
        return redirect(**kwargs)
    if fw == "torch":
        _check_torch_grad(handle, kwargs)
    converted = {k: (_to_sdk(v) if _is_tensor_arg(handle, k) else v) for k, v in kwargs.items()}
    result = _call(handle, converted, key, no_hook)
    back = _RETURNS.get(fw)
    return result if back is None else _results_back(handle, result, kwargs, back)


def _is_tensor_arg(handle: Any, name: str) -> bool:
    return any(a["name"] == name and a["type"].startswith("Tensor") for a in handle.arguments)


_C._set_op_foreign_hook(call_foreign)
