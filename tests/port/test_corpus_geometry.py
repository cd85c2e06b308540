"""The porting corpus of a point-cloud extension's idioms (corpus_geometry/): a project header
named like the C library's (`include/math.h`), a CPU build's own `typedef void* cudaStream_t`
and float3 after torch/extension.h, and a kernel that writes into a caller's tensor and calls
torch::autograd::increment_version; and a stable-ABI kernel (smooth/) built on torch's
header-only accessors, THO_DISPATCH_V2 and torch::stable::parallel_for. Ported with the porter,
probed, built, and checked against numpy; the originals are built with torch too when it is
installed."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from cpp_extension.port import probe as _port_probe
from tests.port.corpus_kit import Framework, build_cache, build_case, corpus_fixtures  # noqa: F401

CORPUS = Path(__file__).resolve().parent / "corpus_geometry"


ported, fw = corpus_fixtures(CORPUS, "geometry")


@pytest.fixture(scope="module")
def splat(fw: Framework):
    return build_case(
        fw, "geometry", "splat", "ext.cpp", "splat_cpu.cpp",
        extra_include_paths=[str(fw.source_root / "splat")],
    )  # fmt: skip


def test_the_porter_and_its_compile_probe_find_every_name(ported):
    out, report = ported
    assert [(m.path, m.line, m.name) for m in report.missing] == []
    text = (out / "splat" / "splat_cpu.cpp").read_text()
    assert "sdk::autograd::increment_version(volume)" in text
    text = (out / "smooth" / "smooth.cpp").read_text()
    assert "sdk::headeronly::HeaderOnlyTensorAccessor" in text and "SDK_DISPATCH_V2(" in text
    # the probe sees the project's include/ folder, yet <math.h> stays the C library's
    found = _port_probe.probe(report.cxx, report.line_maps)
    assert [(m.path, m.line, m.name) for m in found.missing] == []


def test_nearest_points_through_the_shared_host_device_helpers(fw, splat):
    rng = np.random.default_rng(3)
    points = rng.random((40, 3), dtype=np.float32)
    queries = rng.random((15, 3), dtype=np.float32)
    dists, idx = splat.nearest(fw.tensor(points), fw.tensor(queries))
    d2 = ((queries[:, None, :] - points[None, :, :]) ** 2).sum(-1)
    np.testing.assert_array_equal(idx.numpy(), d2.argmin(1))
    np.testing.assert_allclose(dists.numpy(), d2.min(1), rtol=1e-5, atol=1e-7)


def test_a_splat_into_the_caller_s_volume_bumps_its_version(fw, splat):
    rng = np.random.default_rng(4)
    points = rng.uniform(-0.2, 1.2, (200, 3)).astype(np.float32)
    values = rng.random(200, dtype=np.float32)
    volume = fw.tensor(np.zeros((4, 5, 6), np.float32))
    before = volume._version
    splat.splat(fw.tensor(points), fw.tensor(values), volume)
    assert volume._version == before + 1
    expected = np.zeros((4, 5, 6), np.float32)
    cells = np.floor(points * np.array([6, 5, 4], np.float32)).astype(np.int64)
    inside = ((cells >= 0) & (cells < [6, 5, 4])).all(1)
    np.add.at(expected, (cells[inside, 2], cells[inside, 1], cells[inside, 0]), values[inside])
    np.testing.assert_allclose(volume.numpy(), expected, rtol=1e-5, atol=1e-6)


def test_a_stable_abi_kernel_on_header_only_accessors(fw):
    build_case(fw, "geometry", "smooth", "smooth.cpp", is_python_module=False)
    rng = np.random.default_rng(5)
    for dtype in (np.float32, np.float64):
        x = rng.standard_normal((3, 50)).astype(dtype)
        out = fw.tensor(np.zeros_like(x))
        got = fw.ops.geometry_smooth.smooth(fw.tensor(x), 0.8, out)
        expected = np.zeros_like(x, dtype=np.float64)
        state = np.zeros(3)
        for t in range(x.shape[1]):
            state = 0.8 * state + 0.2 * x[:, t]
            expected[:, t] = state
        np.testing.assert_allclose(out.numpy(), expected, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(got.numpy(), expected, rtol=1e-5, atol=1e-6)
    with pytest.raises(RuntimeError, match="out must have x's shape"):
        fw.ops.geometry_smooth.smooth(fw.tensor(x), 0.8, fw.tensor(np.zeros((3, 4))))
