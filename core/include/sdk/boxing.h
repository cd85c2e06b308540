// sdk/boxing.h: how an op's C++ argument and result types convert from and to the boxed
// values of a call (sdk_values), and the schema type each one has: what sdk/library.h's
// kernels, inferred schemas and typed calls are built on. A new schema type adds its Box here.
#ifndef SDK_BOXING_H_
#define SDK_BOXING_H_

#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "sdk/tensor.h"

namespace sdk {

namespace detail {

// ---- boxing: how a C++ type is read from and written to sdk_values -------------------

// Box<T> (T a decayed type): `Stored`, what a kernel argument is read into and kept alive
// in during the call (passed on as itself, or as a view over it: ArrayRef over a vector);
// read() and push() between it and the values; schema(), its schema type.
template <typename T, typename = void>
struct BoxImpl {
  static_assert(sizeof(T) == 0,
                "this C++ type cannot be an operator argument or result: use sdk::Tensor, "
                "int64_t, double, bool, std::string, sdk::Scalar, sdk::ScalarType, sdk::Device, "
                "std::optional<...> of these, std::vector<...> / ArrayRef of int64_t, double, "
                "bool or Tensor, std::vector<...> of a list or a str (int[][], str[]), or "
                "std::tuple<...> of results");
};

template <typename T>
struct Box : BoxImpl<T> {};

inline void check(sdk_status st, const char* what) { check_status(st, what); }

template <>
struct Box<Tensor> {
  using Stored = Tensor;
  static const char* schema() { return "Tensor"; }
  // A kernel's argument is moved out of the values it is about to replace (no retain).
  static Stored read(const sdk_values* v, int64_t i) {
    sdk_tensor* h = nullptr;
    check(sdk_values_take_tensor(const_cast<sdk_values*>(v), i, &h), "reading a Tensor argument");
    return Tensor::steal(h);
  }
  static void push(sdk_values* v, const Tensor& t) {
    check(sdk_values_push_tensor(v, t.get()), "returning a Tensor");
  }
  static void push(sdk_values* v, Tensor&& t) {
    check(sdk_values_push_tensor_steal(v, t.release()), "returning a Tensor");
  }
};

template <typename I>
struct IntBox {
  using Stored = I;
  static const char* schema() { return "int"; }
  static Stored read(const sdk_values* v, int64_t i) {
    int64_t x = 0;
    check(sdk_values_get_int(v, i, &x), "reading an int argument");
    return static_cast<I>(x);
  }
  static void push(sdk_values* v, I x) {
    check(sdk_values_push_int(v, static_cast<int64_t>(x)), "returning an int");
  }
};
template <typename I>  // every integer type but bool: int, int64_t, long long, ...
struct BoxImpl<I, std::enable_if_t<std::is_integral_v<I> && !std::is_same_v<I, bool>>> : IntBox<I> {
};

template <>
struct Box<double> {
  using Stored = double;
  static const char* schema() { return "float"; }
  static Stored read(const sdk_values* v, int64_t i) {
    double x = 0;
    check(sdk_values_get_float(v, i, &x), "reading a float argument");
    return x;
  }
  static void push(sdk_values* v, double x) {
    check(sdk_values_push_float(v, x), "returning a float");
  }
};

template <>
struct Box<bool> {
  using Stored = bool;
  static const char* schema() { return "bool"; }
  static Stored read(const sdk_values* v, int64_t i) {
    int32_t x = 0;
    check(sdk_values_get_bool(v, i, &x), "reading a bool argument");
    return x != 0;
  }
  static void push(sdk_values* v, bool x) { check(sdk_values_push_bool(v, x), "returning a bool"); }
};

template <>
struct Box<std::string> {
  using Stored = std::string;
  static const char* schema() { return "str"; }
  static Stored read(const sdk_values* v, int64_t i) {
    const char* d = nullptr;
    int64_t n = 0;
    check(sdk_values_get_string(v, i, &d, &n), "reading a str argument");
    return std::string(d, static_cast<size_t>(n));
  }
  static void push(sdk_values* v, const std::string& s) {
    check(sdk_values_push_string(v, s.data(), static_cast<int64_t>(s.size())), "returning a str");
  }
};

template <>
struct Box<std::string_view> {
  using Stored = std::string_view;  // points into the call's values
  static const char* schema() { return "str"; }
  static Stored read(const sdk_values* v, int64_t i) {
    const char* d = nullptr;
    int64_t n = 0;
    check(sdk_values_get_string(v, i, &d, &n), "reading a str argument");
    return std::string_view(d, static_cast<size_t>(n));
  }
  static void push(sdk_values* v, std::string_view s) {
    check(sdk_values_push_string(v, s.data(), static_cast<int64_t>(s.size())), "returning a str");
  }
};

template <>
struct Box<Scalar> {
  using Stored = Scalar;
  static const char* schema() { return "Scalar"; }
  static Stored read(const sdk_values* v, int64_t i) {
    sdk_scalar s{};
    check(sdk_values_get_scalar(v, i, &s), "reading a Scalar argument");
    return Scalar(s);
  }
  static void push(sdk_values* v, const Scalar& s) {
    if (s.isFloatingPoint()) {
      check(sdk_values_push_float(v, s.toDouble()), "returning a Scalar");
    } else if (s.isBoolean()) {
      check(sdk_values_push_bool(v, s.toLong() != 0), "returning a Scalar");
    } else {
      check(sdk_values_push_int(v, s.toLong()), "returning a Scalar");
    }
  }
};

/*! \brief A SymInt argument or result (schema SymInt) is an int: sizes are concrete here. */
template <>
struct Box<SymInt> : IntBox<SymInt> {
  static const char* schema() { return "SymInt"; }
  static void push(sdk_values* v, SymInt x) { IntBox<SymInt>::push(v, x); }
};

template <>
struct Box<ScalarType> {
  using Stored = ScalarType;
  static const char* schema() { return "ScalarType"; }
  static Stored read(const sdk_values* v, int64_t i) {
    int32_t d = 0;
    check(sdk_values_get_scalar_type(v, i, &d), "reading a ScalarType argument");
    return static_cast<ScalarType>(d);
  }
  static void push(sdk_values* v, ScalarType d) {
    check(sdk_values_push_scalar_type(v, static_cast<int32_t>(d)), "returning a ScalarType");
  }
};

template <>
struct Box<Device> {
  using Stored = Device;
  static const char* schema() { return "Device"; }
  static Stored read(const sdk_values* v, int64_t i) {
    sdk_device d{};
    check(sdk_values_get_device(v, i, &d), "reading a Device argument");
    return Device::from_c(d);
  }
  static void push(sdk_values* v, const Device& d) {
    check(sdk_values_push_device(v, d.to_c()), "returning a Device");
  }
};

template <typename T>
struct Box<std::optional<T>> {
  using Stored = std::optional<typename Box<T>::Stored>;
  static std::string schema() { return std::string(Box<T>::schema()) + "?"; }
  static Stored read(const sdk_values* v, int64_t i) {
    if (sdk_values_tag(v, i) == SDK_VALUE_NONE) return std::nullopt;
    return Box<T>::read(v, i);
  }
  static void push(sdk_values* v, const std::optional<T>& x) {
    if (x) {
      Box<T>::push(v, *x);
    } else {
      check(sdk_values_push_none(v), "returning None");
    }
  }
};

// Lists of numbers: read as a view into the call's values (ArrayRef) or as a copy (vector).
template <typename E>
struct NumberList;
template <>
struct NumberList<int64_t> {
  static const char* schema() { return "int[]"; }
  static ArrayRef<int64_t> view(const sdk_values* v, int64_t i) {
    const int64_t* d = nullptr;
    int64_t n = 0;
    check(sdk_values_get_int_list(v, i, &d, &n), "reading an int[] argument");
    return ArrayRef<int64_t>(d, static_cast<size_t>(n));
  }
  static void push(sdk_values* v, const int64_t* d, size_t n) {
    check(sdk_values_push_int_list(v, d, static_cast<int64_t>(n)), "returning an int[]");
  }
};
template <>
struct NumberList<double> {
  static const char* schema() { return "float[]"; }
  static ArrayRef<double> view(const sdk_values* v, int64_t i) {
    const double* d = nullptr;
    int64_t n = 0;
    check(sdk_values_get_float_list(v, i, &d, &n), "reading a float[] argument");
    return ArrayRef<double>(d, static_cast<size_t>(n));
  }
  static void push(sdk_values* v, const double* d, size_t n) {
    check(sdk_values_push_float_list(v, d, static_cast<int64_t>(n)), "returning a float[]");
  }
};

template <typename E>
struct Box<ArrayRef<E>> {
  using Stored = ArrayRef<E>;
  static const char* schema() { return NumberList<E>::schema(); }
  static Stored read(const sdk_values* v, int64_t i) { return NumberList<E>::view(v, i); }
  static void push(sdk_values* v, ArrayRef<E> x) { NumberList<E>::push(v, x.data(), x.size()); }
};

template <typename E>
struct NumberVector {
  using Stored = std::vector<E>;
  static const char* schema() { return NumberList<E>::schema(); }
  static Stored read(const sdk_values* v, int64_t i) {
    ArrayRef<E> a = NumberList<E>::view(v, i);
    return Stored(a.begin(), a.end());
  }
  static void push(sdk_values* v, const Stored& x) { NumberList<E>::push(v, x.data(), x.size()); }
};
template <>
struct Box<std::vector<int64_t>> : NumberVector<int64_t> {};
template <>
struct Box<std::vector<double>> : NumberVector<double> {};

// Any other list (of lists: int[][], float[][], Tensor[][], int[][][]; of strs: str[]) is a
// LIST value whose items each box as E: a new list type needs no Box of its own.
template <typename E>
struct Box<std::vector<E>> {
  static_assert(!std::is_arithmetic_v<E>,
                "a list of numbers is std::vector<int64_t>, std::vector<double> or "
                "std::vector<bool> (int[], float[], bool[])");
  using Stored = std::vector<E>;
  static std::string schema() { return std::string(Box<E>::schema()) + "[]"; }
  static Stored read(const sdk_values* v, int64_t i) {
    const sdk_values* items = nullptr;
    check(sdk_values_get_list(v, i, &items), "reading a list argument");
    Stored out;
    out.reserve(static_cast<size_t>(sdk_values_size(items)));
    for (int64_t k = 0; k < sdk_values_size(items); ++k) out.push_back(E(Box<E>::read(items, k)));
    return out;
  }
  static void push(sdk_values* v, const Stored& x) {
    for (const E& item : x) Box<E>::push(v, item);
    check(sdk_values_push_list(v, static_cast<int64_t>(x.size())), "returning a list");
  }
};

template <>
struct Box<std::vector<bool>> {
  using Stored = std::vector<bool>;
  static const char* schema() { return "bool[]"; }
  static Stored read(const sdk_values* v, int64_t i) {
    const int32_t* d = nullptr;
    int64_t n = 0;
    check(sdk_values_get_bool_list(v, i, &d, &n), "reading a bool[] argument");
    return Stored(d, d + n);
  }
  static void push(sdk_values* v, const Stored& x) {
    std::vector<int32_t> b(x.begin(), x.end());
    check(sdk_values_push_bool_list(v, b.data(), static_cast<int64_t>(b.size())),
          "returning a bool[]");
  }
};

// Tensor lists: read into a vector of Tensors (ArrayRef<Tensor> views it).
inline std::vector<Tensor> read_tensors(const sdk_values* v, int64_t i) {
  sdk_tensor* const* d = nullptr;
  int64_t n = 0;
  check(sdk_values_get_tensor_list(v, i, &d, &n), "reading a Tensor[] argument");
  std::vector<Tensor> out;
  out.reserve(static_cast<size_t>(n));
  for (int64_t k = 0; k < n; ++k) out.push_back(Tensor::borrow(d[k]));
  return out;
}
inline void push_tensors(sdk_values* v, const Tensor* ts, size_t n) {
  std::vector<const sdk_tensor*> h;
  h.reserve(n);
  for (size_t k = 0; k < n; ++k) h.push_back(ts[k].get());
  check(sdk_values_push_tensor_list(v, h.data(), static_cast<int64_t>(n)), "returning a Tensor[]");
}

template <>
struct Box<std::vector<Tensor>> {
  using Stored = std::vector<Tensor>;
  static const char* schema() { return "Tensor[]"; }
  static Stored read(const sdk_values* v, int64_t i) { return read_tensors(v, i); }
  static void push(sdk_values* v, const Stored& x) { push_tensors(v, x.data(), x.size()); }
};

template <>
struct Box<ArrayRef<Tensor>> {
  struct Stored {  // the tensors, viewed as an ArrayRef when passed on
    std::vector<Tensor> tensors;
    operator ArrayRef<Tensor>() const { return ArrayRef<Tensor>(tensors); }  // NOLINT
  };
  static const char* schema() { return "Tensor[]"; }
  static Stored read(const sdk_values* v, int64_t i) { return Stored{read_tensors(v, i)}; }
  static void push(sdk_values* v, ArrayRef<Tensor> x) { push_tensors(v, x.data(), x.size()); }
};

template <>
struct Box<std::vector<std::optional<Tensor>>> {
  using Stored = std::vector<std::optional<Tensor>>;
  static const char* schema() { return "Tensor?[]"; }
  static Stored read(const sdk_values* v, int64_t i) {
    sdk_tensor* const* d = nullptr;
    int64_t n = 0;
    check(sdk_values_get_tensor_list(v, i, &d, &n), "reading a Tensor?[] argument");
    Stored out;
    for (int64_t k = 0; k < n; ++k) {
      out.push_back(d[k] ? std::optional<Tensor>(Tensor::borrow(d[k])) : std::nullopt);
    }
    return out;
  }
  static void push(sdk_values* v, const Stored& x) {
    std::vector<const sdk_tensor*> h;
    for (const auto& t : x) h.push_back(t ? t->get() : nullptr);
    check(sdk_values_push_tensor_list(v, h.data(), static_cast<int64_t>(h.size())),
          "returning a Tensor?[]");
  }
};

template <typename T>
using BoxOf = Box<std::remove_cv_t<std::remove_reference_t<T>>>;

// ---- results: one value, a tuple of them, or none ---------------------------------------

template <typename R>
struct Results {
  static std::string schema() { return BoxOf<R>::schema(); }
  static void push(sdk_values* v, R&& r) { BoxOf<R>::push(v, std::move(r)); }
  static R read(const sdk_values* v) { return R(BoxOf<R>::read(v, 0)); }
};
template <>
struct Results<void> {
  static std::string schema() { return "()"; }
};
template <typename... Ts>
struct Results<std::tuple<Ts...>> {
  static std::string schema() {
    std::string s = "(";
    size_t i = 0;
    ((s += (i++ ? ", " : "") + std::string(BoxOf<Ts>::schema())), ...);
    return s + ")";
  }
  static void push(sdk_values* v, std::tuple<Ts...>&& r) {
    std::apply([&](auto&... x) { (BoxOf<decltype(x)>::push(v, std::move(x)), ...); }, r);
  }
  static std::tuple<Ts...> read(const sdk_values* v) {
    return read_at(v, std::index_sequence_for<Ts...>{});
  }
  template <size_t... I>
  static std::tuple<Ts...> read_at(const sdk_values* v, std::index_sequence<I...>) {
    return std::tuple<Ts...>(Ts(BoxOf<Ts>::read(v, static_cast<int64_t>(I)))...);
  }
};

}  // namespace detail
}  // namespace sdk

#endif  // SDK_BOXING_H_
