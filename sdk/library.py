"""sdk.library: define operators in Python, give them kernels and derivatives, check them
(torch.library's names and signatures).

    @sdk.library.custom_op("mylib::mysin", mutates_args=())
    def mysin(x: sdk.Tensor) -> sdk.Tensor:
        return x.sin()

    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * x.cos()

    mysin.register_autograd(backward, setup_context=lambda ctx, inputs, output: ctx.save_for_backward(*inputs))
    sdk.ops.mylib.mysin(sdk.randn(3, requires_grad=True)).sum().backward()

Ops defined here live in the same registry as C++ ones (SDK_LIBRARY): sdk.ops.<ns>.<name>
calls either kind, C++ reaches Python-defined ops through sdk::Dispatcher, and
register_autograd / register_kernel / opcheck work on both.

Differentiation: when grad mode is on and a tensor argument requires grad, a call goes
through the op's autograd registration (register_autograd). An op without one still runs;
its outputs require grad, and backward through them raises naming the op, as in torch.
Gradients flow to tensor arguments, not to tensors inside list arguments.
"""

from __future__ import annotations

import functools
import inspect
import numbers
import sys
import typing
from collections.abc import Iterable, Sequence
from typing import Any, Callable

import sdk
from sdk import _C
from sdk._ops_meta import MetaTensor, to_meta

__all__ = [
    "Library",
    "custom_op",
    "CustomOpDef",
    "define",
    "impl",
    "register_kernel",
    "register_autograd",
    "register_fake",
    "has_fake",
    "fake_call",
    "infer_schema",
    "opcheck",
]

_KINDS = {"DEF": _C.LIBRARY_DEF, "FRAGMENT": _C.LIBRARY_FRAGMENT, "IMPL": _C.LIBRARY_IMPL}
# dispatch keys by every name they are known by (torch's, and torch.library's device types):
# the core's table (SDK_DISPATCH_KEYS, sdk/dispatch_key.h); "" is the library's own key
_KEYS = {"": -1, **_C.DISPATCH_KEYS}


def _key(name: str) -> int:
    try:
        return _KEYS[name]
    except KeyError:
        raise ValueError(
            f"unknown dispatch key {name!r}; expected one of "
            + ", ".join(repr(k) for k in _KEYS if k)
        ) from None


def _python_kernel(fn: Callable, qualname: str) -> Callable:
    """`fn` as a kernel of op `qualname`: called with the schema's keyword-only arguments by
    name (the core hands over every argument in order), below autograd (its own ops record
    nothing: the op's registration differentiates it)."""
    keyword_names: list[str] | None = None

    def kernel(*args: Any) -> Any:
        nonlocal keyword_names
        if keyword_names is None:
            keyword_names = [a["name"] for a in _C.op_find(qualname).arguments if a["kwarg_only"]]
        k = len(keyword_names)
        positional = args[: len(args) - k] if k else args
        keywords = dict(zip(keyword_names, args[len(args) - k :])) if k else {}
        prev = _C._set_grad_enabled(False)
        try:
            return fn(*positional, **keywords)
        finally:
            _C._set_grad_enabled(prev)

    kernel.__name__ = getattr(fn, "__name__", "kernel")
    kernel.__wrapped__ = fn  # type: ignore[attr-defined]
    return kernel


