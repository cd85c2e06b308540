"""Containers (ModuleDict, ParameterList, ParameterDict) and the reshaping layers Flatten and
Unflatten."""

from __future__ import annotations

from collections import OrderedDict
from typing import Any, Iterable, Iterator, Mapping

from sdk import _C

from ._norm_pool import check_tensor
from .modules import Module, _index
from .parameter import Parameter

__all__ = ["ModuleDict", "ParameterList", "ParameterDict", "Flatten", "Unflatten"]


def _items(values: Any, who: str) -> Iterable:
    if isinstance(values, (Mapping, ModuleDict, ParameterDict)):
        return values.items()
    try:
        pairs = list(values)
    except TypeError:
        raise TypeError(
            f"{who}.update: expected a mapping or pairs, not {type(values).__name__}"
        ) from None
    for i, p in enumerate(pairs):
        if not isinstance(p, (tuple, list)) or len(p) != 2:
            raise ValueError(f"{who}.update: element #{i} should be a (key, value) pair")
    return pairs


class ModuleDict(Module):
    """Modules by name, registered as children (insertion ordered)."""

    def __init__(self, modules: Any = None) -> None:
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key: str) -> Module:
        return self._modules[key]

    def __setitem__(self, key: str, module: Module) -> None:
        self.add_module(key, module)

    def __delitem__(self, key: str) -> None:
        del self._modules[key]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[str]:
        return iter(self._modules)

    def __contains__(self, key: object) -> bool:
        return key in self._modules

    def clear(self) -> None:
        self._modules.clear()

    def pop(self, key: str) -> Module:
        v = self[key]
        del self[key]
        return v

    def keys(self) -> Any:
        return self._modules.keys()

    def items(self) -> Any:
        return self._modules.items()

    def values(self) -> Any:
        return self._modules.values()

    def update(self, modules: Any) -> None:
        for k, m in _items(modules, "ModuleDict"):
            self[k] = m


def _as_param(value: Any) -> Any:
    if isinstance(value, _C.TensorBase) and not isinstance(value, Parameter):
        return Parameter(value)
    return value


class ParameterList(Module):
    """Parameters in a list, registered under the names "0", "1", ... (plain tensors are
    wrapped in Parameter)."""

    def __init__(self, values: Iterable[Any] | None = None) -> None:
        super().__init__()
        self._size = 0
        if values is not None:
            self.extend(values)

    def __len__(self) -> int:
        return self._size

    def __getitem__(self, idx: Any) -> Any:
        if isinstance(idx, slice):
            return ParameterList([self[i] for i in range(self._size)[idx]])
        return getattr(self, str(_index(idx, self._size)))

    def __setitem__(self, idx: int, value: Any) -> None:
        self._set(str(_index(idx, self._size)), value)

    def _set(self, name: str, value: Any) -> None:
        value = _as_param(value)
        if isinstance(value, Parameter):
            self.register_parameter(name, value)
        else:
            self._remove_from(name, keep="")
            object.__setattr__(self, name, value)

    def __iter__(self) -> Iterator[Any]:
        return (self[i] for i in range(self._size))

    def append(self, value: Any) -> ParameterList:
        self._size += 1
        self._set(str(self._size - 1), value)
        return self

    def extend(self, values: Iterable[Any]) -> ParameterList:
        if isinstance(values, _C.TensorBase) or not isinstance(values, Iterable):
            raise TypeError(
                f"ParameterList.extend should be called with an iterable, but got {type(values).__name__}"
            )
        for v in values:
            self.append(v)
        return self

    def extra_repr(self) -> str:
        return "\n".join(
            f"({i}): Parameter containing: {list(p.shape)}" for i, p in enumerate(self)
        )


class ParameterDict(Module):
    """Parameters by name (plain tensors are wrapped in Parameter)."""

    def __init__(self, parameters: Any = None) -> None:
        super().__init__()
        self._keys: OrderedDict = OrderedDict()
        if parameters is not None:
            self.update(parameters)

    def __getitem__(self, key: str) -> Any:
        return getattr(self, key)

    def __setitem__(self, key: str, value: Any) -> None:
        if not isinstance(key, str):
            raise TypeError(f"ParameterDict keys must be str, not {type(key).__name__}")
        self._keys[key] = None
        value = _as_param(value)
        if isinstance(value, Parameter):
            self.register_parameter(key, value)
        else:
            self._remove_from(key, keep="")
            object.__setattr__(self, key, value)

    def __delitem__(self, key: str) -> None:
        del self._keys[key]
        delattr(self, key)

    def __len__(self) -> int:
        return len(self._keys)

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys)

    def __contains__(self, key: object) -> bool:
        return key in self._keys

    def keys(self) -> Any:
        return self._keys.keys()

    def items(self) -> Any:
        return [(k, self[k]) for k in self._keys]

    def values(self) -> Any:
        return [self[k] for k in self._keys]

    def get(self, key: str, default: Any = None) -> Any:
        return self[key] if key in self else default

    def pop(self, key: str) -> Any:
        v = self[key]
        del self[key]
        return v

    def clear(self) -> None:
        for k in list(self._keys):
            del self[k]

    def update(self, parameters: Any) -> None:
        for k, v in _items(parameters, "ParameterDict"):
            self[k] = v


class Flatten(Module):
    """input.flatten(start_dim, end_dim) (batch dim kept by default)."""

    def __init__(self, start_dim: int = 1, end_dim: int = -1) -> None:
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def forward(self, input: Any) -> Any:
        check_tensor(input, "Flatten")
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self) -> str:
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Unflatten(Module):
    """Split dim `dim` of the input into the shape unflattened_size (one entry may be -1)."""

    def __init__(self, dim: int, unflattened_size: Any) -> None:
        super().__init__()
        if isinstance(unflattened_size, int) or not all(
            isinstance(s, int) and not isinstance(s, bool) for s in unflattened_size
        ):
            raise TypeError(
                f"Unflatten: unflattened_size must be a tuple of ints, got {unflattened_size!r}"
            )
        self.dim, self.unflattened_size = dim, tuple(unflattened_size)

    def forward(self, input: Any) -> Any:
        check_tensor(input, "Unflatten")
        n = input.ndim
        if not -n <= self.dim < n:
            raise IndexError(f"Unflatten: dim {self.dim} is out of range for a {n}-d input")
        d = self.dim % n
        shape = list(input.shape)
        shape[d : d + 1] = self.unflattened_size
        return input.reshape(shape)

    def extra_repr(self) -> str:
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"
