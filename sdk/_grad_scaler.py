"""GradScaler (torch.amp.GradScaler's API): loss scaling with inf/NaN detection that skips the
optimizer step and backs the scale off, growing it again after a run of clean steps."""

from __future__ import annotations

import enum
import math
import warnings
from typing import Any

import sdk

__all__ = ["GradScaler"]


class OptState(enum.Enum):
    READY = 0
    UNSCALED = 1
    STEPPED = 2


def _fresh_state() -> dict:
    return {"stage": OptState.READY, "found_inf_per_device": {}}


class GradScaler:
    """GradScaler(device="cuda", init_scale=2.0**16, growth_factor=2.0, backoff_factor=0.5,
    growth_interval=2000, enabled=True).

    scale(loss) multiplies by the scale; step(optimizer) unscales the gradients (unless
    unscale_ did), skips optimizer.step() when any gradient holds an inf or NaN; update()
    multiplies the scale by backoff_factor after a skipped step, by growth_factor after
    growth_interval clean steps in a row. A "cuda" scaler without CUDA is disabled with a
    warning, as torch's is."""

    def __init__(self, device: str = "cuda", init_scale: float = 2.0**16,
                 growth_factor: float = 2.0, backoff_factor: float = 0.5,
                 growth_interval: int = 2000, enabled: bool = True) -> None:  # fmt: skip
        if not isinstance(device, str):
            raise TypeError(f"GradScaler: device must be a str, got {type(device).__name__}")
        self._device = device
        self._enabled = bool(enabled)
        if self._enabled and device == "cuda" and not sdk.cuda.is_available():
            warnings.warn(
                "sdk.amp.GradScaler is enabled, but CUDA is not available.  Disabling.",
                stacklevel=2,
            )
            self._enabled = False
        if self._enabled:
            _check_factors(growth_factor, backoff_factor, growth_interval)
        self._init_scale = float(init_scale)
        self._scale: Any = None  # a float32 0-d tensor, made on the first scale()
        self._growth_factor = float(growth_factor)
        self._backoff_factor = float(backoff_factor)
        self._growth_interval = int(growth_interval)
        self._init_growth_tracker = 0
        self._growth_tracker: Any = None  # an int32 0-d tensor: clean steps in a row
        self._per_optimizer_states: dict = {}

    # ---------------------------------------------------------------- scaling

    def scale(self, outputs: Any) -> Any:
        """outputs (a tensor, or an iterable of them, nested) times the scale."""
        if not self._enabled:
            return outputs
        if isinstance(outputs, sdk._C.TensorBase):
            self._lazy_init(outputs.device)
            return outputs * self._scale.to(outputs.device)
        if isinstance(outputs, (list, tuple)):
            scaled = [self.scale(o) for o in outputs]
            return type(outputs)(scaled) if isinstance(outputs, list) else tuple(scaled)
        try:
            return map(self.scale, iter(outputs))
        except TypeError:
            raise ValueError("outputs must be a Tensor or an iterable of Tensors") from None

    def _lazy_init(self, device: Any) -> None:
        if self._scale is None:
            self._scale = sdk.full((), self._init_scale, dtype=sdk.float32, device=device)
            self._growth_tracker = sdk.full(
                (), self._init_growth_tracker, dtype=sdk.int32, device=device
            )

    def _check_scale(self, funcname: str) -> None:
        if self._scale is None:
            raise RuntimeError(
                f"Attempted {funcname} but _scale is None.  This may indicate your script did "
                "not use scaler.scale(loss or outputs) earlier in the iteration."
            )

    def _state(self, optimizer: Any) -> dict:
        return self._per_optimizer_states.setdefault(id(optimizer), _fresh_state())

    def unscale_(self, optimizer: Any) -> None:
        """Divide optimizer's gradients by the scale, in place, noting infs and NaNs (once per
        optimizer between updates, before its step)."""
        if not self._enabled:
            return
        self._check_scale("unscale_")
        state = self._state(optimizer)
        if state["stage"] is OptState.UNSCALED:
            raise RuntimeError(
                "unscale_() has already been called on this optimizer since the last update()."
            )
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        inv_scale = (1.0 / self._scale.double()).float()
        state["found_inf_per_device"] = _unscale_grads(optimizer, inv_scale)
        state["stage"] = OptState.UNSCALED

    def step(self, optimizer: Any, *args: Any, **kwargs: Any) -> Any:
        """optimizer.step(*args, **kwargs) unless the unscaled gradients hold an inf or NaN
        (then None)."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is enabled.")
        self._check_scale("step")
        state = self._state(optimizer)
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if state["stage"] is OptState.READY:
            self.unscale_(optimizer)
        if not state["found_inf_per_device"]:
            raise RuntimeError("No inf checks were recorded for this optimizer.")
        found = sum(float(v.item()) for v in state["found_inf_per_device"].values())
        result = None if found else optimizer.step(*args, **kwargs)
        state["stage"] = OptState.STEPPED
        return result

    def update(self, new_scale: Any = None) -> None:
        """Back the scale off after a skipped step, grow it after growth_interval clean ones
        (or set it to new_scale: a float or a 1-element float32 tensor)."""

        if not self._enabled:
            return
        self._check_scale("update")
        if new_scale is not None:
            self._set_scale(new_scale)
        else:
            found = [
                v for s in self._per_optimizer_states.values()
                for v in s["found_inf_per_device"].values()
            ]  # fmt: skip
            if not found:
                raise RuntimeError("No inf checks were recorded prior to update.")
            self._update_scale(sum(float(v.item()) for v in found) > 0)
        self._per_optimizer_states = {}

    def _set_scale(self, new_scale: Any) -> None:
        if isinstance(new_scale, (int, float)) and not isinstance(new_scale, bool):
            self._scale.fill_(float(new_scale))
            return
        ok = (
            isinstance(new_scale, sdk._C.TensorBase)
            and new_scale.numel() == 1
            and new_scale.dtype == sdk.float32
            and not new_scale.requires_grad
        )
        if not ok:
            raise ValueError(
                "new_scale should be a float or a 1-element float32 tensor with "
                "requires_grad=False."
            )
        self._scale.copy_(new_scale.reshape(()))

    def _update_scale(self, found_inf: bool) -> None:
        """torch's _amp_update_scale_ rule, on the float32 scale and the int32 tracker."""

        if found_inf:
            self._scale.mul_(self._backoff_factor)
            self._growth_tracker.fill_(0)
            return
        clean = int(self._growth_tracker.item()) + 1
        if clean == self._growth_interval:
            grown = self._scale * self._growth_factor
            if math.isfinite(float(grown.item())):
                self._scale.copy_(grown)
            self._growth_tracker.fill_(0)
        else:
            self._growth_tracker.fill_(clean)

    # ---------------------------------------------------------------- settings and state

    def get_scale(self) -> float:
        """The current scale (1.0 when disabled)."""
        if not self._enabled:
            return 1.0
        return self._init_scale if self._scale is None else float(self._scale.item())

    def get_growth_factor(self) -> float:
        return self._growth_factor

    def set_growth_factor(self, new_factor: float) -> None:
        self._growth_factor = float(new_factor)

    def get_backoff_factor(self) -> float:
        return self._backoff_factor

    def set_backoff_factor(self, new_factor: float) -> None:
        self._backoff_factor = float(new_factor)

    def get_growth_interval(self) -> int:
        return self._growth_interval

    def set_growth_interval(self, new_interval: int) -> None:
        self._growth_interval = int(new_interval)

    def _get_growth_tracker(self) -> int:
        if not self._enabled:
            return 0
        if self._growth_tracker is None:
            return self._init_growth_tracker
        return int(self._growth_tracker.item())

    def is_enabled(self) -> bool:
        return self._enabled

    def state_dict(self) -> dict:
        """scale, growth_factor, backoff_factor, growth_interval and _growth_tracker ({} when
        disabled)."""
        if not self._enabled:
            return {}
        return {
            "scale": self.get_scale(),
            "growth_factor": self._growth_factor,
            "backoff_factor": self._backoff_factor,
            "growth_interval": self._growth_interval,
            "_growth_tracker": self._get_growth_tracker(),
        }

    def load_state_dict(self, state_dict: dict) -> None:
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError(
                "The source state dict is empty, possibly because it was saved from a disabled "
                "instance of GradScaler."
            )
        missing = {"scale", "growth_factor", "backoff_factor", "growth_interval",
                   "_growth_tracker"} - set(state_dict)  # fmt: skip
        if missing:
            raise KeyError(f"GradScaler.load_state_dict: missing keys {sorted(missing)}")
        self._init_scale = float(state_dict["scale"])
        if self._scale is not None:
            self._scale.fill_(self._init_scale)
        self._growth_factor = float(state_dict["growth_factor"])
        self._backoff_factor = float(state_dict["backoff_factor"])
        self._growth_interval = int(state_dict["growth_interval"])
        self._init_growth_tracker = int(state_dict["_growth_tracker"])
        if self._growth_tracker is not None:
            self._growth_tracker.fill_(self._init_growth_tracker)

    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        if self._enabled:
            if self._per_optimizer_states:
                raise RuntimeError(
                    "A GradScaler instance may only be pickled at the beginning of an "
                    "iteration, or at the end after scaler.update()."
                )
            state["_init_scale"] = self.get_scale()
            state["_init_growth_tracker"] = self._get_growth_tracker()
            state["_scale"] = None
            state["_growth_tracker"] = None
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)


