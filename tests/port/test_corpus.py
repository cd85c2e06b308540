"""The porting corpus (corpus/): torch-style extensions of our own, ported with
`python -m cpp_extension port`, built with load() or setup.py, and checked against numpy; the
originals also built with torch's cpp_extension and checked the same way when torch is
installed (skipped otherwise). The porter's report must list exactly the names the SDK lacks."""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import sys
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import cpp_extension
import sdk
from cpp_extension import _port, _port_names
from tests._support import subprocess_env

CORPUS = Path(__file__).resolve().parent / "corpus"
RNG = np.random.default_rng(7)


@dataclass
class Framework:
    """What a check needs from the framework it runs on."""

    name: str
    tensor: Callable[[np.ndarray], Any]
    ops: Any
    load: Callable[..., Any]
    source_root: Path


@pytest.fixture(scope="module")
def ported(tmp_path_factory):
    out = tmp_path_factory.mktemp("ported")
    report = _port.port_paths([CORPUS], out)
    return out, report


@pytest.fixture(scope="module")
def build_cache(tmp_path_factory):
    mp = pytest.MonkeyPatch()
    mp.setenv("SDK_EXTENSIONS_DIR", str(tmp_path_factory.mktemp("cache")))
    mp.setenv("TORCH_EXTENSIONS_DIR", str(tmp_path_factory.mktemp("torch_cache")))
    mp.setenv("MAX_JOBS", "2")
    yield
    mp.undo()


@pytest.fixture(scope="module", params=["sdk", "torch"])
def fw(request, ported, build_cache) -> Framework:
    if request.param == "sdk":
        return Framework("sdk", sdk.from_numpy, sdk.ops, cpp_extension.load, ported[0])
    torch = pytest.importorskip("torch", reason="torch is not installed: no build of the original")
    from torch.utils import cpp_extension as torch_ext

    return Framework("torch", torch.from_numpy, torch.ops, torch_ext.load, CORPUS)


def build(fw: Framework, case: str, *files: str, **kwargs: Any) -> Any:
    sources = [str(fw.source_root / case / f) for f in files]
    return fw.load(f"corpus_{case}_{fw.name}", sources, **kwargs)


def arr(*shape: int, dtype=np.float64) -> np.ndarray:
    return RNG.standard_normal(shape).astype(dtype)


# ---- the report ------------------------------------------------------------------------------


def test_report_lists_what_the_sdk_lacks_and_nothing_else(ported):
    _, report = ported
    lacks = _port_names.sdk_headers().names
    expected = {
        ("missing_ops/missing.cpp", 2, "ATen/native/TensorIterator.h"),
        ("missing_ops/missing.cpp", 15, "sdk::_cudnn_internal_thing"),
        ("missing_ops/missing.cpp", 18, "sdk::jit"),
        ("setup_project/setup.py", 18, "torch"),
        # C++ in a string: ported with --cxx-in-strings only
        ("inline_source/inline_ext.py", 6, "#include <torch/extension.h>"),
    }
    for name, line, shown in (
        ("cumsum", 7, "sdk::cumsum"),
        ("topk", 10, ".topk()"),
        ("sort", 13, ".sort()"),
    ):
        if name not in lacks:
            expected.add(("missing_ops/missing.cpp", line, shown))
    assert {(m.path, m.line, m.name) for m in report.missing} == expected
    assert len(report.changed) == len(report.files) == 19


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
    assert [str(w.message).split(" (")[0] for w in caught].count(
        "describe is slow for large tensors"
    ) == 1
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


# ---- C++ in a Python string (load_inline) ---------------------------------------------------


def test_load_inline_source_ported_with_cxx_in_strings(tmp_path, build_cache):
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


def test_setup_py_project(fw, tmp_path):
    project = tmp_path / "rowops"
    shutil.copytree(fw.source_root / "setup_project", project)
    env = subprocess_env(SDK_EXTENSIONS_DIR=str(tmp_path / "cache"), MAX_JOBS="2")
    proc = subprocess.run(
        [sys.executable, "setup.py", "build_ext", "--inplace"],
        cwd=project, env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    code = (
        "import json, numpy as np, rowops\n"
        "x = np.array([[3.0, 4.0], [1.0, 0.0]])\n"
        "print(json.dumps([rowops.normalize_rows(x).numpy().tolist(),\n"
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
