"""torch-encoding (semantic segmentation's context encoding): its CPU module, built as the
package builds it (all five sources, the ops declared in a header that includes only
torch/torch.h), and its encoding-layer and batch-norm ops bound alone, which torch 2.13 still
builds (its NMS and ROIAlign files no longer compile with torch: AT_ASSERT without a `;`, and
AT_DISPATCH over the deprecated Tensor::type()), so the whole module is checked against numpy.
bilateralfilter-torch (medical imaging): its trainable 3-D bilateral filter, forward and back."""

from __future__ import annotations

import numpy as np

from .._spec import Build, Op, Package

CPU = "encoding/lib/cpu"
GLUE = (
    "encoding_glue.cpp",
    "// Binds the package's encoding and batch-norm ops (written for the real-world port check).\n"
    f'#include "{CPU}/operator.h"\n\n'
    "PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {\n"
    '  m.def("aggregate_forward", &Aggregate_Forward_CPU);\n'
    '  m.def("aggregate_backward", &Aggregate_Backward_CPU);\n'
    '  m.def("scaled_l2_forward", &ScaledL2_Forward_CPU);\n'
    '  m.def("scaled_l2_backward", &ScaledL2_Backward_CPU);\n'
    '  m.def("batchnorm_forward", &BatchNorm_Forward_CPU);\n'
    "}\n",
)
B, N, K, D = 2, 6, 3, 4


def _codes(rng):
    return {
        "A": rng.uniform(0, 1, (B, N, K)),
        "X": rng.standard_normal((B, N, D)),
        "C": rng.standard_normal((K, D)),
        "S": rng.uniform(0.5, 1.5, K),
        "GE": rng.standard_normal((B, K, D)),
        "GSL": rng.standard_normal((B, N, K)),
    }


def _aggregate_ref(i):
    return np.einsum("bnk,bnkd->bkd", i["A"], i["X"][:, :, None] - i["C"][None, None])


def _scaled_l2_ref(i):
    return i["S"] * ((i["X"][:, :, None] - i["C"][None, None]) ** 2).sum(-1)


def _scaled_l2_backward(ns, fw, i):
    x, c, s = fw.tensor(i["X"]), fw.tensor(i["C"]), fw.tensor(i["S"])
    return ns.scaled_l2_backward(fw.tensor(i["GSL"]), x, c, s, ns.scaled_l2_forward(x, c, s))


def _bn(rng):
    return {
        "x": rng.standard_normal((2, 3, 5)),
        "mean": rng.standard_normal(3),
        "std": rng.uniform(0.5, 2, 3),
        "gamma": rng.standard_normal(3),
        "beta": rng.standard_normal(3),
    }


def _bn_call(ns, fw, i):
    return ns.batchnorm_forward(*(fw.tensor(i[k]) for k in ("x", "mean", "std", "gamma", "beta")))


def _bn_ref(i):
    col = [v[None, :, None] for v in (i["mean"], i["std"], i["gamma"], i["beta"])]
    return (i["x"] - col[0]) / col[1] * col[2] + col[3]


def _boxes(rng):
    """(x, y, w, h) boxes of two images, clustered so that some overlap, and distinct scores."""
    xy = rng.uniform(0, 20, (2, 12, 2)) + rng.integers(0, 3, (2, 12, 1)) * 25
    wh = rng.uniform(4, 12, (2, 12, 2))
    scores = rng.permutation(24).reshape(2, 12) / 24.0
    return {
        "boxes": np.concatenate([xy, wh], -1).astype(np.float32),
        "scores": scores.astype(np.float32),
    }


NMS_THRESH = 0.3


def _nms(ns, fw, i):
    return ns.non_max_suppression(fw.tensor(i["boxes"]), fw.tensor(i["scores"]), NMS_THRESH)


def _iou_xywh(a, b):
    w = max(0.0, min(a[0] + a[2], b[0] + b[2]) - max(a[0], b[0]))
    h = max(0.0, min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1]))
    return w * h / (a[2] * a[3] + b[2] * b[3] - w * h)


