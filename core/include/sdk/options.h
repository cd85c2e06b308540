// sdk/options.h: sdk::TensorOptions (dtype + device) taken by the creation functions.
#ifndef SDK_OPTIONS_H_
#define SDK_OPTIONS_H_

#include "sdk/device.h"
#include "sdk/dtype.h"

namespace sdk {

/*! \brief How *_like functions and clone lay out their result (torch's memory formats,
 *  with torch's values): Preserve, the default, keeps a dense source's strides (a transposed
 *  source gives a transposed result); Contiguous is row-major; ChannelsLast (NCHW sizes with
 *  NHWC strides) and ChannelsLast3d (NCDHW with NDHWC) are made by the headers with explicit
 *  strides (sdk/memory_format.h), so the C ABI knows the first two only. */
enum class MemoryFormat : int32_t {
  Contiguous = SDK_CONTIGUOUS_FORMAT,
  Preserve = SDK_PRESERVE_FORMAT,
  ChannelsLast = 2,
  ChannelsLast3d = 3,
};

/*! \brief Tensor layouts: every sdk tensor is strided (dense, with strides); torch's
 *  sparse and mkldnn layouts have no counterpart. */
enum class Layout : int8_t { Strided };
constexpr Layout kStrided = Layout::Strided;

/*! \brief dtype and device for new tensors, built like torch's:
 *  TensorOptions().dtype(kFloat64).device(kCPU), or implicitly from a ScalarType or Device.
 *  Unset fields default to float32 and the CPU (or, in *_like functions, the source's). */
class TensorOptions {
 public:
  TensorOptions() = default;
  TensorOptions(ScalarType dtype) : dtype_(dtype), has_dtype_(true) {}    // NOLINT
  TensorOptions(TypeMeta dtype) : TensorOptions(dtype.toScalarType()) {}  // NOLINT
  TensorOptions(Device device) : device_(device), has_device_(true) {}    // NOLINT
  TensorOptions(DeviceType type) : TensorOptions(Device(type)) {}         // NOLINT
  TensorOptions(Layout) {}                                                // NOLINT
  TensorOptions(MemoryFormat format)                                      // NOLINT
      : memory_format_(format), has_memory_format_(true) {}
  /*! \brief The dtype and device kind of the deprecated Tensor::type() (a CUDA type means
   *  the current CUDA device, as in torch). */
  TensorOptions(DeprecatedTypeProperties t)  // NOLINT: implicit like torch
      : dtype_(t.scalarType()),
        device_(t.is_cuda() ? Device(DeviceType::CUDA) : Device(DeviceType::CPU)),
        has_dtype_(true),
        has_device_(true) {}

  /*! \brief A copy with the dtype set. */
  TensorOptions dtype(ScalarType dtype) const {
    TensorOptions r = *this;
    r.dtype_ = dtype;
    r.has_dtype_ = true;
    return r;
  }
  template <typename T>
  TensorOptions dtype() const {
    return dtype(CppTypeToScalarType<T>::value);
  }
  /*! \brief A copy with the device set. */
  TensorOptions device(Device device) const {
    TensorOptions r = *this;
    r.device_ = device;
    r.has_device_ = true;
    return r;
  }
  TensorOptions device(DeviceType type, int32_t index) const { return device(Device(type, index)); }
  /*! \brief A copy with the device index set (CUDA). */
  TensorOptions device_index(int32_t index) const { return device(Device(kCUDA, index)); }

  /*! \brief A copy with the layout set (always kStrided). */
  TensorOptions layout(Layout) const { return *this; }
  Layout layout() const { return Layout::Strided; }

  /*! \brief A copy that makes the created tensor a leaf requiring grad (float dtypes). */
  TensorOptions requires_grad(bool requires_grad) const {
    TensorOptions r = *this;
    r.requires_grad_ = requires_grad;
    return r;
  }
  bool requires_grad() const { return requires_grad_; }

  /*! \brief A copy with the memory format set (read by the *_like functions). */
  TensorOptions memory_format(MemoryFormat format) const {
    TensorOptions r = *this;
    r.memory_format_ = format;
    r.has_memory_format_ = true;
    return r;
  }

  TypeMeta dtype() const { return dtype_; }
  ScalarType scalar_type() const { return dtype_; }
  Device device() const { return device_; }
  bool has_dtype() const { return has_dtype_; }
  bool has_device() const { return has_device_; }
  bool has_memory_format() const { return has_memory_format_; }
  MemoryFormat memory_format() const { return memory_format_; }
  /*! \brief These options with unset fields taken from `base`. */
  TensorOptions merged_with(const TensorOptions& base) const {
    TensorOptions r = base;
    if (has_dtype_) r = r.dtype(dtype_);
    if (has_device_) r = r.device(device_);
    if (has_memory_format_) r = r.memory_format(memory_format_);
    r.requires_grad_ = requires_grad_;
    return r;
  }

 private:
  ScalarType dtype_ = ScalarType::Float;
  Device device_ = Device(DeviceType::CPU);
  bool has_dtype_ = false;
  bool has_device_ = false;
  MemoryFormat memory_format_ = MemoryFormat::Preserve;
  bool has_memory_format_ = false;
  bool requires_grad_ = false;
};

/*! \brief TensorOptions with just the dtype: sdk::dtype(sdk::kInt64). */
inline TensorOptions dtype(ScalarType t) { return TensorOptions().dtype(t); }
template <typename T>
inline TensorOptions dtype() {
  return TensorOptions().dtype(CppTypeToScalarType<T>::value);
}
/*! \brief TensorOptions with just the device. */
inline TensorOptions device(Device d) { return TensorOptions().device(d); }
/*! \brief TensorOptions with just the layout (kStrided). */
inline TensorOptions layout(Layout l) { return TensorOptions().layout(l); }
/*! \brief TensorOptions that make a leaf requiring grad. */
inline TensorOptions requires_grad(bool requires_grad = true) {
  return TensorOptions().requires_grad(requires_grad);
}

}  // namespace sdk

#endif  // SDK_OPTIONS_H_
