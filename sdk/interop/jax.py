"""sdk.interop.jax: an SDK library's ops as JAX functions, under jax.jit, jax.grad and jax.vmap.

    import sdk.interop.jax
    ops = sdk.interop.jax.register("muladd_ops")
    jax.jit(jax.grad(lambda a, b: ops.mymuladd(a, b, 1.0).sum()))(a, b)

- ``jax.jit``: every op lowers to a custom call of ONE XLA FFI handler that sdk provides for
  all ops (sdk/interop/csrc/xla_ffi.cpp, built once per jaxlib against ``jax.ffi.include_dir()``
  with cpp_extension and kept in its cache). It wraps XLA's buffers as sdk tensors without
  copying and calls the op by name through the C ABI's boxed call (sdk_op_call). Output shapes
  and dtypes come from the op's shape function (sdk.library.register_fake), or from
  ``register(ns, shapes={...})``.
- ``jax.grad``: a jax.custom_vjp whose backward runs the op's registered derivative
  (sdk.library.register_autograd, or a C++ Autograd kernel) on the host through sdk.autograd.
- ``jax.vmap``: one call per batch element (vmap_method="sequential"); an op named in
  ``register(ns, broadcasting=[...])`` takes the whole batch in one call ("broadcast_all").
- Outside jit (concrete arrays) a call goes through DLPack, without copying.

jax is imported here only: ``import sdk`` never needs it.
"""

from __future__ import annotations

import re
import threading
import warnings
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Callable, NamedTuple

import sdk
import sdk.library
from sdk import _C
from sdk._dtype import as_dtype
from sdk._op_frameworks import register_redirect

__all__ = ["register", "build_handler", "JaxOps", "JaxOp", "TARGET"]

# The name of the one FFI target, registered with jax for the CPU platform.
TARGET = "sdk_op_call"
_SOURCE = Path(__file__).resolve().parent / "csrc" / "xla_ffi.cpp"
_lock = threading.Lock()
_registered = False
_handler_path: str | None = None

# Schema base types by how the FFI plan carries them (see xla_ffi.cpp's header).
_INT_TYPES = {"int", "SymInt", "Layout", "MemoryFormat"}
# how errors name the memory of jax arrays, which ops must not write (jax arrays are immutable)
_READ_ONLY_OWNER = "a jax array (jax arrays are immutable)"
# custom_vjp functions kept per op (one per distinct set of static arguments)
_MAX_VJPS = 256
_TYPE = re.compile(r"^(\w+)(\?)?(?:\[(\d*)\])?(\?)?$")


def _jax() -> Any:
    import jax  # lazy: sdk must not need jax

    return jax


def build_handler() -> str:
    """Build the XLA FFI handler for the installed jaxlib (once: it is kept in cpp_extension's
    cache, $SDK_EXTENSIONS_DIR), register it with jax and return its path. jit does this on
    first use; call it ahead (an image's build step) so that the first jit compiles nothing."""
    _ensure_target()
    assert _handler_path is not None
    return _handler_path


def _ensure_target() -> None:
    """Build (once per jaxlib, cached) and register the FFI handler with jax."""
    global _registered, _handler_path
    with _lock:
        if _registered:
            return
        jax = _jax()
        import jaxlib

        import cpp_extension  # lazy: the build tooling sits above sdk (see docs/DESIGN.md)

        version = getattr(jaxlib, "__version__", "unknown")
        with warnings.catch_warnings():
            # jax warns of every fork once it runs threads; the build's subprocesses exec at once
            warnings.filterwarnings("ignore", "os.fork", RuntimeWarning)
            ext = _build(cpp_extension, jax.ffi.include_dir(), version)
        handler = jax.ffi.pycapsule(ext._lib.sdk_xla_ffi_call)
        jax.ffi.register_ffi_target(TARGET, handler, platform="cpu")
        _handler_path = ext.__file__
        _registered = True


def _build(cpp_extension: Any, include_dir: str, version: str) -> Any:
    """The handler's shared object, from cpp_extension's cache (built on first use)."""
    return cpp_extension.load(
        "sdk_xla_ffi",
        [str(_SOURCE)],
        # -isystem: the FFI headers do not build warning-free under the SDK's flags;
        # the version define puts jaxlib in the cache key (its headers define the ABI)
        extra_cflags=["-isystem", include_dir, f'-DSDK_JAXLIB_VERSION="{version}"'],
        is_python_module=False,
    )


# ---- schema -------------------------------------------------------------------------------------


