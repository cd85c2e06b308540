"""torchsort (soft ranking), torch-points-kernels and chamferdist (point-cloud neighbours):
pybind11 modules built from the package's own binding file."""

from __future__ import annotations

import numpy as np

from .._spec import Build, Op, Package


def _pav_decreasing(y: np.ndarray) -> np.ndarray:
    """argmin ||v - y||^2 subject to v_1 >= v_2 >= ... (pool adjacent violators)."""
    blocks: list[list[float]] = []  # [sum, count]
    for value in y:
        blocks.append([value, 1])
        while len(blocks) > 1 and blocks[-2][0] / blocks[-2][1] < blocks[-1][0] / blocks[-1][1]:
            s, c = blocks.pop()
            blocks[-1][0] += s
            blocks[-1][1] += c
    return np.concatenate([np.full(int(c), s / c) for s, c in blocks])


def _sort_inputs(rng):
    return {
        "y": rng.standard_normal((3, 8)),
        "w": rng.standard_normal((3, 8)),
        "grad": rng.standard_normal((3, 8)),
    }


def _l2_backward(ns, fw, i):
    sol = ns.isotonic_l2(fw.tensor(i["y"]))
    return ns.isotonic_l2_backward(fw.tensor(i["y"]), sol, fw.tensor(i["grad"]))


def _kl_backward(ns, fw, i):
    sol = ns.isotonic_kl(fw.tensor(i["y"]), fw.tensor(i["w"]))
    return ns.isotonic_kl_backward(fw.tensor(i["y"]), sol, fw.tensor(i["grad"]))


TORCHSORT = Package(
    name="torchsort",
    version="0.1.10",
    filename="torchsort-0.1.10.tar.gz",
    sha256="416a7dd2ab88332b27e98318d7fb2e0243b9fb6f1fffcf77760d63103d70dd04",
    port_roots=("torchsort",),
    why="differentiable sorting and ranking",
    builds=(Build("isotonic", ("torchsort/isotonic_cpu.cpp",)),),
    ops=(
        Op(
            "isotonic_l2",
            "isotonic",
            _sort_inputs,
            lambda ns, fw, i: ns.isotonic_l2(fw.tensor(i["y"])),
            lambda i: np.stack([_pav_decreasing(r) for r in i["y"]]),
        ),
        Op(
            "isotonic_kl",
            "isotonic",
            _sort_inputs,
            lambda ns, fw, i: ns.isotonic_kl(fw.tensor(i["y"]), fw.tensor(i["w"])),
        ),
        Op("isotonic_l2_backward", "isotonic", _sort_inputs, _l2_backward),
        Op("isotonic_kl_backward", "isotonic", _sort_inputs, _kl_backward),
    ),
)


def _cloud(rng):
    return {
        "support": rng.standard_normal((2, 16, 3)).astype(np.float32),
        "query": rng.standard_normal((2, 5, 3)).astype(np.float32),
        "features": rng.standard_normal((2, 4, 16)).astype(np.float32),
    }


def _interpolate(ns, fw, i):
    idx, dist = ns.dense_knn(fw.tensor(i["support"]), fw.tensor(i["query"]), 3)
    weights = fw.tensor(np.full((2, 5, 3), 1 / 3, dtype=np.float32))
    return ns.knn_interpolate(fw.tensor(i["features"]), idx, weights)


POINTS_KERNELS = Package(
    name="torch-points-kernels",
    version="0.7.0",
    filename="torch-points-kernels-0.7.0.tar.gz",
    sha256="a93d6c69fe2035e81c066b6ca6d2264cecdb368677152a231a69f686f00f6571",
    port_roots=("cpu",),
    why="torch-points3d's neighbour search and sampling",
    builds=(
        Build(
            "cpu",
            (
                "cpu/src/ball_query.cpp",
                "cpu/src/bindings.cpp",
                "cpu/src/fps.cpp",
                "cpu/src/interpolate.cpp",
                "cpu/src/knn.cpp",
                "cpu/src/neighbors.cpp",
            ),
            ("cpu/include",),
            defines=("VERSION_GE_1_3",),  # its setup.py's flag for torch >= 1.3
        ),
    ),
    ops=(
        Op(
            "dense_knn",
            "cpu",
            _cloud,
            lambda ns, fw, i: ns.dense_knn(fw.tensor(i["support"]), fw.tensor(i["query"]), 3),
        ),
        Op("fps", "cpu", _cloud, lambda ns, fw, i: ns.fps(fw.tensor(i["support"]), 4, False)),
        Op("knn_interpolate", "cpu", _cloud, _interpolate),
        Op(
            "ball_query",
            "cpu",
            _cloud,
            lambda ns, fw, i: ns.ball_query(
                fw.tensor(i["support"][0]), fw.tensor(i["query"][0]), 1.0, 4, 0, True
            ),
        ),
        Op(
            "dense_ball_query",
            "cpu",
            _cloud,
            lambda ns, fw, i: ns.dense_ball_query(
                fw.tensor(i["support"]), fw.tensor(i["query"]), 1.0, 4, 0, True
            ),
        ),
    ),
)


def _knn_ref(i):
    d = ((i["p1"][:, :, None, :] - i["p2"][:, None, :, :]) ** 2).sum(-1)
    idx = np.argsort(d, axis=-1, kind="stable")[..., :2]
    return idx, np.take_along_axis(d, idx, -1)


def _pairs(rng):
    # the CPU kernel reads float32 points (its accessors are typed float)
    return {
        "p1": rng.standard_normal((2, 6, 3)).astype(np.float32),
        "p2": rng.standard_normal((2, 7, 3)).astype(np.float32),
        "grad": rng.standard_normal((2, 6, 2)).astype(np.float32),
    }


def _lengths(fw, n):
    return fw.tensor(np.array([n, n], dtype=np.int64))


def _knn_backward(ns, fw, i):
    p1, p2 = fw.tensor(i["p1"]), fw.tensor(i["p2"])
    idx, _ = ns.knn_points_idx(p1, p2, _lengths(fw, 6), _lengths(fw, 7), 2, -1)
    return ns.knn_points_backward(
        p1, p2, _lengths(fw, 6), _lengths(fw, 7), idx, fw.tensor(i["grad"])
    )


CHAMFERDIST = Package(
    name="chamferdist",
    version="1.0.3",
    filename="chamferdist-1.0.3.tar.gz",
    sha256="ac9d3a723329d230bcdd5ee8a01f13632ebae31b2ae221116579637ed57a4567",
    port_roots=("chamferdist",),
    why="Chamfer distance (k nearest neighbours of point sets)",
    builds=(
        Build("knn", ("chamferdist/ext.cpp", "chamferdist/knn_cpu.cpp"), ("chamferdist",)),
        Build("knn_cuda", ("chamferdist/knn.cu",), ("chamferdist",), compile_only=True),
    ),
    ops=(
        Op(
            "knn_points_idx",
            "knn",
            _pairs,
            lambda ns, fw, i: ns.knn_points_idx(
                fw.tensor(i["p1"]), fw.tensor(i["p2"]), _lengths(fw, 6), _lengths(fw, 7), 2, -1
            ),
            _knn_ref,
            rtol=1e-4,
            atol=1e-5,
        ),
        Op("knn_points_backward", "knn", _pairs, _knn_backward),
        Op("knn (CUDA, compile only)", "knn_cuda"),
    ),
)
