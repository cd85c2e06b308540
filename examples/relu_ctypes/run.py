"""Build relu.c through the ctypes bridge (no pybind11) and check it against numpy.

python run.py [--verbose]
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

import sdk
from cpp_extension import load

HERE = os.path.dirname(os.path.abspath(__file__))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args(argv)
    lib = load(
        name="relu_c",
        sources=[os.path.join(HERE, "relu.c")],
        is_python_module=False,
        verbose=args.verbose,
    )
    ok = True
    for dtype in (np.float32, np.float64):
        x = np.random.default_rng(0).standard_normal((4, 5)).astype(dtype)
        g = np.random.default_rng(1).standard_normal((4, 5)).astype(dtype)
        y = lib.relu(sdk.tensor(x)).numpy()
        dx = lib.relu_backward(sdk.tensor(g), sdk.tensor(x)).numpy()
        ok &= np.array_equal(y, np.maximum(x, 0)) and np.array_equal(dx, g * (x > 0))
    try:
        lib.relu(sdk.tensor([1, 2, 3]))
        ok = False  # int64 input must be refused
    except TypeError as e:
        print("int64 input refused as expected:", e)
    print("relu and relu_backward match numpy" if ok else "MISMATCH with numpy")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
