"""LBFGS: limited-memory BFGS over all parameters as one flat vector (torch's arguments, its
two-loop direction, first-step scaling and stopping tests), with a fixed step or a strong-Wolfe
line search (bracketing, then zoom by safeguarded cubic interpolation)."""

from __future__ import annotations

import math
from typing import Any, Callable, Iterable

import sdk
from sdk.grad_mode import enable_grad, no_grad

from .optimizer import Optimizer

__all__ = ["LBFGS"]


def _dot(a: Any, b: Any) -> float:
    return float((a * b).sum().item())


def _cubic_min(x1: float, f1: float, g1: float, x2: float, f2: float, g2: float,
               lo: float | None = None, hi: float | None = None) -> float:  # fmt: skip
    """The minimizer of the cubic through (x1, f1, slope g1) and (x2, f2, slope g2), clamped
    to [lo, hi] (the two points by default); their midpoint when the cubic has none."""
    lo, hi = (min(x1, x2), max(x1, x2)) if lo is None else (lo, hi)
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    disc = d1 * d1 - g1 * g2
    if disc < 0:
        return (lo + hi) / 2.0
    d2 = math.sqrt(disc)
    if x1 <= x2:
        t = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
    else:
        t = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
    return min(max(t, lo), hi)


class _Point:
    """One trial step t of the line search: loss f, flat gradient g and slope gtd along d."""

    __slots__ = ("t", "f", "g", "gtd")

    def __init__(self, t: float, f: float, g: Any, gtd: float) -> None:
        self.t, self.f, self.g, self.gtd = t, f, g, gtd


def _strong_wolfe(evaluate: Callable, d: Any, start: _Point, t: float, c1: float = 1e-4,
                  c2: float = 0.9, tolerance_change: float = 1e-9, max_ls: int = 25) -> tuple:  # fmt: skip
    """A step along d meeting the strong Wolfe conditions (sufficient decrease c1, curvature
    c2); returns (point, evaluations)."""
    d_norm = float(d.abs().max().item())
    prev, new = start, evaluate(t)
    evals, it = 1, 0
    bracket, done = None, False
    while it < max_ls:  # grow the step until an interval holding a Wolfe point is found
        if new.f > start.f + c1 * new.t * start.gtd or (it > 1 and new.f >= prev.f):
            bracket = [prev, new]
            break
        if abs(new.gtd) <= -c2 * start.gtd:
            bracket, done = [new], True
            break
        if new.gtd >= 0:
            bracket = [prev, new]
            break
        lo, hi = new.t + 0.01 * (new.t - prev.t), new.t * 10
        t = _cubic_min(prev.t, prev.f, prev.gtd, new.t, new.f, new.gtd, lo, hi)
        prev, new = new, evaluate(t)
        evals, it = evals + 1, it + 1
    if bracket is None:
        bracket = [start, new]
    if done or len(bracket) == 1:
        return bracket[0], evals
    return _zoom(evaluate, bracket, start, d_norm, c1, c2, tolerance_change, max_ls - it, evals)


def _zoom(evaluate: Callable, bracket: list, start: _Point, d_norm: float, c1: float, c2: float,
          tolerance_change: float, budget: int, evals: int) -> tuple:  # fmt: skip
    """Shrink the bracket [low, high] (low: the lower loss) to a strong-Wolfe point."""
    low, high = sorted(bracket, key=lambda p: p.f)
    stalled = False
    for _ in range(budget):
        a, b = sorted((low.t, high.t))
        if (b - a) * d_norm < tolerance_change:
            break
        t = _cubic_min(low.t, low.f, low.gtd, high.t, high.f, high.gtd)
        # Keep t away from the ends: a step stuck next to one makes no progress.
        margin = 0.1 * (b - a)
        if min(b - t, t - a) < margin:
            if stalled or t >= b or t <= a:
                t = b - margin if abs(t - b) < abs(t - a) else a + margin
                stalled = False
            else:
                stalled = True
        else:
            stalled = False
        new = evaluate(t)
        evals += 1
        if new.f > start.f + c1 * t * start.gtd or new.f >= low.f:
            high = new
            if high.f < low.f:
                low, high = high, low
            continue
        if abs(new.gtd) <= -c2 * start.gtd:
            return new, evals
        if new.gtd * (high.t - low.t) >= 0:
            high = low
        low = new
    return low, evals