class Library:
    """A registration scope (torch.library.Library): ``Library("mylib", "DEF")`` owns the
    namespace; "FRAGMENT" adds ops to it; "IMPL" adds kernels (for ``dispatch_key``).
    Registrations last until ``_destroy()`` or until the object is collected."""

    def __init__(self, ns: str, kind: str, dispatch_key: str = "") -> None:
        if kind not in _KINDS:
            raise ValueError(f"Library: kind must be one of {', '.join(_KINDS)}, got {kind!r}")
        frame = sys._getframe(1)
        source = f"{frame.f_code.co_filename}:{frame.f_lineno}"
        self.ns = ns
        self.kind = kind
        self.dispatch_key = dispatch_key
        key = _key(dispatch_key)
        if key == _C.DISPATCH_IGNORED and kind != "IMPL":
            raise ValueError(f"Library: only an IMPL library takes dispatch key {dispatch_key!r}")
        # an IMPL library for a key the SDK never dispatches to (BackendSelect): kernels dropped
        ignored = key == _C.DISPATCH_IGNORED
        self._key = key
        self._fakes: list[str] = []  # shape functions registered as Meta kernels
        self._handle = None if ignored else _C.library_open(_KINDS[kind], ns, key, source)

    def define(self, schema: str, alias_analysis: str = "", *, tags: Any = ()) -> str:
        """Define an op from its schema ("name(Tensor x) -> Tensor"); returns its name."""
        if self._handle is None:
            raise ValueError(f"Library({self.ns!r}, 'IMPL'): an IMPL library cannot define ops")
        _C.library_define(self._handle, schema)
        return schema.split("(", 1)[0].split("::")[-1]

    def impl(
        self,
        op_name: Any,
        fn: Callable,
        dispatch_key: str = "",
        *,
        with_keyset: bool = False,
    ) -> None:
        """Register the Python function `fn` as the kernel of `op_name` for `dispatch_key`
        (default: the library's, or every device in a DEF/FRAGMENT library). A kernel for
        "Meta" is the op's shape function (register_fake), as torch's Meta kernels are."""
        if with_keyset:
            raise NotImplementedError("Library.impl: with_keyset=True is not supported")
        name = op_name if isinstance(op_name, str) else _qualname(op_name)
        key = _key(dispatch_key) if dispatch_key else -1
        if self._handle is None or key == _C.DISPATCH_IGNORED:
            return  # a key the SDK never dispatches to (see _KEYS)
        qualname = name if "::" in name else f"{self.ns}::{name}"
        if (key if key >= 0 else self._key) == _C.DISPATCH_META:  # Python Meta kernel: a fake
            register_fake(qualname, fn)
            self._fakes.append(qualname)
            return
        _C.library_impl(self._handle, name, key, _python_kernel(fn, qualname))

    def _destroy(self) -> None:
        """Remove everything this library registered."""
        for qualname in self._fakes:
            _FAKE.pop(qualname, None)
        self._fakes.clear()
        if self._handle is not None:
            _C.library_close(self._handle)

    def __repr__(self) -> str:
        return f"Library(ns={self.ns!r}, kind={self.kind!r}, dispatch_key={self.dispatch_key!r})"


# Namespaces' FRAGMENT libraries for registrations made without one (kept alive here).
_fragments: dict[str, Library] = {}


def _fragment(ns: str) -> Library:
    lib = _fragments.get(ns)
    if lib is None:
        lib = _fragments[ns] = Library(ns, "FRAGMENT")
    return lib


def _qualname(op: Any) -> str:
    if isinstance(op, str):
        if "::" not in op:
            raise ValueError(f"expected a qualified op name 'namespace::name', got {op!r}")
        return op
    if isinstance(op, CustomOpDef):
        return op._qualname
    if isinstance(op, _C.OpHandle):
        return op.name
    raise TypeError(f"expected an op name, sdk.ops.<ns>.<name> or a custom op, got {op!r}")


def _handle(op: Any) -> Any:
    return op if isinstance(op, _C.OpHandle) else _C.op_find(_qualname(op))


def define(qualname: str, schema: str, *, lib: Library | None = None, tags: Any = ()) -> None:
    """Define op `qualname` ("ns::name") with `schema` ("(Tensor x) -> Tensor")."""
    ns, name = _qualname(qualname).split("::", 1)
    (lib or _fragment(ns)).define(name + schema)


def impl(qualname: Any, types: str | Sequence[str], func: Callable | None = None, *,
         lib: Library | None = None) -> Any:  # fmt: skip
    """Register `func` for device types or dispatch keys `types` ("cpu", "cuda",
    "CompositeImplicitAutograd", ...); usable as a decorator."""

    def register(fn: Callable) -> Callable:
        name = _qualname(qualname)
        library = lib or _fragment(name.split("::", 1)[0])
        for t in [types] if isinstance(types, str) else list(types):
            library.impl(name, fn, t)
        return fn

    return register if func is None else register(func)


