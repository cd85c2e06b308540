// sdk/interop/csrc/xla_ffi.cpp: the one XLA FFI handler through which jax.jit calls every SDK op.
//
// jax lowers each call of an op from sdk.interop.jax.register(ns) to a custom call of this
// handler. The call carries its XLA buffers (operands, then results) and one string attribute,
// `sdk_call`: the op's name, a newline, and a plan with one token per schema argument:
//   t          the next operand buffer, as a tensor (read-only: XLA owns it)
//   w<k>       result buffer k, as a tensor the op writes (a Tensor(a!) argument): it takes the
//              place of the next operand, which jax aliases to it, so it holds that value
//   o<k>       result buffer k, as the `out=` tensor of an op's out overload (no operand): the
//              op writes its result in place, so nothing is copied
//   L<n>       a Tensor[] of the next n operands
//   n          None
//   i<v>  f<v>  b<0|1>  d<dtype code>   int, float (C99 hex, exact), bool, ScalarType
//   I<v,...>  F<v,...>  B<v,...>         int[], float[], bool[] (may be empty)
//   s<len>:<bytes>                        str
// tokens separated by ';'. The plan is parsed once per distinct string and cached (the key is
// the string's content, so an executable from jax's persistent cache finds its plan in a new
// process). Each call wraps the buffers as sdk tensors (no copy), pushes the arguments on a
// boxed stack, calls the op through the C ABI (sdk_op_call) and copies each returned tensor
// into its result buffer unless the op wrote it in place.
//
// Rationale: one handler, compiled once per jaxlib, serves every op of every library; a library
// needs no XLA code and keeps the one binary it has for every framework.
#include <sdk/c_api.h>
#include <sdk/export.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "xla/ffi/api/ffi.h"

namespace ffi = xla::ffi;

