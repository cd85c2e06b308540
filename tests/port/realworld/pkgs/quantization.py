"""qtorch (low-precision arithmetic simulation): its CPU quantizers to fixed point, block
floating point and small floating-point formats, a pybind11 module its Python layer builds
with load(); its CUDA sources compile. Written in torch 1.x's idiom (`using namespace at`,
masks made with the deprecated `torch::CPU(kByte)`)."""

from __future__ import annotations

import numpy as np

from .._spec import Build, Op, Package

WL, FL = 6, 3  # fixed point: 6 bits, 3 of them after the point: [-4, 3.875] by 1/8
BLOCK_WL = 5
MAN, EXP = 3, 5


def _values(rng):
    # fixed point: a third of the values fall outside the range, some exactly halfway
    halves = (rng.integers(-40, 40, 8) + 0.5) / 2**FL
    return {"a": np.concatenate([rng.uniform(-6, 6, (4, 10)).ravel(), halves]).astype(np.float32)}


def _fixed_limits(symmetric):
    lo, hi = -(2.0 ** (WL - FL - 1)), 2.0 ** (WL - FL - 1) - 2.0**-FL
    return (lo + 2.0**-FL if symmetric else lo), hi


def _fixed_ref(clamp, symmetric):
    """Round to the nearest multiple of 2**-FL (halves to even), then clamp to the range."""

    def ref(i):
        q = np.rint(i["a"].astype(np.float64) * 2**FL) / 2**FL
        return (np.clip(q, *_fixed_limits(symmetric)) if clamp else q).astype(np.float32)

    return ref


def _fixed_mask_ref(i):
    q = _fixed_ref(True, True)(i)
    unclamped = _fixed_ref(False, True)(i)
    return q, (q != unclamped).astype(np.uint8)


def _fixed(clamp, symmetric):
    return lambda ns, fw, i: ns.fixed_point_quantize_nearest(
        fw.tensor(i["a"]), WL, FL, clamp, symmetric
    )


def _stochastic_on_grid(ns, fw, i):
    """Stochastic rounding draws its own random numbers: each value must land on one of its
    two neighbours on the grid (inside the range), which is what is compared."""
    out = ns.fixed_point_quantize_stochastic(fw.tensor(i["a"]), WL, FL, True, False).numpy()
    return _on_grid(i, out)


def _on_grid_ref(i):
    return np.ones(i["a"].shape, bool)


def _on_grid(i, out):
    lo, hi = _fixed_limits(False)
    scaled = i["a"].astype(np.float64) * 2**FL
    down = np.clip(np.floor(scaled) / 2**FL, lo, hi)
    up = np.clip(np.ceil(scaled) / 2**FL, lo, hi)
    return (out == down) | (out == up)


def _blocks(rng):
    a = rng.standard_normal((3, 4, 5)) * np.array([0.1, 3.0, 40.0])[:, None, None]
    return {"a": a.astype(np.float32)}


def _block(dim):
    return lambda ns, fw, i: ns.block_quantize_nearest(fw.tensor(i["a"]), BLOCK_WL, dim)


def _block_ref(dim):
    """Block floating point: every value of a block (the whole tensor for dim -1, else each
    slice along dim) shares the exponent e of the block's largest magnitude. The value plus
    6 * 2**e (a float32 sum) is rounded to BLOCK_WL bits at that sum's exponent (e + 2; halves
    up), the offset taken off again, and magnitudes past the largest the format holds at
    exponent e are clipped to it, 2**e * (2 - 2**(2 - BLOCK_WL))."""

    def ref(i):
        a = i["a"]
        axes = tuple(ax for ax in range(a.ndim) if ax != dim) if dim >= 0 else None
        peak = np.max(np.abs(a), axis=axes, keepdims=True)
        e = np.floor(np.log2(peak)).astype(np.float64)
        base = (6 * 2.0**e).astype(np.float32)
        shifted = (a + base).astype(np.float64)  # float32 sum, as the kernel adds
        ulp = 2.0 ** (e + 2 - BLOCK_WL)
        q = (np.floor(shifted / ulp + 0.5) * ulp).astype(np.float32) - base
        top = 2.0**e * (2 - 2.0 ** (2 - BLOCK_WL))
        return np.where(np.abs(q) > top, np.sign(q) * top, q).astype(np.float32)

    return ref


def _floats(rng):
    mag = 2.0 ** rng.uniform(-10, 10, 40)  # normal numbers of the small format, no overflow
    return {"a": (mag * rng.choice([-1, 1], 40)).astype(np.float32)}


def _float_nearest(ns, fw, i):
    return ns.float_quantize_nearest(fw.tensor(i["a"]), MAN, EXP)


def _float_ref(i):
    """MAN mantissa bits: round to the nearest multiple of 2**(exponent - MAN), halves away
    from zero (the kernel adds half a unit to the bits and truncates)."""
    a = i["a"].astype(np.float64)
    _, exp = np.frexp(np.abs(a))
    ulp = 2.0 ** (exp - 1 - MAN)
    return (np.sign(a) * np.floor(np.abs(a) / ulp + 0.5) * ulp).astype(np.float32)


QTORCH = Package(
    name="qtorch",
    version="0.3.0",
    filename="qtorch-0.3.0.tar.gz",
    sha256="3fc2e9b27d58d18304ac46511ea03a3eb20f852944f6a5b6ef71b974c2da20bf",
    port_roots=("qtorch/quant",),
    why="low-precision training: fixed-point, block and small floating-point quantizers",
    builds=(
        Build(
            "cpu",
            (
                "qtorch/quant/quant_cpu/quant_cpu.cpp",
                "qtorch/quant/quant_cpu/bit_helper.cpp",
                "qtorch/quant/quant_cpu/sim_helper.cpp",
            ),
        ),
        Build(
            "cuda",
            tuple(
                f"qtorch/quant/quant_cuda/{f}"
                for f in (
                    "quant_cuda.cpp",
                    "bit_helper.cu",
                    "sim_helper.cu",
                    "block_kernel.cu",
                    "float_kernel.cu",
                    "fixed_point_kernel.cu",
                    "quant.cu",
                )
            ),
            compile_only=True,
        ),
    ),
    ops=(
        Op("fixed_point_quantize_nearest", "cpu", _values, _fixed(True, False),
           _fixed_ref(True, False)),
        Op("fixed_point_quantize_nearest (symmetric, unclamped)", "cpu", _values,
           _fixed(False, True), _fixed_ref(False, True)),
        Op("fixed_point_quantize_nearest_mask", "cpu", _values,
           lambda ns, fw, i: ns.fixed_point_quantize_nearest_mask(fw.tensor(i["a"]), WL, FL, True),
           _fixed_mask_ref),
        Op("fixed_point_quantize_stochastic", "cpu", _values, _stochastic_on_grid, _on_grid_ref),
        Op("block_quantize_nearest", "cpu", _blocks, _block(-1), _block_ref(-1)),
        Op("block_quantize_nearest (dim 0)", "cpu", _blocks, _block(0), _block_ref(0)),
        Op("block_quantize_nearest (dim 1)", "cpu", _blocks, _block(1), _block_ref(1)),
        Op("float_quantize_nearest", "cpu", _floats, _float_nearest, _float_ref),
        Op("quantizers (CUDA, compile only)", "cuda"),
    ),
)  # fmt: skip