class _Arg:
    """One schema argument: name, how it crosses (tensor, tensors or static), its base type."""

    __slots__ = ("name", "type", "base", "optional", "is_list", "list_size", "kwarg_only",
                 "is_write", "index")  # fmt: skip

    def __init__(self, info: dict, index: int, op: str) -> None:
        self.name = info["name"]
        self.type = info["type"]
        self.kwarg_only = info["kwarg_only"]
        self.is_write = info["is_write"]
        self.index = index
        m = _TYPE.match(re.sub(r"\([^)]*\)", "", self.type))
        if m is None:
            raise NotImplementedError(f"{op}: argument type {self.type!r} is not supported by jax")
        self.base = m.group(1)
        self.is_list = m.group(3) is not None
        self.list_size = int(m.group(3)) if m.group(3) else -1
        self.optional = bool(m.group(2) or m.group(4)) or info["optional"]

    @property
    def is_tensor(self) -> bool:
        return self.base == "Tensor"


class _Operand(NamedTuple):
    """In a call's statics: the place of a tensor argument, operand `index`."""

    index: int


class _Operands(NamedTuple):
    """In a call's statics: a Tensor[] argument, operands start .. start + count."""

    start: int
    count: int


def _dtype_of(x: Any, where: str) -> Any:
    """The sdk dtype of a jax dtype; TypeError naming `where` when sdk has none."""
    import numpy as np

    name = np.dtype(x).name
    try:
        return as_dtype(name)
    except TypeError:
        raise TypeError(f"{where} has dtype {name}, which sdk ops do not take") from None


def _jax_dtype(d: Any) -> Any:
    """The numpy/ml_dtypes dtype of an sdk dtype (bfloat16 is ml_dtypes')."""
    import jax.numpy as jnp

    return jnp.dtype(d.name)


# ---- the op --------------------------------------------------------------------------------------


