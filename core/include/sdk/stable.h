// sdk/stable.h: torch's stable-ABI C++ surface (torch::stable: Tensor, its ops, accelerator,
// StableIValue boxing, boxed kernels) over the SDK's C ABI, which is stable itself.
//
//   sdk::stable::Tensor my_op(const sdk::stable::Tensor& x, double c);
//   SDK_LIBRARY(myops, m) { m.def("my_op(Tensor x, float c) -> Tensor"); }
//   SDK_LIBRARY_IMPL(myops, CPU, m) { m.impl("my_op", SDK_BOX(&my_op)); }
//
// Kernels are registered unboxed (SDK_BOX(fn) is fn itself: the registry boxes by the C++
// signature) or as torch's hand-written boxed kernels, void(StableIValue* stack, uint64_t
// num_args, uint64_t num_outputs), that read their arguments with detail::to<T>(stack[i]) and
// write their results with detail::from(x): the registry converts the call's values to
// StableIValues by the op's schema and back. A StableIValue holds an int, a double's bits, a
// bool, a ScalarType's code, a tensor (a new reference, which to<Tensor> adopts), or for an
// optional, 0 (None) or a pointer to a heap StableIValue that to<std::optional<T>> frees.
#ifndef SDK_STABLE_H_
#define SDK_STABLE_H_

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "sdk/cuda_guard.h"
#include "sdk/headeronly.h"
#include "sdk/library.h"
#include "sdk/parallel.h"
#include "sdk/tensor.h"

/*! \brief One boxed value of a stable-ABI kernel's stack. Global, as torch declares it
 *  (ported code names it unqualified), and an alias, so code repeating torch's alias compiles. */
using StableIValue = uint64_t;

namespace sdk {

using StableIValue = ::StableIValue;

namespace stable {

using headeronly::ScalarType;
using sdk::Device;
using sdk::DeviceType;
using sdk::Layout;
using sdk::MemoryFormat;
using ::sdk::parallel_for;  // torch::stable::parallel_for(begin, end, grain_size, f)
using DeviceIndex = int32_t;

/*! \brief torch::stable::Tensor: a shared handle with TensorBase's metadata accessors; ops
 *  are free functions (sdk::stable::transpose(t, 0, 1)). Converts to and from sdk::Tensor.
 *  Rationale: a class of its own, not an alias, so that an unqualified call such as
 *  pad(t, {1, 1}) finds the stable signatures alone, as in torch. */
class Tensor {
 public:
  /*! \brief An undefined tensor. */
  Tensor() = default;
  Tensor(sdk::Tensor t) : t_(std::move(t)) {}                  // NOLINT: implicit, both ways
  operator const sdk::Tensor&() const noexcept { return t_; }  // NOLINT
  /*! \brief The borrowed handle (torch's AtenTensorHandle). */
  sdk_tensor* get() const noexcept { return t_.get(); }

  void* data_ptr() const { return t_.data_ptr(); }
  void* mutable_data_ptr() const { return t_.data_ptr(); }
  const void* const_data_ptr() const { return t_.data_ptr(); }
  template <typename T>
  T* mutable_data_ptr() const {
    return t_.mutable_data_ptr<T>();
  }
  template <typename T>
  const T* const_data_ptr() const {
    return t_.const_data_ptr<T>();
  }
  int64_t dim() const { return t_.dim(); }
  int64_t numel() const { return t_.numel(); }
  bool is_contiguous() const { return t_.is_contiguous(); }
  int64_t size(int64_t dim) const { return t_.size(dim); }
  int64_t stride(int64_t dim) const { return t_.stride(dim); }
  IntArrayRef sizes() const { return t_.sizes(); }
  IntArrayRef strides() const { return t_.strides(); }
  int64_t storage_offset() const { return t_.storage_offset(); }
  size_t element_size() const { return static_cast<size_t>(t_.element_size()); }
  bool defined() const { return t_.defined(); }
  ScalarType scalar_type() const { return t_.scalar_type(); }
  Device device() const { return t_.device(); }
  Layout layout() const { return t_.layout(); }
  bool is_cuda() const { return t_.is_cuda(); }
  bool is_cpu() const { return t_.is_cpu(); }
  /*! \brief The CUDA ordinal, -1 on the CPU (torch's int8_t spelling). */
  int8_t get_device() const { return static_cast<int8_t>(t_.get_device()); }
  /*! \brief The CUDA ordinal, -1 on the CPU. */
  DeviceIndex get_device_index() const { return static_cast<DeviceIndex>(t_.get_device()); }
  template <typename T, size_t N>
  TensorAccessor<T, N> accessor() const& {
    return t_.accessor<T, N>();
  }
  template <typename T, size_t N>
  TensorAccessor<T, N> accessor() && = delete;  // would dangle, as sdk::Tensor's

