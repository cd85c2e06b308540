// core/src/bits.h: element types by size, for kernels that only move bytes (copies, gathers).
#pragma once

#include <cstdint>
#include <type_traits>

namespace sdk::detail {

// The unsigned integer of N bytes: a kernel that moves elements without reading them is the
// same for every dtype of one size.
template <int64_t N>
using Bits = std::conditional_t<
    N == 1, uint8_t,
    std::conditional_t<N == 2, uint16_t, std::conditional_t<N == 4, uint32_t, uint64_t>>>;

// The 16 bytes of a complex128, for the byte-moving kernels that take it (take).
struct alignas(16) Bytes16 {
  uint64_t words[2];
};

// f(Bits<itemsize>{}) for an item size of 1, 2, 4 or 8 bytes; false, f not called, otherwise.
template <typename F>
bool dispatch_bits(int64_t itemsize, F&& f) {
  switch (itemsize) {
    case 1:
      f(Bits<1>{});
      return true;
    case 2:
      f(Bits<2>{});
      return true;
    case 4:
      f(Bits<4>{});
      return true;
    case 8:
      f(Bits<8>{});
      return true;
    default:
      return false;
  }
}

}  // namespace sdk::detail
