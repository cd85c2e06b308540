"""nn.functional embedding bags: sums, means or maxima of groups of embedding rows."""

from __future__ import annotations

from typing import Any

import sdk

from ._pool_passes import first_hit
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


def _bag_of_entries(input: Any, offsets: Any, include_last_offset: bool) -> tuple:
    """(bag index of each flattened input entry; the number of bags)."""
    import numpy as np

    total = input.numel()
    if input.ndim == 2:
        starts = np.arange(input.shape[0], dtype=np.int64) * input.shape[1]
    else:
        starts = np.asarray(offsets.numpy(), dtype=np.int64)
    if input.ndim == 2:  # every row is a bag whatever include_last_offset says
        include_last_offset = False
    elif include_last_offset and (len(starts) == 0 or starts[-1] != total):
        # Entries past the last offset have no defined bag (the reference kernels disagree).
        raise ValueError(
            f"embedding_bag: with include_last_offset=True the last offset must equal the "
            f"input's length ({total}), got {starts.tolist()}"
        )
    if len(starts) and starts[0] != 0:
        raise ValueError(f"embedding_bag: offsets[0] has to be 0, got {int(starts[0])}")
    if (np.diff(starts) < 0).any() or (len(starts) and starts[-1] > total):
        raise ValueError(
            f"embedding_bag: offsets must be non-decreasing and at most the input's length "
            f"({total}), got {starts.tolist()}"
        )
    ends = starts[1:] if include_last_offset else np.append(starts[1:], total)
    starts = starts[: len(ends)]
    bag_of = np.repeat(np.arange(len(ends), dtype=np.int64), ends - starts)
    return bag_of, len(ends)


def _index(a: Any, weight: Any) -> Any:
    """The numpy int64 array a as a tensor on weight's device."""
    return sdk.tensor(a, device=weight.device)


def _values(a: Any, weight: Any) -> Any:
    """The numpy array a as a tensor of weight's dtype, on its device."""
    return sdk.tensor(a, dtype=weight.dtype, device=weight.device)


def _table(flat: Any, pos: Any, bag: Any, counts: Any) -> tuple:
    """(bags, width) tables of each bag's entries, width its largest count: their weight rows,
    their input positions and whether a cell is a real entry. Cells past a bag's count repeat
    its first entry (an empty bag's read row 0), so a max over a row is unchanged."""
    import numpy as np

    width = max(int(counts.max()), 1) if len(counts) else 1
    first = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int64)
    rank = np.arange(len(pos)) - first[bag]
    fill = pos[np.minimum(first, len(pos) - 1)] if len(pos) else np.zeros(len(counts), np.int64)
    where = np.repeat(np.where(counts > 0, fill, 0)[:, None], width, axis=1)
    where[bag, rank] = pos
    real = np.zeros((len(counts), width), dtype=bool)
    real[bag, rank] = True
    return flat[where], where, real


def _groups(counts: Any) -> list:
    """The bags in groups of similar size (counts up to 1, 2, 4, 8, ...), so that each
    group's table holds at most about twice its entries."""
    import numpy as np

    width = np.ceil(np.log2(np.maximum(counts, 1))).astype(np.int64)
    return [np.nonzero(width == w)[0] for w in np.unique(width)]


def _subset(pos: Any, bag: Any, counts: Any, members: Any) -> tuple:
    """pos, bag (renumbered from 0) and counts of the bags `members` (sorted) alone."""
    import numpy as np

    local = np.full(len(counts), -1, dtype=np.int64)
    local[members] = np.arange(len(members))
    keep = local[bag] >= 0
    return pos[keep], local[bag[keep]], counts[members]


def _max_rows(weight: Any, rows: Any) -> Any:
    """(bags, dim): for a (bags, width) table of weight rows, the row holding each maximum,
    the first of equal ones (the reference kernel gives it the gradient)."""
    num, width = rows.shape
    picked = weight.index_select(0, _index(rows.reshape(-1), weight)).reshape(num, width, -1)
    which = first_hit(picked, picked.amax(1), 1, width)
    return _index(rows, weight).gather(1, which)


def _reduce_max(weight: Any, flat: Any, pos: Any, bag: Any, counts: Any, padded: bool) -> Any:
    """Per bag, the elementwise max of its rows, read as one gather of weight (whose backward
    puts each gradient on its maximum); the maxima are found through tables of rows, one per
    group of similar sizes when one table would be mostly padding. Empty bags give zeros."""
    import numpy as np

    with sdk.no_grad():
        w = weight.detach()
        if not padded:
            row = _max_rows(w, _table(flat, pos, bag, counts)[0])
        else:
            groups = _groups(counts)
            parts = [_max_rows(w, _table(flat, *_subset(pos, bag, counts, m))[0]) for m in groups]
            order = np.argsort(np.concatenate(groups), kind="stable")
            row = sdk.cat(parts).index_select(0, _index(order, weight))
    out = weight.gather(0, row)
    if (counts == 0).any():
        out = out * _values((counts > 0)[:, None], weight)
    return out


