"""sdk.nn.modules (torch.nn.modules' layout) and its utils' argument helpers, against torch's
on the same inputs when torch is installed."""

import pytest

import sdk
import sdk.nn.modules as modules
from sdk.nn.modules.utils import _ntuple, _pair, _quadruple, _reverse_repeat_tuple, _single, _triple

CASES = [3, (1, 2), [4, 5, 6], "ab", range(2), 2.5, None]


def test_helpers_read_arguments_as_torch_does():
    assert _pair(3) == (3, 3) and _triple(1) == (1, 1, 1) and _single(7) == (7,)
    assert _quadruple((1, 2)) == (1, 2)  # an iterable is kept as it is, never checked
    assert _pair([4, 5, 6]) == (4, 5, 6) and _pair(None) == (None, None)
    assert _ntuple(5, "_five")(0) == (0,) * 5 and _ntuple(5, "_five").__name__ == "_five"
    assert _reverse_repeat_tuple((1, 2), 2) == (2, 2, 1, 1)


def test_same_results_as_torch():
    utils = pytest.importorskip("torch.nn.modules.utils")
    for ours, theirs in [(_single, utils._single), (_pair, utils._pair), (_triple, utils._triple),
                         (_quadruple, utils._quadruple)]:  # fmt: skip
        for case in CASES:
            assert ours(case) == theirs(case), (ours.__name__, case)
    assert _reverse_repeat_tuple((1, 2, 3), 2) == utils._reverse_repeat_tuple((1, 2, 3), 2)


def test_modules_has_the_layers_and_its_own_utils():
    assert modules.Linear is sdk.nn.Linear and modules.Conv2d is sdk.nn.Conv2d
    assert modules.utils._pair is _pair  # not sdk.nn.utils (clip_grad_norm_ & co.)
    assert sdk.nn.utils.clip_grad_norm_ is not None
    assert not hasattr(modules, "functional") and not hasattr(modules, "init")
    assert set(modules.__all__) >= {"Linear", "Conv2d", "LSTM"}
    assert not {"functional", "init", "utils"} & set(modules.__all__)
