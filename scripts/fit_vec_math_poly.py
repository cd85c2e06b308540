"""Refit the polynomials of the core's float32 erf, GELU, log, sin and cos (core/src/vec_math.h).

erf_f32 splits |x| at 0.75:
  - below, erf(a) = a P(a^2), P of degree 5;
  - above, erfc(a) = e^{-a^2} R(u) with u = 1 / (1 + a/2), R of degree 9, fitted on [0, 10]
    (erfc(10) is about 2e-45, the last float32 subnormal; past it e^{-a^2} is zero). GELU
    takes R alone, from 0 on: its 1 + erf(v) never needs erf's relative accuracy near 0.
log_f32 takes log(1 + f) = f - f^2/2 + f^3 Q(f) for f = m - 1, m in [sqrt(1/2), sqrt(2)), Q of
degree 8. sin_quarter_f32 takes sin r = r + r^3 S(r^2) and cos r = 1 - r^2/2 + r^4 C(r^2) for
|r| <= pi/4, S and C of degree 2.
Each is a minimax fit of the relative error by Lawson's iteration (weighted least squares whose
weights grow where the error is largest), the targets in 40-digit arithmetic. The script prints
the coefficients rounded to float32, the fit's error, and the error of the rounded polynomials
evaluated in float32 arithmetic (Horner's rule, as the core does).

    python scripts/fit_erf_poly.py
"""

import mpmath as mp
import numpy as np

mp.mp.dps = 40
SPLIT, TOP, U_SCALE = 0.75, 10.0, 0.5
SMALL_DEGREE, LARGE_DEGREE, LOG_DEGREE, TRIG_DEGREE = 5, 9, 8, 2


def lawson(
    basis: np.ndarray, target: np.ndarray, scale: np.ndarray | None = None, rounds: int = 400
) -> tuple[np.ndarray, float]:
    """Coefficients minimizing the largest |basis @ coef - target| * scale (by default the
    relative error, scale = 1 / |target|)."""
    scale = 1 / np.abs(target) if scale is None else np.abs(scale)
    weights = np.ones(len(target))
    for _ in range(rounds):
        row = np.sqrt(weights) * scale
        coef, *_ = np.linalg.lstsq(basis * row[:, None], target * row, rcond=None)
        err = (basis @ coef - target) * scale
        weights *= np.abs(err)
        weights /= weights.sum()
    return coef, float(np.abs(err).max())


def nodes(lo: float, hi: float, count: int = 4000) -> np.ndarray:
    return lo + (hi - lo) * (0.5 + 0.5 * np.cos(np.linspace(0, np.pi, count)))


def horner32(coef: np.ndarray, v: np.ndarray) -> np.ndarray:
    """The polynomial (highest power last in coef) in float32 arithmetic."""
    c = coef.astype(np.float32)
    acc = np.full_like(v, c[-1])
    for k in range(len(c) - 2, -1, -1):
        acc = acc * v + c[k]
    return acc


def main() -> None:
    a = nodes(1e-4, SPLIT)
    small = np.array([float(mp.erf(v) / v) for v in a])
    p, p_err = lawson(np.stack([(a * a) ** k for k in range(SMALL_DEGREE + 1)], 1), small)
    a32 = a.astype(np.float32)
    got = horner32(p, a32 * a32).astype(np.float64)
    print(f"P (erf(a)/a, a < {SPLIT}): fit 2^{np.log2(p_err):.1f}, ", end="")
    print(f"float32 2^{np.log2(np.abs(got / small - 1).max()):.1f}")
    for k, c in enumerate(p):
        print(f"  z^{k}: {float(np.float32(c))!r}f")

    a = nodes(0.0, TOP)
    large = np.array([float(mp.erfc(v) * mp.exp(v * v)) for v in a])
    u = 1 / (1 + U_SCALE * a)
    r, r_err = lawson(np.stack([u**k for k in range(LARGE_DEGREE + 1)], 1), large)
    a32 = a.astype(np.float32)
    u32 = np.float32(1) / (np.float32(1) + np.float32(U_SCALE) * a32)
    got = horner32(r, u32).astype(np.float64)
    print(f"R (erfc(a) e^(a^2), 0 <= a <= {TOP}): fit 2^{np.log2(r_err):.1f}, ", end="")
    print(f"float32 2^{np.log2(np.abs(got / large - 1).max()):.1f}")
    for k, c in enumerate(r):
        print(f"  u^{k}: {float(np.float32(c))!r}f")

    f = nodes(float(mp.sqrt(0.5)) - 1, float(mp.sqrt(2)) - 1)
    f = f[np.abs(f) > 1e-5]
    log1p = np.array([float(mp.log1p(v)) for v in f])
    # Fit Q against the relative error of the whole log(1 + f), not of Q alone.
    target = np.array([float((mp.log1p(v) - v + v * v / 2) / v**3) for v in f])
    basis = np.stack([f**k for k in range(LOG_DEGREE + 1)], 1)
    q, q_err = lawson(basis, target, f**3 / log1p)
    f32 = f.astype(np.float32)
    z = f32 * f32
    got = (f32 + (f32 * z * horner32(q, f32) - np.float32(0.5) * z)).astype(np.float64)
    print(f"Q (log(1 + f), f = m - 1): fit 2^{np.log2(q_err):.1f}, ", end="")
    print(f"float32 2^{np.log2(np.abs(got / log1p - 1).max()):.1f}")
    for k, c in enumerate(q):
        print(f"  f^{k}: {float(np.float32(c))!r}f")

    r = nodes(1e-4, float(mp.pi / 4) * 1.0001)  # a little past pi/4: n's rounding is not exact
    z = np.stack([(r * r) ** k for k in range(TRIG_DEGREE + 1)], 1)
    for name, fn, lead, power in (
        ("S (sin r)", mp.sin, lambda v: v, 3),
        ("C (cos r)", mp.cos, lambda v: 1 - v * v / 2, 4),
    ):
        exact = np.array([float(fn(v)) for v in r])
        target = np.array([float((fn(v) - lead(mp.mpf(v))) / mp.mpf(v) ** power) for v in r])
        coef, err = lawson(z, target, r**power / exact)
        print(f"{name}: fit 2^{np.log2(err):.1f}")
        for k, c in enumerate(coef):
            print(f"  r^{2 * k}: {float(np.float32(c))!r}f")


if __name__ == "__main__":
    main()
