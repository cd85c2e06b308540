"""Learning-rate schedulers (torch.optim.lr_scheduler's names, arguments and update rules).

Each scheduler rewrites ``group["lr"]`` of its optimizer when ``step()`` is called. As in
torch, the per-step rules are chainable (they scale the current lr, so two schedulers on one
optimizer compose); ``step(epoch)`` and SequentialLR's restarts use the closed form where a
scheduler has one. ``state_dict()`` holds everything but the optimizer (and lambdas).
"""

from __future__ import annotations

import bisect
import math
import numbers
import types
from collections import Counter
from typing import Any, Callable, Sequence

from .optimizer import Optimizer

__all__ = [
    "LRScheduler",
    "LambdaLR",
    "StepLR",
    "MultiStepLR",
    "ConstantLR",
    "LinearLR",
    "ExponentialLR",
    "CosineAnnealingLR",
    "CosineAnnealingWarmRestarts",
    "CyclicLR",
    "SequentialLR",
    "OneCycleLR",
    "ReduceLROnPlateau",
]


def _check_optimizer(optimizer: Any, who: str) -> None:
    if not isinstance(optimizer, Optimizer):
        raise TypeError(f"{who}: optimizer must be an Optimizer, not {type(optimizer).__name__}")


def _check_number(who: str, name: str, value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{who}: {name} must be a number, not {type(value).__name__}")


def _check_int(who: str, name: str, value: Any, low: int) -> None:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{who}: {name} must be an int, not {type(value).__name__}")
    if value < low:
        raise ValueError(f"{who}: {name} must be >= {low}, got {value}")


class LRScheduler:
    """Base class: base_lrs from each group's ``initial_lr``, ``last_epoch`` counting steps,
    ``get_lr()`` giving the new lrs for the current ``last_epoch``."""

    def __init__(self, optimizer: Optimizer, last_epoch: int = -1) -> None:
        who = type(self).__name__
        _check_optimizer(optimizer, who)
        _check_int(who, "last_epoch", last_epoch, -1)
        self.optimizer = optimizer
        if last_epoch == -1:
            for group in optimizer.param_groups:
                group.setdefault("initial_lr", group["lr"])
        else:
            for i, group in enumerate(optimizer.param_groups):
                if "initial_lr" not in group:
                    raise KeyError(
                        f"param 'initial_lr' is not specified in param_groups[{i}] when "
                        "resuming an optimizer"
                    )
        self.base_lrs = [group["initial_lr"] for group in optimizer.param_groups]
        self.last_epoch = last_epoch
        self._initial_step()

    def _initial_step(self) -> None:
        self._step_count = 0
        self.step()

    def get_lr(self) -> list:
        raise NotImplementedError

    def _closed_form_lr(self) -> list:
        return self.get_lr()

    def get_last_lr(self) -> list:
        """The lrs the last step() set."""
        return self._last_lr

    def _current_lrs(self) -> list:
        return [group["lr"] for group in self.optimizer.param_groups]

    def step(self, epoch: int | None = None) -> None:
        self._step_count += 1
        if epoch is None:
            self.last_epoch += 1
            values = self.get_lr()
        else:
            _check_int(type(self).__name__, "epoch", epoch, 0)
            self.last_epoch = epoch
            values = self._closed_form_lr()
        for group, lr in zip(self.optimizer.param_groups, values):
            group["lr"] = lr
        self._last_lr = [group["lr"] for group in self.optimizer.param_groups]

    def state_dict(self) -> dict:
        """Every attribute but the optimizer."""
        return {k: v for k, v in self.__dict__.items() if k != "optimizer"}

    def load_state_dict(self, state_dict: dict) -> None:
        if not isinstance(state_dict, dict):
            raise TypeError(
                f"{type(self).__name__}.load_state_dict: expected a dict, not "
                f"{type(state_dict).__name__}"
            )
        self.__dict__.update(state_dict)


class LambdaLR(LRScheduler):
    """lr = base_lr * lr_lambda(last_epoch) (one function, or one per param group)."""

    def __init__(self, optimizer: Optimizer, lr_lambda: Callable | Sequence[Callable],
                 last_epoch: int = -1) -> None:  # fmt: skip
        _check_optimizer(optimizer, "LambdaLR")
        n = len(optimizer.param_groups)
        if isinstance(lr_lambda, (list, tuple)):
            if len(lr_lambda) != n:
                raise ValueError(f"Expected {n} lr_lambdas, but got {len(lr_lambda)}")
            self.lr_lambdas = list(lr_lambda)
        else:
            self.lr_lambdas = [lr_lambda] * n
        for f in self.lr_lambdas:
            if not callable(f):
                raise TypeError(f"LambdaLR: lr_lambda must be callable, not {type(f).__name__}")
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list:
        return [base * f(self.last_epoch) for f, base in zip(self.lr_lambdas, self.base_lrs)]

    def state_dict(self) -> dict:
        """As the base, with lr_lambdas as None for plain functions (they do not pickle) and
        as their __dict__ for callable objects (torch's convention)."""
        state = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "lr_lambdas")}
        state["lr_lambdas"] = [
            None if isinstance(f, types.FunctionType) else dict(f.__dict__) for f in self.lr_lambdas
        ]
        return state

    def load_state_dict(self, state_dict: dict) -> None:
        state = dict(state_dict)
        lambdas = state.pop("lr_lambdas", None) or []
        super().load_state_dict(state)
        for f, saved in zip(self.lr_lambdas, lambdas):
            if saved is not None:
                f.__dict__.update(saved)


