"""instance_norm / InstanceNorm1d-3d, BatchNorm3d and local_response_norm against torch:
values, gradients, running statistics in train and eval; bad input raises."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import sdk
import sdk.nn.functional as F
from sdk import nn

from ._parity import check, pair

torch = pytest.importorskip("torch")
TF = torch.nn.functional


@pytest.mark.parametrize("shape", [(2, 3, 5), (2, 3, 4, 5), (2, 2, 3, 4, 3)])
def test_instance_norm_matches_torch(shape):
    (sx, tx), (sw, tw), (sb, tb) = (
        pair(torch, shape, 2, 1),
        pair(torch, shape[1]),
        pair(torch, shape[1]),
    )
    check(torch, F.instance_norm(sx, weight=sw, bias=sb, eps=1e-3),
          TF.instance_norm(tx, weight=tw, bias=tb, eps=1e-3), [sx, sw, sb], [tx, tw, tb])  # fmt: skip


@pytest.mark.parametrize("n", [1, 2, 3])
def test_instance_norm_modules_track_running_stats_like_torch(n):
    shape = (3, 4) + (5,) * n
    s_mod = getattr(nn, f"InstanceNorm{n}d")(4, momentum=0.3, affine=True,
                                             track_running_stats=True, dtype=sdk.float64)  # fmt: skip
    t_mod = getattr(torch.nn, f"InstanceNorm{n}d")(4, momentum=0.3, affine=True,
                                                   track_running_stats=True).double()  # fmt: skip
    for step in range(2):  # two training steps update the running statistics
        sx, tx = pair(torch, shape, 3, step)
        check(torch, s_mod(sx), t_mod(tx), [sx], [tx])
    for name in ("running_mean", "running_var"):
        np.testing.assert_allclose(getattr(s_mod, name).numpy(),
                                   getattr(t_mod, name).detach().numpy(), rtol=1e-9)  # fmt: skip
    s_mod.eval()
    t_mod.eval()
    sx, tx = pair(torch, shape, 3)
    check(torch, s_mod(sx), t_mod(tx), [sx], [tx])
    assert s_mod.state_dict().keys() == t_mod.state_dict().keys()


def test_instance_norm_default_ignores_running_stats_and_takes_unbatched_input():
    s_mod, t_mod = nn.InstanceNorm2d(3), torch.nn.InstanceNorm2d(3)
    assert s_mod.weight is None and s_mod.running_mean is None
    sx, tx = pair(torch, (3, 4, 5))
    check(torch, s_mod.eval()(sx), t_mod.eval()(tx), [sx], [tx])


def test_batch_norm3d_matches_torch_in_train_and_eval():
    s_mod, t_mod = (
        nn.BatchNorm3d(3, momentum=None, dtype=sdk.float64),
        torch.nn.BatchNorm3d(3, momentum=None).double(),
    )
    for step in range(2):
        sx, tx = pair(torch, (2, 3, 3, 4, 2), 2, step)
        check(torch, s_mod(sx), t_mod(tx), [sx], [tx])
    np.testing.assert_allclose(s_mod.running_var.numpy(), t_mod.running_var.detach().numpy())
    assert int(s_mod.num_batches_tracked.item()) == 2
    sx, tx = pair(torch, (2, 3, 3, 4, 2))
    check(torch, s_mod.eval()(sx), t_mod.eval()(tx), [sx], [tx])
    with pytest.raises(ValueError, match="expected 5D input"):
        s_mod(sdk.ones(2, 3, 4, 4))


@pytest.mark.parametrize(("cls", "shape"), [("BatchNorm1d", (4, 3)), ("BatchNorm1d", (4, 3, 5)),
                                            ("BatchNorm2d", (2, 3, 4, 5))])  # fmt: skip
def test_batch_norm_1d_2d_accept_what_torch_accepts(cls, shape):
    s_mod = getattr(nn, cls)(3, affine=False, track_running_stats=False, dtype=sdk.float64)
    t_mod = getattr(torch.nn, cls)(3, affine=False, track_running_stats=False).double()
    sx, tx = pair(torch, shape)
    check(torch, s_mod.eval()(sx), t_mod.eval()(tx), [sx], [tx])


@pytest.mark.parametrize("size", [1, 2, 3, 5])
@pytest.mark.parametrize("shape", [(2, 6, 4), (2, 4, 3, 3), (1, 3, 2, 2, 2)])
def test_local_response_norm_matches_torch(size, shape):
    sx, tx = pair(torch, shape, 2)
    check(torch, nn.LocalResponseNorm(size, 0.3, 0.6, 2.0)(sx),
          torch.nn.LocalResponseNorm(size, 0.3, 0.6, 2.0)(tx), [sx], [tx])  # fmt: skip


def test_batch_norm_bias_false_keeps_the_scale_only():
    s_mod = nn.BatchNorm2d(3, bias=False, dtype=sdk.float64)
    t_mod = torch.nn.BatchNorm2d(3, bias=False).double()
    assert s_mod.bias is None and s_mod.weight is not None
    sx, tx = pair(torch, (2, 3, 4, 4), 2, 1)
    check(torch, s_mod(sx), t_mod(tx), [sx, s_mod.weight], [tx, t_mod.weight])


def test_a_3d_segmentation_block_matches_torch_end_to_end():
    """Conv3d -> InstanceNorm3d(affine) -> LeakyReLU -> MaxPool3d, the block 3-D U-Nets stack."""

    def block(m, **kw):
        return m.Sequential(m.Conv3d(2, 4, 3, padding=1, **kw),
                            m.InstanceNorm3d(4, affine=True, **kw), m.LeakyReLU(0.01),
                            m.MaxPool3d(2))  # fmt: skip

    s_mod, t_mod = block(nn, dtype=sdk.float64), block(torch.nn, dtype=torch.float64)
    with torch.no_grad():
        for sp, tp in zip(s_mod.parameters(), t_mod.parameters(), strict=True):
            tp.copy_(torch.tensor(sp.detach().numpy()))
    sx, tx = pair(torch, (2, 2, 6, 6, 4))
    check(torch, s_mod(sx), t_mod(tx), [sx, *s_mod.parameters()], [tx, *t_mod.parameters()])


@pytest.mark.parametrize("name", ["instance_norm", "local_response_norm", "dropout3d",
                                  "alpha_dropout", "feature_alpha_dropout",
                                  "adaptive_avg_pool3d", "embedding_bag"])  # fmt: skip
def test_functional_signatures_match_torch(name):
    def params(fn):
        return [(p.name, p.default) for p in inspect.signature(fn).parameters.values()]

    assert params(getattr(F, name)) == params(getattr(TF, name))


@pytest.mark.parametrize("shape", [(6, 3), (2, 3, 4), (2, 3, 3, 4, 2)])
def test_sync_batch_norm_matches_torch_in_one_process(shape):
    s_mod = nn.SyncBatchNorm(3, momentum=0.2, dtype=sdk.float64)
    t_mod = torch.nn.SyncBatchNorm(3, momentum=0.2).double()
    sx, tx = pair(torch, shape, 2, 1)
    check(torch, s_mod(sx), t_mod(tx), [sx, s_mod.weight], [tx, t_mod.weight])
    np.testing.assert_allclose(s_mod.running_var.numpy(), t_mod.running_var.detach().numpy())
    sx, tx = pair(torch, shape)
    check(torch, s_mod.eval()(sx), t_mod.eval()(tx), [sx], [tx])


def test_convert_sync_batchnorm_shares_state_and_keeps_other_layers():
    bn = nn.BatchNorm2d(4, dtype=sdk.float64)
    model = nn.Sequential(nn.Conv2d(3, 4, 1), bn, nn.Sequential(nn.BatchNorm1d(4)),
                          nn.InstanceNorm2d(4))  # fmt: skip
    model.eval()
    out = nn.SyncBatchNorm.convert_sync_batchnorm(model)
    assert out is model and type(model[1]) is nn.SyncBatchNorm
    assert type(model[2][0]) is nn.SyncBatchNorm and type(model[3]) is nn.InstanceNorm2d
    assert model[1].weight is bn.weight and model[1].running_mean is bn.running_mean
    assert not model[1].training
    assert type(nn.SyncBatchNorm.convert_sync_batchnorm(nn.BatchNorm3d(2))) is nn.SyncBatchNorm
