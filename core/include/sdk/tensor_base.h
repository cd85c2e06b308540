// sdk/tensor_base.h: the sdk::Tensor class (RAII handle over sdk_tensor*) and its inline getters.
#ifndef SDK_TENSOR_BASE_H_
#define SDK_TENSOR_BASE_H_

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <vector>

#include "sdk/accessor.h"
#include "sdk/array_ref.h"
#include "sdk/c_api.h"
#include "sdk/device.h"
#include "sdk/dtype.h"
#include "sdk/error.h"
#include "sdk/maybe_owned.h"
#include "sdk/memory_format.h"
#include "sdk/op_table.h"
#include "sdk/options.h"
#include "sdk/scalar.h"
#include "sdk/storage.h"
#include "sdk/symint.h"

namespace sdk {

class Tensor;
namespace indexing {
class TensorIndex;  // sdk/indexing.h
}  // namespace indexing
/*! \brief A list of tensors: a braced list {a, b} or a std::vector<Tensor>. */
using TensorList = ArrayRef<Tensor>;

/*! \brief A reference-counted tensor: copying retains the core handle, destruction
 *  releases it. A default-constructed Tensor is undefined (no handle). Method names and
 *  signatures follow ATen's Tensor. Methods on an undefined tensor throw sdk::Error. */
class Tensor {
 public:
  Tensor() noexcept = default;
  Tensor(const Tensor& o) noexcept : h_(o.h_) {
    if (h_) sdk_tensor_retain(h_);
  }
  Tensor(Tensor&& o) noexcept : h_(o.h_) { o.h_ = nullptr; }
  Tensor& operator=(const Tensor& o) & noexcept {
    if (o.h_) sdk_tensor_retain(o.h_);
    sdk_tensor_release(h_);
    h_ = o.h_;
    return *this;
  }
  Tensor& operator=(Tensor&& o) & noexcept {
    if (this != &o) {
      sdk_tensor_release(h_);
      h_ = o.h_;
      o.h_ = nullptr;
    }
    return *this;
  }
  ~Tensor() { sdk_tensor_release(h_); }
  /*! \brief Assigning to a temporary view writes its elements, as in torch: `x[i] = y`
   *  copies y in (broadcast, cast), `x[i] = 1.5` fills. */
  Tensor& operator=(const Tensor& src) && {
    copy_(src);
    return *this;
  }
  Tensor& operator=(Tensor&& src) && {
    copy_(src);
    return *this;
  }
  Tensor& operator=(const Scalar& value) && {
    fill_(value);
    return *this;
  }

  /*! \brief Take ownership of a NEW reference (what the C ABI returns). */
  static Tensor steal(sdk_tensor* handle) noexcept {
    Tensor t;
    t.h_ = handle;
    return t;
  }
  /*! \brief Share a BORROWED handle: retains it. */
  static Tensor borrow(sdk_tensor* handle) noexcept {
    if (handle) sdk_tensor_retain(handle);
    return steal(handle);
  }

  /*! \brief The handle, still owned by this Tensor (for passing to C ABI calls). */
  sdk_tensor* get() const noexcept { return h_; }
  /*! \brief Give up ownership: returns the handle (a reference the caller must release). */
  sdk_tensor* release() noexcept {
    sdk_tensor* h = h_;
    h_ = nullptr;
    return h;
  }
  /*! \brief Drop the handle; the tensor becomes undefined. */
  void reset() noexcept {
    sdk_tensor_release(h_);
    h_ = nullptr;
  }
  bool defined() const noexcept { return h_ != nullptr; }
  /*! \brief References to the handle (views of the same storage have their own). */
  int64_t use_count() const noexcept { return h_ ? sdk_tensor_use_count(h_) : 0; }
  /*! \brief Same handle (not just same storage). */
  bool is_same(const Tensor& o) const noexcept { return h_ == o.h_; }

  // ---- metadata ------------------------------------------------------------------------
  int64_t dim() const { return sdk_tensor_ndim(checked()); }
  int64_t ndimension() const { return dim(); }
  int64_t numel() const { return sdk_tensor_numel(checked()); }
  // torch's symbolic-shape spellings: every size is concrete here (sdk/symint.h).
  SymInt sym_numel() const { return numel(); }
  SymInt sym_size(int64_t dim) const { return size(dim); }
  SymInt sym_stride(int64_t dim) const { return stride(dim); }
  SymIntArrayRef sym_sizes() const { return sizes(); }
  SymIntArrayRef sym_strides() const { return strides(); }
  SymInt sym_storage_offset() const { return storage_offset(); }
  /*! \brief A view of the core's sizes array, valid while this tensor lives. */
  IntArrayRef sizes() const {
    sdk_tensor* h = checked();
    return IntArrayRef(sdk_tensor_sizes(h), static_cast<size_t>(sdk_tensor_ndim(h)));
  }
  /*! \brief Strides in elements, a view like sizes(). */
  IntArrayRef strides() const {
    sdk_tensor* h = checked();
    return IntArrayRef(sdk_tensor_strides(h), static_cast<size_t>(sdk_tensor_ndim(h)));
  }
  /*! \brief Size of dim `d` (negative counts from the end). */
  int64_t size(int64_t d) const {
    int64_t w = wrap_dim(d, "size");
    return sdk_tensor_sizes(h_)[w];
  }
  int64_t stride(int64_t d) const {
    int64_t w = wrap_dim(d, "stride");
    return sdk_tensor_strides(h_)[w];
  }
  int64_t storage_offset() const { return sdk_tensor_storage_offset(checked()); }
  ScalarType scalar_type() const { return from_c_dtype(sdk_tensor_dtype(checked())); }
  TypeMeta dtype() const { return scalar_type(); }
  int64_t element_size() const { return elementSize(scalar_type()); }
  int64_t itemsize() const { return element_size(); }
  int64_t nbytes() const { return numel() * element_size(); }
  Device device() const { return Device::from_c(sdk_tensor_device(checked())); }
  bool is_cpu() const { return device().is_cpu(); }
  bool is_cuda() const { return device().is_cuda(); }
  /*! \brief CUDA ordinal, -1 for the CPU. */
  int64_t get_device() const { return device().index(); }
  TensorOptions options() const { return TensorOptions(scalar_type()).device(device()); }
  /*! \brief Always kStrided: sdk tensors are dense and strided. */
  Layout layout() const { return Layout::Strided; }
  /*! \brief Deprecated in torch, kept for AT_DISPATCH_*(x.type(), ...) ports. */
  DeprecatedTypeProperties type() const { return {scalar_type(), is_cuda()}; }
  bool is_floating_point() const { return isFloatingType(scalar_type()); }
  bool is_contiguous() const { return sdk_tensor_is_contiguous(checked()) != 0; }
  /*! \brief Dense in `memory_format`'s order (Contiguous: row-major; ChannelsLast: NHWC). */
  bool is_contiguous(MemoryFormat memory_format) const {
    SDK_CHECK_VALUE(memory_format != MemoryFormat::Preserve,
                    "is_contiguous: Preserve is not a memory format a tensor can have");
    if (memory_format == MemoryFormat::Contiguous) return is_contiguous();
    return detail::is_channels_last_contiguous(sizes(), strides(), memory_format);
  }
  /*! \brief Write counter shared by the storage's views (autograd's in-place check). */
  int64_t _version() const { return sdk_tensor_version(checked()); }
  /*! \brief Tell autograd the data changed after writing through data_ptr(). */
  void bump_version() const { sdk_tensor_bump_version(checked()); }