class LBFGS(Optimizer):
    """torch.optim.LBFGS: one parameter group; step(closure) runs up to max_iter iterations,
    each evaluating the closure once (fixed step lr) or per line-search trial."""

    def __init__(self, params: Iterable[Any], lr: float = 1, max_iter: int = 20,
                 max_eval: int | None = None, tolerance_grad: float = 1e-7,
                 tolerance_change: float = 1e-9, history_size: int = 100,
                 line_search_fn: str | None = None) -> None:  # fmt: skip
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if line_search_fn not in (None, "strong_wolfe"):
            raise ValueError(
                f"only 'strong_wolfe' is supported as line_search_fn, got {line_search_fn!r}"
            )
        max_eval = max_iter * 5 // 4 if max_eval is None else max_eval
        defaults = dict(lr=lr, max_iter=max_iter, max_eval=max_eval, tolerance_grad=tolerance_grad,
                        tolerance_change=tolerance_change, history_size=history_size,
                        line_search_fn=line_search_fn)  # fmt: skip
        super().__init__(params, defaults)
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params = self.param_groups[0]["params"]

    def _flat_grad(self) -> Any:
        return sdk.cat([(sdk.zeros_like(p) if p.grad is None else p.grad).reshape(-1)
                        for p in self._params])  # fmt: skip

    def _add(self, t: float, d: Any) -> None:
        offset = 0
        for p in self._params:
            n = p.numel()
            p.add_(d[offset : offset + n].reshape(p.shape) * t)
            offset += n

    def _evaluate(self, closure: Callable) -> tuple:
        with enable_grad():
            loss = float(closure())
        return loss, self._flat_grad()

    def _direction(self, state: dict, g: Any, history_size: int) -> Any:
        """-H g by the two-loop recursion over the stored (step, gradient change) pairs."""
        if state["n_iter"] == 1:
            state.update(old_dirs=[], old_stps=[], ro=[], H_diag=1.0)
            return -g
        y, s = g - state["prev_flat_grad"], state["d"] * state["t"]
        ys = _dot(y, s)
        if ys > 1e-10:  # keep the pair only where the curvature condition holds
            if len(state["old_dirs"]) == history_size:
                for key in ("old_dirs", "old_stps", "ro"):
                    state[key].pop(0)
            state["old_dirs"].append(y)
            state["old_stps"].append(s)
            state["ro"].append(1.0 / ys)
            state["H_diag"] = ys / _dot(y, y)
        dirs, stps, ro = state["old_dirs"], state["old_stps"], state["ro"]
        q, alphas = -g, [0.0] * len(dirs)
        for i in reversed(range(len(dirs))):
            alphas[i] = _dot(stps[i], q) * ro[i]
            q = q - dirs[i] * alphas[i]
        r = q * state["H_diag"]
        for i in range(len(dirs)):
            r = r + stps[i] * (alphas[i] - _dot(dirs[i], r) * ro[i])
        return r

    def _line_search(self, closure: Callable, d: Any, loss: float, g: Any, t: float,
                     gtd: float) -> tuple:  # fmt: skip
        x0 = [p.clone() for p in self._params]

        def evaluate(step: float) -> _Point:
            self._add(step, d)
            f, grad = self._evaluate(closure)
            for p, x in zip(self._params, x0):
                p.copy_(x)
            return _Point(step, f, grad, _dot(grad, d))

        point, evals = _strong_wolfe(evaluate, d, _Point(0.0, loss, g, gtd), t)
        self._add(point.t, d)
        return point.f, point.g, point.t, evals

    @no_grad()
    def step(self, closure: Callable[[], Any]) -> Any:  # type: ignore[override]
        if closure is None:
            raise RuntimeError(
                "LBFGS.step requires a closure that reevaluates the model and returns the loss"
            )
        group = self.param_groups[0]
        lr, max_iter, max_eval = group["lr"], group["max_iter"], group["max_eval"]
        tol_grad, tol_change = group["tolerance_grad"], group["tolerance_change"]
        state = self.state[self._params[0]]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)
        with enable_grad():
            orig_loss = closure()
        loss, g = float(orig_loss), self._flat_grad()
        evals = 1
        state["func_evals"] += 1
        if float(g.abs().max().item()) <= tol_grad:
            return orig_loss
        for n_iter in range(1, max_iter + 1):
            state["n_iter"] += 1
            d = self._direction(state, g, group["history_size"])
            state["prev_flat_grad"], prev_loss = g.clone(), loss
            first = state["n_iter"] == 1
            t = min(1.0, 1.0 / float(g.abs().sum().item())) * lr if first else lr
            gtd = _dot(g, d)
            if gtd > -tol_change:  # not a descent direction any more
                break
            if group["line_search_fn"] == "strong_wolfe":
                loss, g, t, ls_evals = self._line_search(closure, d, loss, g, t, gtd)
            else:
                self._add(t, d)
                ls_evals = 0
                if n_iter != max_iter:  # the last iteration's loss is the next step's start
                    loss, g = self._evaluate(closure)
                    ls_evals = 1
            state["d"], state["t"] = d, t
            evals += ls_evals
            state["func_evals"] += ls_evals
            if n_iter == max_iter or evals >= max_eval:
                break
            if float(g.abs().max().item()) <= tol_grad:
                break
            if (
                float(d.abs().max().item()) * abs(t) <= tol_change
                or abs(loss - prev_loss) < tol_change
            ):
                break
        return orig_loss
