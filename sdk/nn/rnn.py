"""Recurrent layers: RNN (tanh / relu), LSTM and GRU, and their single-step cells RNNCell,
LSTMCell and GRUCell; stacked, bidirectional, batch_first,
with torch's parameter names and gate layouts (LSTM: i, f, g, o; GRU: r, z, n)."""

from __future__ import annotations

import math
from typing import Any

import sdk

from . import functional as F
from . import init
from ._functional.common import check_tensor
from .module import Module
from .parameter import Parameter

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]


_GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}


def _rnn_cell(mode: str) -> Any:
    def tanh_cell(gi: Any, h: Any, w_hh: Any, b_hh: Any, c: Any) -> tuple:
        return sdk.tanh(gi + F.linear(h, w_hh, b_hh)), None

    def relu_cell(gi: Any, h: Any, w_hh: Any, b_hh: Any, c: Any) -> tuple:
        return sdk.relu(gi + F.linear(h, w_hh, b_hh)), None

    def lstm_cell(gi: Any, h: Any, w_hh: Any, b_hh: Any, c: Any) -> tuple:
        i, f, g, o = (gi + F.linear(h, w_hh, b_hh)).chunk(4, -1)
        c = sdk.sigmoid(f) * c + sdk.sigmoid(i) * sdk.tanh(g)
        return sdk.sigmoid(o) * sdk.tanh(c), c

    def gru_cell(gi: Any, h: Any, w_hh: Any, b_hh: Any, c: Any) -> tuple:
        i_r, i_z, i_n = gi.chunk(3, -1)
        h_r, h_z, h_n = F.linear(h, w_hh, b_hh).chunk(3, -1)
        r = sdk.sigmoid(i_r + h_r)
        z = sdk.sigmoid(i_z + h_z)
        n = sdk.tanh(i_n + r * h_n)
        return n + z * (h - n), None

    return {"RNN_TANH": tanh_cell, "RNN_RELU": relu_cell, "LSTM": lstm_cell,
            "GRU": gru_cell}[mode]  # fmt: skip


def _uniform_by_hidden_size(module: Module) -> None:
    """torch's initialisation of recurrent layers and cells: every parameter drawn from
    U(-1/sqrt(hidden_size), 1/sqrt(hidden_size))."""
    bound = 1.0 / math.sqrt(module.hidden_size)
    for p in module.parameters():
        init.uniform_(p, -bound, bound)


