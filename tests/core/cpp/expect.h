// expect.h: the checks of the C++ API test programs (test_*_api.cpp). Each failed check prints
// its file:line; main() ends with `return expect_summary();` (nonzero on any failure).
#ifndef SDK_TESTS_EXPECT_H_
#define SDK_TESTS_EXPECT_H_

#include <sdk/tensor.h>

#include <cmath>
#include <cstdio>
#include <cstring>

inline int g_failures = 0;
inline int g_checks = 0;

inline void report(bool ok, const char* what, const char* file, int line) {
  ++g_checks;
  if (!ok) {
    ++g_failures;
    std::printf("FAIL %s:%d: %s\n", file, line, what);
  }
}

#define EXPECT(...) report((__VA_ARGS__), #__VA_ARGS__, __FILE__, __LINE__)
#define EXPECT_NEAR(a, b, tol) \
  report(std::fabs((a) - (b)) <= (tol), #a " ~= " #b, __FILE__, __LINE__)
// Runs the statement, expecting sdk::Error of KIND whose message contains NEEDLE.
#define EXPECT_ERROR(KIND, NEEDLE, ...)                                           \
  do {                                                                            \
    bool thrown_ = false;                                                         \
    try {                                                                         \
      __VA_ARGS__;                                                                \
    } catch (const sdk::Error& e) {                                               \
      thrown_ = true;                                                             \
      report(e.kind() == (KIND), #__VA_ARGS__ " error kind", __FILE__, __LINE__); \
      bool has_ = std::strstr(e.what(), NEEDLE) != nullptr;                       \
      if (!has_) std::printf("  message was: %s\n", e.what());                    \
      report(has_, #__VA_ARGS__ " message contains " NEEDLE, __FILE__, __LINE__); \
    }                                                                             \
    report(thrown_, #__VA_ARGS__ " throws sdk::Error", __FILE__, __LINE__);       \
  } while (0)

#endif  // SDK_TESTS_EXPECT_H_
