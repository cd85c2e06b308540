"""nn.functional embedding bags: sums, means or maxima of groups of embedding rows."""

from __future__ import annotations

from typing import Any

import sdk

from .common import _wrap_index, check_tensor

__all__ = ["embedding_bag"]

_INDEX_DTYPES = (sdk.int64, sdk.int32)


def _check_indices(input: Any, offsets: Any, weight: Any) -> None:
    check_tensor(input, "embedding_bag")
    check_tensor(weight, "embedding_bag", "weight")
    if input.dtype not in _INDEX_DTYPES:
        raise TypeError(f"embedding_bag: input must be an int64 or int32 tensor, got {input.dtype}")
    if weight.ndim != 2:
        raise ValueError(f"embedding_bag: weight must be 2-D, got shape {list(weight.shape)}")
    if input.ndim not in (1, 2):
        raise ValueError(f"embedding_bag: input has to be 1D or 2D, got {input.ndim}D")
    if input.ndim == 2 and offsets is not None:
        raise ValueError("embedding_bag: if input is 2D, then offsets has to be None")
    if input.ndim == 1:
        if offsets is None:
            raise ValueError("embedding_bag: offsets has to be a 1D Tensor when input is 1D")
        check_tensor(offsets, "embedding_bag", "offsets")
        if offsets.ndim != 1 or offsets.dtype not in _INDEX_DTYPES:
            raise ValueError(
                f"embedding_bag: offsets has to be a 1D int64 or int32 tensor, got "
                f"{offsets.ndim}D {offsets.dtype}"
            )


def _bags(input: Any, offsets: Any, include_last_offset: bool) -> list:
    """[(start, end)] of each bag in the flattened input."""
    if input.ndim == 2:
        n, length = input.shape
        starts = [i * length for i in range(n)]
    else:
        starts = [int(v) for v in offsets.tolist()]
    total = input.numel()
    if starts and starts[0] != 0:
        raise ValueError(f"embedding_bag: offsets[0] has to be 0, got {starts[0]}")
    if any(b < a for a, b in zip(starts, starts[1:])) or (starts and starts[-1] > total):
        raise ValueError(
            f"embedding_bag: offsets must be non-decreasing and at most the input's length "
            f"({total}), got {starts}"
        )
    if include_last_offset:
        return list(zip(starts[:-1], starts[1:]))
    return list(zip(starts, starts[1:] + [total]))


def _members(flat: list, bags: list, padding_idx: Any) -> list:
    """For each bag, the positions of its entries that count (not padding_idx)."""
    return [[t for t in range(a, b) if flat[t] != padding_idx] for a, b in bags]


def _reduce_max(rows: Any, members: list, dim: int) -> Any:
    """Per bag, the elementwise max of its rows; an empty bag gives zeros."""
    longest = max((len(m) for m in members), default=0)
    if longest == 0:
        return sdk.zeros(len(members), dim, dtype=rows.dtype)
    pos = [m + [m[0] if m else 0] * (longest - len(m)) for m in members]  # repeat: max unchanged
    picked = rows.index_select(0, sdk.tensor(pos, dtype=sdk.int64).reshape(-1))
    out = picked.reshape(len(members), longest, dim).amax(1)
    nonempty = sdk.tensor([[1.0 if m else 0.0] for m in members], dtype=rows.dtype)
    return out * nonempty


def _reduce_sum(rows: Any, members: list, dim: int, mean: bool) -> Any:
    """Per bag, the sum (or mean) of its rows, accumulated by one index_add; empty bags give
    zeros."""
    out = sdk.zeros(len(members), dim, dtype=rows.dtype)
    pos = [t for m in members for t in m]
    if not pos:
        return out
    bag = [b for b, m in enumerate(members) for _ in m]
    picked = rows.index_select(0, sdk.tensor(pos, dtype=sdk.int64))
    if mean:
        scale = [1.0 / len(members[b]) for b in bag]
        picked = picked * sdk.tensor(scale, dtype=rows.dtype).reshape(-1, 1)
    return out.index_add(0, sdk.tensor(bag, dtype=sdk.int64), picked)


def embedding_bag(input: Any, weight: Any, offsets: Any = None, max_norm: Any = None,
                  norm_type: float = 2, scale_grad_by_freq: bool = False, mode: str = "mean",
                  sparse: bool = False, per_sample_weights: Any = None,
                  include_last_offset: bool = False, padding_idx: Any = None) -> Any:  # fmt: skip
    """Reduce (sum, mean or max) the weight rows picked by each bag of input: the rows of a
    2-D input, or the slices of a 1-D input that offsets start; (num_bags, embedding_dim)."""
    _check_indices(input, offsets, weight)
    if max_norm is not None or scale_grad_by_freq or sparse:
        raise NotImplementedError(
            "embedding_bag: max_norm, scale_grad_by_freq and sparse are not supported"
        )
    if mode not in ("sum", "mean", "max"):
        raise ValueError(f"embedding_bag: mode has to be one of sum, mean or max, got {mode!r}")
    if per_sample_weights is not None:
        check_tensor(per_sample_weights, "embedding_bag", "per_sample_weights")
        if mode != "sum":
            raise NotImplementedError(
                "embedding_bag: per_sample_weights was not None. per_sample_weights is only "
                f"supported for mode='sum' (got mode='{mode}')"
            )
        if tuple(per_sample_weights.shape) != tuple(input.shape):
            raise ValueError(
                f"embedding_bag: per_sample_weights (shape {list(per_sample_weights.shape)}) "
                f"must have the shape of input ({list(input.shape)})"
            )
    num, dim = weight.shape
    if padding_idx is not None:
        padding_idx = _wrap_index(padding_idx, num)
    flat = [int(v) for v in input.reshape(-1).tolist()]
    bad = [v for v in flat if not 0 <= v < num]
    if bad:
        raise IndexError(f"embedding_bag: index {bad[0]} is out of range for {num} embeddings")
    members = _members(flat, _bags(input, offsets, include_last_offset), padding_idx)
    rows = weight.index_select(0, input.reshape(-1).to(sdk.int64))
    if per_sample_weights is not None:
        rows = rows * per_sample_weights.reshape(-1, 1)
    if mode == "max":
        return _reduce_max(rows, members, dim)
    return _reduce_sum(rows, members, dim, mode == "mean")