def register_kernel(op: Any, device_types: str | Sequence[str] | None, func: Callable | None = None,
                    /, *, lib: Library | None = None) -> Any:  # fmt: skip
    """Register a kernel of `op` for `device_types` ("cpu", "cuda"; None: every device)."""
    types = "CompositeExplicitAutograd" if device_types is None else device_types
    return impl(op, types, func, lib=lib)


# ---- autograd ---------------------------------------------------------------------------------

# qualified op name -> its differentiation (an sdk.autograd.Function subclass)
_AUTOGRAD: dict[str, type] = {}
# qualified op name -> (backward, setup_context) as registered, for the framework bridges
_AUTOGRAD_FNS: dict[str, tuple[Callable, Callable | None]] = {}


def register_autograd(op: Any, backward: Callable, /, *, setup_context: Callable | None = None,
                      lib: Library | None = None) -> None:  # fmt: skip
    """Make `op` differentiable: ``setup_context(ctx, inputs, output)`` saves what backward
    needs; ``backward(ctx, *grads)`` returns one gradient per input of the op (None for
    inputs that are not tensors or need none)."""
    handle = _handle(op)
    names = [a["name"] for a in handle.arguments]
    keyword = [a["kwarg_only"] for a in handle.arguments]
    if any(a["is_write"] for a in handle.arguments):
        raise RuntimeError(
            f"register_autograd: {handle.name} mutates an input ({handle.schema}); "
            "differentiating an op that mutates its inputs is not supported"
        )
    from sdk.autograd import Function  # lazy: sdk.autograd is heavy (numpy)

    def forward(ctx: Any, *args: Any) -> Any:
        positional = [a for a, kw in zip(args, keyword) if not kw]
        kwargs = {n: a for n, a, kw in zip(names, args, keyword) if kw}
        output = handle._call_below_autograd(*positional, **kwargs)
        if setup_context is not None:
            setup_context(ctx, args, output)
        return output

    def backward_(ctx: Any, *grads: Any) -> Any:
        result = backward(ctx, *grads)
        result = result if isinstance(result, tuple) else (result,)
        if len(result) != len(names):
            raise RuntimeError(
                f"the backward registered for {handle.name} returned {len(result)} "
                f"gradient(s), but the op has {len(names)} input(s) ({handle.schema})"
            )
        return result

    cls = type(
        handle.name.replace("::", "_").replace(".", "_"),
        (Function,),
        {"forward": staticmethod(forward), "backward": staticmethod(backward_)},
    )
    _AUTOGRAD[handle.name] = cls
    _AUTOGRAD_FNS[handle.name] = (backward, setup_context)


def _no_formula(name: str) -> type:
    """A Function whose forward is `run()` (the op's call) and whose backward refuses."""
    from sdk.autograd import Function  # lazy: sdk.autograd is heavy (numpy)

    def forward(ctx: Any, run: Any, *tensors: Any) -> Any:
        return run()

    def backward(ctx: Any, *grads: Any) -> Any:
        raise RuntimeError(
            f"Trying to backward through {name} but no autograd formula was registered. "
            "Please use sdk.library.register_autograd to add one."
        )

    return type("NoFormula", (Function,), {"forward": staticmethod(forward),
                                          "backward": staticmethod(backward)})  # fmt: skip


def _autograd_hook(handle: Any, kwargs: dict) -> Any:
    """Called by sdk._C for a call whose tensor arguments require grad (grad mode on)."""
    cls = _AUTOGRAD.get(handle.name)
    if cls is None:
        if handle._has_kernel(_C.DISPATCH_AUTOGRAD):  # a C++ Autograd kernel
            return handle._call_key(_C.DISPATCH_AUTOGRAD, **kwargs)
        tensors = [v for v in kwargs.values() if isinstance(v, _C.TensorBase)]
        if handle._has_kernel(_C.DISPATCH_COMPOSITE_IMPLICIT_AUTOGRAD):
            # a decomposition (torch's catch-all m.def(name, fn) too): it runs with grad mode
            # on, so the C++ autograd Functions it applies record the graph
            out = handle._call_key(_C.DISPATCH_COMPOSITE_IMPLICIT_AUTOGRAD, **kwargs)
            if not _untracked(out):
                return out
            # a C++ kernel of plain sdk ops (which do not record): refuse at backward, as
            # for an op with no formula, rather than return a result with no gradient
            return _no_formula(handle.name).apply(lambda: out, *tensors)
        return _no_formula(handle.name).apply(
            lambda: handle._call_below_autograd(**kwargs), *tensors
        )
    args = []
    for a in handle.arguments:
        if a["name"] in kwargs:
            args.append(kwargs[a["name"]])
        else:  # a default the caller left out: the op fills it in below autograd
            args.append(_Default)
    if _Default in args:
        args = _with_defaults(handle, args)
    return cls.apply(*args)


