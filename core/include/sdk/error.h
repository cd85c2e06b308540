// sdk/error.h: sdk::Error (the one C++ exception for core failures), SDK_CHECK and friends,
// SDK_WARN.
#ifndef SDK_ERROR_H_
#define SDK_ERROR_H_

#include <cstdio>
#include <exception>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

#include "sdk/c_api.h"
#include "sdk/macros.h"

namespace sdk {

/*! \brief Every failure of the core or of the C++ API. kind() is the ABI's error code
 *  (SDK_ERROR_VALUE, SDK_ERROR_TYPE, ...), which decides the Python exception type. */
class Error : public std::exception {
 public:
  Error(sdk_status kind, std::string message) : kind_(kind), message_(std::move(message)) {}
  const char* what() const noexcept override { return message_.c_str(); }
  /*! \brief The error kind: one of sdk_status_code other than SDK_OK. */
  sdk_status kind() const noexcept { return kind_; }
  /*! \brief The message (same text as what()). */
  const std::string& msg() const noexcept { return message_; }
  /*! \brief Record this error as the thread's last core error (for C-style bridges that
   *  return a status, e.g. ctypes entry points); returns kind(). */
  sdk_status set_last_error() const noexcept { return sdk_set_last_error(kind_, message_.c_str()); }

 private:
  sdk_status kind_;
  std::string message_;
};

// The kinds as their own classes, named as torch's c10 exceptions, so that ported code
// catching `c10::TypeError` or `c10::OutOfMemoryError` catches what the SDK throws (every
// error the C++ API throws is the class of its kind; all are sdk::Error).
class ValueError : public Error {
 public:
  explicit ValueError(std::string message) : Error(SDK_ERROR_VALUE, std::move(message)) {}
};
class TypeError : public Error {
 public:
  explicit TypeError(std::string message) : Error(SDK_ERROR_TYPE, std::move(message)) {}
};
class IndexError : public Error {
 public:
  explicit IndexError(std::string message) : Error(SDK_ERROR_INDEX, std::move(message)) {}
};
class OutOfMemoryError : public Error {
 public:
  explicit OutOfMemoryError(std::string message) : Error(SDK_ERROR_MEMORY, std::move(message)) {}
};
class NotImplementedError : public Error {
 public:
  explicit NotImplementedError(std::string message)
      : Error(SDK_ERROR_NOT_IMPLEMENTED, std::move(message)) {}
};

// Message building without <sstream>/<iostream>: str_append overloads for the types a
// message mentions. Other sdk types (ScalarType, Device, IntArrayRef, Tensor) add their
// own overloads in namespace sdk, found by argument-dependent lookup.
inline void str_append(std::string& s, const char* v) { s += v ? v : "(null)"; }
inline void str_append(std::string& s, const std::string& v) { s += v; }
inline void str_append(std::string& s, char v) { s += v; }
inline void str_append(std::string& s, bool v) { s += v ? "true" : "false"; }
inline void str_append(std::string& s, const void* v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%p", v);
  s += buf;
}
template <typename T, std::enable_if_t<std::is_integral<T>::value, int> = 0>
inline void str_append(std::string& s, T v) {
  s += std::to_string(v);
}
template <typename T, std::enable_if_t<std::is_floating_point<T>::value, int> = 0>
inline void str_append(std::string& s, T v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.9g", static_cast<double>(v));
  s += buf;
}

namespace detail {

template <typename... Args>
inline std::string concat(const Args&... args) {
  std::string s;
  (str_append(s, args), ...);
  return s;
}

// Out of line (noinline, cold) so that the happy path of every call stays a compare. Throws
// the class of the kind (ValueError, ...; sdk::Error itself for RUNTIME).
[[noreturn]] SDK_NOINLINE inline void throw_error(sdk_status kind, std::string message) {
  switch (kind) {
    case SDK_ERROR_VALUE:
      throw ValueError(std::move(message));
    case SDK_ERROR_TYPE:
      throw TypeError(std::move(message));
    case SDK_ERROR_INDEX:
      throw IndexError(std::move(message));
    case SDK_ERROR_MEMORY:
      throw OutOfMemoryError(std::move(message));
    case SDK_ERROR_NOT_IMPLEMENTED:
      throw NotImplementedError(std::move(message));
    default:
      throw Error(kind, std::move(message));
  }
}

[[noreturn]] SDK_NOINLINE inline void throw_check(sdk_status kind, const char* file, int line,
                                                  const char* cond, std::string message) {
  if (message.empty()) message = concat("Expected ", cond, " to be true, but got false.");
  str_append(message, concat(" (", file, ":", line, ")"));
  throw_error(kind, std::move(message));
}

/*! \brief The core's message as C++ and Python users read it: the C entry point's name
 *  ("sdk_matmul: ...", "sdk_reduce(sum): ...") becomes the op's ("matmul(): ...",
 *  "sum(): ...", as torch words it). C callers get the message as it is, naming the C
 *  function they called. Any other message is returned unchanged. */
inline std::string user_facing_message(const char* msg) {
  std::string m = msg ? msg : "";
  auto is_name = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  };
  if (m.compare(0, 4, "sdk_") != 0) return m;
  size_t i = 4;
  while (i < m.size() && is_name(m[i])) ++i;
  std::string name = m.substr(4, i - 4);
  if (i < m.size() && m[i] == '(') {  // sdk_reduce(sum): the op is the part in parentheses
    size_t j = i + 1;
    while (j < m.size() && is_name(m[j])) ++j;
    if (j == i + 1 || j >= m.size() || m[j] != ')') return m;
    name = m.substr(i + 1, j - i - 1);
    i = j + 1;
  }
  if (name.empty() || m.compare(i, 2, ": ") != 0) return m;
  return name + "(): " + m.substr(i + 2);
}

// Turns the core's per-thread error into an exception; `op` names the C++ call when the
// core's message does not start with it already.
[[noreturn]] SDK_NOINLINE inline void throw_last_error(const char* op) {
  sdk_status kind = sdk_last_error_kind();
  const char* msg = sdk_last_error_message();
  std::string text =
      (msg && *msg) ? user_facing_message(msg) : concat(op, ": failed without a message");
  throw_error(kind == SDK_OK ? SDK_ERROR_RUNTIME : kind, std::move(text));
}

// A meta tensor's data was asked for (data_ptr, accessors): it has none.
[[noreturn]] SDK_NOINLINE inline void throw_meta_data(const char* what) {
  throw_error(SDK_ERROR_RUNTIME, concat(what,
                                        "(): the tensor is on the meta device (sizes, strides and "
                                        "a dtype, no data); a Meta kernel computes shapes only "
                                        "and must not read or write elements"));
}

/*! \brief Inside a catch block: the exception being handled as the thread's last core error,
 *  for code called through the C ABI (kernels, SDK_EXPORT functions). sdk::Error keeps its kind;
 *  the std exceptions that mean one (bad_alloc, out_of_range, invalid_argument) get it; any
 *  other is SDK_ERROR_RUNTIME. `where` names the code in the message of a non-std exception. */
inline sdk_status status_of_exception(const char* where) noexcept {
  try {
    throw;
  } catch (const Error& e) {
    return e.set_last_error();
  } catch (const std::bad_alloc& e) {
    return sdk_set_last_error(SDK_ERROR_MEMORY, e.what());
  } catch (const std::out_of_range& e) {
    return sdk_set_last_error(SDK_ERROR_INDEX, e.what());
  } catch (const std::invalid_argument& e) {
    return sdk_set_last_error(SDK_ERROR_VALUE, e.what());
  } catch (const std::exception& e) {
    return sdk_set_last_error(SDK_ERROR_RUNTIME, e.what());
  } catch (...) {
    return sdk_set_last_error(SDK_ERROR_RUNTIME,
                              (std::string("unknown C++ exception in ") + where).c_str());
  }
}

/*! \brief Throw the last core error unless `status` is SDK_OK. */
inline void check_status(sdk_status status, const char* op) {
  if (SDK_UNLIKELY(status != SDK_OK)) throw_last_error(op);
}

[[noreturn]] SDK_NOINLINE inline void throw_at(const char* file, int line, std::string message) {
  str_append(message, concat(" (", file, ":", line, ")"));
  throw Error(SDK_ERROR_RUNTIME, std::move(message));
}

// SDK_CHECK_EQ and friends: nullopt when the comparison holds, else the message naming
// both sides and their values (what glog's CHECK_EQ and torch's TORCH_CHECK_EQ print).
template <typename A, typename B, typename Cmp>
inline std::optional<std::string> check_op(const A& a, const B& b, Cmp cmp, const char* expr) {
  if (SDK_LIKELY(cmp(a, b))) return std::nullopt;
  return concat("Check failed: ", expr, " (", a, " vs. ", b, "). ");
}

// Collects `<< more` after a failed SDK_CHECK_EQ and throws at the end of the statement.
class CheckOpFailure {
 public:
  CheckOpFailure(const char* file, int line, std::string message)
      : file_(file), line_(line), message_(std::move(message)) {}
  CheckOpFailure(const CheckOpFailure&) = delete;
  CheckOpFailure& operator=(const CheckOpFailure&) = delete;
  template <typename T>
  CheckOpFailure& operator<<(const T& v) {
    str_append(message_, v);
    return *this;
  }
  ~CheckOpFailure() noexcept(false) {
    if (std::uncaught_exceptions() == 0) throw_at(file_, line_, std::move(message_));
  }

