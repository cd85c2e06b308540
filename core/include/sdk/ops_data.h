// sdk/ops_data.h: creation, random, counting and searching ops with torch's names and
// arguments (logspace, scalar_tensor, randperm, bincount, histc, bucketize, searchsorted,
// unique, mode, put_, bernoulli_, exponential_, multinomial), composed from the rest of the C++
// API; and the bodies of the in-place geometry methods (squeeze_, unsqueeze_, transpose_,
// resize_as_), detach_ and new_tensor.
#ifndef SDK_OPS_DATA_H_
#define SDK_OPS_DATA_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "sdk/elementwise.h"
#include "sdk/math.h"
#include "sdk/ops.h"
#include "sdk/ops_struct.h"
#include "sdk/tensor_base.h"
#include "sdk/tensor_methods.h"

namespace sdk {
namespace detail {

// The largest n whose 0..n-1 a dtype holds exactly (randperm's bound).
inline double randperm_limit(ScalarType t) {
  switch (t) {
    case ScalarType::Byte:
      return 256;
    case ScalarType::Char:
      return 128;
    case ScalarType::Short:
      return 32768;
    case ScalarType::Int:
      return 2147483648.0;
    case ScalarType::Half:
      return 2049;
    case ScalarType::BFloat16:
      return 257;
    case ScalarType::Float:
      return 16777217.0;
    default:
      return 9.3e18;
  }
}

inline Tensor randperm_of(int64_t n, Tensor keys, const TensorOptions& options) {
  const ScalarType dtype = options.has_dtype() ? options.scalar_type() : kLong;
  SDK_CHECK_VALUE(n >= 0, "randperm: n must be non-negative, got ", n);
  SDK_CHECK_TYPE(dtype != kBool, "randperm: \"randperm\" not implemented for 'Bool'");
  SDK_CHECK_VALUE(static_cast<double>(n) <= randperm_limit(dtype), "randperm: n is too large (", n,
                  ") for result dtype ", dtype);
  Tensor perm = keys.argsort();  // stable, so ties still give a permutation
  return created(perm.to(TensorOptions(dtype).device(options.device())), options);
}

// An in-place view change: `self` takes the geometry of `view` (one of its views).
inline const Tensor& regeometry_(const Tensor& self, const Tensor& view, const char* op) {
  IntArrayRef sizes = view.sizes(), strides = view.strides();
  return finish_inplace(
      self,
      sdk_as_strided_(self.get(), len(sizes), sizes.data(), strides.data(), view.storage_offset()),
      op);
}

// The double CPU copy a random fill draws from, shaped like `self`.
inline Tensor uniform_like(const Tensor& self) {
  return rand(self.sizes(), TensorOptions(kDouble).device(self.device()));
}

// count(!(boundary >= x)) (right: !(boundary > x)) along the last dim of `boundaries`
// (..., M) for each x of `values` (..., K): a lower (upper) bound that puts NaN last.
inline Tensor count_below(const Tensor& boundaries, const Tensor& values, bool out_int32,
                          bool right) {
  Tensor b = boundaries.unsqueeze(-2), v = values.unsqueeze(-1);
  Tensor inside = right ? b.gt(v) : b.ge(v);
  Tensor r = inside.logical_not().sum({-1}, false, kLong);
  if (values.dim() == 0) r = r.reshape({});
  return out_int32 ? r.to(kInt) : r;
}

inline void check_search_args(const Tensor& seq, const Tensor& values, const char* op) {
  SDK_CHECK_TYPE(seq.scalar_type() != kBool && values.scalar_type() != kBool, op,
                 ": bool tensors are not supported (boundaries ", seq.scalar_type(), ", input ",
                 values.scalar_type(), ")");
  SDK_CHECK_VALUE(seq.device() == values.device(), op, ": boundaries on ", seq.device(),
                  " and input on ", values.device(), " must be on the same device");
}

}  // namespace detail

// ---- creation ------------------------------------------------------------------------
/*! \brief `steps` values base ** linspace(start, end, steps); float32 unless a dtype is given. */
inline Tensor logspace(const Scalar& start, const Scalar& end, int64_t steps, double base = 10.0,
                       const TensorOptions& options = {}) {
  SDK_CHECK_VALUE(steps >= 0, "logspace: number of steps must be non-negative, got ", steps);
  Tensor e = linspace(start.toDouble(), end.toDouble(), steps, TensorOptions(kDouble));
  Tensor r = full({}, base, TensorOptions(kDouble)).pow(e);
  return detail::created(r.to(TensorOptions(options.scalar_type()).device(options.device())),
                         options);
}
/*! \brief A 0-d tensor holding `s`: float32 unless a dtype is given (as torch). */
inline Tensor scalar_tensor(const Scalar& s, const TensorOptions& options = {}) {
  return full({}, s, options.has_dtype() ? options : options.dtype(kFloat));
}
/*! \brief A random permutation of 0..n-1; int64 unless a dtype is given. */
inline Tensor randperm(int64_t n, const TensorOptions& options = {}) {
  SDK_CHECK_VALUE(n >= 0, "randperm: n must be non-negative, got ", n);
  return detail::randperm_of(n, rand({n}, TensorOptions(kDouble)), options);
}
/*! \brief randperm drawing from `gen`. */
inline Tensor randperm(int64_t n, Generator& gen, const TensorOptions& options = {}) {
  SDK_CHECK_VALUE(n >= 0, "randperm: n must be non-negative, got ", n);
  return detail::randperm_of(n, rand({n}, gen, TensorOptions(kDouble)), options);
}

// ---- counting and searching ------------------------------------------------------------
/*! \brief Occurrences of each value 0..max of a 1-d non-negative integer tensor (at least
 *  minlength bins); with weights, their sums (float32 weights give float32, others float64). */
inline Tensor bincount(const Tensor& self, const std::optional<Tensor>& weights = {},
                       int64_t minlength = 0) {
  const char* bad = "bincount only supports 1-d non-negative integral inputs.";
  SDK_CHECK_TYPE(isIntegralType(self.scalar_type(), false), bad, " Got ", self.scalar_type());
  SDK_CHECK_VALUE(self.dim() == 1, bad, " Got a tensor of size ", self.sizes());
  SDK_CHECK_VALUE(minlength >= 0, "bincount: minlength should be >= 0, got ", minlength);
  const bool weighted = weights && weights->defined();
  SDK_CHECK_VALUE(!weighted || (weights->dim() == 1 && weights->size(0) == self.size(0)),
                  "bincount: weights should be 1-d and have the same length as input (",
                  self.size(0), "), got size ", weighted ? weights->sizes() : IntArrayRef());
  Tensor index = self.to(kLong);
  int64_t length = minlength;
  if (self.numel() > 0) {
    SDK_CHECK_VALUE(index.min().cpu().item<int64_t>() >= 0, bad, " Got a negative value");
    length = std::max(length, index.max().cpu().item<int64_t>() + 1);
  }
  const ScalarType out = !weighted ? kLong : weights->scalar_type() == kFloat ? kFloat : kDouble;
  Tensor src = weighted ? weights->to(out) : ones({self.size(0)}, index.options());
  return zeros({length}, src.options()).index_add_(0, index, src);
}
/*! \brief Histogram of `bins` equal bins over [min, max] (the data's range when min == max);
 *  values outside are ignored. Float dtypes, like torch. */
inline Tensor histc(const Tensor& self, int64_t bins = 100, const Scalar& min = 0,
                    const Scalar& max = 0) {
  SDK_CHECK_TYPE(self.is_floating_point(), "histc: \"histogram_cpu\" not implemented for '",
                 self.scalar_type(), "'");
  SDK_CHECK_VALUE(bins > 0, "histc: bins must be > 0, got ", bins);
  double lo = min.toDouble(), hi = max.toDouble();
  if (lo == hi && self.numel() > 0) {
    lo = self.min().cpu().item<double>();
    hi = self.max().cpu().item<double>();
  }
  if (lo == hi) {
    lo -= 1;
    hi += 1;
  }
  SDK_CHECK_VALUE(std::isfinite(lo) && std::isfinite(hi), "histc: range of [", lo, ", ", hi,
                  "] is not finite");
  SDK_CHECK_VALUE(lo < hi, "histc: max must be larger than min (min ", lo, ", max ", hi, ")");
  Tensor x = self.reshape({-1});
  Tensor kept = x.masked_select(x.ge(lo).logical_and(x.le(hi)));
  Tensor pos = kept.sub(lo).mul(static_cast<double>(bins)).div(hi - lo).floor();
  Tensor bin = pos.to(kLong);
  bin.clamp_max_(bins - 1);  // max itself lands in the last bin
  return zeros({bins}, self.options()).index_add_(0, bin, ones({kept.numel()}, self.options()));
}
/*! \brief For each value, the index of its bucket in the 1-d sorted `boundaries`: the
 *  number of boundaries below it (right: at or below it). int64, or int32 with out_int32. */
inline Tensor bucketize(const Tensor& self, const Tensor& boundaries, bool out_int32 = false,
                        bool right = false) {
  SDK_CHECK_VALUE(boundaries.dim() == 1, "bucketize: boundaries tensor must be 1 dimension, got ",
                  boundaries.dim(), "-d");
  detail::check_search_args(boundaries, self, "bucketize");
  return detail::count_below(boundaries, self, out_int32, right);
}
inline Tensor bucketize(const Scalar& self, const Tensor& boundaries, bool out_int32 = false,
                        bool right = false) {
  return bucketize(full({}, self, boundaries.options()), boundaries, out_int32, right);
}
/*! \brief Insertion points of `self` in the innermost dim of `sorted_sequence` (1-d, or with
 *  the same leading dims as self); side "left"/"right" overrides right; `sorter` sorts an
 *  unsorted sequence (as from argsort). */
inline Tensor searchsorted(const Tensor& sorted_sequence, const Tensor& self,
                           bool out_int32 = false, bool right = false,
                           std::optional<std::string_view> side = std::nullopt,
                           const std::optional<Tensor>& sorter = {}) {
  if (side) {
    SDK_CHECK_VALUE(*side == "left" || *side == "right",
                    "searchsorted: side can only be 'left' or 'right' but got '",
                    std::string(*side), "'");
    SDK_CHECK_VALUE(!(right && *side == "left"),
                    "searchsorted: side and right can't be set to opposites, got side of left "
                    "while right was True");
    right = *side == "right";
  }
  detail::check_search_args(sorted_sequence, self, "searchsorted");
  Tensor seq = sorted_sequence;
  if (sorter && sorter->defined()) {
    SDK_CHECK_VALUE(sorter->sizes() == seq.sizes(),
                    "searchsorted: boundary and sorter must have the same size, got ", seq.sizes(),
                    " and ", sorter->sizes());
    seq = seq.gather(-1, *sorter);
  }
  if (seq.dim() <= 1) {
    SDK_CHECK_VALUE(seq.dim() == 1,
                    "searchsorted: boundaries tensor should be 1 dimension or the "
                    "first N-1 dimensions of boundaries tensor and input value tensor must match");
    return detail::count_below(seq, self, out_int32, right);
  }
  bool match = self.dim() == seq.dim();
  for (int64_t d = 0; match && d + 1 < seq.dim(); ++d) match = seq.size(d) == self.size(d);
  SDK_CHECK_VALUE(match,
                  "searchsorted: boundaries tensor should be 1 dimension or the first N-1 "
                  "dimensions of boundaries tensor and input value tensor must match, but we got "
                  "boundaries tensor ",
                  seq.sizes(), " and input value tensor ", self.sizes());
  return detail::count_below(seq, self, out_int32, right);
}
inline Tensor searchsorted(const Tensor& sorted_sequence, const Scalar& self,
                           bool out_int32 = false, bool right = false,
                           std::optional<std::string_view> side = std::nullopt,
                           const std::optional<Tensor>& sorter = {}) {
  SDK_CHECK_VALUE(sorted_sequence.dim() == 1,
                  "searchsorted: input value can be a scalar only when boundaries tensor "
                  "dimension is 1, but we got boundaries tensor dim(",
                  sorted_sequence.dim(), ")");
  Tensor v = full({}, self, sorted_sequence.options());
  return searchsorted(sorted_sequence, v, out_int32, right, side, sorter);
}
/*! \brief `num_samples` int64 indices drawn from each row of the non-negative weights
 *  `self` (1-D, or 2-D: one draw per row), as torch::multinomial. With replacement: inverse
 *  transform sampling of the row's cumulative weights; without: the indices of the largest
 *  w / e with e ~ Exp(1) (a draw without replacement in proportion to w; as in torch, zero
 *  weights come last when the others are too few). */
inline Tensor multinomial(const Tensor& self, int64_t num_samples, bool replacement = false) {
  SDK_CHECK_VALUE(self.dim() == 1 || self.dim() == 2,
                  "multinomial: prob_dist must be 1 or 2 dim, got ", self.dim());
  SDK_CHECK_TYPE(
      self.is_floating_point(),
      "multinomial only supports floating-point dtypes for input, got: ", self.scalar_type());
  SDK_CHECK_VALUE(num_samples > 0, "multinomial: cannot sample n_sample <= 0 samples");
  const int64_t n = self.size(-1);
  SDK_CHECK_VALUE(n > 0 && self.numel() > 0,
                  "multinomial: cannot sample from an empty distribution (shape ", self.sizes(),
                  ")");
  SDK_CHECK_VALUE(replacement || num_samples <= n,
                  "multinomial: cannot sample n_sample > prob_dist.size(-1) samples without "
                  "replacement (n_sample = ",
                  num_samples, ", prob_dist.size(-1) = ", n, ")");
  Tensor w = (self.dim() == 1 ? self.unsqueeze(0) : self).to(kDouble);
  SDK_CHECK_VALUE(w.isfinite().all().cpu().item<bool>() && w.ge(0).all().cpu().item<bool>(),
                  "multinomial: probability tensor contains either `inf`, `nan` or element < 0");
  Tensor total = w.sum(-1, true);
  SDK_CHECK_VALUE(total.gt(0).all().cpu().item<bool>(),
                  "multinomial: invalid multinomial distribution (sum of probabilities <= 0)");
  Tensor out;
  if (replacement) {
    Tensor cdf = w.cumsum(-1).div(total);
    Tensor u = rand({w.size(0), num_samples}, TensorOptions(kDouble).device(w.device()));
    out = searchsorted(cdf, u, false, true).clamp_max(n - 1);
  } else {
    Tensor e = empty_like(w);
    e.exponential_(1.0);
    out = std::get<1>(w.div(e).topk(num_samples, -1, true, true));
  }
  return self.dim() == 1 ? out.squeeze(0) : out;
}
/*! \brief (output, inverse_indices, counts) of the distinct elements, as torch.unique (and
 *  at::_unique2): output is sorted (also for sorted=false, which allows any order); the
 *  inverse indices (shaped like self) and counts are empty int64 tensors unless asked for. */
inline std::tuple<Tensor, Tensor, Tensor> unique(const Tensor& self, bool sorted = true,
                                                 bool return_inverse = false,
                                                 bool return_counts = false) {
  (void)sorted;
  Tensor flat = self.reshape({-1});
  const int64_t n = flat.numel();
  Tensor values, order;
  std::tie(values, order) = flat.sort(std::optional<bool>(true), 0);
  Tensor fresh = ones({n}, TensorOptions(kBool).device(self.device()));
  if (n > 1) fresh.slice(0, 1).copy_(values.slice(0, 1).ne(values.slice(0, 0, n - 1)));
  Tensor output = values.masked_select(fresh);
  Tensor none = empty({0}, TensorOptions(kLong).device(self.device()));
  Tensor group = fresh.cumsum(0, kLong).sub(1);
  Tensor inverse = none, counts = none;
  if (return_inverse) {
    inverse = empty({n}, group.options()).scatter_(0, order, group).view(self.sizes());
  }
  if (return_counts) {
    counts = zeros({output.numel()}, group.options()).index_add_(0, group, ones_like(group));
  }
  return std::make_tuple(output, inverse, counts);
}
/*! \brief (values, indices) of the most frequent value along dim: the smallest of equally
 *  frequent ones, and the last index where it occurs. */
inline std::tuple<Tensor, Tensor> mode(const Tensor& self, int64_t dim = -1, bool keepdim = false) {
  const bool scalar = self.dim() == 0;
  Tensor x = scalar ? self.reshape({1}) : self;
  const int64_t n = x.dim(), d = dim < 0 ? dim + n : dim;
  SDK_CHECK_INDEX(d >= 0 && d < n, "mode: dim ", dim, " out of range for a ", self.dim(),
                  "-d tensor");
  const int64_t len = x.size(d);
  SDK_CHECK_INDEX(len > 0, "mode(): Expected reduction dim ", d, " to have non-zero size.");
  Tensor values, order;
  std::tie(values, order) = x.movedim(d, -1).sort(std::optional<bool>(true), -1);
  const int64_t rows = values.numel() / len;
  std::vector<int64_t> shape(values.sizes().begin(), values.sizes().end());
  shape.back() = 1;
  Tensor pick = zeros(shape, kLong);
  int64_t* at = pick.data_ptr<int64_t>();
  if (len > 1) {
    // same[r, i]: sorted element i + 1 equals element i; the longest run wins (the first of
    // equally long ones: the smallest value), reported by its last sorted position.
    Tensor same = values.slice(-1, 1).eq(values.slice(-1, 0, len - 1)).cpu().contiguous();
    const bool* s = same.data_ptr<bool>();
    for (int64_t r = 0; r < rows; ++r) {
      int64_t best = 0, best_at = 0, run = 1;
      for (int64_t i = 0; i < len; ++i) {
        if (i == len - 1 || !s[r * (len - 1) + i]) {
          if (run > best) {
            best = run;
            best_at = i;
          }
          run = 1;
        } else {
          ++run;
        }
      }
      at[r] = best_at;
    }
  }
  pick = pick.to(values.device());
  Tensor v = values.gather(-1, pick).movedim(-1, d), i = order.gather(-1, pick).movedim(-1, d);
  if (scalar) return std::make_tuple(v.reshape({}), i.reshape({}));
  if (!keepdim) return std::make_tuple(v.squeeze(d), i.squeeze(d));
  return std::make_tuple(v, i);
}

// ---- torch::tensor: a tensor from C++ values --------------------------------------------
namespace detail {
// The values staged in int64 / float64 / bool, then cast to `options`' dtype or torch's
// default for the kind (int64, float32, bool).
template <typename T, typename It>
Tensor tensor_from_values(It first, size_t n, IntArrayRef shape, const TensorOptions& options) {
  static_assert(std::is_arithmetic<T>::value, "sdk::tensor: elements must be numbers or bools");
  using Staged =
      std::conditional_t<std::is_same<T, bool>::value, bool,
                         std::conditional_t<std::is_integral<T>::value, int64_t, double>>;
  constexpr ScalarType fallback = std::is_same<T, bool>::value ? kBool
                                  : std::is_integral<T>::value ? kLong
                                                               : kFloat;
  Tensor staged = empty(shape, CppTypeToScalarType<Staged>::value);
  Staged* p = staged.data_ptr<Staged>();
  for (size_t i = 0; i < n; ++i, ++first) p[i] = static_cast<Staged>(*first);
  const ScalarType dtype = options.has_dtype() ? options.scalar_type() : fallback;
  TensorOptions target = TensorOptions(dtype);
  if (options.has_device()) target = target.device(options.device());
  return created(staged.to(target), options);
}
}  // namespace detail

/*! \brief A 1-d tensor of `values` (torch::tensor({1, 2})): int64 for integers, float32 for
 *  floating values, bool for bools, unless `options` names a dtype. */
template <typename T>
inline Tensor tensor(std::initializer_list<T> values, const TensorOptions& options = {}) {
  return detail::tensor_from_values<T>(values.begin(), values.size(),
                                       {static_cast<int64_t>(values.size())}, options);
}
template <typename T>
inline Tensor tensor(const std::vector<T>& values, const TensorOptions& options = {}) {
  return detail::tensor_from_values<T>(values.begin(), values.size(),
                                       {static_cast<int64_t>(values.size())}, options);
}
template <typename T>
inline Tensor tensor(ArrayRef<T> values, const TensorOptions& options = {}) {
  return detail::tensor_from_values<T>(values.begin(), values.size(),
                                       {static_cast<int64_t>(values.size())}, options);
}
/*! \brief A 0-d tensor holding `value`. */
template <typename T, std::enable_if_t<std::is_arithmetic<T>::value, int> = 0>
inline Tensor tensor(T value, const TensorOptions& options = {}) {
  return detail::tensor_from_values<T>(&value, 1, {}, options);
}

// ---- method bodies ---------------------------------------------------------------------
template <typename T>
inline Tensor Tensor::new_tensor(const std::vector<T>& data, const TensorOptions& options) const {
  const TensorOptions o = options.merged_with(this->options());
  Tensor t = empty({static_cast<int64_t>(data.size())}, CppTypeToScalarType<T>::value);
  T* p = t.data_ptr<T>();  // element by element: std::vector<bool> has no data()
  for (size_t i = 0; i < data.size(); ++i) p[i] = data[i];
  return detail::created(t.to(TensorOptions(o.scalar_type()).device(o.device())), options);
}
inline const Tensor& Tensor::resize_as_(const Tensor& the_template,
                                        std::optional<MemoryFormat> memory_format) const {
  SDK_CHECK_VALUE(!memory_format || *memory_format == MemoryFormat::Contiguous ||
                      *memory_format == MemoryFormat::Preserve,
                  "resize_as_: sdk has no channels-last memory format");
  return resize_(the_template.sizes());
}
inline const Tensor& Tensor::squeeze_() const {
  return detail::regeometry_(*this, squeeze(), "squeeze_");
}
inline const Tensor& Tensor::squeeze_(int64_t dim) const {
  return detail::regeometry_(*this, squeeze(dim), "squeeze_");
}
inline const Tensor& Tensor::squeeze_(IntArrayRef dim) const {
  return detail::regeometry_(*this, squeeze(dim), "squeeze_");
}
inline const Tensor& Tensor::unsqueeze_(int64_t dim) const {
  return detail::regeometry_(*this, unsqueeze(dim), "unsqueeze_");
}
inline const Tensor& Tensor::transpose_(int64_t dim0, int64_t dim1) const {
  return detail::regeometry_(*this, transpose(dim0, dim1), "transpose_");
}
inline const Tensor& Tensor::t_() const {
  SDK_CHECK_VALUE(dim() <= 2, "t_() expects a tensor with <= 2 dimensions, but self is ", dim(),
                  "D");
  return dim() < 2 ? *this : transpose_(0, 1);
}
inline const Tensor& Tensor::as_strided_(IntArrayRef sizes, IntArrayRef strides,
                                         std::optional<int64_t> storage_offset) const {
  return detail::regeometry_(*this, as_strided(sizes, strides, storage_offset), "as_strided_");
}
inline const Tensor& Tensor::detach_() const {
  SDK_CHECK_NOT_IMPLEMENTED(is_leaf(),
                            "detach_: the C ABI cannot cut a recorded result out of the graph in "
                            "place; use detach(), which returns a view outside it");
  if (requires_grad()) set_requires_grad(false);
  return *this;
}
inline Tensor Tensor::bernoulli() const {
  Tensor r = empty_like(*this);
  r.bernoulli_(*this);
  return r;
}
inline Tensor Tensor::bernoulli(double p) const {
  Tensor r = empty_like(*this);
  r.bernoulli_(p);
  return r;
}
/*! \brief 0/1 draws with `self`'s elements as probabilities (torch::bernoulli). */
inline Tensor bernoulli(const Tensor& self) { return self.bernoulli(); }
inline Tensor bernoulli(const Tensor& self, double p) { return self.bernoulli(p); }
inline const Tensor& Tensor::bernoulli_(double p) const {
  SDK_CHECK_VALUE(p >= 0 && p <= 1, "bernoulli_ expects p to be in [0, 1], but got p=", p);
  return copy_(detail::uniform_like(*this).lt(p));
}
inline const Tensor& Tensor::bernoulli_(const Tensor& p) const {
  SDK_CHECK_TYPE(p.is_floating_point(), "bernoulli_: expected a floating point p, got ",
                 p.scalar_type());
  SDK_CHECK_VALUE(
      p.numel() == 0 || (p.ge(0).all().cpu().item<bool>() && p.le(1).all().cpu().item<bool>()),
      "bernoulli_: all elements of p must be in [0, 1]");
  return copy_(detail::uniform_like(*this).lt(p.to(kDouble)));
}
inline const Tensor& Tensor::exponential_(double lambd) const {
  SDK_CHECK_TYPE(is_floating_point(), "exponential_: expected a floating point tensor, got ",
                 scalar_type());
  SDK_CHECK_VALUE(lambd > 0, "exponential_ expects lambda > 0.0, but found lambda=", lambd);
  return copy_(detail::uniform_like(*this).neg().log1p().neg().div(lambd));
}
inline const Tensor& Tensor::put_(const Tensor& index, const Tensor& source,
                                  bool accumulate) const {
  SDK_CHECK_TYPE(index.scalar_type() == kLong, "put_(): Expected a long tensor for index, but got ",
                 index.scalar_type());
  SDK_CHECK_TYPE(source.scalar_type() == scalar_type(),
                 "put_(): self and source expected to have the same dtype, but got self.dtype = ",
                 scalar_type(), " and source.dtype = ", source.scalar_type());
  SDK_CHECK_VALUE(index.numel() == source.numel(),
                  "put_(): Expected source and index to have the same number of elements, but got "
                  "source.numel() = ",
                  source.numel(), ", index.numel() = ", index.numel());
  const int64_t n = numel();
  Tensor flat = index.reshape({-1});
  flat = sdk::where(flat.lt(0), flat + n, flat);
  if (flat.numel() == 0) return *this;
  SDK_CHECK_INDEX(flat.min().cpu().item<int64_t>() >= 0 && flat.max().cpu().item<int64_t>() < n,
                  "put_(): index out of range for a tensor of ", n, " elements");
  Tensor target = dim() == 0 ? unsqueeze(0) : *this;  // a view: writes land in self
  std::vector<Tensor> at;
  int64_t inner = 1;
  for (int64_t d = target.dim() - 1; d >= 0; --d) {
    at.insert(at.begin(), flat.div(inner, "floor").remainder(target.size(d)));
    inner *= target.size(d);
  }
  target.index_put_(at, source.reshape({-1}), accumulate);
  return *this;
}
inline Tensor Tensor::put(const Tensor& index, const Tensor& source, bool accumulate) const {
  Tensor r = clone();
  r.put_(index, source, accumulate);
  return r;
}
inline Tensor Tensor::bincount(const std::optional<Tensor>& weights, int64_t minlength) const {
  return sdk::bincount(*this, weights, minlength);
}
inline Tensor Tensor::histc(int64_t bins, const Scalar& min, const Scalar& max) const {
  return sdk::histc(*this, bins, min, max);
}
inline std::tuple<Tensor, Tensor> Tensor::mode(int64_t dim, bool keepdim) const {
  return sdk::mode(*this, dim, keepdim);
}

}  // namespace sdk

#endif  // SDK_OPS_DATA_H_