def _untracked(out: Any) -> bool:
    """Whether an op's result has floating-point tensors and none of them requires grad."""
    flat = out if isinstance(out, (tuple, list)) else (out,)
    floats = [t for t in flat if isinstance(t, _C.TensorBase) and t.dtype.is_floating_point]
    return bool(floats) and not any(t.requires_grad for t in floats)


class _DefaultMarker:
    pass


_Default = _DefaultMarker()


def _with_defaults(handle: Any, args: list) -> list:
    """The arguments with each left-out one replaced by its default value."""
    return [handle._default(i) if v is _Default else v for i, v in enumerate(args)]


_C._set_op_autograd_hook(_autograd_hook)


def register_fake(op: Any, func: Callable | None = None, /, *, lib: Library | None = None,
                  _stacklevel: int = 1) -> Any:  # fmt: skip
    """Register the shape function of `op`: called with the op's arguments, its tensors
    shape-only (on the meta device), it returns tensors of the output shapes and dtypes
    (``lambda a, b: sdk.empty_like(a)``). sdk runs it for meta inputs and for opcheck;
    sdk.interop.torch and sdk.interop.jax hand it to torch.compile and jax.jit."""

    def register(fn: Callable) -> Callable:
        if not callable(fn):
            raise TypeError(f"register_fake: expected a function, got {fn!r}")
        _FAKE[_qualname(op)] = fn
        return fn

    return register if func is None else register(func)


# qualified op name -> its shape function
_FAKE: dict[str, Callable] = {}


def has_fake(op: Any) -> bool:
    """Whether `op` has a shape function: registered, a C++ Meta kernel, or implied (it
    returns nothing)."""
    handle = _handle(op)
    return handle.name in _FAKE or not handle.returns or handle._has_kernel(_C.DISPATCH_META)


def fake_call(op: Any, *args: Any, **kwargs: Any) -> Any:
    """Run the shape function of `op` on shape-only copies of the arguments: every tensor
    argument (an sdk.Tensor, a meta tensor, or anything with .shape and .dtype: numpy,
    torch and jax arrays, jax.ShapeDtypeStruct) becomes a meta tensor. Returns the op's
    results as meta tensors (one, a tuple, or None), checked against the schema. Without a
    Python shape function, the op's C++ Meta kernel runs (SDK_LIBRARY_IMPL(ns, Meta, m))."""
    handle = _handle(op)
    bound = _bind(handle, args, kwargs)
    positional, keywords = [], {}
    for i, a in enumerate(handle.arguments):
        if a["name"] not in bound and not a["has_default"]:
            raise TypeError(f"{handle.name}() missing required argument '{a['name']}'")
        value = bound[a["name"]] if a["name"] in bound else handle._default(i)
        value = to_meta(value, a["type"])
        if a["kwarg_only"]:
            keywords[a["name"]] = value
        else:
            positional.append(value)
    fn = _FAKE.get(handle.name)
    if fn is None and handle._has_kernel(_C.DISPATCH_META):
        # the C++ Meta kernel on core meta tensors; its results come back as MetaTensors
        fn = functools.partial(handle._call_meta, MetaTensor)
    if not handle.returns:
        return None if fn is None else fn(*positional, **keywords)
    if fn is None:
        raise NotImplementedError(
            f"{handle.name}: the op has no shape function, so it cannot run on shape-only "
            "tensors (meta, torch.compile, jax.jit); register one with "
            f"sdk.library.register_fake('{handle.name}')"
        )
    return _check_fake_result(handle, fn(*positional, **keywords))


