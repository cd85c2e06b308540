"""fast_rnnt (speech recognition): the mutual-information recursion behind its pruned RNN-T
loss. Its CPU kernels live in .cu files that the package's CMake build compiles as C++ when
CUDA is off; its module is named _fast_rnnt, so a small glue file binds the same function.
torchlpc (differentiable audio filters): its CPU scans and time-varying all-pole filter."""

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


# torchlpc: time-varying all-pole filtering, registered with TORCH_LIBRARY(torchlpc) in a
# module whose Python init the sources write by hand (PyInit__C); the ops run through
# torch.ops.torchlpc / sdk.ops.torchlpc. Its CPU build is that one file (the .cu files join
# it only when CUDA is there).
LPC_B, LPC_T, LPC_ORDER = 3, 16, 2


def _scan_inputs(dtype):
    def inputs(rng):
        def draw(shape, scale=1.0):
            a = rng.standard_normal(shape) * scale
            if np.dtype(dtype).kind == "c":
                a = a + 1j * rng.standard_normal(shape) * scale
            return a.astype(dtype)

        return {
            "x": draw((LPC_B, LPC_T)),
            "w": draw((LPC_B, LPC_T), 0.5),
            "init": draw((LPC_B,)),
        }

    return inputs


def _scan(ns, fw, i):
    return ns.scan(fw.tensor(i["x"]), fw.tensor(i["w"]), fw.tensor(i["init"]))


def _scan_ref(i):
    """y[t] = w[t] * y[t-1] + x[t], with y[-1] the initial value of each row."""
    x, w = i["x"], i["w"]
    y = np.empty_like(x)
    prev = i["init"].copy()
    for t in range(x.shape[1]):
        prev = w[:, t] * prev + x[:, t]
        y[:, t] = prev
    return y


def _lpc_inputs(rng):
    return {
        "x": rng.standard_normal((LPC_B, LPC_T)),
        "a": rng.uniform(-0.4, 0.4, (LPC_B, LPC_T, LPC_ORDER)),
        "zi": rng.standard_normal((LPC_B, LPC_ORDER)),
    }


def _lpc(ns, fw, i):
    return ns.lpc(fw.tensor(i["x"]), fw.tensor(i["a"]), fw.tensor(i["zi"]))


def _lpc_ref(i):
    """y[t] = x[t] - sum_k a[t, k] * y[t-k-1], with y[-k-1] = zi[k]."""
    x, a = i["x"], i["a"]
    y = np.concatenate([i["zi"][:, ::-1], np.zeros_like(x)], 1)
    for t in range(LPC_T):
        past = y[:, t : t + LPC_ORDER][:, ::-1]  # y[t-1], y[t-2], ...
        y[:, LPC_ORDER + t] = x[:, t] - np.sum(a[:, t] * past, 1)
    return y[:, LPC_ORDER:]


TORCHLPC = Package(
    name="torchlpc",
    version="0.7.2",
    filename="torchlpc-0.7.2.tar.gz",
    sha256="260a765645cdf0112d3fcfcebc41d11855ac52264b3185f24068ad873b1b0be3",
    port_roots=("torchlpc/csrc",),
    why="differentiable time-varying LPC filtering: first-order scans and all-pole filters",
    builds=(
        Build("scan", ("torchlpc/csrc/scan_cpu.cpp",), namespace="torchlpc", cflags=("-fopenmp",)),
    ),
    ops=(
        Op("scan", "scan", _scan_inputs(np.float32), _scan, _scan_ref, rtol=1e-5, atol=1e-5),
        Op("scan (float64)", "scan", _scan_inputs(np.float64), _scan, _scan_ref),
        Op("scan (complex64)", "scan", _scan_inputs(np.complex64), _scan, _scan_ref, atol=1e-5),
        Op("lpc", "scan", _lpc_inputs, _lpc, _lpc_ref, rtol=1e-10, atol=1e-12),
    ),
)
