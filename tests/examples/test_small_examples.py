"""The small examples: load_inline from a script, and a pure-C op over the ctypes bridge."""

from __future__ import annotations

import pytest

from tests.examples.examples_util import EXAMPLES, run_script

pytestmark = pytest.mark.slow


def test_inline_example_matches_numpy():
    out = run_script(EXAMPLES / "inline", "inline_example.py").stdout
    assert "matches numpy" in out, out


def test_relu_ctypes_matches_numpy_and_refuses_ints():
    out = run_script(EXAMPLES / "relu_ctypes", "run.py").stdout
    assert "int64 input refused as expected" in out, out
    assert "relu and relu_backward match numpy" in out, out