 private:
  const char* file_;
  int line_;
  std::string message_;
};

}  // namespace detail

/*! \brief Receives SDK_WARN messages; the default prints "Warning: ..." to stderr. Pybind11
 *  modules (sdk/extension.h) install one that raises a Python UserWarning. */
using WarningHandler = void (*)(const std::string& message);

namespace detail {
inline WarningHandler& warning_handler_slot() {
  static WarningHandler handler = nullptr;
  return handler;
}
}  // namespace detail

/*! \brief Replace this binary's warning handler (nullptr: back to stderr). */
inline void set_warning_handler(WarningHandler handler) {
  detail::warning_handler_slot() = handler;
}
inline WarningHandler get_warning_handler() { return detail::warning_handler_slot(); }

/*! \brief Issue a warning through the handler (what SDK_WARN calls). */
inline void warn(const std::string& message) {
  if (WarningHandler handler = detail::warning_handler_slot()) {
    handler(message);
  } else {
    std::fprintf(stderr, "Warning: %s\n", message.c_str());
  }
}

}  // namespace sdk

// The condition is evaluated once; the message arguments only when it fails. Messages are
// any sequence of str_append-able values: SDK_CHECK(x.dim() == 2, "got ", x.sizes()).
// Rationale: a plain if-block, as torch's TORCH_CHECK expands to, not do {} while (0):
// real extensions leave out the semicolon after a check, which compiles under torch.
#define SDK_DETAIL_CHECK(kind, cond, ...)                           \
  if (SDK_UNLIKELY(!(cond))) {                                      \
    ::sdk::detail::throw_check(kind, __FILE__, __LINE__, #cond,     \
                               ::sdk::detail::concat(__VA_ARGS__)); \
  }

