"""finfo / iinfo: the numeric limits of sdk's floating and integer dtypes (torch.finfo's
attribute names)."""

from __future__ import annotations

from typing import Any

from sdk._dtype import DTYPES, bfloat16, dtype, get_default_dtype

__all__ = ["finfo", "iinfo"]

# bfloat16 is float32 with 8 mantissa bits; numpy has no such type.
_BFLOAT16 = dict(bits=16, eps=2.0**-7, max=3.3895313892515355e38, tiny=2.0**-126,
                 resolution=0.01)  # fmt: skip

# The 8-bit floats (numpy has none): torch's values, e5m2fnuz's eps included (torch reports
# 2^-3 for it, though its 2 mantissa bits space the floats above 1 by 2^-2).
_FLOAT8 = {
    "float8_e4m3fn": dict(bits=8, eps=2.0**-3, max=448.0, tiny=2.0**-6, resolution=1.0),
    "float8_e5m2": dict(bits=8, eps=2.0**-2, max=57344.0, tiny=2.0**-14, resolution=1.0),
    "float8_e4m3fnuz": dict(bits=8, eps=2.0**-3, max=240.0, tiny=2.0**-7, resolution=1.0),
    "float8_e5m2fnuz": dict(bits=8, eps=2.0**-3, max=57344.0, tiny=2.0**-15, resolution=1.0),
}


def _dtype_arg(type: Any, who: str) -> dtype:
    if type is None:
        return get_default_dtype()
    if not isinstance(type, dtype):
        raise TypeError(
            f"{who}(): argument 'type' must be an sdk.dtype, not {type.__class__.__name__}"
        )
    return type


class finfo:
    """bits, eps, max, min, tiny (= smallest_normal) and resolution of a floating dtype
    (the default dtype when None; a complex dtype's parts)."""

    def __init__(self, type: Any = None) -> None:
        import numpy as np

        dt = _dtype_arg(type, "finfo")
        if dt.is_complex:  # torch: a complex dtype's finfo is its parts'
            dt = dt.to_real()
        if not dt.is_floating_point:
            raise TypeError(f"finfo(): expected a floating point dtype, got {dt}")
        if dt is bfloat16:
            v = _BFLOAT16
        elif dt.name in _FLOAT8:
            v = _FLOAT8[dt.name]
        else:
            i = np.finfo(dt._np)
            v = dict(bits=i.bits, eps=float(i.eps), max=float(i.max), tiny=float(i.tiny),
                     resolution=10.0**-i.precision)  # fmt: skip
        self.bits, self.eps, self.max = v["bits"], v["eps"], v["max"]
        self.min, self.tiny, self.smallest_normal = -v["max"], v["tiny"], v["tiny"]
        self.resolution = v["resolution"]
        self.dtype = dt.name

    def __repr__(self) -> str:
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, "
                f"eps={self.eps:g}, smallest_normal={self.tiny:g}, tiny={self.tiny:g}, "
                f"dtype={self.dtype})")  # fmt: skip


class iinfo:
    """bits, min and max of an integer (or bool-free integral) dtype."""

    def __init__(self, type: Any) -> None:
        import numpy as np

        dt = _dtype_arg(type, "iinfo")
        if dt.is_floating_point or dt is DTYPES[0]:
            raise TypeError(f"iinfo(): expected an integer dtype, got {dt}")
        i = np.iinfo(dt._np)
        self.bits, self.min, self.max = i.bits, int(i.min), int(i.max)
        self.dtype = dt.name

    def __repr__(self) -> str:
        return f"iinfo(min={self.min}, max={self.max}, dtype={self.dtype})"
