"""embedding_bag / EmbeddingBag against torch: sum, mean and max over 2-D input or offsets,
per_sample_weights, include_last_offset, padding_idx, empty bags; values and weight
gradients; bad input raises."""

from __future__ import annotations

import numpy as np
import pytest

import sdk
import sdk.nn.functional as F
from sdk import nn

from ._parity import check, pair

torch = pytest.importorskip("torch")
TF = torch.nn.functional

IDX = [1, 4, 4, 0, 7, 2, 9, 3, 3, 5]
OFFSETS = [0, 3, 3, 6]  # bag 1 is empty


def _idx(values, dtype="int64"):
    return sdk.tensor(values, dtype=getattr(sdk, dtype)), torch.tensor(values,
                                                                       dtype=getattr(torch, dtype))  # fmt: skip


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
@pytest.mark.parametrize("padding_idx", [None, 4, -7])
def test_offsets_match_torch(mode, padding_idx):
    (sw, tw), (si, ti), (so, to) = pair(torch, (10, 3)), _idx(IDX), _idx(OFFSETS)
    kw = {"mode": mode, "padding_idx": padding_idx}
    check(torch, F.embedding_bag(si, sw, so, **kw), TF.embedding_bag(ti, tw, to, **kw),
          [sw], [tw])  # fmt: skip


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_two_dim_input_and_int32_match_torch(mode):
    (sw, tw), (si, ti) = pair(torch, (10, 4)), _idx([[1, 2, 2], [9, 0, 5]], "int32")
    check(torch, F.embedding_bag(si, sw, mode=mode), TF.embedding_bag(ti, tw, mode=mode),
          [sw], [tw])  # fmt: skip


def test_per_sample_weights_and_include_last_offset_match_torch():
    (sw, tw), (si, ti) = pair(torch, (10, 3)), _idx(IDX)
    (so, to), (sp, tp) = _idx(OFFSETS + [10]), pair(torch, (10,))
    check(torch, F.embedding_bag(si, sw, so, mode="sum", per_sample_weights=sp,
                                 include_last_offset=True),
          TF.embedding_bag(ti, tw, to, mode="sum", per_sample_weights=tp,
                           include_last_offset=True), [sw, sp], [tw, tp])  # fmt: skip


def test_module_matches_torch():
    s_mod = nn.EmbeddingBag(10, 3, mode="max", padding_idx=2, dtype=sdk.float64)
    t_mod = torch.nn.EmbeddingBag(10, 3, mode="max", padding_idx=2).double()
    assert (s_mod.weight[2].detach().numpy() == 0).all()
    with torch.no_grad():
        t_mod.weight.copy_(torch.tensor(s_mod.weight.detach().numpy()))
    (si, ti), (so, to) = _idx(IDX), _idx(OFFSETS)
    check(torch, s_mod(si, so), t_mod(ti, to), [s_mod.weight], [t_mod.weight])


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_two_dim_input_ignores_include_last_offset_and_empty_input_match_torch(mode):
    (sw, tw), (si, ti) = pair(torch, (10, 3)), _idx([[1, 2], [3, 4], [5, 6]])
    kw = {"mode": mode, "include_last_offset": True}
    check(torch, F.embedding_bag(si, sw, **kw), TF.embedding_bag(ti, tw, **kw), [sw], [tw])
    (si, ti), (so, to) = _idx([]), _idx([0, 0])
    s_out, t_out = F.embedding_bag(si, sw, so, mode=mode), TF.embedding_bag(ti, tw, to, mode=mode)
    assert s_out.shape == tuple(t_out.shape) and not s_out.detach().numpy().any()


def test_from_pretrained_freezes_by_default_and_matches_torch():
    (sw, tw), (si, ti), (so, to) = pair(torch, (10, 3)), _idx(IDX), _idx(OFFSETS)
    s_mod = nn.EmbeddingBag.from_pretrained(sw.detach(), mode="sum")
    t_mod = torch.nn.EmbeddingBag.from_pretrained(tw.detach(), mode="sum")
    assert not s_mod.weight.requires_grad
    np.testing.assert_allclose(s_mod(si, so).numpy(), t_mod(ti, to).numpy(), rtol=1e-12)
    trainable = nn.EmbeddingBag.from_pretrained(sw.detach(), freeze=False)
    assert trainable.weight.requires_grad
    with pytest.raises(ValueError, match="2-D tensor"):
        nn.EmbeddingBag.from_pretrained(sdk.ones(3))


@pytest.mark.parametrize(("max_norm", "norm_type"), [(1.0, 2.0), (0.5, 1.0)])
def test_max_norm_renormalizes_used_rows_like_torch(max_norm, norm_type):
    (sw, tw), (si, ti), (so, to) = pair(torch, (10, 3)), _idx(IDX[:6]), _idx([0, 2])
    s_mod = nn.EmbeddingBag.from_pretrained(sw.detach(), False, max_norm, norm_type, mode="sum")
    t_mod = torch.nn.EmbeddingBag.from_pretrained(tw.detach(), False, max_norm, norm_type,
                                                  mode="sum")  # fmt: skip
    check(torch, s_mod(si, so), t_mod(ti, to), [s_mod.weight], [t_mod.weight])
    w = s_mod.weight.detach().numpy()
    np.testing.assert_allclose(w, t_mod.weight.detach().numpy(), rtol=1e-12)
    assert (np.linalg.norm(w[IDX[:6]], norm_type, axis=1) <= max_norm + 1e-6).all()
    np.testing.assert_array_equal(w[8], sw.detach().numpy()[8])  # unused rows stay


@pytest.mark.parametrize(("mode", "weighted"), [("sum", False), ("mean", False),
                                                ("max", False), ("sum", True)])  # fmt: skip
def test_bags_of_very_unequal_sizes_match_torch(mode, weighted):
    """One long bag among short and empty ones: the paths for tables that would be mostly
    padding (grouped tables for max, one index_add for sums)."""
    rng = np.random.default_rng(11)
    values = rng.integers(0, 20, 60).tolist()
    offsets = [0, 1, 1, 3, 40, 41, 44, 44, 52]  # bag sizes 1, 0, 2, 37, 1, 3, 0, 8, 8
    (sw, tw), (si, ti), (so, to) = pair(torch, (20, 5)), _idx(values), _idx(offsets)
    kw = {"mode": mode}
    s_in, t_in = [sw], [tw]
    if weighted:
        sp, tp = pair(torch, (60,))
        kw_s, kw_t = dict(kw, per_sample_weights=sp), dict(kw, per_sample_weights=tp)
        s_in, t_in = [sw, sp], [tw, tp]
    else:
        kw_s = kw_t = kw
    check(torch, F.embedding_bag(si, sw, so, **kw_s), TF.embedding_bag(ti, tw, to, **kw_t),
          s_in, t_in)  # fmt: skip


def test_max_ties_send_the_gradient_to_the_first_row_like_torch():
    a = np.array([[1.0, 2.0], [1.0, 0.0], [0.0, 2.0], [1.0, 2.0]])
    sw, tw = sdk.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    (si, ti), (so, to) = _idx([0, 1, 2, 3, 1, 0]), _idx([0, 4])
    check(torch, F.embedding_bag(si, sw, so, mode="max"),
          TF.embedding_bag(ti, tw, to, mode="max"), [sw], [tw])  # fmt: skip
