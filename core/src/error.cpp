// core/src/error.cpp: the per-thread error slot behind sdk_last_error_* and the throw helpers.
#include <cstdio>
#include <cstdlib>

#include "tensor_impl.h"

namespace sdk::detail {
namespace {
// One slot per thread: a failing call on one thread never clobbers another's message.
struct ErrorSlot {
  sdk_status kind = SDK_OK;
  std::string message;
};
ErrorSlot& slot() {
  thread_local ErrorSlot s;
  return s;
}
}  // namespace

sdk_status set_error(sdk_status kind, const std::string& msg) {
  ErrorSlot& s = slot();
  s.kind = kind;
  s.message = msg;
  return kind;
}

void throw_error(sdk_status kind, const std::string& msg) { throw Error(kind, msg); }

void fatal(const char* msg) {
  std::fprintf(stderr, "sdk core internal error: %s\n", msg);
  std::fflush(stderr);
  std::abort();
}

}  // namespace sdk::detail

using namespace sdk::detail;

extern "C" {

SDK_API sdk_status sdk_last_error_kind(void) { return slot().kind; }

SDK_API const char* sdk_last_error_message(void) { return slot().message.c_str(); }

SDK_API sdk_status sdk_set_last_error(sdk_status kind, const char* message) {
  // An out-of-range kind would make callers map it to nothing: fold it into RUNTIME.
  if (kind < SDK_OK || kind > SDK_ERROR_NOT_IMPLEMENTED) kind = SDK_ERROR_RUNTIME;
  try {
    return set_error(kind, message ? message : "");
  } catch (...) {
    slot().kind = kind;
    return kind;
  }
}

SDK_API void sdk_clear_last_error(void) {
  ErrorSlot& s = slot();
  s.kind = SDK_OK;
  s.message.clear();
}

}  // extern "C"
