"""torch's top-level functions that live above the sdk namespace: the nn functions torch also
offers as torch.X (torch.conv2d, torch.layer_norm, torch.dropout, ...) with torch's top-level
signatures (which differ from nn.functional's: int reductions, weight-first embedding,
batch_norm's argument order), forwarding to sdk.nn.functional; the RNN cells; nuclear_norm
(through sdk.linalg.svdvals); compile/fork/wait (eager, as sdk.jit). sdk's namespace loads
this module on the first such name."""

from __future__ import annotations

from typing import Any

import sdk
import sdk.jit as _jit
import sdk.linalg as _linalg
import sdk.nn.functional as F

Tensor = Any

# torch's top-level losses take reduction as an int (at::Reduction).
_REDUCTIONS = {0: "none", 1: "mean", 2: "sum"}


def _reduction(value: Any, fn: str) -> str:
    if isinstance(value, str):
        return value
    if value not in _REDUCTIONS:
        raise ValueError(f"{fn}(): reduction must be 0 (none), 1 (mean) or 2 (sum), got {value!r}")
    return _REDUCTIONS[value]


def _stride(stride: Any) -> Any:
    """torch's top-level pools default stride to [] (the kernel size); F takes None."""
    return None if stride is None or (isinstance(stride, (list, tuple)) and not stride) else stride


