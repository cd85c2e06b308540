"""Bad input to the nn additions (instance/local response/sync batch norm, 3-D pooling,
embedding_bag) raises a clear exception naming the argument; needs no torch."""

from __future__ import annotations

import numpy as np
import pytest

import sdk
import sdk.nn.functional as F
from sdk import nn

IDX = [1, 4, 4, 0, 7, 2, 9, 3, 3, 5]
OFFSETS = [0, 3, 3, 6]


def test_embedding_bag_bad_input():
    w, i = sdk.ones(5, 2), sdk.tensor([0, 1, 2])
    with pytest.raises(ValueError, match="offsets has to be a 1D"):
        F.embedding_bag(i, w)
    with pytest.raises(ValueError, match="offsets has to be None"):
        F.embedding_bag(i.reshape(1, 3), w, sdk.tensor([0]))
    with pytest.raises(ValueError, match="offsets\\[0\\] has to be 0"):
        F.embedding_bag(i, w, sdk.tensor([1]))
    with pytest.raises(ValueError, match="non-decreasing"):
        F.embedding_bag(i, w, sdk.tensor([0, 2, 1]))
    with pytest.raises(IndexError, match="index 5 is out of range"):
        F.embedding_bag(sdk.tensor([5]), w, sdk.tensor([0]))
    with pytest.raises(NotImplementedError, match="only supported for mode='sum'"):
        F.embedding_bag(i, w, sdk.tensor([0]), mode="mean", per_sample_weights=sdk.ones(3))
    with pytest.raises(ValueError, match="per_sample_weights .* must have the shape"):
        F.embedding_bag(i, w, sdk.tensor([0]), mode="sum", per_sample_weights=sdk.ones(2))
    with pytest.raises(NotImplementedError, match="scale_grad_by_freq"):
        F.embedding_bag(i, w, sdk.tensor([0]), scale_grad_by_freq=True)
    with pytest.raises(ValueError, match="mode has to be one of"):
        nn.EmbeddingBag(5, 2, mode="min")
    with pytest.raises(TypeError, match="int64 or int32"):
        F.embedding_bag(sdk.ones(3), w, sdk.tensor([0]))


def test_entries_past_the_last_offset_are_refused():
    with pytest.raises(ValueError, match="the last offset must equal the input's length"):
        F.embedding_bag(sdk.tensor(IDX), sdk.ones(10, 2), sdk.tensor(OFFSETS),
                        include_last_offset=True)  # fmt: skip


def test_pool3d_bad_input():
    x = sdk.ones(1, 2, 4, 4)
    with pytest.raises(ValueError, match="max_pool3d: expected a 4-d or 5-d input"):
        F.max_pool3d(sdk.ones(2, 4, 4), 2)
    with pytest.raises(TypeError, match="kernel_size must be an int or a tuple of 3 ints"):
        F.avg_pool3d(x, (2, 2))
    with pytest.raises(ValueError, match="pad should be at most half of kernel size"):
        F.max_pool3d(x, 2, padding=2)
    with pytest.raises(ValueError, match=r"output size is too small .*kernel \[1, 5, 5\]"):
        F.avg_pool3d(x, (1, 5, 5))
    with pytest.raises(ValueError, match="output_size entries must be positive"):
        F.adaptive_avg_pool3d(x, (0, 1, 1))
    with pytest.raises(TypeError, match="argument 'input'"):
        F.max_pool3d(np.ones((1, 2, 2, 2)), 2)


def test_instance_norm_bad_input():
    with pytest.raises(ValueError, match="more than 1 spatial element"):
        F.instance_norm(sdk.ones(2, 3, 1))
    with pytest.raises(ValueError, match="running_mean and running_var"):
        F.instance_norm(sdk.ones(2, 3, 4), use_input_stats=False)
    with pytest.raises(ValueError, match="weight must have shape"):
        F.instance_norm(sdk.ones(2, 3, 4), weight=sdk.ones(4))
    with pytest.raises(TypeError, match="argument 'input'"):
        F.instance_norm([1.0, 2.0])
    with pytest.raises(ValueError, match="expected 3D"):
        nn.InstanceNorm2d(3)(sdk.ones(3, 4))
    with pytest.raises(ValueError, match="num_features"):
        nn.InstanceNorm1d(3, affine=True)(sdk.ones(2, 4, 5))


def test_local_response_norm_bad_input():
    with pytest.raises(ValueError, match="3D or higher"):
        F.local_response_norm(sdk.ones(2, 3), 2)
    with pytest.raises(ValueError, match="size must be a positive int"):
        nn.LocalResponseNorm(0)
    with pytest.raises(TypeError, match="argument 'input'"):
        F.local_response_norm(3.0, 2)


def test_sync_batch_norm_bad_input():
    with pytest.raises(ValueError, match="expected at least 2D input"):
        nn.SyncBatchNorm(3)(sdk.ones(3))
    with pytest.raises(NotImplementedError, match="process_group must be None"):
        nn.SyncBatchNorm(3, process_group=object())
