"""sdk.jit: torch.jit's decorators and queries for code that uses them around eager code.

The SDK has no graph compiler (no TorchScript). Extension packages decorate plain Python with
`@torch.jit.script`, `@torch.jit._overload`, `@torch.jit.ignore` so that users *may* script
them; run eagerly, each of these leaves the function or module as it is, and that is what
this module does: `script` and `trace` return their argument, the queries say that nothing
is being scripted or traced. What needs a compiled artifact (`save`, `load`, `freeze`)
raises NotImplementedError naming the eager alternative instead of pretending.
"""

from __future__ import annotations

import typing
from typing import Any, Callable

__all__ = [
    "Final",
    "ScriptFunction",
    "ScriptModule",
    "annotate",
    "export",
    "fork",
    "freeze",
    "ignore",
    "interface",
    "is_scripting",
    "is_tracing",
    "load",
    "save",
    "script",
    "trace",
    "trace_module",
    "unused",
    "wait",
]

Final = typing.Final


class ScriptModule:
    """torch.jit.ScriptModule's name for isinstance checks: nothing here is one (no compiler)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise NotImplementedError(_NO_COMPILER.format(what="ScriptModule"))


class ScriptFunction:
    """torch.jit.ScriptFunction's name for isinstance checks: nothing here is one."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise NotImplementedError(_NO_COMPILER.format(what="ScriptFunction"))


_NO_COMPILER = (
    "sdk.jit.{what}: the SDK has no TorchScript compiler; modules and functions run eagerly "
    "(sdk.jit.script returns them unchanged)"
)


def script(
    obj: Any,
    optimize: Any = None,
    _frames_up: int = 0,
    _rcb: Any = None,
    example_inputs: Any = None,
) -> Any:
    """torch.jit.script: the function, method or module itself, run eagerly."""
    return obj


def trace(func: Any, example_inputs: Any = None, *args: Any, **kwargs: Any) -> Any:
    """torch.jit.trace: the callable itself, run eagerly (no graph is recorded)."""
    return func


def trace_module(mod: Any, inputs: Any = None, *args: Any, **kwargs: Any) -> Any:
    """torch.jit.trace_module: the module itself."""
    return mod


def ignore(drop: Any = False, **kwargs: Any) -> Any:
    """torch.jit.ignore, as `@ignore` or `@ignore(drop=True)`: the function unchanged."""
    if callable(drop):
        return drop
    return lambda fn: fn


def unused(fn: Callable) -> Callable:
    """torch.jit.unused: the function unchanged."""
    return fn


def export(fn: Callable) -> Callable:
    """torch.jit.export: the method unchanged."""
    return fn


def interface(obj: Any) -> Any:
    """torch.jit.interface: the class unchanged."""
    return obj


def _overload(func: Callable) -> Callable:
    """torch.jit._overload: an overload declaration; the undecorated definition that follows
    (same name) replaces it at module level, as in eager torch."""
    return func


_overload_method = _overload


def is_scripting() -> bool:
    """torch.jit.is_scripting: False; code is never being compiled here."""
    return False


def is_tracing() -> bool:
    """torch.jit.is_tracing: False; nothing is being traced here."""
    return False


def annotate(the_type: Any, the_value: Any) -> Any:
    """torch.jit.annotate: the value (the type is a hint for the compiler)."""
    return the_value


class Future:
    """The result of fork: already computed (fork runs its function at once)."""

    def __init__(self, value: Any) -> None:
        self._value = value

    def wait(self) -> Any:
        return self._value

    def done(self) -> bool:
        return True

    def value(self) -> Any:
        return self._value


def fork(func: Callable, *args: Any, **kwargs: Any) -> Future:
    """torch.jit.fork: runs func at once; its Future is complete when returned."""
    return Future(func(*args, **kwargs))


def wait(future: Future) -> Any:
    """torch.jit.wait: the forked function's result."""
    return future.wait()


def save(m: Any, f: Any, _extra_files: Any = None) -> None:
    """torch.jit.save needs a compiled module; save the weights instead."""
    raise NotImplementedError(
        _NO_COMPILER.format(what="save")
        + ": save the weights with sdk.save(module.state_dict(), f) and rebuild the module"
    )


def load(f: Any, map_location: Any = None, _extra_files: Any = None) -> Any:
    """torch.jit.load reads a TorchScript archive, which the SDK cannot run."""
    raise NotImplementedError(
        _NO_COMPILER.format(what="load")
        + ": load weights saved with sdk.save into an eager module with load_state_dict"
    )


def freeze(mod: Any, preserved_attrs: Any = None, optimize_numerics: bool = True) -> Any:
    """torch.jit.freeze works on a ScriptModule, which the SDK never makes."""
    raise NotImplementedError(_NO_COMPILER.format(what="freeze"))
