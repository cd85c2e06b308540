"""Adagrad, torch's update rule (lr decay, weight decay, initial accumulator)."""

from __future__ import annotations

from typing import Any, Callable, Iterable

import sdk
from sdk.grad_mode import no_grad

from .optimizer import Optimizer
from .rmsprop import _check

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    """sum += g^2; p -= clr * g / (sqrt(sum) + eps), clr = lr / (1 + (step - 1) * lr_decay)."""

    def __init__(self, params: Iterable[Any], lr: float = 1e-2, lr_decay: float = 0.0,
                 weight_decay: float = 0.0, initial_accumulator_value: float = 0.0,
                 eps: float = 1e-10, foreach: Any = None, *, maximize: bool = False,
                 differentiable: bool = False, fused: Any = None) -> None:  # fmt: skip
        _check("learning rate", lr)
        _check("lr_decay value", lr_decay)
        _check("weight_decay value", weight_decay)
        _check("initial_accumulator_value value", initial_accumulator_value)
        _check("epsilon value", eps)
        defaults = dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
                        initial_accumulator_value=initial_accumulator_value,
                        maximize=maximize)  # fmt: skip
        super().__init__(params, defaults)
        for group in self.param_groups:  # torch creates the state up front
            for p in group["params"]:
                state = self.state[p]
                state["step"] = 0
                state["sum"] = sdk.full_like(p, group["initial_accumulator_value"])

    @no_grad()
    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            lr, lr_decay, eps, wd = (
                group["lr"],
                group["lr_decay"],
                group["eps"],
                group["weight_decay"],
            )
            for p in group["params"]:
                g = p.grad
                if g is None:
                    continue
                if group["maximize"]:
                    g = -g
                state = self.state[p]
                state["step"] += 1
                if wd != 0:
                    g = g + p * wd
                clr = lr / (1 + (state["step"] - 1) * lr_decay)
                s = state["sum"]
                s.add_(g * g)
                p.sub_(g / (s.sqrt() + eps) * clr)
        return loss
