"""Shared by the training examples: the custom C++ op (a SiLU built with load_inline and
wrapped as an autograd Function and a Module), a text progress bar, the train/eval loops and
the loss/accuracy plot."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

import sdk
from sdk import nn

CPP_SOURCE = r"""
sdk::Tensor silu_forward(sdk::Tensor x) {
  return x * sdk::sigmoid(x);
}

// d/dx [x s(x)] = s(x) (1 + x (1 - s(x)))
sdk::Tensor silu_backward(sdk::Tensor grad, sdk::Tensor x) {
  auto s = sdk::sigmoid(x);
  return grad * s * (1 + x * (1 - s));
}
"""

_ext: Any = None


def cpp_ops() -> Any:
    """The compiled extension (built on first use; cpp_extension caches the build)."""
    global _ext
    if _ext is None:
        from cpp_extension import load_inline

        _ext = load_inline(name="train_silu", cpp_sources=CPP_SOURCE,
                           functions=["silu_forward", "silu_backward"])  # fmt: skip
    return _ext


class CppSiLUFunction(sdk.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: Any) -> Any:
        ctx.save_for_backward(x)
        return cpp_ops().silu_forward(x.contiguous())

    @staticmethod
    def backward(ctx: Any, grad: Any) -> Any:
        (x,) = ctx.saved_tensors
        return cpp_ops().silu_backward(grad.contiguous(), x)


class CppSiLU(nn.Module):
    """nn.SiLU computed by the custom C++ op (use_cpp=False: sdk's own silu, same values)."""

    def __init__(self, use_cpp: bool = True) -> None:
        super().__init__()
        self.use_cpp = use_cpp

    def forward(self, x: Any) -> Any:
        return CppSiLUFunction.apply(x) if self.use_cpp else nn.functional.silu(x)


class ProgressBar:
    """A one-line text progress bar on stderr: `label [#####.....] 12/40 loss 0.532`."""

    def __init__(self, total: int, label: str, width: int = 24, enabled: bool = True) -> None:
        self.total, self.label, self.width, self.enabled = total, label, width, enabled
        self.n = 0

    def update(self, **info: float) -> None:
        self.n += 1
        if not self.enabled:
            return
        done = self.width * self.n // max(self.total, 1)
        extra = " ".join(f"{k} {v:.3g}" for k, v in info.items())
        sys.stderr.write(f"\r{self.label} [{'#' * done}{'.' * (self.width - done)}] "
                         f"{self.n}/{self.total} {extra}")  # fmt: skip
        if self.n == self.total:
            sys.stderr.write("\n")
        sys.stderr.flush()


def train_epoch(model: Any, loader: Any, opt: Any, sched: Any, loss_fn: Any, label: str,
                bar: bool = True, step_per_batch: bool = True) -> float:  # fmt: skip
    """One pass over loader; returns the mean training loss."""
    model.train()
    total, count = 0.0, 0
    progress = ProgressBar(len(loader), label, enabled=bar)
    for xb, yb in loader:
        opt.zero_grad()
        loss = loss_fn(model(xb), yb)
        loss.backward()
        opt.step()
        if sched is not None and step_per_batch:
            sched.step()
        total += float(loss.item()) * len(yb)
        count += len(yb)
        progress.update(loss=total / count, lr=opt.param_groups[0]["lr"])
    if sched is not None and not step_per_batch:
        sched.step()
    return total / count


def evaluate(model: Any, loader: Any, loss_fn: Any) -> tuple[float, float]:
    """(mean loss, accuracy) over loader, without recording a graph."""
    model.eval()
    total, correct, count = 0.0, 0, 0
    with sdk.inference_mode():
        for xb, yb in loader:
            out = model(xb)
            total += float(loss_fn(out, yb).item()) * len(yb)
            correct += int((out.argmax(-1) == yb).sum().item())
            count += len(yb)
    return total / count, correct / count


def save_history(history: list[dict], path: Path) -> str:
    """The loss/accuracy curves as a PNG when matplotlib is installed, else as CSV."""
    if not history:
        return "no history"
    keys = list(history[0])
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        csv = path.with_suffix(".csv")
        lines = [",".join(keys)] + [",".join(f"{h[k]:.6g}" for k in keys) for h in history]
        csv.write_text("\n".join(lines) + "\n")
        return f"history written to {csv} (install matplotlib for a plot)"
    fig, (a, b) = plt.subplots(1, 2, figsize=(9, 3.5))
    epochs = [h["epoch"] for h in history]
    a.plot(epochs, [h["train_loss"] for h in history], label="train")
    a.plot(epochs, [h["val_loss"] for h in history], label="validation")
    a.set_xlabel("epoch")
    a.set_ylabel("loss")
    a.legend()
    b.plot(epochs, [h["val_acc"] for h in history], color="C2")
    b.set_xlabel("epoch")
    b.set_ylabel("validation accuracy")
    fig.tight_layout()
    png = path.with_suffix(".png")
    fig.savefig(png, dpi=100)
    plt.close(fig)
    return f"plot written to {png}"


class Timer:
    def __enter__(self) -> Timer:
        self.start = time.perf_counter()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.seconds = time.perf_counter() - self.start