def _sum_by_index_add(weight: Any, flat: Any, pos: Any, bag: Any, counts: Any, psw: Any,
                      mean: bool) -> Any:  # fmt: skip
    """Per bag, the sum (or mean) of its rows accumulated by one index_add."""
    picked = weight.index_select(0, _index(flat[pos], weight))
    if psw is not None:
        picked = picked * psw.reshape(-1).index_select(0, _index(pos, weight)).unsqueeze(1)
    if mean:
        picked = picked * _values(1.0 / counts[bag], weight).reshape(-1, 1)
    out = sdk.zeros(len(counts), weight.shape[1], dtype=weight.dtype, device=weight.device)
    return out.index_add(0, _index(bag, weight), picked)


def _sum_by_table(weight: Any, flat: Any, pos: Any, bag: Any, counts: Any, psw: Any,
                  mean: bool) -> Any:  # fmt: skip
    """Per bag, the sum (or mean) of its rows: a (bags, largest count) table of rows read by
    one index_select, weighted (0 past a bag's count) and summed."""
    import numpy as np

    rows, where, real = _table(flat, pos, bag, counts)
    scale = real / np.maximum(counts, 1)[:, None] if mean else real
    scale = _values(scale, weight)
    if psw is not None:
        chosen = psw.reshape(-1).index_select(0, _index(where.reshape(-1), weight))
        scale = scale * chosen.reshape(where.shape)
    num, width = rows.shape
    picked = weight.index_select(0, _index(rows.reshape(-1), weight)).reshape(num, width, -1)
    return (picked * scale.unsqueeze(-1)).sum(1)


def _reduce(weight: Any, flat: Any, pos: Any, bag: Any, counts: Any, psw: Any,
            mode: str) -> Any:  # fmt: skip
    """The bags' reductions; `padded`: one table of all bags would be over half padding."""
    padded = len(counts) * int(counts.max()) > 2 * len(pos)
    if mode == "max":
        return _reduce_max(weight, flat, pos, bag, counts, padded)
    reduce = _sum_by_index_add if padded else _sum_by_table
    return reduce(weight, flat, pos, bag, counts, psw, mode == "mean")


def _renorm_rows_(weight: Any, used: Any, max_norm: float, norm_type: float) -> None:
    """Scale, in place and untracked, each used row of weight whose norm_type-norm exceeds
    max_norm down to max_norm (the 1e-7 keeps the division finite)."""
    if len(used) == 0:
        return
    index = sdk.tensor(used)
    with sdk.no_grad():
        rows = weight.index_select(0, index)
        norms = sdk.linalg.vector_norm(rows, norm_type, dim=1, keepdim=True)
        scale = sdk.where(norms > max_norm, max_norm / (norms + 1e-7), sdk.ones_like(norms))
        weight.index_copy_(0, index, rows * scale)


def embedding_bag(input: Any, weight: Any, offsets: Any = None, max_norm: Any = None,
                  norm_type: float = 2, scale_grad_by_freq: bool = False, mode: str = "mean",
                  sparse: bool = False, per_sample_weights: Any = None,
                  include_last_offset: bool = False, padding_idx: Any = None) -> Any:  # fmt: skip
    """Reduce (sum, mean or max) the weight rows picked by each bag of input: the rows of a
    2-D input, or the slices of a 1-D input that offsets start; (num_bags, embedding_dim)."""
    _check_indices(input, offsets, weight)
    if scale_grad_by_freq or sparse:
        raise NotImplementedError("embedding_bag: scale_grad_by_freq and sparse are not supported")
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
    import numpy as np

    flat = np.asarray(input.reshape(-1).numpy(), dtype=np.int64)
    bad = flat[(flat < 0) | (flat >= num)]
    if len(bad):
        raise IndexError(f"embedding_bag: index {int(bad[0])} is out of range for {num} embeddings")
    bag_of, bags = _bag_of_entries(input, offsets, include_last_offset)
    if max_norm is not None:
        _renorm_rows_(weight, np.unique(flat), float(max_norm), float(norm_type))
    counted = flat != (-1 if padding_idx is None else padding_idx)
    pos = np.nonzero(counted)[0]
    bag = bag_of[pos]
    counts = np.bincount(bag, minlength=bags)
    if bags == 0 or len(pos) == 0:  # nothing read: zeros, with no history
        return sdk.zeros(bags, dim, dtype=weight.dtype, device=weight.device)
    return _reduce(weight, flat, pos, bag, counts, per_sample_weights, mode)
