"""The C++ API's composed functions (sdk/ops_data.h, linalg.h, sampling.h, layers.h) side by
side with torch's: one extension wraps them, and each case compares values with torch's on
the same inputs (skipped without torch)."""

from __future__ import annotations

import numpy as np
import pytest

import sdk
from tests._support import kept_folder, toolchain_key

torch = pytest.importorskip("torch")
F = torch.nn.functional

SOURCE = r"""
#include <sdk/extension.h>
#include <vector>
using sdk::Tensor;
using V = std::vector<int64_t>;

Tensor logspace(double s, double e, int64_t n, double base) {
  return sdk::logspace(s, e, n, base, sdk::TensorOptions().dtype(sdk::kDouble));
}
Tensor cross(const Tensor& a, const Tensor& b, int64_t dim) { return sdk::cross(a, b, dim); }
Tensor cdist(const Tensor& a, const Tensor& b, double p) { return sdk::cdist(a, b, p); }
Tensor pairwise_distance(const Tensor& a, const Tensor& b, double p, double eps, bool keepdim) {
  return sdk::pairwise_distance(a, b, p, eps, keepdim);
}
Tensor bce(const Tensor& x, const Tensor& y, std::optional<Tensor> w, int64_t reduction) {
  return sdk::binary_cross_entropy(x, y, w, reduction);
}
Tensor bincount(const Tensor& x, std::optional<Tensor> w, int64_t minlength) {
  return sdk::bincount(x, w, minlength);
}
Tensor histc(const Tensor& x, int64_t bins, double lo, double hi) {
  return sdk::histc(x, bins, lo, hi);
}
Tensor bucketize(const Tensor& x, const Tensor& b, bool out_int32, bool right) {
  return sdk::bucketize(x, b, out_int32, right);
}
Tensor searchsorted(const Tensor& s, const Tensor& x, bool out_int32, bool right) {
  return sdk::searchsorted(s, x, out_int32, right);
}
Tensor adaptive_avg_pool2d(const Tensor& x, V size) { return sdk::adaptive_avg_pool2d(x, size); }
Tensor pad(const Tensor& x, V p, std::string mode, std::optional<double> value) {
  return sdk::pad(x, p, mode, value);
}
Tensor conv3d(const Tensor& x, const Tensor& w, std::optional<Tensor> b, V stride, V padding,
              V dilation, int64_t groups) {
  return sdk::conv3d(x, w, b, stride, padding, dilation, groups);
}
Tensor conv_transpose2d(const Tensor& x, const Tensor& w, std::optional<Tensor> b, V stride,
                        V padding, V output_padding, int64_t groups, V dilation) {
  return sdk::conv_transpose2d(x, w, b, stride, padding, output_padding, groups, dilation);
}
Tensor upsample_bilinear2d(const Tensor& x, V size, bool align_corners) {
  return sdk::upsample_bilinear2d(x, size, align_corners);
}
Tensor grid_sampler(const Tensor& x, const Tensor& g, int64_t mode, int64_t padding, bool ac) {
  return sdk::grid_sampler(x, g, mode, padding, ac);
}
Tensor inverse(const Tensor& a) { return sdk::inverse(a); }
Tensor det(const Tensor& a) { return sdk::det(a); }
Tensor cholesky(const Tensor& a, bool upper) { return sdk::cholesky(a, upper); }
Tensor triangular_solve(const Tensor& b, const Tensor& a, bool upper, bool trans, bool unit) {
  return std::get<0>(sdk::triangular_solve(b, a, upper, trans, unit));
}
std::vector<Tensor> mode(const Tensor& x, int64_t dim, bool keepdim) {
  auto [v, i] = sdk::mode(x, dim, keepdim);
  return {v, i};
}
std::vector<Tensor> unique(const Tensor& x) {
  auto [u, inverse, counts] = sdk::unique(x, true, true, true);
  return {u, inverse, counts};
}
"""
NAMES = """logspace cross cdist pairwise_distance bce bincount histc bucketize searchsorted
adaptive_avg_pool2d pad conv3d conv_transpose2d upsample_bilinear2d grid_sampler inverse det
cholesky triangular_solve mode unique""".split()


@pytest.fixture(scope="module")
def ext(tmp_path_factory):
    from cpp_extension import load_inline

    # one build for all workers, kept for later runs
    folder = kept_folder(tmp_path_factory, "cpp_torch_parity", *toolchain_key())
    return load_inline("cpp_torch_parity", SOURCE, functions=NAMES, build_directory=folder)


