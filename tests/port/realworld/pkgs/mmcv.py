"""mmcv's CPU ops (detection and segmentation): each op's dispatcher file and its CPU kernel,
bound by a small glue file (mmcv's own binding file declares every op of the package)."""

from __future__ import annotations

import numpy as np

from .._spec import Build, Op, Package

F32 = np.float32
ROOT = "mmcv/ops/csrc"


def _glue(name: str, decls: str, defs: tuple[str, ...]) -> tuple[str, str]:
    body = "\n".join(f'  m.def("{d}", &{d});' for d in defs)
    text = (
        "// Binds the ops of this build (written for the real-world port check).\n"
        "#include <torch/extension.h>\n#include <vector>\nusing at::Tensor;\n\n"
        f"{decls.strip()}\n\nPYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {{\n{body}\n}}\n"
    )
    return (f"{name}_glue.cpp", text)


def _build(name: str, kernel: str, decls: str, *defs: str) -> Build:
    return Build(
        name,
        (f"{ROOT}/pytorch/{name}.cpp", f"{ROOT}/pytorch/cpu/{kernel}.cpp"),
        (f"{ROOT}/common",),
        glue=_glue(name, decls, defs),
    )


BUILDS = (
    _build(
        "nms",
        "nms",
        """Tensor nms(Tensor boxes, Tensor scores, float iou_threshold, int offset);
Tensor softnms(Tensor boxes, Tensor scores, Tensor dets, float iou_threshold, float sigma,
               float min_score, int method, int offset);
std::vector<std::vector<int> > nms_match(Tensor dets, float iou_threshold);""",
        "nms",
        "softnms",
        "nms_match",
    ),
    _build(
        "roi_align",
        "roi_align",
        """void roi_align_forward(Tensor input, Tensor rois, Tensor output, Tensor argmax_y,
                       Tensor argmax_x, int aligned_height, int aligned_width,
                       float spatial_scale, int sampling_ratio, int pool_mode, bool aligned);""",
        "roi_align_forward",
    ),
    _build(
        "box_iou_rotated",
        "box_iou_rotated",
        """void box_iou_rotated(const Tensor boxes1, const Tensor boxes2, Tensor ious,
                     const int mode_flag, const bool aligned);""",
        "box_iou_rotated",
    ),
    _build(
        "nms_rotated",
        "nms_rotated",
        """Tensor nms_rotated(const Tensor dets, const Tensor scores, const Tensor order,
                   const Tensor dets_sorted, const Tensor labels, const float iou_threshold,
                   const int multi_label);""",
        "nms_rotated",
    ),
    _build(
        "bbox_overlaps",
        "bbox_overlaps_cpu",
        """void bbox_overlaps(const Tensor bboxes1, const Tensor bboxes2, Tensor ious,
                   const int mode, const bool aligned, const int offset);""",
        "bbox_overlaps",
    ),
    _build(
        "psamask",
        "psamask",
        """void psamask_forward(const Tensor input, Tensor output, const int psa_type,
                     const int num_, const int h_feature, const int w_feature,
                     const int h_mask, const int w_mask, const int half_h_mask,
                     const int half_w_mask);""",
        "psamask_forward",
    ),
    _build(
        "deform_conv",
        "deform_conv",
        """void deform_conv_forward(Tensor input, Tensor weight, Tensor offset, Tensor output,
                         Tensor columns, Tensor ones, int kW, int kH, int dW, int dH,
                         int padW, int padH, int dilationW, int dilationH, int group,
                         int deformable_group, int im2col_step);""",
        "deform_conv_forward",
    ),
)


def _boxes(rng):
    xy = rng.uniform(0, 8, (8, 2))
    wh = rng.uniform(1, 5, (8, 2))
    scores = rng.uniform(0, 1, 8).astype(F32)
    return {
        "boxes": np.concatenate([xy, xy + wh], 1).astype(F32),
        "scores": scores,
        "rboxes": np.concatenate([xy + wh / 2, wh, rng.uniform(-1, 1, (8, 1))], 1).astype(F32),
        "image": rng.standard_normal((1, 2, 6, 6)).astype(F32),
        "rois": np.array([[0, 0.5, 0.5, 4, 4.5], [0, 1, 2, 5.5, 5]], dtype=F32),
        "mask_in": rng.standard_normal((1, 9, 4, 4)).astype(F32),
        "weight": rng.standard_normal((3, 2, 3, 3)).astype(F32),
        "offset": rng.uniform(-0.5, 0.5, (1, 18, 3, 3)).astype(F32),
    }


