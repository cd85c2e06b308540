"""Refit the polynomial of the core's AVX-512 and AVX2 float32 tanh (core/src/vec_simd.h, kTanh).

tanh512 needs h(r) = (1 - e^{-2r}) / 2 = r + r^2 Q(r) for |r| <= ln2/4 with a small relative
error. This fits Q of a given degree by Lawson's iteration (weighted least squares whose weights
grow where the error is largest, converging to the minimax fit), with the target in 40-digit
arithmetic, and prints the coefficients rounded to float32 and the fit's relative error.

    python scripts/fit_tanh_poly.py [degree]   # tanh512 uses degree 4 (error about 2^-26)
"""

import sys

import mpmath as mp
import numpy as np

mp.mp.dps = 40


def fit(degree: int, nodes: int = 4000, rounds: int = 400) -> tuple[np.ndarray, float]:
    """Q's coefficients (lowest power first) and the largest relative error of r + r^2 Q(r)."""
    half_width = float(mp.log(2) / 4) * 1.0005  # a little past ln2/4: n's rounding is not exact
    r = half_width * np.cos(np.linspace(0, np.pi, nodes))
    r = r[np.abs(r) > 1e-9]
    h = np.array([float((1 - mp.exp(-2 * mp.mpf(v))) / 2) for v in r])
    target = (h - r) / r**2
    basis = np.stack([r**k for k in range(degree + 1)], 1)
    weights = np.ones_like(r)
    for _ in range(rounds):
        # Scale rows so the residual is the relative error of h, then reweight by its size.
        row = np.sqrt(weights) * r**2 / np.abs(h)
        coef, *_ = np.linalg.lstsq(basis * row[:, None], target * row, rcond=None)
        err = (r + r**2 * (basis @ coef) - h) / h
        weights *= np.abs(err)
        weights /= weights.sum()
    return coef, float(np.abs(err).max())


def main() -> None:
    degree = int(sys.argv[1]) if len(sys.argv) > 1 else 4
    coef, err = fit(degree)
    print(f"degree {degree}: max relative error {err:.3e} (2^{np.log2(err):.1f})")
    for k, c in enumerate(coef):
        print(f"  r^{k}: {float(np.float32(c))!r}f")


if __name__ == "__main__":
    main()
