"""pytorch-fast-transformers (linear, local and sparse attention): each CPU kernel file is a
pybind11 module of its own."""

from __future__ import annotations

import numpy as np

from .._spec import Build, Op, Package

F32 = np.float32
ROOT = "fast_transformers"


def _qkv(rng):
    n, h, length, e, m = 2, 2, 5, 3, 4
    return {
        "q": rng.standard_normal((n, h, length, e)).astype(F32),
        "k": rng.standard_normal((n, h, length, e)).astype(F32),
        "v": rng.standard_normal((n, h, length, m)).astype(F32),
        "groups": rng.integers(-1, 3, (n, h, length)).astype(np.int32),
        "factors": rng.uniform(0.5, 2, (n, h, 3)).astype(F32),
        "planes": rng.standard_normal((4, e + 1)).astype(F32),
        "mask": rng.standard_normal((length, length)).astype(F32),
        "lengths": np.array([5, 3], dtype=np.int64),
        "topk": rng.integers(0, length, (n, h, length, 2)).astype(np.int64),
    }


def _causal(ns, fw, i):
    out = fw.empty(i["v"].shape, F32)
    ns.causal_dot_product(fw.tensor(i["q"]), fw.tensor(i["k"]), fw.tensor(i["v"]), out)
    return out


def _causal_ref(i):
    scores = np.einsum("nhle,nhse->nhls", i["q"], i["k"])
    scores = np.tril(scores)  # position l attends to s <= l
    return np.einsum("nhls,nhsm->nhlm", scores, i["v"])


def _aggregate(ns, fw, i):
    out = fw.empty((2, 2, 3, 3), F32)
    x, g, f = (fw.tensor(i[k]) for k in ("q", "groups", "factors"))
    ns.aggregate(x, g, f, out)
    return out


def _aggregate_ref(i):
    out = np.zeros((2, 2, 3, 3), F32)
    for n, h, pos in np.ndindex(*i["groups"].shape):
        c = i["groups"][n, h, pos]
        if 0 <= c < 3:
            out[n, h, c] += i["q"][n, h, pos] * i["factors"][n, h, c]
    return out


def _hashes(ns, fw, i):
    x = i["q"].reshape(-1, 3)
    out = fw.empty((x.shape[0],), np.int64)
    ns.compute_hashes(fw.tensor(x), fw.tensor(i["planes"]), out)
    return out


def _hashes_ref(i):
    x, a = i["q"].reshape(-1, 3), i["planes"]
    bits = (x @ a[:, :3].T > a[:, 3]).astype(np.int64)
    return (bits << np.arange(a.shape[0])).sum(1)


def _local(ns, fw, i):
    q, k, mask, lengths = (fw.tensor(i[n]) for n in ("q", "k", "mask", "lengths"))
    return ns.local_dot_product(q, k, mask, lengths, 3)


def _sparse(ns, fw, i):
    out = fw.empty((2, 2, 5, 2), F32)
    ns.sparse_dot_product(fw.tensor(i["q"]), fw.tensor(i["k"]), fw.tensor(i["topk"]), out)
    return out


def _sparse_ref(i):
    keys = np.take_along_axis(i["k"][:, :, None], i["topk"][..., None], 3)  # n h l k e
    return np.einsum("nhle,nhlke->nhlk", i["q"], keys)


def _module(name: str, folder: str) -> Build:
    return Build(name, (f"{ROOT}/{folder}/{name}_cpu.cpp",))


FAST_TRANSFORMERS = Package(
    name="pytorch-fast-transformers",
    version="0.4.0",
    filename="pytorch-fast-transformers-0.4.0.tar.gz",
    sha256="d1826bc31b9dfbcd018998b897667e89fc6566bd3f8c424cda9f0943544f7e90",
    port_roots=(ROOT,),
    why="linear, local and sparse attention kernels",
    builds=(
        _module("causal_product", "causal_product"),
        _module("aggregate", "aggregate"),
        _module("hash", "hashing"),
        _module("local_product", "local_product"),
        _module("sparse_product", "sparse_product"),
    ),
    ops=(
        Op("causal_dot_product", "causal_product", _qkv, _causal, _causal_ref, rtol=1e-4),
        Op("aggregate", "aggregate", _qkv, _aggregate, _aggregate_ref),
        Op("compute_hashes", "hash", _qkv, _hashes, _hashes_ref),
        Op("local_dot_product", "local_product", _qkv, _local),
        Op("sparse_dot_product", "sparse_product", _qkv, _sparse, _sparse_ref, rtol=1e-4),
    ),
)
