"""The porting corpus (corpus/): torch-style extensions of our own, ported with
`python -m cpp_extension port`, built with load() or setup.py, and checked against numpy; the
originals also built with torch's cpp_extension and checked the same way when torch is
installed (skipped otherwise). The porter's report must list exactly the names the SDK lacks."""

from __future__ import annotations

import importlib.util
import json
import math
import shutil
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from cpp_extension.port import main as _port
from cpp_extension.port import sdk_names as _port_names
from tests._support import kept_folder, subprocess_env, sync_tree, torch_key
from tests.port.corpus_kit import (  # noqa: F401
    Framework,
    build_cache,
    build_case,
    corpus_fixtures,
)

CORPUS = Path(__file__).resolve().parent / "corpus"
RNG = np.random.default_rng(7)


ported, fw = corpus_fixtures(CORPUS, "corpus")


def build(fw: Framework, case: str, *files: str, **kwargs: Any) -> Any:
    return build_case(fw, "corpus", case, *files, **kwargs)


def arr(*shape: int, dtype=np.float64) -> np.ndarray:
    return RNG.standard_normal(shape).astype(dtype)


def gelu(x: np.ndarray) -> np.ndarray:
    return 0.5 * x * (1 + np.vectorize(math.erf)(x / math.sqrt(2)))


def conv2d(x: np.ndarray, w: np.ndarray, b: np.ndarray | None, stride: int, pad: int):
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    windows = np.lib.stride_tricks.sliding_window_view(xp, w.shape[2:], axis=(2, 3))
    out = np.einsum("nchwij,ocij->nohw", windows[:, :, ::stride, ::stride], w)
    return out if b is None else out + b[None, :, None, None]


# ---- the report ------------------------------------------------------------------------------


def test_report_lists_what_the_sdk_lacks_and_nothing_else(ported):
    _, report = ported
    lacks = _port_names.sdk_headers().names
    expected = {
        ("missing_ops/missing.cpp", 2, "ATen/native/TensorIterator.h"),
        ("missing_ops/missing.cpp", 15, "at::_cudnn_internal_thing"),
        ("missing_ops/missing.cpp", 18, "torch::jit"),
        ("setup_project/setup.py", 18, "torch"),
        # C++ in a string: ported with --cxx-in-strings only
        ("inline_source/inline_ext.py", 6, "#include <torch/extension.h>"),
    }
    for name, line, shown in (
        ("cumsum", 7, "at::cumsum"),
        ("topk", 10, ".topk()"),
        ("sort", 13, ".sort()"),
    ):
        if name not in lacks:
            expected.add(("missing_ops/missing.cpp", line, shown))
    assert {(m.path, m.line, m.name) for m in report.missing} == expected
    assert len(report.changed) == len(report.files) == 27


def test_porting_the_ported_corpus_changes_nothing(ported, tmp_path):
    out, report = ported
    again = _port.port_paths([out], tmp_path / "again")
    assert again.changed == []
    assert [(m.path, m.line, m.name) for m in again.missing] == [
        (m.path, m.line, m.name) for m in report.missing
    ]


# ---- pybind11 modules ------------------------------------------------------------------------


def test_activation(fw):
    m = build(fw, "activation", "activation.cpp")
    x = arr(4, 5)
    np.testing.assert_allclose(m.scaled_tanh(fw.tensor(x)).numpy(), np.tanh(x))
    np.testing.assert_allclose(m.scaled_tanh(fw.tensor(x), alpha=2.5).numpy(), 2.5 * np.tanh(x))
    np.testing.assert_allclose(m.leaky(fw.tensor(x), 0.2).numpy(), np.where(x > 0, x, 0.2 * x))
    np.testing.assert_allclose(m.softsign(fw.tensor(x)).numpy(), x / (np.abs(x) + 1))
    with pytest.raises(RuntimeError, match="expected a floating tensor"):
        m.scaled_tanh(fw.tensor(np.arange(3)))


