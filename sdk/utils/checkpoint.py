"""sdk.utils.checkpoint: torch.utils.checkpoint's entry points, run without recomputation.

The SDK's autograd keeps every activation it records; these functions call the wrapped code
once, with autograd on, so results and gradients equal the unwrapped call. The memory saving
of recomputation is not there: code that checkpoints to fit in memory needs its full
activations here."""

from __future__ import annotations

from typing import Any, Callable

__all__ = ["checkpoint", "checkpoint_sequential"]


def _check_flag(v: Any, fn: str, name: str, none_ok: bool = False) -> None:
    if not (isinstance(v, bool) or (none_ok and v is None)):
        raise TypeError(f"{fn}(): argument '{name}' must be a bool, not {type(v).__name__}")


def checkpoint(function: Callable, *args: Any, use_reentrant: bool | None = None,
               preserve_rng_state: bool = True, **kwargs: Any) -> Any:  # fmt: skip
    """function(*args, **kwargs). Activations are kept (no recomputation in backward), so
    use_reentrant and preserve_rng_state change nothing: random ops run once."""
    if not callable(function):
        raise TypeError(
            f"checkpoint(): argument 'function' must be callable, not {type(function).__name__}"
        )
    _check_flag(use_reentrant, "checkpoint", "use_reentrant", none_ok=True)
    _check_flag(preserve_rng_state, "checkpoint", "preserve_rng_state")
    for name in ("context_fn", "determinism_check", "debug", "early_stop"):
        kwargs.pop(name, None)  # recomputation options: nothing is recomputed
    return function(*args, **kwargs)


def checkpoint_sequential(functions: Any, segments: int, input: Any,
                          use_reentrant: bool | None = None, **kwargs: Any) -> Any:  # fmt: skip
    """Run functions (a Sequential or a list of callables) in order on input; segments only
    says how torch would split them for recomputation (here nothing is recomputed)."""
    if isinstance(segments, bool) or not isinstance(segments, int) or segments < 1:
        raise ValueError(
            f"checkpoint_sequential(): argument 'segments' must be a positive int, got {segments!r}"
        )
    _check_flag(use_reentrant, "checkpoint_sequential", "use_reentrant", none_ok=True)
    fns = list(functions.children()) if hasattr(functions, "children") else list(functions)
    if not all(callable(f) for f in fns):
        raise TypeError("checkpoint_sequential(): argument 'functions' must hold callables")
    kwargs.pop("preserve_rng_state", None)
    if kwargs:
        raise TypeError(f"checkpoint_sequential(): unexpected keyword arguments {sorted(kwargs)}")
    for f in fns:
        input = f(input)
    return input