def _nms_ref(i):
    """Greedy suppression in descending score order; the mask is in that order."""
    order = np.argsort(-i["scores"], axis=1, kind="stable")
    mask = np.ones(order.shape, np.uint8)
    for b in range(order.shape[0]):
        boxes = i["boxes"][b][order[b]]
        for pos in range(order.shape[1]):
            if mask[b, pos]:
                for j in range(pos + 1, order.shape[1]):
                    if _iou_xywh(boxes[pos], boxes[j]) > NMS_THRESH:
                        mask[b, j] = 0
    return mask, order


POOL, SCALE, RATIO = 3, 0.5, 2


def _rois(rng):
    x1y1 = rng.uniform(0, 14, (5, 2))
    rois = np.concatenate([rng.integers(0, 2, (5, 1)), x1y1, x1y1 + rng.uniform(2, 10, (5, 2))], 1)
    return {"x": rng.standard_normal((2, 3, 8, 9)), "rois": rois}


def _roi_align(ns, fw, i):
    return ns.roi_align_forward(fw.tensor(i["x"]), fw.tensor(i["rois"]), POOL, POOL, SCALE, RATIO)


def _bilinear(img, y, x):
    """img (C, H, W) sampled at (y, x) with the kernel's clamping (0 outside [-1, size])."""
    h, w = img.shape[1:]
    if y < -1 or y > h or x < -1 or x > w:
        return np.zeros(img.shape[0])
    y, x = max(y, 0.0), max(x, 0.0)
    y0, x0 = min(int(y), h - 1), min(int(x), w - 1)
    y = float(y0) if y0 == h - 1 else y
    x = float(x0) if x0 == w - 1 else x
    y1, x1 = min(y0 + 1, h - 1), min(x0 + 1, w - 1)
    ly, lx = y - y0, x - x0
    top = (1 - lx) * img[:, y0, x0] + lx * img[:, y0, x1]
    return (1 - ly) * top + ly * ((1 - lx) * img[:, y1, x0] + lx * img[:, y1, x1])


def _roi_align_ref(i):
    out = np.zeros((len(i["rois"]), i["x"].shape[1], POOL, POOL))
    for n, (b, *box) in enumerate(i["rois"]):
        x1, y1, x2, y2 = (v * SCALE for v in box)
        bw, bh = max(x2 - x1, 1.0) / POOL, max(y2 - y1, 1.0) / POOL
        for ph in range(POOL):
            for pw in range(POOL):
                pts = [
                    (y1 + ph * bh + (iy + 0.5) * bh / RATIO, x1 + pw * bw + (ix + 0.5) * bw / RATIO)
                    for iy in range(RATIO)
                    for ix in range(RATIO)
                ]
                img = i["x"][int(b)]
                out[n, :, ph, pw] = np.mean([_bilinear(img, y, x) for y, x in pts], 0)
    return out


SOURCES = tuple(
    f"{CPU}/{f}.cpp" for f in ("encoding_cpu", "syncbn_cpu", "roi_align_cpu", "nms_cpu")
)

TORCH_ENCODING = Package(
    name="torch-encoding",
    version="1.0.1",
    filename="torch-encoding-1.0.1.tar.gz",
    sha256="4665e11604e99482accd97eb939fdf67bfb6a4de42a54f078fe1d46a0d2c4f55",
    port_roots=(CPU,),
    why="semantic segmentation: context encoding, batch norm, NMS and ROIAlign",
    builds=(
        Build("cpu", (f"{CPU}/operator.cpp", *SOURCES)),
        Build("encoding", (f"{CPU}/encoding_cpu.cpp", f"{CPU}/syncbn_cpu.cpp"), (".",), glue=GLUE),
    ),
    ops=(
        Op("non_max_suppression", "cpu", _boxes, _nms, _nms_ref),
        Op("roi_align_forward", "cpu", _rois, _roi_align, _roi_align_ref, rtol=1e-6, atol=1e-9),
        Op(
            "aggregate_forward",
            "encoding",
            _codes,
            lambda ns, fw, i: ns.aggregate_forward(*(fw.tensor(i[k]) for k in "AXC")),
            _aggregate_ref,
        ),
        Op(
            "aggregate_backward",
            "encoding",
            _codes,
            lambda ns, fw, i: ns.aggregate_backward(
                *(fw.tensor(i[k]) for k in ("GE", "A", "X", "C"))
            ),
        ),
        Op(
            "scaled_l2_forward",
            "encoding",
            _codes,
            lambda ns, fw, i: ns.scaled_l2_forward(*(fw.tensor(i[k]) for k in "XCS")),
            _scaled_l2_ref,
        ),
        Op("scaled_l2_backward", "encoding", _codes, _scaled_l2_backward),
        Op("batchnorm_forward", "encoding", _bn, _bn_call, _bn_ref),
    ),
)