def _check_fake_result(handle: Any, result: Any) -> Any:
    rets = handle.returns
    items = list(result) if isinstance(result, (tuple, list)) and len(rets) > 1 else [result]
    if len(items) != len(rets):
        raise RuntimeError(
            f"{handle.name}: the shape function returned {len(items)} value(s), but the schema "
            f"has {len(rets)} ({handle.schema})"
        )
    for i, (r, x) in enumerate(zip(rets, items)):
        if r["type"].startswith("Tensor") and not isinstance(x, MetaTensor):
            if x is None and r["optional"]:
                continue
            raise RuntimeError(
                f"{handle.name}: the shape function's result {i} is {type(x).__name__}, not a "
                "tensor on the meta device (build results with sdk.empty_like, "
                "x.new_empty or sdk.empty(..., device='meta'))"
            )
    return tuple(items) if len(rets) > 1 else items[0]


# ---- custom_op ---------------------------------------------------------------------------------


class CustomOpDef:
    """An op defined by custom_op: callable, with register_kernel, register_autograd and
    register_fake, like torch's."""

    def __init__(self, qualname: str, schema: str, fn: Callable, lib: Library) -> None:
        self._qualname = qualname
        self._schema = schema
        self._init_fn = fn
        self._lib = lib
        self.__name__ = qualname.split("::", 1)[1]
        self.__doc__ = fn.__doc__

    @property
    def _opoverload(self) -> Any:
        return _C.op_find(self._qualname)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._opoverload(*args, **kwargs)

    def register_kernel(self, device_types: str | Sequence[str] | None,
                        fn: Callable | None = None, /) -> Any:  # fmt: skip
        return register_kernel(self, device_types, fn, lib=self._lib)

    def register_autograd(self, backward: Callable, /, *,
                          setup_context: Callable | None = None) -> None:  # fmt: skip
        register_autograd(self, backward, setup_context=setup_context)

    def register_fake(self, fn: Callable, /) -> Callable:
        return register_fake(self, fn)

    def __repr__(self) -> str:
        return f"<CustomOpDef({self._qualname}) {self._schema}>"


_CUSTOM_OPS: dict[str, CustomOpDef] = {}


def custom_op(name: str, fn: Callable | None = None, /, *, mutates_args: Any,
              device_types: str | Sequence[str] | None = None,
              schema: str | None = None) -> Any:  # fmt: skip
    """Define op `name` ("ns::name") from a Python function: its schema is inferred from the
    type annotations (or given), and the function becomes its kernel for `device_types`
    (every device when None). ``mutates_args``: names of the tensor arguments it writes,
    or () when none."""

    def inner(fn: Callable) -> CustomOpDef:
        qualname = _qualname(name)
        ns, opname = qualname.split("::", 1)
        text = schema if schema is not None else infer_schema(fn, mutates_args=mutates_args)
        lib = Library(ns, "FRAGMENT")
        lib.define(opname + text)
        op = CustomOpDef(qualname, text, fn, lib)
        register_kernel(op, device_types, fn, lib=lib)
        _CUSTOM_OPS[qualname] = op  # ops live for the process, as torch's
        return op

    return inner if fn is None else inner(fn)


# ---- schema inference --------------------------------------------------------------------------


def _schema_type(hint: Any, where: str) -> str:
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin is typing.Union or (
        origin is not None and str(origin) == "<class 'types.UnionType'>"
    ):
        rest = [a for a in args if a is not type(None)]
        if len(rest) == 1 and len(args) == 2:
            return _schema_type(rest[0], where) + "?"
        if set(rest) <= {int, float, bool}:
            return "Scalar"
    if origin in (list, tuple, Sequence) or origin is typing.Sequence:
        elem = args[0] if args else None
        if origin is tuple and len(args) == 2 and args[1] is Ellipsis:
            elem = args[0]
        inner = _schema_type(elem, where)
        if inner in ("Tensor", "Tensor?", "int", "float", "bool", "SymInt"):
            return inner + "[]"
    simple = {
        sdk.Tensor: "Tensor",
        int: "int",
        float: "float",
        bool: "bool",
        str: "str",
        sdk.dtype: "ScalarType",
        sdk.device: "Device",
        numbers.Number: "Scalar",
    }
    if hint in simple:
        return simple[hint]
    raise ValueError(
        f"infer_schema: {where} has type {hint!r}, which has no schema type (use sdk.Tensor, "
        "int, float, bool, str, sdk.dtype, sdk.device, Optional[...] or list[...] of these)"
    )


