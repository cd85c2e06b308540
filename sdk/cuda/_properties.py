"""sdk.cuda's device queries with torch.cuda's names: get_device_properties (and capability,
name), mem_get_info, get_arch_list, is_bf16_supported. Without a GPU the queries raise
RuntimeError "CUDA is not available: <reason>", as the C ABI reports it."""

from __future__ import annotations

from typing import Any

from sdk import _C
from sdk.cuda._device import _index, is_available

_FIELDS = (
    "name",
    "major",
    "minor",
    "total_memory",
    "multi_processor_count",
    "max_threads_per_multi_processor",
    "max_threads_per_block",
    "warp_size",
    "regs_per_multiprocessor",
    "is_integrated",
    "is_multi_gpu_board",
    "L2_cache_size",
    "shared_memory_per_block",
    "shared_memory_per_block_optin",
    "shared_memory_per_multiprocessor",
    "pci_bus_id",
    "pci_device_id",
    "pci_domain_id",
    "memory_bus_width",
    "uuid",
)


class _CudaDeviceProperties:
    """One device's properties, with the fields of torch's (name, major, minor,
    total_memory in bytes, multi_processor_count, ..., uuid)."""

    __slots__ = _FIELDS

    def __init__(self, fields: dict[str, Any]) -> None:
        import uuid as _uuid  # ~3 ms (it loads platform): only once properties are asked for

        for name in _FIELDS:
            value = fields[name]
            if name == "uuid":
                value = _uuid.UUID(bytes=bytes(value))
            object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"_CudaDeviceProperties.{name} is read-only")

    def __repr__(self) -> str:
        return (
            f"_CudaDeviceProperties(name='{self.name}', major={self.major}, minor={self.minor}, "
            f"total_memory={self.total_memory // (1024 * 1024)}MB, "
            f"multi_processor_count={self.multi_processor_count}, uuid={self.uuid}, "
            f"pci_bus_id={self.pci_bus_id}, pci_device_id={self.pci_device_id}, "
            f"pci_domain_id={self.pci_domain_id}, "
            f"L2_cache_size={self.L2_cache_size // (1024 * 1024)}MB)"
        )


def get_device_properties(device: Any = None) -> _CudaDeviceProperties:
    """The properties of `device` (int, "cuda:N", sdk.device; None: the current one)."""
    return _CudaDeviceProperties(_C.cuda_device_properties(_index(device)))


def get_device_capability(device: Any = None) -> tuple[int, int]:
    """(major, minor) compute capability of `device` (None: the current one)."""
    p = get_device_properties(device)
    return p.major, p.minor


def get_device_name(device: Any = None) -> str:
    """The name of `device` (None: the current one)."""
    return get_device_properties(device).name


def mem_get_info(device: Any = None) -> tuple[int, int]:
    """(free, total) bytes of `device`'s memory as the driver reports them (None: current)."""
    return _C.cuda_mem_get_info(_index(device))


def get_arch_list() -> list[str]:
    """The architectures the CUDA backend's kernels were compiled for (["sm_80", ...]);
    [] when CUDA is not available, as torch."""
    return _C.cuda_arch_list().split()


def is_bf16_supported(including_emulation: bool = True) -> bool:
    """Whether bfloat16 tensors work on the current device: natively from compute
    capability 8.0; on older GPUs the SDK's kernels compute bfloat16 in float32, which is
    the emulation torch counts too. False without CUDA."""
    if not is_available():
        return False
    if get_device_properties().major >= 8:
        return True
    return bool(including_emulation)