def _check_factors(growth_factor: float, backoff_factor: float, growth_interval: int) -> None:
    if not growth_factor > 1.0:
        raise ValueError(f"GradScaler: the growth factor must be > 1.0, got {growth_factor}")
    if not backoff_factor < 1.0:
        raise ValueError(f"GradScaler: the backoff factor must be < 1.0, got {backoff_factor}")
    if isinstance(growth_interval, bool) or not isinstance(growth_interval, int):
        raise TypeError(
            f"GradScaler: growth_interval must be an int, got {type(growth_interval).__name__}"
        )
    if growth_interval <= 0:
        raise ValueError(f"GradScaler: growth_interval must be positive, got {growth_interval}")


def _unscale_grads(optimizer: Any, inv_scale: Any) -> dict:
    """Multiply every gradient of optimizer's params by inv_scale in place; per device, a
    float32 0-d tensor that is 1 when some gradient there holds an inf or NaN."""
    found: dict = {}
    with sdk.no_grad():
        for group in optimizer.param_groups:
            for p in group["params"]:
                g = p.grad
                if g is None:
                    continue
                if g.dtype == sdk.float16:
                    raise ValueError("Attempting to unscale FP16 gradients.")
                key = str(g.device)
                bad = (~sdk.isfinite(g)).any().to(sdk.float32)
                found[key] = bad if key not in found else sdk.maximum(found[key], bad)
                g.mul_(inv_scale.to(g.device))
    return found


class CudaGradScaler(GradScaler):
    """torch.cuda.amp.GradScaler(init_scale=2.0**16, growth_factor=2.0, backoff_factor=0.5,
    growth_interval=2000, enabled=True): GradScaler("cuda", ...) (disabled, with a warning,
    when CUDA is not available). sdk.cuda.amp.GradScaler is this class."""

    def __init__(self, init_scale: float = 2.0**16, growth_factor: float = 2.0,
                 backoff_factor: float = 0.5, growth_interval: int = 2000,
                 enabled: bool = True) -> None:  # fmt: skip
        super().__init__("cuda", init_scale, growth_factor, backoff_factor, growth_interval,
                         enabled)  # fmt: skip