def S(t):
    return sdk.tensor(t.detach().numpy())


def same(got, want, tol=1e-5):
    want = want.detach().numpy()
    got = np.asarray(got.numpy())
    assert got.shape == want.shape, (got.shape, want.shape)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


g = torch.Generator().manual_seed(0)


def randn(*shape, dtype=torch.float64):
    return torch.randn(*shape, generator=g, dtype=dtype)


def test_logspace(ext):
    for s, e, n, base in [(0, 3, 4, 10.0), (-2, 2, 9, 2.0), (1, 1, 1, 10.0), (0, 1, 0, 3.0)]:
        same(ext.logspace(s, e, n, base), torch.logspace(s, e, n, base, dtype=torch.float64))


def test_cross_and_distances(ext):
    a, b = randn(4, 3, 5), randn(4, 3, 5)
    same(ext.cross(S(a), S(b), 1), torch.cross(a, b, dim=1))
    x1, x2 = randn(2, 5, 4), randn(2, 7, 4)
    for p in (1.0, 2.0, 3.0, 0.0, float("inf")):
        same(ext.cdist(S(x1), S(x2), p), torch.cdist(x1, x2, p=p))
    u, v = randn(6, 5), randn(6, 5)
    for p, keep in [(2.0, False), (1.0, True), (3.0, False)]:
        want = F.pairwise_distance(u, v, p=p, eps=1e-6, keepdim=keep)
        same(ext.pairwise_distance(S(u), S(v), p, 1e-6, keep), want)


def test_binary_cross_entropy(ext):
    x = torch.rand(5, 4, generator=g, dtype=torch.float64).clamp(1e-3, 1 - 1e-3)
    y = torch.rand(5, 4, generator=g, dtype=torch.float64)
    w = torch.rand(5, 4, generator=g, dtype=torch.float64)
    for reduction, name in [(0, "none"), (1, "mean"), (2, "sum")]:
        same(ext.bce(S(x), S(y), None, reduction), F.binary_cross_entropy(x, y, reduction=name))
        want = F.binary_cross_entropy(x, y, weight=w, reduction=name)
        same(ext.bce(S(x), S(y), S(w), reduction), want)
    edge = torch.tensor([0.0, 1.0, 0.5], dtype=torch.float64)  # logs clamped at -100
    target = torch.tensor([1.0, 0.0, 1.0], dtype=torch.float64)
    same(
        ext.bce(S(edge), S(target), None, 0), F.binary_cross_entropy(edge, target, reduction="none")
    )


def test_counting_and_searching(ext):
    x = torch.randint(0, 9, (50,), generator=g)
    w = torch.rand(50, generator=g, dtype=torch.float64)
    same(ext.bincount(S(x), None, 0), torch.bincount(x))
    same(ext.bincount(S(x), None, 15), torch.bincount(x, minlength=15))
    same(ext.bincount(S(x), S(w), 0), torch.bincount(x, weights=w))
    v = randn(200, dtype=torch.float32)
    same(ext.histc(S(v), 10, 0.0, 0.0), torch.histc(v, bins=10))
    same(ext.histc(S(v), 7, -1.0, 1.0), torch.histc(v, bins=7, min=-1, max=1))
    bounds = torch.tensor([-1.0, 0.0, 0.0, 0.5, 2.0], dtype=torch.float64)
    vals = torch.tensor([[-3.0, 0.0, 0.25], [0.5, 2.0, 9.0]], dtype=torch.float64)
    for out_int32 in (False, True):
        for right in (False, True):
            want = torch.bucketize(vals, bounds, out_int32=out_int32, right=right)
            same(ext.bucketize(S(vals), S(bounds), out_int32, right), want)
            want = torch.searchsorted(bounds, vals, out_int32=out_int32, right=right)
            same(ext.searchsorted(S(bounds), S(vals), out_int32, right), want)
    rows = torch.sort(randn(3, 6), dim=1).values
    q = randn(3, 4)
    same(ext.searchsorted(S(rows), S(q), False, False), torch.searchsorted(rows, q))


