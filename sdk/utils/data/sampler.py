"""Samplers: which dataset indices a DataLoader visits, in which order, and in which batches."""

from __future__ import annotations

from itertools import islice
from typing import Any, Iterable, Iterator, Sequence

import sdk

__all__ = [
    "Sampler",
    "SequentialSampler",
    "RandomSampler",
    "SubsetRandomSampler",
    "WeightedRandomSampler",
    "BatchSampler",
]


class Sampler:
    """Iterates over dataset indices (or batches of them); define ``__iter__``."""

    def __init__(self, data_source: Any = None) -> None:
        pass

    def __iter__(self) -> Iterator:
        raise NotImplementedError


class SequentialSampler(Sampler):
    """0, 1, ..., len(data_source) - 1."""

    def __init__(self, data_source: Any) -> None:
        self.data_source = data_source

    def __iter__(self) -> Iterator[int]:
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        return len(self.data_source)


def _generator(generator: Any) -> Any:
    """`generator`, or a new one seeded from the default generator (so that manual_seed
    makes an unseeded sampler reproducible, and each epoch still differs)."""
    if generator is not None:
        return generator
    seed = int(sdk.randint(0, 2**62, (1,)).item())
    return sdk.Generator(seed)


def _permutation(n: int, generator: Any) -> list:
    """A random permutation of range(n) as a list, determined by `generator` (one draw from
    it seeds numpy's generator, which shuffles a million indices in milliseconds)."""
    import numpy as np

    seed = int(sdk.randint(0, 2**62, (1,), generator=generator).item())
    return np.random.default_rng(seed).permutation(n).tolist()


class RandomSampler(Sampler):
    """A random permutation of the indices each epoch (without replacement), or num_samples
    indices drawn uniformly with replacement."""

    def __init__(self, data_source: Any, replacement: bool = False,
                 num_samples: int | None = None, generator: Any = None) -> None:  # fmt: skip
        if not isinstance(replacement, bool):
            raise TypeError(
                f"replacement should be a boolean value, but got replacement={replacement}"
            )
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError(
                f"num_samples should be a positive integer value, but got num_samples={self.num_samples}"
            )

    @property
    def num_samples(self) -> int:
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self) -> Iterator[int]:
        n = len(self.data_source)
        gen = _generator(self.generator)
        if self.replacement:
            yield from sdk.randint(0, n, (self.num_samples,), generator=gen).tolist()
            return
        for _ in range(self.num_samples // n):
            yield from _permutation(n, gen)
        if self.num_samples % n:
            yield from _permutation(n, gen)[: self.num_samples % n]

    def __len__(self) -> int:
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """The given indices in a random order each epoch."""

    def __init__(self, indices: Sequence[int], generator: Any = None) -> None:
        self.indices = indices
        self.generator = generator

    def __iter__(self) -> Iterator[int]:
        for i in _permutation(len(self.indices), _generator(self.generator)):
            yield self.indices[i]

    def __len__(self) -> int:
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    """num_samples indices drawn with probabilities proportional to `weights`."""

    def __init__(self, weights: Sequence[float], num_samples: int, replacement: bool = True,
                 generator: Any = None) -> None:  # fmt: skip
        if isinstance(num_samples, bool) or not isinstance(num_samples, int) or num_samples <= 0:
            raise ValueError(
                f"num_samples should be a positive integer value, but got num_samples={num_samples}"
            )
        if not isinstance(replacement, bool):
            raise ValueError(
                f"replacement should be a boolean value, but got replacement={replacement}"
            )
        w = sdk.as_tensor(weights, dtype=sdk.float64)
        if w.ndim != 1:
            raise ValueError(
                f"weights should be a 1d sequence but given weights have shape {tuple(w.shape)}"
            )
        self.weights = w
        self.num_samples = num_samples
        self.replacement = replacement
        self.generator = generator

    def __iter__(self) -> Iterator[int]:
        picks = sdk.multinomial(self.weights, self.num_samples, self.replacement,
                                generator=self.generator)  # fmt: skip
        yield from picks.tolist()

    def __len__(self) -> int:
        return self.num_samples


class BatchSampler(Sampler):
    """Lists of batch_size indices from `sampler` (the last one shorter unless drop_last)."""

    def __init__(self, sampler: Iterable[int], batch_size: int, drop_last: bool) -> None:
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size <= 0:
            raise ValueError(
                f"batch_size should be a positive integer value, but got batch_size={batch_size}"
            )
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self) -> Iterator[list]:
        it = iter(self.sampler)
        size = self.batch_size
        while True:
            batch = list(islice(it, size))
            if len(batch) == size or (batch and not self.drop_last):
                yield batch
            if len(batch) < size:
                return

    def __len__(self) -> int:
        n = len(self.sampler)  # type: ignore[arg-type]
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)