def _refuse(name: str, instead: str) -> Any:
    def refused(*args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(f"torch.{name} is not provided by the sdk: {instead}")

    refused.__name__ = refused.__qualname__ = name
    refused.__doc__ = f"Refused: {instead}"
    return refused


# ------------------------------------------------------------------------------ convolution

conv1d, conv2d, conv3d = F.conv1d, F.conv2d, F.conv3d
conv_transpose1d, conv_transpose2d = F.conv_transpose1d, F.conv_transpose2d
conv_transpose3d = _refuse(
    "conv_transpose3d", "3-d transposed convolution has no kernel here; use conv_transpose2d "
    "per depth slice or a custom extension op",
)  # fmt: skip


def convolution(input: Tensor, weight: Tensor, bias: Tensor | None, stride: Any, padding: Any,
                dilation: Any, transposed: bool, output_padding: Any, groups: int) -> Tensor:  # fmt: skip
    """The convolution of input's spatial rank (1 to 3 dims), plain or transposed."""
    rank = input.ndim - 2
    if transposed:
        fn = {1: conv_transpose1d, 2: conv_transpose2d, 3: conv_transpose3d}.get(rank)
        if fn is None:
            raise RuntimeError(f"convolution: expected 3D to 5D input, got {input.ndim}D")
        return fn(input, weight, bias, stride, padding, output_padding, groups, dilation)
    fn = {1: conv1d, 2: conv2d, 3: conv3d}.get(rank)
    if fn is None:
        raise RuntimeError(f"convolution: expected 3D to 5D input, got {input.ndim}D")
    return fn(input, weight, bias, stride, padding, dilation, groups)


# ------------------------------------------------------------------------------ normalization


def layer_norm(input: Tensor, normalized_shape: Any, weight: Tensor | None = None,
               bias: Tensor | None = None, eps: float = 1e-05, cudnn_enable: bool = True) -> Tensor:  # fmt: skip
    return F.layer_norm(input, normalized_shape, weight, bias, eps)


def group_norm(input: Tensor, num_groups: int, weight: Tensor | None = None,
               bias: Tensor | None = None, eps: float = 1e-05, cudnn_enabled: bool = True) -> Tensor:  # fmt: skip
    return F.group_norm(input, num_groups, weight, bias, eps)


def batch_norm(input: Tensor, weight: Tensor | None, bias: Tensor | None,
               running_mean: Tensor | None, running_var: Tensor | None, training: bool,
               momentum: float, eps: float, cudnn_enabled: bool) -> Tensor:  # fmt: skip
    """F.batch_norm under torch's top-level argument order (weight and bias first)."""
    return F.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def instance_norm(input: Tensor, weight: Tensor | None, bias: Tensor | None,
                  running_mean: Tensor | None, running_var: Tensor | None, use_input_stats: bool,
                  momentum: float, eps: float, cudnn_enabled: bool) -> Tensor:  # fmt: skip
    """F.instance_norm under torch's top-level argument order (weight and bias first)."""
    return F.instance_norm(input, running_mean, running_var, weight, bias, use_input_stats,
                           momentum, eps)  # fmt: skip


def rms_norm(input: Tensor, normalized_shape: Any, weight: Tensor | None = None,
             eps: float | None = None) -> Tensor:  # fmt: skip
    return F.rms_norm(input, normalized_shape, weight, eps)


# ------------------------------------------------------------------------------ embedding


def embedding(weight: Tensor, indices: Tensor, padding_idx: int = -1,
              scale_grad_by_freq: bool = False, sparse: bool = False) -> Tensor:  # fmt: skip
    """F.embedding with torch's top-level order (weight first; padding_idx -1 means none)."""
    pad = None if padding_idx is None or padding_idx < 0 else padding_idx
    return F.embedding(indices, weight, pad, None, 2.0, scale_grad_by_freq, sparse)


embedding_bag = _refuse(
    "embedding_bag", "its four-result top-level form (with offset2bag, bag_size and "
    "max_indices) has no counterpart; call sdk.nn.functional.embedding_bag",
)  # fmt: skip


# ------------------------------------------------------------------------------ dropout


def _dropouts(name: str, fn: Any) -> tuple:
    def op(input: Tensor, p: float, train: bool) -> Tensor:
        return fn(input, p, train)

    def op_(input: Tensor, p: float, train: bool) -> Tensor:
        return input.copy_(fn(input.clone(), p, train))

    op.__name__ = op.__qualname__ = name
    op_.__name__ = op_.__qualname__ = name + "_"
    op.__doc__ = f"torch.{name}(input, p, train)."
    op_.__doc__ = f"In-place torch.{name}."
    return op, op_


def _feature_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    """Whole channels (dim 1) of (N, C, *) input zeroed with probability p."""
    if input.ndim < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    if not train or p == 0:
        return input
    mask = sdk.rand(list(input.shape[:2]) + [1] * (input.ndim - 2), dtype=input.dtype) >= p
    return input * mask.to(input.dtype) * (0.0 if p == 1 else 1.0 / (1.0 - p))


dropout, dropout_ = _dropouts("dropout", F.dropout)
alpha_dropout, alpha_dropout_ = _dropouts("alpha_dropout", F.alpha_dropout)
feature_dropout, feature_dropout_ = _dropouts("feature_dropout", _feature_dropout)
feature_alpha_dropout, feature_alpha_dropout_ = _dropouts(
    "feature_alpha_dropout", F.feature_alpha_dropout
)


# ------------------------------------------------------------------------------ pooling


def max_pool1d(input: Tensor, kernel_size: Any, stride: Any = (), padding: Any = 0,
               dilation: Any = 1, ceil_mode: bool = False) -> Tensor:  # fmt: skip
    return F.max_pool1d(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


def max_pool1d_with_indices(input: Tensor, kernel_size: Any, stride: Any = (), padding: Any = 0,
                            dilation: Any = 1, ceil_mode: bool = False) -> tuple:  # fmt: skip
    return F.max_pool1d(input, kernel_size, _stride(stride), padding, dilation, ceil_mode, True)


def max_pool2d(input: Tensor, kernel_size: Any, stride: Any = (), padding: Any = 0,
               dilation: Any = 1, ceil_mode: bool = False) -> Tensor:  # fmt: skip
    return F.max_pool2d(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


def max_pool3d(input: Tensor, kernel_size: Any, stride: Any = (), padding: Any = 0,
               dilation: Any = 1, ceil_mode: bool = False) -> Tensor:  # fmt: skip
    return F.max_pool3d(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


def avg_pool1d(input: Tensor, kernel_size: Any, stride: Any = (), padding: Any = 0,
               ceil_mode: bool = False, count_include_pad: bool = True) -> Tensor:  # fmt: skip
    return F.avg_pool1d(input, kernel_size, _stride(stride), padding, ceil_mode,
                        count_include_pad)  # fmt: skip


def adaptive_avg_pool1d(input: Tensor, output_size: Any) -> Tensor:
    return F.adaptive_avg_pool1d(input, output_size)


def adaptive_max_pool1d(input: Tensor, output_size: Any) -> tuple:
    """(values, indices), as torch's top-level form always returns both."""
    return F.adaptive_max_pool1d(input, output_size, True)


# ------------------------------------------------------------------------------ activations


def _activation(name: str, fn: Any) -> tuple:
    def op(input: Tensor, *args: Any) -> Tensor:
        return fn(input, *args)

    def op_(input: Tensor, *args: Any) -> Tensor:
        return fn(input, *args, inplace=True)

    op.__name__ = op.__qualname__ = name
    op_.__name__ = op_.__qualname__ = name + "_"
    op.__doc__ = f"sdk.nn.functional.{name} (torch.{name})."
    op_.__doc__ = f"In-place sdk.nn.functional.{name} (torch.{name}_)."
    return op, op_


selu, selu_ = _activation("selu", F.selu)
celu, celu_ = _activation("celu", F.celu)
threshold, threshold_ = _activation("threshold", F.threshold)


def rrelu(input: Tensor, lower: float = 0.125, upper: float = 1.0 / 3, training: bool = False,
          generator: Any = None) -> Tensor:  # fmt: skip
    if generator is not None:
        raise NotImplementedError("rrelu(): generator= is not supported; seed with sdk.manual_seed")
    return F.rrelu(input, lower, upper, training)


def rrelu_(input: Tensor, lower: float = 0.125, upper: float = 1.0 / 3, training: bool = False,
           generator: Any = None) -> Tensor:  # fmt: skip
    return input.copy_(rrelu(input.clone(), lower, upper, training, generator))


def pixel_shuffle(input: Tensor, upscale_factor: int) -> Tensor:
    return F.pixel_shuffle(input, upscale_factor)


def pixel_unshuffle(input: Tensor, downscale_factor: int) -> Tensor:
    return F.pixel_unshuffle(input, downscale_factor)


def channel_shuffle(input: Tensor, groups: int) -> Tensor:
    """(N, C, *) with its channels regrouped: channel g * (C / groups) + i moves to
    i * groups + g."""
    if input.ndim < 3:
        raise RuntimeError(f"channel_shuffle expects input to have at least 3 dimensions, but "
                           f"got input with sizes {list(input.shape)}")  # fmt: skip
    c = input.shape[1]
    if groups <= 0 or c % groups:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {c} channels "
                           f"and {groups} groups.")  # fmt: skip
    n, rest = input.shape[0], tuple(input.shape[2:])
    x = input.reshape(n, groups, c // groups, *rest).transpose(1, 2)
    return x.reshape(n, c, *rest)


native_channel_shuffle = channel_shuffle


# ------------------------------------------------------------------------------ distances


def pairwise_distance(x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-06,
                      keepdim: bool = False) -> Tensor:  # fmt: skip
    return F.pairwise_distance(x1, x2, p, eps, keepdim)


def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-08) -> Tensor:
    return F.cosine_similarity(x1, x2, dim, eps)


def pdist(input: Tensor, p: float = 2) -> Tensor:
    """The p-norm distances between every pair of rows i < j of a 2-D input, row-major."""
    if input.ndim != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.ndim}D")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    n = input.shape[0]
    i, j = sdk.triu_indices(n, n, 1)
    diff = input.index_select(0, i) - input.index_select(0, j)
    if diff.shape[0] == 0:
        return diff.sum(1)
    return sdk.norm(diff, p, 1) if p != 0 else diff.ne(0).to(diff.dtype).sum(1)


def bilinear(input1: Tensor, input2: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """y[..., o] = input1 @ weight[o] @ input2 (+ bias[o])."""
    if weight.ndim != 3:
        raise RuntimeError(f"bilinear(): weight must be 3-D (out, in1, in2), got {weight.ndim}-D")
    y = sdk.einsum("...i,oij,...j->...o", input1, weight, input2)
    return y if bias is None else y + bias


def constant_pad_nd(input: Tensor, pad: Any, value: Any = 0) -> Tensor:
    return F.pad(input, pad, "constant", value)


# ------------------------------------------------------------------------------ losses


def kl_div(input: Tensor, target: Tensor, reduction: Any = 1, *, log_target: bool = False):
    return F.kl_div(input, target, reduction=_reduction(reduction, "kl_div"),
                    log_target=log_target)  # fmt: skip


def binary_cross_entropy_with_logits(input: Tensor, target: Tensor, weight: Any = None,
                                     pos_weight: Any = None, reduction: Any = 1) -> Tensor:  # fmt: skip
    red = _reduction(reduction, "binary_cross_entropy_with_logits")
    return F.binary_cross_entropy_with_logits(input, target, weight, reduction=red,
                                              pos_weight=pos_weight)  # fmt: skip


def margin_ranking_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0,
                        reduction: Any = 1) -> Tensor:  # fmt: skip
    red = _reduction(reduction, "margin_ranking_loss")
    return F.margin_ranking_loss(input1, input2, target, margin, reduction=red)


def hinge_embedding_loss(input: Tensor, target: Tensor, margin: float = 1.0,
                         reduction: Any = 1) -> Tensor:  # fmt: skip
    red = _reduction(reduction, "hinge_embedding_loss")
    return F.hinge_embedding_loss(input, target, margin, reduction=red)


def cosine_embedding_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0,
                          reduction: Any = 1) -> Tensor:  # fmt: skip
    red = _reduction(reduction, "cosine_embedding_loss")
    return F.cosine_embedding_loss(input1, input2, target, margin, reduction=red)


def triplet_margin_loss(anchor: Tensor, positive: Tensor, negative: Tensor, margin: float = 1.0,
                        p: float = 2, eps: float = 1e-06, swap: bool = False,
                        reduction: Any = 1) -> Tensor:  # fmt: skip
    red = _reduction(reduction, "triplet_margin_loss")
    return F.triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap, reduction=red)