def _return_type(hint: Any, fname: str) -> str:
    if hint is None or hint is type(None):
        return "()"
    if typing.get_origin(hint) is tuple:
        return (
            "("
            + ", ".join(_schema_type(a, f"a result of {fname}") for a in typing.get_args(hint))
            + ")"
        )
    return _schema_type(hint, f"the result of {fname}")


def _default_text(value: Any) -> str:
    if value is None or isinstance(value, bool):
        return str(value)
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return '"' + value.replace('"', '\\"') + '"'
    if isinstance(value, (list, tuple)) and all(isinstance(v, (int, float, bool)) for v in value):
        return "[" + ", ".join(_default_text(v) for v in value) + "]"
    if isinstance(value, sdk.dtype):
        return str(value).replace("sdk.", "")
    raise ValueError(f"infer_schema: a default of {value!r} has no schema spelling")


def infer_schema(prototype_function: Callable, /, *, mutates_args: Any,
                 op_name: str | None = None) -> str:  # fmt: skip
    """The schema of a Python function from its annotations: "(Tensor x, float a) -> Tensor"
    (with `op_name` in front when given). Arguments named in `mutates_args` become
    Tensor(aN!); mutates_args="unknown" marks every tensor argument."""
    sig = inspect.signature(prototype_function)
    fname = getattr(prototype_function, "__name__", "the function")
    try:
        hints = typing.get_type_hints(prototype_function)
    except Exception as e:  # an annotation that does not resolve
        raise ValueError(f"infer_schema: cannot read the annotations of {fname}: {e}") from None
    if mutates_args == "unknown":
        mutated = {n for n, p in sig.parameters.items() if hints.get(n) is not None}
    elif isinstance(mutates_args, str) or not isinstance(mutates_args, Iterable):
        raise ValueError("infer_schema: mutates_args must be a collection of names or 'unknown'")
    else:
        mutated = set(mutates_args)
    unknown = mutated - set(sig.parameters)
    if unknown:
        raise ValueError(
            f"infer_schema: mutates_args names {sorted(unknown)}, not arguments of {fname}"
        )
    parts = []
    kw_only = False
    alias = 0
    for name, p in sig.parameters.items():
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            raise ValueError(
                f"infer_schema: {fname} takes *args/**kwargs, which a schema cannot describe"
            )
        if name not in hints:
            raise ValueError(f"infer_schema: argument '{name}' of {fname} has no type annotation")
        if p.kind == p.KEYWORD_ONLY and not kw_only:
            parts.append("*")
            kw_only = True
        t = _schema_type(hints[name], f"argument '{name}' of {fname}")
        if name in mutated and not t.startswith("Tensor"):
            if mutates_args != "unknown":
                raise ValueError(f"infer_schema: '{name}' is in mutates_args but is not a Tensor")
        elif name in mutated:
            t = t.replace("Tensor", f"Tensor(a{alias}!)", 1)
            alias += 1
        text = f"{t} {name}"
        if p.default is not p.empty:
            text += "=" + _default_text(p.default)
        parts.append(text)
    ret = (
        _return_type(hints.get("return", inspect.Signature.empty), fname)
        if "return" in hints
        else None
    )
    if ret is None:
        raise ValueError(f"infer_schema: {fname} has no return annotation (use -> None for none)")
    return f"{op_name or ''}({', '.join(parts)}) -> {ret}"


# ---- opcheck -----------------------------------------------------------------------------------

DEFAULT_TEST_UTILS = (
    "test_schema",
    "test_autograd_registration",
    "test_faketensor",
    "test_aot_dispatch_dynamic",
)


class OpCheckError(Exception):
    """An opcheck test failed."""


def _clone(x: Any) -> Any:
    if isinstance(x, sdk.Tensor):
        c = x.detach().clone()
        c.requires_grad_(x.requires_grad)
        return c
    if isinstance(x, (list, tuple)):
        return type(x)(_clone(v) for v in x)
    return x


