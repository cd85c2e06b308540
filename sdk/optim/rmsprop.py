"""RMSprop (optionally centered, with momentum), torch's update rule."""

from __future__ import annotations

from typing import Any, Callable, Iterable

import sdk
from sdk.grad_mode import no_grad

from .optimizer import Optimizer

__all__ = ["RMSprop"]


def _check(name: str, value: float, low: float = 0.0) -> None:
    if not value >= low:
        raise ValueError(f"Invalid {name}: {value}")


class RMSprop(Optimizer):
    """v = alpha * v + (1 - alpha) * g^2; p -= lr * g / (sqrt(v) + eps) (centered: v minus
    the squared running mean of g; momentum: a buffer of those steps)."""

    def __init__(self, params: Iterable[Any], lr: float = 1e-2, alpha: float = 0.99,
                 eps: float = 1e-8, weight_decay: float = 0.0, momentum: float = 0.0,
                 centered: bool = False, capturable: bool = False, foreach: Any = None,
                 maximize: bool = False, differentiable: bool = False) -> None:  # fmt: skip
        _check("learning rate", lr)
        _check("epsilon value", eps)
        _check("momentum value", momentum)
        _check("weight_decay value", weight_decay)
        _check("alpha value", alpha)
        defaults = dict(lr=lr, alpha=alpha, eps=eps, weight_decay=weight_decay,
                        momentum=momentum, centered=centered, maximize=maximize)  # fmt: skip
        super().__init__(params, defaults)

    @no_grad()
    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            lr, alpha, eps = group["lr"], group["alpha"], group["eps"]
            wd, momentum, centered = group["weight_decay"], group["momentum"], group["centered"]
            for p in group["params"]:
                g = p.grad
                if g is None:
                    continue
                if group["maximize"]:
                    g = -g
                state = self.state[p]
                if not state:
                    state["step"] = 0
                    state["square_avg"] = sdk.zeros_like(p)
                    if momentum > 0:
                        state["momentum_buffer"] = sdk.zeros_like(p)
                    if centered:
                        state["grad_avg"] = sdk.zeros_like(p)
                state["step"] += 1
                if wd != 0:
                    g = g + p * wd
                sq = state["square_avg"]
                sq.mul_(alpha)
                sq.add_(g * g * (1 - alpha))
                if centered:
                    ga = state["grad_avg"]
                    ga.mul_(alpha)
                    ga.add_(g * (1 - alpha))
                    avg = (sq - ga * ga).sqrt() + eps
                else:
                    avg = sq.sqrt() + eps
                if momentum > 0:
                    buf = state["momentum_buffer"]
                    buf.mul_(momentum)
                    buf.add_(g / avg)
                    p.sub_(buf * lr)
                else:
                    p.sub_(g / avg * lr)
        return loss