  // ---- autograd (the graph is the sdk Python package's; see sdk/autograd.h) -------------
  /*! \brief Whether autograd tracks this tensor: a leaf marked so, or a recorded result. */
  bool requires_grad() const { return sdk_tensor_requires_grad(checked()) != 0; }
  /*! \brief Mark a leaf of a float dtype as requiring grad (or not); throws for a
   *  recorded result, or when the sdk Python package is not loaded. */
  const Tensor& set_requires_grad(bool requires_grad) const {
    detail::check_status(sdk_tensor_set_requires_grad(checked(), requires_grad ? 1 : 0),
                         "set_requires_grad");
    return *this;
  }
  const Tensor& requires_grad_(bool requires_grad = true) const {
    return set_requires_grad(requires_grad);
  }
  /*! \brief Accumulate d(this)/d(leaf), times `gradient` (undefined: ones, for a
   *  single-element tensor), into every leaf's grad (torch's Tensor::backward; `inputs`
   *  is not supported). retain_graph defaults to create_graph. Needs the sdk package
   *  imported (its engine runs the graph). */
  void backward(const Tensor& gradient, std::optional<bool> retain_graph = std::nullopt,
                bool create_graph = false) const {
    const int32_t flags = (retain_graph.value_or(create_graph) ? SDK_BACKWARD_RETAIN_GRAPH : 0) |
                          (create_graph ? SDK_BACKWARD_CREATE_GRAPH : 0);
    detail::check_status(sdk_tensor_backward(checked(), gradient.get(), flags), "backward");
  }
  // (an overload, not `gradient = {}`: a default argument of the class's own type inside its
  // definition is refused by clang)
  void backward() const { backward(Tensor()); }
  /*! \brief The gradient accumulated by backward(); undefined until one reached this leaf. */
  Tensor grad() const {
    sdk_tensor* g = nullptr;
    detail::check_status(sdk_tensor_grad(checked(), &g), "grad");
    return steal(g);
  }
  /*! \brief False for the result of a recorded function. */
  bool is_leaf() const { return sdk_tensor_is_leaf(checked()) != 0; }
  /*! \brief A view of the same data (and version counter) outside the graph. */
  Tensor detach() const {
    sdk_tensor* h = checked();
    sdk_tensor* r = nullptr;
    detail::check_status(sdk_as_strided(h, sdk_tensor_ndim(h), sdk_tensor_sizes(h),
                                        sdk_tensor_strides(h), sdk_tensor_storage_offset(h), &r),
                         "detach");
    return steal(r);
  }