def test_glu_forward_and_backward(fw):
    m = build(fw, "glu", "glu.cpp")
    x, g = arr(3, 8), arr(3, 4)
    a, b = x[:, :4], x[:, 4:]
    gate = 1 / (1 + np.exp(-b))
    out, got_gate = m.forward(fw.tensor(x), 1)
    np.testing.assert_allclose(out.numpy(), a * gate)
    np.testing.assert_allclose(got_gate.numpy(), gate)
    expected = np.concatenate([g * gate, g * a * gate * (1 - gate)], axis=1)
    np.testing.assert_allclose(m.backward(fw.tensor(g), fw.tensor(x), 1).numpy(), expected)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_softmax_accessor(fw, dtype):
    m = build(fw, "softmax_accessor", "softmax.cpp")
    x = arr(5, 7, dtype=dtype)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    tol = 1e-6 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(m.row_softmax(fw.tensor(x)).numpy(), e / e.sum(1, keepdims=True),
                               rtol=tol)  # fmt: skip
    np.testing.assert_allclose(
        m.row_softmax(fw.tensor(np.ascontiguousarray(x.T)).t()).numpy(),
        (e / e.sum(1, keepdims=True)),
        rtol=tol,
    )  # a transposed view: the kernel makes it contiguous first
    with pytest.raises(RuntimeError, match="expected a 2-d tensor, got 1 dims"):
        m.row_softmax(fw.tensor(x[0]))


def test_parallel_clip(fw):
    m = build(fw, "parallel_clip", "clip.cpp")
    assert m.threads() >= 1
    x = arr(100_000)
    np.testing.assert_array_equal(m.clip(fw.tensor(x), -0.5, 0.25).numpy(), np.clip(x, -0.5, 0.25))
    with pytest.raises(RuntimeError, match=r"lo \(1\) must not exceed hi \(0\)"):
        m.clip(fw.tensor(x), 1.0, 0.0)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_parallel_norm(fw, dtype):
    m = build(fw, "parallel_norm", "norm.cpp")
    x = arr(50_001, dtype=dtype)
    expected = float(np.sqrt(np.sum(x.astype(np.float64) ** 2)))
    assert m.l2_norm(fw.tensor(x)) == pytest.approx(
        expected, rel=1e-4 if dtype == np.float16 else 1e-9
    )


def test_optional_and_list_arguments(fw):
    m = build(fw, "optional_args", "affine.cpp")
    x, bias = arr(3, 4, 5), arr(1, 4, 1)
    np.testing.assert_allclose(m.affine(fw.tensor(x)).numpy(), x.sum(0, keepdims=True))
    np.testing.assert_allclose(
        m.affine(fw.tensor(x), fw.tensor(bias), [0, 2], 0.5).numpy(),
        x.sum((0, 2), keepdims=True) * 0.5 + bias,
    )
    parts = m.split_rows(fw.tensor(x[:, 0]), [1, 2])
    assert [p.numpy().shape for p in parts] == [(1, 5), (2, 5)]
    np.testing.assert_array_equal(parts[1].numpy(), x[1:, 0])
    with pytest.raises(RuntimeError, match="sizes add up to 2, not 3"):
        m.split_rows(fw.tensor(x[:, 0]), [1, 1])
    total = m.stack_sum([fw.tensor(x[0]), fw.tensor(x[1]), fw.tensor(x[2])])
    np.testing.assert_allclose(total.numpy(), x.sum(0))


def test_checks_and_warnings(fw):
    m = build(fw, "checks", "checks.cpp")
    x = np.arange(7.0)
    np.testing.assert_array_equal(
        m.blocks(fw.tensor(x), 3).numpy(), np.concatenate([x, [0.0, 0.0]]).reshape(3, 3)
    )
    with pytest.raises(RuntimeError, match=r"Check failed: block > 0 \(0 vs\. 0\)\. block must"):
        m.blocks(fw.tensor(x), 0)
    with pytest.raises(RuntimeError, match="describe: empty tensor of shape"):
        m.describe(fw.tensor(np.zeros(0)))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert m.describe(fw.tensor(x)).startswith("tensor of 7 elements, dtype")
        m.describe(fw.tensor(x))
    # The SDK turns TORCH_WARN_ONCE into one Python warning; torch's plain pybind11 functions
    # print it to stderr (only its own op bindings route warnings to Python).
    expected = 1 if fw.name == "sdk" else 0
    assert [str(w.message).split(" (")[0] for w in caught].count(
        "describe is slow for large tensors"
    ) == expected
    half = np.array([1.0, 3.0], dtype=np.float16)
    np.testing.assert_array_equal(m.halve(fw.tensor(half)).numpy(), half / 2)
    with pytest.raises(TypeError if fw.name == "sdk" else RuntimeError, match="halve"):
        m.halve(fw.tensor(np.arange(2)))


