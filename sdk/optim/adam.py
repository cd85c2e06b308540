"""Adam and AdamW (bias-corrected moments; optional amsgrad), torch's update rule."""

from __future__ import annotations

import math
from typing import Any, Callable, Iterable

import sdk
from sdk.grad_mode import no_grad

from .optimizer import Optimizer

__all__ = ["Adam", "AdamW"]


class Adam(Optimizer):
    _decoupled = False

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0.0,
        amsgrad: bool = False,
        *,
        maximize: bool = False,
    ) -> None:
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = dict(
            lr=lr,
            betas=tuple(betas),
            eps=eps,
            weight_decay=weight_decay,
            amsgrad=amsgrad,
            maximize=maximize,
        )
        super().__init__(params, defaults)

    @no_grad()
    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            lr, (beta1, beta2), eps = group["lr"], group["betas"], group["eps"]
            wd, amsgrad, maximize = group["weight_decay"], group["amsgrad"], group["maximize"]
            for p in group["params"]:
                g = p.grad
                if g is None:
                    continue
                if maximize:
                    g = -g
                state = self.state[p]
                if not state:
                    state["step"] = 0
                    state["exp_avg"] = sdk.zeros_like(p)
                    state["exp_avg_sq"] = sdk.zeros_like(p)
                    if amsgrad:
                        state["max_exp_avg_sq"] = sdk.zeros_like(p)
                state["step"] += 1
                step = state["step"]
                if wd != 0:
                    if self._decoupled:
                        p.mul_(1 - lr * wd)
                    else:
                        g = g + p * wd
                exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
                exp_avg.mul_(beta1)
                exp_avg.add_(g * (1 - beta1))
                exp_avg_sq.mul_(beta2)
                exp_avg_sq.add_(g * g * (1 - beta2))
                bc1 = 1 - beta1**step
                bc2_sqrt = math.sqrt(1 - beta2**step)
                if amsgrad:
                    m = state["max_exp_avg_sq"]
                    m.copy_(sdk.maximum(m, exp_avg_sq))
                    second = m
                else:
                    second = exp_avg_sq
                denom = second.sqrt() / bc2_sqrt + eps
                p.sub_(exp_avg / denom * (lr / bc1))
        return loss


class AdamW(Adam):
    """Adam with decoupled weight decay (default 1e-2)."""

    _decoupled = True

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 1e-2,
        amsgrad: bool = False,
        *,
        maximize: bool = False,
    ) -> None:
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, maximize=maximize)
