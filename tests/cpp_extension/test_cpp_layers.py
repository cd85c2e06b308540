"""The layers of sdk/layers.h (sdk::linear, layer_norm, conv1d, conv2d, embedding, dropout,
constant_pad_nd, mse_loss, cosine_similarity) and composites of math.h, called from C++ with torch's arguments, against sdk.nn.functional (which
runs the same core kernels) and numpy."""

from __future__ import annotations

import numpy as np
import pytest

import sdk
import sdk.nn.functional as F
from cpp_extension import load_inline
from tests._support import kept_folder, toolchain_key

SOURCE = r"""
#include <sdk/extension.h>
using sdk::Tensor;

Tensor ln(const Tensor& x, const Tensor& w, const Tensor& b) {
  return sdk::layer_norm(x, {x.size(-1)}, w, b, 1e-5);
}
Tensor ln_plain(const Tensor& x) { return sdk::layer_norm(x, x.sizes().slice(1)); }
Tensor conv2d(const Tensor& x, const Tensor& w, const Tensor& b) {
  return sdk::conv2d(x, w, b, /*stride=*/{2, 1}, /*padding=*/1, /*dilation=*/1, /*groups=*/1);
}
Tensor conv1d(const Tensor& x, const Tensor& w) { return sdk::conv1d(x, w, {}, 1, 0, 2); }
Tensor embed(const Tensor& w, const Tensor& idx) { return sdk::embedding(w, idx); }
Tensor pad(const Tensor& x) { return sdk::constant_pad_nd(x, {1, -1, 2, 0}, 7.0); }
Tensor drop(const Tensor& x, double p, bool train) { return sdk::dropout(x, p, train); }
Tensor attn(const Tensor& q, const Tensor& k) { return sdk::einsum("bhqd,bhkd->bhqk", {q, k}); }
Tensor lse(const Tensor& x) { return x.logsumexp({1}); }
std::vector<Tensor> norms(const Tensor& x) {
  return {x.norm(), x.norm(1, {1}), x.norm(INFINITY, {0}, true), sdk::norm(x, 3.0, {1})};
}
Tensor lin(const Tensor& x, const Tensor& w, const std::optional<Tensor>& b) {
  return sdk::linear(x, w, b);
}
Tensor conv1d_str(const Tensor& x, const Tensor& w, const std::string& padding, int64_t dil) {
  return sdk::conv1d(x, w, {}, 1, padding, dil);
}
Tensor conv2d_same(const Tensor& x, const Tensor& w) { return sdk::conv2d(x, w, {}, 1, "same"); }
Tensor gelu_tanh(const Tensor& x, const std::string& approximate) {
  return sdk::gelu(x, approximate);
}
std::vector<Tensor> moments(const Tensor& x) {
  auto [v, m] = sdk::var_mean(x, {1}, false, true);
  auto [s, m2] = sdk::std_mean(x);
  return {v, m, s, m2};
}
std::vector<Tensor> losses(const Tensor& a, const Tensor& b) {
  return {sdk::mse_loss(a, b), sdk::mse_loss(a, b, sdk::Reduction::Sum),
          sdk::mse_loss(a, b, sdk::Reduction::None), sdk::cosine_similarity(a, b, 1)};
}
Tensor bn(const Tensor& x, const Tensor& w, const Tensor& b, const Tensor& rm, const Tensor& rv,
          bool training) {
  return sdk::batch_norm(x, w, b, rm, rv, training, 0.1, 1e-5, true);
}
Tensor avgpool(const Tensor& x) { return sdk::avg_pool2d(x, {2, 3}, {2, 1}, {1, 0}); }
Tensor maxpool(const Tensor& x, int64_t stride, int64_t padding, int64_t dilation) {
  return sdk::max_pool2d(x, {3, 2}, {stride}, {padding}, {dilation});
}
std::vector<Tensor> shapes_and_grids(const Tensor& x, const Tensor& a, const Tensor& b) {
  auto g = sdk::meshgrid({a, b}, "xy");
  auto bt = sdk::broadcast_tensors({a.unsqueeze(1), b});
  return {x.movedim(0, -1), x.mT(), x.unflatten(-1, {2, -1}), g[0], g[1], bt[0],
          sdk::hstack({a, b}), sdk::vstack({b, b}), sdk::count_nonzero(x.gt(0), 1)};
}
std::vector<bool> predicates(const Tensor& x) {
  return {x.equal(x.clone()), x.equal(x + 1), x.is_non_overlapping_and_dense(),
          x.transpose(0, 1).is_non_overlapping_and_dense(),
          x.slice(-1, 0, x.size(-1), 2).is_non_overlapping_and_dense()};
}
std::vector<Tensor> losses2(const Tensor& logits, const Tensor& target, const Tensor& w) {
  return {sdk::cross_entropy_loss(logits, target), sdk::nll_loss(logits.log_softmax(1), target,
                                                                  w, sdk::Reduction::Sum, 1),
          sdk::group_norm(logits.view({logits.size(0), 4, -1}), 2), sdk::fmax(logits, logits.t().t()),
          sdk::logit(logits.sigmoid()), sdk::addmv(logits.select(1, 0), logits, logits.select(0, 0))};
}
Tensor strided_like(const Tensor& x) {  // torch ports spell the layout out
  SDK_CHECK(x.layout() == sdk::kStrided, "not strided");
  return sdk::zeros(x.sizes(), x.options().layout(sdk::kStrided).requires_grad(false));
}
Tensor outer_bmm(const Tensor& u, const Tensor& v, const Tensor& c, const Tensor& a,
                 const Tensor& b) {
  return c.baddbmm(a, b, 0.5, 2.0) + u.outer(v).sum();
}
"""


