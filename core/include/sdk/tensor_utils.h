// sdk/tensor_utils.h: argument checks named like torch's ATen/TensorUtils.h (TensorArg,
// checkDim, checkAllSameType, ...) and torch::utils::flatten_dense_tensors.
//
//   sdk::TensorArg x_arg{x, "x", 1}, w_arg{w, "weight", 2};
//   sdk::CheckedFrom c = "my_conv";
//   sdk::checkDim(c, x_arg, 4);
//   sdk::checkAllSameType(c, {x_arg, w_arg});
//
// A failed check throws sdk::Error whose message names the argument, its position and the
// checking op, in torch's wording: "Expected 4-dimensional tensor, but got 3-dimensional
// tensor for argument #1 'x' (while checking arguments for my_conv)". Shape, contiguity and
// device failures are SDK_ERROR_VALUE (sdk.InvalidArgumentError, a RuntimeError, as torch
// raises); dtype failures are SDK_ERROR_TYPE (TypeError). As in torch, the checks over
// several tensors skip undefined ones (checkAllDefined excepted).
#ifndef SDK_TENSOR_UTILS_H_
#define SDK_TENSOR_UTILS_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "sdk/array_ref.h"
#include "sdk/tensor.h"

namespace sdk {

/*! \brief A tensor argument with its name and 1-based position (0: `self` or the result). */
struct TensorArg {
  const Tensor& tensor;
  const char* name;
  int pos;
  TensorArg(const Tensor& tensor, const char* name, int pos)
      : tensor(tensor), name(name), pos(pos) {}
  // A temporary would dangle: the argument must outlive the TensorArg.
  TensorArg(Tensor&& tensor, const char* name, int pos) = delete;
  const Tensor* operator->() const { return &tensor; }
  const Tensor& operator*() const { return tensor; }
};

/*! \brief Sizes and strides of a tensor, copied (torch's TensorGeometry). */
class TensorGeometry {
 public:
  TensorGeometry() = default;
  explicit TensorGeometry(const Tensor& t)
      : sizes_(t.sizes().vec()), strides_(t.strides().vec()), offset_(t.storage_offset()) {}
  explicit TensorGeometry(IntArrayRef sizes) : sizes_(sizes.vec()), strides_(sizes.size()) {
    int64_t step = 1;
    for (size_t i = sizes_.size(); i > 0; --i) {
      strides_[i - 1] = step;
      step *= sizes_[i - 1];
    }
  }
  int64_t dim() const { return static_cast<int64_t>(sizes_.size()); }
  IntArrayRef sizes() const { return sizes_; }
  IntArrayRef strides() const { return strides_; }
  int64_t size(int64_t d) const { return sizes_.at(static_cast<size_t>(wrap(d))); }
  int64_t stride(int64_t d) const { return strides_.at(static_cast<size_t>(wrap(d))); }
  int64_t storage_offset() const { return offset_; }
  int64_t numel() const {
    int64_t n = 1;
    for (int64_t s : sizes_) n *= s;
    return n;
  }
  /*! \brief Row-major contiguity; sizes of 1 (and empty tensors) do not constrain strides. */
  bool is_contiguous() const {
    if (numel() == 0) return true;
    int64_t expected = 1;
    for (size_t i = sizes_.size(); i > 0; --i) {
      if (sizes_[i - 1] == 1) continue;
      if (strides_[i - 1] != expected) return false;
      expected *= sizes_[i - 1];
    }
    return true;
  }

 private:
  int64_t wrap(int64_t d) const {
    int64_t n = dim();
    if (d < -n || d >= (n == 0 ? 1 : n)) {
      detail::throw_error(SDK_ERROR_INDEX, detail::concat("TensorGeometry: dimension ", d,
                                                          " out of range for a ", n, "-d tensor"));
    }
    return d < 0 ? d + n : d;
  }
  std::vector<int64_t> sizes_, strides_;
  int64_t offset_ = 0;
};

/*! \brief A TensorGeometry with the argument's name and position. */
struct TensorGeometryArg {
  TensorGeometry tensor;
  const char* name;
  int pos;
  TensorGeometryArg(TensorArg arg)  // NOLINT: implicit, as torch's
      : tensor(TensorGeometry(checked(arg))), name(arg.name), pos(arg.pos) {}
  TensorGeometryArg(TensorGeometry tensor, const char* name, int pos)
      : tensor(std::move(tensor)), name(name), pos(pos) {}
  const TensorGeometry* operator->() const { return &tensor; }
  const TensorGeometry& operator*() const { return tensor; }

