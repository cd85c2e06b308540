"""Containers: Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict."""

from __future__ import annotations

from collections import OrderedDict
from typing import Any, Iterable, Iterator, Mapping

from sdk import _C

from .module import Module
from .parameter import Parameter

__all__ = ["Sequential", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict"]


class Sequential(Module):
    """Modules run in order; ``Sequential(a, b)`` or ``Sequential(OrderedDict(name=module))``."""

    def __init__(self, *args: Any) -> None:
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for name, m in args[0].items():
                self.add_module(name, m)
        else:
            for i, m in enumerate(args):
                self.add_module(str(i), m)

    def forward(self, input: Any) -> Any:
        for m in self._modules.values():
            input = m(input)
        return input

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def __getitem__(self, idx: Any) -> Any:
        if isinstance(idx, slice):
            return Sequential(OrderedDict(list(self._modules.items())[idx]))
        return list(self._modules.values())[_index(idx, len(self))]

    def append(self, module: Module) -> Sequential:
        self.add_module(str(len(self)), module)
        return self


def _index(idx: int, n: int) -> int:
    if not -n <= idx < n:
        raise IndexError(f"index {idx} is out of range")
    return idx % n


class ModuleList(Module):
    """A list of modules, registered as children (indexable, iterable)."""

    def __init__(self, modules: Iterable[Module] | None = None) -> None:
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def __getitem__(self, idx: Any) -> Any:
        if isinstance(idx, slice):
            return ModuleList(list(self._modules.values())[idx])
        return list(self._modules.values())[_index(idx, len(self))]

    def __setitem__(self, idx: int, module: Module) -> None:
        self.add_module(str(_index(idx, len(self))), module)

    def append(self, module: Module) -> ModuleList:
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules: Iterable[Module]) -> ModuleList:
        for m in modules:
            self.append(m)
        return self


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