@pytest.fixture(scope="module")
def ext(tmp_path_factory):
    mp = pytest.MonkeyPatch()
    mp.setenv(
        "SDK_EXTENSIONS_DIR", str(kept_folder(tmp_path_factory, "cpp_layers", *toolchain_key()))
    )
    m = load_inline(
        "cpp_layers",
        cpp_sources=SOURCE,
        functions=[
            "ln",
            "ln_plain",
            "conv2d",
            "conv1d",
            "embed",
            "pad",
            "drop",
            "attn",
            "lse",
            "norms",
            "outer_bmm",
            "lin",
            "conv1d_str",
            "conv2d_same",
            "gelu_tanh",
            "moments",
            "losses",
            "bn",
            "avgpool",
            "strided_like",
            "maxpool",
            "shapes_and_grids",
            "predicates",
            "losses2",
        ],  # fmt: skip
    )
    mp.undo()
    return m


def test_cpp_layers_match_python(ext):
    rng = np.random.default_rng(3)
    x = sdk.tensor(rng.standard_normal((4, 6)))
    w, b = sdk.tensor(rng.standard_normal(6)), sdk.tensor(rng.standard_normal(6))
    np.testing.assert_allclose(ext.ln(x, w, b).numpy(), F.layer_norm(x, (6,), w, b).numpy())
    x3 = sdk.tensor(rng.standard_normal((2, 3, 5)))
    np.testing.assert_allclose(ext.ln_plain(x3).numpy(), F.layer_norm(x3, (3, 5)).numpy())
    xi = sdk.tensor(rng.standard_normal((2, 3, 6, 5)))
    wi = sdk.tensor(rng.standard_normal((4, 3, 3, 3)))
    bi = sdk.tensor(rng.standard_normal(4))
    np.testing.assert_allclose(
        ext.conv2d(xi, wi, bi).numpy(), F.conv2d(xi, wi, bi, (2, 1), 1).numpy(), rtol=1e-12
    )
    x1 = sdk.tensor(rng.standard_normal((3, 9)))  # unbatched
    w1 = sdk.tensor(rng.standard_normal((2, 3, 2)))
    np.testing.assert_allclose(
        ext.conv1d(x1, w1).numpy(), F.conv1d(x1, w1, dilation=2).numpy(), rtol=1e-12
    )
    table = sdk.tensor(rng.standard_normal((7, 3)))
    idx = sdk.tensor([[0, 6], [2, 2]])
    np.testing.assert_array_equal(ext.embed(table, idx).numpy(), table.numpy()[idx.numpy()])
    p = rng.standard_normal((2, 3, 4))
    np.testing.assert_array_equal(
        ext.pad(sdk.tensor(p)).numpy(),
        np.pad(p[:, :, :3], ((0, 0), (2, 0), (1, 0)), constant_values=7.0),
    )


