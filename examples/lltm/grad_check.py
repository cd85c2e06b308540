"""gradcheck of LLTMFunction for each variant: float64, eps 1e-6, atol 1e-5, rtol 1e-3.

python grad_check.py [--variant cpp ctypes py]
"""

from __future__ import annotations

import argparse
import sys

from lltm import VARIANTS, LLTMFunction, load_backend

import sdk

B, F, S = 3, 17, 5


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", nargs="+", choices=VARIANTS, default=list(VARIANTS))
    args = parser.parse_args(argv)
    sdk.manual_seed(0)
    kwargs = {"dtype": sdk.float64, "requires_grad": True}
    inputs = (
        sdk.randn(B, F, **kwargs),
        sdk.randn(3 * S, F + S, **kwargs),
        sdk.randn(1, 3 * S, **kwargs),
        sdk.randn(B, S, **kwargs),
        sdk.randn(B, S, **kwargs),
    )
    failed = False
    for variant in args.variant:
        backend = load_backend(variant)
        try:
            ok = sdk.autograd.gradcheck(
                LLTMFunction.apply, (*inputs, backend), eps=1e-6, atol=1e-5, rtol=1e-3
            )
        except Exception as e:  # gradcheck raises with the mismatching Jacobian entries
            print(f"{variant:7s} FAILED: {e}")
            ok = False
        else:
            print(
                f"{variant:7s} {'ok' if ok else 'FAILED'}: gradcheck (eps 1e-6, atol 1e-5, rtol 1e-3)"
            )
        failed |= not ok
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
