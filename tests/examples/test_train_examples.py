"""examples/train: the conv classifier and the sequence model train to their stated accuracy
(reduced: fewer samples and epochs, a lower bar), with the custom C++ op inside, DataLoader
worker processes in one of them, and the history written."""

from __future__ import annotations

import re

import pytest

from tests.examples.examples_util import EXAMPLES, run_script

pytestmark = pytest.mark.slow

TRAIN = EXAMPLES / "train"


def _final_accuracy(stdout: str) -> float:
    m = re.search(r"final validation accuracy ([0-9.]+)", stdout)
    assert m, stdout
    return float(m.group(1))


def test_conv_classifier_learns(tmp_path):
    out = run_script(TRAIN, "conv_classifier.py", "--quiet", "--train", "1200", "--epochs", "3",
                     "--workers", "2", "--target", "0.8", "--out", str(tmp_path / "conv")).stdout  # fmt: skip
    assert _final_accuracy(out) >= 0.8
    assert any(tmp_path.glob("conv.*")), "no history written"


def test_sequence_model_learns(tmp_path):
    out = run_script(TRAIN, "sequence_model.py", "--quiet", "--train", "1000", "--epochs", "2",
                     "--target", "0.85", "--out", str(tmp_path / "seq")).stdout  # fmt: skip
    assert _final_accuracy(out) >= 0.85
    assert "epoch 2:" in out
