"""sdk.__config__: torch.__config__'s report functions, as text (setup.py files search
parallel_info() for their parallel backend; sdk.parallel_info() has the same facts as a dict)."""

from __future__ import annotations

import os

import sdk

__all__ = ["parallel_info", "show"]

_ENVIRONMENT = ("SDK_NUM_THREADS", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS")


def parallel_info() -> str:
    """The threading in torch.__config__.parallel_info()'s layout. The backend line reads
    "native thread pool", never "OpenMP": extensions must not add -fopenmp to match it."""
    info = sdk.parallel_info()
    blas = (
        "none found"
        if info["blas_threads"] is None
        else f"{info['blas_threads']} threads ({info['blas_threads_in_region']} inside the pool's regions)"
    )
    lines = [
        "SDK parallel:",
        f"\tsdk.get_num_threads() : {info['num_threads']}",
        f"\tthreads running at once : {info['max_concurrency']}",
        f"\tusable CPUs : {info['usable_cpus']}, physical cores : {info['physical_cores']}",
        f"BLAS : {blas}",
        "Environment variables:",
        *(f"\t{name} : {os.environ.get(name, '[not set]')}" for name in _ENVIRONMENT),
        "SDK parallel backend: native thread pool",
    ]
    return "\n".join(lines) + "\n"


def show() -> str:
    """The build's configuration: versions and backends."""
    major, minor = sdk.abi_version()
    cuda = (
        "available"
        if sdk.cuda.is_available()
        else f"not available ({sdk.cuda.unavailable_reason()})"
    )
    return (
        f"SDK {sdk.version.__version__}, C ABI {major}.{minor}\n"
        f"  CPU: {sdk.parallel_info()['physical_cores']} physical cores\n"
        f"  CUDA: {cuda}\n"
    )
