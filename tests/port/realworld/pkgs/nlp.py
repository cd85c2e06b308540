"""fairseq (sequence modelling): the CPU operator of monotonic attention's expected alignment,
a pybind11 module of its own among the package's examples."""

from __future__ import annotations

import numpy as np

from .._spec import Build, Op, Package

EPS = 1e-6


def _p_choose(rng):
    return {"p": rng.uniform(0.05, 0.95, (2, 3, 5)).astype(np.float32)}


def _alignment(ns, fw, i):
    alpha = fw.tensor(np.zeros_like(i["p"]))
    ns.alignment_train_cpu(fw.tensor(i["p"]), alpha, EPS)
    return alpha


def _alignment_ref(i):
    """alpha_t = clip(p_t * c_t * cumsum(alpha_{t-1} / max(c_t, eps)), 0, 1), with c_t the
    exclusive cumulative product of 1 - p_t and alpha_{-1} all mass on the first source."""
    p = i["p"].astype(np.float64)
    c = np.concatenate([np.ones_like(p[..., :1]), np.cumprod(1 - p, -1)[..., :-1]], -1)
    prev = np.zeros_like(p[:, 0])
    prev[:, 0] = 1
    out = np.empty_like(p)
    for t in range(p.shape[1]):
        scan = np.cumsum(prev / np.clip(c[:, t], EPS, 1), -1)
        out[:, t] = prev = np.clip(scan * p[:, t] * c[:, t], 0, 1)
    return out.astype(np.float32)


FAIRSEQ = Package(
    name="fairseq",
    version="0.12.2",
    filename="fairseq-0.12.2.tar.gz",
    sha256="34f1b18426bf3844714534162f065ab733e049597476daa35fffb4d06a92b524",
    port_roots=("fairseq/examples/operators",),
    why="sequence modelling: monotonic attention's expected alignment",
    builds=(Build("alignment", ("fairseq/examples/operators/alignment_train_cpu.cpp",)),),
    ops=(Op("alignment_train_cpu", "alignment", _p_choose, _alignment, _alignment_ref, rtol=1e-4),),
)