 private:
  sdk::Tensor t_;
};

namespace detail {
inline const sdk::Tensor& unwrap(const Tensor& t) { return t; }
}  // namespace detail

// ---- ops (torch/csrc/stable/ops.h): torch's signatures ---------------------------------

inline Tensor empty_like(const Tensor& self) { return sdk::empty_like(detail::unwrap(self)); }
/*! \brief Fill in place; `value` is a double in torch's stable signature (a Scalar's value). */
inline Tensor fill_(const Tensor& self, double value) {
  detail::unwrap(self).fill_(value);
  return self;
}
inline Tensor zero_(Tensor& self) {
  detail::unwrap(self).zero_();
  return self;
}
inline Tensor copy_(Tensor& self, const Tensor& src,
                    std::optional<bool> non_blocking = std::nullopt) {
  detail::unwrap(self).copy_(src, non_blocking.value_or(false));
  return self;
}
inline Tensor clone(const Tensor& self) { return sdk::clone(detail::unwrap(self)); }
inline Tensor contiguous(const Tensor& self,
                         MemoryFormat memory_format = MemoryFormat::Contiguous) {
  return detail::unwrap(self).contiguous(memory_format);
}
inline Tensor narrow(Tensor& self, int64_t dim, int64_t start, int64_t length) {
  return sdk::narrow(detail::unwrap(self), dim, start, length);
}
inline Tensor transpose(const Tensor& self, int64_t dim0, int64_t dim1) {
  return sdk::transpose(detail::unwrap(self), dim0, dim1);
}
inline Tensor reshape(const Tensor& self, IntArrayRef shape) {
  return sdk::reshape(detail::unwrap(self), shape);
}
inline Tensor view(const Tensor& self, IntArrayRef size) {
  return sdk::view(detail::unwrap(self), size);
}
inline Tensor flatten(const Tensor& self, int64_t start_dim = 0, int64_t end_dim = -1) {
  return sdk::flatten(detail::unwrap(self), start_dim, end_dim);
}
inline Tensor squeeze(const Tensor& self, int64_t dim) {
  return sdk::squeeze(detail::unwrap(self), dim);
}
inline Tensor unsqueeze(const Tensor& self, int64_t dim) {
  return detail::unwrap(self).unsqueeze(dim);
}
inline Tensor matmul(const Tensor& self, const Tensor& other) {
  return sdk::matmul(detail::unwrap(self), detail::unwrap(other));
}
inline Tensor subtract(const Tensor& self, const Tensor& other, double alpha = 1.0) {
  return sdk::sub(detail::unwrap(self), detail::unwrap(other), alpha);
}
/*! \brief Max over one dimension. */
inline Tensor amax(const Tensor& self, int64_t dim, bool keepdim = false) {
  return sdk::amax(detail::unwrap(self), IntArrayRef(dim), keepdim);
}
/*! \brief Max over the dimensions in `dims`. */
inline Tensor amax(const Tensor& self, std::vector<int64_t> dims, bool keepdim = false) {
  return sdk::amax(detail::unwrap(self), dims, keepdim);
}
/*! \brief A new uninitialised tensor of `size` on self's device, with self's dtype or `dtype`. */
inline Tensor new_empty(const Tensor& self, std::vector<int64_t> size,
                        std::optional<ScalarType> dtype = std::nullopt) {
  return detail::unwrap(self).new_empty(size, dtype ? TensorOptions(*dtype) : TensorOptions());
}
/*! \brief As new_empty, filled with zeros. */
inline Tensor new_zeros(const Tensor& self, std::vector<int64_t> size,
                        std::optional<ScalarType> dtype = std::nullopt) {
  return detail::unwrap(self).new_zeros(size, dtype ? TensorOptions(*dtype) : TensorOptions());
}
/*! \brief torch's pad.default: "constant" pads with `value`; "reflect", "replicate" and
 *  "circular" take no value (0, the default, stands for none, as in torch). */
inline Tensor pad(const Tensor& self, std::vector<int64_t> pad,
                  const std::string& mode = "constant", double value = 0.0) {
  if (mode == "constant") return sdk::pad(detail::unwrap(self), pad, mode, value);
  SDK_CHECK_VALUE(value == 0.0, "pad: padding mode \"", mode, "\" doesn't take in value argument");
  return sdk::pad(detail::unwrap(self), pad, mode);
}
/*! \brief A new uninitialised tensor (torch's empty.memory_format); only the strided layout
 *  exists, and pinned memory is refused. */
inline Tensor empty(IntArrayRef size, std::optional<ScalarType> dtype = std::nullopt,
                    std::optional<Layout> layout = std::nullopt,
                    std::optional<Device> device = std::nullopt,
                    std::optional<bool> pin_memory = std::nullopt,
                    std::optional<MemoryFormat> memory_format = std::nullopt) {
  (void)layout;  // Layout has one value, kStrided
  SDK_CHECK_VALUE(!pin_memory.value_or(false), "empty: pin_memory is not supported");
  TensorOptions options;
  if (dtype) options = options.dtype(*dtype);
  if (device) options = options.device(*device);
  if (memory_format) options = options.memory_format(*memory_format);
  return sdk::empty(size, options);
}

// ---- accelerator (torch/csrc/stable/accelerator.h): the CUDA devices -------------------

namespace accelerator {
using DeviceIndex = int32_t;
using StreamId = int64_t;

/*! \brief Makes `device_index` the current CUDA device for its scope. */
class DeviceGuard {
 public:
  explicit DeviceGuard() = delete;
  explicit DeviceGuard(DeviceIndex device_index) : guard_(device_index) {}
  void set_index(DeviceIndex device_index) { guard_.set_index(device_index); }

