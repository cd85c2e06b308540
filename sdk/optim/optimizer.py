"""Optimizer base: param_groups, per-parameter state, zero_grad, state_dict/load_state_dict."""

from __future__ import annotations

import copy
from typing import Any, Callable, Iterable

from sdk import _C
from sdk.grad_mode import _zero_grad, enable_grad

__all__ = ["Optimizer", "required"]

_TensorBase = _C.TensorBase


class _Required:
    def __repr__(self) -> str:
        return "<required parameter>"


required: Any = _Required()


class _ParamState(dict):
    """{param: state dict}, keyed by parameter identity (tensors compare elementwise)."""

    def __init__(self) -> None:
        super().__init__()
        self._params: dict = {}

    def __getitem__(self, p: Any) -> dict:
        key = id(p)
        if key not in self._params:
            self._params[key] = p
            super().__setitem__(key, {})
        return super().__getitem__(key)

    def __setitem__(self, p: Any, value: dict) -> None:
        self._params[id(p)] = p
        super().__setitem__(id(p), value)

    def __contains__(self, p: object) -> bool:
        return super().__contains__(id(p))

    def get(self, p: Any, default: Any = None) -> Any:
        return super().get(id(p), default)

    def items(self) -> Any:  # type: ignore[override]
        return [(self._params[k], v) for k, v in super().items()]

    def keys(self) -> Any:  # type: ignore[override]
        return [self._params[k] for k in super().keys()]

    def __iter__(self) -> Any:
        return iter(self.keys())


class Optimizer:
    """Holds param_groups (dicts with "params" and hyperparameters) and per-parameter state."""

    def __init__(self, params: Iterable[Any], defaults: dict) -> None:
        self.defaults = defaults
        self.state = _ParamState()
        self.param_groups: list[dict] = []
        if isinstance(params, _TensorBase):
            raise TypeError(
                "params argument given to the optimizer should be an iterable of Tensors or dicts, "
                f"but got {type(params).__name__}"
            )
        groups = list(params)
        if not groups:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for g in groups:
            self.add_param_group(g)

    def add_param_group(self, param_group: dict) -> None:
        group = dict(param_group)
        params = group["params"]
        group["params"] = [params] if isinstance(params, _TensorBase) else list(params)
        for p in group["params"]:
            if not isinstance(p, _TensorBase):
                raise TypeError(
                    f"optimizer can only optimize Tensors, but one of the params is {type(p).__name__}"
                )
            if p.grad_fn is not None:
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in group:
                raise ValueError(
                    f"parameter group didn't specify a value of required optimization parameter {name}"
                )
            group.setdefault(name, default)
        seen = {id(p) for g in self.param_groups for p in g["params"]}
        if any(id(p) in seen for p in group["params"]):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(group)

    def zero_grad(self, set_to_none: bool = True) -> None:
        for group in self.param_groups:
            for p in group["params"]:
                _zero_grad(p, set_to_none)

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        raise NotImplementedError

    def _step_each(self, closure: Callable[[], Any] | None) -> Any:
        """step() of an optimizer written as `_update(p, group)`: the closure's loss, then
        the update of every parameter that has a gradient."""
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is not None:
                    self._update(p, group)
        return loss

    def _update(self, p: Any, group: dict) -> None:
        raise NotImplementedError

    def _closure_loss(self, closure: Callable[[], Any] | None) -> Any:
        if closure is None:
            return None
        with enable_grad():
            return closure()

    def state_dict(self) -> dict:
        """{"state": {index: {...}}, "param_groups": [{..., "params": [index, ...]}]}."""
        index: dict = {}
        groups = []
        for g in self.param_groups:
            ids = []
            for p in g["params"]:
                index.setdefault(id(p), len(index))
                ids.append(index[id(p)])
            packed = {k: v for k, v in g.items() if k != "params"}
            packed["params"] = ids
            groups.append(packed)
        state = {}
        for p, s in self.state.items():
            if id(p) in index and s:
                state[index[id(p)]] = dict(s)
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict: dict) -> None:
        groups = state_dict["param_groups"]
        if len(groups) != len(self.param_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        for mine, theirs in zip(self.param_groups, groups):
            if len(mine["params"]) != len(theirs["params"]):
                raise ValueError(
                    "loaded state dict contains a parameter group that doesn't match the size of optimizer's group"
                )
        by_index = {}
        for mine, theirs in zip(self.param_groups, groups):
            for p, i in zip(mine["params"], theirs["params"]):
                by_index[i] = p
        self.state = _ParamState()
        for i, s in state_dict["state"].items():
            p = by_index.get(int(i))
            if p is None:
                continue
            self.state[p] = {k: _cast_state(v, p) for k, v in s.items()}
        for mine, theirs in zip(self.param_groups, groups):
            for k, v in theirs.items():
                if k != "params":
                    mine[k] = copy.deepcopy(v)

    def __repr__(self) -> str:
        lines = [type(self).__name__ + " ("]
        for i, g in enumerate(self.param_groups):
            lines.append(f"Parameter Group {i}")
            for k in sorted(k for k in g if k != "params"):
                lines.append(f"    {k}: {g[k]}")
        lines.append(")")
        return "\n".join(lines)


def _cast_state(v: Any, p: Any) -> Any:
    if isinstance(v, _TensorBase):
        v = _C.clone(_C._alias(v))
        if v.is_floating_point() and v.dtype != p.dtype:
            v = v.to(p.dtype)
        return v
    return copy.deepcopy(v)