# bilateralfilter-torch: a trainable 3-D bilateral filter (medical imaging), a pybind11 CPU
# module of three sources built with -fopenmp; its CUDA module's sources compile.
BF_SHAPE, BF_SIGMA, BF_COLOR = (1, 1, 6, 5, 4), (1.0, 1.2, 0.8), 0.4


def _volume(rng):
    return {"x": rng.uniform(0, 1, BF_SHAPE), "grad": rng.standard_normal(BF_SHAPE)}


def _bf_forward(ns, fw, i):
    out, weights, *_ = ns.forward_3d_cpu(fw.tensor(i["x"]), *BF_SIGMA, BF_COLOR)
    return out, weights


def _bf_forward_ref(i):
    """Each voxel: the mean of the voxels in its window (per axis, the odd width
    max(ceil(5 s) | 1, 5); none outside the volume), weighted by
    exp(-d_x^2 / 2 s_x^2 - ...) * exp(-(v - v_home)^2 / 2 s_r^2), and the sum of those
    weights. The kernel takes its sigmas as float32."""
    x = i["x"][0, 0]
    sig = [float(np.float32(s)) for s in BF_SIGMA]
    half = [max(int(np.ceil(np.float32(5) * np.float32(s))) | 1, 5) // 2 for s in BF_SIGMA]
    sr = float(np.float32(BF_COLOR))
    out, weights = np.zeros_like(x), np.zeros_like(x)
    for home_at, home in np.ndenumerate(x):
        lo = [max(0, p - h) for p, h in zip(home_at, half)]
        hi = [min(n, p + h + 1) for p, h, n in zip(home_at, half, x.shape)]
        nb = x[lo[0] : hi[0], lo[1] : hi[1], lo[2] : hi[2]]
        d = np.ogrid[tuple(slice(a - p, b - p) for a, b, p in zip(lo, hi, home_at))]
        w = np.exp(sum(-(dk**2) / (2 * s**2) for dk, s in zip(d, sig)))
        w = w * np.exp(-((nb - home) ** 2) / (2 * sr**2))
        out[home_at], weights[home_at] = np.sum(w * nb) / np.sum(w), np.sum(w)
    return out[None, None], weights[None, None]


def _bf_backward(ns, fw, i):
    x = fw.tensor(i["x"])
    out, weights, d_dx, *_ = ns.forward_3d_cpu(x, *BF_SIGMA, BF_COLOR)
    return ns.backward_3d_cpu(fw.tensor(i["grad"]), x, out, weights, d_dx, *BF_SIGMA, BF_COLOR)


BILATERAL = Package(
    name="bilateralfilter-torch",
    version="1.1.0",
    filename="bilateralfilter_torch-1.1.0.tar.gz",
    sha256="0098740c00c6465325d620523211fb92cd33f64051e2ed483cc83a7da53acfe4",
    port_roots=("csrc", "utils"),
    why="trainable 3-D bilateral filter (medical image denoising)",
    builds=(
        Build(
            "cpu",
            ("csrc/bilateralfilter_cpu.cpp", "csrc/bf_layer_cpu_forward.cpp",
             "csrc/bf_layer_cpu_backward.cpp"),
            ("utils", "csrc"),
            cflags=("-fopenmp",),  # the package's build
        ),
        Build(
            "cuda",
            ("csrc/bilateralfilter_gpu.cu", "csrc/bf_layer_gpu_forward.cu",
             "csrc/bf_layer_gpu_backward.cu"),
            ("utils", "csrc"),
            compile_only=True,
        ),
    ),
    ops=(
        Op("forward_3d_cpu", "cpu", _volume, _bf_forward, _bf_forward_ref, rtol=1e-6, atol=1e-9),
        Op("backward_3d_cpu", "cpu", _volume, _bf_backward, rtol=1e-6, atol=1e-9),
        Op("forward, backward (CUDA, compile only)", "cuda"),
    ),
)  # fmt: skip