def test_pooling_and_padding(ext):
    x = randn(2, 3, 7, 10)
    for size in ([3, 4], [7, 10], [1, 1], [5, 3], [10, 12]):
        same(ext.adaptive_avg_pool2d(S(x), size), F.adaptive_avg_pool2d(x, size))
    y, z = randn(2, 3, 5, 6), randn(2, 3, 5)
    for mode in ("constant", "reflect", "replicate", "circular"):
        value = 1.5 if mode == "constant" else None
        # torch pads the last dim of 3-d inputs and the last two of 4-d ones in these modes
        for t, p in ((y, [2, 1, 0, 3]), (y, [0, 0, 1, 1]), (z, [1, 2]), (z, [3, 0])):
            want = F.pad(t, p, mode=mode, value=value)
            same(ext.pad(S(t), p, mode, value), want)


def test_convolutions(ext):
    x, w, b = randn(2, 4, 5, 6, 7), randn(6, 2, 3, 2, 3), randn(6)
    for stride, padding, dilation in [([1, 1, 1], [0, 0, 0], [1, 1, 1]),
                                      ([2, 1, 2], [1, 0, 2], [1, 2, 1])]:  # fmt: skip
        want = F.conv3d(x, w, b, stride, padding, dilation, groups=2)
        same(ext.conv3d(S(x), S(w), S(b), stride, padding, dilation, 2), want, tol=1e-9)
    x, w, b = randn(2, 4, 5, 6), randn(4, 3, 3, 2), randn(6)
    for stride, padding, out_pad, dilation, groups in [
        ([1, 1], [0, 0], [0, 0], [1, 1], 1),
        ([2, 3], [1, 0], [1, 2], [1, 1], 2),
        ([2, 2], [0, 1], [0, 1], [2, 1], 1),
    ]:
        wt = w if groups == 2 else randn(4, 6, 3, 2)
        want = F.conv_transpose2d(x, wt, b, stride, padding, out_pad, groups, dilation)
        got = ext.conv_transpose2d(S(x), S(wt), S(b), stride, padding, out_pad, groups, dilation)
        same(got, want, tol=1e-9)


def test_resampling(ext):
    x = randn(2, 3, 4, 5)
    for size in ([8, 10], [3, 7], [4, 5], [1, 1]):
        for ac in (False, True):
            want = F.interpolate(x, size=size, mode="bilinear", align_corners=ac)
            same(ext.upsample_bilinear2d(S(x), size, ac), want, tol=1e-9)
    grid = torch.rand(2, 6, 7, 2, generator=g, dtype=torch.float64) * 2.6 - 1.3
    for mode, mode_name in [(0, "bilinear"), (1, "nearest")]:
        for padding, pad_name in [(0, "zeros"), (1, "border"), (2, "reflection")]:
            for ac in (False, True):
                want = F.grid_sample(x, grid, mode_name, pad_name, align_corners=ac)
                got = ext.grid_sampler(S(x), S(grid), mode, padding, ac)
                same(got, want, tol=1e-9)


def test_linear_algebra(ext):
    a = randn(3, 4, 4) + 4 * torch.eye(4, dtype=torch.float64)
    same(ext.inverse(S(a)), torch.inverse(a), tol=1e-9)
    same(ext.det(S(a)), torch.det(a), tol=1e-9)
    spd = a @ a.transpose(-1, -2)
    for upper in (False, True):
        same(ext.cholesky(S(spd), upper), torch.linalg.cholesky(spd, upper=upper), tol=1e-9)
    b = randn(3, 4, 2)
    tri = torch.triu(a)
    for upper in (False, True):
        for trans in (False, True):
            for unit in (False, True):
                m = tri if upper else tri.transpose(-1, -2)
                want = torch.linalg.solve_triangular(
                    (m.transpose(-1, -2) if trans else m), b, upper=upper != trans,
                    unitriangular=unit,
                )  # fmt: skip
                same(ext.triangular_solve(S(b), S(m), upper, trans, unit), want, tol=1e-9)


def test_mode_and_unique(ext):
    x = torch.randint(0, 4, (5, 9), generator=g)
    v, i = ext.mode(S(x), 1, False)
    want = torch.mode(x, 1)
    same(v, want.values)
    # the index is one place the mode occurs (torch's choice among ties is unspecified)
    picked = np.take_along_axis(x.numpy(), i.numpy()[:, None], 1)[:, 0]
    np.testing.assert_array_equal(picked, want.values.numpy())
    u, inverse, counts = ext.unique(S(x))
    wu, winv, wc = torch.unique(x, sorted=True, return_inverse=True, return_counts=True)
    same(u, wu)
    same(inverse, winv)
    same(counts, wc)
