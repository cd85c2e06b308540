"""fast_rnnt (speech recognition): the mutual-information recursion behind its pruned RNN-T
loss. Its CPU kernels live in .cu files that the package's CMake build compiles as C++ when
CUDA is off; its module is named _fast_rnnt, so a small glue file binds the same function."""

from __future__ import annotations

import numpy as np

from .._spec import Build, Op, Package

GLUE = (
    "fast_rnnt_glue.cpp",
    "// Binds the package's mutual-information functions (written for the real-world port "
    "check).\n#include <torch/extension.h>\n\n"
    '#include "fast_rnnt/python/csrc/mutual_information.h"\n\n'
    "PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { fast_rnnt::PybindMutualInformation(m); }\n",
)
B, S, T = 2, 3, 4


def _logits(rng):
    return {
        "px": rng.standard_normal((B, S, T + 1)).astype(np.float32),
        "py": rng.standard_normal((B, S + 1, T)).astype(np.float32),
        "grad": rng.standard_normal(B).astype(np.float32),
    }


def _forward(ns, fw, i):
    p = fw.empty((B, S + 1, T + 1), np.float32)
    return ns.mutual_information_forward(fw.tensor(i["px"]), fw.tensor(i["py"]), None, p), p


def _forward_ref(i):
    """p[s, t] = logaddexp(p[s-1, t] + px[s-1, t], p[s, t-1] + py[s, t-1]), p[0, 0] = 0;
    the answer is p[S, T]."""
    px, py = i["px"].astype(np.float64), i["py"].astype(np.float64)
    p = np.full((B, S + 1, T + 1), -np.inf)
    p[:, 0, 0] = 0
    for s in range(S + 1):
        for t in range(T + 1):
            if s or t:
                a = p[:, s - 1, t] + px[:, s - 1, t] if s else np.full(B, -np.inf)
                b = p[:, s, t - 1] + py[:, s, t - 1] if t else np.full(B, -np.inf)
                p[:, s, t] = np.logaddexp(a, b)
    return p[:, S, T].astype(np.float32), p.astype(np.float32)


def _backward(ns, fw, i):
    px, py = fw.tensor(i["px"]), fw.tensor(i["py"])
    p = fw.empty((B, S + 1, T + 1), np.float32)
    ns.mutual_information_forward(px, py, None, p)
    return ns.mutual_information_backward(px, py, None, p, fw.tensor(i["grad"]))


FAST_RNNT = Package(
    name="fast_rnnt",
    version="1.3",
    filename="fast_rnnt-1.3.tar.gz",
    sha256="e8758e43e074daec17cbb8fd4c50026045b3b35ed88728854fdbe3590087f0a9",
    port_roots=("fast_rnnt/csrc", "fast_rnnt/python/csrc"),
    why="speech recognition: pruned RNN-T's mutual-information recursion",
    builds=(
        Build(
            "mutual_information",
            (
                "fast_rnnt/csrc/mutual_information_cpu.cu",
                "fast_rnnt/python/csrc/mutual_information.cu",
            ),
            (".",),
            glue=GLUE,
            cu_as_cxx=True,
        ),
    ),
    ops=(
        Op(
            "mutual_information_forward",
            "mutual_information",
            _logits,
            _forward,
            _forward_ref,
            rtol=1e-4,
            atol=1e-5,
        ),  # fmt: skip
        Op("mutual_information_backward", "mutual_information", _logits, _backward),
    ),
)
