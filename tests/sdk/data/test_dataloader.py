"""sdk.utils.data: datasets, samplers, default collation and DataLoader (single process and
worker processes: order, shuffling reproducibility, errors raised in workers)."""

from __future__ import annotations

import collections
import os

import numpy as np
import pytest

import sdk
from sdk.utils.data import (
    BatchSampler,
    ConcatDataset,
    DataLoader,
    Dataset,
    IterableDataset,
    RandomSampler,
    SequentialSampler,
    Subset,
    TensorDataset,
    default_collate,
    get_worker_info,
    random_split,
)


def _ds(n=10):
    x = sdk.arange(2 * n, dtype=sdk.float32).reshape(n, 2)
    return TensorDataset(x, sdk.arange(n))


def _labels(loader):
    return [b[1].tolist() for b in loader]


class Squares(Dataset):
    """A plain map-style dataset (no TensorDataset fast path)."""

    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        if not 0 <= i < self.n:
            raise IndexError(i)
        return {"x": np.full(3, i, dtype=np.float32), "y": i * i}


class FailsAt(Dataset):
    def __init__(self, bad):
        self.bad = bad

    def __len__(self):
        return 8

    def __getitem__(self, i):
        if i == self.bad:
            raise KeyError(f"no sample {i}")
        return sdk.tensor([float(i)])


class Dies(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        os._exit(3)


class Stream(IterableDataset):
    """0..n-1, split between workers by get_worker_info()."""

    def __init__(self, n):
        self.n = n

    def __iter__(self):
        info = get_worker_info()
        start, step = (0, 1) if info is None else (info.id, info.num_workers)
        for i in range(start, self.n, step):
            yield sdk.tensor(i)

    def __len__(self):
        return self.n


# -- datasets ---------------------------------------------------------------------------


def test_tensor_dataset_rows_and_length():
    ds = _ds(5)
    x, y = ds[3]
    assert x.tolist() == [6.0, 7.0] and y.item() == 3
    assert len(ds) == 5


@pytest.mark.parametrize(
    "args, exc",
    [((), ValueError), (([1, 2],), TypeError), ((sdk.zeros(3), sdk.zeros(4)), ValueError)],
)
def test_tensor_dataset_rejects_bad_input(args, exc):
    with pytest.raises(exc):
        TensorDataset(*args)


def test_subset_and_concat():
    ds = _ds(6)
    sub = Subset(ds, [4, 1])
    assert len(sub) == 2 and sub[0][1].item() == 4 and sub[1][1].item() == 1
    cat = ConcatDataset([sub, ds])
    assert len(cat) == 8 and cat[2][1].item() == 0 and cat[-1][1].item() == 5


def test_random_split_lengths_disjoint_and_reproducible():
    ds = _ds(10)
    a, b = random_split(ds, [7, 3], generator=sdk.Generator(0))
    assert (len(a), len(b)) == (7, 3)
    assert sorted(a.indices + b.indices) == list(range(10))
    a2, _ = random_split(ds, [7, 3], generator=sdk.Generator(0))
    assert a2.indices == a.indices
    fa, fb, fc = random_split(ds, [0.5, 0.3, 0.2], generator=sdk.Generator(1))
    assert (len(fa), len(fb), len(fc)) == (5, 3, 2)
    with pytest.raises(ValueError, match="Sum of input lengths"):
        random_split(ds, [4, 4])


# -- collation --------------------------------------------------------------------------


def test_default_collate_kinds():
    Point = collections.namedtuple("Point", "x y")
    batch = [
        {"t": sdk.tensor([1.0, 2.0]), "a": np.array([1, 2]), "f": 0.5, "i": 3, "s": "u",
         "p": Point(1, 2.0), "tup": (1, 2)},
        {"t": sdk.tensor([3.0, 4.0]), "a": np.array([3, 4]), "f": 1.5, "i": 4, "s": "v",
         "p": Point(3, 4.0), "tup": (3, 4)},
    ]  # fmt: skip
    out = default_collate(batch)
    assert out["t"].tolist() == [[1.0, 2.0], [3.0, 4.0]]
    assert out["a"].tolist() == [[1, 2], [3, 4]] and out["a"].dtype == sdk.int64
    assert out["f"].dtype == sdk.float64 and out["f"].tolist() == [0.5, 1.5]
    assert out["i"].dtype == sdk.int64 and out["i"].tolist() == [3, 4]
    assert out["s"] == ["u", "v"]
    assert isinstance(out["p"], Point) and out["p"].x.tolist() == [1, 3]
    assert isinstance(out["tup"], list) and out["tup"][1].tolist() == [2, 4]


def test_default_collate_errors():
    with pytest.raises(RuntimeError, match="equal size"):
        default_collate([[1, 2], [3]])
    with pytest.raises(TypeError, match="default_collate"):
        default_collate([object(), object()])


# -- samplers ---------------------------------------------------------------------------


def test_batch_sampler_and_sequential():
    assert list(BatchSampler(SequentialSampler(range(7)), 3, False)) == [[0, 1, 2], [3, 4, 5], [6]]
    assert len(BatchSampler(SequentialSampler(range(7)), 3, True)) == 2
    with pytest.raises(ValueError, match="batch_size"):
        BatchSampler(SequentialSampler(range(7)), 0, False)


def test_random_sampler_is_a_permutation_seeded_by_generator():
    first = list(RandomSampler(range(20), generator=sdk.Generator(5)))
    again = list(RandomSampler(range(20), generator=sdk.Generator(5)))
    assert sorted(first) == list(range(20)) and first == again and first != list(range(20))
    with_repl = list(RandomSampler(range(4), replacement=True, num_samples=50))
    assert len(with_repl) == 50 and set(with_repl) <= set(range(4))


# -- DataLoader, main process -----------------------------------------------------------


def test_loader_batches_in_order_and_drop_last():
    ds = _ds(10)
    assert _labels(DataLoader(ds, batch_size=3)) == [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9]]
    assert _labels(DataLoader(ds, batch_size=3, drop_last=True)) == [
        [0, 1, 2],
        [3, 4, 5],
        [6, 7, 8],
    ]
    assert len(DataLoader(ds, batch_size=3)) == 4
    assert len(DataLoader(ds, batch_size=3, drop_last=True)) == 3
    xb, yb = next(iter(DataLoader(ds, batch_size=4)))
    assert tuple(xb.shape) == (4, 2) and xb[1].tolist() == [2.0, 3.0]


