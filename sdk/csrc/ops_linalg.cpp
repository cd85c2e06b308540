// sdk/csrc/ops_linalg.cpp: raw ops of sdk._C for linear algebra (mm, bmm, matmul, mv, dot, addmm).
#include "ops_util.h"

using namespace sdkpy;

namespace {

// ---- linear algebra ------------------------------------------------------------------------

using MatFn = sdk_status (*)(const sdk_tensor*, const sdk_tensor*, sdk_tensor*, sdk_tensor**);
PyObject* matop(PyObject* const* args, Py_ssize_t nargs, const char* op, const char* an,
                const char* bn, MatFn fn) {
  sdk_tensor *a, *b, *out, *r = nullptr;
  if (!check_nargs(op, nargs, 2, 3) || !tensor_arg(args[0], op, an, &a) ||
      !tensor_arg(args[1], op, bn, &b) ||
      !opt_tensor_arg(arg_or_none(args, nargs, 2), op, "out", &out))
    return nullptr;
  sdk_status st;
  Py_BEGIN_ALLOW_THREADS;
  st = fn(a, b, out, &r);
  Py_END_ALLOW_THREADS;
  return finish(st, &r, arg_or_none(args, nargs, 2));
}
SDK_PY_FASTCALL(o_mm) { return matop(args, nargs, "mm", "input", "mat2", sdk_mm); }
SDK_PY_FASTCALL(o_bmm) { return matop(args, nargs, "bmm", "input", "mat2", sdk_bmm); }
SDK_PY_FASTCALL(o_matmul) { return matop(args, nargs, "matmul", "input", "other", sdk_matmul); }
SDK_PY_FASTCALL(o_mv) { return matop(args, nargs, "mv", "input", "vec", sdk_mv); }

SDK_PY_FASTCALL(o_dot) {
  sdk_tensor *a, *b, *r = nullptr;
  if (!check_nargs("dot", nargs, 2, 2) || !tensor_arg(args[0], "dot", "input", &a) ||
      !tensor_arg(args[1], "dot", "tensor", &b))
    return nullptr;
  sdk_status st;
  SDK_PY_RUN_NOGIL_IF_LARGE(numel(a), st = sdk_dot(a, b, &r));
  return finish(st, &r, nullptr);
}

// addmm(input, mat1, mat2, beta, alpha, out=None)
SDK_PY_FASTCALL(o_addmm) {
  sdk_tensor *c, *a, *b, *out, *r = nullptr;
  sdk_scalar beta, alpha;
  if (!check_nargs("addmm", nargs, 5, 6) || !tensor_arg(args[0], "addmm", "input", &c) ||
      !tensor_arg(args[1], "addmm", "mat1", &a) || !tensor_arg(args[2], "addmm", "mat2", &b) ||
      !scalar_arg(args[3], "addmm", "beta", &beta) ||
      !scalar_arg(args[4], "addmm", "alpha", &alpha) ||
      !opt_tensor_arg(arg_or_none(args, nargs, 5), "addmm", "out", &out))
    return nullptr;
  sdk_status st;
  Py_BEGIN_ALLOW_THREADS;
  st = sdk_addmm(c, a, b, beta, alpha, out, &r);
  Py_END_ALLOW_THREADS;
  return finish(st, &r, arg_or_none(args, nargs, 5));
}

}  // namespace

PyMethodDef sdkpy::ops_linalg_methods[] = {
    SDK_PY_FASTCALL_METHOD("mm", o_mm, "mm(input, mat2, out=None)"),
    SDK_PY_FASTCALL_METHOD("bmm", o_bmm, "bmm(input, mat2, out=None)"),
    SDK_PY_FASTCALL_METHOD("matmul", o_matmul, "matmul(input, other, out=None)"),
    SDK_PY_FASTCALL_METHOD("mv", o_mv, "mv(input, vec, out=None)"),
    SDK_PY_FASTCALL_METHOD("dot", o_dot, "dot(input, tensor)"),
    SDK_PY_FASTCALL_METHOD("addmm", o_addmm, "addmm(input, mat1, mat2, beta, alpha, out=None)"),
    {nullptr, nullptr, 0, nullptr}};
