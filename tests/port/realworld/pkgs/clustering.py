"""Clustering and similarity search: dbscan-torch (grid-hashed 2-D DBSCAN), whose binding
names its pybind11 module _C, bound here by a small glue file (a JIT build imports the module
under the name it was built with), and hamming-sim-pytorch (similarity of bit-packed codes)."""

from __future__ import annotations

import numpy as np

from .._spec import Build, Op, Package

GLUE = (
    "dbscan_glue.cpp",
    "// Binds the package's entry points (written for the real-world port check).\n"
    "#include <torch/extension.h>\n\n"
    "torch::Tensor dbscan2d(torch::Tensor X, double eps, int64_t min_samples);\n\n"
    'PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("dbscan2d", &dbscan2d); }\n',
)
EPS, MIN_SAMPLES = 0.5, 4


def _points(rng):
    """Four well separated blobs (so no border point is in reach of two clusters) and sparse
    uniform noise."""
    centres = np.array([[0.0, 0.0], [8.0, 0.0], [0.0, 8.0], [8.0, 8.0]])
    blobs = [c + rng.normal(0, 0.35, (40, 2)) for c in centres]
    noise = rng.uniform(-4, 12, (30, 2))
    x = np.concatenate(blobs + [noise]).astype(np.float32)
    return {"X": x[rng.permutation(len(x))]}


def _canonical(labels: np.ndarray) -> np.ndarray:
    """Cluster ids renumbered by first appearance (noise stays -1): DBSCAN's ids are arbitrary."""
    out = np.full(labels.shape, -1, np.int64)
    ids: dict[int, int] = {}
    for n, lab in enumerate(labels.tolist()):
        if lab >= 0:
            out[n] = ids.setdefault(lab, len(ids))
    return out


def _dbscan(ns, fw, i):
    return _canonical(np.asarray(ns.dbscan2d(fw.tensor(i["X"]), EPS, MIN_SAMPLES).numpy()))


def _dbscan_ref(i):
    """Textbook DBSCAN: core points have >= MIN_SAMPLES points (themselves included) within
    EPS; clusters are the connected components of core points; a non-core point joins the
    cluster of a core point within EPS, else it is noise."""
    x = i["X"].astype(np.float64)
    d2 = ((x[:, None, :] - x[None, :, :]) ** 2).sum(-1)
    near = d2 <= EPS * EPS
    core = near.sum(1) >= MIN_SAMPLES
    labels = np.full(len(x), -1)
    next_id = 0
    for seed in np.flatnonzero(core):
        if labels[seed] >= 0:
            continue
        labels[seed], stack = next_id, [seed]
        while stack:
            p = stack.pop()
            for q in np.flatnonzero(near[p]):
                if labels[q] < 0:
                    labels[q] = next_id
                    if core[q]:
                        stack.append(q)
        next_id += 1
    return _canonical(labels)


DBSCAN = Package(
    name="dbscan-torch",
    version="0.2.0",
    filename="dbscan_torch-0.2.0.tar.gz",
    sha256="ae596989050fafa415c2a7d2199a75e0baae2d401cb71da6cd1b042f82a1b653",
    port_roots=("csrc",),
    why="clustering: grid-hashed 2-D DBSCAN with OpenMP",
    builds=(
        Build(
            "cpu",
            ("csrc/extension.cpp", "csrc/cpu/dbscan_cpu.cpp"),
            ("csrc",),
            glue=GLUE,
            cflags=("-fopenmp",),  # the package's build links OpenMP
        ),
        Build(
            "cuda",
            ("csrc/extension.cpp", "csrc/cuda/dbscan_cuda.cu"),
            ("csrc",),
            defines=("WITH_CUDA",),
            compile_only=True,
        ),
    ),
    ops=(
        Op("dbscan2d", "cpu", _points, _dbscan, _dbscan_ref),
        Op("dbscan2d_cuda (compile only)", "cuda"),
    ),
)


# hamming-sim-pytorch: 1 - Hamming distance / bits between rows of bit-packed uint8 codes (AVX2
# body for 32 bytes at a time, scalar tail): 37 bytes a row so both paths run.
def _codes(rng):
    return {
        "a": rng.integers(0, 256, (6, 37)).astype(np.uint8),
        "b": rng.integers(0, 256, (5, 37)).astype(np.uint8),
    }


def _hamming_ref(i):
    xor = i["a"][:, None, :] ^ i["b"][None, :, :]
    bits = np.unpackbits(xor, axis=-1).sum(-1)
    return (1.0 - bits / (8 * i["a"].shape[1])).astype(np.float32)


HAMMING = Package(
    name="hamming-sim-pytorch",
    version="0.1.2.2",
    filename="hamming_sim_pytorch-0.1.2.2.tar.gz",
    sha256="c0b79445c718dffb74a6d9457b56381bbc235818bd7e42e201977f022cfe0201",
    port_roots=("hamming_sim",),
    why="binary-code similarity search (AVX2 popcount, OpenMP)",
    builds=(
        Build(
            "sim",
            ("hamming_sim/hamming_sim.cpp",),
            cflags=("-march=haswell", "-mavx2", "-fopenmp"),  # scripts/build_extension.py
        ),
    ),
    ops=(
        Op(
            "quantized_1bit_tensor_similarity",
            "sim",
            _codes,
            lambda ns, fw, i: ns.quantized_1bit_tensor_similarity(
                fw.tensor(i["a"]), fw.tensor(i["b"])
            ),
            _hamming_ref,
        ),
    ),
)
