"""NAdam: Adam with Nesterov momentum, whose momentum warms up by momentum_decay (torch's
update rule, optional decoupled weight decay)."""

from __future__ import annotations

from typing import Any, Callable, Iterable

import sdk
from sdk.grad_mode import no_grad

from ._checks import check_adam_args
from .optimizer import Optimizer

__all__ = ["NAdam"]


class NAdam(Optimizer):
    def __init__(self, params: Iterable[Any], lr: float = 2e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0.0, momentum_decay: float = 4e-3,
                 decoupled_weight_decay: bool = False, *, maximize: bool = False) -> None:  # fmt: skip
        check_adam_args(lr, betas, eps, weight_decay)
        if not 0.0 <= momentum_decay:
            raise ValueError(f"Invalid momentum_decay value: {momentum_decay}")
        defaults = dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay,
                        momentum_decay=momentum_decay,
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
            state.update(step=0, mu_product=1.0, exp_avg=sdk.zeros_like(p),
                         exp_avg_sq=sdk.zeros_like(p))  # fmt: skip
        state["step"] += 1
        step = state["step"]
        if wd != 0:
            if group["decoupled_weight_decay"]:
                p.mul_(1 - lr * wd)
            else:
                g = g + p * wd
        decay = group["momentum_decay"]
        mu = beta1 * (1.0 - 0.5 * 0.96 ** (step * decay))
        mu_next = beta1 * (1.0 - 0.5 * 0.96 ** ((step + 1) * decay))
        state["mu_product"] *= mu
        mu_product = state["mu_product"]
        exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
        exp_avg.mul_(beta1).add_(g * (1 - beta1))
        exp_avg_sq.mul_(beta2).add_(g * g * (1 - beta2))
        denom = (exp_avg_sq / (1 - beta2**step)).sqrt() + eps
        p.sub_(g / denom * (lr * (1.0 - mu) / (1.0 - mu_product)))
        p.sub_(exp_avg / denom * (lr * mu_next / (1.0 - mu_product * mu_next)))
