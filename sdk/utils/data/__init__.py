"""Datasets, samplers, collation and DataLoader (torch.utils.data's names and behaviour).

A DataLoader draws indices from a sampler, groups them with a BatchSampler, fetches the
samples from a Dataset and collates them into batches (``default_collate`` stacks tensors,
numpy arrays and numbers, and recurses into dicts, tuples and lists). With
``num_workers > 0`` worker processes fetch and collate; batches come back in order and an
exception raised in a worker is raised again in the main process. Each worker sends on a
pipe of its own (``channel``), read without blocking, so no worker fault hangs the loader.
"""

from __future__ import annotations

from .collate import collate, default_collate, default_convert
from .dataloader import DataLoader
from .dataset import (
    ChainDataset,
    ConcatDataset,
    Dataset,
    IterableDataset,
    StackDataset,
    Subset,
    TensorDataset,
    random_split,
)
from .sampler import (
    BatchSampler,
    RandomSampler,
    Sampler,
    SequentialSampler,
    SubsetRandomSampler,
    WeightedRandomSampler,
)
from .worker import WorkerInfo, get_worker_info

__all__ = [
    "BatchSampler",
    "ChainDataset",
    "ConcatDataset",
    "DataLoader",
    "Dataset",
    "IterableDataset",
    "RandomSampler",
    "Sampler",
    "SequentialSampler",
    "StackDataset",
    "Subset",
    "SubsetRandomSampler",
    "TensorDataset",
    "WeightedRandomSampler",
    "WorkerInfo",
    "collate",
    "default_collate",
    "default_convert",
    "get_worker_info",
    "random_split",
]
