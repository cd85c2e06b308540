"""Build a small C++ op from a string with cpp_extension.load_inline and check it against numpy.

The op is SiLU (x * sigmoid(x)) and its derivative; ``functions`` makes load_inline write
the PYBIND11_MODULE for us.

    python inline_example.py [--verbose]
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

import sdk
from cpp_extension import load_inline

CPP_SOURCE = r"""
sdk::Tensor silu(sdk::Tensor x) {
  SDK_CHECK(x.dim() >= 1, "silu: expected at least 1 dim, got ", x.dim());
  return x * sdk::sigmoid(x);
}

// d/dx [x s(x)] = s(x) (1 + x (1 - s(x)))
sdk::Tensor silu_backward(sdk::Tensor grad, sdk::Tensor x) {
  auto s = sdk::sigmoid(x);
  return grad * s * (1 + x * (1 - s));
}
"""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args(argv)

    ext = load_inline(
        name="inline_silu",
        cpp_sources=CPP_SOURCE,
        functions=["silu", "silu_backward"],
        verbose=args.verbose,
    )
    x = np.linspace(-4, 4, 9)
    s = 1 / (1 + np.exp(-x))
    y = ext.silu(sdk.tensor(x)).numpy()
    dy = ext.silu_backward(sdk.ones(9, dtype=sdk.float64), sdk.tensor(x)).numpy()
    ok = np.allclose(y, x * s, rtol=1e-12) and np.allclose(dy, s * (1 + x * (1 - s)), rtol=1e-12)
    print("silu(x)      =", np.round(y, 4))
    print("silu'(x)     =", np.round(dy, 4))
    print("matches numpy" if ok else "MISMATCH with numpy")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