@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
def test_embedding_sum(fw, index_dtype):
    m = build(fw, "embedding_sum", "embedding_sum.cpp")
    weight, idx = arr(10, 3), RNG.integers(0, 10, size=(4, 5)).astype(index_dtype)
    np.testing.assert_allclose(
        m.embedding_sum(fw.tensor(weight), fw.tensor(idx)).numpy(), weight[idx].sum(axis=1)
    )
    idx[0, 0] = 12
    with pytest.raises(RuntimeError, match="index 12 out of range"):
        m.embedding_sum(fw.tensor(weight), fw.tensor(idx))
    with pytest.raises((TypeError, RuntimeError), match="embedding_sum"):
        m.embedding_sum(fw.tensor(weight.astype(np.int32)), fw.tensor(idx))


def test_autograd_function(fw):
    m = build(fw, "autograd_function", "scaled_tanh.cpp")
    x = arr(3, 4)
    t = fw.tensor(x).requires_grad_()
    y = m.scaled_tanh(t, 2.0)
    np.testing.assert_allclose(y.detach().numpy(), 2 * np.tanh(x))
    y.sum().backward()
    np.testing.assert_allclose(t.grad.numpy(), 2 * (1 - np.tanh(x) ** 2), rtol=1e-12)
    d = m.detached_twice(t)
    assert not d.requires_grad
    np.testing.assert_allclose(d.numpy(), 2 * x)


def test_fused_adam_step_and_gradient_cleanup(fw):
    m = build(fw, "fused_optimizer", "adam.cpp")
    param, exp_avg, exp_avg_sq = arr(4, 3), np.zeros((4, 3)), np.zeros((4, 3))
    t_param, t_avg, t_sq = (fw.tensor(a.copy()) for a in (param, exp_avg, exp_avg_sq))
    for step in (1, 2, 3):
        g = arr(4, 3)
        m.adam_step(t_param, fw.tensor(g), t_avg, t_sq, step, lr=0.01)
        exp_avg = 0.9 * exp_avg + 0.1 * g
        exp_avg_sq = 0.999 * exp_avg_sq + 0.001 * g * g
        denom = np.sqrt(exp_avg_sq / (1 - 0.999**step)) + 1e-8
        param = param - 0.01 / (1 - 0.9**step) * exp_avg / denom
    np.testing.assert_allclose(t_avg.numpy(), exp_avg, rtol=1e-12)
    np.testing.assert_allclose(t_sq.numpy(), exp_avg_sq, rtol=1e-12)
    np.testing.assert_allclose(t_param.numpy(), param, rtol=1e-12)
    with pytest.raises(RuntimeError, match="step must be at least 1, got 0"):
        m.adam_step(t_param, fw.tensor(g), t_avg, t_sq, 0)
    with pytest.raises(RuntimeError, match=r"param and grad shapes differ: \[4, 3\] vs \[3\]"):
        m.adam_step(t_param, fw.tensor(g[0]), t_avg, t_sq, 4)

    g = np.array([np.nan, np.inf, -np.inf, 0.5, -3.0, 2.0])
    lo, hi = np.full(6, -1.0), np.array([1.0, 1.0, 1.0, 1.0, 1.0, 0.25])
    clean, nan_mask = m.sanitize(fw.tensor(g), fw.tensor(lo), fw.tensor(hi))
    np.testing.assert_array_equal(clean.numpy(), np.clip(np.nan_to_num(g, nan=0.0), lo, hi))
    np.testing.assert_array_equal(nan_mask.numpy(), np.isnan(g))

    x = np.array([0.0, 3.0, -7.5, np.nan, 100.0])
    np.testing.assert_allclose(
        m.log_phase(fw.tensor(x), period=1.5).numpy(),
        np.where(np.isnan(x), -1.0, np.fmod(np.log2(np.abs(x) + 1), 1.5)),
        rtol=1e-12,
    )
    with pytest.raises(RuntimeError, match="period must be positive, got -1"):
        m.log_phase(fw.tensor(x), -1.0)


def layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float = 1e-5):
    mu, var = x.mean(-1, keepdims=True), x.var(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * weight + bias


def test_token_mlp_feed_forward(fw):
    m = build(fw, "token_mlp", "mlp.cpp")
    ids = RNG.integers(0, 10, size=(2, 5))
    table, ln_w, ln_b = arr(10, 8), arr(8), arr(8)
    w1, b1, w2, b2 = arr(16, 8), arr(16), arr(8, 16), arr(8)
    args = [fw.tensor(a) for a in (ids, table, ln_w, ln_b, w1, b1, w2, b2)]
    x = table[ids]
    hidden = gelu(layer_norm(x, ln_w, ln_b).reshape(-1, 8) @ w1.T + b1)
    expected = x + (hidden @ w2.T + b2).reshape(x.shape)
    np.testing.assert_allclose(m.feed_forward(*args).numpy(), expected, rtol=1e-10, atol=1e-12)
    # dropout is the identity outside training, whatever p
    got = m.feed_forward(*args, p=0.5).numpy()
    np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(m.feed_forward(*args, p=1.0, train=True).numpy(), x + b2)
    with pytest.raises(RuntimeError, match="dropout probability has to be between 0 and 1"):
        m.feed_forward(*args, p=1.5, train=True)
    with pytest.raises(RuntimeError, match="ids must be int64"):
        m.feed_forward(fw.tensor(ids.astype(np.int32)), *args[1:])


def test_conv_block(fw):
    m = build(fw, "conv_block", "conv.cpp")
    x, w, b = arr(2, 3, 7, 6), arr(4, 3, 3, 3), arr(4)
    for stride, pad in ((1, 0), (2, 1)):
        np.testing.assert_allclose(
            m.conv2d_relu(fw.tensor(x), fw.tensor(w), fw.tensor(b), stride=stride, padding=pad)
            .numpy(),
            np.maximum(conv2d(x, w, b, stride, pad), 0),
            rtol=1e-10, atol=1e-12,
        )  # fmt: skip
    np.testing.assert_allclose(
        m.conv2d_relu(fw.tensor(x), fw.tensor(w)).numpy(),
        np.maximum(conv2d(x, w, None, 1, 0), 0),
        rtol=1e-10, atol=1e-12,
    )  # fmt: skip
    with pytest.raises(RuntimeError, match="expected an NCHW input, got 3 dims"):
        m.conv2d_relu(fw.tensor(x[0]), fw.tensor(w))
    with pytest.raises(RuntimeError, match="input has 2 channels but the weight expects 3"):
        m.conv2d_relu(fw.tensor(x[:, :2]), fw.tensor(w))

    seq, dw, db = arr(2, 3, 10), arr(3, 1, 3), arr(3)
    for dilation in (1, 2):
        padded = np.pad(seq, ((0, 0), (0, 0), (2 * dilation, 0)))
        expected = db[None, :, None] + sum(
            dw[None, :, 0, j, None] * padded[:, :, j * dilation : j * dilation + 10]
            for j in range(3)
        )
        np.testing.assert_allclose(
            m.causal_depthwise_conv1d(fw.tensor(seq), fw.tensor(dw), fw.tensor(db), dilation)
            .numpy(),
            expected,
            rtol=1e-10, atol=1e-12,
        )  # fmt: skip
    with pytest.raises(RuntimeError, match=r"weight must be \[3, 1, k\], got \[3, 2, 3\]"):
        m.causal_depthwise_conv1d(fw.tensor(seq), fw.tensor(arr(3, 2, 3)), fw.tensor(db))


def test_attention_scores(fw):
    m = build(fw, "attention", "attention.cpp")
    q, k, v, bias = arr(2, 3, 4), arr(2, 5, 4), arr(2, 5, 4), arr(2, 3, 5)
    mask = RNG.random((2, 3, 5)) < 0.4
    mask[..., 0] = False  # no row is hidden entirely
    scores = q @ k.transpose(0, 2, 1) / 2 + bias
    scores[mask] = -np.inf
    lse = np.log(np.exp(scores).sum(-1))
    out, got_lse = m.masked_attention(*(fw.tensor(a) for a in (q, k, v, bias, mask)))
    np.testing.assert_allclose(got_lse.numpy(), lse, rtol=1e-12)
    np.testing.assert_allclose(out.numpy(), np.exp(scores - lse[..., None]) @ v, rtol=1e-10)
    with pytest.raises(RuntimeError, match="mask must be bool"):
        m.masked_attention(*(fw.tensor(a) for a in (q, k, v, bias, mask.astype(np.float64))))

    qh, kh = arr(2, 2, 3, 4), arr(2, 2, 5, 4)
    np.testing.assert_allclose(
        m.multihead_scores(fw.tensor(qh), fw.tensor(kh)).numpy(),
        qh @ kh.transpose(0, 1, 3, 2) / 2,
        rtol=1e-12,
    )
    a, b = arr(3, 4), arr(5, 4)
    a[1] = 0.0  # a zero row: the norm is clamped to eps, the scores are 0
    a_unit = a / np.maximum(np.linalg.norm(a, axis=-1, keepdims=True), 1e-8)
    b_unit = b / np.linalg.norm(b, axis=-1, keepdims=True)
    np.testing.assert_allclose(
        m.cosine_scores(fw.tensor(a), fw.tensor(b)).numpy(), a_unit @ b_unit.T, rtol=1e-12
    )
    mat, u, w = arr(3, 4), arr(3), arr(4)
    np.testing.assert_allclose(
        m.rank_one_update(fw.tensor(mat), fw.tensor(u), fw.tensor(w), alpha=-0.5).numpy(),
        mat - 0.5 * np.outer(u, w),
    )


def test_tensor_options_and_rounding_division(fw):
    m = build(fw, "tensor_options", "options.cpp")
    x = arr(4, 3, dtype=np.float32)
    mean, var, count, scale = m.init_state(fw.tensor(x))
    assert mean.numpy().dtype == var.numpy().dtype == np.float32
    np.testing.assert_array_equal(mean.numpy(), np.zeros(3))
    np.testing.assert_array_equal(var.numpy(), np.ones(3))
    assert count.numpy().dtype == np.int64 and count.numpy().tolist() == [4]
    assert scale.requires_grad and scale.is_leaf and not mean.requires_grad
    np.testing.assert_array_equal(scale.detach().numpy(), np.ones(3, dtype=np.float32))
    assert scale.detach().numpy().dtype == np.float32
    with pytest.raises(RuntimeError, match=r"expected \[N, F\], got \[3\]"):
        m.init_state(fw.tensor(x[0]))

    values = np.array([-1.2, -0.6, 0.1, 0.45, 2.7])
    buckets = m.bucketize_uniform(fw.tensor(values), lo=-1.0, width=0.5).numpy()
    assert buckets.dtype == np.int64
    np.testing.assert_array_equal(buckets, np.floor((values + 1.0) / 0.5))
    with pytest.raises(RuntimeError, match="width must be positive, got 0"):
        m.bucketize_uniform(fw.tensor(values), width=0.0)

    a, b = np.array([7, -7, 7, -7]), np.array([2.0, 2.0, -2.0, -2.0])
    true_div = m.divide_as(fw.tensor(a), fw.tensor(b)).numpy()
    assert true_div.dtype == np.float32
    np.testing.assert_array_equal(true_div, [3.5, -3.5, -3.5, 3.5])
    trunc = m.divide_as(fw.tensor(a), fw.tensor(b), "trunc").numpy()
    assert trunc.dtype == np.int64
    np.testing.assert_array_equal(trunc, [3, -3, -3, 3])
    np.testing.assert_array_equal(
        m.divide_as(fw.tensor(a), fw.tensor(b), rounding_mode="floor").numpy(), [3, -4, -4, 3]
    )
    with pytest.raises(RuntimeError, match="rounding_mode to be one of None, 'trunc', or 'floor'"):
        m.divide_as(fw.tensor(a), fw.tensor(b), "round")
    with pytest.raises(RuntimeError, match=r"shapes differ: \[4\] vs \[3\]"):
        m.divide_as(fw.tensor(a), fw.tensor(b[:3]))


def test_pybind_class_with_optional_list_and_tuple_results(fw):
    m = build(fw, "pybind_returns", "moments.cpp")
    moments = m.RunningMoments(3)
    assert moments.mean is None and moments.variance is None and moments.count == 0
    x = arr(4, 3)
    with pytest.raises(RuntimeError, match="no batch seen yet"):
        moments.normalize(fw.tensor(x))
    b1, b2 = arr(5, 3), arr(6, 3)
    moments.update(batch=fw.tensor(b1))
    moments.update(fw.tensor(b2))
    mean = 0.9 * b1.mean(0) + 0.1 * b2.mean(0)
    var = 0.9 * (b1 * b1).mean(0) + 0.1 * (b2 * b2).mean(0) - mean * mean
    assert moments.count == 2
    np.testing.assert_allclose(moments.mean.numpy(), mean, rtol=1e-12)
    np.testing.assert_allclose(moments.variance.numpy(), var, rtol=1e-10)
    y, used_mean, used_var = moments.normalize(fw.tensor(x), eps=0.0)
    np.testing.assert_allclose(y.numpy(), (x - mean) / np.sqrt(var), rtol=1e-10)
    np.testing.assert_allclose(used_var.numpy(), var, rtol=1e-10)
    np.testing.assert_allclose(used_mean.numpy(), mean, rtol=1e-12)
    with pytest.raises(RuntimeError, match=r"expected \[N, 3\], got \[5, 4\]"):
        moments.update(fw.tensor(arr(5, 4)))
    with pytest.raises(RuntimeError, match=r"momentum must be in \(0, 1\], got 0"):
        m.RunningMoments(3, momentum=0.0)

    parts = m.split_heads(fw.tensor(x[:, :2].repeat(3, axis=1)), heads=3)
    assert isinstance(parts, list) and [p.numpy().shape for p in parts] == [(4, 2)] * 3
    np.testing.assert_array_equal(parts[2].numpy(), x[:, :2].repeat(3, axis=1)[:, 4:])
    with pytest.raises(TypeError):
        m.split_heads(fw.tensor(x), 3)  # heads is keyword-only
    with pytest.raises(RuntimeError, match="3 features do not split into 2 heads"):
        m.split_heads(fw.tensor(x), heads=2)


# ---- registered operators --------------------------------------------------------------------


def _import_file(path: Path, name: str) -> Any:
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_library_muladd_and_its_python_wrappers(fw):
    build(fw, "library_muladd", "muladd.cpp", is_python_module=False)
    a, b = arr(2, 3, dtype=np.float32), arr(2, 3, dtype=np.float32)
    op = fw.ops.corpus_muladd
    np.testing.assert_allclose(op.muladd(fw.tensor(a), fw.tensor(b), 0.5).numpy(), a * b + 0.5)
    np.testing.assert_allclose(op.square_plus(fw.tensor(a), 1.0).numpy(), a * a + 1, rtol=1e-6)
    with pytest.raises(RuntimeError, match="muladd: shapes differ"):
        op.muladd(fw.tensor(a), fw.tensor(b[:1]), 0.5)
    wrappers = _import_file(fw.source_root / "library_muladd" / "muladd.py", f"muladd_{fw.name}")
    np.testing.assert_allclose(wrappers.muladd(fw.tensor(a), fw.tensor(b), 2.0).numpy(), a * b + 2)
    np.testing.assert_allclose(wrappers.square_plus(fw.tensor(b), 0.0).numpy(), b * b, rtol=1e-6)


def test_register_operators(fw):
    build(fw, "register_operators", "axpy.cpp", is_python_module=False)
    x, y = arr(5), arr(5)
    op = fw.ops.corpus_regops
    np.testing.assert_allclose(op.axpy(fw.tensor(x), fw.tensor(y), 3.0).numpy(), 3 * x + y)
    np.testing.assert_allclose(op.clamp_to(fw.tensor(x), 0.5).numpy(), np.clip(x, -0.5, 0.5))


def test_library_fragment_optional_list_dispatch(fw):
    build(fw, "library_fragment", "ops.cpp", is_python_module=False)
    op = fw.ops.corpus_frag
    x, s = arr(2, 3), arr(2, 3)
    np.testing.assert_allclose(op.scale_shift(fw.tensor(x), 2.0).numpy(), 2 * x)
    np.testing.assert_allclose(op.scale_shift(fw.tensor(x), 2.0, fw.tensor(s)).numpy(), 2 * x + s)
    np.testing.assert_allclose(
        op.sum_over(fw.tensor(x), [1], True).numpy(), x.sum(1, keepdims=True)
    )
    np.testing.assert_allclose(
        op.weighted_sum([fw.tensor(x), fw.tensor(s)], [0.5, -1.0]).numpy(), 0.5 * x - s
    )
    with pytest.raises(RuntimeError, match="2 tensors but 1 weights"):
        op.weighted_sum([fw.tensor(x), fw.tensor(s)], [0.5])


def test_library_autograd_kernel_with_saved_tensors(fw):
    build(fw, "library_autograd", "scaled_mul.cpp", is_python_module=False)
    op = fw.ops.corpus_agop.scaled_mul
    x, y, g = arr(2, 3), arr(2, 3), arr(2, 3)
    a, b = fw.tensor(x).requires_grad_(), fw.tensor(y)
    out = op(a, b, 2.0)
    assert out.requires_grad
    np.testing.assert_allclose(out.detach().numpy(), 2 * x * y)
    out.sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), 2 * y)
    assert b.grad is None

    a, b = fw.tensor(x).requires_grad_(), fw.tensor(y).requires_grad_()
    (op(a, b, -0.5) * fw.tensor(g)).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), -0.5 * g * y)
    np.testing.assert_allclose(b.grad.numpy(), -0.5 * g * x)

    a, b = fw.tensor(x).requires_grad_(), fw.tensor(y.copy())
    out = op(a, b, 1.0)
    b.mul_(2)  # b was saved for backward
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.sum().backward()
    with pytest.raises(RuntimeError, match="scaled_mul: shapes differ"):
        op(fw.tensor(x), fw.tensor(y[:1]), 1.0)


