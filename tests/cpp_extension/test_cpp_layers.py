"""The layers of sdk/layers.h (sdk::layer_norm, conv1d, conv2d, embedding, dropout,
constant_pad_nd), called from C++ with torch's arguments, against sdk.nn.functional (which
runs the same core kernels) and numpy."""

from __future__ import annotations

import numpy as np
import pytest

import sdk
import sdk.nn.functional as F
from cpp_extension import load_inline

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
Tensor outer_bmm(const Tensor& u, const Tensor& v, const Tensor& c, const Tensor& a,
                 const Tensor& b) {
  return c.baddbmm(a, b, 0.5, 2.0) + u.outer(v).sum();
}
"""


@pytest.fixture(scope="module")
def ext(tmp_path_factory):
    mp = pytest.MonkeyPatch()
    mp.setenv("SDK_EXTENSIONS_DIR", str(tmp_path_factory.mktemp("cache")))
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
