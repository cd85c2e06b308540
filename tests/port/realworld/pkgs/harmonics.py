"""torch-harmonics (spherical signal processing): the CPU helper that sorts the DISCO
convolution's sparse filter by kernel and finds its row offsets (a pybind11 module), and the
DISCO convolution and neighbourhood attention on the sphere (CUDA, compiled only)."""

from __future__ import annotations

import numpy as np

from .._spec import Build, Op, Package

CSRC = "torch_harmonics/csrc"
K, HO = 3, 5


def _psi(rng, dtype):
    """A filter in the package's COO form: per kernel, entries sorted by output row (as the
    package builds them), the kernels' entries interleaved at random (each kept in order)."""
    per_kernel = []
    for k in range(K):
        rows = np.sort(rng.choice(HO, size=rng.integers(2, HO + 1), replace=False))
        counts = rng.integers(1, 4, size=rows.size)
        row = np.repeat(rows, counts)
        col = rng.integers(0, 16, size=row.size)
        per_kernel.append([(k, r, c) for r, c in zip(row, col, strict=True)])
    order = rng.permutation(np.repeat(np.arange(K), [len(p) for p in per_kernel]))
    cursor = [0] * K
    entries = []
    for k in order:
        entries.append(per_kernel[k][cursor[k]])
        cursor[k] += 1
    ker, row, col = (np.array(v, np.int64) for v in zip(*entries, strict=True))
    return {"ker": ker, "row": row, "col": col, "val": rng.standard_normal(ker.size).astype(dtype)}


def _preprocess(ns, fw, i):
    """preprocess_psi sorts its four inputs in place and returns the row offsets."""
    ker, row, col, val = (fw.tensor(i[k]) for k in ("ker", "row", "col", "val"))
    roff = ns.preprocess_psi(K, HO, ker, row, col, val)
    return roff, ker, row, col, val


def _preprocess_ref(i):
    order = np.argsort(i["ker"], kind="stable")
    ker, row, col = i["ker"][order], i["row"][order], i["col"][order]
    # the package sorts the values through a float buffer, whatever their dtype
    val = i["val"][order].astype(np.float32).astype(i["val"].dtype)
    starts = np.flatnonzero(np.diff(row) != 0) + 1
    roff = np.concatenate([[0], starts, [row.size]]).astype(np.int64)
    return roff, ker, row, col, val


TORCH_HARMONICS = Package(
    name="torch-harmonics",
    version="0.8.0",
    filename="torch_harmonics-0.8.0.tar.gz",
    sha256="b44340184416283a3636640a9050c2187515d6bd9858fa0421b048b66465f773",
    port_roots=(CSRC,),
    why="spherical harmonics: DISCO convolution and attention on the sphere",
    builds=(
        Build("disco_helpers", (f"{CSRC}/disco/disco_helpers.cpp",)),
        Build(
            "disco_cuda",
            tuple(
                f"{CSRC}/disco/{f}.cu"
                for f in ("disco_interface", "disco_cuda_fwd", "disco_cuda_bwd")
            ),
            compile_only=True,
        ),
        Build(
            "attention_cuda",
            tuple(
                f"{CSRC}/attention/{f}.cu"
                for f in (
                    "attention_interface",
                    "attention_fwd_cuda",
                    "attention_bwd_cuda",
                    "attention_utils",
                )
            ),
            compile_only=True,
        ),
    ),
    ops=(
        Op(
            "preprocess_psi",
            "disco_helpers",
            lambda rng: _psi(rng, np.float32),
            _preprocess,
            _preprocess_ref,
        ),
        Op(
            "preprocess_psi (float64)",
            "disco_helpers",
            lambda rng: _psi(rng, np.float64),
            _preprocess,
            _preprocess_ref,
            seed=1,
        ),
        Op("disco forward/backward (compile only)", "disco_cuda"),
        Op("s2 attention forward/backward (compile only)", "attention_cuda"),
    ),
)
