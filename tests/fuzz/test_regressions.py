"""Fixed cases the fuzz tests found, kept as plain deterministic tests."""

from __future__ import annotations

import math

import numpy as np
import pytest

import sdk


@pytest.mark.parametrize("dtype", [sdk.float16, sdk.bfloat16, sdk.float32, sdk.float64, sdk.int64])
@pytest.mark.parametrize(
    "bounds", [(math.nan, None), (None, math.nan), (0, math.nan), (math.nan, 1)]
)
def test_clamp_nan_bound_gives_nan(dtype, bounds):
    """A NaN bound propagates (as maximum/minimum and tensor bounds do), not ignored."""
    x = sdk.tensor([-2, 0, 3]).to(dtype)
    r = sdk.clamp(x, *bounds)
    assert r.dtype == (dtype if dtype.is_floating_point else sdk.float32)
    assert np.isnan(r.float().numpy()).all()
    lo, hi = (sdk.tensor(b) if b is not None else None for b in bounds)
    assert np.isnan(sdk.clamp(x.float(), lo, hi).numpy()).all()  # the tensor-bound path agrees
    if dtype.is_floating_point:
        x.clamp_(*bounds)
        assert np.isnan(x.float().numpy()).all()
