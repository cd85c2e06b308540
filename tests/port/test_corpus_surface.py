"""The porting corpus of the C++ surface beyond the ops (corpus_surface/): torch-style
extensions using argument checks, out= variants, device guards, flattened buffers, c10::List
kernels registered with tags, and IValues in an autograd context. Each is ported with
`python -m cpp_extension port` (which must find every name), built, and checked against numpy;
the originals are built with torch too when it is installed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.port.corpus_kit import Framework, build_cache, build_case, corpus_fixtures  # noqa: F401

CORPUS = Path(__file__).resolve().parent / "corpus_surface"
RNG = np.random.default_rng(11)


ported, fw = corpus_fixtures(CORPUS, "surface")


def build(fw: Framework, case: str, *files: str, **kwargs: Any) -> Any:
    return build_case(fw, "surface", case, *files, **kwargs)


def arr(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape)


def test_the_porter_finds_every_name(ported):
    _, report = ported
    assert [(m.path, m.line, m.name) for m in report.missing] == []
    assert len(report.changed) == len(report.files) == 3


def test_checked_linear_out_variants_and_flat_buffers(fw):
    m = build(fw, "checked_ops", "checked_ops.cpp")
    x, w, b = arr(4, 3), arr(3, 2), arr(2)
    np.testing.assert_allclose(
        m.checked_linear(fw.tensor(x), fw.tensor(w), fw.tensor(b)).numpy(), x @ w + b
    )
    with pytest.raises(RuntimeError, match=r"Expected 2-dimensional tensor, but got 1-dimensional "
                       r"tensor for argument #1 'x' \(while checking arguments for checked_linear\)"):  # fmt: skip
        m.checked_linear(fw.tensor(b), fw.tensor(w), fw.tensor(b))
    with pytest.raises(RuntimeError, match=r"Expected tensor of size \[2\], but got tensor of size "
                       r"\[3\] for argument #3 'b'"):  # fmt: skip
        m.checked_linear(fw.tensor(x), fw.tensor(w), fw.tensor(arr(3)))
    with pytest.raises(
        (TypeError, RuntimeError),
        match="argument #1 'x' to have the same type as tensor for argument #2 'w'",
    ):
        m.checked_linear(fw.tensor(x), fw.tensor(w.astype(np.float32)), fw.tensor(b))
    with pytest.raises(RuntimeError, match="non-contiguous tensor for argument #2 'w'"):
        m.checked_linear(fw.tensor(x), fw.tensor(np.ascontiguousarray(w.T)).t(), fw.tensor(b))

    s = arr(3, 5)
    values, indices, best, where = m.row_topk(fw.tensor(s), 2)
    order = np.argsort(-s, axis=1)[:, :2]
    np.testing.assert_array_equal(indices.numpy(), order)
    np.testing.assert_allclose(values.numpy(), np.take_along_axis(s, order, 1))
    np.testing.assert_allclose(best.numpy(), s.max(1))
    np.testing.assert_array_equal(where.numpy(), s.argmax(1))

    a, c = arr(2, 3), arr(4)
    scaled = m.scale_flat([fw.tensor(a), fw.tensor(c)], 0.5)
    assert [t.numpy().shape for t in scaled] == [(2, 3), (4,)]
    np.testing.assert_allclose(scaled[0].numpy(), a * 0.5)
    np.testing.assert_allclose(scaled[1].numpy(), c * 0.5)
    assert m.calls("checked_linear") == 5 and m.calls("row_topk") == 1 and m.calls("x") == 0


def test_list_kernels_registered_with_tags(fw):
    build(fw, "list_registry", "list_ops.cpp", is_python_module=False)
    op = fw.ops.corpus_lists
    x, y = arr(2, 3), arr(2, 3)
    np.testing.assert_allclose(
        op.masked_weighted_sum([fw.tensor(x), None, fw.tensor(y)], [2.0, 5.0, -1.0]).numpy(),
        2 * x - y,
    )
    with pytest.raises(RuntimeError, match="2 tensors but 1 weights"):
        op.masked_weighted_sum([fw.tensor(x), fw.tensor(y)], [1.0])
    # (torch's dispatcher refuses a CPU-only op without tensor arguments before the kernel runs)
    with pytest.raises(RuntimeError, match="every tensor is None|There were no tensor arguments"):
        op.masked_weighted_sum([None], [1.0])
    assert list(op.sizes_along([fw.tensor(x), fw.tensor(arr(5, 1))], 0)) == [2, 5]


def test_autograd_function_with_saved_ivalues(fw):
    m = build(fw, "autograd_ivalue", "ivalue_fn.cpp")
    x = arr(3, 4)
    for dims, keepdim, shift in (([1], False, None), ([0, 1], True, 0.5), ([-1], False, 1.0)):
        t = fw.tensor(x.copy()).requires_grad_()
        y = m.sum_power(t, dims, 3, scale=2.0, shift=shift, keepdim=keepdim)
        expected = 2.0 * (x**3).sum(axis=tuple(dims), keepdims=keepdim) + (shift or 0.0)
        np.testing.assert_allclose(y.detach().numpy(), expected)
        y.sum().backward()
        np.testing.assert_allclose(t.grad.numpy(), 6.0 * x**2)
    plain, tracked = fw.tensor(x), fw.tensor(x).requires_grad_()
    assert m.any_requires_grad([plain, tracked]) and not m.any_requires_grad([plain])
