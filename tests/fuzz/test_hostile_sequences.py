"""Hostile sequences at every entry point that walks a sequence: items whose __index__,
__float__ or __bool__ clear, shrink, grow or refill the list being read, raise, or answer
huge values, and sequences whose __len__/__getitem__/__iter__ lie or raise.

Each call must either work or raise an ordinary exception: never crash, never read freed
memory (under scripts/sanitize.sh these cases show any such read). The suite runs a fixed,
seeded set of cases in a few seconds; SDK_SEQ_FUZZ_SECONDS=N keeps drawing new random cases
for N seconds (the long mode):

    SDK_SEQ_FUZZ_SECONDS=600 python -m pytest -q tests/fuzz/test_hostile_sequences.py -k long
"""

from __future__ import annotations

import gc
import itertools
import os
import random
import time

import pytest

import sdk
from sdk import library as L

ERRORS = (TypeError, ValueError, IndexError, RuntimeError, OverflowError, MemoryError)
LONG_SECONDS = float(os.environ.get("SDK_SEQ_FUZZ_SECONDS", "0"))


class Payload:
    """A fresh object per item, so that a freed item's memory is reused by the next ones."""

    def __init__(self, n: int) -> None:
        self.blob = [object() for _ in range(n)]


class Hostile:
    """An int/float/bool-like item that runs `action` on the list holding it when converted."""

    def __init__(self, value, action, box: list) -> None:
        self.value, self.action, self.box = value, action, box

    def _fire(self):
        ACTIONS[self.action](self.box)
        gc.collect(0)
        return self.value

    def __index__(self):
        v = self._fire()
        if isinstance(v, float):
            raise TypeError("not an int")
        return v

    def __int__(self):
        return self.__index__()

    def __float__(self):
        return float(self._fire())

    def __bool__(self):
        return bool(self._fire())


def _boom(_):
    raise ValueError("item conversion failed")


