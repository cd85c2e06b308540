"""sdk.backends.cuda: CUDA matmul settings, as torch.backends.cuda.

``sdk.backends.cuda.matmul.allow_tf32`` (default False, as torch): float32 matmuls on CUDA
may use TF32 tensor cores (10-bit mantissa inputs, float accumulation), through
cublasGemmEx with CUBLAS_COMPUTE_32F_FAST_TF32. Process-wide; free to set without a GPU.
"""

from __future__ import annotations

from typing import Any

from sdk import _C

__all__ = ["is_built", "matmul"]


def is_built() -> bool:
    """Whether the SDK was built with its CUDA backend (torch.backends.cuda.is_built): True
    does not mean a GPU is usable here (sdk.cuda.is_available() says that)."""
    return _C.cuda_build_version() is not None


class _Matmul:
    """The object behind ``sdk.backends.cuda.matmul``."""

    __slots__ = ()

    @property
    def allow_tf32(self) -> bool:
        return _C.cuda_matmul_allow_tf32(None)

    @allow_tf32.setter
    def allow_tf32(self, value: Any) -> None:
        if not isinstance(value, bool):
            raise TypeError(f"allow_tf32 must be a bool, got {type(value).__name__}")
        _C.cuda_matmul_allow_tf32(value)

    def __setattr__(self, name: str, value: Any) -> None:
        if name != "allow_tf32":
            raise AttributeError(f"sdk.backends.cuda.matmul has no setting {name!r}")
        object.__setattr__(self, name, value)

    def __repr__(self) -> str:
        return f"<sdk.backends.cuda.matmul allow_tf32={self.allow_tf32}>"


matmul = _Matmul()