  // ---- data access ---------------------------------------------------------------------
  /*! \brief Address of element [0, ...]; throws for a meta tensor, which has no data. */
  void* data_ptr() const { return data_or_throw("data_ptr"); }
  /*! \brief Base address and byte size of the whole storage behind this view. */
  void* storage_data_ptr() const { return sdk_tensor_storage_ptr(checked()); }
  int64_t storage_nbytes() const { return sdk_tensor_storage_nbytes(checked()); }
  const void* const_data_ptr() const { return data_ptr(); }
  /*! \brief The data pointer, for writing: throws when the memory is read-only (a read-only
   *  numpy array, a file mapped read-only), where data_ptr() would let the write through. */
  void* mutable_data_ptr() const {
    check_writable("mutable_data_ptr");
    return data_ptr();
  }
  /*! \brief Typed pointer to element [0, ...]; throws unless T matches the dtype. */
  template <typename T>
  T* data_ptr() const {
    check_dtype(CppTypeToScalarType<T>::value, "data_ptr");
    return static_cast<T*>(data_or_throw("data_ptr"));
  }
  template <typename T>
  const T* const_data_ptr() const {
    return data_ptr<T>();
  }
  /*! \brief torch's deprecated spelling of data_ptr<T>() (old extensions' DATA_PTR macros). */
  template <typename T>
  T* data() const {
    return data_ptr<T>();
  }
  template <typename T>
  T* mutable_data_ptr() const {
    check_writable("mutable_data_ptr");
    return data_ptr<T>();
  }
  /*! \brief 1 when the memory is read-only (see sdk_tensor_set_read_only). */
  bool is_read_only() const { return sdk_tensor_is_read_only(checked()) != 0; }
  /*! \brief N-d indexing of a CPU tensor: a[i][j]. Checks dtype, dim and device. */
  template <typename T, size_t N>
  TensorAccessor<T, N> accessor() const& {
    static_assert(N > 0, "accessor is used for indexing tensor, for scalars use *data_ptr<T>()");
    check_accessor(CppTypeToScalarType<T>::value, N, "accessor", false, true);
    return TensorAccessor<T, N>(static_cast<T*>(data_or_throw("accessor")), sdk_tensor_sizes(h_),
                                sdk_tensor_strides(h_));
  }
  template <typename T, size_t N>
  TensorAccessor<T, N> accessor() && = delete;  // would dangle: sizes live in the tensor
  /*! \brief Accessor holding its sizes/strides, passable by value to a CUDA kernel. */
  template <typename T, size_t N, template <typename U> class PtrTraits = DefaultPtrTraits,
            typename index_t = int64_t>
  GenericPackedTensorAccessor<T, N, PtrTraits, index_t> generic_packed_accessor() const& {
    static_assert(N > 0, "accessor is used for indexing tensor, for scalars use *data_ptr<T>()");
    check_accessor(CppTypeToScalarType<T>::value, N, "packed_accessor",
                   sizeof(index_t) < sizeof(int64_t), false);
    return GenericPackedTensorAccessor<T, N, PtrTraits, index_t>(
        static_cast<T*>(data_or_throw("packed_accessor")), sdk_tensor_sizes(h_),
        sdk_tensor_strides(h_));
  }
  /*! \brief torch's older spelling of generic_packed_accessor. */
  template <typename T, size_t N, template <typename U> class PtrTraits = DefaultPtrTraits,
            typename index_t = int64_t>
  GenericPackedTensorAccessor<T, N, PtrTraits, index_t> packed_accessor() const& {
    return generic_packed_accessor<T, N, PtrTraits, index_t>();
  }
  template <typename T, size_t N, template <typename U> class PtrTraits = DefaultPtrTraits>
  PackedTensorAccessor32<T, N, PtrTraits> packed_accessor32() const& {
    return generic_packed_accessor<T, N, PtrTraits, int32_t>();
  }
  template <typename T, size_t N, template <typename U> class PtrTraits = DefaultPtrTraits>
  PackedTensorAccessor64<T, N, PtrTraits> packed_accessor64() const& {
    return generic_packed_accessor<T, N, PtrTraits, int64_t>();
  }
  /*! \brief The only element of a one-element CPU tensor, converted to T. */
  template <typename T>
  T item() const;
  /*! \brief The only element as a Scalar (float dtypes give a float Scalar). */
  Scalar item() const;

  // ---- creation-like -------------------------------------------------------------------
  Tensor clone(MemoryFormat memory_format = MemoryFormat::Preserve) const;
  Tensor contiguous(MemoryFormat memory_format = MemoryFormat::Contiguous) const;
  /*! \brief This tensor, borrowed, when contiguous; else an owned contiguous copy. */
  MaybeOwned<Tensor> expect_contiguous(
      MemoryFormat memory_format = MemoryFormat::Contiguous) const&;
  MaybeOwned<Tensor> expect_contiguous(MemoryFormat memory_format = MemoryFormat::Contiguous) && =
      delete;  // the borrowed tensor would be a temporary
  Tensor to(ScalarType dtype, bool non_blocking = false, bool copy = false) const;
  Tensor to(const TensorOptions& options, bool non_blocking = false, bool copy = false) const;
  // exact overloads: TypeMeta and the deprecated type convert to ScalarType and TensorOptions
  Tensor to(TypeMeta dtype, bool non_blocking = false, bool copy = false) const {
    return to(dtype.toScalarType(), non_blocking, copy);
  }
  Tensor to(DeprecatedTypeProperties type, bool non_blocking = false, bool copy = false) const {
    return to(TensorOptions(type), non_blocking, copy);
  }
  /*! \brief To `device` and `dtype` at once. */
  Tensor to(Device device, ScalarType dtype, bool non_blocking = false, bool copy = false) const;
  Tensor type_as(const Tensor& other) const;
  /*! \brief The tensor on the CPU (itself when already there). */
  Tensor cpu() const;
  const Tensor& fill_(const Scalar& value) const;
  const Tensor& zero_() const;
  const Tensor& copy_(const Tensor& src, bool non_blocking = false) const;
  const Tensor& uniform_(double from = 0, double to = 1) const;
  const Tensor& normal_(double mean = 0, double std = 1) const;
  const Tensor& random_(int64_t from, int64_t to) const;