 private:
  sdk::cuda::CUDAGuard guard_;
};

/*! \brief A device's stream. Its id is the stream's handle as an integer: compare ids, do
 *  not decode them (torch's are opaque too). */
class Stream {
 public:
  explicit Stream() = delete;
  explicit Stream(sdk::cuda::CUDAStream stream) : stream_(stream) {}
  StreamId id() const {
    return static_cast<StreamId>(reinterpret_cast<intptr_t>(stream_.stream()));
  }

 private:
  sdk::cuda::CUDAStream stream_;
};

inline Stream getCurrentStream(DeviceIndex device_index) {
  return Stream(sdk::cuda::getCurrentCUDAStream(device_index));
}
/*! \brief The current CUDA device (an error naming the cause without a usable GPU). */
inline DeviceIndex getCurrentDeviceIndex() {
  return static_cast<DeviceIndex>(sdk::cuda::current_device());
}
}  // namespace accelerator

// ---- StableIValue conversions (torch::stable::detail::to / from) ------------------------

namespace detail {

template <typename T, typename = void>
struct StableValue {
  static_assert(sizeof(T) == 0,
                "no StableIValue conversion for this type: Tensor, integers, double, float, "
                "bool, ScalarType and std::optional of these have one");
};

template <>
struct StableValue<Tensor> {
  // from: a new reference the stack owns; to: adopts it
  static StableIValue from(const Tensor& t) {
    sdk_tensor* h = t.get();
    if (h) sdk_tensor_retain(h);
    return static_cast<StableIValue>(reinterpret_cast<uintptr_t>(h));
  }
  static Tensor to(StableIValue v) {
    return sdk::Tensor::steal(reinterpret_cast<sdk_tensor*>(static_cast<uintptr_t>(v)));
  }
};
template <>
struct StableValue<sdk::Tensor> {
  static StableIValue from(const sdk::Tensor& t) { return StableValue<Tensor>::from(t); }
  static sdk::Tensor to(StableIValue v) { return StableValue<Tensor>::to(v); }
};

template <typename I>
struct StableValue<I, std::enable_if_t<std::is_integral_v<I> && !std::is_same_v<I, bool>>> {
  static StableIValue from(I x) { return static_cast<StableIValue>(static_cast<int64_t>(x)); }
  static I to(StableIValue v) { return static_cast<I>(static_cast<int64_t>(v)); }
};
template <>
struct StableValue<bool> {
  static StableIValue from(bool x) { return x ? 1 : 0; }
  static bool to(StableIValue v) { return v != 0; }
};
template <typename F>
struct StableValue<F, std::enable_if_t<std::is_floating_point_v<F>>> {
  static StableIValue from(F x) {
    const double d = static_cast<double>(x);
    StableIValue v = 0;
    std::memcpy(&v, &d, sizeof d);
    return v;
  }
  static F to(StableIValue v) {
    double d = 0;
    std::memcpy(&d, &v, sizeof d);
    return static_cast<F>(d);
  }
};
template <>
struct StableValue<ScalarType> {
  static StableIValue from(ScalarType t) { return static_cast<StableIValue>(to_c(t)); }
  static ScalarType to(StableIValue v) { return from_c_dtype(static_cast<sdk_dtype>(v)); }
};
template <>
struct StableValue<std::nullopt_t> {
  static StableIValue from(std::nullopt_t) { return 0; }
};
template <typename T>
struct StableValue<std::optional<T>> {
  static StableIValue from(const std::optional<T>& x) {
    if (!x) return 0;
    return static_cast<StableIValue>(
        reinterpret_cast<uintptr_t>(new StableIValue(StableValue<T>::from(*x))));
  }
  static std::optional<T> to(StableIValue v) {
    if (v == 0) return std::nullopt;
    auto* boxed = reinterpret_cast<StableIValue*>(static_cast<uintptr_t>(v));
    const StableIValue inner = *boxed;
    delete boxed;
    return StableValue<T>::to(inner);
  }
};

/*! \brief The value of type T a StableIValue holds (a tensor or an optional is adopted). */
template <typename T>
T to(StableIValue v) {
  return StableValue<T>::to(v);
}
/*! \brief x as a StableIValue (a tensor as a new reference). */
template <typename T>
StableIValue from(T x) {
  return StableValue<std::decay_t<T>>::from(x);
}
/*! \brief An optional, as torch's from(const std::optional<T>&) overload. */
template <typename T>
StableIValue from(const std::optional<T>& x) {
  return StableValue<std::optional<T>>::from(x);
}

}  // namespace detail
}  // namespace stable

namespace detail {

// ---- stable::Tensor as an argument or result of unboxed kernels (SDK_BOX) ----------------

template <>
struct Box<stable::Tensor> {
  using Stored = stable::Tensor;
  static const char* schema() { return "Tensor"; }
  static Stored read(const sdk_values* v, int64_t i) { return Box<Tensor>::read(v, i); }
  static void push(sdk_values* v, const stable::Tensor& t) {
    Box<Tensor>::push(v, static_cast<const Tensor&>(t));
  }
};
template <>
struct Box<std::vector<stable::Tensor>> {
  using Stored = std::vector<stable::Tensor>;
  static const char* schema() { return "Tensor[]"; }
  static Stored read(const sdk_values* v, int64_t i) {
    std::vector<Tensor> ts = Box<std::vector<Tensor>>::read(v, i);
    return Stored(ts.begin(), ts.end());
  }
  static void push(sdk_values* v, const Stored& x) {
    Box<std::vector<Tensor>>::push(v, std::vector<Tensor>(x.begin(), x.end()));
  }
};

// ---- hand-written boxed kernels: void(StableIValue*, uint64_t, uint64_t) ----------------

using StableBoxedFn = void (*)(StableIValue*, uint64_t, uint64_t);

struct StableBoxedKernel {
  static sdk_op_argument info(const sdk_op* op, int32_t is_return, int64_t i) {
    sdk_op_argument a{};
    a.size = sizeof a;
    check(sdk_op_argument_info(op, is_return, i, &a), "reading the op's schema");
    return a;
  }
  [[noreturn]] static void unsupported(const sdk_op* op, const sdk_op_argument& a) {
    throw_error(SDK_ERROR_TYPE,
                concat(sdk_op_name(op), ": a boxed stable kernel cannot take or return '", a.type,
                       a.name[0] ? " " : "", a.name,
                       "' (Tensor, int, float, bool, ScalarType and their optionals can be)"));
  }
  // Argument i as a StableIValue: a tensor is taken out of the values (a new reference).
  static StableIValue take(const sdk_op* op, sdk_values* v, int64_t i) {
    const sdk_op_argument a = info(op, 0, i);
    StableIValue x = 0;
    switch (sdk_values_tag(v, i)) {
      case SDK_VALUE_NONE:
        return 0;
      case SDK_VALUE_TENSOR: {
        sdk_tensor* h = nullptr;
        check(sdk_values_take_tensor(v, i, &h), "reading a Tensor argument");
        x = static_cast<StableIValue>(reinterpret_cast<uintptr_t>(h));
        break;
      }
      case SDK_VALUE_INT: {
        int64_t n = 0;
        check(sdk_values_get_int(v, i, &n), "reading an int argument");
        x = stable::detail::from(n);
        break;
      }
      case SDK_VALUE_FLOAT: {
        double d = 0;
        check(sdk_values_get_float(v, i, &d), "reading a float argument");
        x = stable::detail::from(d);
        break;
      }
      case SDK_VALUE_BOOL: {
        int32_t b = 0;
        check(sdk_values_get_bool(v, i, &b), "reading a bool argument");
        x = b ? 1 : 0;
        break;
      }
      case SDK_VALUE_SCALAR_TYPE: {
        int32_t d = 0;
        check(sdk_values_get_scalar_type(v, i, &d), "reading a ScalarType argument");
        x = static_cast<StableIValue>(d);
        break;
      }
      default:
        unsupported(op, a);
    }
    if (!a.optional) return x;
    return static_cast<StableIValue>(reinterpret_cast<uintptr_t>(new StableIValue(x)));
  }
  // Result j from its StableIValue, by the schema's return type.
  static void push(const sdk_op* op, sdk_values* v, int64_t j, StableIValue x) {
    const sdk_op_argument a = info(op, 1, j);
    if (a.optional) {
      if (x == 0) {
        check(sdk_values_push_none(v), "returning None");
        return;
      }
      auto* boxed = reinterpret_cast<StableIValue*>(static_cast<uintptr_t>(x));
      x = *boxed;
      delete boxed;
    }
    switch (a.tag) {
      case SDK_VALUE_TENSOR: {
        auto* h = reinterpret_cast<sdk_tensor*>(static_cast<uintptr_t>(x));
        check(h ? sdk_values_push_tensor_steal(v, h) : sdk_values_push_none(v),
              "returning a Tensor");
        return;
      }
      case SDK_VALUE_INT:
        check(sdk_values_push_int(v, stable::detail::to<int64_t>(x)), "returning an int");
        return;
      case SDK_VALUE_FLOAT:
        check(sdk_values_push_float(v, stable::detail::to<double>(x)), "returning a float");
        return;
      case SDK_VALUE_BOOL:
        check(sdk_values_push_bool(v, x != 0), "returning a bool");
        return;
      case SDK_VALUE_SCALAR_TYPE:
        check(sdk_values_push_scalar_type(v, static_cast<int32_t>(x)), "returning a ScalarType");
        return;
      default:
        unsupported(op, a);
    }
  }
  static sdk_status boxed(void* context, const sdk_op* op, sdk_values* v) noexcept {
    try {
      const int64_t nargs = sdk_op_num_arguments(op, 0);
      const int64_t nrets = sdk_op_num_arguments(op, 1);
      for (int64_t j = 0; j < nrets; ++j) {  // refuse unsupported results before running
        const sdk_op_argument a = info(op, 1, j);
        if (a.tag == SDK_VALUE_STRING || a.tag == SDK_VALUE_DEVICE || a.tag >= SDK_VALUE_INT_LIST) {
          unsupported(op, a);
        }
      }
      std::vector<StableIValue> stack(static_cast<size_t>(std::max(nargs, nrets)), 0);
      for (int64_t i = 0; i < nargs; ++i) stack[static_cast<size_t>(i)] = take(op, v, i);
      // the kernel adopts its inputs (torch's convention: it pops them off the stack)
      (*static_cast<StableBoxedFn*>(context))(stack.data(), static_cast<uint64_t>(nargs),
                                              static_cast<uint64_t>(nrets));
      sdk_values_clear(v);
      for (int64_t j = 0; j < nrets; ++j) push(op, v, j, stack[static_cast<size_t>(j)]);
      return SDK_OK;
    } catch (...) {
      return status_of_exception("a boxed stable kernel");
    }
  }
  static void free_context(void* context) { delete static_cast<StableBoxedFn*>(context); }
};

template <>
struct KernelFor<StableBoxedFn> {
  using type = StableBoxedKernel;
};

}  // namespace detail
}  // namespace sdk

/*! \brief torch's TORCH_BOX(fn): the registry boxes an unboxed kernel by its signature, so
 *  the kernel is registered as it is. */
#define SDK_BOX(fn) (fn)

#endif  // SDK_STABLE_H_
