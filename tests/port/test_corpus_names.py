"""The porting corpus of torch names the census ranks high (corpus_names/): torch's stable ABI
(torch::stable, torch::headeronly, STABLE_TORCH_LIBRARY, TORCH_BOX, boxed kernels), channels-last
memory formats, the smaller names (globalContext, logging, serialize headers), diff and the
bitwise shifts. Each case is
ported with `python -m cpp_extension port` (which must find every name), built, and checked
against numpy; the originals are built with torch too when it is installed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

import sdk
from tests.port.corpus_kit import Framework, build_cache, build_case, corpus_fixtures  # noqa: F401

CORPUS = Path(__file__).resolve().parent / "corpus_names"
RNG = np.random.default_rng(23)


ported, fw = corpus_fixtures(CORPUS, "names")


def build(fw: Framework, case: str, *files: str, **kwargs: Any) -> Any:
    return build_case(fw, "names", case, *files, **kwargs)


def arr(*shape: int, dtype=np.float64) -> np.ndarray:
    return RNG.standard_normal(shape).astype(dtype)


def test_the_porter_finds_every_name(ported):
    _, report = ported
    assert [(m.path, m.line, m.name) for m in report.missing] == []
    assert report.changed and len(report.changed) == len(report.files)


def test_stable_abi_kernels(fw):
    build(fw, "stable_abi", "stable_ops.cpp", is_python_module=False)
    op = fw.ops.corpus_stable

    x = arr(3, 4, dtype=np.float32)
    np.testing.assert_allclose(op.affine(fw.tensor(x), 2.0, -1.0).numpy(), x * 2 - 1, rtol=1e-6)
    with pytest.raises(RuntimeError, match="affine: expected a float32 tensor"):
        op.affine(fw.tensor(x.astype(np.float64)), 1.0, 0.0)

    y = arr(2, 3)
    expected = np.vstack([np.full((1, 3), 0.5), y, np.full((1, 3), 0.5)])
    np.testing.assert_array_equal(op.framed(fw.tensor(y), 0.5).numpy(), expected)
    with pytest.raises(RuntimeError, match="framed: expected a 2-D tensor, got 1 dims"):
        op.framed(fw.tensor(arr(3)), 0.0)

    np.testing.assert_array_equal(
        op.flat_t_padded(fw.tensor(y)).numpy(), np.concatenate([[0.0], y.T.ravel(), [0.0]])
    )

    z = arr(4, 5)
    counts = op.count_positive(fw.tensor(z).t())  # a transposed view: walked by its strides
    assert counts.numpy().dtype == np.int64
    np.testing.assert_array_equal(counts.numpy(), (z.T > 0).sum(1))
    np.testing.assert_array_equal(
        op.count_positive(fw.tensor(z.astype(np.float32))).numpy(), (z > 0).sum(1)
    )


def test_hand_boxed_stable_kernel(fw):
    build(fw, "stable_abi", "stable_ops.cpp", is_python_module=False)
    op = fw.ops.corpus_stable
    x, b = arr(2, 3), arr(2, 3)
    out, n = op.scaled_sum(fw.tensor(x), fw.tensor(b), 1.5, True, 2)
    np.testing.assert_allclose(out.numpy(), -3.0 * x + b)
    assert n == 6
    out, n = op.scaled_sum(fw.tensor(x), None, 0.5, False, None)
    np.testing.assert_allclose(out.numpy(), 0.5 * x)
    with pytest.raises(RuntimeError, match="scaled_sum: expected a contiguous float64 tensor"):
        op.scaled_sum(fw.tensor(x.astype(np.float32)), None, 1.0, False, None)


def test_global_context_settings(fw):
    m = build(fw, "context_misc", "context_ops.cpp")
    x = arr(5, 3)
    np.testing.assert_allclose(m.row_cumsum(fw.tensor(x)).numpy(), np.cumsum(x, axis=0))
    with pytest.raises(RuntimeError, match="expected float64"):
        m.row_cumsum(fw.tensor(x.astype(np.float32)))
    deterministic, warn_only, tf32, has_cuda = m.settings()
    # torch's defaults, which are the SDK's only values; CUDA as the framework sees it
    assert (deterministic, warn_only, tf32) == (False, False, False)
    cuda = sdk.cuda if fw.name == "sdk" else pytest.importorskip("torch").cuda
    assert has_cuda == cuda.is_available()
    # the switch Python sets is the one the extension's kernels read (process-wide)
    lib = sdk if fw.name == "sdk" else pytest.importorskip("torch")
    try:
        lib.use_deterministic_algorithms(True)
        assert lib.are_deterministic_algorithms_enabled() and m.settings()[:2] == (True, False)
        with pytest.raises(RuntimeError, match="row_cumsum does not have a deterministic"):
            m.row_cumsum(fw.tensor(x))
        lib.use_deterministic_algorithms(True, warn_only=True)
        assert lib.is_deterministic_algorithms_warn_only_enabled()
        assert m.settings()[:2] == (True, True)
        np.testing.assert_allclose(m.row_cumsum(fw.tensor(x)).numpy(), np.cumsum(x, axis=0))
        with pytest.raises(TypeError, match="must be bool"):
            lib.use_deterministic_algorithms(1)
    finally:
        lib.use_deterministic_algorithms(False)
    assert m.settings()[:2] == (False, False) and not lib.are_deterministic_algorithms_enabled()


def test_interop_threads_are_one_count(fw):
    """at::get_num_interop_threads in an extension and get_num_interop_threads in Python read
    one process-wide count; on the SDK either side sets it (torch allows one set a process)."""
    m = build(fw, "context_misc", "context_ops.cpp")
    lib = sdk if fw.name == "sdk" else pytest.importorskip("torch")
    assert m.interop_threads(0) == lib.get_num_interop_threads() >= 1
    if fw.name != "sdk":
        return
    before = sdk.get_num_interop_threads()
    try:
        sdk.set_num_interop_threads(before + 3)
        assert m.interop_threads(0) == before + 3
        assert m.interop_threads(before + 5) == before + 5 == sdk.get_num_interop_threads()
    finally:
        sdk.set_num_interop_threads(before)


def test_build_switches_and_size_guards(fw):
    """ATen/Config.h's switches read as torch's build says (the parallel backend: OpenMP in
    torch's wheels, the SDK's own pool here); switches torch defines only for its own build
    are undefined on both sides; size guards are the condition itself."""
    m = build(fw, "context_misc", "context_ops.cpp")
    mkl_sequential, openmp, native, dsa, per_op, guard_false, guard_true = m.switches(5)
    if fw.name == "sdk":
        assert (openmp, native) == (0, 1)
    else:
        info = pytest.importorskip("torch").__config__.parallel_info()
        assert openmp == int("parallel backend: OpenMP" in info)
        assert native == int("parallel backend: native thread pool" in info)
    assert openmp + native == 1
    assert (mkl_sequential, dsa, per_op) == (0, False, False)
    assert (guard_false, guard_true) == (True, False)
    assert m.switches(1)[5:] == (False, False)


def test_channels_last_kernels(fw):
    m = build(fw, "channels_last", "nhwc_ops.cpp")
    x = arr(2, 3, 4, 5, dtype=np.float32)
    np.testing.assert_allclose(
        m.channel_mean(fw.tensor(x)).numpy(), x.mean(1, keepdims=True), rtol=1e-5
    )
    scale = np.array([0.5, -2.0, 3.0], np.float32)
    nchw = fw.tensor(x)
    nhwc = fw.tensor(np.ascontiguousarray(x.transpose(0, 2, 3, 1))).permute(0, 3, 1, 2)
    for inp, channels_last in ((nchw, False), (nhwc, True)):
        assert m.layout_of(inp)[:2] == (channels_last, channels_last)
        out = m.scale_channels(inp, fw.tensor(scale))
        np.testing.assert_allclose(out.numpy(), x * scale[None, :, None, None], rtol=1e-6)
        assert m.layout_of(out)[:2] == (channels_last, channels_last)  # the layout is kept
    assert list(m.layout_of(nchw)[2]) == [60, 1, 15, 3]
    strides, same = m.channels_last_3d(fw.tensor(arr(2, 3, 4, 5, 6, dtype=np.float32)))
    assert list(strides) == [360, 1, 90, 18, 3] and same
    with pytest.raises(RuntimeError, match="required rank 4 tensor to use channels_last format"):
        m.layout_of(fw.tensor(arr(3, 4, dtype=np.float32)))


def test_backward_called_from_cpp(fw):
    m = build(fw, "backward", "backward_ops.cpp")
    x, w = arr(3, 2), arr(3, 2)
    np.testing.assert_allclose(m.grad_of_square(fw.tensor(x), fw.tensor(w)).numpy(), 2 * x * w)
    np.testing.assert_allclose(m.accumulated(fw.tensor(x)).numpy(), 4 * x)

    leaf = fw.tensor(x.copy()).requires_grad_()
    m.backward_from((leaf * leaf).sum(), fw.tensor(np.array(3.0)))
    np.testing.assert_allclose(leaf.grad.numpy(), 6 * x)
    with pytest.raises(RuntimeError, match="does not require grad"):
        m.backward_from(fw.tensor(x).sum(), fw.tensor(np.array(1.0)))


def test_diff_and_shifts(fw):
    m = build(fw, "diff_shift", "diff_shift_ops.cpp")
    x, before = arr(3, 5), arr(3, 1)
    for n in (0, 1, 2, 7):
        np.testing.assert_allclose(
            m.nth_diff(fw.tensor(x), n, 1, fw.tensor(before)).numpy(),
            np.diff(x, n=n, axis=1, prepend=before),
            rtol=1e-12,
        )
    a = np.array([[-100, -3, 0, 5, 127]], dtype=np.int8).T
    s = np.array([[-1, 0, 1, 3, 7, 8, 20]], dtype=np.int8)
    left, right = m.shifts(fw.tensor(a), fw.tensor(s))
    np.testing.assert_array_equal(left.numpy(), np.left_shift(a, s))
    np.testing.assert_array_equal(right.numpy(), np.right_shift(a, s))
    assert m.base_sum(fw.tensor(x)) == pytest.approx(x.sum())


def window_max(x: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """vision_style's op in numpy: the maxima of each row's windows of k, and their indices."""
    rows, length = x.shape
    where = x.reshape(rows, length // k, k).argmax(axis=2) + np.arange(0, length, k)
    return np.take_along_axis(x, where, axis=1), where


def test_vision_style_front_end_cpu_and_autograd_kernels(fw):
    build(
        fw,
        "vision_style",
        "window_max.cpp",
        "cpu/window_max_cpu.cpp",
        "autograd/window_max_autograd.cpp",
        is_python_module=False,
    )
    op = fw.ops.corpus_vis
    x, g = arr(3, 12), arr(3, 4)
    expected, where = window_max(x, 3)
    a = fw.tensor(x).requires_grad_()
    out, argmax = op.window_max(a, 3)
    np.testing.assert_array_equal(out.detach().numpy(), expected)
    np.testing.assert_array_equal(argmax.numpy(), where)
    assert argmax.numpy().dtype == np.int32
    assert out.requires_grad and not argmax.requires_grad  # mark_non_differentiable
    (out * fw.tensor(g)).sum().backward()
    grad = np.zeros_like(x)
    np.put_along_axis(grad, where, g, axis=1)
    np.testing.assert_array_equal(a.grad.numpy(), grad)
    # the backward op is registered with a bare name and reached through its schema
    direct = op._window_max_backward(fw.tensor(g), argmax, 12)
    np.testing.assert_array_equal(direct.numpy(), grad)
    with pytest.raises(RuntimeError, match="window_max: length 12 is not a multiple of 5"):
        op.window_max(fw.tensor(x), 5)
