"""RAdam: Adam whose adaptive step is switched on, and rectified, once the variance of the
second moment is tractable (torch's update rule, optional decoupled weight decay)."""

from __future__ import annotations

import math
from typing import Any, Callable, Iterable

import sdk
from sdk.grad_mode import no_grad

from ._checks import check_adam_args
from .optimizer import Optimizer

__all__ = ["RAdam"]


class RAdam(Optimizer):
    def __init__(self, params: Iterable[Any], lr: float = 1e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0.0, decoupled_weight_decay: bool = False, *,
                 maximize: bool = False) -> None:  # fmt: skip
        check_adam_args(lr, betas, eps, weight_decay)
        defaults = dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay,
                        decoupled_weight_decay=decoupled_weight_decay, maximize=maximize)  # fmt: skip
        super().__init__(params, defaults)

    @no_grad()
    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        return self._step_each(closure)

    def _update(self, p: Any, group: dict) -> None:
        lr, (beta1, beta2), eps, wd = (
            group["lr"],
            group["betas"],
            group["eps"],
            group["weight_decay"],
        )
        g = -p.grad if group["maximize"] else p.grad
        state = self.state[p]
        if not state:
            state.update(step=0, exp_avg=sdk.zeros_like(p), exp_avg_sq=sdk.zeros_like(p))
        state["step"] += 1
        step = state["step"]
        if wd != 0:
            if group["decoupled_weight_decay"]:
                p.mul_(1 - lr * wd)
            else:
                g = g + p * wd
        exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
        exp_avg.mul_(beta1).add_(g * (1 - beta1))
        exp_avg_sq.mul_(beta2).add_(g * g * (1 - beta2))
        bc1, bc2 = 1 - beta1**step, 1 - beta2**step
        # rho: length of the approximated simple moving average; its variance is finite past 4,
        # and torch switches the adaptive term on above 5.
        rho_inf = 2 / (1 - beta2) - 1
        rho_t = rho_inf - 2 * step * beta2**step / bc2
        if rho_t > 5.0:
            rect = math.sqrt((rho_t - 4) * (rho_t - 2) * rho_inf
                             / ((rho_inf - 4) * (rho_inf - 2) * rho_t))  # fmt: skip
            adaptive = math.sqrt(bc2) / (exp_avg_sq.sqrt() + eps)
            p.sub_(exp_avg / bc1 * adaptive * (lr * rect))
        else:
            p.sub_(exp_avg * (lr / bc1))