  // ---- views ---------------------------------------------------------------------------
  Tensor view(IntArrayRef sizes) const;
  Tensor view(ScalarType dtype) const;
  Tensor view_as(const Tensor& other) const;
  Tensor reshape(IntArrayRef sizes) const;
  Tensor reshape_as(const Tensor& other) const;
  Tensor as_strided(IntArrayRef sizes, IntArrayRef strides,
                    std::optional<int64_t> storage_offset = std::nullopt) const;
  /*! \brief as_strided, in place: this tensor takes the new sizes and strides. */
  const Tensor& as_strided_(IntArrayRef sizes, IntArrayRef strides,
                            std::optional<int64_t> storage_offset = std::nullopt) const;
  Tensor permute(IntArrayRef dims) const;
  Tensor transpose(int64_t dim0, int64_t dim1) const;
  /*! \brief 2-D transpose; tensors with fewer than 2 dims come back as they are. */
  Tensor t() const;
  Tensor slice(int64_t dim = 0, int64_t start = 0, int64_t end = INT64_MAX, int64_t step = 1) const;
  Tensor narrow(int64_t dim, int64_t start, int64_t length) const;
  Tensor select(int64_t dim, int64_t index) const;
  /*! \brief select(0, index). */
  Tensor operator[](int64_t index) const;
  std::vector<Tensor> chunk(int64_t chunks, int64_t dim = 0) const;
  std::vector<Tensor> split(int64_t split_size, int64_t dim = 0) const;
  std::vector<Tensor> split(IntArrayRef split_sizes, int64_t dim = 0) const;
  std::vector<Tensor> split_with_sizes(IntArrayRef split_sizes, int64_t dim = 0) const;
  std::vector<Tensor> unbind(int64_t dim = 0) const;
  Tensor unsqueeze(int64_t dim) const;
  Tensor squeeze() const;
  Tensor squeeze(int64_t dim) const;
  Tensor squeeze(IntArrayRef dims) const;
  Tensor expand(IntArrayRef sizes, bool implicit = false) const;
  Tensor expand_as(const Tensor& other) const;
  Tensor flatten(int64_t start_dim = 0, int64_t end_dim = -1) const;
  /*! \brief Dim `source` moved to position `destination`, the others in order. */
  Tensor movedim(int64_t source, int64_t destination) const;
  Tensor moveaxis(int64_t source, int64_t destination) const {
    return movedim(source, destination);
  }
  Tensor swapaxes(int64_t dim0, int64_t dim1) const { return transpose(dim0, dim1); }
  Tensor swapdims(int64_t dim0, int64_t dim1) const { return transpose(dim0, dim1); }
  /*! \brief The last two dims transposed (a batch of matrices). */
  Tensor mT() const { return transpose(-2, -1); }
  /*! \brief Dim `dim` split into `sizes` (one may be -1). */
  Tensor unflatten(int64_t dim, IntArrayRef sizes) const {
    const int64_t d = dim < 0 ? dim + this->dim() : dim;
    std::vector<int64_t> shape(this->sizes().begin(), this->sizes().end());
    if (d < 0 || d >= this->dim()) {
      detail::throw_error(
          SDK_ERROR_INDEX,
          detail::concat("unflatten: dim ", dim, " out of range for shape ", this->sizes()));
    }
    shape.erase(shape.begin() + d);
    shape.insert(shape.begin() + d, sizes.begin(), sizes.end());
    return view(shape);
  }

