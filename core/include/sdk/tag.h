// sdk/tag.h: torch's operator tags (at::Tag) and its selective-build name macros, which ported
// registrations pass to Library::def.
//
// The SDK's registry has no compiler passes that read tags: Library::def accepts them (so
// `m.def(schema, {at::Tag::pt2_compliant_tag})` ports unchanged) and the op behaves the same
// with or without them.
#ifndef SDK_TAG_H_
#define SDK_TAG_H_

#include <cstdint>

namespace sdk {

/*! \brief torch's at::Tag values (the names of tags.yaml). */
enum class Tag : int32_t {
  core,
  cudagraph_unsafe,
  data_dependent_output,
  dynamic_output_shape,
  flexible_layout,
  generated,
  inplace_view,
  maybe_aliasing_or_mutating,
  needs_contiguous_strides,
  needs_exact_strides,
  needs_fixed_stride_order,
  nondeterministic_bitwise,
  nondeterministic_seeded,
  pointwise,
  pt2_compliant_tag,
  reduction,
  view_copy,
};

}  // namespace sdk

/*! \brief torch's TORCH_SELECTIVE_NAME / TORCH_SELECTIVE_SCHEMA: the SDK registers every op
 *  (no selective build), so both give their argument unchanged. */
#define SDK_SELECTIVE_NAME(n) n
#define SDK_SELECTIVE_SCHEMA(n) n
#define SDK_SELECTIVE_CLASS(n) n

#endif  // SDK_TAG_H_
