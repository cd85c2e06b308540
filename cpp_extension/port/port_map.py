"""What `python -m cpp_extension port` rewrites: torch's names mapped to ours, as data.

This module is the one place the mapping is written. The porter (`main.py`) applies it, the
README's porting table is generated from it (`python -m cpp_extension port --table`), and a
test checks that the two agree. Whether a C++ name has a counterpart is not listed here: the
porter reads the SDK's headers (functions, methods, classes, macros they declare) when it
runs, so the answer follows the headers as ops are added.
"""

from __future__ import annotations

# ---- C++ headers -----------------------------------------------------------------------------
# An #include of a torch header (prefixes in TORCH_INCLUDE_ROOTS) becomes the SDK header here.
# A header of ours that does not exist yet in the installed SDK is reported, not written.
INCLUDES: dict[str, str] = {
    "torch/extension.h": "sdk/extension.h",
    "torch/python.h": "sdk/nn_python.h",
    "torch/nn.h": "sdk/nn.h",
    "torch/nn/functional.h": "sdk/nn_functional.h",
    "torch/nn/module.h": "sdk/nn_module.h",
    "torch/nn/modules.h": "sdk/nn_modules.h",
    "torch/nn/options.h": "sdk/nn_options.h",
    "torch/csrc/utils/pybind.h": "sdk/extension.h",
    # in an extension build torch/torch.h brings torch/extension.h too (see the header)
    "torch/torch.h": "sdk/all_extension.h",
    "torch/all.h": "sdk/all.h",
    # torch/types.h includes all of ATen (and the standard headers it brings): real code
    # relies on that, e.g. on assert and INT_MAX
    "torch/types.h": "sdk/all.h",
    "torch/library.h": "sdk/library.h",
    # torch/script.h brings ATen, the autograd Function and op registration
    "torch/script.h": "sdk/all.h",
    "torch/custom_class.h": "sdk/custom_class.h",
    "c10/util/intrusive_ptr.h": "sdk/intrusive_ptr.h",
    "torch/autograd.h": "sdk/autograd.h",
    "torch/csrc/autograd/custom_function.h": "sdk/autograd.h",
    "torch/csrc/autograd/function.h": "sdk/autograd.h",
    "torch/csrc/autograd/variable.h": "sdk/autograd.h",
    # extensions include it by habit beside function.h for the autograd Variable helpers
    "torch/csrc/autograd/VariableTypeUtils.h": "sdk/autograd.h",
    "ATen/core/ivalue.h": "sdk/autograd.h",
    "ATen/core/List.h": "sdk/containers.h",
    "ATen/core/Dict.h": "sdk/containers.h",
    "ATen/core/enum_tag.h": "sdk/tag.h",
    "ATen/TensorUtils.h": "sdk/tensor_utils.h",
    "torch/csrc/utils/tensor_flatten.h": "sdk/tensor_utils.h",
    "ATen/ATen.h": "sdk/all.h",
    "ATen/core/Tensor.h": "sdk/tensor.h",
    "ATen/Tensor.h": "sdk/tensor.h",
    "ATen/Functions.h": "sdk/tensor.h",
    # included by habit beside ATen/ATen.h; its at::native:: kernels stay refused by name
    "ATen/NativeFunctions.h": "sdk/tensor.h",
    "ATen/TensorOperators.h": "sdk/tensor.h",
    "ATen/TensorIndexing.h": "sdk/indexing.h",
    "ATen/Dispatch.h": "sdk/dispatch.h",
    "ATen/Dispatch_v2.h": "sdk/dispatch.h",
    "ATen/Parallel.h": "sdk/parallel.h",
    # the backend halves ATen/Parallel.h includes (one pool here: see SDK_PARALLEL_NATIVE)
    "ATen/ParallelOpenMP.h": "sdk/parallel.h",
    "ATen/ParallelNative.h": "sdk/parallel.h",
    "ATen/ParallelNativeTBB.h": "sdk/parallel.h",
    "ATen/AccumulateType.h": "sdk/acc_type.h",
    "ATen/OpMathType.h": "sdk/acc_type.h",
    "ATen/ceil_div.h": "sdk/util.h",
    "ATen/DimVector.h": "sdk/util.h",
    "ATen/core/DimVector.h": "sdk/util.h",
    "ATen/DeviceGuard.h": "sdk/cuda_guard.h",
    "c10/core/DeviceGuard.h": "sdk/cuda_guard.h",
    "ATen/TensorAccessor.h": "sdk/accessor.h",
    "ATen/core/TensorAccessor.h": "sdk/accessor.h",
    "ATen/core/op_registration/op_registration.h": "sdk/library.h",
    "ATen/core/dispatch/Dispatcher.h": "sdk/library.h",
    "ATen/cuda/CUDAContext.h": "sdk/cuda.h",
    "ATen/cuda/CUDAEvent.h": "sdk/cuda.h",
    "ATen/cuda/Exceptions.h": "sdk/cuda.h",
    "ATen/cuda/CUDADataType.h": "sdk/cuda.h",
    "ATen/cuda/CUDAContextLight.h": "sdk/cuda.h",
    "ATen/cuda/DeviceUtils.cuh": "sdk/cuda_warp.h",
    "ATen/cuda/NumericLimits.cuh": "sdk/numeric_limits.h",
    "ATen/NumericUtils.h": "sdk/numeric_limits.h",
    # torch's CUDAUtils.h includes CUDAContext.h (streams, C10_CUDA_KERNEL_LAUNCH_CHECK)
    "ATen/cuda/CUDAUtils.h": "sdk/cuda.h",
    "ATen/cuda/CUDAGeneratorImpl.h": "sdk/cuda_generator.h",
    "ATen/CUDAGeneratorImpl.h": "sdk/cuda_generator.h",
    "ATen/cuda/CUDAGraphsUtils.cuh": "sdk/cuda_generator.h",
    "ATen/cuda/PhiloxUtils.cuh": "sdk/cuda_generator.h",
    "ATen/cuda/PhiloxCudaState.h": "sdk/cuda_generator.h",
    # torch's Python stream type; the census's users include it for the CUDA streams it brings
    "torch/csrc/cuda/Stream.h": "sdk/cuda_guard.h",
    "ATen/Generator.h": "sdk/tensor.h",
    "ATen/core/Generator.h": "sdk/tensor.h",
    "ATen/cuda/CUDAGuard.h": "sdk/cuda_guard.h",
    "c10/cuda/CUDAGuard.h": "sdk/cuda_guard.h",
    "c10/cuda/CUDAStream.h": "sdk/cuda_guard.h",
    "c10/cuda/CUDAException.h": "sdk/cuda.h",
    "c10/cuda/CUDAFunctions.h": "sdk/cuda_guard.h",
    "c10/cuda/CUDACachingAllocator.h": "sdk/cuda_guard.h",
    "c10/core/InferenceMode.h": "sdk/autograd.h",
    "c10/core/GradMode.h": "sdk/autograd.h",
    "c10/util/MaybeOwned.h": "sdk/maybe_owned.h",
    "c10/util/Optional.h": "sdk/util.h",
    "c10/util/irange.h": "sdk/util.h",
    "c10/util/SmallVector.h": "sdk/util.h",
    "c10/util/string_view.h": "sdk/util.h",
    "c10/util/ArrayRef.h": "sdk/array_ref.h",
    "c10/util/Exception.h": "sdk/error.h",
    "c10/util/Half.h": "sdk/half.h",
    "c10/util/BFloat16.h": "sdk/half.h",
    "c10/util/Float8_e4m3fn.h": "sdk/float8.h",
    "c10/util/Float8_e5m2.h": "sdk/float8.h",
    "c10/util/Float8_e4m3fnuz.h": "sdk/float8.h",
    "c10/util/Float8_e5m2fnuz.h": "sdk/float8.h",
    "c10/util/complex.h": "sdk/complex.h",
    "c10/util/complex_math.h": "sdk/complex.h",
    "c10/core/ScalarType.h": "sdk/dtype.h",
    "c10/core/ScalarTypeToTypeMeta.h": "sdk/dtype.h",
    "c10/util/typeid.h": "sdk/dtype.h",
    "c10/core/Device.h": "sdk/device.h",
    "c10/core/DeviceType.h": "sdk/device.h",
    "c10/core/TensorOptions.h": "sdk/options.h",
    "c10/core/MemoryFormat.h": "sdk/memory_format.h",
    "c10/core/Scalar.h": "sdk/scalar.h",
    "c10/core/Storage.h": "sdk/storage.h",
    "ATen/Storage.h": "sdk/storage.h",
    "c10/macros/Macros.h": "sdk/macros.h",
    "torch/version.h": "sdk/macros.h",
    "ATen/Config.h": "sdk/macros.h",
    "ATen/cuda/CUDAConfig.h": "sdk/macros.h",
    "torch/cuda.h": "sdk/cuda_guard.h",
    "ATen/record_function.h": "sdk/macros.h",
    "c10/util/accumulate.h": "sdk/util.h",
    "c10/util/bit_cast.h": "sdk/util.h",
    "c10/core/SymInt.h": "sdk/symint.h",
    "c10/core/SymIntArrayRef.h": "sdk/symint.h",
    "ATen/core/grad_mode.h": "sdk/autograd.h",
    "ATen/Context.h": "sdk/context.h",
    # the TORCH_CHECK_EQ family and TORCH_WARN, which torch declares there, are in sdk/error.h
    "c10/util/Logging.h": "sdk/logging.h",
    # torch::save/torch::load of tensors: extensions include it by habit for at::Tensor (none
    # of the census's repositories calls either), so it is sdk/tensor.h; the functions stay
    # reported as missing
    "torch/serialize/tensor.h": "sdk/tensor.h",
    # torch's stable ABI: the SDK's C ABI is stable itself, so the stable C++ surface is a
    # header over it
    "torch/csrc/stable/tensor.h": "sdk/stable.h",
    "torch/csrc/stable/tensor_struct.h": "sdk/stable.h",
    "torch/csrc/stable/library.h": "sdk/stable.h",
    "torch/csrc/stable/ops.h": "sdk/stable.h",
    "torch/csrc/stable/accelerator.h": "sdk/stable.h",
    "torch/csrc/stable/macros.h": "sdk/stable.h",
    "torch/csrc/stable/stableivalue_conversions.h": "sdk/stable.h",
    "torch/headeronly/core/ScalarType.h": "sdk/headeronly.h",
    "torch/headeronly/util/Exception.h": "sdk/headeronly.h",
    "torch/headeronly/util/shim_utils.h": "sdk/headeronly.h",
    "torch/headeronly/util/HeaderOnlyArrayRef.h": "sdk/headeronly.h",
    "torch/headeronly/core/Layout.h": "sdk/headeronly.h",
    "torch/headeronly/core/TensorAccessor.h": "sdk/accessor.h",
    "torch/headeronly/core/Dispatch_v2.h": "sdk/dispatch.h",
    "torch/headeronly/util/BFloat16.h": "sdk/half.h",
    "torch/headeronly/util/Half.h": "sdk/half.h",
    "torch/headeronly/util/Float8_e4m3fn.h": "sdk/float8.h",
    "torch/headeronly/util/Float8_e5m2.h": "sdk/float8.h",
    "torch/headeronly/util/Float8_e4m3fnuz.h": "sdk/float8.h",
    "torch/headeronly/util/Float8_e5m2fnuz.h": "sdk/float8.h",
    "torch/headeronly/util/complex.h": "sdk/complex.h",
    "torch/csrc/stable/device.h": "sdk/stable.h",
    # gpuAtomicAdd and atomicAdd for the 16-bit floats and small integers; THC's header was
    # their older home. CUDAApplyUtils.cuh is included for them and for the CUDA context; its
    # CUDA_tensor_apply functions stay reported by name.
    "ATen/cuda/Atomic.cuh": "sdk/cuda_atomic.h",
    "THC/THCAtomics.cuh": "sdk/cuda_atomic.h",
    # THC (torch 1.10 and before): the THCState stand-in and THC's cuBLAS wrappers, with what
    # the rest of THC became (THC_CALLS below rewrites those calls); THCDeviceUtils.cuh's
    # THCCeilDiv and warp helpers come with it. Its other headers stay refused.
    "THC/THC.h": "sdk/thc.h",
    "THC/THCGeneral.h": "sdk/thc.h",
    "THC/THCDeviceUtils.cuh": "sdk/thc.h",
    "THC/THCNumerics.cuh": "sdk/thc.h",  # THCNumerics<T>, ScalarConvert (sdk/thc_numerics.h)
    # TH's BLAS calls (THFloatBlas_gemm, ...); THArgCheck is rewritten below, its tensor API
    # stays reported
    "TH/TH.h": "sdk/th.h",
    # the ATen/cuda/detail/ headers extensions include (the rest of detail/ stays refused)
    "ATen/cuda/detail/TensorInfo.cuh": "sdk/cuda_tensor_info.h",
    "ATen/cuda/detail/IndexUtils.cuh": "sdk/cuda_tensor_info.h",
    "ATen/CollapseDims.h": "sdk/cuda_tensor_info.h",
    "ATen/cuda/detail/KernelUtils.h": "sdk/cuda_kernel_utils.h",
    "ATen/cuda/detail/UnpackRaw.cuh": "sdk/cuda_generator.h",
    "ATen/cuda/CUDAApplyUtils.cuh": "sdk/cuda.h",
    "ATen/ExpandUtils.h": "sdk/expand_utils.h",
    # at::vec's public headers; the per-ISA ones (vec256/, vec512/) stay refused below
    "ATen/cpu/vec/vec.h": "sdk/vec.h",
    "ATen/cpu/vec/functional.h": "sdk/vec.h",
    "c10/cuda/CUDADeviceAssertion.h": "sdk/cuda.h",
    "c10/cuda/CUDADeviceAssertionHost.h": "sdk/cuda.h",
    "torch/csrc/api/include/torch/types.h": "sdk/all.h",
    "ATen/MemoryOverlap.h": "sdk/expand_utils.h",
    "ATen/core/Array.h": "sdk/util.h",
    "ATen/div_rtn.h": "sdk/div_rtn.h",
    "ATen/core/functional.h": "sdk/util.h",
    "c10/util/Unroll.h": "sdk/util.h",
    "c10/util/StringUtil.h": "sdk/util.h",
    "c10/util/Registry.h": "sdk/registry.h",  # c10::Registry and the C10_*_REGISTRY macros
    "c10/util/Flags.h": "sdk/flags.h",  # C10_DEFINE_int & co., ParseCommandLineFlags
    "ATen/InferSize.h": "sdk/expand_utils.h",
    # torch/utils.h declares the autograd guards (NoGradGuard, AutoGradMode) and the seeds
    "torch/utils.h": "sdk/all.h",
    "ATen/Utils.h": "sdk/tensor.h",
}
# Whole folders mapped at once (a longer entry in INCLUDES wins).
INCLUDE_PREFIXES: dict[str, str] = {
    "ATen/ops/": "sdk/tensor.h",  # one header per op: all are in sdk/tensor.h
}
# Include roots that belong to torch: an include under one of them with no entry above is
# reported as a header without counterpart (the reason, when known, comes from here).
TORCH_INCLUDE_ROOTS = ("torch/", "ATen/", "c10/", "THC/", "TH/", "caffe2/")
INCLUDES_WITHOUT_COUNTERPART: dict[str, str] = {
    "ATen/native/": "ATen's internal kernels are not part of the SDK",
    "ATen/cpu/vec/": "at::vec's per-ISA headers: include ATen/cpu/vec/vec.h (sdk/vec.h: "
    "Vectorized<T> as portable loops)",
    "ATen/TensorIterator.h": "no TensorIterator: loop over accessors or data_ptr",
    "ATen/Operators.h": "no at::_ops:: operator structs: call sdk::name(...), or a registered "
    "op through sdk::call_op",
    "THC/": "THC was removed from torch itself: only THC.h, THCGeneral.h, THCDeviceUtils.cuh, "
    "THCNumerics.cuh and THCAtomics.cuh map; use the sdk/cuda.h helpers",
    "THC/THCAtomics.muh": "torch_musa's copy of THC/THCAtomics.cuh for MUSA GPUs: the SDK runs "
    "on CPU and CUDA only (THC/THCAtomics.cuh maps to sdk/cuda_atomic.h)",
    "torch/csrc/jit/": "no TorchScript",
    "torch/nn/": "only nn.h, nn/functional.h, nn/module.h, nn/modules.h, nn/options.h",
}