def test_loader_shuffle_reproducible_and_new_each_epoch():
    ds = _ds(30)
    loader = DataLoader(ds, batch_size=7, shuffle=True, generator=sdk.Generator(3))
    e1, e2 = sum(_labels(loader), []), sum(_labels(loader), [])
    assert sorted(e1) == list(range(30)) and sorted(e2) == list(range(30))
    assert e1 != e2 and e1 != list(range(30))
    again = DataLoader(ds, batch_size=7, shuffle=True, generator=sdk.Generator(3))
    assert sum(_labels(again), []) == e1
    sdk.manual_seed(11)
    u1 = sum(_labels(DataLoader(ds, batch_size=7, shuffle=True)), [])
    sdk.manual_seed(11)
    assert sum(_labels(DataLoader(ds, batch_size=7, shuffle=True)), []) == u1


def test_loader_collate_fn_and_pin_memory_and_no_batching():
    ds = Squares(5)
    seen = DataLoader(ds, batch_size=2, collate_fn=lambda b: [s["y"] for s in b], pin_memory=True)
    assert list(seen) == [[0, 1], [4, 9], [16]]
    batch = next(iter(DataLoader(ds, batch_size=2)))
    assert batch["x"].tolist() == [[0.0] * 3, [1.0] * 3] and batch["y"].tolist() == [0, 1]
    single = list(DataLoader(ds, batch_size=None))
    assert len(single) == 5 and isinstance(single[2]["x"], sdk.Tensor) and single[2]["y"] == 4


def test_loader_iterable_dataset_batches():
    out = [b.tolist() for b in DataLoader(Stream(7), batch_size=3)]
    assert out == [[0, 1, 2], [3, 4, 5], [6]]
    assert [b.tolist() for b in DataLoader(Stream(7), batch_size=3, drop_last=True)] == [
        [0, 1, 2], [3, 4, 5]]  # fmt: skip
    with pytest.raises(ValueError, match="shuffle"):
        DataLoader(Stream(3), shuffle=True)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(num_workers=-1), "num_workers"),
        (dict(batch_size=0), "batch_size"),
        (dict(sampler=[0, 1], shuffle=True), "mutually exclusive"),
        (dict(batch_sampler=[[0]], batch_size=4), "mutually exclusive"),
        (dict(prefetch_factor=2), "prefetch_factor"),
        (dict(timeout=-1), "timeout"),
    ],
)
def test_loader_rejects_bad_options(kwargs, match):
    with pytest.raises(ValueError, match=match):
        DataLoader(_ds(4), **kwargs)


def test_loader_error_in_main_process_propagates_unchanged():
    with pytest.raises(KeyError, match="no sample 2"):
        list(DataLoader(FailsAt(2), batch_size=2))