class RNNBase(Module):
    """Shared by RNN, LSTM and GRU: parameters weight_ih_l{k}[_reverse], weight_hh_l{k},
    bias_ih_l{k}, bias_hh_l{k}, all initialized U(-1/sqrt(hidden_size), 1/sqrt(hidden_size))."""

    def __init__(self, mode: str, input_size: int, hidden_size: int, num_layers: int = 1,
                 bias: bool = True, batch_first: bool = False, dropout: float = 0.0,
                 bidirectional: bool = False, proj_size: int = 0, device: Any = None,
                 dtype: Any = None) -> None:  # fmt: skip
        super().__init__()
        who = type(self).__name__
        for name, v in (("input_size", input_size), ("hidden_size", hidden_size),
                        ("num_layers", num_layers)):  # fmt: skip
            if isinstance(v, bool) or not isinstance(v, int) or v <= 0:
                raise ValueError(f"{who}: {name} must be a positive int, got {v!r}")
        if not 0 <= dropout <= 1 or isinstance(dropout, bool):
            raise ValueError(f"{who}: dropout should be a number in range [0, 1], got {dropout!r}")
        if proj_size:
            raise NotImplementedError(f"{who}: proj_size is not supported")
        self.mode, self.input_size, self.hidden_size = mode, input_size, hidden_size
        self.num_layers, self.bias, self.batch_first = num_layers, bias, batch_first
        self.dropout, self.bidirectional, self.proj_size = float(dropout), bidirectional, 0
        kw = {} if dtype is None else {"dtype": dtype}
        gate = _GATES[mode] * hidden_size
        dirs = 2 if bidirectional else 1
        self._flat_weights_names = []
        for layer in range(num_layers):
            layer_in = input_size if layer == 0 else hidden_size * dirs
            for suffix in ("", "_reverse")[:dirs]:
                names = [f"weight_ih_l{layer}{suffix}", f"weight_hh_l{layer}{suffix}"]
                shapes = [(gate, layer_in), (gate, hidden_size)]
                if bias:
                    names += [f"bias_ih_l{layer}{suffix}", f"bias_hh_l{layer}{suffix}"]
                    shapes += [(gate,), (gate,)]
                for name, shape in zip(names, shapes):
                    setattr(self, name, Parameter(sdk.empty(shape, **kw)))
                self._flat_weights_names += names
        self.reset_parameters()
        if device is not None:
            self.to(device)

    def reset_parameters(self) -> None:
        _uniform_by_hidden_size(self)

    def _layer_params(self, layer: int, suffix: str) -> tuple:
        g = lambda n: getattr(self, f"{n}_l{layer}{suffix}") if self.bias or "weight" in n else None  # noqa: E731
        return g("weight_ih"), g("weight_hh"), g("bias_ih"), g("bias_hh")

    def _check_input(self, input: Any) -> bool:
        check_tensor(input, type(self).__name__)
        if input.ndim not in (2, 3):
            raise ValueError(
                f"{type(self).__name__}: Expected input to be 2D or 3D, got {input.ndim}D instead"
            )
        if input.shape[-1] != self.input_size:
            raise ValueError(
                f"input.size(-1) must be equal to input_size. Expected {self.input_size}, got "
                f"{input.shape[-1]}"
            )
        return input.ndim == 3

    def _initial(self, hx: Any, n: int, like: Any, batched: bool, what: str) -> Any:
        dirs = 2 if self.bidirectional else 1
        want = (self.num_layers * dirs, n, self.hidden_size)
        if hx is None:
            return sdk.zeros(want, dtype=like.dtype)
        check_tensor(hx, type(self).__name__, what)
        if not batched:
            hx = hx.unsqueeze(1)
        if tuple(hx.shape) != want:
            raise ValueError(
                f"{type(self).__name__}: Expected hidden size {list(want)}, got {list(hx.shape)}"
            )
        return hx

    def _run(self, input: Any, h0: Any, c0: Any) -> tuple:
        """input (L, N, in); h0/c0 (layers * dirs, N, H) -> output, [h_n], [c_n]."""
        cell = _rnn_cell(self.mode)
        dirs = 2 if self.bidirectional else 1
        x = input
        h_out, c_out = [], []
        for layer in range(self.num_layers):
            outs = []
            for di, suffix in enumerate(("", "_reverse")[:dirs]):
                w_ih, w_hh, b_ih, b_hh = self._layer_params(layer, suffix)
                gi = F.linear(x, w_ih, b_ih)  # every time step in one product
                k = layer * dirs + di
                h = h0[k]
                c = None if c0 is None else c0[k]
                steps = range(x.shape[0] - 1, -1, -1) if di else range(x.shape[0])
                seq = [None] * x.shape[0]
                for t in steps:
                    h, c = cell(gi[t], h, w_hh, b_hh, c)
                    seq[t] = h
                outs.append(sdk.stack(seq, 0))
                h_out.append(h)
                c_out.append(c)
            x = outs[0] if dirs == 1 else sdk.cat(outs, -1)
            if self.dropout and self.training and layer < self.num_layers - 1:
                x = F.dropout(x, self.dropout, True)
        return x, h_out, c_out

    def forward(self, input: Any, hx: Any = None) -> tuple:
        batched = self._check_input(input)
        x = input if batched else input.unsqueeze(1)
        if batched and self.batch_first:
            x = x.transpose(0, 1)
        n = x.shape[1]
        if self.mode == "LSTM":
            if hx is not None and (not isinstance(hx, (tuple, list)) or len(hx) != 2):
                raise TypeError("LSTM: hx must be a tuple (h_0, c_0)")
            h0 = self._initial(None if hx is None else hx[0], n, x, batched, "h_0")
            c0 = self._initial(None if hx is None else hx[1], n, x, batched, "c_0")
        else:
            h0, c0 = self._initial(hx, n, x, batched, "hx"), None
        out, hs, cs = self._run(x, h0, c0)
        if batched and self.batch_first:
            out = out.transpose(0, 1)
        h_n = sdk.stack(hs, 0)
        c_n = sdk.stack(cs, 0) if self.mode == "LSTM" else None
        if not batched:
            out, h_n = out.squeeze(1), h_n.squeeze(1)
            c_n = None if c_n is None else c_n.squeeze(1)
        return (out, (h_n, c_n)) if self.mode == "LSTM" else (out, h_n)

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if not self.bias:
            s += ", bias=False"
        if self.batch_first:
            s += ", batch_first=True"
        if self.dropout:
            s += f", dropout={self.dropout}"
        if self.bidirectional:
            s += ", bidirectional=True"
        return s


