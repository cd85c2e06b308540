"""The porting corpus of idioms met in published extensions (corpus_idioms/): a per-device
kernel registry filled by a token-pasting macro (`at::k##device`), DeviceTypeName by
argument-dependent lookup, at::globalContext(), torch::multinomial, torch::tensor({1, 0}) and
std::unique_ptr with no <memory>. Then: an older-style module (legacy_module/) whose ops
header includes only torch/torch.h (pybind11 comes with it in an extension build), which makes
its masks through the deprecated Tensor::type() and at::CPU(dtype) and includes
ATen/NativeFunctions.h; a neighbour list registered by schema string (pair_list/) with torch::frobenius_norm; and an
autograd Function op library whose one include is torch/script.h (script_autograd/). Each
case is ported with `python -m cpp_extension port` (which must find every name), built, and
checked against numpy; the originals are built with torch too when it is installed."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import sdk
from tests.port.corpus_kit import Framework, build_cache, build_case, corpus_fixtures  # noqa: F401

CORPUS = Path(__file__).resolve().parent / "corpus_idioms"


ported, fw = corpus_fixtures(CORPUS, "idioms")


@pytest.fixture(scope="module")
def registry(fw):
    src = fw.source_root / "device_registry" / "registry.cpp"
    return fw.load(f"idioms_registry_{fw.name}", [str(src)])


def test_the_porter_finds_every_name(ported):
    out, report = ported
    assert [(m.path, m.line, m.name) for m in report.missing] == []
    text = (out / "device_registry" / "registry.cpp").read_text()
    assert "sdk::k##device" in text and "at::" not in text


def test_a_kernel_registered_through_a_pasted_device_name_runs(fw, registry):
    x = np.arange(6.0).reshape(2, 3)
    np.testing.assert_allclose(registry.scale(fw.tensor(x), 2.5).numpy(), x * 2.5)
    assert registry.device_name(fw.tensor(x)) == "cpu"


def test_the_global_context(fw, registry):
    assert registry.deterministic() is False
    cuda = sdk.cuda.is_available() if fw.name == "sdk" else __import__("torch").cuda.is_available()
    assert registry.has_cuda() is cuda


def test_rows_swapped_with_an_index_list(fw, registry):
    edges = np.array([[0, 1, 2], [3, 4, 5]])
    np.testing.assert_array_equal(registry.swap_rows(fw.tensor(edges)).numpy(), edges[::-1])


def test_multinomial_draws_only_weighted_categories(fw, registry):
    w = np.array([[0.0, 3.0, 0.0, 1.0, 2.0], [1.0, 0.0, 0.0, 0.0, 0.0]])
    drawn = registry.sample(fw.tensor(w), 200, True).numpy()
    assert drawn.shape == (2, 200) and drawn.dtype == np.int64
    assert set(drawn[0]) == {1, 3, 4} and set(drawn[1]) == {0}
    # 1-D weights, without replacement: distinct weighted categories, all of them
    one = registry.sample(fw.tensor(w[0]), 3, False).numpy()
    assert one.shape == (3,) and sorted(one) == [1, 3, 4]
    # too few weighted categories: the zero-weight ones come after them, as in torch
    assert list(registry.sample(fw.tensor(np.array([0.0, 1.0])), 2, False).numpy()) == [1, 0]


def test_multinomial_frequencies_follow_the_weights(fw, registry):
    w = np.array([1.0, 2.0, 7.0])
    counts = np.bincount(registry.sample(fw.tensor(w), 20000, True).numpy(), minlength=3)
    # 6 standard deviations of a binomial count: fails only for a wrong distribution
    sd = np.sqrt(20000 * (w / w.sum()) * (1 - w / w.sum()))
    assert np.all(np.abs(counts - 20000 * w / w.sum()) < 6 * sd), counts


@pytest.mark.parametrize(
    ("weights", "n", "replacement", "message"),
    [
        ([[[1.0]]], 1, True, "prob_dist must be 1 or 2 dim"),
        ([1.0, -1.0], 1, True, "element < 0"),
        ([1.0, np.nan], 1, True, "element < 0"),
        ([0.0, 0.0], 1, True, "sum of probabilities <= 0"),
        ([1.0, 2.0], 3, False, "cannot sample n_sample > prob_dist.size"),
        ([1.0, 2.0], 0, True, "cannot sample n_sample <= 0 samples"),
        (np.zeros((2, 0)), 1, True, "empty|cannot sample"),
    ],
)
def test_multinomial_refuses_bad_weights(fw, registry, weights, n, replacement, message):
    with pytest.raises((RuntimeError, ValueError), match=message):
        registry.sample(fw.tensor(np.array(weights)), n, replacement)


@pytest.fixture(scope="module")
def legacy(fw):
    return build_case(fw, "idioms", "legacy_module", "ops.cpp", "module.cpp")


def test_torch_h_ports_to_the_header_that_brings_the_module_macros(ported):
    out, _ = ported
    header = (out / "legacy_module" / "ops.h").read_text()
    assert "#include <sdk/all_extension.h>" in header
    assert "#include <sdk/tensor.h>" in (out / "legacy_module" / "ops.cpp").read_text()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_a_mask_made_through_the_deprecated_type(fw, legacy, dtype):
    s = np.array([[0.1, 0.9, 0.5], [0.7, 0.2, 0.3]], dtype=dtype)
    mask, order = (t.numpy() for t in legacy.threshold_mask(fw.tensor(s), 0.4))
    assert mask.dtype == np.uint8
    np.testing.assert_array_equal(mask, (s > 0.4).astype(np.uint8))
    np.testing.assert_array_equal(order, np.argsort(-s, axis=1, kind="stable"))
    assert legacy.mask_type_is_byte(fw.tensor(s)) is True


def test_a_cast_to_another_tensors_type_and_dtype(fw, legacy):
    x = np.array([1.5, -2.25, 3.0])
    for a in legacy.as_type_of(fw.tensor(x), fw.tensor(np.zeros(2, np.float32))):
        assert a.numpy().dtype == np.float32
        np.testing.assert_array_equal(a.numpy(), x.astype(np.float32))


def test_a_mask_made_with_the_deprecated_cpu_type_as_options(fw, legacy):
    x = np.array([[-3.0, 0.5, 2.0], [7.5, -0.25, 1.0]], np.float32)
    out, mask, count = (t.numpy() for t in legacy.clamp_with_mask(fw.tensor(x), -1.0, 1.5))
    np.testing.assert_array_equal(out, np.clip(x, -1.0, 1.5))
    assert mask.dtype == np.uint8 and count.dtype == np.int64
    np.testing.assert_array_equal(mask, ((x < -1.0) | (x > 1.5)).astype(np.uint8))
    assert count.tolist() == [3]


@pytest.mark.parametrize(("dtype", "is_float"), [(np.float32, True), (np.float64, False)])
def test_the_deprecated_types_of_a_dtype_on_each_device(fw, legacy, dtype, is_float):
    got = legacy.deprecated_types_by_device(fw.tensor(np.zeros(2, dtype)))
    assert got == [is_float, not is_float, True, False, True]


def test_the_deprecated_type_check_refuses_other_dtypes(fw, legacy):
    with pytest.raises(RuntimeError, match="scores must be float32 or float64"):
        legacy.threshold_mask(fw.tensor(np.ones((2, 2), dtype=np.int32)), 0.4)


@pytest.fixture(scope="module")
def pair_list(fw):
    build_case(fw, "idioms", "pair_list", "pairs.cpp", is_python_module=False)
    return fw.ops.pair_list


def test_pairs_within_a_cutoff(fw, pair_list):
    pos = np.random.default_rng(3).uniform(0, 4, (7, 3))
    neighbors, deltas, distances = (t.numpy() for t in pair_list.pairs_within(fw.tensor(pos), 2.5))
    rows, cols = np.tril_indices(7, -1)
    order = np.lexsort((cols, rows))  # row-major over the lower triangle
    rows, cols = rows[order], cols[order]
    d = pos[rows] - pos[cols]
    dist = np.sqrt((d * d).sum(1))
    far = dist > 2.5
    assert far.any() and (~far).any()
    np.testing.assert_array_equal(neighbors, np.where(far, -1, np.stack([rows, cols])))
    np.testing.assert_allclose(distances, np.where(far, np.nan, dist), rtol=1e-12)
    np.testing.assert_allclose(deltas, np.where(far[:, None], np.nan, d), rtol=1e-12)


def test_frobenius_norm_over_two_dims_and_its_limit(fw, pair_list):
    x = np.random.default_rng(4).standard_normal((3, 4))
    got = pair_list.whole_norm(fw.tensor(x), 2).numpy()
    np.testing.assert_allclose(got, [[np.sqrt((x * x).sum())]], rtol=1e-12)
    with pytest.raises((RuntimeError, ValueError), match="at most 2 dim"):
        pair_list.whole_norm(fw.tensor(np.ones((2, 2, 2))), 3)


@pytest.mark.parametrize("op", ["affine", "affine_impl"])
def test_an_autograd_function_under_torch_script_h(fw, op):
    build_case(fw, "idioms", "script_autograd", "affine.cpp", is_python_module=False)
    rng = np.random.default_rng(5)
    x, w, b = (
        rng.standard_normal((2, 3, 1)),
        rng.standard_normal((2, 4, 3)),
        rng.standard_normal((2, 4, 1)),
    )
    g = rng.standard_normal((2, 4, 1))
    tx, tw, tb = (fw.tensor(a.copy()).requires_grad_() for a in (x, w, b))
    y = getattr(fw.ops.script_affine, op)(tx, tw, tb)
    np.testing.assert_allclose(y.detach().numpy(), w @ x + b, rtol=1e-12)
    (y * fw.tensor(g)).sum().backward()
    np.testing.assert_allclose(tx.grad.numpy(), np.swapaxes(w, -1, -2) @ g, rtol=1e-12)
    np.testing.assert_allclose(tw.grad.numpy(), g @ np.swapaxes(x, -1, -2), rtol=1e-12)
    np.testing.assert_allclose(tb.grad.numpy(), g, rtol=1e-12)