def poisson_nll_loss(input: Tensor, target: Tensor, log_input: bool, full: bool, eps: float,
                     reduction: Any) -> Tensor:  # fmt: skip
    red = _reduction(reduction, "poisson_nll_loss")
    return F.poisson_nll_loss(input, target, log_input, full, eps=eps, reduction=red)


ctc_loss = _refuse(
    "ctc_loss", "the CTC loss has no implementation here; compute it in an extension op"
)


# ------------------------------------------------------------------------------ linalg


def nuclear_norm(input: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:
    """The sum of the singular values of the matrices over dim (the last two by default)."""
    if isinstance(dim, bool):
        dim, keepdim = None, dim  # nuclear_norm(input, keepdim)
    d0, d1 = (-2, -1) if dim is None else tuple(dim)
    moved = input.movedim((d0, d1), (-2, -1))
    r = _linalg.svdvals(moved).sum(-1)
    if keepdim:
        r = r.unsqueeze(-1).unsqueeze(-1).movedim((-2, -1), (d0 % input.ndim, d1 % input.ndim))
    return r


# ------------------------------------------------------------------------------ compilation


def compile(model: Any = None, *, fullgraph: bool = False, dynamic: Any = None,  # noqa: A001
            backend: Any = "inductor", mode: Any = None, options: Any = None,
            disable: bool = False) -> Any:  # fmt: skip
    """torch.compile: the sdk has no graph compiler, so the model or function is returned as
    it is and runs eagerly (what torch.compile(..., disable=True) does); as a decorator with
    arguments, @compile(mode=...) returns the identity."""
    if model is None:
        return lambda m: m
    if not callable(model):
        raise RuntimeError(f"compile(): model must be callable, got {type(model).__name__}")
    return model


def fork(func: Any, *args: Any, **kwargs: Any) -> Any:
    """torch.fork: sdk.jit.fork (runs func now; wait() returns its result)."""
    return _jit.fork(func, *args, **kwargs)


def wait(future: Any) -> Any:
    """torch.wait: sdk.jit.wait."""
    return _jit.wait(future)


# ------------------------------------------------------------------------------ RNN cells


def _gates(input: Tensor, hx: Tensor, w_ih: Tensor, w_hh: Tensor, b_ih: Any, b_hh: Any) -> tuple:
    gi = input.matmul(w_ih.t()) + (0 if b_ih is None else b_ih)
    gh = hx.matmul(w_hh.t()) + (0 if b_hh is None else b_hh)
    return gi, gh


def rnn_tanh_cell(input: Tensor, hx: Tensor, w_ih: Tensor, w_hh: Tensor,
                  b_ih: Tensor | None = None, b_hh: Tensor | None = None) -> Tensor:  # fmt: skip
    """tanh(input W_ih^T + b_ih + hx W_hh^T + b_hh)."""
    gi, gh = _gates(input, hx, w_ih, w_hh, b_ih, b_hh)
    return (gi + gh).tanh()


def rnn_relu_cell(input: Tensor, hx: Tensor, w_ih: Tensor, w_hh: Tensor,
                  b_ih: Tensor | None = None, b_hh: Tensor | None = None) -> Tensor:  # fmt: skip
    """relu(input W_ih^T + b_ih + hx W_hh^T + b_hh)."""
    gi, gh = _gates(input, hx, w_ih, w_hh, b_ih, b_hh)
    return (gi + gh).relu()


def lstm_cell(input: Tensor, hx: Any, w_ih: Tensor, w_hh: Tensor, b_ih: Tensor | None = None,
              b_hh: Tensor | None = None) -> tuple:  # fmt: skip
    """(h', c') of one LSTM step from hx = (h, c); gates in torch's order i, f, g, o."""
    h, c = hx
    gi, gh = _gates(input, h, w_ih, w_hh, b_ih, b_hh)
    i, f, g, o = (gi + gh).chunk(4, -1)
    c2 = f.sigmoid() * c + i.sigmoid() * g.tanh()
    return o.sigmoid() * c2.tanh(), c2


def gru_cell(input: Tensor, hx: Tensor, w_ih: Tensor, w_hh: Tensor, b_ih: Tensor | None = None,
             b_hh: Tensor | None = None) -> Tensor:  # fmt: skip
    """h' of one GRU step; gates in torch's order r, z, n (n uses r * (hx W_hn^T + b_hn))."""
    gi, gh = _gates(input, hx, w_ih, w_hh, b_ih, b_hh)
    ir, iz, inew = gi.chunk(3, -1)
    hr, hz, hnew = gh.chunk(3, -1)
    r, z = (ir + hr).sigmoid(), (iz + hz).sigmoid()
    n = (inew + r * hnew).tanh()
    return (1 - z) * n + z * hx