namespace {

// One schema argument of a plan: its kind (the token's letter) and its parsed value.
struct PlanArg {
  char kind = 'n';
  int64_t int_value = 0;  // also L's count of operands, w's and o's result index
  double float_value = 0.0;
  std::vector<int64_t> ints;
  std::vector<double> floats;
  std::vector<int32_t> bools;
  std::string text;
};

// A parsed `sdk_call` attribute: the op and how to box its arguments.
struct Plan {
  std::string key;  // the attribute's text (the cache's key points into it)
  const sdk_op* op = nullptr;
  std::string name;
  std::vector<PlanArg> args;
  int64_t n_operands = 0;
  int64_t n_written = 0;
};

ffi::Error fail(std::string message) {
  return ffi::Error(ffi::ErrorCode::kInvalidArgument, std::move(message));
}

ffi::Error sdk_error(const std::string& where) {
  const char* message = sdk_last_error_message();
  return fail(where + ": " + (message && *message ? message : "failed"));
}

// Reads a number list "v,v,..." up to the end of `body` with `parse` per item.
template <typename T, typename Parse>
bool parse_list(const std::string& body, std::vector<T>* out, Parse parse) {
  if (body.empty()) return true;
  const char* p = body.c_str();
  while (true) {
    char* end = nullptr;
    out->push_back(static_cast<T>(parse(p, &end)));
    if (end == p) return false;
    if (*end == '\0') return true;
    if (*end != ',') return false;
    p = end + 1;
  }
}

int64_t parse_int(const char* p, char** end) { return std::strtoll(p, end, 10); }
double parse_float(const char* p, char** end) { return std::strtod(p, end); }

// Parses one token (without its ';'); false when malformed.
bool parse_token(char kind, const std::string& body, PlanArg* arg, Plan* plan) {
  arg->kind = kind;
  char* end = nullptr;
  switch (kind) {
    case 't':
      plan->n_operands += 1;
      return body.empty();
    case 'n':
      return body.empty();
    case 'L':
    case 'w':
    case 'o':
    case 'i':
    case 'b':
    case 'd':
      arg->int_value = std::strtoll(body.c_str(), &end, 10);
      if (body.empty() || *end != '\0') return false;
      if (kind == 'L') plan->n_operands += arg->int_value;
      if (kind == 'w') {
        plan->n_operands += 1;
        plan->n_written += 1;
      }
      return arg->int_value >= 0 || kind == 'i';
    case 'f':
      arg->float_value = std::strtod(body.c_str(), &end);
      return !body.empty() && *end == '\0';
    case 'I':
      return parse_list(body, &arg->ints, parse_int);
    case 'F':
      return parse_list(body, &arg->floats, parse_float);
    case 'B':
      return parse_list(body, &arg->bools, parse_int);
    default:
      return false;
  }
}

// Parses "ns::op\n<tokens>" into `plan`; an error names the token at fault.
ffi::Error parse_plan(std::string_view text, Plan* plan) {
  plan->key.assign(text.data(), text.size());
  size_t newline = plan->key.find('\n');
  if (newline == std::string::npos) return fail("sdk_call attribute has no op name");
  plan->name = plan->key.substr(0, newline);
  if (sdk_op_find(plan->name.c_str(), &plan->op) != SDK_OK) return sdk_error(plan->name);
  size_t pos = newline + 1;
  const std::string& s = plan->key;
  while (pos < s.size()) {
    PlanArg arg;
    char kind = s[pos++];
    if (kind == 's') {  // length-prefixed: the text may hold ';'
      size_t colon = s.find(':', pos);
      if (colon == std::string::npos) return fail(plan->name + ": malformed plan " + s);
      size_t len = std::strtoull(s.c_str() + pos, nullptr, 10);
      if (colon + 1 + len > s.size()) return fail(plan->name + ": malformed plan " + s);
      arg.kind = 's';
      arg.text = s.substr(colon + 1, len);
      pos = colon + 1 + len + 1;
    } else {
      size_t stop = s.find(';', pos);
      if (stop == std::string::npos) stop = s.size();
      if (!parse_token(kind, s.substr(pos, stop - pos), &arg, plan))
        return fail(plan->name + ": malformed plan token '" + s.substr(pos - 1, stop - pos + 1) +
                    "'");
      pos = stop + 1;
    }
    plan->args.push_back(std::move(arg));
  }
  return ffi::Error::Success();
}

// Plans by their attribute text; plans live for the process (one per distinct call site).
std::shared_mutex plans_mutex;
std::unordered_map<std::string_view, std::unique_ptr<Plan>> plans;

ffi::ErrorOr<const Plan*> find_plan(std::string_view text) {
  {
    std::shared_lock<std::shared_mutex> lock(plans_mutex);
    auto it = plans.find(text);
    if (it != plans.end()) return it->second.get();
  }
  auto plan = std::make_unique<Plan>();
  ffi::Error error = parse_plan(text, plan.get());
  if (!error.success()) return ffi::Unexpected(std::move(error));
  std::unique_lock<std::shared_mutex> lock(plans_mutex);
  std::string_view key = plan->key;
  auto inserted = plans.emplace(key, std::move(plan));
  return inserted.first->second.get();
}

// The sdk dtype of an XLA element type, or -1 when sdk has none.
int32_t sdk_dtype_of(ffi::DataType type) {
  switch (type) {
    case ffi::DataType::PRED:
      return SDK_BOOL;
    case ffi::DataType::U8:
      return SDK_UINT8;
    case ffi::DataType::S8:
      return SDK_INT8;
    case ffi::DataType::S16:
      return SDK_INT16;
    case ffi::DataType::S32:
      return SDK_INT32;
    case ffi::DataType::S64:
      return SDK_INT64;
    case ffi::DataType::F16:
      return SDK_FLOAT16;
    case ffi::DataType::BF16:
      return SDK_BFLOAT16;
    case ffi::DataType::F32:
      return SDK_FLOAT32;
    case ffi::DataType::F64:
      return SDK_FLOAT64;
    default:
      return -1;
  }
}

// Wraps an XLA buffer as a new sdk tensor (no copy); read-only for operands.
ffi::ErrorOr<sdk_tensor*> wrap(const Plan& plan, ffi::AnyBuffer buffer, bool read_only) {
  int32_t dtype = sdk_dtype_of(buffer.element_type());
  if (dtype < 0) return ffi::Unexpected(fail(plan.name + ": an XLA buffer of a dtype sdk lacks"));
  auto dims = buffer.dimensions();
  static const sdk_device cpu = {SDK_CPU, 0};
  sdk_tensor* t = nullptr;
  if (sdk_from_blob(buffer.untyped_data(), static_cast<int64_t>(dims.size()), dims.begin(), nullptr,
                    dtype, cpu, nullptr, nullptr, &t) != SDK_OK)
    return ffi::Unexpected(sdk_error(plan.name));
  if (read_only && sdk_tensor_set_read_only(t, "a jax array (jax arrays are immutable)")) {
    sdk_tensor_release(t);
    return ffi::Unexpected(sdk_error(plan.name));
  }
  return t;
}

// The tensors that wrapped each buffer slot of a plan's last call on this thread, kept for the
// next call: slots [0, n_operands) are operands (read-only), the others results. A kept tensor
// is re-pointed at the next call's buffer (sdk_from_blob_repoint) when the buffer has its
// shape and dtype and nothing but this cache holds it, which saves making, marking and freeing
// a tensor per buffer; one a kernel kept (an alias, a saved tensor) is left to it.
class SlotCache {
 public:
  ~SlotCache() {
    for (auto& entry : slots_)
      for (sdk_tensor* t : entry.second) sdk_tensor_release(t);
  }
  // A NEW reference to a tensor wrapping `buffer` for slot `slot` of `plan`.
  static ffi::ErrorOr<sdk_tensor*> take(const Plan& plan, size_t slot, ffi::AnyBuffer buffer,
                                        bool read_only) {
    std::vector<sdk_tensor*>& kept = instance().slots_[&plan];
    if (kept.size() <= slot) kept.resize(slot + 1, nullptr);
    sdk_tensor*& cached = kept[slot];
    if (cached && fits(cached, buffer) && sdk_tensor_use_count(cached) == 1) {
      if (sdk_from_blob_repoint(cached, buffer.untyped_data()) == SDK_OK) {
        sdk_tensor_retain(cached);
        return cached;
      }
      sdk_clear_last_error();  // its memory is shared: wrap the buffer afresh
    }
    auto t = wrap(plan, buffer, read_only);
    if (!t.has_value()) return t;
    sdk_tensor_release(cached);
    cached = *t;
    sdk_tensor_retain(cached);
    return t;
  }

