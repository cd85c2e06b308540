// core/src/kernel_util.h: shared helpers of the reduction, linalg, join and index kernels.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "dtype.h"
#include "parallel.h"
#include "tensor_impl.h"

namespace sdk::detail::k2 {

using Shape = std::vector<int64_t>;

inline std::string vec_str(const Shape& s) { return sizes_str(int64_t(s.size()), s.data()); }
inline Shape shape_of(const TensorImpl& t) { return Shape(t.sizes, t.sizes + t.ndim); }
inline const char* dname(sdk_dtype d) {
  const char* n = dtype_name(d);
  return n ? n : "?";
}

// torch's casting rule for out=: no float -> integral, no non-bool -> bool.
inline bool can_cast(sdk_dtype from, sdk_dtype to) {
  if (is_floating(from) && !is_floating(to)) return false;
  if (from != SDK_BOOL && to == SDK_BOOL) return false;
  return true;
}

inline void check_cpu(const TensorImpl& t, const char* op, const char* arg) {
  SDK_REQUIRE(t.device().type == SDK_CPU, SDK_ERROR_NOT_IMPLEMENTED, op, ": argument '", arg,
              "' is on a CUDA device; only CPU tensors are supported");
}

// Convert one element between C++ element types (halves go through float).
template <typename To, typename From>
inline To convert(From v) {
  using M = typename OpMath<From>::type;
  if constexpr (std::is_same_v<To, From>) {
    return v;
  } else if constexpr (std::is_same_v<To, bool>) {
    return static_cast<M>(v) != M(0);
  } else if constexpr (std::is_same_v<To, Half> || std::is_same_v<To, BFloat16>) {
    return To(static_cast<float>(static_cast<M>(v)));
  } else {
    return static_cast<To>(static_cast<M>(v));
  }
}

// Walk every element of an N-d shape for K operands with their own strides
// (in bytes). fn(ptrs[K], n_inner, inner_strides[K]) handles one run of the
// innermost dim. Dims are coalesced first.
template <int K, typename F>
void nd_loop(int64_t ndim, const int64_t* sizes, const int64_t* const* byte_strides,
             char* const* bases, const F& fn) {
  // Coalesce: drop size-1 dims and merge dims that are contiguous for every operand.
  std::vector<int64_t> sz;
  std::vector<std::array<int64_t, K>> st;
  for (int64_t d = 0; d < ndim; ++d) {
    if (sizes[d] == 0) return;
    if (sizes[d] == 1) continue;
    std::array<int64_t, K> s;
    for (int k = 0; k < K; ++k) s[k] = byte_strides[k][d];
    if (!sz.empty()) {
      bool merge = true;
      for (int k = 0; k < K; ++k) merge = merge && st.back()[k] == s[k] * sizes[d];
      if (merge) {
        sz.back() *= sizes[d];
        st.back() = s;
        continue;
      }
    }
    sz.push_back(sizes[d]);
    st.push_back(s);
  }
  char* p[K];
  for (int k = 0; k < K; ++k) p[k] = bases[k];
  if (sz.empty()) {
    int64_t zero[K] = {};
    fn(p, int64_t(1), zero);
    return;
  }
  int64_t nd = int64_t(sz.size());
  int64_t inner = sz.back();
  int64_t inner_st[K];
  for (int k = 0; k < K; ++k) inner_st[k] = st.back()[k];
  std::vector<int64_t> idx(nd, 0);
  while (true) {
    fn(p, inner, inner_st);
    int64_t d = nd - 2;
    for (; d >= 0; --d) {
      if (++idx[d] < sz[d]) {
        for (int k = 0; k < K; ++k) p[k] += st[d][k];
        break;
      }
      for (int k = 0; k < K; ++k) p[k] -= st[d][k] * (sz[d] - 1);
      idx[d] = 0;
    }
    if (d < 0) return;
  }
}

// Strides in bytes of t.
inline Shape byte_strides(const TensorImpl& t) {
  Shape s(t.ndim);
  int64_t isz = t.itemsize();
  for (int64_t d = 0; d < t.ndim; ++d) s[d] = t.strides[d] * isz;
  return s;
}

template <typename To, typename From>
void cast_copy_typed(const TensorImpl& src, TensorImpl& dst) {
  Shape ss = byte_strides(src), ds = byte_strides(dst);
  const int64_t* strides[2] = {ds.data(), ss.data()};
  char* bases[2] = {static_cast<char*>(dst.data()), static_cast<char*>(src.data())};
  nd_loop<2>(dst.ndim, dst.sizes, strides, bases, [](char* const* p, int64_t n, const int64_t* st) {
    if (std::is_same_v<To, From> && st[0] == int64_t(sizeof(To)) &&
        st[1] == int64_t(sizeof(From))) {
      std::memcpy(p[0], p[1], size_t(n) * sizeof(To));
      return;
    }
    char* d = p[0];
    const char* s = p[1];
    for (int64_t i = 0; i < n; ++i) {
      *reinterpret_cast<To*>(d + i * st[0]) =
          convert<To>(*reinterpret_cast<const From*>(s + i * st[1]));
    }
  });
}

// dst[...] = cast(src[...]); same shape, any strides and dtypes. Does not bump versions.
inline void cast_copy(const TensorImpl& src, TensorImpl& dst) {
  SDK_DISPATCH_ALL(dst.dtype, "copy", [&] {
    using To = scalar_t;
    SDK_DISPATCH_ALL(src.dtype, "copy", [&] { cast_copy_typed<To, scalar_t>(src, dst); });
  });
}

// A contiguous tensor holding t (t itself when already contiguous).
inline Ref contiguous(const TensorImpl& t) {
  if (t.contiguous) {
    const_cast<TensorImpl&>(t).retain();
    return Ref(const_cast<TensorImpl*>(&t));
  }
  Ref r = make_tensor(t.ndim, t.sizes, t.dtype, t.device());
  cast_copy(t, *r);
  return r;
}

// t cast to dtype (t itself when it already has it), contiguous if `contig`.
inline Ref to_dtype(const TensorImpl& t, sdk_dtype dtype, bool contig) {
  if (t.dtype == dtype && (!contig || t.contiguous)) {
    const_cast<TensorImpl&>(t).retain();
    return Ref(const_cast<TensorImpl*>(&t));
  }
  Ref r = make_tensor(t.ndim, t.sizes, dtype, t.device());
  cast_copy(t, *r);
  return r;
}

// Check that `out` can receive a result of this shape and dtype.
inline void check_out(const TensorImpl& o, const Shape& shape, sdk_dtype dtype, const char* op) {
  check_cpu(o, op, "out");
  SDK_VALUE_CHECK(shape_of(o) == shape, op, ": out has shape ", shape_str(o),
                  " but the result has shape ", vec_str(shape));
  SDK_TYPE_CHECK(can_cast(dtype, o.dtype), op, ": result type ", dname(dtype),
                 " can't be cast to the desired output type ", dname(o.dtype));
}

// Deliver `res` through the out= convention: with `out`, check shape and
// casting, copy into it and bump its version; returns the tensor to hand back.
inline Ref finish_out(Ref res, sdk_tensor* out, const char* op) {
  if (!out) return res;
  TensorImpl& o = *to_impl(out);
  if (res.get() != &o) {
    check_out(o, shape_of(*res), res->dtype, op);
    cast_copy(*res, o);
  }
  o.bump_version();
  return Ref::borrow(out);
}

// Parse the dims argument into a mask over x's dims.
inline std::vector<bool> dims_mask(const TensorImpl& x, int64_t ndims, const int64_t* dims,
                                   const char* op) {
  std::vector<bool> mask(x.ndim, dims == nullptr || ndims == 0);
  if (dims == nullptr || ndims == 0) return mask;
  SDK_VALUE_CHECK(ndims > 0, op, ": ndims must be >= 0, got ", ndims);
  std::vector<bool> seen(std::max<int64_t>(x.ndim, 1), false);
  for (int64_t i = 0; i < ndims; ++i) {
    int64_t d = wrap_dim(dims[i], x.ndim, op);
    SDK_VALUE_CHECK(!seen[d], op, ": dim ", dims[i], " appears multiple times in the list of dims");
    seen[d] = true;
    if (x.ndim > 0) mask[d] = true;
  }
  return mask;
}

}  // namespace sdk::detail::k2
