"""Sampling functions with torch's names and arguments: bernoulli, normal, multinomial.

They draw from sdk's generators (the default one, or `generator=`), so manual_seed makes
them reproducible like rand/randn.
"""

from __future__ import annotations

import math
from typing import Any

from sdk import _C
from sdk._dtype import float64, int64
from sdk._interop import from_numpy
from sdk._ops_common import TensorBase, tensor_arg
from sdk._ops_creation import rand, randn

Tensor = Any


def _check_generator(generator: Any, op: str) -> None:
    if generator is not None and not isinstance(generator, _C.Generator):
        raise TypeError(
            f"{op}(): argument 'generator' must be Generator, not {type(generator).__name__}"
        )


def get_rng_state() -> Tensor:
    """The default generator's state as a uint8 tensor (for set_rng_state)."""
    return _C.get_rng_state()


def set_rng_state(new_state: Tensor) -> None:
    """Restore the default generator's state from get_rng_state(): the draws that followed
    it come again. A tensor that is not such a state raises (the generator is unchanged)."""
    _C.set_rng_state(new_state)


def bernoulli(input: Tensor, p: Any = None, *, generator: Any = None) -> Tensor:
    """0/1 samples, 1 with probability `input` (or the float `p`), in input's dtype."""
    tensor_arg(input, "bernoulli", "input")
    _check_generator(generator, "bernoulli")
    if not input.dtype.is_floating_point:
        raise TypeError(f"bernoulli(): expected a floating point input, got {input.dtype}")
    prob = input if p is None else p
    if isinstance(prob, TensorBase):
        bad = ((prob < 0) | (prob > 1) | prob.isnan()).any().item()
    elif isinstance(prob, (int, float)) and not isinstance(prob, bool):
        bad = not 0 <= prob <= 1
    else:
        raise TypeError(f"bernoulli(): argument 'p' must be a float, not {type(p).__name__}")
    if bad:
        raise _C.InvalidArgumentError("bernoulli(): probabilities must be in [0, 1]")
    u = _C.uniform_(_C.empty(tuple(input.shape), input.dtype), 0.0, 1.0, generator)
    return (u < prob).to(input.dtype)


def bernoulli_(self: Tensor, p: Any = 0.5, *, generator: Any = None) -> Tensor:
    """Fill self with 0/1 samples, 1 with probability p (a float or a tensor)."""
    tensor_arg(self, "bernoulli_", "self")
    return _C.copy_(self, bernoulli(self, p if p is not None else 0.5, generator=generator))


def normal(mean: Any, std: Any = 1.0, size: Any = None, *, generator: Any = None,
           dtype: Any = None) -> Tensor:  # fmt: skip
    """Normal samples: mean and std tensors (broadcast) or numbers; with numbers for both,
    `size` gives the shape."""
    _check_generator(generator, "normal")
    t_mean, t_std = isinstance(mean, TensorBase), isinstance(std, TensorBase)
    for name, v, is_t in (("mean", mean, t_mean), ("std", std, t_std)):
        if not is_t and (isinstance(v, bool) or not isinstance(v, (int, float))):
            raise TypeError(f"normal(): argument '{name}' must be Tensor or float, not "
                            f"{type(v).__name__}")  # fmt: skip
    if t_std:
        if (std < 0).any().item():
            raise _C.InvalidArgumentError("normal(): std must be >= 0")
    elif std < 0 or math.isnan(std):
        raise _C.InvalidArgumentError(f"normal(): std must be >= 0, got {std}")
    if not t_mean and not t_std:
        if size is None:
            raise TypeError("normal(): give mean or std as a tensor, or a size")
        return randn(*(size if isinstance(size, (tuple, list)) else (size,)), generator=generator,
                     dtype=dtype) * std + mean  # fmt: skip
    if size is not None:
        raise TypeError("normal(): size is only taken with a number mean and std")
    ref = mean if t_mean else std
    if not ref.dtype.is_floating_point:
        raise TypeError(f"normal(): expected floating point tensors, got {ref.dtype}")
    shape = tuple((mean * 0 + std * 0).shape) if t_mean and t_std else tuple(ref.shape)
    z = _C.normal_(_C.empty(shape, ref.dtype), 0.0, 1.0, generator)
    return z * std + mean


def multinomial(input: Tensor, num_samples: int, replacement: bool = False, *,
                generator: Any = None) -> Tensor:  # fmt: skip
    """Indices drawn from the categories weighted by each row of `input` (1-D or 2-D,
    non-negative, finite, a positive sum): int64 of shape (num_samples,) or (rows, num_samples).
    Without replacement a category is drawn at most once (needs num_samples <= the number of
    non-zero weights)."""
    import numpy as np

    tensor_arg(input, "multinomial", "input")
    _check_generator(generator, "multinomial")
    if input.ndim not in (1, 2):
        raise _C.InvalidArgumentError(
            f"multinomial(): expected a 1-D or 2-D input, got shape {list(input.shape)}"
        )
    if isinstance(num_samples, bool) or not isinstance(num_samples, int):
        raise TypeError(f"multinomial(): argument 'num_samples' must be int, not "
                        f"{type(num_samples).__name__}")  # fmt: skip
    if num_samples <= 0:
        raise _C.InvalidArgumentError("multinomial(): num_samples must be positive")
    w = np.atleast_2d(np.asarray(input.detach().cpu().numpy(), dtype=np.float64))
    if w.shape[1] == 0 or not np.isfinite(w).all() or (w < 0).any():
        raise _C.InvalidArgumentError(
            "multinomial(): weights must be finite and non-negative, with at least one category"
        )
    if (w.sum(1) <= 0).any():
        raise _C.InvalidArgumentError("multinomial(): every row must have a positive sum")
    if not replacement and num_samples > int((w > 0).sum(1).min()):
        raise _C.InvalidArgumentError(
            "multinomial(): cannot draw more samples than non-zero weights without replacement"
        )
    rows = w.shape[0]
    cols = num_samples if replacement else w.shape[1]
    u = rand(rows, cols, generator=generator, dtype=float64).numpy()
    if replacement:  # inverse of each row's cumulative distribution
        cdf = np.cumsum(w, axis=1)
        cdf /= cdf[:, -1:]
        out = np.stack([np.searchsorted(c, r, side="right") for c, r in zip(cdf, u)])
        out = np.minimum(out, w.shape[1] - 1)
    else:  # the num_samples largest keys log(u) / w (weighted sampling without replacement)
        with np.errstate(divide="ignore"):
            keys = np.log(np.maximum(u, np.finfo(np.float64).tiny)) / w
        out = np.argsort(-keys, axis=1, kind="stable")[:, :num_samples]
    result = from_numpy(np.ascontiguousarray(out, dtype=np.int64))
    return result if input.ndim == 2 else result[0]