def _softnms(ns, fw, i):
    dets = fw.empty((8, 5), F32)
    inds = ns.softnms(fw.tensor(i["boxes"]), fw.tensor(i["scores"]), dets, 0.3, 0.5, 0.001, 1, 0)
    return inds, dets


def _nms_match(ns, fw, i):
    dets = np.concatenate([i["boxes"], i["scores"][:, None]], 1)
    return ns.nms_match(fw.tensor(dets[np.argsort(-i["scores"])]), 0.3)


def _roi_align(ns, fw, i):
    out = fw.empty((2, 2, 3, 3), F32)
    ay, ax = fw.empty((2, 2, 3, 3), F32), fw.empty((2, 2, 3, 3), F32)
    ns.roi_align_forward(
        fw.tensor(i["image"]), fw.tensor(i["rois"]), out, ay, ax, 3, 3, 1.0, 2, 1, True
    )
    return out


def _iou_rotated(ns, fw, i):
    ious = fw.empty((12,), F32)  # flat: the kernel writes ious[i * cols + j]
    ns.box_iou_rotated(fw.tensor(i["rboxes"][:4]), fw.tensor(i["rboxes"][4:7]), ious, 0, False)
    return ious


def _nms_rotated(ns, fw, i):
    order = np.argsort(-i["scores"], kind="stable").astype(np.int64)
    return ns.nms_rotated(
        fw.tensor(i["rboxes"]),
        fw.tensor(i["scores"]),
        fw.tensor(order),
        fw.tensor(i["rboxes"][order]),
        fw.tensor(np.zeros(8, np.int64)),
        0.3,
        0,
    )


def _bbox_overlaps(ns, fw, i):
    ious = fw.empty((4, 3), F32)
    ns.bbox_overlaps(fw.tensor(i["boxes"][:4]), fw.tensor(i["boxes"][4:7]), ious, 0, False, 0)
    return ious


def _iou_ref(i):
    a, b = i["boxes"][:4, None, :], i["boxes"][None, 4:7, :]
    w = np.clip(np.minimum(a[..., 2], b[..., 2]) - np.maximum(a[..., 0], b[..., 0]), 0, None)
    h = np.clip(np.minimum(a[..., 3], b[..., 3]) - np.maximum(a[..., 1], b[..., 1]), 0, None)
    area = lambda x: (x[..., 2] - x[..., 0]) * (x[..., 3] - x[..., 1])  # noqa: E731
    inter = w * h
    return inter / (area(a) + area(b) - inter)


def _psamask(ns, fw, i):
    out = fw.empty((1, 16, 4, 4), F32)
    ns.psamask_forward(fw.tensor(i["mask_in"]), out, 0, 1, 4, 4, 3, 3, 1, 1)
    return out


def _deform_conv(ns, fw, i):
    out = fw.empty((1, 3, 3, 3), F32)  # 6x6 input, 3x3 kernel, stride 2, padding 1
    cols, ones = fw.empty((0,), F32), fw.empty((0,), F32)
    ns.deform_conv_forward(
        fw.tensor(i["image"]),
        fw.tensor(i["weight"]),
        fw.tensor(i["offset"]),
        out,
        cols,
        ones,
        3,
        3,
        2,
        2,
        1,
        1,
        1,
        1,
        1,
        1,
        1,
    )
    return out


MMCV = Package(
    name="mmcv",
    version="2.2.0",
    filename="mmcv-2.2.0.tar.gz",
    sha256="ac479247e808d8802f89eadf04d4118de86bdfe81361ec5aed0cc1bf731c67c9",
    port_roots=(f"{ROOT}/common", f"{ROOT}/pytorch"),
    why="OpenMMLab's detection/segmentation ops",
    builds=BUILDS,
    ops=(
        Op(
            "nms",
            "nms",
            _boxes,
            lambda ns, fw, i: ns.nms(fw.tensor(i["boxes"]), fw.tensor(i["scores"]), 0.3, 0),
        ),
        Op("softnms", "nms", _boxes, _softnms),
        Op("nms_match", "nms", _boxes, _nms_match),
        Op("roi_align_forward", "roi_align", _boxes, _roi_align),
        Op("box_iou_rotated", "box_iou_rotated", _boxes, _iou_rotated),
        Op("nms_rotated", "nms_rotated", _boxes, _nms_rotated),
        Op("bbox_overlaps", "bbox_overlaps", _boxes, _bbox_overlaps, _iou_ref),
        Op("psamask_forward", "psamask", _boxes, _psamask),
        Op("deform_conv_forward", "deform_conv", _boxes, _deform_conv),
    ),
)
