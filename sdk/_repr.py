"""repr() of tensors in torch's style: aligned values, summarized when large, dtype/grad suffix."""

from __future__ import annotations

import math
from typing import Any

from sdk import _C
from sdk._dtype import get_default_dtype

Tensor = Any

THRESHOLD = 1000  # summarize above this many elements
EDGEITEMS = 3
LINEWIDTH = 80
PRECISION = 4
SCI_MODE = None  # None: chosen from the values; True / False: forced by set_printoptions

_PROFILES = {
    "default": {"precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": 80},
    "short": {"precision": 2, "threshold": 1000, "edgeitems": 2, "linewidth": 80},
    "full": {"precision": 4, "threshold": math.inf, "edgeitems": 3, "linewidth": 80},
}


def set_printoptions(precision: int | None = None, threshold: float | None = None,
                     edgeitems: int | None = None, linewidth: int | None = None,
                     profile: str | None = None, sci_mode: bool | None = None) -> None:  # fmt: skip
    """How tensors print, as torch.set_printoptions: a profile ("default", "short", "full")
    sets all four numbers, the others override one each; sci_mode is always set (None: auto)."""
    global PRECISION, THRESHOLD, EDGEITEMS, LINEWIDTH, SCI_MODE
    values = {}
    if profile is not None:
        if profile not in _PROFILES:
            raise ValueError(f"set_printoptions: profile must be one of {sorted(_PROFILES)}, "
                             f"got {profile!r}")  # fmt: skip
        values = dict(_PROFILES[profile])
    given = {"precision": precision, "threshold": threshold, "edgeitems": edgeitems,
             "linewidth": linewidth}  # fmt: skip
    for name, v in given.items():
        if v is None:
            continue
        if isinstance(v, bool) or not isinstance(v, (int, float)) or v < 0:
            raise ValueError(f"set_printoptions: {name} must be a non-negative number, got {v!r}")
        values[name] = v
    if sci_mode is not None and not isinstance(sci_mode, bool):
        raise TypeError(f"set_printoptions: sci_mode must be bool or None, got {sci_mode!r}")
    PRECISION = int(values.get("precision", PRECISION))
    THRESHOLD = values.get("threshold", THRESHOLD)
    EDGEITEMS = int(values.get("edgeitems", EDGEITEMS))
    LINEWIDTH = int(values.get("linewidth", LINEWIDTH))
    SCI_MODE = sci_mode


def _nested(t: Tensor, summarize: bool) -> Any:
    """Nested lists of Python values, with Ellipsis where rows were left out."""
    if t.ndim == 0:
        return t.item()
    if not summarize or t.shape[0] <= 2 * EDGEITEMS:
        if not summarize:
            return t.tolist()
        return [_nested(_C.select(t, 0, i), summarize) for i in range(t.shape[0])]
    n = t.shape[0]
    head = [_nested(_C.select(t, 0, i), summarize) for i in range(EDGEITEMS)]
    tail = [_nested(_C.select(t, 0, i), summarize) for i in range(n - EDGEITEMS, n)]
    return head + [Ellipsis] + tail


def _flat(v: Any, out: list) -> list:
    if isinstance(v, list):
        for x in v:
            _flat(x, out)
    elif v is not Ellipsis:
        out.append(v)
    return out


class _Formatter:
    """torch's formatter: mode and width come from the nonzero finite values only."""

    def __init__(self, values: list, floating: bool) -> None:
        self.floating = floating
        self.mode = "int"
        self.width = 1
        if not floating:
            self.width = max((len(self._raw(v)) for v in values), default=1)
            return
        nz = [v for v in values if math.isfinite(v) and v != 0]
        self.mode = "whole"
        if not nz:
            return
        hi = max(abs(v) for v in nz)
        lo = min(abs(v) for v in nz)
        whole = all(float(v).is_integer() for v in nz)
        if hi / lo > 1000.0 or hi > 1e8 or (not whole and lo < 1e-4):
            self.mode = "sci"
        elif not whole:
            self.mode = "fixed"
        if SCI_MODE is not None:
            self.mode = "sci" if SCI_MODE else ("whole" if whole else "fixed")
        self.width = max(len(self._raw(v)) for v in nz)

    def _raw(self, v: Any) -> str:
        if isinstance(v, bool):
            return str(v)
        if not self.floating:
            return str(v)
        if not math.isfinite(v):
            return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf")
        if self.mode == "whole":
            return f"{v:.0f}."
        if self.mode == "sci":
            return f"{v:.{PRECISION}e}"
        return f"{v:.{PRECISION}f}"

    def __call__(self, v: Any) -> str:
        return self._raw(v).rjust(self.width)


class _ComplexFormatter:
    """torch's for complex values: the real and the imaginary parts each formatted as floats
    (their own mode and width), joined as 1.5000+2.0000j."""

    def __init__(self, values: list) -> None:
        self.re = _Formatter([v.real for v in values], True)
        self.im = _Formatter([v.imag for v in values], True)
        self.width = self.re.width + self.im.width + 2

    def _raw(self, v: Any) -> str:
        imag = (self.im(v.imag) + "j").lstrip()
        return self.re(v.real) + (imag if imag[0] in "+-" else "+" + imag)

    __call__ = _raw


def _rows(v: Any, fmt: _Formatter, indent: int, depth: int, ndim: int) -> str:
    if depth == ndim - 1:
        items = [" ..." if x is Ellipsis else fmt(x) for x in v]
        per_line = max(1, (LINEWIDTH - indent) // (fmt.width + 2))
        lines = [", ".join(items[i : i + per_line]) for i in range(0, len(items), per_line)]
        return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"
    sep = "," + "\n" * (ndim - depth - 1) + " " * (indent + 1)
    parts = ["..." if x is Ellipsis else _rows(x, fmt, indent + 1, depth + 1, ndim) for x in v]
    return "[" + sep.join(parts) + "]"


def _suffixes(t: Tensor) -> list:
    out = []
    d = t.dtype
    if t.numel() == 0 and t.ndim != 1:
        out.append(f"size={tuple(t.shape)}")
    default = (
        get_default_dtype() if d.is_floating_point else (None if d.name == "bool" else "int64")
    )
    if d.is_complex:  # torch's default complex dtype goes with the default float
        default = "complex128" if get_default_dtype().name == "float64" else "complex64"
    if default is not None and d is not default and d.name != default:
        out.append(f"dtype={d!r}")
    if t.grad_fn is not None:
        name = t.grad_fn.name() if hasattr(t.grad_fn, "name") else type(t.grad_fn).__name__
        out.append(f"grad_fn=<{name}>")
    elif t._requires_grad:
        out.append("requires_grad=True")
    return out


def tensor_repr(t: Tensor, prefix: str = "tensor(") -> str:
    """repr(t) in torch's format."""
    floating = t.dtype.is_floating_point
    indent = len(prefix)
    if t.numel() == 0:
        body = "[]"
    else:
        summarize = t.numel() > THRESHOLD
        nested = _nested(t, summarize)
        values = _flat(nested, [])
        fmt = _ComplexFormatter(values) if t.dtype.is_complex else _Formatter(values, floating)
        body = fmt._raw(nested) if t.ndim == 0 else _rows(nested, fmt, indent, 0, t.ndim)
    extra = _suffixes(t)
    return prefix + body + "".join(", " + s for s in extra) + ")"
