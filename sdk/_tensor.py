"""sdk.Tensor: the Python face of _C.TensorBase (methods delegate to the public functions).

Arithmetic operators live in C on TensorBase (fast path without autograd); this class
must not define them. Instances are created by C (never through __init__): users call
sdk.tensor(data), sdk.empty(*size), sdk.zeros(...), sdk.from_numpy(array).
"""

from __future__ import annotations

from typing import Any, Callable, Iterator

from sdk import (
    _C,
    _autograd_link,
    _indexing,
    _interop,
    _ops_complex,
    _ops_compose,
    _ops_copies,
    _ops_creation,
    _ops_data,
    _ops_elementwise,
    _ops_layout,
    _ops_linalg,
    _ops_math,
    _ops_random,
    _ops_reduce,
    _ops_scan,
    _ops_scatter,
    _ops_shape,
    _ops_sort,
    _ops_special,
    _ops_stats,
    _storage,
    _tensor_types,
)
from sdk import _tensor_state as _state
from sdk._dtype import as_dtype, device, dtype, float16, float32, float64, int32, int64
from sdk._dtype import bfloat16 as _bfloat16
from sdk._dtype import bool_ as _bool
from sdk._dtype import int16 as _int16
from sdk._dtype import uint8 as _uint8

__all__ = ["Tensor"]


def _graph() -> Any:
    return _autograd_link.autograd().graph


# The ops of the C ABI's op tables as methods: each op's function and, where the op's facts
# allow one, its in-place form (sdk._ops_math makes them from the tables, so a new op of the
# tables is a method without a line here). Tensor's own body binds every other method.
_TableOps = type(
    "_TableOps",
    (),
    {
        "__slots__": (),
        "__module__": __name__,
        **{
            n: getattr(_ops_math, n) for n in (*_ops_math.TABLE_FUNCTIONS, *_ops_math.TABLE_INPLACE)
        },
    },
)


