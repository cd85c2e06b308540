// sdk/memory_format.h: the channels-last memory formats' strides and torch's rules for
// recognising them (is_contiguous(memory_format), suggest_memory_format()).
//
// A channels-last tensor is an ordinary strided tensor whose channel dimension (1) varies
// fastest: NCHW sizes with NHWC strides. The core needs nothing for it; the formats live in
// the headers, which make such tensors with explicit strides (sdk_empty_strided).
#ifndef SDK_MEMORY_FORMAT_H_
#define SDK_MEMORY_FORMAT_H_

#include <algorithm>
#include <cstdint>
#include <vector>

#include "sdk/array_ref.h"
#include "sdk/error.h"
#include "sdk/options.h"

namespace sdk {

constexpr MemoryFormat kContiguousFormat = MemoryFormat::Contiguous;
constexpr MemoryFormat kPreserveFormat = MemoryFormat::Preserve;
constexpr MemoryFormat kChannelsLast = MemoryFormat::ChannelsLast;
constexpr MemoryFormat kChannelsLast3d = MemoryFormat::ChannelsLast3d;

namespace detail {

// The dimensions of a channels-last layout from the fastest-varying to the slowest.
inline std::vector<size_t> channels_last_order(size_t ndim) {
  if (ndim == 4) return {1, 3, 2, 0};
  return {1, 4, 3, 2, 0};
}

// The rank a channels-last format needs: 4 (NCHW) or 5 (NCDHW).
inline size_t channels_last_rank(MemoryFormat format) {
  return format == MemoryFormat::ChannelsLast ? 4 : 5;
}

inline bool is_channels_last(MemoryFormat format) {
  return format == MemoryFormat::ChannelsLast || format == MemoryFormat::ChannelsLast3d;
}

/*! \brief The dense strides of `sizes` in a channels-last format; ValueError for the wrong
 *  rank (torch's message). */
inline std::vector<int64_t> channels_last_strides(IntArrayRef sizes, MemoryFormat format) {
  const size_t rank = channels_last_rank(format);
  SDK_CHECK_VALUE(sizes.size() == rank, "required rank ", rank, " tensor to use ",
                  rank == 4 ? "channels_last" : "channels_last_3d", " format");
  std::vector<int64_t> strides(rank);
  int64_t next = 1;
  for (size_t d : channels_last_order(rank)) {
    strides[d] = next;
    next *= std::max<int64_t>(sizes[d], 1);
  }
  return strides;
}

/*! \brief Whether (sizes, strides) is dense in `format`'s order; dimensions of size 1 may
 *  have any stride (torch's is_contiguous(memory_format)). */
inline bool is_channels_last_contiguous(IntArrayRef sizes, IntArrayRef strides,
                                        MemoryFormat format) {
  const size_t rank = channels_last_rank(format);
  if (sizes.size() != rank) return false;
  int64_t expected = 1;
  for (size_t d : channels_last_order(rank)) {
    if (sizes[d] == 1) continue;
    if (strides[d] != expected) return false;
    expected *= sizes[d];
  }
  return true;
}

/*! \brief torch's reading of strides as channels-last (what suggest_memory_format reports):
 *  strides that grow in the format's order, with the ambiguous layouts (a size-1 channel
 *  stride equal to the batch's, zero sizes, a zero channel stride) read as contiguous. */
inline bool strides_like_channels_last(IntArrayRef sizes, IntArrayRef strides, size_t rank) {
  if (sizes.size() != rank || strides[1] == 0) return false;
  int64_t min = 0;
  for (size_t d : channels_last_order(rank)) {
    if (sizes[d] == 0 || strides[d] < min) return false;
    if (d == 0 && min == strides[1]) return false;  // N111 and sliced N11W: contiguous
    min = strides[d];
    if (sizes[d] > 1) min *= sizes[d];
  }
  return true;
}

/*! \brief The memory format of a layout (torch's suggest_memory_format): ChannelsLast or
 *  ChannelsLast3d when the strides read as one, else Contiguous. `exact_match`: only when the
 *  strides are exactly the format's dense strides. */
inline MemoryFormat suggest_memory_format(IntArrayRef sizes, IntArrayRef strides,
                                          bool exact_match = false) {
  for (MemoryFormat format : {MemoryFormat::ChannelsLast, MemoryFormat::ChannelsLast3d}) {
    const size_t rank = channels_last_rank(format);
    if (!strides_like_channels_last(sizes, strides, rank)) continue;
    if (!exact_match || IntArrayRef(channels_last_strides(sizes, format)) == strides) {
      return format;
    }
  }
  return MemoryFormat::Contiguous;
}

}  // namespace detail
}  // namespace sdk

#endif  // SDK_MEMORY_FORMAT_H_