 private:
  static SlotCache& instance() {
    thread_local SlotCache cache;
    return cache;
  }
  // Whether tensor t has buffer's dtype and shape (one plan may serve calls of several shapes).
  static bool fits(const sdk_tensor* t, ffi::AnyBuffer buffer) {
    auto dims = buffer.dimensions();
    int64_t ndim = sdk_tensor_ndim(t);
    return sdk_tensor_dtype(t) == sdk_dtype_of(buffer.element_type()) &&
           ndim == static_cast<int64_t>(dims.size()) &&
           std::equal(dims.begin(), dims.end(), sdk_tensor_sizes(t));
  }
  std::unordered_map<const Plan*, std::vector<sdk_tensor*>> slots_;
};

// Pushes one planned argument; operands and results are consumed through the cursors.
ffi::Error push_arg(const Plan& plan, const PlanArg& a, ffi::RemainingArgs& args,
                    ffi::RemainingRets& rets, size_t* next_operand, sdk_values* values) {
  sdk_status st = SDK_OK;
  switch (a.kind) {
    case 't': {
      size_t slot = (*next_operand)++;
      auto buffer = args.get<ffi::AnyBuffer>(slot);
      if (!buffer.has_value()) return buffer.error();
      auto t = SlotCache::take(plan, slot, *buffer, true);
      if (!t.has_value()) return t.error();
      st = sdk_values_push_tensor_steal(values, *t);
      break;
    }
    case 'w':
    case 'o': {
      if (a.kind == 'w') ++*next_operand;  // aliased to the result buffer, which holds its value
      auto buffer = rets.get<ffi::AnyBuffer>(static_cast<size_t>(a.int_value));
      if (!buffer.has_value()) return buffer.error();
      size_t slot = static_cast<size_t>(plan.n_operands + a.int_value);
      auto t = SlotCache::take(plan, slot, **buffer, false);
      if (!t.has_value()) return t.error();
      st = sdk_values_push_tensor_steal(values, *t);
      break;
    }
    case 'L': {
      std::vector<sdk_tensor*> tensors;
      ffi::Error error = ffi::Error::Success();
      for (int64_t k = 0; k < a.int_value && error.success(); ++k) {
        size_t slot = (*next_operand)++;
        auto buffer = args.get<ffi::AnyBuffer>(slot);
        if (!buffer.has_value()) {
          error = buffer.error();
          break;
        }
        auto t = SlotCache::take(plan, slot, *buffer, true);
        if (!t.has_value()) {
          error = t.error();
          break;
        }
        tensors.push_back(*t);
      }
      if (error.success())
        st = sdk_values_push_tensor_list(values, tensors.data(),
                                         static_cast<int64_t>(tensors.size()));
      for (sdk_tensor* t : tensors) sdk_tensor_release(t);
      if (!error.success()) return error;
      break;
    }
    case 'n':
      st = sdk_values_push_none(values);
      break;
    case 'i':
      st = sdk_values_push_int(values, a.int_value);
      break;
    case 'f':
      st = sdk_values_push_float(values, a.float_value);
      break;
    case 'b':
      st = sdk_values_push_bool(values, static_cast<int32_t>(a.int_value));
      break;
    case 'd':
      st = sdk_values_push_scalar_type(values, static_cast<int32_t>(a.int_value));
      break;
    case 'I':
      st = sdk_values_push_int_list(values, a.ints.data(), static_cast<int64_t>(a.ints.size()));
      break;
    case 'F':
      st = sdk_values_push_float_list(values, a.floats.data(),
                                      static_cast<int64_t>(a.floats.size()));
      break;
    case 'B':
      st = sdk_values_push_bool_list(values, a.bools.data(), static_cast<int64_t>(a.bools.size()));
      break;
    case 's':
      st = sdk_values_push_string(values, a.text.data(), static_cast<int64_t>(a.text.size()));
      break;
  }
  return st == SDK_OK ? ffi::Error::Success() : sdk_error(plan.name);
}

std::string describe(int32_t dtype, int64_t ndim, const int64_t* sizes) {
  const char* name = sdk_dtype_name(dtype);
  std::string text = std::string(name ? name : "?") + "[";
  for (int64_t d = 0; d < ndim; ++d) text += (d ? ", " : "") + std::to_string(sizes[d]);
  return text + "]";
}

// Copies returned tensor i into result buffer i, after checking it is what the shape
// function promised; a result the op wrote in place (the same memory) is left as it is.
ffi::Error store_result(const Plan& plan, sdk_values* values, int64_t i,
                        ffi::Result<ffi::AnyBuffer> buffer) {
  sdk_tensor* t = nullptr;
  if (sdk_values_get_tensor(values, i, &t) != SDK_OK || t == nullptr)
    return fail(plan.name + ": result " + std::to_string(i) + " is not a tensor");
  auto dims = buffer->dimensions();
  int32_t dtype = sdk_dtype_of(buffer->element_type());
  int64_t ndim = sdk_tensor_ndim(t);
  const int64_t* sizes = sdk_tensor_sizes(t);
  bool same = ndim == static_cast<int64_t>(dims.size()) && sdk_tensor_dtype(t) == dtype &&
              std::equal(sizes, sizes + ndim, dims.begin());
  if (!same)
    return fail(plan.name + ": result " + std::to_string(i) + " is " +
                describe(sdk_tensor_dtype(t), ndim, sizes) + ", but its shape function said " +
                describe(dtype, static_cast<int64_t>(dims.size()), dims.begin()));
  void* dst = buffer->untyped_data();
  if (sdk_tensor_data_ptr(t) == dst) return ffi::Error::Success();
  if (sdk_tensor_is_contiguous(t)) {
    std::memcpy(dst, sdk_tensor_data_ptr(t), buffer->size_bytes());
    return ffi::Error::Success();
  }
  auto out = wrap(plan, *buffer, false);
  if (!out.has_value()) return out.error();
  sdk_status st = sdk_copy_(*out, t);
  sdk_tensor_release(*out);
  return st == SDK_OK ? ffi::Error::Success() : sdk_error(plan.name);
}

// The boxed stack of a call: this thread's, kept between calls (its allocation is paid once),
// or a fresh one when the thread is already inside a call (a Python kernel that runs jax).
class CallValues {
 public:
  CallValues() {
    if (!holder().busy) {
      if (holder().values == nullptr && sdk_values_new(&holder().values) != SDK_OK) return;
      values_ = holder().values;
      holder().busy = owner_ = true;
    } else if (sdk_values_new(&values_) == SDK_OK) {
      fresh_ = true;
    }
  }
  ~CallValues() {
    if (values_ == nullptr) return;
    sdk_values_clear(values_);  // releases the wrapped buffers before XLA reuses them
    if (fresh_) sdk_values_free(values_);
    if (owner_) holder().busy = false;
  }
  CallValues(const CallValues&) = delete;
  CallValues& operator=(const CallValues&) = delete;
  sdk_values* get() const { return values_; }