# In-place fills from other distributions, by inverting their CDFs at uniform draws of the
# same generators (so manual_seed reproduces them as it does rand).


def _float_self(self: Tensor, op: str) -> Tensor:
    tensor_arg(self, op, "self")
    if not self.dtype.is_floating_point:
        raise RuntimeError(f"{op}(): expected a floating point tensor, got {self.dtype}")
    return self


def _open_uniform(self: Tensor, generator: Any) -> Tensor:
    """Draws in (0, 1): never exactly 0, whose logarithm the inversions below cannot take."""
    u = _C.uniform_(_C.empty(tuple(self.shape), float64), 0.0, 1.0, generator)
    return u.clamp(min=2.0**-53)


def exponential_(self: Tensor, lambd: float = 1.0, *, generator: Any = None) -> Tensor:
    """Samples of Exponential(lambd): -log(U) / lambd."""
    _float_self(self, "exponential_")
    _check_generator(generator, "exponential_")
    if not lambd > 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={lambd}")
    return self.copy_(_open_uniform(self, generator).log().neg() / lambd)


def cauchy_(self: Tensor, median: float = 0.0, sigma: float = 1.0, *,
            generator: Any = None) -> Tensor:  # fmt: skip
    """Samples of Cauchy(median, sigma): median + sigma * tan(pi * (U - 1/2))."""
    _float_self(self, "cauchy_")
    _check_generator(generator, "cauchy_")
    if not sigma > 0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={sigma}")
    u = _open_uniform(self, generator)
    return self.copy_(((u - 0.5) * math.pi).tan() * sigma + median)


def log_normal_(self: Tensor, mean: float = 1.0, std: float = 2.0, *,
                generator: Any = None) -> Tensor:  # fmt: skip
    """Samples of exp(Normal(mean, std))."""
    _float_self(self, "log_normal_")
    _check_generator(generator, "log_normal_")
    if not std > 0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={std}")
    z = _C.normal_(_C.empty(tuple(self.shape), float64), float(mean), float(std), generator)
    return self.copy_(z.exp())


def geometric_(self: Tensor, p: float, *, generator: Any = None) -> Tensor:
    """Samples of Geometric(p) on 1, 2, ...: the trial of the first success."""
    tensor_arg(self, "geometric_", "self")
    _check_generator(generator, "geometric_")
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={p}")
    u = _open_uniform(self, generator)
    return self.copy_((u.log() / math.log1p(-p)).ceil().clamp(min=1))


# Integer-valued samplers: numpy's samplers, seeded by a draw from the sdk generator (so
# manual_seed and generator= reproduce them as they do rand).


def _host_rng(generator: Any) -> Any:
    import numpy as np  # lazy: import sdk stays free of numpy

    seed = int(_C.randint_(_C.empty((1,), int64), 0, 2**62, generator).item())
    return np.random.default_rng(seed)


def _host_values(t: Tensor, op: str, arg: str) -> Any:
    tensor_arg(t, op, arg)
    if not t.dtype.is_floating_point:
        raise TypeError(f"{op}(): expected a floating point '{arg}', got {t.dtype}")
    return t.detach().cpu().to(float64).numpy()


def poisson(input: Tensor, generator: Any = None) -> Tensor:
    """Samples of Poisson(rate) for each rate of input, in input's dtype."""
    _check_generator(generator, "poisson")
    rates = _host_values(input, "poisson", "input")
    if (rates < 0).any() or not (rates == rates).all():
        raise RuntimeError("poisson(): invalid Poisson rate, expected rate to be non-negative")
    import numpy as np  # lazy: import sdk stays free of numpy

    draws = _host_rng(generator).poisson(rates)  # a 0-d rate gives a Python int
    out = from_numpy(np.asarray(draws, dtype="float64"))
    return out.to(input.dtype)


def binomial(count: Tensor, prob: Tensor, generator: Any = None) -> Tensor:
    """Samples of Binomial(count, prob), elementwise (broadcast), in count's dtype."""
    _check_generator(generator, "binomial")
    n, p = _host_values(count, "binomial", "count"), _host_values(prob, "binomial", "prob")
    if (p < 0).any() or (p > 1).any() or (n < 0).any():
        raise RuntimeError("binomial(): expected count >= 0 and 0 <= prob <= 1")
    out = from_numpy(_host_rng(generator).binomial(n.astype("int64"), p).astype("float64"))
    return out.to(count.dtype)
