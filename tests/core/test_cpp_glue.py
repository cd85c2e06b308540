"""The torch-style glue of the C++ headers, built once as a pybind11 module (cpp/glue_module.cpp):
sdk::irange, DimVector, ceil_div, optional, str, device_of (util.h); SDK_ERROR, SDK_ASSERT(M),
SDK_CHECK_EQ..GE, SDK_INTERNAL_ASSERT, SDK_WARN(_ONCE) (error.h); the dispatch variants;
acc_type; parallel_reduce and get_thread_num; the py alias and ArrayRef casters."""

from __future__ import annotations

import os
import warnings
from pathlib import Path

import numpy as np
import pytest

import cpp_extension
import sdk
from tests._support import kept_folder, toolchain_key

SOURCE = Path(__file__).resolve().parent / "cpp" / "glue_module.cpp"


@pytest.fixture(scope="module")
def glue(tmp_path_factory):
    root = kept_folder(tmp_path_factory, "cpp_glue", *toolchain_key())  # one build for all workers
    mp = pytest.MonkeyPatch()
    mp.setenv("SDK_EXTENSIONS_DIR", str(root))
    try:
        yield cpp_extension.load("cpp_glue", [str(SOURCE)])
    finally:
        mp.undo()


def test_irange_dimvector_ceil_div(glue):
    assert glue.irange_sum(5) == 10 + 500
    assert glue.irange_sum(-3) == 500  # an empty range, not a wrap-around
    x = sdk.zeros([2, 5])
    assert glue.dimvector_of(x) == [2, 5, 3, 7, 8]  # ceil(10 / 4) == 3


def test_optional_str_device_of(glue):
    assert glue.optional_and_str() == "none/-1/no device"
    assert glue.optional_and_str(np.zeros(2), 0.5) == "tensor/0.5/cpu"


@pytest.mark.parametrize(
    ("which", "a", "b", "message"),
    [
        ("error", 1, 2, r"^custom failure 1 and 2 \(.*glue_module.cpp:\d+\)"),
        ("assert", 1, 2, r"Internal assert failed: a == b"),
        ("assertm", 3, 4, r"Internal assert failed: a == b: values 3, 4"),
        ("eq", 1, 2, r"^Check failed: a == b \(1 vs\. 2\)\. extra 3 \(.*glue_module.cpp:\d+\)"),
        ("ne", 2, 2, r"Check failed: a != b \(2 vs\. 2\)"),
        ("lt", 2, 2, r"Check failed: a < b"),
        ("le", 3, 2, r"Check failed: a <= b"),
        ("gt", 2, 2, r"Check failed: a > b"),
        ("ge", 1, 2, r"Check failed: a >= b \(1 vs\. 2\)"),
        ("internal", 1, 2, r"internal 1"),
        ("no_semicolon", 1, 2, r"no semicolon 1"),
    ],
)
def test_error_macros_raise_runtime_error(glue, which, a, b, message):
    with pytest.raises(RuntimeError, match=message):
        glue.fail(which, a, b)


def test_checks_that_hold_do_not_throw(glue):
    for which, a, b in (
        ("assert", 1, 1), ("assertm", 2, 2), ("eq", 3, 3), ("ne", 1, 2), ("lt", 1, 2),
        ("le", 2, 2), ("gt", 3, 2), ("ge", 2, 2), ("internal", 4, 4), ("debug_only", 5, 5),
        ("no_semicolon", 6, 6),
    ):  # fmt: skip
        glue.fail(which, a, b)


def test_debug_only_assert_is_compiled_out_with_ndebug(glue):
    # load() compiles with -O2 and without NDEBUG unless asked: the assert runs
    with pytest.raises(RuntimeError, match="debug 1"):
        glue.fail("debug_only", 1, 2)


def test_warn_raises_user_warning_and_warn_once_warns_once(glue):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert glue.warn(3) == 3
        glue.warn(2)
    messages = [str(w.message) for w in caught]
    assert all(w.category is UserWarning for w in caught)
    assert sum(m.startswith("every call ") for m in messages) == 5
    assert [m for m in messages if m.startswith("only once")] == [
        m for m in messages if m.startswith("only once 0 (")
    ]
    assert len([m for m in messages if m.startswith("only once")]) == 1
    assert "glue_module.cpp:" in messages[0]