  // ---- elementwise (from the op tables and their facts, see op_table.h) ----------------
#define SDK_DETAIL_DECLARE_UNARY(NAME, name, code) Tensor name() const;
  SDK_UNARY_OPS(SDK_DETAIL_DECLARE_UNARY)
#undef SDK_DETAIL_DECLARE_UNARY
#define SDK_DETAIL_DECLARE_BINARY(NAME, name, code) \
  Tensor name(const Tensor& other) const;           \
  Tensor name(const Scalar& other) const;
  SDK_BINARY_OPS(SDK_DETAIL_DECLARE_BINARY)
#undef SDK_DETAIL_DECLARE_BINARY
#define SDK_DETAIL_DECLARE_UNARY_(NAME, name, differentiable, inplace, bool_result) \
  SDK_DETAIL_IF_INPLACE(inplace, bool_result, const Tensor& name##_() const;)
  SDK_UNARY_OP_FACTS(SDK_DETAIL_DECLARE_UNARY_)
#undef SDK_DETAIL_DECLARE_UNARY_
#define SDK_DETAIL_DECLARE_BINARY_(NAME, name, differentiable, inplace, bool_result)            \
  SDK_DETAIL_IF_INPLACE(inplace, bool_result, const Tensor& name##_(const Tensor& other) const; \
                        const Tensor& name##_(const Scalar& other) const;)
  SDK_BINARY_OP_FACTS(SDK_DETAIL_DECLARE_BINARY_)
#undef SDK_DETAIL_DECLARE_BINARY_
  // add and sub with alpha (without it they are generated above)
  Tensor add(const Tensor& other, const Scalar& alpha) const;
  Tensor add(const Scalar& other, const Scalar& alpha) const;
  const Tensor& add_(const Tensor& other, const Scalar& alpha) const;
  const Tensor& add_(const Scalar& other, const Scalar& alpha) const;
  Tensor sub(const Tensor& other, const Scalar& alpha) const;
  Tensor sub(const Scalar& other, const Scalar& alpha) const;
  const Tensor& sub_(const Tensor& other, const Scalar& alpha) const;
  const Tensor& sub_(const Scalar& other, const Scalar& alpha) const;
  Tensor multiply(const Tensor& other) const { return mul(other); }
  Tensor divide(const Tensor& other) const { return div(other); }
  Tensor elu(const Scalar& alpha = 1) const;
  const Tensor& elu_(const Scalar& alpha = 1) const;
  Tensor clamp(const std::optional<Scalar>& min,
               const std::optional<Scalar>& max = std::nullopt) const;
  const Tensor& clamp_(const std::optional<Scalar>& min,
                       const std::optional<Scalar>& max = std::nullopt) const;
  Tensor clamp_min(const Scalar& min) const;
  /*! \brief 2-norm of all elements (sqrt of the sum of squares), as torch's x.norm(). */
  Tensor norm(const Scalar& p = 2) const;
  Tensor norm(const std::optional<Scalar>& p, IntArrayRef dim, bool keepdim = false) const;
  Tensor logsumexp(IntArrayRef dim, bool keepdim = false) const;
  Tensor outer(const Tensor& vec2) const;
  Tensor ger(const Tensor& vec2) const;
  Tensor baddbmm(const Tensor& batch1, const Tensor& batch2, const Scalar& beta = 1,
                 const Scalar& alpha = 1) const;
  /*! \brief Tile: repeats[i] copies along dim i (leading repeats add dims), as torch. */
  Tensor repeat(IntArrayRef repeats) const;
  Tensor clamp_max(const Scalar& max) const;
  Tensor where(const Tensor& condition, const Tensor& other) const;
  Tensor masked_fill(const Tensor& mask, const Scalar& value) const;
  const Tensor& masked_fill_(const Tensor& mask, const Scalar& value) const;

  // ---- elementwise beyond the op tables (sdk/elementwise.h) and new_* -------------------
  /*! \brief to(dtype) (torch's older spelling). */
  Tensor toType(ScalarType t) const { return to(t); }
  bool is_same_size(const Tensor& other) const { return sizes() == other.sizes(); }
  /*! \brief Same shape and the same values (NaN differs from NaN, as torch). */
  bool equal(const Tensor& other) const;
  /*! \brief Dense and without overlap: a permutation of a contiguous layout. */
  bool is_non_overlapping_and_dense() const;
  /*! \brief ChannelsLast / ChannelsLast3d when the strides read as one (torch's rule),
   *  else Contiguous; `channels_last_strides_exact_match`: only for exactly dense ones. */
  MemoryFormat suggest_memory_format(bool channels_last_strides_exact_match = false) const {
    return detail::suggest_memory_format(sizes(), strides(), channels_last_strides_exact_match);
  }
  /*! \brief Host memory is never page-locked here; pin_memory() returns the tensor itself. */
  bool is_pinned() const { return false; }
  Tensor pin_memory() const { return *this; }
  /*! \brief torch's record_stream: this CUDA tensor is used on `s` (a cuda::CUDAStream) too. */
  template <class S>
  void record_stream(const S& s) const {
    detail::check_status(sdk_cuda_record_stream(checked(), s.stream()), "record_stream");
  }
  Tensor bfloat16() const { return to(ScalarType::BFloat16); }
  /*! \brief New tensors with this tensor's dtype and device unless `options` say otherwise. */
  Tensor new_empty(IntArrayRef size, const TensorOptions& options = {}) const;
  Tensor new_zeros(IntArrayRef size, const TensorOptions& options = {}) const;
  Tensor new_ones(IntArrayRef size, const TensorOptions& options = {}) const;
  Tensor new_full(IntArrayRef size, const Scalar& fill_value,
                  const TensorOptions& options = {}) const;
  Tensor sgn() const { return sign(); }
  const Tensor& sgn_() const { return sign_(); }
  Tensor fix() const { return trunc(); }
  const Tensor& fix_() const { return trunc_(); }
  Tensor arcsin() const { return asin(); }
  Tensor arccos() const { return acos(); }
  Tensor arctan() const { return atan(); }
  Tensor arcsinh() const { return asinh(); }
  Tensor arccosh() const { return acosh(); }
  Tensor arctanh() const { return atanh(); }
  Tensor arctan2(const Tensor& other) const { return atan2(other); }
  Tensor true_divide(const Tensor& other) const { return div(other); }
  Tensor true_divide(const Scalar& other) const { return div(other); }
  const Tensor& true_divide_(const Tensor& other) const { return div_(other); }
  const Tensor& true_divide_(const Scalar& other) const { return div_(other); }
  /*! \brief Division rounded per rounding_mode: nullopt, "trunc" or "floor". */
  Tensor div(const Tensor& other, std::optional<std::string_view> rounding_mode) const;
  Tensor div(const Scalar& other, std::optional<std::string_view> rounding_mode) const;
  const Tensor& div_(const Tensor& other, std::optional<std::string_view> rounding_mode) const;
  const Tensor& div_(const Scalar& other, std::optional<std::string_view> rounding_mode) const;
  Tensor divide(const Tensor& other, std::optional<std::string_view> rounding_mode) const {
    return div(other, rounding_mode);
  }
  Tensor nan_to_num(std::optional<double> nan = std::nullopt,
                    std::optional<double> posinf = std::nullopt,
                    std::optional<double> neginf = std::nullopt) const;
  const Tensor& nan_to_num_(std::optional<double> nan = std::nullopt,
                            std::optional<double> posinf = std::nullopt,
                            std::optional<double> neginf = std::nullopt) const;
  Tensor lerp(const Tensor& end, const Scalar& weight) const;
  Tensor lerp(const Tensor& end, const Tensor& weight) const;
  const Tensor& lerp_(const Tensor& end, const Scalar& weight) const;
  const Tensor& lerp_(const Tensor& end, const Tensor& weight) const;
  Tensor addcmul(const Tensor& tensor1, const Tensor& tensor2, const Scalar& value = 1) const;
  const Tensor& addcmul_(const Tensor& tensor1, const Tensor& tensor2,
                         const Scalar& value = 1) const;
  Tensor addcdiv(const Tensor& tensor1, const Tensor& tensor2, const Scalar& value = 1) const;
  const Tensor& addcdiv_(const Tensor& tensor1, const Tensor& tensor2,
                         const Scalar& value = 1) const;
  /*! \brief clamp with tensor bounds (broadcast); an absent bound is open. */
  Tensor clamp(const std::optional<Tensor>& min, const std::optional<Tensor>& max = {}) const;
  const Tensor& clamp_(const std::optional<Tensor>& min,
                       const std::optional<Tensor>& max = {}) const;
  Tensor clamp_min(const Tensor& min) const;
  Tensor clamp_max(const Tensor& max) const;
  const Tensor& clamp_min_(const Scalar& min) const;
  const Tensor& clamp_max_(const Scalar& max) const;
  const Tensor& clamp_min_(const Tensor& min) const;
  const Tensor& clamp_max_(const Tensor& max) const;
  Tensor clip(const std::optional<Scalar>& min,
              const std::optional<Scalar>& max = std::nullopt) const {
    return clamp(min, max);
  }
  Tensor clip(const std::optional<Tensor>& min, const std::optional<Tensor>& max = {}) const {
    return clamp(min, max);
  }
  Tensor isclose(const Tensor& other, double rtol = 1e-05, double atol = 1e-08,
                 bool equal_nan = false) const;
  bool allclose(const Tensor& other, double rtol = 1e-05, double atol = 1e-08,
                bool equal_nan = false) const;

  // ---- in-place operators --------------------------------------------------------------
  Tensor& operator+=(const Tensor& o) { return const_cast<Tensor&>(add_(o)); }
  Tensor& operator+=(const Scalar& o) { return const_cast<Tensor&>(add_(o)); }
  Tensor& operator-=(const Tensor& o) { return const_cast<Tensor&>(sub_(o)); }
  Tensor& operator-=(const Scalar& o) { return const_cast<Tensor&>(sub_(o)); }
  Tensor& operator*=(const Tensor& o) { return const_cast<Tensor&>(mul_(o)); }
  Tensor& operator*=(const Scalar& o) { return const_cast<Tensor&>(mul_(o)); }
  Tensor& operator/=(const Tensor& o) { return const_cast<Tensor&>(div_(o)); }
  Tensor& operator/=(const Scalar& o) { return const_cast<Tensor&>(div_(o)); }
  Tensor& operator&=(const Tensor& o) { return const_cast<Tensor&>(bitwise_and_(o)); }
  Tensor& operator|=(const Tensor& o) { return const_cast<Tensor&>(bitwise_or_(o)); }
  Tensor& operator^=(const Tensor& o) { return const_cast<Tensor&>(bitwise_xor_(o)); }

  // ---- reductions ----------------------------------------------------------------------
  Tensor sum(std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor sum(IntArrayRef dim, bool keepdim = false,
             std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor mean(std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor mean(IntArrayRef dim, bool keepdim = false,
              std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor prod(std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor prod(IntArrayRef dim, bool keepdim = false,
              std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor amax(IntArrayRef dim = {}, bool keepdim = false) const;
  Tensor amin(IntArrayRef dim = {}, bool keepdim = false) const;
  /*! \brief Max of all elements (0-dim). */
  Tensor max() const;
  /*! \brief (values, indices) over one dim. */
  std::tuple<Tensor, Tensor> max(int64_t dim, bool keepdim = false) const;
  /*! \brief Elementwise maximum (torch's max(other)). */
  Tensor max(const Tensor& other) const { return maximum(other); }
  Tensor min() const;
  std::tuple<Tensor, Tensor> min(int64_t dim, bool keepdim = false) const;
  Tensor min(const Tensor& other) const { return minimum(other); }
  Tensor argmax(std::optional<int64_t> dim = std::nullopt, bool keepdim = false) const;
  Tensor argmin(std::optional<int64_t> dim = std::nullopt, bool keepdim = false) const;
  Tensor all() const;
  Tensor all(int64_t dim, bool keepdim = false) const;
  Tensor any() const;
  Tensor any(int64_t dim, bool keepdim = false) const;
  Tensor var(bool unbiased = true) const;
  Tensor var(IntArrayRef dim, bool unbiased = true, bool keepdim = false) const;
  // An integer literal picks the dim overload (x.var(0)), not the bool one.
  template <typename I,
            std::enable_if_t<std::is_integral<I>::value && !std::is_same<I, bool>::value, int> = 0>
  Tensor var(I dim, bool unbiased = true, bool keepdim = false) const {
    int64_t d = static_cast<int64_t>(dim);
    return var(IntArrayRef(d), unbiased, keepdim);
  }
  Tensor std(bool unbiased = true) const;
  Tensor std(IntArrayRef dim, bool unbiased = true, bool keepdim = false) const;
  template <typename I,
            std::enable_if_t<std::is_integral<I>::value && !std::is_same<I, bool>::value, int> = 0>
  Tensor std(I dim, bool unbiased = true, bool keepdim = false) const {
    int64_t d = static_cast<int64_t>(dim);
    return std(IntArrayRef(d), unbiased, keepdim);
  }
  Tensor softmax(int64_t dim, std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor log_softmax(int64_t dim, std::optional<ScalarType> dtype = std::nullopt) const;

  // ---- linear algebra ------------------------------------------------------------------
  Tensor mm(const Tensor& mat2) const;
  Tensor bmm(const Tensor& mat2) const;
  Tensor matmul(const Tensor& other) const;
  Tensor mv(const Tensor& vec) const;
  Tensor dot(const Tensor& other) const;
  /*! \brief beta * self + alpha * (mat1 @ mat2). */
  Tensor addmm(const Tensor& mat1, const Tensor& mat2, const Scalar& beta = 1,
               const Scalar& alpha = 1) const;
  const Tensor& addmm_(const Tensor& mat1, const Tensor& mat2, const Scalar& beta = 1,
                       const Scalar& alpha = 1) const;

  // ---- indexing ------------------------------------------------------------------------
  Tensor index_select(int64_t dim, const Tensor& index) const;
  Tensor gather(int64_t dim, const Tensor& index) const;
  /*! \brief torch's sparse_grad flag: gradients here are dense either way. */
  Tensor gather(int64_t dim, const Tensor& index, bool sparse_grad) const {
    (void)sparse_grad;
    return gather(dim, index);
  }
  Tensor scatter_add(int64_t dim, const Tensor& index, const Tensor& src) const;
  const Tensor& scatter_add_(int64_t dim, const Tensor& index, const Tensor& src) const;
  Tensor index_add(int64_t dim, const Tensor& index, const Tensor& source) const;
  const Tensor& index_add_(int64_t dim, const Tensor& index, const Tensor& source) const;
  /*! \brief Advanced indexing by integer tensors: x.index({rows, cols}). */
  Tensor index(TensorList indices) const;
  const Tensor& index_put_(TensorList indices, const Tensor& values, bool accumulate = false) const;
  /*! \brief x[...] with Python's index kinds (sdk/indexing.h, torch::indexing):
   *  x.index({Slice(), 0, None, Ellipsis, mask}). */
  Tensor index(std::initializer_list<indexing::TensorIndex> indices) const;
  Tensor index(const std::vector<indexing::TensorIndex>& indices) const;
  /*! \brief x[...] = values (broadcast) with the same index kinds. */
  const Tensor& index_put_(std::initializer_list<indexing::TensorIndex> indices,
                           const Tensor& values) const;
  const Tensor& index_put_(std::initializer_list<indexing::TensorIndex> indices,
                           const Scalar& value) const;
  const Tensor& index_put_(const std::vector<indexing::TensorIndex>& indices,
                           const Tensor& values) const;
  const Tensor& index_put_(const std::vector<indexing::TensorIndex>& indices,
                           const Scalar& value) const;
  Tensor nonzero() const;

  // ---- sorting, scans, scatter, reordering (bodies in sdk/sort.h, scan.h, scatter.h, layout.h) -
  /*! \brief (values, indices) sorted along dim; NaN above every number; always stable. */
  std::tuple<Tensor, Tensor> sort(int64_t dim = -1, bool descending = false) const;
  std::tuple<Tensor, Tensor> sort(std::optional<bool> stable, int64_t dim,
                                  bool descending = false) const;
  Tensor argsort(int64_t dim = -1, bool descending = false) const;
  std::tuple<Tensor, Tensor> topk(int64_t k, int64_t dim = -1, bool largest = true,
                                  bool sorted = true) const;
  std::tuple<Tensor, Tensor> kthvalue(int64_t k, int64_t dim = -1, bool keepdim = false) const;
  Tensor median() const;
  std::tuple<Tensor, Tensor> median(int64_t dim, bool keepdim = false) const;
  Tensor cumsum(int64_t dim, std::optional<ScalarType> dtype = std::nullopt) const;
  const Tensor& cumsum_(int64_t dim, std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor cumprod(int64_t dim, std::optional<ScalarType> dtype = std::nullopt) const;
  const Tensor& cumprod_(int64_t dim, std::optional<ScalarType> dtype = std::nullopt) const;
  std::tuple<Tensor, Tensor> cummax(int64_t dim) const;
  std::tuple<Tensor, Tensor> cummin(int64_t dim) const;
  Tensor scatter(int64_t dim, const Tensor& index, const Tensor& src) const;
  Tensor scatter(int64_t dim, const Tensor& index, const Scalar& value) const;
  const Tensor& scatter_(int64_t dim, const Tensor& index, const Tensor& src) const;
  const Tensor& scatter_(int64_t dim, const Tensor& index, const Scalar& value) const;
  /*! \brief scatter_ accumulating with reduce "add" or "multiply". */
  const Tensor& scatter_(int64_t dim, const Tensor& index, const Tensor& src,
                         std::string_view reduce) const;
  Tensor scatter_reduce(int64_t dim, const Tensor& index, const Tensor& src,
                        std::string_view reduce, bool include_self = true) const;
  const Tensor& scatter_reduce_(int64_t dim, const Tensor& index, const Tensor& src,
                                std::string_view reduce, bool include_self = true) const;
  Tensor index_copy(int64_t dim, const Tensor& index, const Tensor& source) const;
  const Tensor& index_copy_(int64_t dim, const Tensor& index, const Tensor& source) const;
  Tensor index_fill(int64_t dim, const Tensor& index, const Scalar& value) const;
  const Tensor& index_fill_(int64_t dim, const Tensor& index, const Scalar& value) const;
  Tensor masked_select(const Tensor& mask) const;
  Tensor masked_scatter(const Tensor& mask, const Tensor& source) const;
  const Tensor& masked_scatter_(const Tensor& mask, const Tensor& source) const;
  Tensor take(const Tensor& index) const;
  Tensor take_along_dim(const Tensor& indices, std::optional<int64_t> dim = std::nullopt) const;
  Tensor repeat_interleave(const Tensor& repeats, std::optional<int64_t> dim = std::nullopt,
                           std::optional<int64_t> output_size = std::nullopt) const;
  Tensor repeat_interleave(int64_t repeats, std::optional<int64_t> dim = std::nullopt,
                           std::optional<int64_t> output_size = std::nullopt) const;
  Tensor flip(IntArrayRef dims) const;
  Tensor roll(IntArrayRef shifts, IntArrayRef dims = {}) const;
  Tensor tril(int64_t diagonal = 0) const;
  Tensor triu(int64_t diagonal = 0) const;
  const Tensor& tril_(int64_t diagonal = 0) const;
  const Tensor& triu_(int64_t diagonal = 0) const;
  /*! \brief The diagonal of the (dim1, dim2) planes as a view. */
  Tensor diagonal(int64_t offset = 0, int64_t dim1 = 0, int64_t dim2 = 1) const;
  Tensor diag(int64_t diagonal = 0) const;
  Tensor diag_embed(int64_t offset = 0, int64_t dim1 = -2, int64_t dim2 = -1) const;
  /*! \brief Windows of `size` along dimension, `step` apart, as a view (last dim: size). */
  Tensor unfold(int64_t dimension, int64_t size, int64_t step) const;
  /*! \brief New sizes in place, contiguous strides; grows the storage when needed. */
  const Tensor& resize_(IntArrayRef size) const;

  // ---- more of torch's methods (bodies in sdk/ops_data.h and sdk/linalg.h) -------------
  /*! \brief Whether the dtype is complex64 or complex128 (sdk has no sparse layouts). */
  bool is_complex() const { return isComplexType(scalar_type()); }
  bool is_sparse() const { return false; }
  /*! \brief Whether this is a meta tensor (shapes only, no data: what a Meta kernel sees). */
  bool is_meta() const { return sdk_tensor_device(checked()).type == SDK_META; }
  // The SDK has no quantized or MKL-DNN tensors.
  bool is_quantized() const { return false; }
  bool is_mkldnn() const { return false; }
  bool is_mps() const { return false; }
  bool is_xpu() const { return false; }
  bool is_privateuseone() const { return false; }
  /*! \brief A 1-d tensor of `data` with this tensor's dtype and device unless `options`
   *  say otherwise. */
  template <typename T>
  Tensor new_tensor(const std::vector<T>& data, const TensorOptions& options = {}) const;
  template <typename T>
  Tensor new_tensor(std::initializer_list<T> data, const TensorOptions& options = {}) const {
    return new_tensor(std::vector<T>(data), options);
  }
  /*! \brief resize_ to the sizes of `the_template`. */
  const Tensor& resize_as_(const Tensor& the_template,
                           std::optional<MemoryFormat> memory_format = std::nullopt) const;
  /*! \brief In-place squeeze/unsqueeze/transpose: the tensor itself takes the view's sizes
   *  and strides, contiguous or not (sdk_as_strided_); every holder of it sees them. */
  const Tensor& squeeze_() const;
  const Tensor& squeeze_(int64_t dim) const;
  const Tensor& squeeze_(IntArrayRef dim) const;
  const Tensor& unsqueeze_(int64_t dim) const;
  const Tensor& transpose_(int64_t dim0, int64_t dim1) const;
  /*! \brief In-place 2-D transpose (tensors with fewer than 2 dims stay as they are). */
  const Tensor& t_() const;
  /*! \brief Stop a leaf from requiring grad; throws for a recorded result (the C ABI cannot
   *  cut a tensor out of the graph in place: use detach()). */
  const Tensor& detach_() const;
  /*! \brief Fill with 1 with probability p (else 0), from the default generator. */
  const Tensor& bernoulli_(double p = 0.5) const;
  const Tensor& bernoulli_(const Tensor& p) const;
  /*! \brief 0/1 draws with this tensor's elements as probabilities (same dtype). */
  Tensor bernoulli() const;
  /*! \brief 0/1 draws with probability p, shaped and typed like this tensor. */
  Tensor bernoulli(double p) const;
  /*! \brief torch's diff and bitwise shifts (bodies in sdk/ops_bits.h). */
  Tensor diff(int64_t n = 1, int64_t dim = -1, const std::optional<Tensor>& prepend = {},
              const std::optional<Tensor>& append = {}) const;
  Tensor bitwise_left_shift(const Tensor& other) const;
  Tensor bitwise_left_shift(const Scalar& other) const;
  Tensor bitwise_right_shift(const Tensor& other) const;
  Tensor bitwise_right_shift(const Scalar& other) const;
  // ---- storage (sdk/storage.h; bodies in sdk/tensor_methods.h) -------------------------
  /*! \brief The memory this tensor and its views share; every defined tensor has one. */
  Storage storage() const;
  bool has_storage() const noexcept { return defined(); }
  /*! \brief Whether the two tensors view the same storage. */
  bool is_alias_of(const Tensor& other) const;
  /*! \brief View `source` from now on (sdk_tensor_set_storage_; stride {}: contiguous; no
   *  size: all of it, 1-d), or the storage and geometry of a tensor, or an empty storage. */
  const Tensor& set_(const Storage& source, int64_t storage_offset, IntArrayRef size,
                     IntArrayRef stride = {}) const;
  const Tensor& set_(const Storage& source) const;
  const Tensor& set_(const Tensor& source) const;
  const Tensor& set_() const;
  /*! \brief Fill with exponential samples of rate lambd (float dtypes). */
  const Tensor& exponential_(double lambd = 1) const;
  /*! \brief Write `source` at the flat (row-major) positions `index` (int64; negative counts
   *  from the end); accumulate adds instead. */
  const Tensor& put_(const Tensor& index, const Tensor& source, bool accumulate = false) const;
  Tensor put(const Tensor& index, const Tensor& source, bool accumulate = false) const;
  Tensor bincount(const std::optional<Tensor>& weights = {}, int64_t minlength = 0) const;
  Tensor histc(int64_t bins = 100, const Scalar& min = 0, const Scalar& max = 0) const;
  /*! \brief (values, indices): the most frequent value along dim (the smallest on ties). */
  std::tuple<Tensor, Tensor> mode(int64_t dim = -1, bool keepdim = false) const;
  Tensor cross(const Tensor& other, std::optional<int64_t> dim = std::nullopt) const;
  Tensor inverse() const;
  Tensor det() const;
  Tensor cholesky(bool upper = false) const;
  std::tuple<Tensor, Tensor> triangular_solve(const Tensor& A, bool upper = true,
                                              bool transpose = false,
                                              bool unitriangular = false) const;
  // torch's composite methods (aliases, splits, flips, small math): sdk/composite.h,
  // composite_math.h
#include "sdk/tensor_composite_decl.h"

 private:
  sdk_tensor* checked() const {
    if (SDK_UNLIKELY(!h_)) throw_undefined();
    return h_;
  }
  [[noreturn]] SDK_NOINLINE static void throw_undefined() {
    detail::throw_error(SDK_ERROR_RUNTIME, "called a method on an undefined sdk::Tensor");
  }
  int64_t wrap_dim(int64_t d, const char* what) const {
    int64_t n = sdk_tensor_ndim(checked());
    int64_t w = d < 0 ? d + n : d;
    if (SDK_UNLIKELY(w < 0 || w >= n)) throw_bad_dim(d, n, what);
    return w;
  }
  [[noreturn]] SDK_NOINLINE static void throw_bad_dim(int64_t d, int64_t n, const char* what) {
    detail::throw_error(SDK_ERROR_INDEX,
                        detail::concat(what, "(): dim ", d, " out of range for a ", n,
                                       "-d tensor (expected in [", -n, ", ", n - 1, "])"));
  }
  // The data pointer, or an sdk::Error for a meta tensor (the core gives NULL for one).
  void* data_or_throw(const char* what) const {
    void* p = sdk_tensor_data_ptr(checked());  // NULL for meta (and empty) tensors
    if (SDK_UNLIKELY(p == nullptr) && is_meta()) detail::throw_meta_data(what);
    return p;
  }
  void check_writable(const char* what) const;  // (bodies of these in sdk/tensor_methods.h)
  void check_dtype(ScalarType expected, const char* what) const {
    ScalarType actual = scalar_type();
    if (SDK_UNLIKELY(actual != expected)) throw_bad_dtype(expected, actual, what);
  }
  [[noreturn]] static void throw_bad_dtype(ScalarType expected, ScalarType actual,
                                           const char* what);
  void check_accessor(ScalarType expected, size_t n, const char* what, bool index32,
                      bool cpu_only) const;

  sdk_tensor* h_ = nullptr;
};

static_assert(sizeof(Tensor) == sizeof(sdk_tensor*) && std::is_standard_layout<Tensor>::value,
              "a Tensor array must be readable as an sdk_tensor* array");

}  // namespace sdk

#endif  // SDK_TENSOR_BASE_H_