 private:
  static const Tensor& checked(const TensorArg& arg) {
    if (!arg.tensor.defined()) {
      detail::throw_error(SDK_ERROR_VALUE,
                          detail::concat("Expected tensor for argument #", arg.pos, " '", arg.name,
                                         "' to be defined, but it was undefined"));
    }
    return arg.tensor;
  }
};

/*! \brief The name of the op whose arguments are being checked. */
using CheckedFrom = const char*;

namespace detail {

// "argument #2 'weight'", or "'self'" for position 0 (torch's wording).
inline std::string arg_text(const char* name, int pos) {
  if (pos == 0) return concat("'", name, "'");
  return concat("argument #", pos, " '", name, "'");
}
inline std::string arg_text(const TensorArg& t) { return arg_text(t.name, t.pos); }
inline std::string arg_text(const TensorGeometryArg& t) { return arg_text(t.name, t.pos); }

// "cpu float32": what the dtype checks report for a tensor.
inline std::string type_text(const Tensor& t) {
  return concat(t.device().type(), " ", t.scalar_type());
}

[[noreturn]] inline void check_failed(sdk_status kind, CheckedFrom c, const std::string& what) {
  throw_error(kind, concat(what, " (while checking arguments for ", c, ")"));
}

template <typename Pair>
void check_all_pairs(CheckedFrom c, ArrayRef<TensorArg> ts, Pair pair) {
  const TensorArg* first = nullptr;
  for (const TensorArg& t : ts) {
    if (!t->defined()) continue;
    if (first)
      pair(c, *first, t);
    else
      first = &t;
  }
}

}  // namespace detail

/*! \brief t has `dim` dimensions. */
inline void checkDim(CheckedFrom c, const TensorGeometryArg& t, int64_t dim) {
  if (t->dim() == dim) return;
  detail::check_failed(SDK_ERROR_VALUE, c,
                       detail::concat("Expected ", dim, "-dimensional tensor, but got ", t->dim(),
                                      "-dimensional tensor for ", detail::arg_text(t)));
}
inline void checkDim(CheckedFrom c, const Tensor& tensor, const char* name, int pos, int64_t dim) {
  checkDim(c, TensorArg(tensor, name, pos), dim);
}
/*! \brief dim_start <= t.dim() < dim_end. */
inline void checkDimRange(CheckedFrom c, const TensorGeometryArg& t, int64_t dim_start,
                          int64_t dim_end) {
  if (t->dim() >= dim_start && t->dim() < dim_end) return;
  detail::check_failed(
      SDK_ERROR_VALUE, c,
      detail::concat("Expected ", dim_start, " to ", dim_end - 1, " dimensions, but got ", t->dim(),
                     "-dimensional tensor for ", detail::arg_text(t)));
}
inline void checkSameDim(CheckedFrom c, const TensorGeometryArg& t1, const TensorGeometryArg& t2) {
  if (t1->dim() == t2->dim()) return;
  detail::check_failed(
      SDK_ERROR_VALUE, c,
      detail::concat("Expected tensor for ", detail::arg_text(t1),
                     " to have the same dimension as tensor for ", detail::arg_text(t2), "; but ",
                     t1->dim(), " does not equal ", t2->dim()));
}
inline void checkContiguous(CheckedFrom c, const TensorGeometryArg& t) {
  if (t->is_contiguous()) return;
  detail::check_failed(SDK_ERROR_VALUE, c,
                       detail::concat("Expected contiguous tensor, but got non-contiguous tensor "
                                      "for ",
                                      detail::arg_text(t)));
}
inline void checkAllContiguous(CheckedFrom c, ArrayRef<TensorArg> ts) {
  for (const TensorArg& t : ts) {
    if (t->defined()) checkContiguous(c, t);
  }
}
/*! \brief t's sizes are exactly `sizes`. */
inline void checkSize(CheckedFrom c, const TensorGeometryArg& t, IntArrayRef sizes) {
  checkDim(c, t, static_cast<int64_t>(sizes.size()));
  if (t->sizes().equals(sizes)) return;
  detail::check_failed(
      SDK_ERROR_VALUE, c,
      detail::concat("Expected tensor of size ", sizes, ", but got tensor of size ", t->sizes(),
                     " for ", detail::arg_text(t)));
}
/*! \brief t.size(dim) == size. */
inline void checkSize(CheckedFrom c, const TensorGeometryArg& t, int64_t dim, int64_t size) {
  if (t->size(dim) == size) return;
  detail::check_failed(
      SDK_ERROR_VALUE, c,
      detail::concat("Expected tensor to have size ", size, " at dimension ", dim,
                     ", but got size ", t->size(dim), " for ", detail::arg_text(t)));
}
inline void checkNumel(CheckedFrom c, const TensorGeometryArg& t, int64_t numel) {
  if (t->numel() == numel) return;
  detail::check_failed(
      SDK_ERROR_VALUE, c,
      detail::concat("Expected tensor for ", detail::arg_text(t), " to have ", numel,
                     " elements; but it actually has ", t->numel(), " elements"));
}
inline void checkSameSize(CheckedFrom c, const TensorArg& t1, const TensorArg& t2) {
  if (t1->sizes().equals(t2->sizes())) return;
  detail::check_failed(SDK_ERROR_VALUE, c,
                       detail::concat("Expected tensor for ", detail::arg_text(t1),
                                      " to have same size as tensor for ", detail::arg_text(t2),
                                      "; but ", t1->sizes(), " does not equal ", t2->sizes()));
}
inline void checkAllSameSize(CheckedFrom c, ArrayRef<TensorArg> ts) {
  detail::check_all_pairs(c, ts, &checkSameSize);
}
inline void checkSameNumel(CheckedFrom c, const TensorArg& t1, const TensorArg& t2) {
  if (t1->numel() == t2->numel()) return;
  detail::check_failed(
      SDK_ERROR_VALUE, c,
      detail::concat("Expected tensor for ", detail::arg_text(t1),
                     " to have same number of elements as tensor for ", detail::arg_text(t2),
                     "; but ", t1->numel(), " does not equal ", t2->numel()));
}
inline void checkAllSameNumel(CheckedFrom c, ArrayRef<TensorArg> ts) {
  detail::check_all_pairs(c, ts, &checkSameNumel);
}
/*! \brief Same dtype and device type (torch's type_equal). */
inline void checkSameType(CheckedFrom c, const TensorArg& t1, const TensorArg& t2) {
  if (t1->scalar_type() == t2->scalar_type() && t1->device().type() == t2->device().type()) return;
  detail::check_failed(
      SDK_ERROR_TYPE, c,
      detail::concat("Expected tensor for ", detail::arg_text(t1),
                     " to have the same type as tensor for ", detail::arg_text(t2), "; but type ",
                     detail::type_text(*t1), " does not equal ", detail::type_text(*t2)));
}
inline void checkAllSameType(CheckedFrom c, ArrayRef<TensorArg> ts) {
  detail::check_all_pairs(c, ts, &checkSameType);
}
inline void checkScalarType(CheckedFrom c, const TensorArg& t, ScalarType ty) {
  if (t->scalar_type() == ty) return;
  detail::check_failed(
      SDK_ERROR_TYPE, c,
      detail::concat("Expected tensor for ", detail::arg_text(t), " to have scalar type ", ty,
                     "; but got ", detail::type_text(*t), " instead"));
}
inline void checkScalarTypes(CheckedFrom c, const TensorArg& t, ArrayRef<ScalarType> l) {
  std::string names;
  for (ScalarType ty : l) {
    if (t->scalar_type() == ty) return;
    names += detail::concat(names.empty() ? "" : ", ", ty);
  }
  detail::check_failed(SDK_ERROR_TYPE, c,
                       detail::concat("Expected tensor for ", detail::arg_text(t),
                                      " to have one of the following scalar types: ", names,
                                      "; but got ", detail::type_text(*t), " instead"));
}
/*! \brief Both on the same CUDA device (a CPU tensor fails, naming which). */
inline void checkSameGPU(CheckedFrom c, const TensorArg& t1, const TensorArg& t2) {
  if (t1->is_cpu() || t2->is_cpu()) {
    std::string msg;
    if (t1->is_cpu()) msg += detail::concat("Tensor for ", detail::arg_text(t1), " is on CPU, ");
    if (t2->is_cpu()) msg += detail::concat("Tensor for ", detail::arg_text(t2), " is on CPU, ");
    msg += (t1->is_cpu() && t2->is_cpu()) ? "but expected them to be on GPU"
                                          : "but expected it to be on GPU";
    detail::check_failed(SDK_ERROR_VALUE, c, msg);
  }
  if (t1->get_device() == t2->get_device()) return;
  detail::check_failed(
      SDK_ERROR_VALUE, c,
      detail::concat("Expected tensor for ", detail::arg_text(t1),
                     " to have the same device as tensor for ", detail::arg_text(t2),
                     "; but device ", t1->get_device(), " does not equal ", t2->get_device()));
}
inline void checkAllSameGPU(CheckedFrom c, ArrayRef<TensorArg> ts) {
  detail::check_all_pairs(c, ts, &checkSameGPU);
}
inline void checkDefined(CheckedFrom c, const TensorArg& t) {
  if (t->defined()) return;
  detail::check_failed(SDK_ERROR_VALUE, c,
                       detail::concat("Expected tensor for ", detail::arg_text(t),
                                      " to be non-null, but it was undefined"));
}
/*! \brief Every tensor defined (this one does not skip undefined tensors). */
inline void checkAllDefined(CheckedFrom c, ArrayRef<TensorArg> ts) {
  for (const TensorArg& t : ts) checkDefined(c, t);
}
/*! \brief Every defined tensor is on a device of `device_type`. */
inline void checkDeviceType(CheckedFrom c, ArrayRef<Tensor> tensors, DeviceType device_type) {
  for (const Tensor& t : tensors) {
    if (!t.defined() || t.device().type() == device_type) continue;
    detail::check_failed(
        SDK_ERROR_VALUE, c,
        detail::concat("Expected tensor to have ", device_type, " DeviceType, but got tensor with ",
                       t.device().type(), " DeviceType"));
  }
}
/*! \brief torch's legacy device-and-layout enum (c10::Backend), the dense members the SDK
 *  has. */
enum class Backend { CPU, CUDA, Meta, Undefined };
inline DeviceType backendToDeviceType(Backend b) {
  SDK_CHECK_VALUE(b != Backend::Undefined,
                  "backendToDeviceType: the Undefined backend has no "
                  "device type");
  return b == Backend::CPU    ? DeviceType::CPU
         : b == Backend::CUDA ? DeviceType::CUDA
                              : DeviceType::Meta;
}
/*! \brief Every defined tensor is on `backend`'s device type (the legacy form of
 *  checkDeviceType). */
inline void checkBackend(CheckedFrom c, ArrayRef<Tensor> tensors, Backend backend) {
  checkDeviceType(c, tensors, backendToDeviceType(backend));
}
inline void checkBackend(CheckedFrom c, const Tensor& t, Backend backend) {
  checkBackend(c, ArrayRef<Tensor>(&t, 1), backend);
}
/*! \brief The data pointer of a defined tensor, nullptr for an undefined one. */
inline void* maybe_data_ptr(const Tensor& tensor) {
  return tensor.defined() ? tensor.data_ptr() : nullptr;
}
inline void* maybe_data_ptr(const TensorArg& tensor) { return maybe_data_ptr(*tensor); }
/*! \brief tensor.dim() == dim and tensor.size(dim_size) == size. */
inline void check_dim_size(const Tensor& tensor, int64_t dim, int64_t dim_size, int64_t size) {
  if (tensor.dim() == dim && dim_size >= 0 && dim_size < dim && tensor.size(dim_size) == size) {
    return;
  }
  detail::throw_error(SDK_ERROR_VALUE,
                      detail::concat("Expected a tensor of dimension ", dim, " and tensor.size[",
                                     dim_size, "] == ", size, " but got: dimension ", tensor.dim(),
                                     dim_size >= 0 && dim_size < tensor.dim()
                                         ? detail::concat(" and tensor.size[", dim_size,
                                                          "] = ", tensor.size(dim_size))
                                         : std::string()));
}

namespace utils {

/*! \brief One contiguous 1-d tensor holding the tensors' elements one after the other
 *  (torch::utils::flatten_dense_tensors); all must have the same dtype and device. */
inline Tensor flatten_dense_tensors(TensorList tensors) {
  if (tensors.empty()) {
    detail::throw_error(SDK_ERROR_VALUE, "flatten_dense_tensors: expected a non-empty list");
  }
  std::vector<Tensor> flat;
  flat.reserve(tensors.size());
  for (const Tensor& t : tensors) flat.push_back(t.contiguous().view({-1}));
  return cat(flat, 0);
}

/*! \brief Views of `flat` shaped like `tensors`, in order (the inverse of
 *  flatten_dense_tensors); `flat` must hold exactly their elements. */
inline std::vector<Tensor> unflatten_dense_tensors(const Tensor& flat, TensorList tensors) {
  int64_t total = 0;
  for (const Tensor& t : tensors) total += t.numel();
  if (flat.dim() != 1 || flat.numel() != total) {
    detail::throw_error(SDK_ERROR_VALUE,
                        detail::concat("unflatten_dense_tensors: expected a 1-d tensor of ", total,
                                       " elements (the tensors' total), got sizes ", flat.sizes()));
  }
  std::vector<Tensor> out;
  out.reserve(tensors.size());
  int64_t offset = 0;
  for (const Tensor& t : tensors) {
    out.push_back(flat.narrow(0, offset, t.numel()).view(t.sizes()));
    offset += t.numel();
  }
  return out;
}

}  // namespace utils
}  // namespace sdk

#endif  // SDK_TENSOR_UTILS_H_
