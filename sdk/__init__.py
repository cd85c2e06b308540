"""sdk: tensors over a small C++ core with a stable C ABI, numpy/DLPack interop and autograd.

numpy is imported lazily (only by functions that need it), and so are the autograd, nn
and optim packages, which keeps ``import sdk`` fast.

Layering rule: sdk reaches the core only through its C ABI (sdk._C), and never imports
cpp_extension, templates or examples. Inside sdk, modules import only their own layer or
lower ones, also inside functions (tests/sdk/test_layers.py), lowest first:
  _C -> _dtype, grad_mode, _finfo, _autograd_link -> cuda -> op modules (_interop -> _ops_common ->
  _ops_creation -> _ops_shape -> _ops_math -> _ops_elementwise -> _ops_reduce -> _indexing
  -> the others) -> _tensor (Tensor) -> this namespace -> autograd, ops, testing -> nn,
  optim, utils, library -> serialization.
The lower layers reach sdk.autograd only through sdk._autograd_link, where autograd installs
itself when it loads; this namespace registers how to load it on first need (its
__getattr__, which loads the subpackages by name).
"""

from __future__ import annotations

import os as _os
from typing import Any as _Any

from sdk import _C, _autograd_link, _blas_path, _dtype, _ops_linalg, _ops_math  # noqa: F401  (_blas_path: see its docstring)
from sdk._C import InvalidArgumentError, OutOfMemoryError, error_type
from sdk._dtype import DTYPES as _DTYPES
from sdk._dtype import (
    Size,
    contiguous_format,
    device,
    dtype,
    get_default_dtype,
    memory_format,
    preserve_format,
    set_default_dtype,
)
from sdk._finfo import finfo, iinfo
from sdk._indexing import index_put
from sdk._interop import as_tensor, asarray, from_dlpack, from_numpy, tensor
from sdk._ops_complex import (
    conj,
    conj_physical,
    imag,
    is_complex,
    is_conj,
    real,
    resolve_conj,
    resolve_neg,
    view_as_complex,
    view_as_real,
)
from sdk._ops_compose import as_strided, meshgrid, tile, unflatten
from sdk._ops_creation import (
    Generator,
    arange,
    empty,
    empty_like,
    empty_strided,
    eye,
    full,
    full_like,
    linspace,
    manual_seed,
    ones,
    ones_like,
    rand,
    rand_like,
    randint,
    randint_like,
    randn,
    randn_like,
    randperm,
    zeros,
    zeros_like,
)
from sdk._ops_data import (
    bincount,
    bitwise_left_shift,
    bitwise_right_shift,
    bucketize,
    histc,
    logspace,
    mode,
    scalar_tensor,
    searchsorted,
)
from sdk._ops_elementwise import (
    addcdiv,
    addcmul,
    allclose,
    arccos,
    arccosh,
    arcsin,
    arcsinh,
    arctan,
    arctan2,
    arctanh,
    fix,
    fmax,
    fmin,
    isclose,
    lerp,
    logit,
    nan_to_num,
    sgn,
)
from sdk._ops_layout import (
    diag,
    diag_embed,
    diagflat,
    diagonal,
    flip,
    fliplr,
    flipud,
    repeat_interleave,
    roll,
    tril,
    triu,
)
from sdk._ops_linalg import (
    addbmm,
    addmm,
    addmv,
    baddbmm,
    bmm,
    cdist,
    cholesky,
    cross,
    det,
    dot,
    einsum,
    ger,
    inner,
    inverse,
    linalg_cross,
    linalg_det,
    linalg_inv,
    matmul,
    mm,
    mv,
    outer,
    triangular_solve,
)
from sdk._ops_math import (
    clamp,
    clamp_max,
    clamp_min,
    clip,
    divide,
    elu,
    greater,
    greater_equal,
    less,
    less_equal,
    masked_fill,
    multiply,
    negative,
    not_equal,
    rsub,
    subtract,
    true_divide,
    where,
)
from sdk._ops_random import bernoulli, get_rng_state, multinomial, normal, set_rng_state
from sdk._ops_reduce import (
    all,
    amax,
    amin,
    any,
    argmax,
    argmin,
    count_nonzero,
    equal,
    log_softmax,
    logsumexp,
    max,
    mean,
    min,
    norm,
    prod,
    softmax,
    std,
    std_mean,
    sum,
    var,
    var_mean,
)
from sdk._ops_scan import (
    cummax,
    cummin,
    cumprod,
    cumsum,
)
from sdk._ops_scatter import (
    index_add,
    index_copy,
    index_fill,
    masked_scatter,
    masked_select,
    scatter,
    scatter_add,
    scatter_reduce,
    take,
    take_along_dim,
)
from sdk._ops_shape import (
    argwhere,
    broadcast_shapes,
    broadcast_tensors,
    broadcast_to,
    cat,
    chunk,
    clone,
    concat,
    concatenate,
    diff,
    flatten,
    gather,
    hstack,
    index_select,
    moveaxis,
    movedim,
    narrow,
    nonzero,
    permute,
    ravel,
    reshape,
    select,
    split,
    split_with_sizes,
    squeeze,
    stack,
    swapaxes,
    swapdims,
    t,
    tensor_split,
    transpose,
    unbind,
    unsqueeze,
    vstack,
)
from sdk._ops_sort import (
    argsort,
    kthvalue,
    median,
    msort,
    sort,
    topk,
    unique,
)
from sdk._tensor import Tensor
from sdk._tensor_types import (  # torch's legacy typed constructors; sdk.cuda has them too
    BFloat16Tensor,
    BoolTensor,
    ByteTensor,
    CharTensor,
    DoubleTensor,
    FloatTensor,
    HalfTensor,
    IntTensor,
    LongTensor,
    ShortTensor,
)
from sdk.grad_mode import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)