 private:
  struct Holder {
    sdk_values* values = nullptr;
    bool busy = false;
    ~Holder() { sdk_values_free(values); }
  };
  static Holder& holder() {
    thread_local Holder h;
    return h;
  }
  sdk_values* values_ = nullptr;
  bool fresh_ = false;
  bool owner_ = false;
};

ffi::Error call_op(const Plan& plan, ffi::RemainingArgs& args, ffi::RemainingRets& rets,
                   sdk_values* values) {
  if (static_cast<int64_t>(args.size()) != plan.n_operands)
    return fail(plan.name + ": " + std::to_string(args.size()) + " operands, the plan needs " +
                std::to_string(plan.n_operands));
  size_t next_operand = 0;
  for (const PlanArg& a : plan.args) {
    ffi::Error error = push_arg(plan, a, args, rets, &next_operand, values);
    if (!error.success()) return error;
  }
  if (sdk_op_call(plan.op, values) != SDK_OK) return sdk_error(plan.name);
  int64_t n_results = static_cast<int64_t>(rets.size()) - plan.n_written;
  if (sdk_values_size(values) != n_results)
    return fail(plan.name + " returned " + std::to_string(sdk_values_size(values)) +
                " values, expected " + std::to_string(n_results));
  for (int64_t i = 0; i < n_results; ++i) {
    auto buffer = rets.get<ffi::AnyBuffer>(static_cast<size_t>(i));
    if (!buffer.has_value()) return buffer.error();
    ffi::Error error = store_result(plan, values, i, *buffer);
    if (!error.success()) return error;
  }
  return ffi::Error::Success();
}

ffi::Error sdk_call_impl(ffi::RemainingArgs args, ffi::RemainingRets rets,
                         std::string_view sdk_call) {
  auto plan = find_plan(sdk_call);
  if (!plan.has_value()) return plan.error();
  CallValues values;
  if (values.get() == nullptr) return sdk_error("sdk_values_new");
  return call_op(**plan, args, rets, values.get());
}

}  // namespace

XLA_FFI_DEFINE_HANDLER(
    kSdkCall, sdk_call_impl,
    ffi::Ffi::Bind().RemainingArgs().RemainingRets().Attr<std::string_view>("sdk_call"));

// The handler, for jax.ffi.register_ffi_target (through ctypes and jax.ffi.pycapsule).
extern "C" SDK_EXPORT_VISIBLE XLA_FFI_Error* sdk_xla_ffi_call(XLA_FFI_CallFrame* frame) {
  return kSdkCall(frame);
}