# ---- C++ names ------------------------------------------------------------------------------
# Namespace qualifiers rewritten (`at::` inside `flat::` is left alone), and the namespaces
# of `using namespace X`.
NAMESPACES: dict[str, str] = {"torch": "sdk", "at": "sdk", "c10": "sdk", "caffe2": "sdk"}
# torch's own spellings of std names (c10::optional is std::optional since torch 2.1):
# rewritten to std::, which every SDK header makes visible.
STD_NAMES: dict[str, str] = {
    "optional": "std::optional",
    "nullopt": "std::nullopt",
    "nullopt_t": "std::nullopt_t",
    "make_optional": "std::make_optional",
}
# torch:: names (torch:: only) whose namespace rewrite would land on an SDK name of another
# meaning: torch::arg (a custom-class method's argument) is sdk::class_arg, sdk::arg being
# at::arg, the complex angle. torch::jit::CustomClassHolder is torch's other spelling of
# torch::CustomClassHolder (the rest of torch::jit stays reported).
TORCH_ONLY_NAMES: dict[str, str] = {
    "arg": "sdk::class_arg",
    "jit::CustomClassHolder": "sdk::CustomClassHolder",
}
# Macro prefixes: TORCH_X, AT_X, C10_X become SDK_X when the SDK's headers define SDK_X;
# otherwise the macro is reported.
MACRO_PREFIXES: dict[str, str] = {"TORCH_": "SDK_", "AT_": "SDK_", "C10_": "SDK_"}
# Macros whose SDK spelling the prefix rule does not give.
MACROS: dict[str, str] = {
    "TORCH_EXTENSION_NAME": "SDK_EXTENSION_NAME",
    "AT_CUDA_CHECK": "SDK_CUDA_CHECK",
    "TORCH_CUDABLAS_CHECK": "SDK_CUDABLAS_CHECK",
    "AT_CHECK": "SDK_CHECK",
    "THCudaCheck": "SDK_CUDA_CHECK",
    "TORCH_VERSION_MAJOR": "SDK_TORCH_API_VERSION_MAJOR",
    "TORCH_VERSION_MINOR": "SDK_TORCH_API_VERSION_MINOR",
    "TORCH_VERSION_PATCH": "SDK_TORCH_API_VERSION_PATCH",
    "RECORD_FUNCTION": "SDK_RECORD_FUNCTION",
    "CUDA_KERNEL_ASSERT": "SDK_CUDA_KERNEL_ASSERT",
    "CUDA_KERNEL_ASSERT2": "SDK_CUDA_KERNEL_ASSERT2",
    # torch's stable ABI (sdk/stable.h, sdk/headeronly.h)
    "STABLE_TORCH_LIBRARY": "SDK_LIBRARY",
    "STABLE_TORCH_LIBRARY_FRAGMENT": "SDK_LIBRARY_FRAGMENT",
    "STABLE_TORCH_LIBRARY_IMPL": "SDK_LIBRARY_IMPL",
    "STD_TORCH_CHECK": "SDK_CHECK",
    "STD_CUDA_CHECK": "SDK_CUDA_CHECK",
    "STD_CUDA_KERNEL_LAUNCH_CHECK": "SDK_CUDA_KERNEL_LAUNCH_CHECK",
    "THO_DISPATCH_V2": "SDK_DISPATCH_V2",
    # c10/util/Logging.h's stream logging (sdk/logging.h)
    "LOG": "SDK_LOG",
    "LOG_IF": "SDK_LOG_IF",
    # and its glog-style checks, which torch/extension.h brings (sdk/error.h; they throw)
    "CHECK_EQ": "SDK_CHECK_EQ",
    "CHECK_NE": "SDK_CHECK_NE",
    "CHECK_LT": "SDK_CHECK_LT",
    "CHECK_LE": "SDK_CHECK_LE",
    "CHECK_GT": "SDK_CHECK_GT",
    "CHECK_GE": "SDK_CHECK_GE",
}
# c10/util/Flags.h's macros end in a lowercase type, which the prefix rule does not match.
MACROS.update(
    {
        f"C10_{verb}_{kind}": f"SDK_{verb}_{kind}"
        for verb in ("DEFINE", "DECLARE")
        for kind in ("int", "int32", "int64", "double", "bool", "string", "typed_var")
    }
)
# Macros defined by the build tooling rather than a header (they exist without a #define).
BUILD_MACROS = ("SDK_EXTENSION_NAME",)
# Switches torch's own build defines only when a feature is on, which extensions test with
# #ifdef: nothing defines them for an SDK build (nor for an extension's build against torch),
# so they stay as they are and the code takes the feature-off path. Name -> that path.
UNSET_SWITCHES: dict[str, str] = {
    "TORCH_USE_CUDA_DSA": "no device-side assertion log (CUDA_KERNEL_ASSERT2 asserts plainly)",
    "AT_PER_OPERATOR_HEADERS": "ATen/Functions.h and friends, not one ATen/ops/*.h per op",
}
# THC's functions (torch 1.10 and before), rewritten to what torch's own code became when THC
# was removed: name -> (today's spelling, how many leading arguments are dropped: the
# THCState*). `THCudaMalloc(state, n)` becomes `...::raw_alloc(n)`.
THC_CALLS: dict[str, tuple[str, int]] = {
    "THCCeilDiv": ("sdk::ceil_div", 0),
    "THCudaMalloc": ("sdk::cuda::CUDACachingAllocator::raw_alloc", 1),
    "THCudaFree": ("sdk::cuda::CUDACachingAllocator::raw_delete", 1),
    "THCState_getCurrentStream": ("sdk::cuda::getCurrentCUDAStream", 1),
    "THCState_getCurrentStreamOnDevice": ("sdk::cuda::getCurrentCUDAStream", 1),
}
# TH's argument check with a plain message (no printf format): `THArgCheck(cond, 2, "msg")`
# becomes `SDK_CHECK(cond, "invalid argument ", 2, ": ", "msg")`, TH's message.
THC_ARG_CHECKS: dict[str, str] = {"THArgCheck": "SDK_CHECK"}
# Deprecated torch spellings the SDK has under their current name: `.data<T>()`.
TEMPLATE_METHOD_RENAMES: dict[str, str] = {"data": "data_ptr"}