def _same(a: Any, b: Any) -> bool:
    import numpy as np

    if isinstance(a, sdk.Tensor):
        if not isinstance(b, sdk.Tensor) or tuple(a.shape) != tuple(b.shape) or a.dtype != b.dtype:
            return False
        x, y = a.detach().cpu().numpy(), b.detach().cpu().numpy()
        return bool(np.array_equal(x, y, equal_nan=x.dtype.kind in "fc"))
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return a == b


def _memory(t: Any) -> tuple[int, int]:
    start = t.data_ptr()
    return start, start + max(t.nbytes, 1)


def _overlaps(a: Any, b: Any) -> bool:
    (s1, e1), (s2, e2) = _memory(a), _memory(b)
    return a.numel() > 0 and b.numel() > 0 and s1 < e2 and s2 < e1


def _test_schema(handle: Any, args: tuple, kwargs: dict) -> None:
    bound = _bind(handle, args, kwargs)
    before = {name: _clone(v) for name, v in bound.items()}
    with sdk.no_grad():
        result = handle(**{n: v for n, v in bound.items()})
    outputs = list(result) if isinstance(result, (tuple, list)) else [result]
    for a in handle.arguments:
        name = a["name"]
        if name not in bound:
            continue
        if not a["is_write"] and not _same(before[name], bound[name]):
            raise OpCheckError(
                f"{handle.name}: argument '{name}' was modified by the op, but the schema "
                f"does not mark it as mutable (write it 'Tensor(a!) {name}'): {handle.schema}"
            )
    rets = handle.returns
    for i, out in enumerate(outputs):
        if not isinstance(out, sdk.Tensor):
            continue
        ret_alias = rets[i]["alias"] if i < len(rets) else ""
        for a in handle.arguments:
            v = bound.get(a["name"])
            if not isinstance(v, sdk.Tensor) or not _overlaps(out, v):
                continue
            if not ret_alias or ret_alias != a["alias"]:
                raise OpCheckError(
                    f"{handle.name}: output {i} shares memory with argument '{a['name']}', but "
                    f"the schema does not say so (annotate both with an alias set, as "
                    f"'Tensor(a) {a['name']}' and '-> Tensor(a)'): {handle.schema}"
                )


def _bind(handle: Any, args: tuple, kwargs: dict) -> dict:
    names = [a["name"] for a in handle.arguments]
    positional = [a["name"] for a in handle.arguments if not a["kwarg_only"]]
    if len(args) > len(positional):
        raise TypeError(f"{handle.name}: too many positional arguments for {handle.schema}")
    bound = dict(zip(positional, args))
    for k, v in kwargs.items():
        if k not in names:
            raise TypeError(f"{handle.name}: unexpected keyword argument {k!r}")
        bound[k] = v
    return bound


def _test_autograd_registration(
    handle: Any, args: tuple, kwargs: dict, atol: Any, rtol: Any
) -> str:
    bound = _bind(handle, args, kwargs)
    floats = [n for n, v in bound.items() if isinstance(v, sdk.Tensor) and v.is_floating_point()]
    if not floats:
        return "SKIPPED: no floating-point tensor argument"
    if handle.name not in _AUTOGRAD:
        # no formula: the op must still run, and backward must refuse with a clear error
        grad_args = {n: (v.detach().clone().requires_grad_(True) if n in floats else v)
                     for n, v in bound.items()}  # fmt: skip
        out = handle(**grad_args)
        first = out[0] if isinstance(out, (tuple, list)) else out
        if isinstance(first, sdk.Tensor) and first.requires_grad:
            try:
                first.sum().backward()
            except RuntimeError as e:
                if "no autograd formula" in str(e):
                    return "SUCCESS (no autograd formula registered: backward refuses)"
                raise
            raise OpCheckError(f"{handle.name}: backward ran without an autograd formula")
        return "SUCCESS (no autograd formula registered)"
    names = [n for n in bound]
    values = [bound[n] for n in names]

    def fn(*xs: Any) -> Any:
        call = dict(zip(names, values))
        for n, x in zip(floats, xs):
            call[n] = x
        return handle(**call)

    def check(dtype: Any, eps: float, tol: float) -> bool:
        import warnings

        inputs = [bound[n].detach().to(dtype).requires_grad_(True) for n in floats]
        with warnings.catch_warnings():  # the precision is chosen here, with matching tolerances
            warnings.simplefilter("ignore", UserWarning)
            return sdk.autograd.gradcheck(fn, inputs, eps=eps, atol=atol or tol, rtol=rtol or tol,
                                          raise_exception=False)  # fmt: skip

    try:
        ok, how = check(sdk.float64, 1e-6, 1e-5), "float64"
    except (RuntimeError, TypeError):  # an op for one dtype only: its own, looser checks
        dtype = bound[floats[0]].dtype
        ok, how = check(dtype, 1e-2, 2e-2), f"{dtype} (the op refuses float64)"
    if not ok:
        raise OpCheckError(
            f"{handle.name}: the gradient from register_autograd does not match finite "
            f"differences (sdk.autograd.gradcheck in {how} failed)"
        )
    return f"SUCCESS (gradcheck in {how})"