/*! \brief Throw sdk::Error (RuntimeError in Python) with the message plus file:line. */
#define SDK_CHECK(cond, ...) SDK_DETAIL_CHECK(SDK_ERROR_RUNTIME, cond, __VA_ARGS__)
/*! \brief As SDK_CHECK, raising ValueError in Python. */
#define SDK_CHECK_VALUE(cond, ...) SDK_DETAIL_CHECK(SDK_ERROR_VALUE, cond, __VA_ARGS__)
/*! \brief As SDK_CHECK, raising TypeError in Python. */
#define SDK_CHECK_TYPE(cond, ...) SDK_DETAIL_CHECK(SDK_ERROR_TYPE, cond, __VA_ARGS__)
/*! \brief As SDK_CHECK, raising IndexError in Python. */
#define SDK_CHECK_INDEX(cond, ...) SDK_DETAIL_CHECK(SDK_ERROR_INDEX, cond, __VA_ARGS__)
/*! \brief TORCH_CHECK_ARG: a check of argument number argN ("invalid argument 2: ..."). */
#define SDK_CHECK_ARG(cond, argN, ...) \
  SDK_DETAIL_CHECK(SDK_ERROR_VALUE, cond, "invalid argument ", argN, ": ", __VA_ARGS__)
/*! \brief TORCH_CHECK_TENSOR_ALL: every element of the bool tensor `cond` is true
 *  (sdk::detail::all_true, in sdk/composite.h). */