# torch functions and Tensor methods extension code calls. A `.name(` call of one of these
# that the SDK's headers do not declare is reported as a missing method (other `.name(` calls
# are left alone: they belong to other types). `sdk::name` after a rewrite is checked against
# the headers whatever the name.
ATEN_METHODS: tuple[str, ...] = tuple(
    """
view view_as reshape reshape_as permute transpose transpose_ t
contiguous is_contiguous expand expand_as squeeze squeeze_ unsqueeze
unsqueeze_ flatten unflatten narrow slice select index_select chunk
split split_with_sizes unbind repeat repeat_interleave flip roll
movedim diagonal tril triu tril_ triu_ as_strided unfold mT
resize_ resize_as_ set_ swapaxes swapdims view_as_real view_as_complex
sizes strides dim ndimension numel scalar_type dtype device
options is_cuda is_cpu get_device element_size itemsize nbytes
is_floating_point is_complex is_same_size storage_offset data_ptr
const_data_ptr mutable_data_ptr item to toType type_as cpu cuda
clone detach detach_ requires_grad requires_grad_ grad set_requires_grad
is_leaf retain_grad backward defined accessor packed_accessor32
packed_accessor64 generic_packed_accessor is_sparse is_pinned pin_memory
layout suggest_memory_format is_non_overlapping_and_dense new_zeros
new_ones new_empty new_full new_tensor half bfloat16
int_repr record_stream storage has_storage is_alias_of is_set_to
fill_ zero_ copy_ uniform_ normal_ random_ bernoulli_ exponential_
masked_fill masked_fill_ masked_scatter_ masked_select index_put_
index_fill_ index_copy_ index_add_ index_add scatter scatter_
scatter_add scatter_add_ scatter_reduce scatter_reduce_ gather put_
take index nonzero where
add add_ sub sub_ mul mul_ div div_ true_divide floor_divide
remainder fmod pow pow_ neg neg_ abs abs_ exp exp_ exp2
log log_ log2 log10 log1p expm1 sqrt sqrt_ rsqrt sin cos
tan asin acos atan atan2 sinh cosh tanh tanh_ sigmoid
sigmoid_ relu relu_ gelu silu elu erf erfc erfinv sign
sgn reciprocal square floor ceil round trunc frac clamp
clamp_ clamp_min clamp_max clamp_min_ clamp_max_ lerp lerp_
addcmul addcmul_ addcdiv addcdiv_ maximum minimum fmax fmin
logical_not logical_and logical_or logical_xor bitwise_and bitwise_or
bitwise_xor bitwise_not eq ne lt le gt ge isnan isinf
isfinite nan_to_num hypot logit softplus hardtanh leaky_relu
sum mean prod amax amin max min argmax argmin all any
var std var_mean std_mean norm logsumexp cumsum cumsum_ cumprod
cummax cummin sort argsort topk kthvalue median mode unique
count_nonzero softmax log_softmax allclose equal
mm bmm matmul mv dot addmm addmm_ addmv addbmm baddbmm
outer ger cross inverse det cholesky triangular_solve
""".split()
)
# Functions called as torch::name / at::name (or unqualified after `using namespace torch`):
# the methods above, and these.
ATEN_FUNCTIONS: tuple[str, ...] = tuple(
    """
empty empty_like empty_strided zeros zeros_like ones ones_like
full full_like arange linspace logspace eye rand rand_like randn
randn_like randint randint_like randperm from_blob tensor scalar_tensor
cat stack hstack vstack einsum linear layer_norm group_norm
batch_norm embedding dropout constant_pad_nd pad conv1d conv2d
conv3d conv_transpose2d max_pool2d avg_pool2d adaptive_avg_pool2d
interpolate upsample_bilinear2d grid_sampler cross_entropy nll_loss
mse_loss binary_cross_entropy cosine_similarity pairwise_distance cdist
meshgrid broadcast_tensors searchsorted bucketize histc bincount
manual_seed set_num_threads get_num_threads set_num_interop_threads
get_num_interop_threads get_thread_num parallel_for
parallel_reduce irange ceil_div device_of globalContext getCurrentCUDAStream
""".split()
)

