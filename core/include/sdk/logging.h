// sdk/logging.h: torch's stream logging for extension authors (c10/util/Logging.h's LOG(INFO),
// LOG(WARNING), LOG_IF(severity, cond) and c10::ShowLogInfoToStderr), spelled SDK_LOG and
// SDK_LOG_IF (the porter rewrites torch's), so the SDK defines no unprefixed macro.
#ifndef SDK_LOGGING_H_
#define SDK_LOGGING_H_

#include <cstdlib>
#include <iomanip>  // c10/util/Logging.h brings the stream manipulators too
#include <iostream>
#include <sstream>

#include "sdk/error.h"  // c10/util/Logging.h brings the checks too

namespace sdk {
namespace detail {
// torch's severities (GLOG_INFO ... GLOG_FATAL), pasted from the macro's argument
constexpr int kLogINFO = 0;
constexpr int kLogWARNING = 1;
constexpr int kLogERROR = 2;
constexpr int kLogFATAL = 3;

// The least severity written; torch's default shows warnings and worse
inline int& log_threshold() {
  static int threshold = kLogWARNING;
  return threshold;
}

/*! \brief One message: streamed into, written to stderr as a whole line when it ends (so
 *  threads do not interleave inside a line); FATAL aborts after writing, as torch's does. */
class LogMessage {
 public:
  LogMessage(const char* file, int line, int severity) : severity_(severity) {
    static const char kLetters[] = "IWEF";
    stream_ << kLetters[severity] << ' ' << file << ':' << line << "] ";
  }
  LogMessage(const LogMessage&) = delete;
  LogMessage& operator=(const LogMessage&) = delete;
  ~LogMessage() {
    if (severity_ < log_threshold() && severity_ != kLogFATAL) return;
    stream_ << '\n';
    std::cerr << stream_.str() << std::flush;
    if (severity_ == kLogFATAL) std::abort();
  }
  std::ostream& stream() { return stream_; }

 private:
  int severity_;
  std::ostringstream stream_;
};
// Turns SDK_LOG_IF's stream into void, so both branches of its ?: have one type
struct LogVoidify {
  void operator&(std::ostream&) {}
};
}  // namespace detail

/*! \brief Write INFO messages too from now on (torch's c10::ShowLogInfoToStderr). */
inline void ShowLogInfoToStderr() { detail::log_threshold() = detail::kLogINFO; }

}  // namespace sdk

/*! \brief `SDK_LOG(WARNING) << "text"` (torch's LOG): severity INFO, WARNING, ERROR or FATAL. */
#define SDK_LOG(severity) \
  ::sdk::detail::LogMessage(__FILE__, __LINE__, ::sdk::detail::kLog##severity).stream()
/*! \brief SDK_LOG when `condition` holds (torch's LOG_IF); the message is not built otherwise. */
#define SDK_LOG_IF(severity, condition) \
  !(condition) ? (void)0 : ::sdk::detail::LogVoidify() & SDK_LOG(severity)

#endif  // SDK_LOGGING_H_