class Tensor(_TableOps, _C.TensorBase):
    """A strided view of typed memory, with autograd state (see sdk.autograd)."""

    __slots__ = ()
    __array_priority__ = 1000  # numpy defers to our reflected operators

    # ------------------------------------------------------------------ autograd

    @property
    def requires_grad(self) -> bool:
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value: bool) -> None:
        _graph().set_requires_grad(self, value)

    def requires_grad_(self, requires_grad: bool = True) -> Tensor:
        return _graph().set_requires_grad(self, requires_grad)

    @property
    def is_leaf(self) -> bool:
        return self.grad_fn is None

    def backward(
        self, gradient: Tensor | None = None, retain_graph: bool | None = None,
        create_graph: bool = False, inputs: Any = None,
    ) -> None:  # fmt: skip
        """Accumulate d(self)/d(leaf) into every leaf's .grad."""
        kwargs = {"create_graph": create_graph} if create_graph else {}
        if inputs is not None:
            kwargs["inputs"] = inputs
        _autograd_link.autograd().backward(self, gradient, retain_graph, **kwargs)

    def detach(self) -> Tensor:
        """A tensor sharing storage, cut from the graph."""
        return _C._alias(self)

    def detach_(self) -> Tensor:
        self.grad_fn = None
        self._requires_grad = False
        self._ag = None
        return self

    def retain_grad(self) -> None:
        _graph().retain_grad(self)

    @property
    def retains_grad(self) -> bool:
        return _graph().retains_grad(self)

    def register_hook(self, hook: Callable) -> Any:
        return _graph().register_hook(self, hook)

    @property
    def data(self) -> Tensor:
        return _C._alias(self)

    @data.setter
    def data(self, value: Tensor) -> None:
        if tuple(value.shape) != tuple(self.shape) or value.dtype is not self.dtype:
            raise RuntimeError(
                "sdk: assigning .data needs the same shape and dtype (it copies in place here)"
            )
        _C.copy_(self, value)

    # ------------------------------------------------------------------ python protocol

    def __repr__(self) -> str:
        from sdk._repr import tensor_repr  # lazy: keeps import sdk fast (~1 ms)

        if self.is_cuda:  # values through a host copy, as torch prints them
            text = tensor_repr(_C.detach(self.cpu()) if hasattr(_C, "detach") else self.cpu())
            return f"{text[:-1]}, device='{self.device}')"
        return tensor_repr(self)

    def __format__(self, spec: str) -> str:
        if self.ndim == 0:
            return format(self.item(), spec)
        return object.__format__(self, spec)

    def __getitem__(self, idx: Any) -> Tensor:
        return _indexing.getitem(self, idx)

    def __setitem__(self, idx: Any, value: Any) -> None:
        _indexing.setitem(self, idx, value)

    def __iter__(self) -> Iterator[Tensor]:
        if self.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return iter(_ops_shape.unbind(self, 0))

    def __contains__(self, element: Any) -> bool:
        return bool(_ops_reduce.any(_ops_math.eq(self, element)))

    def __reversed__(self) -> Tensor:
        if self.ndim == 0:
            return self
        return _C.flip(self, (0,))

    def __deepcopy__(self, memo: dict) -> Tensor:
        if id(self) in memo:
            return memo[id(self)]
        out = _C.clone(self)
        out._requires_grad = self._requires_grad
        if self.grad is not None:
            out.grad = _C.clone(self.grad)
        memo[id(self)] = out
        return out

    def __reduce_ex__(self, proto: Any) -> Any:
        from sdk import _tensor_pickle  # lazy: it imports pickle (~4 ms)

        # protocol 5: out of band, no copy (see _tensor_pickle)
        return _tensor_pickle.reduce(self, proto, _rebuild)

    # ------------------------------------------------------------------ conversions

    def to(self, *args: Any, **kwargs: Any) -> Tensor:
        """to(dtype), to(device), to(device, dtype), to(other), with copy=False."""
        copy = bool(kwargs.pop("copy", False))
        kwargs.pop("non_blocking", None)
        kwargs.pop("memory_format", None)
        target = kwargs.pop("dtype", None)
        dev = kwargs.pop("device", None)
        if kwargs:
            raise TypeError(f"to() got unexpected keyword arguments {sorted(kwargs)}")
        for a in args:
            if isinstance(a, dtype):
                target = a
            elif isinstance(a, _C.TensorBase):
                target, dev = a.dtype, a.device
            elif isinstance(a, (str, device)):
                dev = a
            elif a is None:
                continue
            else:
                target = as_dtype(a)
        out = self
        if dev is not None:
            from sdk.cuda import _move  # lazy: keeps import sdk fast (~1 ms)

            out = _move(self, dev)  # self when already there; differentiable
        if target is None:
            return _C.clone(out) if copy and out is self else out
        return _ops_math.to_dtype(out, as_dtype(target), copy and out is self)

    def type(self, dtype: Any = None) -> Any:
        if dtype is None:
            return _tensor_types.type_name(self)
        legacy = _tensor_types.lookup(dtype)  # sdk.cuda.FloatTensor, 'torch.IntTensor'
        if legacy is not None:
            return self.to(legacy._device, legacy.dtype)
        return self.to(as_dtype(dtype))

    def new(self, *args: Any, device: Any = None) -> Tensor:
        """torch's legacy constructor with this tensor's dtype and device: new(2, 3) is
        uninitialized, new([1, 2]) copies data, new() is empty."""
        return _tensor_types.construct("Tensor.new()", self.dtype, device or self.device, args)

    def get_device(self) -> int:
        """The CUDA device index, -1 on the CPU."""
        return -1 if self.device.type == "cpu" else (self.device.index or 0)

    def type_as(self, other: Tensor) -> Tensor:
        if not isinstance(other, _C.TensorBase):
            raise TypeError(
                f"type_as(): argument 'other' must be Tensor, not {type(other).__name__}"
            )
        return self.to(other.dtype)

    def float(self) -> Tensor:
        return self.to(float32)

    def double(self) -> Tensor:
        return self.to(float64)

    def half(self) -> Tensor:
        return self.to(float16)

    def bfloat16(self) -> Tensor:
        return self.to(_bfloat16)

    def long(self) -> Tensor:
        return self.to(int64)

    def int(self) -> Tensor:
        return self.to(int32)

    def short(self) -> Tensor:
        return self.to(_int16)

    def byte(self) -> Tensor:
        return self.to(_uint8)

    def bool(self) -> Tensor:
        return self.to(_bool)

    def cpu(self, memory_format: Any = None) -> Tensor:
        """This tensor in host memory (itself when already there)."""
        return self.to("cpu") if self.is_cuda else self

    def cuda(self, device: Any = None, non_blocking: bool = False, **kwargs: Any) -> Tensor:
        """This tensor on a CUDA device (default: the current one); RuntimeError
        "CUDA is not available: <reason>" without CUDA."""
        if isinstance(device, int):
            device = f"cuda:{device}"
        return self.to("cuda" if device is None else device)

    def record_stream(self, stream: Any) -> None:
        """Mark this CUDA tensor's memory as used by `stream` (as torch): when the tensor's
        storage is freed, the caching allocator reuses the block only after the work queued
        on `stream` by then has finished. ValueError for a CPU tensor."""
        from sdk import cuda  # lazy: keeps import sdk fast (~1 ms)

        cuda._record_stream(self, stream)

    @property
    def is_cpu(self) -> bool:
        return not self.is_cuda

    @property
    def T(self) -> Tensor:
        return _ops_shape.permute(self, tuple(range(self.ndim - 1, -1, -1)))

    @property
    def mT(self) -> Tensor:
        return _ops_shape.transpose(self, -2, -1)

    # The conjugate transposes: the transposes themselves for real dtypes.
    @property
    def mH(self) -> Tensor:
        return _ops_shape.transpose(self, -2, -1)

    @property
    def H(self) -> Tensor:
        if self.ndim not in (0, 2):
            raise RuntimeError(
                f"tensor.H is only supported on matrices (2-D tensors). Got {self.ndim}-D tensor."
            )
        return self.T if self.ndim == 2 else self

    def adjoint(self) -> Tensor:
        return _ops_shape.transpose(self, -2, -1)

    def to_dense(self, dtype: Any = None, *, masked_grad: Any = None) -> Tensor:
        """This tensor (every SDK tensor is dense), converted to dtype when given."""
        return self if dtype is None else self.to(dtype)

    # ------------------------------------------------------------------ new_* helpers

    # dtype and device default to this tensor's, as in torch.

    def new_empty(self, *size: Any, dtype: Any = None, device: Any = None, **kw: Any) -> Tensor:
        return _ops_creation.empty(*size, dtype=dtype or self.dtype, device=device or self.device,
                                   **kw)  # fmt: skip

    def new_zeros(self, *size: Any, dtype: Any = None, device: Any = None, **kw: Any) -> Tensor:
        return _ops_creation.zeros(*size, dtype=dtype or self.dtype, device=device or self.device,
                                   **kw)  # fmt: skip

    def new_ones(self, *size: Any, dtype: Any = None, device: Any = None, **kw: Any) -> Tensor:
        return _ops_creation.ones(*size, dtype=dtype or self.dtype, device=device or self.device,
                                  **kw)  # fmt: skip

    def new_full(
        self, size: Any, fill_value: Any, *, dtype: Any = None, device: Any = None, **kw: Any
    ) -> Tensor:
        return _ops_creation.full(
            size, fill_value, dtype=dtype or self.dtype, device=device or self.device, **kw
        )

    def new_tensor(self, data: Any, *, dtype: Any = None, **kw: Any) -> Tensor:
        return _interop.tensor(data, dtype=dtype or self.dtype, **kw)

    def is_same_size(self, other: Tensor) -> bool:
        if not isinstance(other, _C.TensorBase):
            raise TypeError(
                f"is_same_size(): argument 'other' must be Tensor, not {type(other).__name__}"
            )
        return tuple(self.shape) == tuple(other.shape)

    def clamp_min_(self, min: Any) -> Tensor:
        return _ops_math.clamp_(self, min=min)

    def clamp_max_(self, max: Any) -> Tensor:
        return _ops_math.clamp_(self, max=max)

    # ------------------------------------------------------------------ state queries

    # What torch's glue code asks of a tensor, answered in sdk._tensor_state.
    is_sparse = is_sparse_csr = is_quantized = is_meta = is_nested = is_mkldnn = _state.FALSE
    is_mps = is_xla = is_xpu = is_ipu = is_maia = is_mtia = is_vulkan = _state.FALSE
    layout = _state.layout
    output_nr = _state.output_nr
    is_signed = _state.is_signed
    is_inference = _state.is_inference
    is_conj = _state.is_conj
    is_neg = _state.is_neg
    is_pinned = _state.is_pinned
    pin_memory = _state.pin_memory
    is_shared = _state.is_shared
    share_memory_ = _state.share_memory_
    storage = _storage.storage
    untyped_storage = _storage.untyped_storage
    is_set_to = _storage.is_set_to
    set_ = _storage.set_
    resize = _state.resize
    resize_as = _state.resize_as
    is_nonzero = _state.is_nonzero
    const_data_ptr = _state.const_data_ptr
    char = _state.char

    def polygamma(self, n: int) -> Tensor:
        """sdk.polygamma(n, self): torch's method takes n after self."""
        return _ops_special.polygamma(n, self)

    # ------------------------------------------------------------------ ops needing order changes

    def where(self, condition: Tensor, other: Any) -> Tensor:
        return _ops_math.where(condition, self, other)

    def random_(self, low: int = 0, high: int | None = None, *, generator: Any = None) -> Tensor:
        if high is None:
            low, high = 0, low
        return _C.randint_(self, low, high, generator)

    def apply_(self, fn: Callable) -> Tensor:
        raise NotImplementedError("apply_ is not supported")

    def dim_order(self) -> tuple:
        return tuple(sorted(range(self.ndim), key=lambda i: -self.stride(i)))

    # ------------------------------------------------------------------ functions as methods

    # Each is the public function itself (self is its first argument): Tensor.flip is
    # sdk.flip, defined in the module named here (tests/sdk/test_layers.py checks this).

    # The ops of the C ABI's tables and their in-place forms come from _TableOps (above).
    # Shifts (sdk._ops_data)
    bitwise_left_shift = _ops_data.bitwise_left_shift
    bitwise_right_shift = _ops_data.bitwise_right_shift
    __lshift__ = _ops_data.bitwise_left_shift
    __rshift__ = _ops_data.bitwise_right_shift
    __ilshift__ = _ops_data.bitwise_left_shift_  # a <<= b writes into a, as torch (views see it)
    __irshift__ = _ops_data.bitwise_right_shift_

    def __rlshift__(self, other: Any) -> Tensor:
        return _ops_data.bitwise_left_shift(_ops_data.shift_base(other, self), self)

    def __rrshift__(self, other: Any) -> Tensor:
        return _ops_data.bitwise_right_shift(_ops_data.shift_base(other, self), self)

    # Aliases of table ops, arithmetic, in-place ops; matrix products
    negative = _ops_math.negative
    subtract = _ops_math.subtract
    multiply = _ops_math.multiply
    divide = _ops_math.divide
    true_divide = _ops_math.true_divide
    greater = _ops_math.greater
    greater_equal = _ops_math.greater_equal
    less = _ops_math.less
    less_equal = _ops_math.less_equal
    not_equal = _ops_math.not_equal
    masked_fill = _ops_math.masked_fill
    clamp = _ops_math.clamp
    clip = _ops_math.clip
    clamp_ = _ops_math.clamp_
    clip_ = clamp_
    fill_ = _ops_math.fill_
    zero_ = _ops_math.zero_
    copy_ = _ops_math.copy_
    masked_fill_ = _ops_math.masked_fill_
    mm = _ops_linalg.mm
    bmm = _ops_linalg.bmm
    matmul = _ops_linalg.matmul
    mv = _ops_linalg.mv
    dot = _ops_linalg.dot
    inner = _ops_linalg.inner
    addmm = _ops_linalg.addmm
    rsub = _ops_math.rsub
    elu = _ops_math.elu
    clamp_min = _ops_math.clamp_min
    clamp_max = _ops_math.clamp_max
    outer = _ops_linalg.outer
    ger = _ops_linalg.ger
    baddbmm = _ops_linalg.baddbmm
    true_divide_ = _ops_math.true_divide_

    # numpy's names and composite elementwise ops (sdk._ops_elementwise)
    sgn = _ops_math.sign
    fix = _ops_math.trunc
    arcsin = _ops_math.asin
    arccos = _ops_math.acos
    arctan = _ops_math.atan
    arcsinh = _ops_math.asinh
    arccosh = _ops_math.acosh
    arctanh = _ops_math.atanh
    sgn_ = _ops_math.sign_
    fix_ = _ops_math.trunc_
    arcsin_ = _ops_math.asin_
    arccos_ = _ops_math.acos_
    arctan_ = _ops_math.atan_
    arcsinh_ = _ops_math.asinh_
    arccosh_ = _ops_math.acosh_
    arctanh_ = _ops_math.atanh_
    arctan2 = _ops_math.atan2
    nan_to_num = _ops_elementwise.nan_to_num
    nan_to_num_ = _ops_elementwise.nan_to_num_
    lerp = _ops_elementwise.lerp
    lerp_ = _ops_elementwise.lerp_
    addcmul = _ops_elementwise.addcmul
    addcmul_ = _ops_elementwise.addcmul_
    addcdiv = _ops_elementwise.addcdiv
    addcdiv_ = _ops_elementwise.addcdiv_
    isclose = _ops_elementwise.isclose
    allclose = _ops_elementwise.allclose

    # Random sampling (sdk._ops_random)
    bernoulli = _ops_random.bernoulli
    bernoulli_ = _ops_random.bernoulli_
    multinomial = _ops_random.multinomial

    # Reductions (sdk._ops_reduce)
    sum = _ops_reduce.sum
    mean = _ops_reduce.mean
    prod = _ops_reduce.prod
    amax = _ops_reduce.amax
    amin = _ops_reduce.amin
    all = _ops_reduce.all
    any = _ops_reduce.any
    max = _ops_reduce.max
    min = _ops_reduce.min
    argmax = _ops_reduce.argmax
    argmin = _ops_reduce.argmin
    var = _ops_reduce.var
    std = _ops_reduce.std
    softmax = _ops_reduce.softmax
    log_softmax = _ops_reduce.log_softmax
    logsumexp = _ops_reduce.logsumexp
    equal = _ops_reduce.equal
    norm = _ops_reduce.norm

    # complex64 and complex128 (sdk._ops_complex)
    is_complex = _ops_complex.is_complex
    is_conj = _ops_complex.is_conj
    conj = _ops_complex.conj
    conj_physical = _ops_complex.conj_physical
    resolve_conj = _ops_complex.resolve_conj
    resolve_neg = _ops_complex.resolve_neg

    @property
    def real(self) -> Tensor:
        """The real parts, as a view (a real tensor's is itself)."""
        return _ops_complex.real(self)

    @real.setter
    def real(self, value: Any) -> None:
        _ops_math.copy_(_ops_complex.real(self), value)

    @property
    def imag(self) -> Tensor:
        """The imaginary parts, as a view (complex tensors only)."""
        return _ops_complex.imag(self)

    @imag.setter
    def imag(self, value: Any) -> None:
        _ops_math.copy_(_ops_complex.imag(self), value)

    # Views, reshapes, splits and gathers (sdk._ops_shape)
    view = _ops_shape.view
    reshape = _ops_shape.reshape
    view_as = _ops_shape.view_as
    reshape_as = _ops_shape.reshape_as
    transpose = _ops_shape.transpose
    swapaxes = _ops_shape.swapaxes
    swapdims = _ops_shape.swapdims
    t = _ops_shape.t
    permute = _ops_shape.permute
    movedim = _ops_shape.movedim
    moveaxis = _ops_shape.moveaxis
    narrow = _ops_shape.narrow
    select = _ops_shape.select
    split = _ops_shape.split
    chunk = _ops_shape.chunk
    tensor_split = _ops_shape.tensor_split
    diff = _ops_shape.diff
    unbind = _ops_shape.unbind
    unsqueeze = _ops_shape.unsqueeze
    squeeze = _ops_shape.squeeze
    expand = _ops_shape.expand
    expand_as = _ops_shape.expand_as
    broadcast_to = _ops_shape.broadcast_to
    flatten = _ops_shape.flatten
    ravel = _ops_shape.ravel
    contiguous = _ops_shape.contiguous
    clone = _ops_shape.clone
    index_select = _ops_shape.index_select
    gather = _ops_shape.gather
    index_put_ = _indexing.index_put_
    index_put = _indexing.index_put
    nonzero = _ops_shape.nonzero
    argwhere = _ops_shape.argwhere

    # Reordering, triangles and diagonals (sdk._ops_layout)
    flip = _ops_layout.flip
    fliplr = _ops_layout.fliplr
    flipud = _ops_layout.flipud
    roll = _ops_layout.roll
    tril = _ops_layout.tril
    triu = _ops_layout.triu
    tril_ = _ops_layout.tril_
    triu_ = _ops_layout.triu_
    diagonal = _ops_layout.diagonal
    diag = _ops_layout.diag
    diag_embed = _ops_layout.diag_embed
    diagflat = _ops_layout.diagflat
    repeat_interleave = _ops_layout.repeat_interleave
    unfold = _ops_layout.unfold
    resize_ = _ops_layout.resize_
    resize_as_ = _ops_layout.resize_as_
    transpose_ = _ops_layout.transpose_
    swapdims_ = swapaxes_ = _ops_layout.swapdims_
    t_ = _ops_layout.t_
    squeeze_ = _ops_layout.squeeze_
    unsqueeze_ = _ops_layout.unsqueeze_
    as_strided_ = _ops_layout.as_strided_

    # Composites (sdk._ops_compose)
    repeat = _ops_compose.repeat
    tile = _ops_compose.tile
    unflatten = _ops_compose.unflatten
    as_strided = _ops_compose.as_strided

    # Scatter, index and mask ops (sdk._ops_scatter)
    scatter = _ops_scatter.scatter
    scatter_ = _ops_scatter.scatter_
    scatter_add = _ops_scatter.scatter_add
    scatter_add_ = _ops_scatter.scatter_add_
    scatter_reduce = _ops_scatter.scatter_reduce
    scatter_reduce_ = _ops_scatter.scatter_reduce_
    index_add = _ops_scatter.index_add
    index_add_ = _ops_scatter.index_add_
    index_copy = _ops_scatter.index_copy
    index_copy_ = _ops_scatter.index_copy_
    index_fill = _ops_scatter.index_fill
    index_fill_ = _ops_scatter.index_fill_
    masked_select = _ops_scatter.masked_select
    masked_scatter = _ops_scatter.masked_scatter
    masked_scatter_ = _ops_scatter.masked_scatter_
    take = _ops_scatter.take
    take_along_dim = _ops_scatter.take_along_dim

    # Sorting and selection (sdk._ops_sort), scans (sdk._ops_scan)
    sort = _ops_sort.sort
    argsort = _ops_sort.argsort
    msort = _ops_sort.msort
    topk = _ops_sort.topk
    kthvalue = _ops_sort.kthvalue
    median = _ops_sort.median
    cumsum = _ops_scan.cumsum
    cumprod = _ops_scan.cumprod
    cumsum_ = _ops_scan.cumsum_
    cumprod_ = _ops_scan.cumprod_
    cummax = _ops_scan.cummax
    cummin = _ops_scan.cummin
    unique = _ops_sort.unique

    # torch's aliases and in-place forms of the ops above
    absolute = _ops_math.abs
    absolute_ = _ops_math.abs_
    negative_ = _ops_math.neg_
    subtract_ = _ops_math.sub_
    multiply_ = _ops_math.mul_
    divide_ = _ops_math.div_
    greater_ = _ops_math.gt_
    greater_equal_ = _ops_math.ge_
    less_ = _ops_math.lt_
    less_equal_ = _ops_math.le_
    not_equal_ = _ops_math.ne_
    arctan2_ = _ops_math.atan2_
    addmm_ = _ops_linalg.addmm_
    addmv = _ops_linalg.addmv
    addmv_ = _ops_linalg.addmv_
    addbmm = _ops_linalg.addbmm
    addbmm_ = _ops_linalg.addbmm_
    baddbmm_ = _ops_linalg.baddbmm_
    addr = _ops_linalg.addr
    addr_ = _ops_linalg.addr_

    # Composed elementwise ops (sdk._ops_elementwise) and special functions (sdk._ops_special)
    deg2rad = _ops_elementwise.deg2rad
    deg2rad_ = _ops_elementwise.deg2rad_
    rad2deg = _ops_elementwise.rad2deg
    rad2deg_ = _ops_elementwise.rad2deg_
    signbit = _ops_elementwise.signbit
    sinc = _ops_elementwise.sinc
    sinc_ = _ops_elementwise.sinc_
    logaddexp2 = _ops_elementwise.logaddexp2
    heaviside = _ops_elementwise.heaviside
    heaviside_ = _ops_elementwise.heaviside_
    float_power = _ops_elementwise.float_power
    float_power_ = _ops_elementwise.float_power_
    ldexp = _ops_elementwise.ldexp
    ldexp_ = _ops_elementwise.ldexp_
    logit = _ops_elementwise.logit
    logit_ = _ops_elementwise.logit_
    gcd = _ops_elementwise.gcd
    gcd_ = _ops_elementwise.gcd_
    lcm = _ops_elementwise.lcm
    lcm_ = _ops_elementwise.lcm_
    fmax = _ops_elementwise.fmax
    fmin = _ops_elementwise.fmin
    isreal = _ops_elementwise.isreal
    hardshrink = _ops_elementwise.hardshrink
    prelu = _ops_elementwise.prelu
    lgamma = _ops_special.lgamma
    lgamma_ = _ops_special.lgamma_
    digamma = _ops_special.digamma
    digamma_ = _ops_special.digamma_
    polygamma_ = _ops_special.polygamma_
    mvlgamma = _ops_special.mvlgamma
    mvlgamma_ = _ops_special.mvlgamma_
    i0 = _ops_special.i0
    i0_ = _ops_special.i0_
    igamma = igamma_ = igammac = igammac_ = _ops_special.igamma
    frexp = _ops_special.frexp
    nextafter = _ops_special.nextafter
    nextafter_ = _ops_special.nextafter_

    # Statistics (sdk._ops_stats), counting (sdk._ops_data, sdk._ops_sort)
    nansum = _ops_stats.nansum
    nanmean = _ops_stats.nanmean
    nanmedian = _ops_stats.nanmedian
    aminmax = _ops_stats.aminmax
    quantile = _ops_stats.quantile
    nanquantile = _ops_stats.nanquantile
    cov = _ops_stats.cov
    corrcoef = _ops_stats.corrcoef
    logcumsumexp = _ops_stats.logcumsumexp
    dist = _ops_stats.dist
    trace = _ops_stats.trace
    renorm = _ops_stats.renorm
    renorm_ = _ops_stats.renorm_
    count_nonzero = _ops_reduce.count_nonzero
    histc = _ops_data.histc
    bincount = _ops_data.bincount
    mode = _ops_data.mode
    unique_consecutive = _ops_sort.unique_consecutive
    histogram = _ops_data.histogram
    bitwise_left_shift_ = _ops_data.bitwise_left_shift_
    bitwise_right_shift_ = _ops_data.bitwise_right_shift_
    positive = _ops_elementwise.positive
    put = _ops_scatter.put
    put_ = _ops_scatter.put_
    index_reduce = _ops_scatter.index_reduce
    index_reduce_ = _ops_scatter.index_reduce_
    nonzero_static = _ops_shape.nonzero_static
    exponential_ = _ops_random.exponential_
    cauchy_ = _ops_random.cauchy_
    log_normal_ = _ops_random.log_normal_
    geometric_ = _ops_random.geometric_

    # Matrix functions (sdk._ops_linalg)
    det = _ops_linalg.det
    inverse = _ops_linalg.inverse
    cholesky = _ops_linalg.cholesky
    cholesky_solve = _ops_linalg.cholesky_solve
    cholesky_inverse = _ops_linalg.cholesky_inverse
    triangular_solve = _ops_linalg.triangular_solve
    slogdet = _ops_linalg.slogdet
    logdet = _ops_linalg.logdet
    matrix_power = _ops_linalg.matrix_power
    matrix_exp = _ops_linalg.matrix_exp
    cross = _ops_linalg.cross
    kron = _ops_linalg.kron
    vdot = _ops_linalg.vdot
    geqrf = _ops_linalg.geqrf
    orgqr = _ops_linalg.orgqr
    qr = _ops_linalg.qr
    svd = _ops_linalg.svd
    pinverse = _ops_linalg.pinverse
    ormqr = _ops_linalg.ormqr

    # Blocks, splits and copies (sdk._ops_compose, sdk._ops_shape, sdk._ops_copies)
    hsplit = _ops_compose.hsplit
    vsplit = _ops_compose.vsplit
    dsplit = _ops_compose.dsplit
    rot90 = _ops_compose.rot90
    split_with_sizes = _ops_shape.split_with_sizes
    unsafe_chunk = _ops_shape.unsafe_chunk
    unsafe_split = _ops_shape.unsafe_split
    unsafe_split_with_sizes = _ops_shape.unsafe_split_with_sizes
    narrow_copy = _ops_copies.narrow_copy
    select_scatter = _ops_copies.select_scatter
    slice_scatter = _ops_copies.slice_scatter
    diagonal_scatter = _ops_copies.diagonal_scatter
    as_strided_scatter = _ops_copies.as_strided_scatter
    sum_to_size = _ops_copies.sum_to_size
    fill_diagonal_ = _ops_copies.fill_diagonal_
    new_empty_strided = _ops_copies.new_empty_strided

    # numpy / DLPack interop (sdk._interop) and in-place random fills (sdk._ops_creation)
    numpy = _interop.numpy
    __dlpack__ = _interop.__dlpack__
    __dlpack_device__ = _interop.__dlpack_device__
    normal_ = _ops_creation.normal_
    uniform_ = _ops_creation.uniform_


def _rebuild(
    raw: Any, dtype_name: str, shape: tuple, requires_grad: bool, order: Any = None
) -> Tensor:
    """Unpickle a tensor (see Tensor.__reduce_ex__ and sdk._tensor_pickle): the one callable
    a tensor's pickle names, so that restricted unpicklers allow exactly this. Its
    arguments come from whoever wrote the pickle; all are checked before memory is touched."""
    from sdk import _tensor_pickle  # lazy: it imports pickle (~4 ms)

    return _tensor_pickle.rebuild(raw, dtype_name, shape, requires_grad, order)