class JaxOp:
    """One SDK op over jax arrays (an attribute of what register() returns).

    Called like ``sdk.ops.<ns>.<op>``: the schema's arguments by position or name. Tensor
    arguments are jax arrays (or anything jnp.asarray takes); the others are Python values
    and are static under jit. Returns the op's results (one array or a tuple) followed by the
    new values of the arguments the op writes (``Tensor(a!)``): jax arrays are immutable.
    """

    def __init__(
        self, handle: Any, shape_fn: Callable | None, broadcasting: bool, out: Any = None
    ) -> None:
        self._handle = handle
        self._out = out if _is_out_overload(handle, out) else None
        self.name = handle.name
        self.schema = handle.schema
        self._args = [_Arg(a, i, handle.name) for i, a in enumerate(handle.arguments)]
        self._returns = handle.returns
        self._shape_fn = shape_fn
        self._vmap_method = "broadcast_all" if broadcasting else "sequential"
        self._vjps: dict[Any, Callable] = {}
        self.__name__ = handle.name.split("::", 1)[1]
        self.__doc__ = f"{handle.name}{handle.schema[handle.schema.index('(') :]} over jax arrays"

    def __repr__(self) -> str:
        return f"<sdk.interop.jax op {self.schema}>"

    # -- binding ---------------------------------------------------------------------------

    def _bind(self, args: tuple, kwargs: dict) -> list:
        positional = [a for a in self._args if not a.kwarg_only]
        if len(args) > len(positional):
            raise TypeError(
                f"{self.name}() takes {len(positional)} positional argument(s) but "
                f"{len(args)} were given ({self.schema})"
            )
        values: dict[str, Any] = {a.name: v for a, v in zip(positional, args)}
        names = {a.name for a in self._args}
        for k, v in kwargs.items():
            if k not in names:
                raise TypeError(f"{self.name}() got an unexpected keyword argument {k!r}")
            if k in values:
                raise TypeError(f"{self.name}() got multiple values for argument {k!r}")
            values[k] = v
        bound = []
        for a in self._args:
            if a.name in values:
                bound.append(values[a.name])
            elif self._handle.arguments[a.index]["has_default"]:
                bound.append(self._handle._default(a.index))
            else:
                raise TypeError(f"{self.name}() missing argument {a.name!r} ({self.schema})")
        return bound

    def _split(self, bound: list) -> tuple[list, list]:
        """The bound values as (tensor operands as jax arrays, statics with tensor slots as
        markers): statics are hashable, so each distinct set gets one custom_vjp."""
        tensors: list = []
        statics: list = []
        for a, v in zip(self._args, bound):
            if a.is_tensor and not a.is_list:
                if v is None:
                    if not a.optional:
                        raise TypeError(
                            f"{self.name}: argument '{a.name}' must be an array, not None"
                        )
                    statics.append(None)
                    continue
                tensors.append(self._as_array(v, a))
                statics.append(_Operand(len(tensors) - 1))
            elif a.is_tensor:
                items = list(v)
                statics.append(_Operands(len(tensors), len(items)))
                tensors.extend(self._as_array(x, a) for x in items)
            else:
                statics.append(self._static(v, a))
        return tensors, statics

    def _as_array(self, v: Any, a: _Arg) -> Any:
        import jax.numpy as jnp

        if isinstance(v, sdk.Tensor):
            v = _jax().dlpack.from_dlpack(v.detach())
        try:
            x = jnp.asarray(v)
        except TypeError as e:
            raise TypeError(f"{self.name}: argument '{a.name}' must be an array: {e}") from None
        _dtype_of(x.dtype, f"{self.name}: argument '{a.name}'")
        return x

    def _static(self, v: Any, a: _Arg) -> Any:
        """A non-tensor argument as a hashable value, checked against its schema type."""
        jax = _jax()
        if isinstance(v, jax.core.Tracer):
            raise TypeError(
                f"{self.name}: argument '{a.name}' ({a.type}) must be a Python value, not a "
                "traced jax array (under jax.jit, mark it static: static_argnums)"
            )
        if v is None:
            if not a.optional:
                raise TypeError(f"{self.name}: argument '{a.name}' ({a.type}) must not be None")
            return None
        if a.is_list:
            items = [v] * a.list_size if not isinstance(v, Iterable) and a.list_size > 0 else v
            return tuple(self._scalar(x, a) for x in items)
        return self._scalar(v, a)

    def _scalar(self, v: Any, a: _Arg) -> Any:
        import numpy as np

        base = a.base
        if hasattr(v, "shape") and getattr(v, "shape", None) == () and base != "ScalarType":
            v = v.item()  # a 0-d concrete array
        if base == "float" and isinstance(v, (int, float, np.number)) and not isinstance(v, bool):
            return float(v)
        if base in _INT_TYPES and isinstance(v, (int, np.integer)):
            return int(v)
        if base == "bool" and isinstance(v, (bool, np.bool_)):
            return bool(v)
        if base == "Scalar" and isinstance(v, (bool, int, float, np.number)):
            return v.item() if isinstance(v, np.generic) else v
        if base == "str" and isinstance(v, str):
            return v
        if base == "ScalarType":
            try:
                return as_dtype(v)
            except TypeError:
                pass
        raise TypeError(
            f"{self.name}: argument '{a.name}' must be {a.type}, got {type(v).__name__} {v!r}"
        )

    # -- calling ----------------------------------------------------------------------------

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        tensors, statics = self._split(self._bind(args, kwargs))
        key = tuple(statics)
        fn = self._vjps.get(key)
        if fn is None:
            if len(self._vjps) >= _MAX_VJPS:  # statics that change with every call
                self._vjps.clear()
            fn = self._vjps[key] = self._make_vjp(statics)
        out = fn(*tensors)
        return out[0] if len(out) == 1 else out

    def _make_vjp(self, statics: list) -> Callable:
        """The op for one set of static arguments, as a jax.custom_vjp over its tensors."""
        jax = _jax()

        @jax.custom_vjp
        def call(*tensors: Any) -> tuple:
            return self._forward(statics, tensors)

        def fwd(*tensors: Any) -> tuple:
            return self._forward(statics, tensors), tensors

        def bwd(tensors: tuple, cotangents: tuple) -> tuple:
            return _backward(self, statics, tensors, cotangents)

        call.defvjp(fwd, bwd)
        return call

    def _forward(self, statics: list, tensors: tuple) -> tuple:
        jax = _jax()
        if not any(isinstance(t, jax.core.Tracer) for t in tensors):
            return self._eager(statics, tensors)
        return self._ffi(statics, tensors)

    def _values(self, statics: list, tensors: list) -> tuple[list, dict]:
        """Positional and keyword arguments for the op, tensors put back in their places."""
        positional, keywords = [], {}
        for a, s in zip(self._args, statics):
            if isinstance(s, _Operand):
                v = tensors[s.index]
            elif isinstance(s, _Operands):
                v = list(tensors[s.start : s.start + s.count])
            else:
                v = list(s) if isinstance(s, tuple) else s
            if a.kwarg_only:
                keywords[a.name] = v
            else:
                positional.append(v)
        return positional, keywords

    def _eager(self, statics: list, tensors: tuple) -> tuple:
        """Concrete arrays: the op runs on them through DLPack (no copy either way)."""
        as_sdk = [sdk.from_dlpack(t) for t in tensors]
        for t in as_sdk:  # an op that writes an input it does not declare fails, as under jit
            _C._set_read_only(t, _READ_ONLY_OWNER)
        written = [
            s.index for a, s in zip(self._args, statics) if isinstance(s, _Operand) and a.is_write
        ]
        for i in written:  # the op writes these: give it copies, jax arrays stay as they are
            as_sdk[i] = as_sdk[i].clone()
        positional, keywords = self._values(statics, as_sdk)
        with sdk.no_grad():
            result = self._handle(*positional, **keywords)
        results = self._result_list(result)
        results += [as_sdk[i] for i in written]
        return tuple(_to_jax(r) for r in results)

    def _result_list(self, result: Any) -> list:
        if not self._returns:
            return []
        return list(result) if len(self._returns) > 1 else [result]

    def _ffi(self, statics: list, tensors: tuple) -> tuple:
        """Traced arrays: one custom call of the FFI handler."""
        jax = _jax()
        plan, written = self._plan(statics, tensors)
        out_types = self.result_types(statics, tensors)
        _ensure_target()
        n_ret = len(out_types)
        aliases = {operand: n_ret + k for k, operand in enumerate(written)}
        out_types = out_types + [jax.ShapeDtypeStruct(tensors[i].shape, tensors[i].dtype)
                                 for i in written]  # fmt: skip
        call = jax.ffi.ffi_call(
            TARGET,
            out_types,
            vmap_method=self._vmap_method,
            input_output_aliases=aliases or None,
        )
        name = self._out.name if self._out is not None and not written else self.name
        return tuple(call(*tensors, sdk_call=name + "\n" + plan))

    def _plan(self, statics: list, tensors: tuple) -> tuple[str, list]:
        """The handler's plan (see xla_ffi.cpp) and the operands the op writes."""
        tokens, written = [], []
        n_ret = len(self._returns)
        for a, s in zip(self._args, statics):
            if isinstance(s, _Operand):
                if a.is_write:
                    tokens.append(f"w{n_ret + len(written)}")
                    written.append(s.index)
                else:
                    tokens.append("t")
            elif isinstance(s, _Operands):
                if a.is_write:
                    raise NotImplementedError(f"{self.name}: a written Tensor[] under jax.jit")
                tokens.append(f"L{s.count}")
            elif s is None:
                tokens.append("n")
            else:
                tokens.append(_encode_static(self.name, a, s))
        if self._out is not None and not written:  # results straight into XLA's buffers
            tokens += [f"o{k}" for k in range(n_ret)]
        return ";".join(tokens), written

    def _written_avals(self, statics: list, avals: list) -> dict:
        """Alias set -> the value of the written tensor argument in it."""
        found = {}
        for a, info, s in zip(self._args, self._handle.arguments, statics):
            if a.is_write and info["alias"] and isinstance(s, _Operand):
                found[info["alias"]] = avals[s.index]
        return found

    def result_types(self, statics: list, tensors: tuple) -> list:
        """The op's results as jax.ShapeDtypeStruct, from its shape function."""
        jax = _jax()
        for r in self._returns:
            if re.sub(r"\([^)]*\)", "", r["type"]) != "Tensor":
                raise NotImplementedError(
                    f"{self.name}: returns {r['type']}; ops under jax.jit return tensors only"
                )
        if not self._returns:
            return []
        avals = [jax.ShapeDtypeStruct(t.shape, t.dtype) for t in tensors]
        written = self._written_avals(statics, avals)
        if all(r["alias"] in written for r in self._returns):  # out= forms return what they wrote
            return [written[r["alias"]] for r in self._returns]
        positional, keywords = self._values(statics, avals)
        if self._shape_fn is not None:
            out = self._shape_fn(*positional, **keywords)
            out = list(out) if isinstance(out, (tuple, list)) else [out]
            out = [jax.ShapeDtypeStruct(o.shape, o.dtype) for o in out]
        else:
            out = _fake_result_types(self, positional, keywords)
        if len(out) != len(self._returns):
            raise RuntimeError(
                f"{self.name}: the shape function gave {len(out)} result(s), the schema has "
                f"{len(self._returns)} ({self.schema})"
            )
        return out


