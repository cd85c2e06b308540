"""Shared pytest fixtures: seeded numpy generator and tensor-vs-numpy comparison."""

from __future__ import annotations

import numpy as np
import pytest

from tests._support import use_tested_package

use_tested_package()  # before anything imports sdk: the checkout's build, else the installed one


def pytest_sessionfinish(session) -> None:
    """Drop the run's precompiled torch header (tests/port/corpus_kit.py, about 800 MB) once
    every worker is done: pytest keeps the last runs' temporary folders."""
    import os

    factory = getattr(session.config, "_tmp_path_factory", None)
    if factory is None or os.environ.get("PYTEST_XDIST_WORKER"):
        return
    try:
        from tests.port.corpus_kit import remove_torch_pch
    except ModuleNotFoundError:  # a copy without tests/port (the sanitizers' stage) made none
        return
    remove_torch_pch(factory)


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(1234)


def _tol(dtype_name: str) -> tuple[float, float]:
    return {
        "float16": (1e-2, 1e-2),
        "bfloat16": (3e-2, 3e-2),
        "float32": (1e-5, 1e-5),
        "float64": (1e-10, 1e-12),
    }.get(dtype_name, (0.0, 0.0))


def _as_numpy(t) -> np.ndarray:
    import sdk

    t = t.detach()
    if t.dtype == sdk.bfloat16:
        t = t.float()
    return np.array(t.numpy(), copy=True)


@pytest.fixture
def close():
    """close(tensor, ndarray, rtol=None, atol=None, dtype=True): values, shape (and dtype)."""

    def check(t, ref, rtol=None, atol=None, check_dtype=True):
        import sdk

        assert isinstance(t, sdk.Tensor), f"expected an sdk.Tensor, got {type(t).__name__}"
        ref = np.asarray(ref)
        assert tuple(t.shape) == ref.shape, f"shape {tuple(t.shape)} != {ref.shape}"
        r0, a0 = _tol(t.dtype.name)
        rtol = r0 if rtol is None else rtol
        atol = a0 if atol is None else atol
        if check_dtype and t.dtype.name != "bfloat16":
            assert t.dtype.name == ref.dtype.name, f"dtype {t.dtype.name} != {ref.dtype.name}"
        got = _as_numpy(t)
        if got.dtype == np.bool_ or np.issubdtype(got.dtype, np.integer):
            np.testing.assert_array_equal(got, ref)
        else:
            np.testing.assert_allclose(
                got, ref.astype(np.float64), rtol=rtol, atol=atol, equal_nan=True
            )

    return check


@pytest.fixture
def to_sdk():
    """to_sdk(ndarray, dtype_name=None): a tensor copy (bfloat16 through float32)."""

    def make(a, dtype=None):
        import sdk

        a = np.asarray(a)
        if dtype == "bfloat16":
            return sdk.tensor(a.astype(np.float32)).to(sdk.bfloat16)
        if dtype is not None:
            a = a.astype(dtype)
        return sdk.tensor(a)

    return make
