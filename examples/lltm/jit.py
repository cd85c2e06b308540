"""Build the LLTM extension just in time with cpp_extension.load() (cached between runs).

python jit.py            # builds (or reuses the cached build) and prints the module
"""

from __future__ import annotations

import os

from cpp_extension import load

HERE = os.path.dirname(os.path.abspath(__file__))

lltm_cpp = load(
    name="lltm_cpp",
    sources=[os.path.join(HERE, "lltm.cpp")],
    extra_cflags=["-O3"],
    verbose=os.environ.get("VERBOSE", "0") == "1",
)

if __name__ == "__main__":
    print(f"built {lltm_cpp.__name__} from {lltm_cpp.__file__}")
    print("functions:", ", ".join(n for n in dir(lltm_cpp) if not n.startswith("_")))