def _to_jax(r: Any) -> Any:
    """An eager result in jax's terms: tensors (also in lists) through DLPack, others as are."""
    if isinstance(r, sdk.Tensor):
        return _jax().dlpack.from_dlpack(r)
    if isinstance(r, list):
        return [_to_jax(x) for x in r]
    return r


def _is_out_overload(handle: Any, out: Any) -> bool:
    """Whether `out` is the out= form of `handle` (torch's convention: the same arguments,
    then one keyword-only Tensor(a!) per result, returned): jit then calls it, and the op
    writes its results into XLA's buffers, with no copy."""
    if out is None or not handle.returns:
        return False
    n = len(handle.returns)
    base, extra = out.arguments[: len(handle.arguments)], out.arguments[len(handle.arguments) :]
    same = [a["name"] for a in base] == [a["name"] for a in handle.arguments]
    outs = len(extra) == n and all(
        a["kwarg_only"] and a["is_write"] and re.sub(r"\([^)]*\)", "", a["type"]) == "Tensor"
        for a in extra
    )
    tensors = all(re.sub(r"\([^)]*\)", "", r["type"]) == "Tensor" for r in handle.returns)
    return same and outs and tensors and len(out.returns) == n


def _encode_static(op: str, a: _Arg, v: Any) -> str:
    """One plan token for a static value."""
    if isinstance(v, tuple):  # a list argument
        letter = {"float": "F", "bool": "B"}.get(a.base, "I")
        if a.base not in _INT_TYPES | {"float", "bool"}:
            raise NotImplementedError(f"{op}: argument '{a.name}' ({a.type}) under jax.jit")
        if letter == "F":
            return "F" + ",".join(float(x).hex() for x in v)
        return letter + ",".join(str(int(x)) for x in v)
    base = a.base
    if base == "Scalar":
        base = "bool" if isinstance(v, bool) else "int" if isinstance(v, int) else "float"
    if base in _INT_TYPES:
        return f"i{int(v)}"
    if base == "float":
        return "f" + float(v).hex()
    if base == "bool":
        return f"b{int(v)}"
    if base == "ScalarType":
        return f"d{v.code}"
    if base == "str":
        data = v.encode()
        return f"s{len(data)}:{v}"
    raise NotImplementedError(
        f"{op}: argument '{a.name}' ({a.type}) is not supported under jax.jit"
    )