def test_cpp_dropout_and_errors(ext):
    x = sdk.ones(10000, dtype=sdk.float64)
    y = ext.drop(x, 0.25, True).numpy()
    kept = y != 0
    assert 0.7 < kept.mean() < 0.8
    np.testing.assert_allclose(y[kept], 1 / 0.75)
    assert ext.drop(x, 0.25, False) is x  # eval mode: the input itself
    with pytest.raises(ValueError, match="dropout probability"):
        ext.drop(x, 1.5, True)
    with pytest.raises(ValueError, match="normalized_shape|does not match"):
        ext.ln(sdk.ones(2, 3), sdk.ones(4), sdk.ones(4))
    with pytest.raises(ValueError, match="input channels"):
        ext.conv2d(sdk.ones(1, 2, 4, 4), sdk.ones(1, 3, 3, 3), sdk.ones(1))


def test_cpp_einsum_reductions_and_products(ext):
    rng = np.random.default_rng(5)
    q, k = rng.standard_normal((2, 3, 4, 5)), rng.standard_normal((2, 3, 6, 5))
    np.testing.assert_allclose(
        ext.attn(sdk.tensor(q), sdk.tensor(k)).numpy(),
        np.einsum("bhqd,bhkd->bhqk", q, k),
        rtol=1e-12,
    )
    x = rng.standard_normal((3, 4)) * 20
    ref = np.log(np.exp(x - x.max(1, keepdims=True)).sum(1)) + x.max(1)
    np.testing.assert_allclose(ext.lse(sdk.tensor(x)).numpy(), ref, rtol=1e-12)
    n2, n1, ninf, n3 = (t.numpy() for t in ext.norms(sdk.tensor(x)))
    np.testing.assert_allclose(n2, np.linalg.norm(x), rtol=1e-12)
    np.testing.assert_allclose(n1, np.abs(x).sum(1), rtol=1e-12)
    np.testing.assert_allclose(ninf, np.abs(x).max(0, keepdims=True), rtol=1e-12)
    np.testing.assert_allclose(n3, (np.abs(x) ** 3).sum(1) ** (1 / 3), rtol=1e-12)
    u, v = rng.standard_normal(3), rng.standard_normal(2)
    c, a, b = (rng.standard_normal(s) for s in ((2, 3, 4), (2, 3, 5), (2, 5, 4)))
    out = ext.outer_bmm(*(sdk.tensor(t) for t in (u, v, c, a, b)))
    np.testing.assert_allclose(
        out.numpy(), 0.5 * c + 2 * (a @ b) + np.outer(u, v).sum(), rtol=1e-12
    )


