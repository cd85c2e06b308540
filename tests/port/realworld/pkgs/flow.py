"""spatial-correlation-sampler (optical flow's correlation layer, FlowNet/PWC-Net) and
torch-householder (orthogonal matrices as products of Householder reflections): pybind11
modules built from each package's own binding file, CPU code only."""

from __future__ import annotations

import numpy as np

from .._spec import Build, Op, Package

PATCH = 3  # a 3 x 3 neighbourhood of displacements, kernel_size 1, stride 1, no padding


def _maps(rng):
    return {
        "a": rng.standard_normal((2, 3, 5, 6)).astype(np.float32),
        "b": rng.standard_normal((2, 3, 5, 6)).astype(np.float32),
        "grad": rng.standard_normal((2, PATCH, PATCH, 5, 6)).astype(np.float32),
    }


def _pairs(shape):
    """(p, q, y, x, y + dy, x + dx): each displacement of the patch at each pixel whose
    displaced pixel is inside the map (the sampler adds zero for the others)."""
    for p in range(PATCH):
        for q in range(PATCH):
            dy, dx = p - PATCH // 2, q - PATCH // 2
            for y in range(shape[2]):
                for x in range(shape[3]):
                    if 0 <= y + dy < shape[2] and 0 <= x + dx < shape[3]:
                        yield p, q, y, x, y + dy, x + dx


def _correlate(ns, fw, i):
    args = (
        1,
        1,
        PATCH,
        PATCH,
        0,
        0,
        1,
        1,
        1,
        1,
        1,
        1,
    )  # kH kW patchH patchW pad dil dil_patch dH dW
    return ns.forward(fw.tensor(i["a"]), fw.tensor(i["b"]), *args)


def _correlate_ref(i):
    a, b = i["a"], i["b"]
    out = np.zeros((a.shape[0], PATCH, PATCH, a.shape[2], a.shape[3]), np.float64)
    for p, q, y, x, y2, x2 in _pairs(a.shape):
        out[:, p, q, y, x] = (a[:, :, y, x] * b[:, :, y2, x2]).sum(1)
    return out


def _correlate_backward(ns, fw, i):
    args = (1, 1, PATCH, PATCH, 0, 0, 1, 1, 1, 1, 1, 1)
    return ns.backward(fw.tensor(i["a"]), fw.tensor(i["b"]), fw.tensor(i["grad"]), *args)


def _correlate_backward_ref(i):
    a, b, g = i["a"], i["b"], i["grad"]
    da, db = np.zeros(a.shape, np.float64), np.zeros(b.shape, np.float64)
    for p, q, y, x, y2, x2 in _pairs(a.shape):
        w = g[:, p, q, y, x][:, None]
        da[:, :, y, x] += w * b[:, :, y2, x2]
        db[:, :, y2, x2] += w * a[:, :, y, x]
    return da, db


SPATIAL_CORRELATION = Package(
    name="spatial-correlation-sampler",
    version="0.5.0",
    filename="spatial_correlation_sampler-0.5.0.tar.gz",
    sha256="872d720d3740f3caf0d15620af5180af8a1971568f9c7cda3664757262688d11",
    port_roots=("Correlation_Module",),
    why="optical flow's correlation layer",
    builds=(
        Build(
            "correlation",
            ("Correlation_Module/correlation.cpp", "Correlation_Module/correlation_sampler.cpp"),
            cflags=("-fopenmp",),  # the package's setup.py compiles with OpenMP
        ),
    ),
    ops=(
        Op("forward", "correlation", _maps, _correlate, _correlate_ref),
        # torch's CPU wheel cannot build the original (it includes c10/cuda headers whatever the
        # build), so both ops are checked against numpy
        Op("backward", "correlation", _maps, _correlate_backward, _correlate_backward_ref),
    ),
)


def _reflections(rng):
    v = rng.standard_normal((2, 5, 3))
    return {
        "param": v / np.linalg.norm(v, axis=1, keepdims=True),
        "grad": rng.standard_normal((2, 5, 3)),
    }


def _orgqr(ns, fw, i):
    return ns.orgqr_normalized_forward(fw.tensor(i["param"]))


def _orgqr_ref(i):
    """The first r columns of H_1 ... H_r, H_k = I - 2 v_k v_k^T for the unit columns v_k."""
    out = []
    for v in i["param"]:
        d, r = v.shape
        q = np.eye(d)
        for k in range(r):
            q = q @ (np.eye(d) - 2 * np.outer(v[:, k], v[:, k]))
        out.append(q[:, :r])
    return np.stack(out)


def _orgqr_backward(ns, fw, i):
    param = fw.tensor(i["param"])
    m = ns.orgqr_normalized_forward(param)
    return ns.orgqr_normalized_backward(fw.tensor(i["grad"]), m, param)


HOUSEHOLDER = Package(
    name="torch-householder",
    version="1.0.1",
    filename="torch_householder-1.0.1.tar.gz",
    sha256="9a4b240c68947491c4e96a78771497562650f9a555001e062a0969fce206f786",
    port_roots=("torch_householder",),
    why="orthogonal weights as products of Householder reflections",
    builds=(Build("householder", ("torch_householder/householder.cpp",)),),
    ops=(
        Op("orgqr_normalized_forward", "householder", _reflections, _orgqr, _orgqr_ref),
        Op("orgqr_normalized_backward", "householder", _reflections, _orgqr_backward),
    ),
)