class StepLR(LRScheduler):
    """lr = base_lr * gamma ** (last_epoch // step_size)."""

    def __init__(self, optimizer: Optimizer, step_size: int, gamma: float = 0.1,
                 last_epoch: int = -1) -> None:  # fmt: skip
        _check_int("StepLR", "step_size", step_size, 1)
        _check_number("StepLR", "gamma", gamma)
        self.step_size, self.gamma = step_size, gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list:
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return self._current_lrs()
        return [lr * self.gamma for lr in self._current_lrs()]

    def _closed_form_lr(self) -> list:
        return [b * self.gamma ** (self.last_epoch // self.step_size) for b in self.base_lrs]


class MultiStepLR(LRScheduler):
    """lr = base_lr * gamma ** (number of milestones <= last_epoch)."""

    def __init__(self, optimizer: Optimizer, milestones: Sequence[int], gamma: float = 0.1,
                 last_epoch: int = -1) -> None:  # fmt: skip
        if not isinstance(milestones, (list, tuple, set, range)):
            raise TypeError(
                f"MultiStepLR: milestones must be a list of ints, not {type(milestones).__name__}"
            )
        for m in milestones:
            _check_int("MultiStepLR", "milestones[i]", m, 0)
        _check_number("MultiStepLR", "gamma", gamma)
        self.milestones = Counter(milestones)
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list:
        hits = self.milestones.get(self.last_epoch, 0)
        return [lr * self.gamma**hits for lr in self._current_lrs()]

    def _closed_form_lr(self) -> list:
        passed = bisect.bisect_right(sorted(self.milestones.elements()), self.last_epoch)
        return [b * self.gamma**passed for b in self.base_lrs]


class ConstantLR(LRScheduler):
    """lr = base_lr * factor until total_iters, then base_lr."""

    def __init__(self, optimizer: Optimizer, factor: float = 1.0 / 3, total_iters: int = 5,
                 last_epoch: int = -1) -> None:  # fmt: skip
        _check_number("ConstantLR", "factor", factor)
        if not 0 <= factor <= 1:
            raise ValueError(f"ConstantLR: factor must be between 0 and 1, got {factor}")
        _check_int("ConstantLR", "total_iters", total_iters, 0)
        self.factor, self.total_iters = factor, total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list:
        lrs = self._current_lrs()
        if self.last_epoch == 0:
            return [lr * self.factor for lr in lrs]
        if self.last_epoch != self.total_iters:
            return lrs
        return [lr / self.factor for lr in lrs]

    def _closed_form_lr(self) -> list:
        f = self.factor if self.last_epoch < self.total_iters else 1.0
        return [b * f for b in self.base_lrs]


class LinearLR(LRScheduler):
    """The lr factor goes linearly from start_factor to end_factor over total_iters steps."""

    def __init__(self, optimizer: Optimizer, start_factor: float = 1.0 / 3,
                 end_factor: float = 1.0, total_iters: int = 5, last_epoch: int = -1) -> None:  # fmt: skip
        _check_number("LinearLR", "start_factor", start_factor)
        _check_number("LinearLR", "end_factor", end_factor)
        if not 0 < start_factor <= 1:
            raise ValueError(f"LinearLR: start_factor must be > 0 and <= 1, got {start_factor}")
        if not 0 <= end_factor <= 1:
            raise ValueError(f"LinearLR: end_factor must be between 0 and 1, got {end_factor}")
        _check_int("LinearLR", "total_iters", total_iters, 1)
        self.start_factor, self.end_factor, self.total_iters = start_factor, end_factor, total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list:
        lrs = self._current_lrs()
        if self.last_epoch == 0:
            return [lr * self.start_factor for lr in lrs]
        if self.last_epoch > self.total_iters:
            return lrs
        span = self.end_factor - self.start_factor
        ratio = 1.0 + span / (self.total_iters * self.start_factor + (self.last_epoch - 1) * span)
        return [lr * ratio for lr in lrs]

    def _closed_form_lr(self) -> list:
        t = min(self.total_iters, self.last_epoch) / self.total_iters
        f = self.start_factor + (self.end_factor - self.start_factor) * t
        return [b * f for b in self.base_lrs]


class ExponentialLR(LRScheduler):
    """lr = base_lr * gamma ** last_epoch."""

    def __init__(self, optimizer: Optimizer, gamma: float, last_epoch: int = -1) -> None:
        _check_number("ExponentialLR", "gamma", gamma)
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list:
        lrs = self._current_lrs()
        return lrs if self.last_epoch == 0 else [lr * self.gamma for lr in lrs]

    def _closed_form_lr(self) -> list:
        return [b * self.gamma**self.last_epoch for b in self.base_lrs]


class CosineAnnealingLR(LRScheduler):
    """lr = eta_min + (base_lr - eta_min) * (1 + cos(pi * last_epoch / T_max)) / 2, stepped
    in torch's recursive form (which keeps going past T_max, back up and down again)."""

    def __init__(self, optimizer: Optimizer, T_max: int, eta_min: float = 0.0,
                 last_epoch: int = -1) -> None:  # fmt: skip
        _check_int("CosineAnnealingLR", "T_max", T_max, 1)
        _check_number("CosineAnnealingLR", "eta_min", eta_min)
        self.T_max, self.eta_min = T_max, eta_min
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list:
        t, T, lo = self.last_epoch, self.T_max, self.eta_min
        lrs = self._current_lrs()
        if t == 0:
            return lrs
        if self._step_count == 1 and t > 0:  # resumed at last_epoch > 0
            return self._closed_form_lr()
        if (t - 1 - T) % (2 * T) == 0:  # the turn at the bottom of the cosine
            return [lr + (b - lo) * (1 - math.cos(math.pi / T)) / 2
                    for lr, b in zip(lrs, self.base_lrs)]  # fmt: skip
        scale = (1 + math.cos(math.pi * t / T)) / (1 + math.cos(math.pi * (t - 1) / T))
        return [(lr - lo) * scale + lo for lr in lrs]

    def _closed_form_lr(self) -> list:
        c = (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2
        return [self.eta_min + (b - self.eta_min) * c for b in self.base_lrs]


class SequentialLR(LRScheduler):
    """Hands the steps to `schedulers` in turn, switching at each of `milestones` (the next
    scheduler restarts from its epoch 0)."""

    def __init__(self, optimizer: Optimizer, schedulers: Sequence[LRScheduler],
                 milestones: Sequence[int], last_epoch: int = -1) -> None:  # fmt: skip
        _check_optimizer(optimizer, "SequentialLR")
        if not isinstance(schedulers, (list, tuple)) or not schedulers:
            raise ValueError("SequentialLR expects a non-empty list of schedulers")
        for i, s in enumerate(schedulers):
            if not isinstance(s, LRScheduler):
                raise TypeError(
                    f"SequentialLR: schedulers[{i}] must be an LRScheduler, not {type(s).__name__}"
                )
            if isinstance(s, ReduceLROnPlateau):
                raise ValueError("SequentialLR does not support ReduceLROnPlateau")
            if s.optimizer is not optimizer:
                raise ValueError(
                    f"SequentialLR: schedulers[{i}] is bound to another optimizer than the "
                    "one given"
                )
        if len(milestones) != len(schedulers) - 1:
            raise ValueError(
                "Sequential Schedulers expects number of schedulers provided to be one more "
                f"than the number of milestone points, but got {len(schedulers)} schedulers "
                f"and {len(milestones)} milestones"
            )
        self._schedulers = list(schedulers)
        self._milestones = list(milestones)
        self.last_epoch = last_epoch + 1
        self.optimizer = optimizer
        for group in optimizer.param_groups:  # undo what the schedulers' own first steps did
            group["lr"] = group["initial_lr"]
        for s in self._schedulers:
            s.last_epoch -= 1
        self._schedulers[0]._initial_step()
        self._last_lr = self._schedulers[0].get_last_lr()

    def step(self) -> None:  # type: ignore[override]
        self.last_epoch += 1
        idx = bisect.bisect_right(self._milestones, self.last_epoch)
        s = self._schedulers[idx]
        if idx > 0 and self._milestones[idx - 1] == self.last_epoch:
            s.step(0)
        else:
            s.step()
        self._last_lr = s.get_last_lr()

    def state_dict(self) -> dict:
        state = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "_schedulers")}
        state["_schedulers"] = [s.state_dict() for s in self._schedulers]
        return state

    def load_state_dict(self, state_dict: dict) -> None:
        state = dict(state_dict)
        inner = state.pop("_schedulers")
        super().load_state_dict(state)
        for s, sd in zip(self._schedulers, inner):
            s.load_state_dict(sd)


class CosineAnnealingWarmRestarts(LRScheduler):
    """Cosine annealing from base_lr to eta_min over T_i steps, then a restart at base_lr with
    T_i multiplied by T_mult (T_0 first); step(epoch) accepts fractional epochs, as torch."""

    def __init__(self, optimizer: Optimizer, T_0: int, T_mult: int = 1, eta_min: float = 0.0,
                 last_epoch: int = -1) -> None:  # fmt: skip
        _check_int("CosineAnnealingWarmRestarts", "T_0", T_0, 1)
        _check_int("CosineAnnealingWarmRestarts", "T_mult", T_mult, 1)
        _check_number("CosineAnnealingWarmRestarts", "eta_min", eta_min)
        self.T_0, self.T_i, self.T_mult, self.eta_min = T_0, T_0, T_mult, eta_min
        self.T_cur = last_epoch
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list:
        c = (1 + math.cos(math.pi * self.T_cur / self.T_i)) / 2
        return [self.eta_min + (b - self.eta_min) * c for b in self.base_lrs]

    def _seek(self, epoch: float) -> None:
        """T_i and T_cur for an absolute (possibly fractional) epoch."""
        if epoch < self.T_0:
            self.T_i, self.T_cur = self.T_0, epoch
        elif self.T_mult == 1:
            self.T_i, self.T_cur = self.T_0, epoch % self.T_0
        else:
            n = int(math.log(epoch / self.T_0 * (self.T_mult - 1) + 1, self.T_mult))
            self.T_cur = epoch - self.T_0 * (self.T_mult**n - 1) / (self.T_mult - 1)
            self.T_i = self.T_0 * self.T_mult**n

    def step(self, epoch: float | None = None) -> None:
        self._step_count += 1
        if epoch is None and self.last_epoch < 0:
            epoch = 0
        if epoch is None:
            epoch = self.last_epoch + 1
            self.T_cur += 1
            if self.T_cur >= self.T_i:
                self.T_cur -= self.T_i
                self.T_i *= self.T_mult
        else:
            _check_number("CosineAnnealingWarmRestarts", "epoch", epoch)
            if epoch < 0:
                raise ValueError(f"Expected non-negative epoch, but got {epoch}")
            self._seek(epoch)
        self.last_epoch = math.floor(epoch)
        for group, lr in zip(self.optimizer.param_groups, self.get_lr()):
            group["lr"] = lr
        self._last_lr = self._current_lrs()


def _per_group(who: str, optimizer: Optimizer, name: str, value: Any) -> list:
    n = len(optimizer.param_groups)
    values = list(value) if isinstance(value, (list, tuple)) else [value] * n
    if len(values) != n:
        raise ValueError(f"{who}: expected {n} values for {name}, got {len(values)}")
    for v in values:
        _check_number(who, name, v)
    return values


_CYCLIC_MODES = {  # scale function of the cycle number or iteration, and which one it takes
    "triangular": (lambda x, gamma: 1.0, "cycle"),
    "triangular2": (lambda x, gamma: 1 / (2.0 ** (x - 1)), "cycle"),
    "exp_range": (lambda x, gamma: gamma**x, "iterations"),
}


class CyclicLR(LRScheduler):
    """The lr cycles between base_lr and max_lr (step_size_up steps up, step_size_down down),
    the amplitude scaled per mode or by scale_fn; momentum (or Adam's beta1) cycles inversely
    between max_momentum and base_momentum. Step it after every batch."""

    def __init__(self, optimizer: Optimizer, base_lr: float | Sequence[float],
                 max_lr: float | Sequence[float], step_size_up: int = 2000,
                 step_size_down: int | None = None, mode: str = "triangular", gamma: float = 1.0,
                 scale_fn: Callable | None = None, scale_mode: str = "cycle",
                 cycle_momentum: bool = True, base_momentum: float | Sequence[float] = 0.8,
                 max_momentum: float | Sequence[float] = 0.9,
                 last_epoch: int = -1) -> None:  # fmt: skip
        who = "CyclicLR"
        _check_optimizer(optimizer, who)
        base_lrs = _per_group(who, optimizer, "base_lr", base_lr)
        if last_epoch == -1:
            for lr, group in zip(base_lrs, optimizer.param_groups):
                group["lr"] = lr
        self.max_lrs = _per_group(who, optimizer, "max_lr", max_lr)
        up = float(step_size_up)
        down = float(step_size_down) if step_size_down is not None else up
        if up <= 0 or down < 0:
            raise ValueError(
                f"{who}: step sizes must be positive, got {step_size_up}, {step_size_down}"
            )
        self.total_size, self.step_ratio = up + down, up / (up + down)
        if scale_fn is None and mode not in _CYCLIC_MODES:
            raise ValueError("mode is invalid and scale_fn is None")
        if scale_fn is None:
            fn, self.scale_mode = _CYCLIC_MODES[mode]
            self._scale_fn = lambda x: fn(x, gamma)
        else:
            if scale_mode not in ("cycle", "iterations"):
                raise ValueError(
                    f"{who}: scale_mode must be 'cycle' or 'iterations', got {scale_mode!r}"
                )
            self._scale_fn, self.scale_mode = scale_fn, scale_mode
        self.mode, self.gamma, self.cycle_momentum = mode, gamma, cycle_momentum
        if cycle_momentum:
            if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
                raise ValueError(
                    "optimizer must support momentum or beta1 with `cycle_momentum` option enabled"
                )
            self.use_beta1 = "betas" in optimizer.defaults
            self.base_momentums = _per_group(who, optimizer, "base_momentum", base_momentum)
            self.max_momentums = _per_group(who, optimizer, "max_momentum", max_momentum)
            if last_epoch == -1:
                for m, group in zip(self.max_momentums, optimizer.param_groups):
                    self._set_momentum(group, m)
        super().__init__(optimizer, last_epoch)
        self.base_lrs = base_lrs

    def _set_momentum(self, group: dict, value: float) -> None:
        if self.use_beta1:
            group["betas"] = (value, *group["betas"][1:])
        else:
            group["momentum"] = value

    def get_lr(self) -> list:
        cycle = math.floor(1 + self.last_epoch / self.total_size)
        x = 1.0 + self.last_epoch / self.total_size - cycle
        if x <= self.step_ratio:
            factor = x / self.step_ratio
        else:
            factor = (x - 1) / (self.step_ratio - 1)
        scale = self._scale_fn(cycle if self.scale_mode == "cycle" else self.last_epoch)
        lrs = [b + (m - b) * factor * scale for b, m in zip(self.base_lrs, self.max_lrs)]
        if self.cycle_momentum:
            for group, b, m in zip(self.optimizer.param_groups, self.base_momentums,
                                   self.max_momentums):  # fmt: skip
                self._set_momentum(group, m - (m - b) * factor * scale)
        return lrs

    def state_dict(self) -> dict:
        """As the base, less the scale function (a lambda, as torch leaves it out)."""
        return {k: v for k, v in super().state_dict().items() if k != "_scale_fn"}


class OneCycleLR(LRScheduler):
    """The 1cycle policy: lr rises from max_lr / div_factor to max_lr over pct_start of
    total_steps, then anneals to max_lr / (div_factor * final_div_factor) (three_phase: back
    to the start first); momentum (or Adam's beta1) moves the other way."""

    def __init__(self, optimizer: Optimizer, max_lr: float | Sequence[float],
                 total_steps: int | None = None, epochs: int | None = None,
                 steps_per_epoch: int | None = None, pct_start: float = 0.3,
                 anneal_strategy: str = "cos", cycle_momentum: bool = True,
                 base_momentum: float | Sequence[float] = 0.85,
                 max_momentum: float | Sequence[float] = 0.95, div_factor: float = 25.0,
                 final_div_factor: float = 1e4, three_phase: bool = False,
                 last_epoch: int = -1) -> None:  # fmt: skip
        _check_optimizer(optimizer, "OneCycleLR")
        self.optimizer = optimizer
        if total_steps is not None:
            _check_int("OneCycleLR", "total_steps", total_steps, 1)
            self.total_steps = total_steps
        elif epochs is not None and steps_per_epoch is not None:
            _check_int("OneCycleLR", "epochs", epochs, 1)
            _check_int("OneCycleLR", "steps_per_epoch", steps_per_epoch, 1)
            self.total_steps = epochs * steps_per_epoch
        else:
            raise ValueError("You must define either total_steps OR (epochs AND steps_per_epoch)")
        _check_number("OneCycleLR", "pct_start", pct_start)
        if not 0 <= pct_start <= 1:
            raise ValueError(f"Expected float between 0 and 1 pct_start, but got {pct_start}")
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(
                f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}"
            )
        self.anneal_strategy = anneal_strategy
        n = self.total_steps
        if three_phase:
            ends = [pct_start * n - 1, 2 * pct_start * n - 2, n - 1]
            spans = [("initial_lr", "max_lr"), ("max_lr", "initial_lr"), ("initial_lr", "min_lr")]
            moms = [("max_momentum", "base_momentum"), ("base_momentum", "max_momentum"),
                    ("max_momentum", "max_momentum")]  # fmt: skip
        else:
            ends = [pct_start * n - 1, n - 1]
            spans = [("initial_lr", "max_lr"), ("max_lr", "min_lr")]
            moms = [("max_momentum", "base_momentum"), ("base_momentum", "max_momentum")]
        self._schedule_phases = [
            dict(end_step=float(e), start_lr=s[0], end_lr=s[1], start_momentum=m[0],
                 end_momentum=m[1])
            for e, s, m in zip(ends, spans, moms)
        ]  # fmt: skip
        groups = optimizer.param_groups
        max_lrs = self._per_group("max_lr", max_lr)
        if last_epoch == -1:
            for lr, group in zip(max_lrs, groups):
                group["initial_lr"] = lr / div_factor
                group["max_lr"] = lr
                group["min_lr"] = group["initial_lr"] / final_div_factor
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
                raise ValueError(
                    "optimizer must support momentum or beta1 with `cycle_momentum` option enabled"
                )
            self.use_beta1 = "betas" in optimizer.defaults
            bases = self._per_group("base_momentum", base_momentum)
            maxes = self._per_group("max_momentum", max_momentum)
            if last_epoch == -1:
                for lo, hi, group in zip(bases, maxes, groups):
                    self._set_momentum(group, hi)
                    group["max_momentum"], group["base_momentum"] = hi, lo
        super().__init__(optimizer, last_epoch)

    def _per_group(self, name: str, value: Any) -> list:
        n = len(self.optimizer.param_groups)
        if isinstance(value, (list, tuple)):
            if len(value) != n:
                raise ValueError(f"expected {n} values for {name}, got {len(value)}")
            values = list(value)
        else:
            values = [value] * n
        for v in values:
            _check_number("OneCycleLR", name, v)
        return values

    def _set_momentum(self, group: dict, value: float) -> None:
        if self.use_beta1:
            group["betas"] = (value, *group["betas"][1:])
        else:
            group["momentum"] = value

    def _anneal(self, start: float, end: float, pct: float) -> float:
        if self.anneal_strategy == "cos":
            return end + (start - end) / 2.0 * (math.cos(math.pi * pct) + 1)
        return (end - start) * pct + start

    def get_lr(self) -> list:
        step = self.last_epoch
        if step > self.total_steps:
            raise ValueError(
                f"Tried to step {step} times. The specified number of total steps is "
                f"{self.total_steps}"
            )
        lrs = []
        for group in self.optimizer.param_groups:
            start = 0.0
            for i, phase in enumerate(self._schedule_phases):
                end = phase["end_step"]
                if step <= end or i == len(self._schedule_phases) - 1:
                    pct = (step - start) / (end - start)
                    lr = self._anneal(group[phase["start_lr"]], group[phase["end_lr"]], pct)
                    if self.cycle_momentum:
                        mom = self._anneal(group[phase["start_momentum"]],
                                           group[phase["end_momentum"]], pct)  # fmt: skip
                    break
                start = end
            lrs.append(lr)
            if self.cycle_momentum:
                self._set_momentum(group, mom)
        return lrs


