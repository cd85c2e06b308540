"""Shared pytest fixtures (seeded numpy generator, tensor-vs-numpy comparison) and the order
and distribution of the suite over xdist workers."""

from __future__ import annotations

import os

import numpy as np
import pytest

from tests._support import use_tested_package

use_tested_package()  # before anything imports sdk: the checkout's build, else the installed one

# The files with the most compile time (full runs' --durations, summed per file), heaviest
# first. They run before everything else, each in its own order, so that the run ends on
# short tests: the last files collected (tests/templates' wheel builds) could otherwise leave
# one worker compiling while the other has nothing left to do. Only the order changes.
HEAVY_FIRST = (
    "tests/cpp_extension/test_pch.py",
    "tests/port/test_corpus.py",
    "tests/cpp_extension/test_split_codegen.py",
    "tests/core/test_cpp_api.py",
    "tests/examples/test_muladd_example.py",
    "tests/abi/test_abi_compat.py",
    "tests/cpp_extension/test_ipython.py",
    "tests/cuda/test_build.py",
    "tests/cuda/test_cuda_helpers.py",
    "tests/reliability/test_leaks.py",
    "tests/examples/test_dask_example.py",
    "tests/templates/test_new.py",
    "tests/qa/test_tutorial_port.py",
    "tests/port/realworld/test_realworld.py",
)


@pytest.hookimpl(trylast=True)  # after pytest's own grouping by fixture parameters
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    rank = {name: i for i, name in enumerate(HEAVY_FIRST)}
    # a stable sort: each file keeps its tests' order, the other files keep theirs
    items.sort(key=lambda item: rank.get(item.nodeid.split("::")[0], len(rank)))


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log):
    """`-n N` alone (--dist load) runs with work stealing: each worker starts on its own
    contiguous half of the suite (a module's tests, and so its module-scoped builds, mostly
    stay on one worker), and one that runs out takes half of what the other has queued. The
    load scheduler hands out chunks that split modules between workers and cannot take back
    a chunk: one worker can be left compiling while the other idles. --dist given is obeyed."""
    given = [*config.invocation_params.args, *config.getini("addopts")]
    given += os.environ.get("PYTEST_ADDOPTS", "").split()
    if config.getvalue("dist") != "load" or any(a.startswith("--dist") or a == "-d" for a in given):
        return None
    from xdist.scheduler import WorkStealingScheduling

    return WorkStealingScheduling(config, log)


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
