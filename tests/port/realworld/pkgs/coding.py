"""torchac (learned compression): its CPU arithmetic coder, a pybind11 module that encodes int16
symbols under per-symbol int16 CDFs into a Python bytes object and decodes them back."""

from __future__ import annotations

import numpy as np

from .._spec import Build, Op, Package

N_SYM, N_LEVELS = 300, 7
PRECISION = 16


def _cdf_and_symbols(rng):
    """Normalized int16 CDFs as the package's own Python layer makes them: a float CDF scaled
    to 2**16 - (Lp - 1) and rounded, plus arange(Lp) so it is strictly increasing, stored as
    int16 (values past 32767 wrap, the coder reads them as uint16)."""
    pmf = rng.uniform(0.05, 1.0, (N_SYM, N_LEVELS))
    cdf = np.concatenate([np.zeros((N_SYM, 1)), np.cumsum(pmf, 1) / pmf.sum(1, keepdims=True)], 1)
    lp = N_LEVELS + 1
    scaled = np.round(cdf * (2**PRECISION - (lp - 1))).astype(np.int64) + np.arange(lp)
    return {
        "cdf": (scaled & 0xFFFF).astype(np.uint16).view(np.int16),
        "sym": rng.integers(0, N_LEVELS, N_SYM).astype(np.int16),
    }


def _encode(ns, fw, i):
    stream = ns.encode_cdf(fw.tensor(i["cdf"]), fw.tensor(i["sym"]))
    return np.frombuffer(stream, np.uint8)


def _roundtrip(ns, fw, i):
    stream = ns.encode_cdf(fw.tensor(i["cdf"]), fw.tensor(i["sym"]))
    return ns.decode_cdf(fw.tensor(i["cdf"]), stream)


TORCHAC = Package(
    name="torchac",
    version="0.8.9",
    filename="torchac-0.8.9.tar.gz",
    sha256="71fa23c0c5f3dc028f7ded5d9dda01611f1f9a1cd8a08a8360d45a21104b67da",
    port_roots=("torchac/backend",),
    why="learned compression: arithmetic coding of int16 symbols under int16 CDFs",
    builds=(Build("backend", ("torchac/backend/torchac_backend.cpp",)),),
    ops=(
        Op("encode_cdf", "backend", _cdf_and_symbols, _encode),
        Op("decode_cdf", "backend", _cdf_and_symbols, _roundtrip, lambda i: i["sym"]),
    ),
)
