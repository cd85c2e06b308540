"""Build the LLTM CUDA extension just in time with cpp_extension.load() (cached on disk).

python jit.py            # builds (or reuses the cached build) and prints the module
"""

from __future__ import annotations

import os

from cpp_extension import load

HERE = os.path.dirname(os.path.abspath(__file__))

lltm_cuda = load(
    name="lltm_cuda",
    sources=[os.path.join(HERE, "lltm_cuda.cpp"), os.path.join(HERE, "lltm_cuda_kernel.cu")],
    extra_cflags=["-O3"],
    extra_cuda_cflags=["-O3"],
    verbose=os.environ.get("VERBOSE", "0") == "1",
)

if __name__ == "__main__":
    print(f"built {lltm_cuda.__name__} from {lltm_cuda.__file__}")
    print("functions:", ", ".join(n for n in dir(lltm_cuda) if not n.startswith("_")))
