"""Grad-mode switches (no_grad, enable_grad, set_grad_enabled): context managers and decorators.

The flag itself is thread-local and lives in C (``sdk._C``), so every op checks it
without a Python call; these classes only save and restore it.
"""

from __future__ import annotations

import functools
import inspect
import threading
from typing import Any, Callable, TypeVar

from sdk import _C

__all__ = [
    "no_grad",
    "enable_grad",
    "set_grad_enabled",
    "is_grad_enabled",
    "inference_mode",
    "is_inference_mode_enabled",
]

F = TypeVar("F", bound=Callable[..., Any])


def is_grad_enabled() -> bool:
    """True when ops record a graph for autograd on this thread."""
    return _C.is_grad_enabled()


class _GradModeBase:
    """Sets grad mode to ``self._mode`` on enter and restores the previous value on exit."""

    _mode = False

    def __enter__(self) -> None:
        self._prev = _C._set_grad_enabled(self._mode)

    def __exit__(self, *exc: object) -> None:
        _C._set_grad_enabled(self._prev)

    def clone(self) -> _GradModeBase:
        return self.__class__()

    def __call__(self, func: F) -> F:
        """Use as a decorator: the function runs under this mode (generators too)."""
        if inspect.isclass(func):
            raise TypeError(f"{type(self).__name__} decorates functions, not classes")
        if inspect.isgeneratorfunction(func):
            return self._wrap_generator(func)

        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with self.clone():
                return func(*args, **kwargs)

        return wrapper  # type: ignore[return-value]

    def _wrap_generator(self, func: F) -> F:
        # The mode must hold while the generator body runs, not while the caller
        # holds control between yields.
        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            gen = func(*args, **kwargs)
            try:
                with self.clone():
                    request = gen.send(None)
                while True:
                    try:
                        response = yield request
                    except GeneratorExit:
                        with self.clone():
                            gen.close()
                        raise
                    except BaseException as e:  # forward throw() into the generator
                        with self.clone():
                            request = gen.throw(e)
                    else:
                        with self.clone():
                            request = gen.send(response)
            except StopIteration as e:
                return e.value

        return wrapper  # type: ignore[return-value]


class no_grad(_GradModeBase):
    """Disable graph recording: ``with sdk.no_grad(): ...`` or ``@sdk.no_grad()``."""

    _mode = False

    def __init__(self, orig_func: Callable[..., Any] | None = None) -> None:
        # ``@sdk.no_grad`` without parentheses is a common slip; accept it.
        self._orig = orig_func
        if orig_func is not None:
            functools.update_wrapper(self, orig_func)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:  # type: ignore[override]
        if self._orig is not None:
            with no_grad():
                return self._orig(*args, **kwargs)
        return super().__call__(*args, **kwargs)


class enable_grad(no_grad):
    """Re-enable graph recording inside a ``no_grad`` region; also a decorator."""

    _mode = True

    def __call__(self, *args: Any, **kwargs: Any) -> Any:  # type: ignore[override]
        if self._orig is not None:
            with enable_grad():
                return self._orig(*args, **kwargs)
        return _GradModeBase.__call__(self, *args, **kwargs)


class set_grad_enabled(_GradModeBase):
    """Set grad mode to ``mode``. Takes effect immediately (like torch), so it works as a
    plain call, and restores the previous mode when used as a context manager."""

    def __init__(self, mode: bool) -> None:
        self._mode = bool(mode)
        self._prev = _C._set_grad_enabled(self._mode)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc: object) -> None:
        _C._set_grad_enabled(self._prev)

    def __call__(self, func: F) -> F:
        # Used as a decorator: the call above already switched the mode; undo it.
        _C._set_grad_enabled(self._prev)
        return super().__call__(func)

    def clone(self) -> _GradModeBase:
        mode = self._mode

        class _Once(_GradModeBase):
            _mode = mode

        return _Once()


_inference = threading.local()


class inference_mode(_GradModeBase):
    """``no_grad`` for inference: ``with sdk.inference_mode(): ...`` or as a decorator (with
    or without parentheses). mode=False leaves grad mode as it is. Unlike torch, tensors made
    inside are ordinary tensors (there is no separate inference-tensor kind), so using them in
    autograd later is allowed."""

    def __new__(cls, mode: Any = True) -> Any:
        if callable(mode) and not isinstance(mode, bool):  # @sdk.inference_mode
            return cls()(mode)
        return super().__new__(cls)

    def __init__(self, mode: bool = True) -> None:
        if not isinstance(mode, bool):
            raise TypeError(f"inference_mode: mode must be a bool, not {type(mode).__name__}")
        self.mode = mode

    def __enter__(self) -> None:
        self._prev_inference = getattr(_inference, "on", False)
        if self.mode:
            _inference.on = True
            self._prev = _C._set_grad_enabled(False)
        else:
            _inference.on = False
            self._prev = _C.is_grad_enabled()

    def __exit__(self, *exc: object) -> None:
        _inference.on = self._prev_inference
        _C._set_grad_enabled(self._prev)

    def clone(self) -> inference_mode:
        return inference_mode(self.mode)


def is_inference_mode_enabled() -> bool:
    """True inside ``inference_mode()`` on this thread."""
    return getattr(_inference, "on", False)


# Shared by Module.zero_grad (sdk.nn) and Optimizer.zero_grad (sdk.optim).
def _zero_grad(p: Any, set_to_none: bool) -> None:
    if p.grad is None:
        return
    if set_to_none:
        p.grad = None
        return
    g = p.grad
    if g.grad_fn is not None:
        g = p.grad = _C._alias(g)
    with no_grad():
        g.zero_()