# The ops of the C ABI's tables, one function each, made by sdk._ops_math from the tables
globals().update({name: getattr(_ops_math, name) for name in _ops_math.TABLE_FUNCTIONS})

# The dtypes by torch's names (sdk.float32, sdk.float, sdk.bool), from the C ABI's SDK_DTYPES
globals().update(_dtype.TORCH_NAMES)

_C._set_tensor_class(Tensor)
_C._set_python_types(_DTYPES, Size, device("cpu"), device)

# For FFI bridges (cpp_extension's ctypes bridge), with Tensor._handle_address(): wrap a NEW
# sdk_tensor* reference, given as an int, as an sdk.Tensor that owns it (ValueError for NULL).
_from_handle = _C._from_handle


_C._register_fallbacks({**_ops_math.FALLBACKS, **_ops_linalg.FALLBACKS})


def is_tensor(obj: _Any) -> bool:
    """True for sdk tensors."""
    return isinstance(obj, _C.TensorBase)


def is_floating_point(input: Tensor) -> bool:
    return _tensor_arg(input, "is_floating_point").dtype.is_floating_point


def numel(input: Tensor) -> int:
    return _tensor_arg(input, "numel").numel()


def _tensor_arg(x: _Any, op: str) -> Tensor:
    if not isinstance(x, _C.TensorBase):
        raise TypeError(f"{op}(): argument 'input' must be Tensor, not {type(x).__name__}")
    return x


def promote_types(type1: dtype, type2: dtype) -> dtype:
    """The dtype torch's promotion rules give an op on type1 and type2."""
    return _C.promote_types(type1, type2)


def result_type(tensor1: _Any, tensor2: _Any) -> dtype:
    return (tensor(tensor1) if not is_tensor(tensor1) else tensor1).__add__(tensor2).dtype


def set_num_threads(n: int) -> None:
    """Threads used by the core's large kernels and the BLAS, as torch.set_num_threads.

    A count above the CPUs this process may use is kept (get_num_threads() returns it) but
    never runs more threads at once than there are CPUs (see parallel_info())."""
    _C.set_num_threads(n)


def get_num_threads() -> int:
    """The thread count: the last one set, else SDK_NUM_THREADS, else OMP_NUM_THREADS, else
    the physical cores this process may run on."""
    return _C.get_num_threads()


def use_deterministic_algorithms(mode: bool, *, warn_only: bool = False) -> None:  # noqa: F811
    """torch.use_deterministic_algorithms: ask for deterministic algorithms, process-wide.

    Every kernel of the SDK is deterministic already (fixed reduction orders, no atomic
    accumulation), so none changes; extensions see the switch through
    sdk::globalContext().deterministicAlgorithms() and pick their kernels by it, and one with
    no deterministic kernel raises there (warns, with warn_only=True)."""
    for name, value in (("mode", mode), ("warn_only", warn_only)):
        if value is not True and value is not False:  # (`bool` here is sdk.bool, a dtype)
            raise TypeError(
                f"use_deterministic_algorithms(): argument '{name}' must be bool, "
                f"not {type(value).__name__}"
            )
    _C._set_deterministic(mode, warn_only)


