"""nn.utils: gradient clipping and parameter/vector conversion (torch.nn.utils)."""

from __future__ import annotations

import math
from typing import Any, Iterable

import sdk

__all__ = ["clip_grad_norm_", "clip_grad_value_", "parameters_to_vector", "vector_to_parameters"]


def _grads(parameters: Any) -> list:
    if isinstance(parameters, sdk.Tensor):
        parameters = [parameters]
    return [p.grad for p in parameters if p.grad is not None]


def clip_grad_norm_(
    parameters: Any, max_norm: float, norm_type: float = 2.0, error_if_nonfinite: bool = False
) -> Any:
    """Scale the gradients in place so that their joint norm is at most max_norm; returns the
    norm before clipping."""
    grads = _grads(parameters)
    if not grads:
        return sdk.tensor(0.0)
    with sdk.no_grad():
        norms = sdk.stack([sdk.norm(g.detach().float(), norm_type) for g in grads])
        total = sdk.norm(norms, norm_type)
        if error_if_nonfinite and not math.isfinite(total.item()):
            raise RuntimeError(
                f"The total norm of order {norm_type} for gradients from `parameters` is "
                "non-finite, so it cannot be clipped."
            )
        coef = float(max_norm) / (total.item() + 1e-6)
        if coef < 1.0:
            for g in grads:
                g.mul_(coef)
    return total


def clip_grad_value_(parameters: Any, clip_value: float) -> None:
    """Clamp every gradient to [-clip_value, clip_value] in place."""
    with sdk.no_grad():
        for g in _grads(parameters):
            g.clamp_(-clip_value, clip_value)


def parameters_to_vector(parameters: Iterable[Any]) -> Any:
    return sdk.cat([p.reshape(-1) for p in parameters])


def vector_to_parameters(vec: Any, parameters: Iterable[Any]) -> None:
    offset = 0
    with sdk.no_grad():
        for p in parameters:
            n = p.numel()
            p.copy_(vec[offset : offset + n].view_as(p))
            offset += n
