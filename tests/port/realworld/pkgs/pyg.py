"""torch-scatter, torch-cluster, torch-sparse and torch-spline-conv: CPU ops registered with
torch::RegisterOperators, called through the ops namespace."""

from __future__ import annotations

import numpy as np

from .._spec import Build, Op, Package

F64, I64 = np.float64, np.int64


def _scatter_inputs(rng):
    return {"src": rng.standard_normal((7, 3)), "index": rng.integers(0, 4, (7, 3))}


def _scatter_ref(kind):
    def ref(i):
        src, idx = i["src"], i["index"]
        out = np.zeros((4, 3))
        count = np.zeros((4, 3))
        arg = np.full((4, 3), src.shape[0])
        for r in range(src.shape[0]):
            for c in range(3):
                g = idx[r, c]
                if kind in ("sum", "mean"):
                    out[g, c] += src[r, c]
                elif count[g, c] == 0 or (src[r, c] > out[g, c]) == (kind == "max"):
                    if count[g, c] == 0 or src[r, c] != out[g, c]:
                        out[g, c], arg[g, c] = src[r, c], r
                count[g, c] += 1
        if kind == "mean":
            out = out / np.maximum(count, 1)
        return out if kind in ("sum", "mean") else (out, arg)

    return ref


def _scatter_op(kind):
    def call(ns, fw, i):
        fn = getattr(ns, f"scatter_{kind}")
        return fn(fw.tensor(i["src"]), fw.tensor(i["index"]), 0, None, 4)

    return Op(f"scatter_{kind}", "scatter", _scatter_inputs, call, _scatter_ref(kind))


def _csr_inputs(rng):
    return {"src": rng.standard_normal((6, 2)), "indptr": np.array([0, 2, 2, 5, 6], dtype=I64)}


def _segment_ref(i, mean=False):
    p = i["indptr"]
    rows = [i["src"][p[k] : p[k + 1]] for k in range(len(p) - 1)]
    return np.stack([(r.mean(0) if mean else r.sum(0)) if len(r) else np.zeros(2) for r in rows])


def _gather_csr_ref(i):
    p, src = i["indptr"], i["src"][:4]
    return np.repeat(src, np.diff(p), axis=0)


def _coo_inputs(rng):
    return {"src": rng.standard_normal((6, 2)), "index": np.array([0, 0, 1, 3, 3, 3], dtype=I64)}


def _coo_sum_ref(i):
    out = np.zeros((4, 2))
    np.add.at(out, i["index"], i["src"])
    return out


SCATTER = Package(
    name="torch-scatter",
    version="2.1.2",
    filename="torch_scatter-2.1.2.tar.gz",
    sha256="69b3aa435f2424ac6a1bfb6ff702da6eb73b33ca0db38fb26989c74159258e47",
    port_roots=("csrc",),
    why="PyG's scatter/segment reductions",
    builds=(
        Build(
            "scatter",
            ("csrc/scatter.cpp", "csrc/cpu/scatter_cpu.cpp"),
            ("csrc",),
            namespace="torch_scatter",
        ),
        Build(
            "segment_csr",
            ("csrc/segment_csr.cpp", "csrc/cpu/segment_csr_cpu.cpp"),
            ("csrc",),
            namespace="torch_scatter",
        ),
        Build(
            "segment_coo",
            ("csrc/segment_coo.cpp", "csrc/cpu/segment_coo_cpu.cpp"),
            ("csrc",),
            namespace="torch_scatter",
        ),
    ),
    ops=(
        _scatter_op("sum"),
        _scatter_op("mean"),
        _scatter_op("max"),
        _scatter_op("min"),
        Op(
            "segment_sum_csr",
            "segment_csr",
            _csr_inputs,
            lambda ns, fw, i: ns.segment_sum_csr(fw.tensor(i["src"]), fw.tensor(i["indptr"]), None),
            _segment_ref,
        ),
        Op(
            "segment_mean_csr",
            "segment_csr",
            _csr_inputs,
            lambda ns, fw, i: ns.segment_mean_csr(
                fw.tensor(i["src"]), fw.tensor(i["indptr"]), None
            ),
            lambda i: _segment_ref(i, mean=True),
        ),
        Op(
            "gather_csr",
            "segment_csr",
            _csr_inputs,
            lambda ns, fw, i: ns.gather_csr(fw.tensor(i["src"][:4]), fw.tensor(i["indptr"]), None),
            _gather_csr_ref,
        ),
        Op(
            "segment_sum_coo",
            "segment_coo",
            _coo_inputs,
            lambda ns, fw, i: ns.segment_sum_coo(
                fw.tensor(i["src"]), fw.tensor(i["index"]), None, 4
            ),
            _coo_sum_ref,
        ),
        Op(
            "gather_coo",
            "segment_coo",
            _coo_inputs,
            lambda ns, fw, i: ns.gather_coo(fw.tensor(i["src"][:4]), fw.tensor(i["index"]), None),
            lambda i: i["src"][:4][i["index"]],
        ),
    ),
)


