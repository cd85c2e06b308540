"""examples/dask: the LLTM forward on a LocalCluster of worker processes matches one process."""

from __future__ import annotations

import pytest

from tests.examples.examples_util import EXAMPLES, run_script

pytestmark = pytest.mark.slow


def test_lltm_on_a_local_cluster_matches_one_process(tmp_path):
    pytest.importorskip("distributed")
    out = run_script(
        EXAMPLES / "dask",
        "lltm_dask.py", "--batch", "512", "--chunks", "4", "--workers", "2",
        SDK_EXTENSIONS_DIR=str(tmp_path / "ext"),
    ).stdout  # fmt: skip
    assert "batch 512 in 4 chunks on 2 workers: matches one process" in out, out
