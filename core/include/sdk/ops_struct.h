// sdk/ops_struct.h: sorting, scans, scatter/index and reordering ops, kept as one include for
// code written against it; each family has its own header (sort.h, scan.h, scatter.h, layout.h).
#ifndef SDK_OPS_STRUCT_H_
#define SDK_OPS_STRUCT_H_

#include "sdk/layout.h"
#include "sdk/scan.h"
#include "sdk/scatter.h"
#include "sdk/sort.h"

#endif  // SDK_OPS_STRUCT_H_