def test_warning_as_error_raises_from_the_call(glue):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(UserWarning, match="every call 0"):
            glue.warn(1)


@pytest.mark.parametrize(
    ("kind", "dtype", "expected"),
    [
        ("reduced", np.float16, "2"),
        ("half", np.float64, "8"),
        ("half", np.float16, "2"),
        ("and3", np.int32, "4"),
        ("index", np.int32, "index4"),
        ("index", np.int64, "index8"),
        ("switch", np.float32, "4"),
        ("switch", np.float16, "2"),
        ("switch", np.int64, "index8"),
        ("v2", np.float64, "8"),
        ("v2", np.float16, "2"),
        ("v2", np.int32, "4"),
    ],
)
def test_dispatch_variants_bind_the_type(glue, kind, dtype, expected):
    assert glue.dispatch(np.zeros(2, dtype=dtype), kind) == expected


@pytest.mark.parametrize(
    ("kind", "dtype", "message"),
    [
        ("reduced", np.float32, r"\"reduced\" not implemented for 'float32' \(accepts float16"),
        ("index", np.int16, r"\"index\" not implemented for 'int16' \(accepts int32, int64\)"),
        ("switch", np.uint8, r"\"switch\" not implemented for 'uint8'$"),
        ("v2", np.uint8, r"accepts float64, float32, float16, int32, int64\)"),
    ],
)
def test_dispatch_of_another_dtype_names_what_it_accepts(glue, kind, dtype, message):
    with pytest.raises(TypeError, match=message):
        glue.dispatch(np.zeros(2, dtype=dtype), kind)


def test_half_sum_accumulates_in_float(glue):
    x = np.full(4096, 0.1, dtype=np.float16)
    expected = float(np.sum(x.astype(np.float32)))
    assert glue.half_sum(x) == pytest.approx(expected, rel=1e-6)
    naive = np.float16(0)
    for v in x:
        naive = np.float16(naive + v)
    assert abs(float(naive) - expected) > 1  # what a float16 accumulator would give


@pytest.mark.parametrize("threads", [1, 2, 4])
def test_parallel_reduce_matches_numpy(glue, threads):
    before = sdk.get_num_threads()
    sdk.set_num_threads(threads)
    try:
        x = np.random.default_rng(0).standard_normal(10_001)
        for grain in (1, 100, 20_000):
            assert glue.parallel_sum(x, grain) == pytest.approx(float(x.sum()), rel=1e-12)
        assert glue.parallel_sum(np.zeros(0)) == 0.0
        chunks, max_thread, in_region, nested_inline, outside, outside_region = glue.thread_numbers(
            1000, 1
        )
        # one chunk per thread that runs at once: a count above the CPUs runs one per CPU
        runs = min(threads, len(os.sched_getaffinity(0)))
        assert chunks == runs and max_thread == runs - 1
        assert in_region == 1 and nested_inline == 1
        assert (outside, outside_region) == (0, 0)
    finally:
        sdk.set_num_threads(before)


def test_array_ref_arguments_and_results(glue):
    x = np.arange(24, dtype=np.float64).reshape(2, 3, 4)
    np.testing.assert_allclose(glue.sum_dims(x, [0, 2]).numpy(), x.sum(axis=(0, 2)))
    np.testing.assert_allclose(
        glue.sum_dims(x, (1,), keepdim=True).numpy(), x.sum(1, keepdims=True)
    )
    np.testing.assert_allclose(glue.sum_dims(x, 2).numpy(), x.sum(2))  # an int for IntArrayRef
    a, b = np.ones((2, 2)), np.zeros((1, 2))
    np.testing.assert_array_equal(glue.concat([a, b], 0).numpy(), np.concatenate([a, b]))
    assert glue.echo_sizes(x) == [2, 3, 4]
    with pytest.raises(TypeError):
        glue.sum_dims(x, ["a"])