def test_cpp_linear_string_padding_gelu_moments_and_losses(ext):
    rng = np.random.default_rng(11)
    x, w, b = (rng.standard_normal(s) for s in ((2, 3, 5), (4, 5), (4,)))
    want = x @ w.T + b
    got = ext.lin(sdk.tensor(x), sdk.tensor(w), sdk.tensor(b)).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-12)
    got2 = ext.lin(sdk.tensor(x[0]), sdk.tensor(w), None).numpy()  # 2-d, no bias
    np.testing.assert_allclose(got2, x[0] @ w.T, rtol=1e-12)

    xs, ws = sdk.tensor(rng.standard_normal((2, 3, 9))), sdk.tensor(rng.standard_normal((4, 3, 4)))
    for dil in (1, 2):  # even total padding (2 * 3 = 6) and odd (3): torch pads the end more
        same = ext.conv1d_str(xs, ws, "same", dil).numpy()
        assert same.shape == (2, 4, 9)
        np.testing.assert_allclose(same, F.conv1d(xs, ws, padding="same", dilation=dil).numpy())
    valid = ext.conv1d_str(xs, ws, "valid", 1).numpy()
    np.testing.assert_allclose(valid, F.conv1d(xs, ws).numpy(), rtol=1e-12)
    with pytest.raises(ValueError, match="padding must be 'valid', 'same'"):
        ext.conv1d_str(xs, ws, "full", 1)
    x2, w2 = (
        sdk.tensor(rng.standard_normal((1, 2, 6, 7))),
        sdk.tensor(rng.standard_normal((3, 2, 2, 3))),
    )
    np.testing.assert_allclose(
        ext.conv2d_same(x2, w2).numpy(), F.conv2d(x2, w2, padding="same").numpy(), rtol=1e-12
    )

    g = sdk.tensor(rng.standard_normal(50))
    np.testing.assert_allclose(
        ext.gelu_tanh(g, "tanh").numpy(), F.gelu(g, approximate="tanh").numpy(), rtol=1e-12
    )
    np.testing.assert_allclose(ext.gelu_tanh(g, "none").numpy(), F.gelu(g).numpy(), rtol=1e-12)
    g16 = (g * 3).to(sdk.float16)  # float inside, one rounding, in C++ as in Python
    got16 = ext.gelu_tanh(g16, "tanh")
    assert got16.dtype == sdk.float16
    np.testing.assert_allclose(
        got16.float().numpy(),
        F.gelu(g16, approximate="tanh").float().numpy(),
        rtol=2**-10,
        atol=1e-7,
    )
    with pytest.raises(ValueError, match="approximate must be 'none' or 'tanh'"):
        ext.gelu_tanh(g, "fast")

    m = rng.standard_normal((3, 6))
    v, mean, s, mean_all = (t.numpy() for t in ext.moments(sdk.tensor(m)))
    np.testing.assert_allclose(v, m.var(1, keepdims=True), rtol=1e-12)
    np.testing.assert_allclose(mean, m.mean(1, keepdims=True), rtol=1e-12)
    np.testing.assert_allclose(s, m.std(ddof=1), rtol=1e-12)
    np.testing.assert_allclose(mean_all, m.mean(), rtol=1e-12)

    a, c = rng.standard_normal((4, 3)), rng.standard_normal((4, 3))
    mse, total, each, cos = (t.numpy() for t in ext.losses(sdk.tensor(a), sdk.tensor(c)))
    np.testing.assert_allclose(mse, ((a - c) ** 2).mean(), rtol=1e-12)
    np.testing.assert_allclose(total, ((a - c) ** 2).sum(), rtol=1e-12)
    np.testing.assert_allclose(each, (a - c) ** 2, rtol=1e-12)
    want_cos = (a * c).sum(1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(c, axis=1))
    np.testing.assert_allclose(cos, want_cos, rtol=1e-12)


