// sdk/csrc/ops_sort.cpp: raw ops for sorting (sort, topk, kthvalue, median along a dim).
// The public functions in sdk/_ops_sort.py normalize their arguments first.
#include "ops_util.h"

using namespace sdkpy;

namespace {

// sort(x, dim, descending, stable) -> (values, indices)
SDK_PY_FASTCALL(o_sort) {
  sdk_tensor *x, *v = nullptr, *i = nullptr;
  int64_t d;
  int32_t desc, stable;
  if (!check_nargs("sort", nargs, 4, 4) || !tensor_arg(args[0], "sort", "input", &x) ||
      !int_arg(args[1], "sort", "dim", &d) || !bool_arg(args[2], "sort", "descending", &desc) ||
      !bool_arg(args[3], "sort", "stable", &stable))
    return nullptr;
  sdk_status st;
  SDK_PY_RUN_NOGIL_IF_LARGE(numel(x), st = sdk_sort(x, d, desc, stable, &v, &i));
  return result_pair(st, v, i);
}

// topk(x, k, dim, largest, sorted) -> (values, indices)
SDK_PY_FASTCALL(o_topk) {
  sdk_tensor *x, *v = nullptr, *i = nullptr;
  int64_t k, d;
  int32_t largest, sorted;
  if (!check_nargs("topk", nargs, 5, 5) || !tensor_arg(args[0], "topk", "input", &x) ||
      !int_arg(args[1], "topk", "k", &k) || !int_arg(args[2], "topk", "dim", &d) ||
      !bool_arg(args[3], "topk", "largest", &largest) ||
      !bool_arg(args[4], "topk", "sorted", &sorted))
    return nullptr;
  sdk_status st;
  SDK_PY_RUN_NOGIL_IF_LARGE(numel(x), st = sdk_topk(x, k, d, largest, sorted, &v, &i));
  return result_pair(st, v, i);
}

// kthvalue(x, k, dim, keepdim) -> (values, indices)
SDK_PY_FASTCALL(o_kthvalue) {
  sdk_tensor *x, *v = nullptr, *i = nullptr;
  int64_t k, d;
  int32_t keep;
  if (!check_nargs("kthvalue", nargs, 4, 4) || !tensor_arg(args[0], "kthvalue", "input", &x) ||
      !int_arg(args[1], "kthvalue", "k", &k) || !int_arg(args[2], "kthvalue", "dim", &d) ||
      !bool_arg(args[3], "kthvalue", "keepdim", &keep))
    return nullptr;
  sdk_status st;
  SDK_PY_RUN_NOGIL_IF_LARGE(numel(x), st = sdk_kthvalue(x, k, d, keep, &v, &i));
  return result_pair(st, v, i);
}

// median_dim(x, dim, keepdim) -> (values, indices)
SDK_PY_FASTCALL(o_median_dim) {
  sdk_tensor *x, *v = nullptr, *i = nullptr;
  int64_t d;
  int32_t keep;
  if (!check_nargs("median", nargs, 3, 3) || !tensor_arg(args[0], "median", "input", &x) ||
      !int_arg(args[1], "median", "dim", &d) || !bool_arg(args[2], "median", "keepdim", &keep))
    return nullptr;
  sdk_status st;
  SDK_PY_RUN_NOGIL_IF_LARGE(numel(x), st = sdk_median_dim(x, d, keep, &v, &i));
  return result_pair(st, v, i);
}

}  // namespace

PyMethodDef sdkpy::ops_sort_methods[] = {
    SDK_PY_FASTCALL_METHOD("sort", o_sort,
                           "sort(input, dim, descending, stable) -> (values, indices)"),
    SDK_PY_FASTCALL_METHOD("topk", o_topk,
                           "topk(input, k, dim, largest, sorted) -> (values, indices)"),
    SDK_PY_FASTCALL_METHOD("kthvalue", o_kthvalue,
                           "kthvalue(input, k, dim, keepdim) -> (values, indices)"),
    SDK_PY_FASTCALL_METHOD("median_dim", o_median_dim,
                           "median_dim(input, dim, keepdim) -> (values, indices)"),
    {nullptr, nullptr, 0, nullptr}};
