"""Execute examples/lltm/lltm.ipynb top to bottom with nbclient (skipped without jupyter)."""

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


def test_notebook_runs_and_checks_against_numpy(monkeypatch):
    monkeypatch.setenv("PYTHONPATH", subprocess_env()["PYTHONPATH"])
    path = EXAMPLES / "lltm" / "lltm.ipynb"
    nb = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(
        nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}
    )
    client.execute()
    text = "".join(
        out.get("text", "")
        for cell in nb.cells
        if cell.cell_type == "code"
        for out in cell.get("outputs", [])
    )
    assert "forward and backward match numpy" in text, text
    assert "forward:" in text and "backward:" in text, text
