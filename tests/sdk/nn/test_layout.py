"""The nn layout by kind: every kind file's names reach sdk.nn, sdk.nn.modules and
sdk.nn.functional; files stay under 800 lines; constructors take torch's arguments in
torch's order (checked against torch's signatures when torch is installed)."""

from __future__ import annotations

import importlib
import inspect
import pathlib

import pytest

import sdk
import sdk.nn.functional as F
import sdk.nn.modules
from sdk import nn

NN = pathlib.Path(nn.__file__).parent
KINDS = ["activation", "container", "conv", "distance", "dropout", "flatten", "fold", "linear",
         "loss", "normalization", "padding", "pixelshuffle", "pooling", "rnn", "sparse",
         "transformer", "upsampling"]  # fmt: skip
F_KINDS = ["activation", "attention", "conv", "dropout", "fold", "loss", "normalization",
           "padding", "pixelshuffle", "pooling", "sampling", "sparse"]  # fmt: skip


@pytest.mark.parametrize("kind", KINDS)
def test_each_kind_is_exported_by_nn_and_nn_modules(kind):
    mod = importlib.import_module(f"sdk.nn.{kind}")
    assert mod.__all__
    for name in mod.__all__:
        assert getattr(nn, name) is getattr(mod, name) is getattr(sdk.nn.modules, name)
        assert name in nn.__all__ and name in sdk.nn.modules.__all__


@pytest.mark.parametrize("kind", F_KINDS)
def test_each_functional_kind_is_exported_by_functional(kind):
    mod = importlib.import_module(f"sdk.nn._functional.{kind}")
    for name in mod.__all__:
        assert getattr(F, name) is getattr(mod, name)
        assert name in F.__all__


def test_every_kind_file_is_listed_here():
    files = {p.stem for p in NN.glob("*.py")} - {"__init__", "_hooks", "functional", "init",
                                                  "module", "modules", "parameter", "utils"}  # fmt: skip
    assert files == set(KINDS)
    # common and the private helpers (_pool_passes: pooling's passes) are not kinds
    helpers = {p.stem for p in (NN / "_functional").glob("_*.py")} | {"common"}
    assert {p.stem for p in (NN / "_functional").glob("*.py")} - helpers == set(F_KINDS)


def test_files_stay_under_800_lines():
    for p in NN.rglob("*.py"):
        assert len(p.read_text().splitlines()) <= 800, p


def test_losses_take_torchs_positional_arguments():
    w = sdk.ones(3)
    m = nn.NLLLoss(w, None, 1)
    assert m.ignore_index == 1 and m.weight is w and m.reduction == "mean"
    assert nn.CrossEntropyLoss(None, False).reduction == "sum"
    assert nn.MSELoss(None, False).reduction == "none"
    assert nn.MSELoss(reduction="sum").reduction == "sum"
    with pytest.raises(ValueError, match="MSELoss: 'avg' is not a valid value for reduction"):
        nn.MSELoss(reduction="avg")


NEW = ["ConvTranspose1d", "ConvTranspose2d", "Conv3d", "Upsample", "PReLU", "RNNCell",
       "LSTMCell", "GRUCell", "TransformerEncoderLayer", "TransformerDecoderLayer",
       "TransformerEncoder", "TransformerDecoder", "Transformer", "MSELoss", "NLLLoss",
       "CrossEntropyLoss", "Conv1d", "Conv2d", "Linear", "LayerNorm", "MultiheadAttention",
       "SELU", "CELU", "Hardswish", "Hardsigmoid", "GLU",
       "Threshold", "RReLU", "PixelShuffle", "PixelUnshuffle", "PairwiseDistance",
       "CosineSimilarity",
       "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d", "BatchNorm3d", "LocalResponseNorm",
       "Dropout3d", "AlphaDropout", "FeatureAlphaDropout", "MaxPool3d", "AvgPool3d",
       "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveAvgPool3d", "AdaptiveMaxPool3d",
       "EmbeddingBag", "SyncBatchNorm"] + [f"{kind}Pad{n}d" for kind in ("Zero", "Constant",
       "Reflection", "Replication", "Circular") for n in (1, 2, 3)]  # fmt: skip


@pytest.mark.parametrize("name", NEW)
def test_constructor_signatures_match_torch(name):
    torch = pytest.importorskip("torch")

    def params(cls):
        return [(p.name, p.default) for p in inspect.signature(cls.__init__).parameters.values()
                if p.name != "self"]  # fmt: skip

    mine, theirs = params(getattr(nn, name)), params(getattr(torch.nn, name))
    assert [n for n, _ in mine] == [n for n, _ in theirs]
    for (n, d), (_, td) in zip(mine, theirs):
        if (
            callable(td) and td is not inspect.Parameter.empty
        ):  # torch's default activation is F.relu; ours spells it "relu"
            assert d == td.__name__, n
        else:
            assert d == td, n
