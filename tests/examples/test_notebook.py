"""Execute the example notebooks top to bottom with nbclient (skipped without jupyter)."""

from __future__ import annotations

import pytest

from tests._support import subprocess_env
from tests.examples.examples_util import EXAMPLES

nbformat = pytest.importorskip(
    "nbformat", reason="nbformat is not installed (pip install .[notebook])"
)
nbclient = pytest.importorskip(
    "nbclient", reason="nbclient is not installed (pip install .[notebook])"
)
pytest.importorskip("ipykernel", reason="ipykernel is not installed (pip install .[notebook])")

pytestmark = pytest.mark.slow


def _execute(path, monkeypatch):
    """Run the notebook at `path` in a fresh kernel; returns it, with its outputs."""
    monkeypatch.setenv("PYTHONPATH", subprocess_env()["PYTHONPATH"])
    nb = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(
        nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}
    )
    client.execute()
    return nb


def _stream_text(nb, name: str | None = None) -> str:
    """The text the code cells printed (to stream `name` only, when given)."""
    return "".join(
        out.get("text", "")
        for cell in nb.cells
        if cell.cell_type == "code"
        for out in cell.get("outputs", [])
        if name is None or out.get("name") == name
    )


def test_notebook_runs_and_checks_against_numpy(monkeypatch):
    text = _stream_text(_execute(EXAMPLES / "lltm" / "lltm.ipynb", monkeypatch))
    assert "forward and backward match numpy" in text, text
    assert "forward:" in text and "backward:" in text, text


def test_cell_magic_notebook_builds_and_checks_against_numpy(monkeypatch, tmp_path):
    path = EXAMPLES / "inline" / "cell_magic.ipynb"
    committed = nbformat.read(path, as_version=4)
    assert all(not c.get("outputs") for c in committed.cells if c.cell_type == "code")
    monkeypatch.setenv("SDK_EXTENSIONS_DIR", str(tmp_path / "ext_cache"))  # a real build
    nb = _execute(path, monkeypatch)
    text = _stream_text(nb)
    assert "softplus and its gradient match numpy" in text, text
    assert "beta must be positive" in text, text
    # the build's progress shows in the magic's cell, on its stderr stream
    magic = next(c for c in nb.cells if c.source.startswith("%%cpp_extension"))
    shown = "".join(o.get("text", "") for o in magic.outputs if o.get("name") == "stderr")
    assert "Building softplus_ext: [" in shown and "Built softplus_ext in" in shown, shown
