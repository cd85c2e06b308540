"""sdk: tensors over a small C++ core with a stable C ABI, numpy/DLPack interop and autograd.

numpy is imported lazily (only by functions that need it), and so are the autograd, nn
and optim packages, which keeps ``import sdk`` fast.

Layering rule: sdk reaches the core only through its C ABI (sdk._C), and never imports
cpp_extension, templates or examples. Inside sdk, modules import only their own layer or
lower ones, also inside functions (tests/sdk/test_layers.py), lowest first:
  _C -> _dtype, grad_mode, _finfo, _autograd_link, _settings -> cuda -> op modules (_interop -> _ops_common ->
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

from sdk import _C, _autograd_link, _blas_path, _dtype, _ops_common, _ops_linalg, _ops_math  # noqa: F401  (_blas_path: see its docstring)
from sdk._C import InvalidArgumentError, OutOfMemoryError, error_type
from sdk._dtype import DTYPES as _DTYPES
from sdk._dtype import (
    Size,
    contiguous_format,
    device,
    dtype,
    get_default_dtype,
    layout,
    memory_format,
    preserve_format,
    set_default_dtype,
    strided,
)
from sdk._finfo import finfo, iinfo
from sdk._indexing import index_put
from sdk._interop import (
    as_tensor,
    asarray,
    from_dlpack,
    from_numpy,
    frombuffer,
    tensor,
    to_dlpack,
)
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
from sdk._ops_compose import (
    as_strided,
    atleast_1d,
    atleast_2d,
    atleast_3d,
    block_diag,
    cartesian_prod,
    column_stack,
    combinations,
    dsplit,
    dstack,
    hsplit,
    meshgrid,
    rot90,
    tile,
    unflatten,
    unravel_index,
    vander,
    vsplit,
)
from sdk._ops_copies import (
    alias_copy,
    as_strided_copy,
    as_strided_scatter,
    detach_copy,
    diagonal_copy,
    diagonal_scatter,
    expand_copy,
    narrow_copy,
    permute_copy,
    select_copy,
    select_scatter,
    slice_copy,
    slice_scatter,
    split_copy,
    split_with_sizes_copy,
    squeeze_copy,
    t_copy,
    transpose_copy,
    unbind_copy,
    unfold_copy,
    unsqueeze_copy,
    view_copy,
)
from sdk._ops_creation import (
    Generator,
    arange,
    empty,
    empty_like,
    empty_permuted,
    empty_strided,
    eye,
    full,
    full_like,
    initial_seed,
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
    seed,
    zeros,
    zeros_like,
)
from sdk._ops_creation import torch_range as range  # noqa: A004  (torch's name)
from sdk._ops_data import (
    bincount,
    bitwise_left_shift,
    bitwise_right_shift,
    bucketize,
    histc,
    histogram,
    isin,
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
    deg2rad,
    deg2rad_,
    fill,
    fix,
    float_power,
    fmax,
    fmin,
    gcd,
    gcd_,
    hardshrink,
    heaviside,
    isclose,
    isreal,
    lcm,
    lcm_,
    ldexp,
    ldexp_,
    lerp,
    logaddexp2,
    logit,
    logit_,
    nan_to_num,
    positive,
    prelu,
    rad2deg,
    rad2deg_,
    sgn,
    signbit,
    sinc,
    sinc_,
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
    tril_indices,
    triu,
    triu_indices,
)
from sdk._ops_linalg import (
    addbmm,
    addmm,
    addmv,
    addr,
    baddbmm,
    bmm,
    cdist,
    chain_matmul,
    cholesky,
    cholesky_inverse,
    cholesky_solve,
    cross,
    det,
    dot,
    einsum,
    geqrf,
    ger,
    inner,
    inverse,
    kron,
    linalg_cross,
    linalg_det,
    linalg_inv,
    logdet,
    matmul,
    matrix_exp,
    matrix_power,
    mm,
    mv,
    orgqr,
    ormqr,
    outer,
    pinverse,
    qr,
    slogdet,
    svd,
    tensordot,
    triangular_solve,
    vdot,
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
from sdk._ops_random import (
    bernoulli,
    binomial,
    get_rng_state,
    multinomial,
    normal,
    poisson,
    set_rng_state,
)
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
    index_reduce,
    masked_scatter,
    masked_select,
    put,
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
    nonzero_static,
    permute,
    ravel,
    reshape,
    row_stack,
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
    unsafe_chunk,
    unsafe_split,
    unsafe_split_with_sizes,
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
    unique_consecutive,
)
from sdk._ops_special import (
    digamma,
    frexp,
    i0,
    i0_,
    igamma,
    igammac,
    lgamma,
    mvlgamma,
    nextafter,
    polygamma,
)
from sdk._ops_stats import (
    aminmax,
    corrcoef,
    cov,
    cumulative_trapezoid,
    dist,
    frobenius_norm,
    gradient,
    logcumsumexp,
    nanmean,
    nanmedian,
    nanquantile,
    nansum,
    quantile,
    renorm,
    trace,
    trapezoid,
    trapz,
)
from sdk._ops_windows import (
    bartlett_window,
    blackman_window,
    hamming_window,
    hann_window,
    kaiser_window,
)
from sdk._settings import (
    compiled_with_cxx11_abi,
    get_default_device,
    get_deterministic_debug_mode,
    get_float32_matmul_precision,
    get_num_interop_threads,
    init_num_threads,
    is_anomaly_check_nan_enabled,
    is_anomaly_enabled,
    is_distributed,
    is_vulkan_available,
    is_warn_always_enabled,
    set_anomaly_enabled,
    set_default_device,
    set_deterministic_debug_mode,
    set_float32_matmul_precision,
    set_flush_denormal,
    set_num_interop_threads,
    set_warn_always,
)
from sdk._storage import TypedStorage, UntypedStorage, is_storage
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
    set_default_tensor_type,
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

# torch's module-level in-place functions (sdk.exp_(t) is t.exp_()) and methods torch also
# offers as functions: each is the Tensor method itself.
_AS_FUNCTIONS = (
    "abs_", "acos_", "acosh_", "addmv_", "arccos_", "arccosh_", "arcsin_", "arcsinh_", "arctan_",
    "arctanh_", "as_strided_", "asin_", "asinh_", "atan_", "atanh_", "ceil_", "clamp_",
    "clamp_max_", "clamp_min_", "clip_", "cos_", "cosh_", "detach_", "erf_", "erfc_", "exp2_",
    "exp_", "expm1_", "fill_", "fix_", "floor_", "frac_", "index_put_", "log10_", "log1p_",
    "log2_", "log_", "nan_to_num_", "neg_", "negative_", "reciprocal_", "relu_", "resize_as_",
    "round_", "rsqrt_", "sigmoid_", "sin_", "sinh_", "sqrt_", "square_", "tan_", "tanh_",
    "trunc_", "xlogy_", "zero_", "absolute", "detach", "get_device", "is_same_size",
    "is_nonzero", "is_signed", "is_inference", "is_conj", "is_neg",
)  # fmt: skip


def _as_function(name: str) -> _Any:
    """torch.<name>(input, ...): Tensor.<name> with a TypeError for a non-tensor input (the
    method itself would fail on it with an AttributeError)."""
    method = getattr(Tensor, name)

    def function(input: _Any, *args: _Any, **kwargs: _Any) -> _Any:
        _ops_common.tensor_arg(input, name)
        return method(input, *args, **kwargs)

    function.__name__ = function.__qualname__ = name
    function.__doc__ = method.__doc__
    return function


globals().update({name: _as_function(name) for name in _AS_FUNCTIONS})

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


def can_cast(from_: dtype, to: dtype) -> bool:
    """Whether torch's casting rules allow an op computing in from_ to write a `to` result:
    not to a lower kind (complex to real, float to integer, anything but bool to bool)."""
    for arg, d in (("from_", from_), ("to", to)):
        if not isinstance(d, dtype):
            raise TypeError(
                f"can_cast(): argument '{arg}' must be sdk.dtype, not {type(d).__name__}"
            )
    rank = [0 if d.name == "bool" else 3 if d.is_complex else 2 if d.is_floating_point else 1
            for d in (from_, to)]  # fmt: skip
    return rank[0] <= rank[1]


def typename(obj: _Any) -> str:
    """A tensor's legacy type name (Tensor.type(): 'sdk.FloatTensor'), else the object's
    qualified type name."""
    if is_tensor(obj):
        return obj.type()
    kind = type(obj)
    return (
        kind.__qualname__
        if kind.__module__ == "builtins"
        else f"{kind.__module__}.{kind.__qualname__}"
    )


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
    "classes",
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
# torch's top-level names built on sdk.nn, sdk.linalg and sdk.jit, which live in sdk._toplevel
# (loaded with them): the nn functions under torch's top-level signatures, the RNN cells,
# nuclear_norm, compile/fork/wait.
_TOPLEVEL_NAMES = (
    "adaptive_avg_pool1d", "adaptive_max_pool1d", "alpha_dropout", "alpha_dropout_",
    "avg_pool1d", "batch_norm", "bilinear", "binary_cross_entropy_with_logits", "celu", "celu_",
    "channel_shuffle", "constant_pad_nd", "conv1d", "conv2d", "conv3d", "conv_transpose1d",
    "conv_transpose2d", "conv_transpose3d", "convolution", "cosine_embedding_loss",
    "cosine_similarity", "ctc_loss", "dropout", "dropout_", "embedding", "embedding_bag",
    "feature_alpha_dropout", "feature_alpha_dropout_", "feature_dropout", "feature_dropout_",
    "group_norm", "hinge_embedding_loss", "instance_norm", "kl_div", "layer_norm",
    "margin_ranking_loss", "max_pool1d", "max_pool1d_with_indices", "max_pool2d", "max_pool3d",
    "native_channel_shuffle", "pairwise_distance", "pdist", "pixel_shuffle",
    "pixel_unshuffle", "poisson_nll_loss", "rms_norm", "rrelu", "rrelu_", "selu", "selu_",
    "threshold", "threshold_", "triplet_margin_loss", "nuclear_norm", "compile", "fork",
    "wait", "rnn_tanh_cell", "rnn_relu_cell", "lstm_cell", "gru_cell",
)  # fmt: skip


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
    if name in _TOPLEVEL_NAMES:
        return getattr(importlib.import_module("sdk._toplevel"), name)
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
