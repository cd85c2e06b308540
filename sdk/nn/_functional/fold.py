"""unfold (im2col) and fold (col2im) over 4-D (N, C, H, W) input, as torch's, built from
differentiable views and pads, so their gradients come from autograd."""

from __future__ import annotations

from typing import Any

from .common import _tuple, check_tensor
from .padding import pad
from .pooling import _out_len

__all__ = ["unfold", "fold"]


def _params(fn: str, kernel_size: Any, dilation: Any, padding: Any, stride: Any) -> tuple:
    k, d = _tuple(kernel_size, 2, fn, "kernel_size"), _tuple(dilation, 2, fn, "dilation")
    p, s = _tuple(padding, 2, fn, "padding"), _tuple(stride, 2, fn, "stride")
    if min(*k, *d, *s) < 1 or min(p) < 0:
        raise ValueError(
            f"{fn}: kernel_size, dilation and stride must be positive and padding non-negative, "
            f"got kernel_size={k}, dilation={d}, padding={p}, stride={s}"
        )
    return k, d, p, s


def _blocks(fn: str, size: tuple, k: tuple, d: tuple, p: tuple, s: tuple) -> tuple:
    """The number of sliding blocks along each spatial dimension."""
    out = tuple(_out_len(size[i], k[i], s[i], p[i], d[i], False) for i in range(2))
    if min(out) < 1:
        raise RuntimeError(
            f"{fn}: the kernel {k} with dilation {d} does not fit the padded input of spatial size "
            f"{tuple(size[i] + 2 * p[i] for i in range(2))}"
        )
    return out


def unfold(input: Any, kernel_size: Any, dilation: Any = 1, padding: Any = 0,
           stride: Any = 1) -> Any:  # fmt: skip
    """(N, C, H, W) -> (N, C * kh * kw, L): every sliding block as a column (im2col)."""
    check_tensor(input, "unfold")
    if input.ndim != 4:
        raise ValueError(f"unfold(): expected 4-D (N, C, H, W) input, got {input.ndim}-D")
    k, d, p, s = _params("unfold()", kernel_size, dilation, padding, stride)
    n, c = input.shape[0], input.shape[1]
    oh, ow = _blocks("unfold()", tuple(input.shape[2:]), k, d, p, s)
    x = pad(input, (p[1], p[1], p[0], p[0])) if any(p) else input
    span = (d[0] * (k[0] - 1) + 1, d[1] * (k[1] - 1) + 1)
    win = x.unfold(2, span[0], s[0]).unfold(3, span[1], s[1])  # (N, C, oh, ow, span_h, span_w)
    win = win[:, :, :oh, :ow, :: d[0], :: d[1]]
    return win.permute(0, 1, 4, 5, 2, 3).reshape(n, c * k[0] * k[1], oh * ow)


def fold(input: Any, output_size: Any, kernel_size: Any, dilation: Any = 1, padding: Any = 0,
         stride: Any = 1) -> Any:  # fmt: skip
    """(N, C * kh * kw, L) -> (N, C, H, W): columns summed back into place (col2im), the
    adjoint of unfold."""
    check_tensor(input, "fold")
    if input.ndim != 3:
        raise ValueError(f"fold(): expected 3-D (N, C * kh * kw, L) input, got {input.ndim}-D")
    size = _tuple(output_size, 2, "fold()", "output_size")
    k, d, p, s = _params("fold()", kernel_size, dilation, padding, stride)
    n, ck, blocks = input.shape
    oh, ow = _blocks("fold()", size, k, d, p, s)
    if ck % (k[0] * k[1]) or blocks != oh * ow:
        raise RuntimeError(
            f"fold(): input of shape {tuple(input.shape)} does not match kernel_size {k} and "
            f"{oh} x {ow} = {oh * ow} blocks for output_size {size}"
        )
    c = ck // (k[0] * k[1])
    cols = input.reshape(n, c, k[0], k[1], oh, ow)
    ph, pw = size[0] + 2 * p[0], size[1] + 2 * p[1]
    out = None
    for i in range(k[0]):
        for j in range(k[1]):
            # the block values spread `stride` apart, then shifted to kernel offset (i, j)
            part = _spread(cols[:, :, i, j], s)
            top, left = i * d[0], j * d[1]
            bottom, right = ph - top - part.shape[2], pw - left - part.shape[3]
            part = pad(part, (left, right, top, bottom))
            out = part if out is None else out + part
    return out[:, :, p[0] : p[0] + size[0], p[1] : p[1] + size[1]]


def _spread(x: Any, s: tuple) -> Any:
    """(N, C, oh, ow) -> (N, C, (oh-1)*sh+1, (ow-1)*sw+1), zeros between the values."""
    if s == (1, 1):
        return x
    n, c, oh, ow = x.shape
    z = x.reshape(n, c, oh, 1, ow, 1)
    z = pad(z, (0, s[1] - 1, 0, 0, 0, s[0] - 1))  # (n, c, oh, sh, ow, sw)
    z = z.reshape(n, c, oh * s[0], ow * s[1])
    return z[:, :, : (oh - 1) * s[0] + 1, : (ow - 1) * s[1] + 1]