def _test_faketensor(handle: Any, args: tuple, kwargs: dict) -> str:
    if not has_fake(handle):
        return "SKIPPED: no shape function registered (sdk.library.register_fake)"
    fake = fake_call(handle, *args, **kwargs)
    with sdk.no_grad():
        real = handle(*_clone(args), **_clone(kwargs))
    fakes = list(fake) if isinstance(fake, tuple) else [fake]
    reals = list(real) if isinstance(real, tuple) else [real]
    for i, (f, r) in enumerate(zip(fakes, reals)):
        if not isinstance(r, sdk.Tensor):
            continue
        if tuple(f.shape) != tuple(r.shape) or f.dtype != r.dtype:
            raise OpCheckError(
                f"{handle.name}: the shape function says output {i} is {list(f.shape)} "
                f"{f.dtype}, but the kernel returned {list(r.shape)} {r.dtype}"
            )
    return "SUCCESS"


def opcheck(op: Any, args: tuple, kwargs: dict | None = None, *,
            test_utils: str | Sequence[str] = DEFAULT_TEST_UTILS,
            raise_exception: bool = True, atol: float | None = None,
            rtol: float | None = None) -> dict[str, str]:  # fmt: skip
    """Check an op against its schema on sample arguments (torch.library.opcheck).

    test_schema: inputs not marked mutable are unchanged, outputs share no memory with
    inputs the schema does not alias. test_autograd_registration: with a registered
    formula, sdk.autograd.gradcheck in float64; without one, backward refuses clearly.
    test_faketensor: the shape function (register_fake) gives the real results' shapes and
    dtypes (skipped when the op has none). test_aot_dispatch_dynamic is skipped (sdk has no
    tracing compiler; torch.library.opcheck runs it after sdk.interop.torch.register). Returns {test: "SUCCESS" | "SKIPPED: ..." | the error}; raises
    OpCheckError for the first failure unless raise_exception is False."""
    handle = _handle(op)
    kwargs = dict(kwargs or {})
    tests = [test_utils] if isinstance(test_utils, str) else list(test_utils)
    results: dict[str, Any] = {}
    for test in tests:
        try:
            if test == "test_schema":
                _test_schema(handle, tuple(args), kwargs)
                results[test] = "SUCCESS"
            elif test == "test_autograd_registration":
                results[test] = _test_autograd_registration(handle, tuple(args), kwargs, atol, rtol)
            elif test == "test_faketensor":
                results[test] = _test_faketensor(handle, tuple(args), kwargs)
            elif test == "test_aot_dispatch_dynamic":
                results[test] = "SKIPPED: sdk has no tracing compiler (see sdk.interop.torch)"
            else:
                raise ValueError(f"opcheck: unknown test {test!r}; expected {DEFAULT_TEST_UTILS}")
        except (OpCheckError, RuntimeError, TypeError, ValueError) as e:
            if isinstance(e, ValueError) and str(e).startswith("opcheck: unknown test"):
                raise
            if raise_exception:
                if isinstance(e, OpCheckError):
                    raise
                raise OpCheckError(f"opcheck({handle.name}) {test} failed: {e}") from e
            results[test] = e
    return results