def tiny_net(x: np.ndarray, p: dict[str, np.ndarray]) -> np.ndarray:
    """nn_frontend's TinyNet forward in numpy."""
    h = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)), mode="reflect")
    h = np.maximum(conv2d(h, p["conv.weight"], p["conv.bias"], 1, 0), 0)
    h = h * p["gain"][None, :, None, None]
    n, c, hh, ww = h.shape
    h = h.reshape(n, c, hh // 2, 2, ww // 2, 2).max(axis=(3, 5))
    h = h.repeat(2, axis=2).repeat(2, axis=3)  # nearest, scale 2
    pooled = h.mean(axis=(2, 3))
    pooled = pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
    return pooled @ p["head.weight"].T + p["head.bias"]


def test_nn_frontend_module_bound_with_bind_module(fw):
    m = build(fw, "nn_frontend", "frontend.cpp")
    net = m.TinyNet(4, 3)
    params = dict(net.named_parameters())
    assert sorted(params) == ["conv.bias", "conv.weight", "gain", "head.bias", "head.weight"]
    assert params["conv.weight"].shape == (4, 1, 3, 3) and params["head.weight"].shape == (3, 4)
    assert all(p.requires_grad for p in net.parameters())
    values = {k: v.detach().numpy().astype(np.float64) for k, v in params.items()}
    x = RNG.standard_normal((2, 1, 6, 6)).astype(np.float32)
    logits = net.forward(fw.tensor(x))
    np.testing.assert_allclose(logits.detach().numpy(), tiny_net(x, values), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(net(fw.tensor(x)).detach().numpy(), logits.detach().numpy())
    assert int(dict(net.named_buffers())["calls"].numpy()[0]) == 2

    target = np.array([2, 0])
    z = tiny_net(x, values)
    logp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    nll = -logp[np.arange(2), target]
    expected = (0.9 * nll - 0.1 * logp.mean(axis=1)).mean()
    loss = net.loss(fw.tensor(x), fw.tensor(target), 0.1)
    np.testing.assert_allclose(float(loss.detach().numpy()), expected, rtol=1e-4)

    # the parameters are the module's own leaves: a gradient reaches them, zero_grad clears it
    (params["gain"] * 3).sum().backward()
    np.testing.assert_allclose(params["gain"].grad.numpy(), np.full(4, 3.0))
    net.zero_grad()
    grad = params["gain"].grad
    assert grad is None or not grad.numpy().any()
    net.eval()
    assert not net.training
    net.train()
    assert net.training
    with pytest.raises(RuntimeError, match=r"TinyNet: expected \(N, 1, H, W\)"):
        net.forward(fw.tensor(x[:, 0]))


# ---- C++ in a Python string (load_inline) ---------------------------------------------------


def test_load_inline_source_ported_with_cxx_in_strings(tmp_path, build_cache):  # noqa: F811
    out = tmp_path / "inline"
    report = _port.port_paths([CORPUS / "inline_source"], out, cxx_in_strings=True)
    assert report.missing == [] and report.rewrites["string"] == 1
    text = (out / "inline_ext.py").read_text()
    assert "#include <sdk/extension.h>" in text and "sdk::Tensor scaled_add(" in text
    assert "import sdk\nfrom cpp_extension import load_inline" in text
    assert _port.port_paths([out], tmp_path / "again", cxx_in_strings=True).changed == []
    ext = _import_file(out / "inline_ext.py", "inline_ext_ported")
    m = ext.build("corpus_inline_sdk")
    a, b = arr(3, 2), arr(3, 2)
    np.testing.assert_allclose(ext.scaled_add(m, a, b, 0.5).numpy(), a + 0.5 * b)
    with pytest.raises(RuntimeError, match=r"shapes differ: \[3, 2\] vs \[2\]"):
        ext.scaled_add(m, a, b[0])


# ---- a setup.py project ----------------------------------------------------------------------


def test_setup_py_project(fw, tmp_path, tmp_path_factory):
    build = [sys.executable, "setup.py", "build_ext", "--inplace"]
    if fw.name == "sdk":
        project = tmp_path / "rowops"
        shutil.copytree(fw.source_root / "setup_project", project)
    else:  # torch's ninja build of the originals, kept: a later run only links it again
        kept = kept_folder(tmp_path_factory, "corpus-torch-setup", *torch_key())
        project = kept / "rowops"
        sync_tree(fw.source_root / "setup_project", project)
        build += ["--build-temp", str(kept / "temp")]
    env = subprocess_env(SDK_EXTENSIONS_DIR=str(tmp_path / "cache"), MAX_JOBS="2")
    proc = subprocess.run(build, cwd=project, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    to_framework = "import torch\nx = torch.from_numpy(x)\n" if fw.name == "torch" else ""
    code = (
        "import json, numpy as np, rowops\n"
        "x = np.array([[3.0, 4.0], [1.0, 0.0]])\n"
        + to_framework
        + "print(json.dumps([rowops.normalize_rows(x).numpy().tolist(),\n"
        "                  rowops.center_rows(x).numpy().tolist()]))\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", code], cwd=project, env=env, capture_output=True, text=True
    )
    assert run.returncode == 0, run.stderr
    normalized, centered = json.loads(run.stdout)
    np.testing.assert_allclose(normalized, [[0.6, 0.8], [1.0, 0.0]], rtol=1e-9)
    np.testing.assert_allclose(centered, [[-0.5, 0.5], [0.5, -0.5]])


# ---- CUDA: compiled here, run where a GPU is ------------------------------------------------


def test_cuda_kernel_compiles_and_refuses_cpu_tensors(fw, monkeypatch):
    from tests.cuda.conftest import TEST_ARCH, gpu_available, require_nvcc

    require_nvcc()
    if fw.name == "torch":
        from torch.utils import cpp_extension as torch_ext

        if torch_ext.CUDA_HOME is None:  # read once, when torch's module is imported
            pytest.skip("torch's cpp_extension found no CUDA toolkit (CUDA_HOME, nvcc on PATH)")
    monkeypatch.setenv("SDK_CUDA_ARCH_LIST", TEST_ARCH)
    monkeypatch.setenv("TORCH_CUDA_ARCH_LIST", TEST_ARCH)
    m = build(fw, "cuda_scale", "scale_kernel.cu")
    with pytest.raises(RuntimeError, match="expected a CUDA tensor"):
        m.scale_cuda(fw.tensor(arr(4)), 2.0)
    if not gpu_available():
        with pytest.raises(RuntimeError, match="not available"):
            m.warp_size()
        return
    assert m.warp_size() == 32
    for dtype in (np.float16, np.float32, np.float64):
        x = arr(1000, dtype=dtype)
        y = m.scale_cuda(fw.tensor(x).cuda(), 1.5).cpu().numpy()
        np.testing.assert_allclose(y, x * dtype(1.5), rtol=1e-3 if dtype == np.float16 else 1e-6)