def _fake_result_types(op: JaxOp, positional: list, keywords: dict) -> list:
    """Result types from the op's shape function (sdk.library.register_fake): it runs on
    shape-only (meta) tensors made from the jax.ShapeDtypeStructs."""
    jax = _jax()
    try:
        out = sdk.library.fake_call(op._handle, *positional, **keywords)
    except NotImplementedError as e:
        raise NotImplementedError(
            f"{e} (or pass sdk.interop.jax.register(ns, shapes={{'{op.__name__}': fn}}), fn "
            "taking the op's arguments, tensors as jax.ShapeDtypeStruct, and returning its "
            "results' jax.ShapeDtypeStruct)"
        ) from None
    out = list(out) if isinstance(out, tuple) else [] if out is None else [out]
    return [jax.ShapeDtypeStruct(tuple(o.shape), _jax_dtype(o.dtype)) for o in out]


# ---- the derivative -------------------------------------------------------------------------------


def _differentiable(op: JaxOp) -> bool:
    """Whether the op has a registered derivative (Python or a C++ Autograd kernel)."""
    return op.name in sdk.library._AUTOGRAD or op._handle._has_kernel(_C.DISPATCH_AUTOGRAD)


def _backward(op: JaxOp, statics: list, tensors: tuple, cotangents: tuple) -> tuple:
    """custom_vjp's backward: the op's registered derivative, run on the host by sdk.autograd
    (the forward is recomputed there, so only the inputs are saved)."""
    jax = _jax()
    import jax.numpy as jnp

    if not _differentiable(op):
        raise NotImplementedError(
            f"{op.name}: no derivative is registered, so jax.grad cannot differentiate it; "
            f"register one with sdk.library.register_autograd('{op.name}', ...) or a C++ "
            "Autograd kernel"
        )
    n_ret = len(op._returns)
    diff = [i for i, t in enumerate(tensors) if jnp.issubdtype(t.dtype, jnp.floating)]
    shapes = [jax.ShapeDtypeStruct(tensors[i].shape, tensors[i].dtype) for i in diff]

    def host(*arrays: Any) -> tuple:
        return _host_backward(op, statics, arrays[: len(tensors)], arrays[len(tensors) :], diff)

    grads = jax.pure_callback(host, shapes, *tensors, *cotangents[:n_ret], vmap_method="sequential")
    out: list = [None] * len(tensors)
    for i, g in zip(diff, grads):
        out[i] = g
    return tuple(out)