# -- DataLoader, worker processes -------------------------------------------------------


@pytest.mark.forks
def test_workers_give_the_same_batches_in_the_same_order():
    ds = Squares(23)
    ref = [b["y"].tolist() for b in DataLoader(ds, batch_size=4)]
    got = [b["y"].tolist() for b in DataLoader(ds, batch_size=4, num_workers=2)]
    assert got == ref
    fast = _labels(DataLoader(_ds(11), batch_size=4, num_workers=2))
    assert fast == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10]]


@pytest.mark.forks
def test_workers_shuffle_reproducibly_with_a_generator():
    ds = _ds(40)
    a = _labels(DataLoader(ds, batch_size=8, shuffle=True, num_workers=2,
                           generator=sdk.Generator(9)))  # fmt: skip
    b = _labels(DataLoader(ds, batch_size=8, shuffle=True, generator=sdk.Generator(9)))
    assert a == b and sorted(sum(a, [])) == list(range(40))


@pytest.mark.forks
def test_workers_started_by_spawn():
    ds = _ds(5)  # TensorDataset pickles; spawn children import sdk afresh
    loader = DataLoader(ds, batch_size=2, num_workers=2, multiprocessing_context="spawn")
    assert _labels(loader) == [[0, 1], [2, 3], [4]]


@pytest.mark.forks
def test_worker_error_is_raised_with_the_worker_traceback():
    loader = DataLoader(FailsAt(5), batch_size=2, num_workers=2)
    got = []
    with pytest.raises(KeyError) as info:
        for b in loader:
            got.append(b.flatten().tolist())
    text = str(info.value)
    assert "in DataLoader worker process" in text
    assert "Traceback" in text and "no sample 5" in text and "__getitem__" in text
    assert got == [[0.0, 1.0], [2.0, 3.0]]  # the batches before the failing one arrived


@pytest.mark.forks
def test_worker_that_dies_is_reported():
    with pytest.raises(RuntimeError, match="exited unexpectedly"):
        list(DataLoader(Dies(), batch_size=2, num_workers=1))


@pytest.mark.forks
def test_iterable_dataset_sharded_across_workers_and_worker_info():
    seen = []

    def init(worker_id):
        info = get_worker_info()
        assert info is not None and info.id == worker_id and info.num_workers == 2

    loader = DataLoader(Stream(8), batch_size=2, num_workers=2, worker_init_fn=init)
    for b in loader:
        seen += b.tolist()
    assert sorted(seen) == list(range(8))
    assert get_worker_info() is None  # the main process


@pytest.mark.forks
def test_persistent_workers_run_several_epochs():
    loader = DataLoader(Squares(9), batch_size=4, num_workers=2, persistent_workers=True)
    for _ in range(2):
        assert [b["y"].tolist() for b in loader] == [[0, 1, 4, 9], [16, 25, 36, 49], [64]]
    assert loader._iterator._workers[0].is_alive()
    loader._iterator._shutdown()
    assert not any(p.is_alive() for p in loader._iterator._workers)


@pytest.mark.forks
def test_breaking_out_early_stops_the_workers():
    it = iter(DataLoader(Squares(50), batch_size=2, num_workers=2))
    next(it)
    workers = list(it._workers)
    it._shutdown()
    assert not any(p.is_alive() for p in workers)


def test_default_collate_matches_torch():
    torch = pytest.importorskip("torch")
    from torch.utils.data import default_collate as torch_collate

    Pair = collections.namedtuple("Pair", "a b")
    batch = [
        {"arr": np.array([1.0, 2.0], dtype=np.float32), "n": 3, "f": 0.5, "flag": True,
         "tup": (1, 2.5), "pair": Pair(np.int32(4), [1, 2]), "s": "x"},
        {"arr": np.array([3.0, 4.0], dtype=np.float32), "n": 4, "f": 1.5, "flag": False,
         "tup": (3, 4.5), "pair": Pair(np.int32(5), [3, 4]), "s": "y"},
    ]  # fmt: skip

    def same(a, b):
        if isinstance(b, torch.Tensor):
            assert (
                isinstance(a, sdk.Tensor)
                and str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1]
            )
            np.testing.assert_array_equal(a.numpy(), b.numpy())
        elif isinstance(b, dict):
            assert type(a) is type(b) and list(a) == list(b)
            for k in b:
                same(a[k], b[k])
        elif isinstance(b, (list, tuple)):
            assert type(a) is type(b) and len(a) == len(b)
            for x, y in zip(a, b):
                same(x, y)
        else:
            assert a == b

    same(default_collate(batch), torch_collate(batch))