def test_cpp_batch_norm_and_avg_pool_match_python(ext):
    rng = np.random.default_rng(12)
    x = sdk.tensor(rng.standard_normal((4, 3, 5, 2)))
    w, b = sdk.tensor(rng.standard_normal(3)), sdk.tensor(rng.standard_normal(3))
    rm_c, rv_c = sdk.zeros(3, dtype=sdk.float64), sdk.ones(3, dtype=sdk.float64)
    rm_p, rv_p = sdk.zeros(3, dtype=sdk.float64), sdk.ones(3, dtype=sdk.float64)
    for training in (True, False):
        got = ext.bn(x, w, b, rm_c, rv_c, training).numpy()
        want = F.batch_norm(x, rm_p, rv_p, w, b, training=training).numpy()
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(rm_c.numpy(), rm_p.numpy(), rtol=1e-12)  # updated alike
    np.testing.assert_allclose(rv_c.numpy(), rv_p.numpy(), rtol=1e-12)
    assert not np.allclose(rm_c.numpy(), 0)
    with pytest.raises(ValueError, match="more than 1 value per channel"):
        ext.bn(sdk.ones(1, 3, dtype=sdk.float64), w, b, rm_c, rv_c, True)
    z = ext.strided_like(x)
    assert z.dtype == x.dtype and z.shape == x.shape and not z.numpy().any()
    p = sdk.tensor(rng.standard_normal((2, 3, 6, 5)))
    np.testing.assert_allclose(
        ext.avgpool(p).numpy(),
        F.avg_pool2d(p, (2, 3), (2, 1), (1, 0)).numpy(),
        rtol=1e-12,
    )


def test_cpp_max_pool2d_matches_python(ext):
    rng = np.random.default_rng(13)
    x = sdk.tensor(rng.standard_normal((2, 3, 9, 8)))
    for stride, padding, dilation in ((1, 0, 1), (2, 1, 1), (1, 1, 2), (3, 0, 1)):
        want = F.max_pool2d(x, (3, 2), stride, padding, dilation).numpy()
        got = ext.maxpool(x, stride, padding, dilation).numpy()
        np.testing.assert_array_equal(got, want)
    with pytest.raises(ValueError, match="padding at most half"):
        ext.maxpool(x, 1, 2, 1)
    with pytest.raises(ValueError, match="float input"):
        ext.maxpool(sdk.ones(1, 2, 4, 4, dtype=sdk.int64), 1, 0, 1)


def test_cpp_views_grids_predicates_and_classification_losses(ext):
    rng = np.random.default_rng(14)
    x = rng.standard_normal((2, 3, 4))
    a, b = rng.standard_normal(3), rng.standard_normal(5)
    got = [t.numpy() for t in ext.shapes_and_grids(*(sdk.tensor(v) for v in (x, a, b)))]
    want = [np.moveaxis(x, 0, -1), np.swapaxes(x, -2, -1), x.reshape(2, 3, 2, 2),
            *np.meshgrid(a, b, indexing="xy"), np.broadcast_to(a[:, None], (3, 5)),
            np.hstack([a, b]), np.vstack([b, b]), np.count_nonzero(x > 0, axis=1)]  # fmt: skip
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(g, w)
    assert ext.predicates(sdk.tensor(x)) == [True, False, True, True, False]

    logits, target = rng.standard_normal((6, 8)), np.array([0, 7, 3, 1, 1, 5])
    w = rng.uniform(0.5, 2, 8)
    ce, nll_sum, gn, fmax, logit, addmv = (
        t.numpy() for t in ext.losses2(sdk.tensor(logits), sdk.tensor(target), sdk.tensor(w))
    )
    logp = logits - np.log(np.exp(logits).sum(1, keepdims=True))
    np.testing.assert_allclose(ce, -logp[np.arange(6), target].mean(), rtol=1e-12)
    keep = target != 1  # ignore_index=1
    want_nll = -(logp[np.arange(6), target] * w[target])[keep].sum()
    np.testing.assert_allclose(nll_sum, want_nll, rtol=1e-12)
    g = logits.reshape(6, 2, -1)
    want_gn = (g - g.mean(2, keepdims=True)) / np.sqrt(g.var(2, keepdims=True) + 1e-5)
    np.testing.assert_allclose(gn, want_gn.reshape(6, 4, 2), rtol=1e-10)
    np.testing.assert_array_equal(fmax, logits)
    np.testing.assert_allclose(logit, logits, rtol=1e-9)
    np.testing.assert_allclose(addmv, logits[:, 0] + logits @ logits[0], rtol=1e-12)