def _host_backward(op: JaxOp, statics: list, arrays: tuple, grads: tuple, diff: list) -> tuple:
    """Runs the op with sdk autograd on host copies of the inputs; the gradients as numpy."""
    import numpy as np

    inputs = [sdk.from_numpy(np.array(a)) for a in arrays]
    for i in diff:
        inputs[i].requires_grad_(True)
    positional, keywords = op._values(statics, inputs)
    with sdk.enable_grad():
        outputs = op._result_list(op._handle(*positional, **keywords))
    pairs = [(o, g) for o, g in zip(outputs, grads) if o.requires_grad]
    if pairs:
        found = sdk.autograd.grad(
            [o for o, _ in pairs],
            [inputs[i] for i in diff],
            [sdk.from_numpy(np.array(g)) for _, g in pairs],
            allow_unused=True,
        )
    else:
        found = [None] * len(diff)
    return tuple(
        np.zeros(arrays[i].shape, arrays[i].dtype)
        if g is None
        else np.asarray(g.detach().numpy(), dtype=arrays[i].dtype)
        for i, g in zip(diff, found)
    )


# ---- the namespace -------------------------------------------------------------------------------


class JaxOps:
    """The ops of one SDK library as JAX functions: ``ops.<name>`` (the default overload)
    and ``ops.<name>_<overload>`` for the others."""

    def __init__(self, ns: str, ops: dict[str, JaxOp]) -> None:
        self._ns = ns
        self._ops = ops
        for name, op in ops.items():
            setattr(self, name, op)

    def __dir__(self) -> list[str]:
        return sorted(self._ops)

    def __getattr__(self, name: str) -> Any:
        raise AttributeError(
            f"library '{self._ns}' has no op '{name}' (ops: {', '.join(sorted(self._ops))})"
        )

    def __repr__(self) -> str:
        return f"<sdk.interop.jax ops of '{self._ns}': {', '.join(sorted(self._ops))}>"


def register(
    ns: str,
    *,
    shapes: Mapping[str, Callable] | None = None,
    broadcasting: Iterable[str] = (),
) -> JaxOps:
    """The ops of SDK library `ns` (as registered now) as functions over jax arrays.

    shapes: op name -> shape function for jax.jit, taking the op's arguments (tensors as
    jax.ShapeDtypeStruct) and returning its results' jax.ShapeDtypeStruct (one or a tuple);
    it overrides sdk.library.register_fake. broadcasting: names of ops that take a batch
    dimension in front of every tensor and broadcast over it, so that jax.vmap calls them
    once for the whole batch (others run once per batch element).
    """
    if not isinstance(ns, str) or not ns.isidentifier():
        raise ValueError(f"register: expected a library namespace such as 'mylib', got {ns!r}")
    names = _C.op_list(ns)
    if not names:
        raise ValueError(
            f"register: no ops are registered in namespace '{ns}' (load the library first: "
            "import its package or cpp_extension.load it)"
        )
    shapes = dict(shapes or {})
    broadcasting = set([broadcasting] if isinstance(broadcasting, str) else broadcasting)
    ops: dict[str, JaxOp] = {}
    for qualname in names:
        attr = qualname.split("::", 1)[1].replace(".", "_")
        short = qualname.split("::", 1)[1]
        out = _C.op_find(qualname + ".out") if qualname + ".out" in names else None
        ops[attr] = JaxOp(
            _C.op_find(qualname),
            shapes.pop(short, None) or shapes.pop(attr, None),
            short in broadcasting or attr in broadcasting,
            out,
        )
    unknown = (set(shapes) | broadcasting) - {q.split("::", 1)[1] for q in names} - set(ops)
    if unknown:
        raise ValueError(
            f"register: {sorted(unknown)} name no op of '{ns}' (ops: {', '.join(sorted(ops))})"
        )
    for op in ops.values():  # sdk.ops.<ns>.<op> called with jax arrays comes here too
        register_redirect("jax", op.name, op)
    return JaxOps(ns, ops)
