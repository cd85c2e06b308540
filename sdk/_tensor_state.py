"""The answers to torch's questions about a tensor that glue code asks (layout, is_sparse,
is_pinned, output_nr, ...): Tensor binds these as its methods and properties.

Every sdk tensor is dense and strided, real, in ordinary (unpinned, unshared) host or CUDA
memory, and never an inference, meta, nested or quantized tensor, nor on another device."""

from __future__ import annotations

from typing import Any

from sdk._dtype import int8, strided
from sdk._ops_common import tensor_arg

Tensor = Any  # the public class lives in sdk._tensor; annotations only

FALSE = property(lambda self: False, doc="False for every sdk tensor.")
layout = property(lambda self: strided, doc="sdk.strided, the one layout here.")


def _output_nr(self: Tensor) -> int:
    m = self._ag
    return m.output_nr if m is not None else 0


output_nr = property(
    _output_nr, doc="Which output of its grad_fn this tensor is (0 for leaves and single ones)."
)


def is_signed(self: Tensor) -> bool:
    return self.dtype.is_signed


def is_inference(self: Tensor) -> bool:
    """False: sdk.inference_mode is no_grad and marks no tensor as an inference one."""
    return False


def is_conj(self: Tensor) -> bool:
    """False: no tensor carries a lazy conjugation bit here."""
    return False


def is_neg(self: Tensor) -> bool:
    """False: no tensor carries a lazy negation bit here."""
    return False


def is_pinned(self: Tensor, device: Any = None) -> bool:
    """False: the sdk allocates no page-locked host memory."""
    return False


def pin_memory(self: Tensor, device: Any = None) -> Tensor:
    """This tensor as it is: the sdk has no page-locked host memory (as its DataLoader's
    pin_memory=True), so copies from it to a GPU stay ordinary ones; is_pinned() says False."""
    return self


def is_shared(self: Tensor) -> bool:
    """False: no tensor lives in memory shared between processes here."""
    return False


def share_memory_(self: Tensor) -> Tensor:
    raise NotImplementedError(
        "share_memory_(): the sdk cannot move a tensor into memory shared between processes; "
        "pass tensors to worker processes by pickling (a copy), or create the shared buffer "
        "yourself (multiprocessing.shared_memory) and wrap it with sdk.frombuffer"
    )


def resize(self: Tensor, *sizes: Any) -> Tensor:
    """A view with the given sizes, which must hold as many elements (torch's deprecated
    out-of-place resize)."""
    shape = tuple(sizes[0]) if len(sizes) == 1 and isinstance(sizes[0], (list, tuple)) else sizes
    n = 1
    for s in shape:
        n *= s
    if n != self.numel():
        raise RuntimeError(
            f"requested resize to {list(shape)} ({n} elements in total), but the given tensor "
            f"has a size of {list(self.shape)} ({self.numel()} elements). resize can only "
            "change the shape of a given tensor, while preserving the number of elements."
        )
    return self.reshape(shape)


def resize_as(self: Tensor, tensor: Tensor) -> Tensor:
    tensor_arg(tensor, "resize_as", "tensor")
    return resize(self, tuple(tensor.shape))


def is_nonzero(self: Tensor) -> bool:
    """The truth of a one-element tensor."""
    if self.numel() != 1:
        kind = "no values" if self.numel() == 0 else "more than one value"
        raise RuntimeError(f"Boolean value of Tensor with {kind} is ambiguous")
    return bool(self.item())


def const_data_ptr(self: Tensor) -> int:
    return self.data_ptr()


def char(self: Tensor) -> Tensor:
    return self.to(int8)