def _points(rng):
    return {"x": rng.standard_normal((12, 3)), "y": rng.standard_normal((5, 3))}


def _fps_ref(i):
    x = i["x"]
    chosen = []
    for lo, hi in ((0, 6), (6, 12)):
        pts = x[lo:hi]
        picked = [0]
        dist = ((pts - pts[0]) ** 2).sum(1)
        for _ in range(2):
            nxt = int(np.argmax(dist))
            picked.append(nxt)
            dist = np.minimum(dist, ((pts - pts[nxt]) ** 2).sum(1))
        chosen += [lo + p for p in picked]
    return np.array(chosen)


def _grid_ref(i):
    pos, size = i["x"], np.full(3, 0.7)
    start, end = pos.min(0), pos.max(0)
    voxels = np.cumprod(((end - start) / size).astype(I64) + 1)
    strides = np.concatenate([[1], voxels[:-1]])
    return (((pos - start) / size).astype(I64) * strides).sum(1)


def _cluster_build(name):
    return Build(
        name, (f"csrc/{name}.cpp", f"csrc/cpu/{name}_cpu.cpp"), ("csrc",), namespace="torch_cluster"
    )


CLUSTER = Package(
    name="torch-cluster",
    version="1.6.3",
    filename="torch_cluster-1.6.3.tar.gz",
    sha256="78d5a930a5bbd0d8788df8c6d66addd68d6dd292fe3edb401e3dacba26308152",
    port_roots=("csrc",),
    why="PyG's point-cloud clustering and neighbour search",
    builds=(
        _cluster_build("fps"),
        _cluster_build("grid"),
        _cluster_build("knn"),
        _cluster_build("radius"),
    ),
    ops=(
        Op(
            "fps",
            "fps",
            _points,
            lambda ns, fw, i: ns.fps(
                fw.tensor(i["x"]),
                fw.tensor(np.array([0, 6, 12], dtype=I64)),
                fw.tensor(np.array([0.5])),
                False,
            ),
            _fps_ref,
        ),
        Op(
            "grid",
            "grid",
            _points,
            lambda ns, fw, i: ns.grid(
                fw.tensor(i["x"]), fw.tensor(np.array([0.7, 0.7, 0.7])), None, None
            ),
            _grid_ref,
        ),
        Op(
            "knn",
            "knn",
            _points,
            lambda ns, fw, i: ns.knn(fw.tensor(i["x"]), fw.tensor(i["y"]), None, None, 3, False, 1),
        ),
        Op(
            "radius",
            "radius",
            _points,
            lambda ns, fw, i: ns.radius(
                fw.tensor(i["x"]), fw.tensor(i["y"]), None, None, 1.2, 4, 1
            ),
        ),
    ),
)


def _csr_matrix(rng):
    rowptr = np.array([0, 2, 3, 3, 6], dtype=I64)
    col = np.array([0, 2, 1, 0, 1, 3], dtype=I64)
    return {
        "rowptr": rowptr,
        "col": col,
        "value": rng.standard_normal(6),
        "mat": rng.standard_normal((4, 3)),
        "row": np.array([0, 0, 1, 3, 3, 3], dtype=I64),
    }