ACTIONS = {
    "nothing": lambda box: None,
    "clear": lambda box: [seq.clear() for seq in box],
    "shrink": lambda box: [seq.__delitem__(slice(len(seq) // 2, None)) for seq in box],
    "grow": lambda box: [seq.extend(Payload(3) for _ in range(64)) for seq in box],
    "refill": lambda box: [seq.__setitem__(slice(None), [Payload(2)] * len(seq)) for seq in box],
    "raise": _boom,
}
VALUES = [1, 2, 0, -1, 3, 2**62, -(2**62), 2**70, 1.5]


class LyingSequence:
    """A sequence (not a list) whose length, items or iteration misbehave."""

    def __init__(self, items: list, how: str) -> None:
        self.items, self.how = items, how

    def __len__(self):
        if self.how == "len raises":
            raise RuntimeError("no length")
        if self.how == "len huge":
            return 2**62
        if self.how == "len lies":
            return len(self.items) + 3
        return len(self.items)

    def __getitem__(self, i):
        if self.how == "getitem raises":
            raise KeyError(i)
        if self.how == "getitem clears":
            self.items.clear()
        return self.items[i]


def make_sequence(rng: random.Random, box: list):
    """A list (or lying sequence) of ints and hostile items; the lists go into `box`."""
    n = rng.randint(0, 5)
    items: list = []
    for _ in range(n):
        if rng.random() < 0.5:
            items.append(rng.choice([1, 2, 3]))
        else:
            items.append(Hostile(rng.choice(VALUES), rng.choice(list(ACTIONS)), box))
    kind = rng.random()
    if kind < 0.7:
        box.append(items)
        return items
    if kind < 0.8:
        return tuple(items)
    box.append(items)
    how = rng.choice(["len raises", "len huge", "len lies", "getitem raises", "getitem clears"])
    return LyingSequence(items, how)


def _custom_op():
    lib = L.Library("seqfuzz", "DEF")
    lib.define("take(Tensor x, int[] a, float[] b, bool[] c) -> Tensor")
    lib.impl("take", lambda x, a, b, c: x, "CPU")
    return lib, sdk.ops.seqfuzz.take


def entry_points(op):
    """(name, call(seq)) for every entry point that takes a sequence."""
    x = sdk.ones(2, 3)
    return [
        ("tensor", lambda s: sdk.tensor(s)),
        ("tensor nested", lambda s: sdk.tensor([s, s])),
        ("tensor float", lambda s: sdk.tensor(s, dtype=sdk.float32)),
        ("reshape", lambda s: x.reshape(s)),
        ("view", lambda s: x.view(s)),
        ("permute", lambda s: x.permute(s)),
        ("expand", lambda s: x.expand(s)),
        ("repeat", lambda s: x.repeat(s)),
        ("flip", lambda s: x.flip(s)),
        ("sum dims", lambda s: x.sum(s)),
        ("zeros", lambda s: sdk.zeros(s)),
        ("ones", lambda s: sdk.ones(s)),
        ("empty", lambda s: sdk.empty(s)),
        ("full", lambda s: sdk.full(s, 2.0)),
        ("new_zeros", lambda s: x.new_zeros(s)),
        ("index list", lambda s: x[s]),
        ("index pair", lambda s: x[s, 0]),
        ("op int[]", lambda s: op(x, s, [1.0], [True])),
        ("op float[]", lambda s: op(x, [1], s, [True])),
        ("op bool[]", lambda s: op(x, [1], [1.0], s)),
    ]


def run_case(call, seq) -> None:
    try:
        call(seq)
    except ERRORS:
        pass
    except KeyError:  # a lying __getitem__'s own error, passed through
        pass


@pytest.fixture(scope="module")
def op():
    lib, take = _custom_op()
    yield take
    lib._destroy()


@pytest.mark.parametrize("name", [name for name, _ in entry_points(None)])
def test_every_action_at_every_entry_point(op, name):
    """Each action at the entry point, with the hostile item first, in the middle and last."""
    call = dict(entry_points(op))[name]
    for action, where in itertools.product(ACTIONS, range(3)):
        box: list = []
        items = [1, 2, 3]
        items.insert([0, 1, 3][where], Hostile(2, action, box))
        box.append(items)
        run_case(call, items)


def test_cleared_list_is_read_from_a_snapshot():
    """The walk reads the values the list held when the call began (the snapshot), even
    when an item's __index__ empties the list."""
    box: list = []
    shape = [Hostile(3, "clear", box), 2]
    box.append(shape)
    assert tuple(sdk.zeros(shape).shape) == (3, 2)
    assert shape == []
    box2: list = []
    data = [[Hostile(1, "refill", box2), 2.5], [3, 4]]
    box2.append(data[0])  # the row being read is refilled with non-numbers under the walk
    t = sdk.tensor(data)
    assert t.tolist() == [[1.0, 2.5], [3.0, 4.0]]
    box2[:] = [data[1]]  # a row not read yet is read as it is when its turn comes
    data[0] = [Hostile(1, "refill", box2), 2.5]
    with pytest.raises(TypeError, match="could not convert an element of type Payload"):
        sdk.tensor(data)


def test_seeded_random_cases(op):
    rng = random.Random(1234)
    points = entry_points(op)
    for _ in range(400):
        name, call = rng.choice(points)
        box: list = []
        run_case(call, make_sequence(rng, box))


@pytest.mark.skipif(LONG_SECONDS <= 0, reason="long mode: set SDK_SEQ_FUZZ_SECONDS")
def test_long_random_cases(op):
    seed = int(os.environ.get("SDK_SEQ_FUZZ_SEED", str(time.time_ns() % 2**32)))
    rng = random.Random(seed)
    points = entry_points(op)
    end = time.monotonic() + LONG_SECONDS
    count = 0
    while time.monotonic() < end:
        name, call = rng.choice(points)
        box: list = []
        run_case(call, make_sequence(rng, box))
        count += 1
    print(f"seed {seed}: {count} cases without a crash")
    assert count > 0
