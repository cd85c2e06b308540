"""Collation: a list of samples -> one batch (default_collate), and numpy -> tensors for
unbatched loading (default_convert)."""

from __future__ import annotations

import collections.abc
import copy
from typing import Any, Callable

import sdk

__all__ = ["collate", "default_collate", "default_convert"]

_ERR = (
    "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}"
)


def _is_numpy(x: Any) -> bool:
    return type(x).__module__ == "numpy"


def _bad_numpy_dtype(x: Any) -> bool:
    return x.dtype.kind in "SaUO"  # strings and objects


def _stack(batch: list, collate_fn_map: Any) -> Any:
    return sdk.stack(batch, 0)


def _numpy_array(batch: list, collate_fn_map: Any) -> Any:
    if _bad_numpy_dtype(batch[0]):
        raise TypeError(_ERR.format(batch[0].dtype))
    return collate([sdk.as_tensor(b) for b in batch], collate_fn_map=collate_fn_map)


def _numpy_scalar(batch: list, collate_fn_map: Any) -> Any:
    import numpy as np

    return sdk.as_tensor(np.asarray(batch))


def _float(batch: list, collate_fn_map: Any) -> Any:
    return sdk.tensor(batch, dtype=sdk.float64)


def _int(batch: list, collate_fn_map: Any) -> Any:
    return sdk.tensor(batch)


def _str(batch: list, collate_fn_map: Any) -> Any:
    return batch


def _default_map() -> dict:
    return {sdk.Tensor: _stack, float: _float, int: _int, str: _str, bytes: _str}


def collate(batch: Any, *, collate_fn_map: dict | None = None) -> Any:
    """Collate `batch` by the type of its first element: `collate_fn_map` maps types to
    ``fn(batch, *, collate_fn_map)``; mappings, namedtuples and sequences recurse."""
    elem = batch[0]
    elem_type = type(elem)
    if collate_fn_map is not None:
        if elem_type in collate_fn_map:
            return collate_fn_map[elem_type](batch, collate_fn_map=collate_fn_map)
        for kind, fn in collate_fn_map.items():
            if isinstance(elem, kind):
                return fn(batch, collate_fn_map=collate_fn_map)
    if _is_numpy(elem) and elem_type.__name__ not in ("str_", "bytes_"):
        if elem_type.__name__ in ("ndarray", "memmap"):
            return _numpy_array(batch, collate_fn_map)
        if getattr(elem, "shape", None) == ():
            return _numpy_scalar(batch, collate_fn_map)
    if isinstance(elem, collections.abc.Mapping):
        try:
            if isinstance(elem, collections.abc.MutableMapping):
                out = copy.copy(elem)
                out.update({k: collate([d[k] for d in batch], collate_fn_map=collate_fn_map)
                            for k in elem})  # fmt: skip
                return out
            return elem_type(
                {k: collate([d[k] for d in batch], collate_fn_map=collate_fn_map) for k in elem}
            )
        except TypeError:  # a mapping type that copy/update/its constructor does not suit
            return {k: collate([d[k] for d in batch], collate_fn_map=collate_fn_map) for k in elem}
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):  # namedtuple
        return elem_type(*(collate(list(s), collate_fn_map=collate_fn_map) for s in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        size = len(elem)
        if any(len(e) != size for e in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        transposed = [list(s) for s in zip(*batch)]
        if isinstance(elem, tuple):  # as torch: tuples of samples become lists of batches
            return [collate(s, collate_fn_map=collate_fn_map) for s in transposed]
        try:
            if isinstance(elem, collections.abc.MutableSequence):
                out = copy.copy(elem)
                for i, s in enumerate(transposed):
                    out[i] = collate(s, collate_fn_map=collate_fn_map)
                return out
            return elem_type([collate(s, collate_fn_map=collate_fn_map) for s in transposed])
        except TypeError:
            return [collate(s, collate_fn_map=collate_fn_map) for s in transposed]
    raise TypeError(_ERR.format(elem_type))


_MAP: dict | None = None


def default_collate(batch: Any) -> Any:
    """Stack tensors (and numpy arrays) along a new first dim; numbers become a tensor
    (floats float64, ints int64, bools bool); strings stay a list; dicts, namedtuples,
    tuples and lists are collated field by field (tuples give lists, as in torch)."""
    global _MAP
    if _MAP is None:
        _MAP = _default_map()
    return collate(batch, collate_fn_map=_MAP)


def default_convert(data: Any) -> Any:
    """numpy arrays (and numpy numbers) -> tensors, recursively through mappings and
    sequences; everything else unchanged (the collate_fn when batch_size=None)."""
    if _is_numpy(data):
        if type(data).__name__ in ("ndarray", "memmap"):
            return data if _bad_numpy_dtype(data) else sdk.as_tensor(data)
        if getattr(data, "shape", None) == () and type(data).__name__ not in ("str_", "bytes_"):
            return sdk.as_tensor(data)
        return data
    if isinstance(data, collections.abc.Mapping):
        try:
            if isinstance(data, collections.abc.MutableMapping):
                out = copy.copy(data)
                out.update({k: default_convert(v) for k, v in data.items()})
                return out
            return type(data)({k: default_convert(v) for k, v in data.items()})
        except TypeError:
            return {k: default_convert(v) for k, v in data.items()}
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        try:
            if isinstance(data, collections.abc.MutableSequence):
                out = copy.copy(data)
                for i, d in enumerate(data):
                    out[i] = default_convert(d)
                return out
            return type(data)([default_convert(d) for d in data])
        except TypeError:
            return [default_convert(d) for d in data]
    return data


CollateFn = Callable[[list], Any]