def _spmm_ref(i):
    out = np.zeros((4, 3))
    for e, (r, c) in enumerate(zip(i["row"], i["col"])):
        out[r] += i["value"][e] * i["mat"][c]
    return out


def _sparse_build(name, *extra):
    return Build(
        name,
        (f"csrc/{name}.cpp", f"csrc/cpu/{name}_cpu.cpp", *extra),
        ("csrc", "third_party/parallel-hashmap"),
        namespace="torch_sparse",
    )


SPARSE = Package(
    name="torch-sparse",
    version="0.6.18",
    filename="torch_sparse-0.6.18.tar.gz",
    sha256="2f14c510a6e93f404c6ea357210615b3c15a71731f9dbd86f25434e34fb5a741",
    port_roots=("csrc", "third_party"),
    why="PyG's sparse-matrix ops",
    builds=(_sparse_build("convert"), _sparse_build("diag"), _sparse_build("spmm")),
    ops=(
        Op(
            "ind2ptr",
            "convert",
            _csr_matrix,
            lambda ns, fw, i: ns.ind2ptr(fw.tensor(i["row"]), 4),
            lambda i: i["rowptr"],
        ),
        Op(
            "ptr2ind",
            "convert",
            _csr_matrix,
            lambda ns, fw, i: ns.ptr2ind(fw.tensor(i["rowptr"]), 6),
            lambda i: i["row"],
        ),
        Op(
            "non_diag_mask",
            "diag",
            _csr_matrix,
            lambda ns, fw, i: ns.non_diag_mask(fw.tensor(i["row"]), fw.tensor(i["col"]), 4, 4, 0),
        ),
        Op(
            "spmm_sum",
            "spmm",
            _csr_matrix,
            lambda ns, fw, i: ns.spmm_sum(
                None,
                fw.tensor(i["rowptr"]),
                fw.tensor(i["col"]),
                fw.tensor(i["value"]),
                None,
                None,
                fw.tensor(i["mat"]),
            ),
            _spmm_ref,
        ),
        Op(
            "spmm_max",
            "spmm",
            _csr_matrix,
            lambda ns, fw, i: ns.spmm_max(
                fw.tensor(i["rowptr"]),
                fw.tensor(i["col"]),
                fw.tensor(i["value"]),
                fw.tensor(i["mat"]),
            ),
        ),
    ),
)


def _spline_inputs(rng):
    return {
        "pseudo": rng.uniform(0, 1, (5, 2)),
        "x": rng.standard_normal((5, 3)),
        "weight": rng.standard_normal((9, 3, 2)),
    }


def _basis(ns, fw, i):
    return ns.spline_basis(
        fw.tensor(i["pseudo"]),
        fw.tensor(np.array([3, 3], dtype=I64)),
        fw.tensor(np.array([1, 1], dtype=np.uint8)),
        1,
    )


def _weighting(ns, fw, i):
    basis, index = _basis(ns, fw, i)
    return ns.spline_weighting(fw.tensor(i["x"]), fw.tensor(i["weight"]), basis, index)


SPLINE = Package(
    name="torch-spline-conv",
    version="1.2.2",
    filename="torch_spline_conv-1.2.2.tar.gz",
    sha256="ed45a81da29f774665dbdd4709d7e534cdf16d2e7006dbd06957f35bd09661b2",
    port_roots=("csrc",),
    why="PyG's spline convolution",
    builds=(
        Build(
            "basis",
            ("csrc/basis.cpp", "csrc/cpu/basis_cpu.cpp"),
            ("csrc",),
            namespace="torch_spline_conv",
        ),
        Build(
            "weighting",
            (
                "csrc/basis.cpp",
                "csrc/cpu/basis_cpu.cpp",
                "csrc/weighting.cpp",
                "csrc/cpu/weighting_cpu.cpp",
            ),
            ("csrc",),
            namespace="torch_spline_conv",
        ),
    ),
    ops=(
        Op("spline_basis", "basis", _spline_inputs, _basis),
        Op("spline_weighting", "weighting", _spline_inputs, _weighting),
    ),
)
