"""The LLTM benchmark's table says why its 'vs torch' column is empty."""

from __future__ import annotations

import importlib.util
import io
import sys

import pytest

from tests._support import REPO

ROW = {"variant": "cpp", "B": 8, "F": 32, "S": 64}
ROW["forward_us"] = ROW["backward_us"] = {"min": 1.0, "median": 2.0, "mean": 2.5}


@pytest.fixture
def bench(monkeypatch):
    monkeypatch.syspath_prepend(str(REPO / "examples" / "lltm"))
    spec = importlib.util.spec_from_file_location(
        "lltm_benchmark", REPO / "examples/lltm/benchmark.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    yield module
    sys.modules.pop("lltm_benchmark", None)


@pytest.mark.parametrize(
    "has_torch, why",
    [(False, "torch is not installed"), (True, "the torch variant was not asked for")],
)
def test_empty_torch_column_is_explained(bench, monkeypatch, has_torch, why):
    monkeypatch.setattr(bench, "torch_available", lambda: has_torch)
    out = io.StringIO()
    bench.print_table([ROW], out)
    assert f"the 'vs torch' column is empty: {why}" in out.getvalue().splitlines()[-1]


def test_no_note_when_torch_ran(bench):
    out = io.StringIO()
    bench.print_table([ROW, {**ROW, "variant": "torch"}], out)
    assert "column is empty" not in out.getvalue()