def are_deterministic_algorithms_enabled() -> bool:
    """torch.are_deterministic_algorithms_enabled: whether the switch above is on."""
    return _C._get_deterministic() != 0


def is_deterministic_algorithms_warn_only_enabled() -> bool:
    """torch.is_deterministic_algorithms_warn_only_enabled: on, with warn_only=True."""
    return _C._get_deterministic() == 2


def parallel_info() -> dict:
    """The threading as it stands (torch.__config__.parallel_info's facts, as a dict):
    num_threads, max_concurrency (threads that run at once), usable_cpus, physical_cores,
    pool_workers, blas_threads, blas_threads_in_region, blas_on_pool (None: no BLAS)."""
    return _C.parallel_info()


def abi_version() -> tuple:
    """(major, minor) ABI version of the running core."""
    return _C.abi_version()


_PKG = _os.path.dirname(_os.path.abspath(__file__))


def get_include() -> str:
    """Directory holding sdk/c_api.h (the package's include/, or the repo's core/include)."""
    inside = _os.path.join(_PKG, "include")
    if _os.path.exists(_os.path.join(inside, "sdk", "c_api.h")):
        return inside
    return _os.path.join(_os.path.dirname(_PKG), "core", "include")


def get_library_dir() -> str:
    """Directory holding libsdk_core.so."""
    return _os.path.join(_PKG, "lib")


def get_library_path() -> str:
    """Absolute path of libsdk_core.so."""
    return _os.path.join(get_library_dir(), "libsdk_core.so")


def _read_version() -> str:
    try:
        from importlib.metadata import PackageNotFoundError, version
    except ImportError:  # pragma: no cover
        return _C.version_string()
    try:
        return version("tensor-sdk")
    except PackageNotFoundError:  # a source checkout: the core carries the same version
        return _C.version_string()


_LAZY = (
    "autograd",
    "nn",
    "optim",
    "testing",
    "serialization",
    "cuda",
    "backends",
    "ops",
    "library",
    "utils",
    "linalg",
    "version",
    "__config__",
    "jit",
    "amp",
)
# torch's top-level autocast names, which live in sdk.amp (loaded with it).
_AMP_NAMES = ("autocast", "is_autocast_enabled", "get_autocast_dtype", "get_autocast_gpu_dtype")


def __getattr__(name: str) -> _Any:
    # Heavy or rarely needed parts load on first use.
    if name == "__version__":
        v = _read_version()
        globals()["__version__"] = v
        return v
    # Loaded by name (PEP 562): these build on this namespace, which never imports them.
    import importlib

    if name in _LAZY:
        return importlib.import_module(f"sdk.{name}")
    if name in _AMP_NAMES:
        return getattr(importlib.import_module("sdk.amp"), name)
    if name == "set_printoptions":
        return importlib.import_module("sdk._repr").set_printoptions
    if name in ("save", "load"):
        return getattr(importlib.import_module("sdk.serialization"), name)
    raise AttributeError(f"module 'sdk' has no attribute {name!r}")


# device= on the converters: built on the host, then moved (see _ops_creation._on_device).
from sdk._ops_creation import _on_device  # noqa: E402

tensor = _on_device(tensor)
as_tensor = _on_device(as_tensor)
asarray = _on_device(asarray)


def _check_environment() -> None:
    """Warn about settings the core reads from the environment but cannot use."""
    import builtins
    import os

    # (the core ignores a thread count above 65536 as a typo)
    for name, low, high in (("SDK_NUM_THREADS", 1, 1 << 16), ("SDK_CPU_CACHE_MB", 0, None)):
        value = os.environ.get(name)
        if value is None:
            continue
        try:
            ok = builtins.int(value) >= low and (high is None or builtins.int(value) <= high)
        except ValueError:
            ok = False
        if not ok:
            import warnings

            bounds = f">= {low}" if high is None else f"in [{low}, {high}]"
            warnings.warn(
                f"{name}={value!r} is not an integer {bounds}; using the default",
                RuntimeWarning,
                stacklevel=3,
            )


_check_environment()


_autograd_link.set_loader(lambda: __getattr__("autograd"))


def _public_names() -> list[str]:
    """The namespace's API: every public name bound above (the ops, dtypes and helpers
    imported from the modules that define them), and set_printoptions, which __getattr__
    loads; not the subpackages, which load on first use."""
    import types

    names = {
        name
        for name, value in globals().items()
        if not name.startswith("_")
        and not isinstance(value, types.ModuleType)
        and name != "annotations"  # the __future__ import
    }
    return sorted(names | {"set_printoptions"})


__all__ = _public_names()