class ReduceLROnPlateau(LRScheduler):
    """Multiply the lr by `factor` once the metric passed to step() has not improved for
    more than `patience` steps (then wait `cooldown` steps); never below min_lr."""

    def __init__(self, optimizer: Optimizer, mode: str = "min", factor: float = 0.1,
                 patience: int = 10, threshold: float = 1e-4, threshold_mode: str = "rel",
                 cooldown: int = 0, min_lr: float | Sequence[float] = 0,
                 eps: float = 1e-8) -> None:  # fmt: skip
        _check_optimizer(optimizer, "ReduceLROnPlateau")
        _check_number("ReduceLROnPlateau", "factor", factor)
        if factor >= 1.0:
            raise ValueError("Factor should be < 1.0.")
        _check_int("ReduceLROnPlateau", "patience", patience, 0)
        _check_int("ReduceLROnPlateau", "cooldown", cooldown, 0)
        _check_number("ReduceLROnPlateau", "threshold", threshold)
        _check_number("ReduceLROnPlateau", "eps", eps)
        if mode not in ("min", "max"):
            raise ValueError("mode " + str(mode) + " is unknown!")
        if threshold_mode not in ("rel", "abs"):
            raise ValueError("threshold mode " + str(threshold_mode) + " is unknown!")
        n = len(optimizer.param_groups)
        if isinstance(min_lr, (list, tuple)):
            if len(min_lr) != n:
                raise ValueError(f"expected {n} min_lrs, got {len(min_lr)}")
            self.min_lrs = list(min_lr)
        else:
            _check_number("ReduceLROnPlateau", "min_lr", min_lr)
            self.min_lrs = [min_lr] * n
        self.optimizer = optimizer
        self.factor, self.patience, self.cooldown = factor, patience, cooldown
        self.mode, self.threshold, self.threshold_mode, self.eps = (
            mode,
            threshold,
            threshold_mode,
            eps,
        )
        self.cooldown_counter = 0
        self.last_epoch = 0
        self.best = math.inf if mode == "min" else -math.inf
        self.num_bad_epochs = 0
        self._last_lr = self._current_lrs()

    def step(self, metrics: Any, epoch: int | None = None) -> None:  # type: ignore[override]
        try:
            current = float(metrics)
        except (TypeError, ValueError):
            raise TypeError(
                "ReduceLROnPlateau.step: metrics must be a number or a one-element tensor, "
                f"not {type(metrics).__name__}"
            ) from None
        self.last_epoch = self.last_epoch + 1 if epoch is None else epoch
        if self.is_better(current, self.best):
            self.best, self.num_bad_epochs = current, 0
        else:
            self.num_bad_epochs += 1
        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
            self.num_bad_epochs = 0
        if self.num_bad_epochs > self.patience:
            for group, floor in zip(self.optimizer.param_groups, self.min_lrs):
                old = float(group["lr"])
                new = max(old * self.factor, floor)
                if old - new > self.eps:
                    group["lr"] = new
            self.cooldown_counter = self.cooldown
            self.num_bad_epochs = 0
        self._last_lr = self._current_lrs()

    @property
    def in_cooldown(self) -> bool:
        return self.cooldown_counter > 0

    def is_better(self, a: float, best: float) -> bool:
        rel = self.threshold_mode == "rel"
        if self.mode == "min":
            return a < (best * (1.0 - self.threshold) if rel else best - self.threshold)
        return a > (best * (1.0 + self.threshold) if rel else best + self.threshold)