# Names too generic to report as missing methods: std containers, strings and pybind11
# objects have them.
GENERIC_METHODS: frozenset[str] = frozenset(
    """
size data begin end at empty clear resize insert front back count find swap reserve get
reset push_back emplace_back erase value has_value str c_str length append fill copy
cast attr release
""".split()
)

# ---- Python --------------------------------------------------------------------------------
# Module prefixes: the longest that matches a dotted name wins. A rewritten name must exist in
# the SDK (the porter imports the target and looks it up), except below a DYNAMIC prefix
# (registered ops appear at run time).
PYTHON_MODULES: dict[str, str] = {
    "torch.utils.cpp_extension": "cpp_extension",
    "torch.ops": "sdk.ops",
    "torch.library": "sdk.library",
    "torch.classes": "sdk.classes",
    "torch": "sdk",
}
PYTHON_DYNAMIC: tuple[str, ...] = ("sdk.ops", "sdk.classes")
# Distributions named in strings (install_requires, requirements): reported, not rewritten.
PYTHON_DEPENDENCIES: dict[str, str] = {"torch": "tensor-sdk"}

# ---- what the table also says (behaviour, not rewrites) -------------------------------------
ENVIRONMENT: dict[str, str] = {
    "TORCH_EXTENSIONS_DIR": "SDK_EXTENSIONS_DIR",
    "TORCH_CUDA_ARCH_LIST": "SDK_CUDA_ARCH_LIST (TORCH_CUDA_ARCH_LIST also read)",
    "MAX_JOBS": "MAX_JOBS",
}
BEHAVIOUR: tuple[tuple[str, str], ...] = (
    ("`CppExtension`, `CUDAExtension`, `BuildExtension`", "same names, same arguments"),
    ('`extra_compile_args={"cxx": [...], "nvcc": [...]}`', "same"),
    ("`load(..., is_python_module=False)` returns a path", "returns a ctypes-bridge module"),
    ("`torch.autograd.Function`, `gradcheck`", "`sdk.autograd.Function`, `sdk.autograd.gradcheck`"),
    ("`torch.nn.Module`, `torch.optim.Adam`", "`sdk.nn.Module`, `sdk.optim.Adam`"),
    (
        "`extern THCState *state;`",
        "removed (torch defined it; nothing does now), or a null `static THCState *const "
        "state` where THC's cuBLAS wrappers still take it",
    ),
    (
        "`THCState *state = at::globalContext().lazyInitCUDA();`, `getTHCState()`",
        "`nullptr` (sdk/thc.h's functions ignore the state)",
    ),
)