def _split_args(args: tuple, kwargs: dict, who: str) -> tuple:
    """RNN(input_size, hidden_size, ...) positional/keyword arguments as RNNBase expects."""
    names = ["input_size", "hidden_size", "num_layers", "bias", "batch_first", "dropout",
             "bidirectional", "proj_size", "device", "dtype"]  # fmt: skip
    if len(args) > len(names):
        raise TypeError(f"{who}: too many positional arguments ({len(args)})")
    for name, v in zip(names, args):
        if name in kwargs:
            raise TypeError(f"{who}: got multiple values for argument '{name}'")
        kwargs[name] = v
    for k in kwargs:
        if k not in names + ["nonlinearity"]:
            raise TypeError(f"{who}: unexpected keyword argument '{k}'")
    for k in ("input_size", "hidden_size"):
        if k not in kwargs:
            raise TypeError(f"{who}: missing required argument '{k}'")
    return kwargs


class RNN(RNNBase):
    """h_t = nonlinearity(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh), nonlinearity tanh or
    relu."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kw = _split_args(args, dict(kwargs), "RNN")
        nl = kw.pop("nonlinearity", "tanh")
        if nl not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity '{nl}'. Select from 'tanh' or 'relu'.")
        self.nonlinearity = nl
        super().__init__("RNN_TANH" if nl == "tanh" else "RNN_RELU", **kw)


class LSTM(RNNBase):
    """Long short-term memory: forward returns output, (h_n, c_n)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__("LSTM", **_split_args(args, dict(kwargs), "LSTM"))


