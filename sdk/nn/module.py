"""nn.Module: the base class of layers (registration, traversal, state_dict, hooks, casts)."""

from __future__ import annotations

from collections import OrderedDict, namedtuple
from typing import Any, Callable, Iterator

import sdk
from sdk import _C
from sdk.grad_mode import _zero_grad, no_grad

from .parameter import Parameter

__all__ = ["Module"]


_TensorBase = _C.TensorBase


_HOOK_TABLES = ("_forward_pre_hooks", "_forward_hooks", "_backward_pre_hooks", "_backward_hooks")


_IncompatibleKeys = namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])


class Module:
    """Base class of layers: parameters, buffers and submodules are registered by assignment."""

    training: bool

    def __init__(self) -> None:
        object.__setattr__(self, "training", True)
        object.__setattr__(self, "_parameters", OrderedDict())
        object.__setattr__(self, "_buffers", OrderedDict())
        object.__setattr__(self, "_non_persistent", set())
        object.__setattr__(self, "_modules", OrderedDict())
        for name in _HOOK_TABLES:
            object.__setattr__(self, name, OrderedDict())

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(
            f'Module [{type(self).__name__}] is missing the required "forward" function'
        )

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        d = self.__dict__
        if (d.get("_forward_pre_hooks") or d.get("_forward_hooks")
                or d.get("_backward_pre_hooks") or d.get("_backward_hooks")):  # fmt: skip
            from ._hooks import call_with_hooks  # lazy: imports sdk.autograd (numpy, ~100 ms)

            return call_with_hooks(self, args, kwargs)
        return self.forward(*args, **kwargs)

    # ----------------------------------------------------------------- hooks

    def _add_hook(self, table: str, entry: tuple, prepend: bool) -> Any:
        from sdk.utils.hooks import RemovableHandle  # lazy: sdk.utils loads sdk.utils.data

        if not callable(entry[0]):
            raise TypeError(f"hook must be callable, not {type(entry[0]).__name__}")
        self._check_init()
        hooks = self.__dict__.setdefault(table, OrderedDict())
        handle = RemovableHandle(hooks)
        hooks[handle.id] = entry
        if prepend:
            hooks.move_to_end(handle.id, last=False)
        return handle

    def register_forward_pre_hook(self, hook: Callable, *, prepend: bool = False,
                                  with_kwargs: bool = False) -> Any:  # fmt: skip
        """hook(module, args) -> None or new args (with_kwargs: hook(module, args, kwargs)
        -> None or (args, kwargs)), run before forward."""
        return self._add_hook("_forward_pre_hooks", (hook, with_kwargs), prepend)

    def register_forward_hook(self, hook: Callable, *, prepend: bool = False,
                              with_kwargs: bool = False, always_call: bool = False) -> Any:  # fmt: skip
        """hook(module, args, output) -> None or a new output (with_kwargs: hook(module, args,
        kwargs, output)), run after forward (always_call: also when forward raised)."""
        return self._add_hook("_forward_hooks", (hook, with_kwargs, always_call), prepend)

    def register_full_backward_pre_hook(self, hook: Callable, prepend: bool = False) -> Any:
        """hook(module, grad_output) -> None or a new grad_output, run when the gradients of
        the module's outputs are known."""
        return self._add_hook("_backward_pre_hooks", (hook,), prepend)

    def register_full_backward_hook(self, hook: Callable, prepend: bool = False) -> Any:
        """hook(module, grad_input, grad_output) -> None or a new grad_input, run when the
        gradients of the module's tensor inputs are computed."""
        return self._add_hook("_backward_hooks", (hook,), prepend)

    # ----------------------------------------------------------------- registration

    def _check_init(self) -> None:
        if "_parameters" not in self.__dict__:
            raise AttributeError(
                f"cannot assign to {type(self).__name__} before Module.__init__() call"
            )

    def __setattr__(self, name: str, value: Any) -> None:
        d = self.__dict__
        if isinstance(value, Parameter):
            self._check_init()
            self._remove_from(name, keep="_parameters")
            d["_parameters"][name] = value
        elif isinstance(value, Module):
            self._check_init()
            self._remove_from(name, keep="_modules")
            d["_modules"][name] = value
        elif "_parameters" in d and name in d["_parameters"]:
            if value is not None:
                raise TypeError(
                    f"cannot assign '{type(value).__name__}' as parameter '{name}' "
                    "(sdk.nn.Parameter or None expected)"
                )
            d["_parameters"][name] = None
        elif "_modules" in d and name in d["_modules"]:
            if value is not None:
                raise TypeError(
                    f"cannot assign '{type(value).__name__}' as child module '{name}' (Module or None expected)"
                )
            d["_modules"][name] = None
        elif "_buffers" in d and name in d["_buffers"]:
            if value is not None and not isinstance(value, _TensorBase):
                raise TypeError(
                    f"cannot assign '{type(value).__name__}' as buffer '{name}' (Tensor or None expected)"
                )
            d["_buffers"][name] = value
        else:
            object.__setattr__(self, name, value)

    def _remove_from(self, name: str, keep: str) -> None:
        d = self.__dict__
        d.pop(name, None)
        for store in ("_parameters", "_buffers", "_modules"):
            if store != keep:
                d[store].pop(name, None)
        d["_non_persistent"].discard(name)

    def __getattr__(self, name: str) -> Any:
        d = self.__dict__
        for store in ("_parameters", "_buffers", "_modules"):
            table = d.get(store)
            if table is not None and name in table:
                return table[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name: str) -> None:
        for store in ("_parameters", "_buffers", "_modules"):
            if name in self.__dict__[store]:
                del self.__dict__[store][name]
                self.__dict__["_non_persistent"].discard(name)
                return
        object.__delattr__(self, name)

    def __dir__(self) -> list:
        extra = list(self._parameters) + list(self._buffers) + list(self._modules)
        return sorted(set(super().__dir__()) | set(extra))

    def register_parameter(self, name: str, param: Parameter | None) -> None:
        if "." in name or not name:
            raise KeyError(f'parameter name can\'t contain "." or be empty, got {name!r}')
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(
                f"cannot assign '{type(param).__name__}' object to parameter '{name}' (sdk.nn.Parameter or None required)"
            )
        self._check_init()
        self._remove_from(name, keep="_parameters")
        self._parameters[name] = param

    def register_buffer(self, name: str, tensor: Any, persistent: bool = True) -> None:
        if "." in name or not name:
            raise KeyError(f'buffer name can\'t contain "." or be empty, got {name!r}')
        if tensor is not None and not isinstance(tensor, _TensorBase):
            raise TypeError(
                f"cannot assign '{type(tensor).__name__}' object to buffer '{name}' (Tensor or None required)"
            )
        self._check_init()
        self._remove_from(name, keep="_buffers")
        self._buffers[name] = tensor
        if not persistent:
            self._non_persistent.add(name)

    def add_module(self, name: str, module: Module | None) -> None:
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"{type(module).__name__} is not a Module subclass")
        if "." in name or not name:
            raise KeyError(f'module name can\'t contain "." or be empty, got {name!r}')
        self._check_init()
        self._remove_from(name, keep="_modules")
        self._modules[name] = module

    register_module = add_module

    # ----------------------------------------------------------------- traversal

    def named_modules(
        self, memo: set | None = None, prefix: str = "", remove_duplicate: bool = True
    ) -> Iterator:
        if memo is None:
            memo = set()
        if remove_duplicate:
            if id(self) in memo:
                return
            memo.add(id(self))
        yield prefix, self
        for name, module in self._modules.items():
            if module is None:
                continue
            sub = prefix + ("." if prefix else "") + name
            yield from module.named_modules(memo, sub, remove_duplicate)

    def modules(self) -> Iterator[Module]:
        for _, m in self.named_modules():
            yield m

    def named_children(self) -> Iterator:
        seen = set()
        for name, m in self._modules.items():
            if m is not None and id(m) not in seen:
                seen.add(id(m))
                yield name, m

    def children(self) -> Iterator[Module]:
        for _, m in self.named_children():
            yield m

    def _named_members(
        self, store: str, prefix: str, recurse: bool, remove_duplicate: bool = True
    ) -> Iterator:
        seen: set = set()
        mods = self.named_modules(prefix=prefix) if recurse else [(prefix, self)]
        for mod_prefix, mod in mods:
            for name, v in getattr(mod, store).items():
                if v is None or (remove_duplicate and id(v) in seen):
                    continue
                seen.add(id(v))
                yield mod_prefix + ("." if mod_prefix else "") + name, v

    def named_parameters(
        self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True
    ) -> Iterator:
        yield from self._named_members("_parameters", prefix, recurse, remove_duplicate)

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_buffers(
        self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True
    ) -> Iterator:
        yield from self._named_members("_buffers", prefix, recurse, remove_duplicate)

    def buffers(self, recurse: bool = True) -> Iterator:
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    def get_submodule(self, target: str) -> Module:
        mod = self
        for item in target.split(".") if target else []:
            if item not in mod._modules or mod._modules[item] is None:
                raise AttributeError(f"{type(mod).__name__} has no submodule `{item}`")
            mod = mod._modules[item]
        return mod

    def apply(self, fn: Callable[[Module], None]) -> Module:
        for m in self.children():
            m.apply(fn)
        fn(self)
        return self

    # ----------------------------------------------------------------- modes, grads, dtype

    def train(self, mode: bool = True) -> Module:
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        for m in self.modules():
            object.__setattr__(m, "training", mode)
        return self

    def eval(self) -> Module:
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> Module:
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        for p in self.parameters():
            _zero_grad(p, set_to_none)

    def to(self, *args: Any, **kwargs: Any) -> Module:
        """Cast floating parameters and buffers: ``to(dtype)``; devices other than cpu are refused."""
        dtype = kwargs.pop("dtype", None)
        device = kwargs.pop("device", None)
        for a in args:
            if isinstance(a, sdk.dtype):
                dtype = a
            else:
                device = a
        if kwargs:
            raise TypeError(f"Module.to: unexpected arguments {sorted(kwargs)}")
        if device is not None and str(device) not in ("cpu", "cpu:0"):
            raise NotImplementedError(f"Module.to: only the cpu device is supported, got {device}")
        if dtype is None:
            return self
        return self._cast(dtype)

    def _cast(self, dtype: Any) -> Module:
        with no_grad():
            for m in self.modules():
                for name, p in list(m._parameters.items()):
                    if p is None or not p.is_floating_point() or p.dtype == dtype:
                        continue
                    newp = Parameter(p.to(dtype), p._requires_grad)
                    if p.grad is not None:
                        newp.grad = p.grad.to(dtype)
                    m._parameters[name] = newp
                for name, b in list(m._buffers.items()):
                    if b is not None and b.is_floating_point() and b.dtype != dtype:
                        m._buffers[name] = b.to(dtype)
        return self

    def float(self) -> Module:
        return self._cast(sdk.float32)

    def double(self) -> Module:
        return self._cast(sdk.float64)

    def half(self) -> Module:
        return self._cast(sdk.float16)

    def cpu(self) -> Module:
        return self

    def cuda(self, device: Any = None) -> Module:
        """Module.to("cuda"): refused with NotImplementedError until modules can move
        (so a ported ``model.cuda()`` fails saying why)."""
        name = "cuda" if device is None else f"cuda:{device}" if isinstance(device, int) else device
        return self.to(device=name)

    # ----------------------------------------------------------------- state dict

    def state_dict(
        self, *args: Any, destination: Any = None, prefix: str = "", keep_vars: bool = False
    ) -> OrderedDict:
        if args:  # torch's old positional form: (destination, prefix, keep_vars)
            destination = args[0]
            if len(args) > 1:
                prefix = args[1]
            if len(args) > 2:
                keep_vars = args[2]
        if destination is None:
            destination = OrderedDict()
        for name, p in self._parameters.items():
            if p is not None:
                destination[prefix + name] = p if keep_vars else _C._alias(p)
        for name, b in self._buffers.items():
            if b is not None and name not in self._non_persistent:
                destination[prefix + name] = b if keep_vars else _C._alias(b)
        for name, m in self._modules.items():
            if m is not None:
                m.state_dict(
                    destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars
                )
        return destination

    def load_state_dict(self, state_dict: Any, strict: bool = True, assign: bool = False) -> Any:
        """Copy values in place (dtype cast); report missing/unexpected keys and shape mismatches."""
        if not hasattr(state_dict, "items"):
            raise TypeError(
                f"Expected state_dict to be dict-like, got {type(state_dict).__name__}."
            )
        own = self.state_dict(keep_vars=True)
        missing = [k for k in own if k not in state_dict]
        unexpected = [k for k in state_dict if k not in own]
        errors = []
        for k, target in own.items():
            if k not in state_dict:
                continue
            value = state_dict[k]
            if not isinstance(value, _TensorBase):
                errors.append(
                    f'While copying the parameter named "{k}", expected a Tensor, got {type(value).__name__}.'
                )
                continue
            if tuple(value.shape) != tuple(target.shape):
                errors.append(
                    f"size mismatch for {k}: copying a param with shape {list(value.shape)} from "
                    f"checkpoint, the shape in current model is {list(target.shape)}."
                )
        if strict:
            if unexpected:
                errors.insert(
                    0,
                    "Unexpected key(s) in state_dict: "
                    + ", ".join(f'"{k}"' for k in unexpected)
                    + ". ",
                )
            if missing:
                errors.insert(
                    0,
                    "Missing key(s) in state_dict: " + ", ".join(f'"{k}"' for k in missing) + ". ",
                )
        if errors:
            raise RuntimeError(
                f"Error(s) in loading state_dict for {type(self).__name__}:\n\t"
                + "\n\t".join(errors)
            )
        with no_grad():
            for k, target in own.items():
                if k in state_dict:
                    target.copy_(state_dict[k])
        return _IncompatibleKeys(missing, unexpected)

    # ----------------------------------------------------------------- repr

    def extra_repr(self) -> str:
        return ""

    def __repr__(self) -> str:
        lines = []
        extra = self.extra_repr()
        if extra:
            lines = extra.split("\n")
        for name, m in self._modules.items():
            sub = repr(m).replace("\n", "\n  ")
            lines.append(f"({name}): {sub}")
        main = type(self).__name__ + "("
        if not lines:
            return main + ")"
        if len(lines) == 1 and not self._modules:
            return main + lines[0] + ")"
        return main + "\n  " + "\n  ".join(lines) + "\n)"
