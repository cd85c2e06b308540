// core/src/elementwise_compare.cpp: the comparison and logical binary kernels (bool out).
#include "binary_kernels.h"

namespace sdk::detail {
namespace {

template <typename T>
bool compare_kernel(int op, const Launch& L) {
  using C = typename OpMath<T>::type;
  switch (op) {
    case SDK_EQ:
      L.binary<bool, T>([](C a, C b) { return a == b; });
      return true;
    case SDK_NE:
      L.binary<bool, T>([](C a, C b) { return a != b; });
      return true;
    case SDK_LT:
      L.binary<bool, T>([](C a, C b) { return a < b; });
      return true;
    case SDK_LE:
      L.binary<bool, T>([](C a, C b) { return a <= b; });
      return true;
    case SDK_GT:
      L.binary<bool, T>([](C a, C b) { return a > b; });
      return true;
    case SDK_GE:
      L.binary<bool, T>([](C a, C b) { return a >= b; });
      return true;
    default:
      break;
  }
  // The logical ops run on bool operands only (binary_types converts the others).
  if constexpr (std::is_same_v<T, bool>) {
    switch (op) {
      case SDK_LOGICAL_AND:
        L.binary<bool, bool>([](bool a, bool b) { return a && b; });
        return true;
      case SDK_LOGICAL_OR:
        L.binary<bool, bool>([](bool a, bool b) { return a || b; });
        return true;
      case SDK_LOGICAL_XOR:
        L.binary<bool, bool>([](bool a, bool b) { return a != b; });
        return true;
      default:
        break;
    }
  }
  return false;
}

}  // namespace

bool binary_compare(int op, sdk_dtype compute, const Launch& L) {
  return SDK_DISPATCH_ALL(compute, binary_name(op),
                          [&] { return compare_kernel<scalar_t>(op, L); });
}

}  // namespace sdk::detail