class GRU(RNNBase):
    """Gated recurrent unit: forward returns output, h_n."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__("GRU", **_split_args(args, dict(kwargs), "GRU"))


class RNNCellBase(Module):
    """One time step: weight_ih (gates * hidden, input), weight_hh (gates * hidden, hidden),
    bias_ih and bias_hh, all U(-1/sqrt(hidden_size), 1/sqrt(hidden_size)) as torch."""

    _mode = "RNN_TANH"

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True,
                 device: Any = None, dtype: Any = None) -> None:  # fmt: skip
        super().__init__()
        who = type(self).__name__
        for name, v in (("input_size", input_size), ("hidden_size", hidden_size)):
            if isinstance(v, bool) or not isinstance(v, int) or v <= 0:
                raise ValueError(f"{who}: {name} must be a positive int, got {v!r}")
        self.input_size, self.hidden_size, self.bias = input_size, hidden_size, bias
        kw = {} if dtype is None else {"dtype": dtype}
        g = _GATES[self._mode] * hidden_size
        self.weight_ih = Parameter(sdk.empty(g, input_size, **kw))
        self.weight_hh = Parameter(sdk.empty(g, hidden_size, **kw))
        if bias:
            self.bias_ih = Parameter(sdk.empty(g, **kw))
            self.bias_hh = Parameter(sdk.empty(g, **kw))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()
        if device is not None:
            self.to(device)

    def reset_parameters(self) -> None:
        _uniform_by_hidden_size(self)

    def _state(self, input: Any, hx: Any) -> tuple:
        """input as (N, input_size), hx as (N, hidden_size) (zeros when None), and whether
        the call was unbatched."""
        who = type(self).__name__
        check_tensor(input, who)
        if input.ndim not in (1, 2) or input.shape[-1] != self.input_size:
            raise ValueError(f"{who}: expected input of shape (N, {self.input_size}) or "
                             f"({self.input_size},), got {list(input.shape)}")  # fmt: skip
        unbatched = input.ndim == 1
        x = input.unsqueeze(0) if unbatched else input
        if hx is None:
            return x, sdk.zeros(x.shape[0], self.hidden_size, dtype=x.dtype), unbatched
        check_tensor(hx, who, "hx")
        h = hx.unsqueeze(0) if unbatched and hx.ndim == 1 else hx
        if tuple(h.shape) != (x.shape[0], self.hidden_size):
            raise ValueError(f"{who}: expected hidden state of shape "
                             f"{[x.shape[0], self.hidden_size]}, got {list(hx.shape)}")  # fmt: skip
        return x, h, unbatched

    def _step(self, x: Any, h: Any, c: Any) -> tuple:
        gi = F.linear(x, self.weight_ih, self.bias_ih)
        return _rnn_cell(self._mode)(gi, h, self.weight_hh, self.bias_hh, c)

    def extra_repr(self) -> str:
        return f"{self.input_size}, {self.hidden_size}" + ("" if self.bias else ", bias=False")


class RNNCell(RNNCellBase):
    """h' = nonlinearity(W_ih x + b_ih + W_hh h + b_hh), nonlinearity 'tanh' or 'relu'."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True,
                 nonlinearity: str = "tanh", device: Any = None, dtype: Any = None) -> None:  # fmt: skip
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity: {nonlinearity}")
        super().__init__(input_size, hidden_size, bias, device, dtype)  # one gate either way
        self.nonlinearity = nonlinearity
        self._mode = "RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU"

    def forward(self, input: Any, hx: Any = None) -> Any:
        x, h, unbatched = self._state(input, hx)
        h, _ = self._step(x, h, None)
        return h.squeeze(0) if unbatched else h


class LSTMCell(RNNCellBase):
    """(h', c') from input and (h, c) (zeros when None); gates i, f, g, o."""

    _mode = "LSTM"

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True,
                 device: Any = None, dtype: Any = None) -> None:  # fmt: skip
        super().__init__(input_size, hidden_size, bias, device, dtype)

    def forward(self, input: Any, hx: Any = None) -> tuple:
        if hx is not None and (not isinstance(hx, (tuple, list)) or len(hx) != 2):
            raise TypeError("LSTMCell: hx must be a tuple (h, c) of two tensors")
        x, h, unbatched = self._state(input, None if hx is None else hx[0])
        _, c, _ = self._state(input, None if hx is None else hx[1])
        h, c = self._step(x, h, c)
        return (h.squeeze(0), c.squeeze(0)) if unbatched else (h, c)


class GRUCell(RNNCellBase):
    """h' from input and h (zeros when None); gates r, z, n."""

    _mode = "GRU"

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True,
                 device: Any = None, dtype: Any = None) -> None:  # fmt: skip
        super().__init__(input_size, hidden_size, bias, device, dtype)

    def forward(self, input: Any, hx: Any = None) -> Any:
        x, h, unbatched = self._state(input, hx)
        h, _ = self._step(x, h, None)
        return h.squeeze(0) if unbatched else h