#define SDK_CHECK_TENSOR_ALL(cond, ...) \
  SDK_DETAIL_CHECK(SDK_ERROR_RUNTIME, ::sdk::detail::all_true(cond), __VA_ARGS__)
/*! \brief As SDK_CHECK, raising NotImplementedError in Python. */
#define SDK_CHECK_NOT_IMPLEMENTED(cond, ...) \
  SDK_DETAIL_CHECK(SDK_ERROR_NOT_IMPLEMENTED, cond, __VA_ARGS__)
/*! \brief TORCH_INTERNAL_ASSERT: SDK_CHECK with an optional message. */
#define SDK_INTERNAL_ASSERT(...) SDK_CHECK(__VA_ARGS__, "")
/*! \brief SDK_INTERNAL_ASSERT in debug builds; compiled but never run under NDEBUG. */
#ifdef NDEBUG
#define SDK_INTERNAL_ASSERT_DEBUG_ONLY(...) \
  while (false) SDK_INTERNAL_ASSERT(__VA_ARGS__)
#else
#define SDK_INTERNAL_ASSERT_DEBUG_ONLY(...) SDK_INTERNAL_ASSERT(__VA_ARGS__)
#endif

/*! \brief Throw sdk::Error (RuntimeError) with the message plus file:line (AT_ERROR). */
#define SDK_ERROR(...) \
  ::sdk::detail::throw_at(__FILE__, __LINE__, ::sdk::detail::concat(__VA_ARGS__))
/*! \brief AT_ASSERT: throw when `cond` is false, naming it. */
#define SDK_ASSERT(cond) SDK_CHECK(cond, "Internal assert failed: ", #cond)
/*! \brief AT_ASSERTM: SDK_ASSERT with a message. */
#define SDK_ASSERTM(cond, ...) SDK_CHECK(cond, "Internal assert failed: ", #cond, ": ", __VA_ARGS__)

// SDK_CHECK_EQ(a, b) << "more": throws "Check failed: a == b (1 vs. 2). more (file:line)"
// when the comparison fails; a and b are evaluated once, `<<` operands only on failure.
// (A for statement, not if/else: `if (x) SDK_CHECK_EQ(a, b);` has no dangling else.)
#define SDK_DETAIL_CHECK_OP(a, b, op)                                           \
  for (auto sdk_check_failed_ = ::sdk::detail::check_op(                        \
           (a), (b), [](const auto& x, const auto& y) { return bool(x op y); }, \
           #a " " #op " " #b);                                                  \
       SDK_UNLIKELY(sdk_check_failed_.has_value()); sdk_check_failed_.reset())  \
  ::sdk::detail::CheckOpFailure(__FILE__, __LINE__, std::move(*sdk_check_failed_))
#define SDK_CHECK_EQ(a, b) SDK_DETAIL_CHECK_OP(a, b, ==)
#define SDK_CHECK_NE(a, b) SDK_DETAIL_CHECK_OP(a, b, !=)
#define SDK_CHECK_LT(a, b) SDK_DETAIL_CHECK_OP(a, b, <)
#define SDK_CHECK_LE(a, b) SDK_DETAIL_CHECK_OP(a, b, <=)
#define SDK_CHECK_GT(a, b) SDK_DETAIL_CHECK_OP(a, b, >)
#define SDK_CHECK_GE(a, b) SDK_DETAIL_CHECK_OP(a, b, >=)

/*! \brief TORCH_WARN: a warning built like an SDK_CHECK message, plus file:line. */
#define SDK_WARN(...) \
  ::sdk::warn(::sdk::detail::concat(__VA_ARGS__, " (", __FILE__, ":", __LINE__, ")"))
/*! \brief SDK_WARN the first time this line runs in the process. */
#define SDK_WARN_ONCE(...)                                              \
  do {                                                                  \
    static const bool sdk_warned_once_ = (SDK_WARN(__VA_ARGS__), true); \
    (void)sdk_warned_once_;                                             \
  } while (0)

#endif  // SDK_ERROR_H_
