// sdk/csrc/ops_nn.cpp: raw ops for the C ABI's nn layers (layer_norm, convolution) and einsum.
// Forward and backward.
#include "ops_util.h"

using namespace sdkpy;

namespace {

// (t0, t1, t2): new tensors around the handles (stolen), None for NULL.
PyObject* tuple_or_none(sdk_tensor* (&rs)[3]) {
  PyObject* tup = PyTuple_New(3);
  for (int i = 0; i < 3; ++i) {
    PyObject* x = nullptr;
    if (tup) {
      x = rs[i] ? wrap(rs[i]) : (Py_INCREF(Py_None), Py_None);
    } else {
      sdk_tensor_release(rs[i]);
    }
    if (tup && !x) Py_CLEAR(tup);
    if (x && tup) PyTuple_SET_ITEM(tup, i, x);
    if (x && !tup) Py_DECREF(x);
  }
  return tup;
}

// layer_norm(input, normalized_ndim, weight, bias, eps) -> (output, mean, rstd)
SDK_PY_FASTCALL(o_layer_norm) {
  const char* op = "layer_norm";
  sdk_tensor *x, *w, *b;
  int64_t nd;
  double eps;
  if (!check_nargs(op, nargs, 5, 5) || !tensor_arg(args[0], op, "input", &x) ||
      !int_arg(args[1], op, "normalized_ndim", &nd) || !opt_tensor_arg(args[2], op, "weight", &w) ||
      !opt_tensor_arg(args[3], op, "bias", &b) || !double_arg(args[4], op, "eps", &eps))
    return nullptr;
  sdk_tensor* rs[3] = {};
  sdk_status st;
  SDK_PY_RUN_NOGIL_IF_LARGE(numel(x),
                            st = sdk_layer_norm(x, nd, w, b, eps, &rs[0], &rs[1], &rs[2]));
  if (st != SDK_OK) return raise_last_error();
  return tuple_or_none(rs);
}

// layer_norm_backward(grad, input, mean, rstd, normalized_ndim, weight, mask) -> (gx, gw, gb)
SDK_PY_FASTCALL(o_layer_norm_backward) {
  const char* op = "layer_norm_backward";
  sdk_tensor *gy, *x, *mu, *rs, *w;
  int64_t nd, mask;
  if (!check_nargs(op, nargs, 7, 7) || !tensor_arg(args[0], op, "grad_output", &gy) ||
      !tensor_arg(args[1], op, "input", &x) || !tensor_arg(args[2], op, "mean", &mu) ||
      !tensor_arg(args[3], op, "rstd", &rs) || !int_arg(args[4], op, "normalized_ndim", &nd) ||
      !opt_tensor_arg(args[5], op, "weight", &w) || !int_arg(args[6], op, "output_mask", &mask))
    return nullptr;
  sdk_tensor* out[3] = {};
  sdk_status st;
  SDK_PY_RUN_NOGIL_IF_LARGE(
      numel(x), st = sdk_layer_norm_backward(gy, x, mu, rs, nd, w, static_cast<int32_t>(mask),
                                             &out[0], &out[1], &out[2]));
  if (st != SDK_OK) return raise_last_error();
  return tuple_or_none(out);
}

// stride, padding, dilation: sequences of one length (the number of spatial dims)
bool conv_params(PyObject* const* args, const char* op, std::vector<int64_t> (&p)[3]) {
  const char* names[3] = {"stride", "padding", "dilation"};
  for (int i = 0; i < 3; ++i) {
    if (!ints_arg(args[i], op, names[i], &p[i], false)) return false;
  }
  if (p[0].size() != p[1].size() || p[0].size() != p[2].size()) {
    PyErr_Format(module_state.invalid_argument_error,
                 "%s: stride, padding and dilation must have one value per spatial dim", op);
    return false;
  }
  return true;
}

// convolution(input, weight, bias, stride, padding, dilation, groups)
SDK_PY_FASTCALL(o_convolution) {
  const char* op = "convolution";
  sdk_tensor *x, *w, *b, *r = nullptr;
  std::vector<int64_t> p[3];
  int64_t groups;
  if (!check_nargs(op, nargs, 7, 7) || !tensor_arg(args[0], op, "input", &x) ||
      !tensor_arg(args[1], op, "weight", &w) || !opt_tensor_arg(args[2], op, "bias", &b) ||
      !conv_params(args + 3, op, p) || !int_arg(args[6], op, "groups", &groups))
    return nullptr;
  sdk_status st;
  SDK_PY_RUN_NOGIL_IF_LARGE(
      numel(x) + numel(w), st = sdk_convolution(x, w, b, static_cast<int64_t>(p[0].size()),
                                                p[0].data(), p[1].data(), p[2].data(), groups, &r));
  return finish(st, &r, nullptr);
}

// convolution_backward(grad, input, weight, stride, padding, dilation, groups, mask)
SDK_PY_FASTCALL(o_convolution_backward) {
  const char* op = "convolution_backward";
  sdk_tensor *gy, *x, *w;
  std::vector<int64_t> p[3];
  int64_t groups, mask;
  if (!check_nargs(op, nargs, 8, 8) || !tensor_arg(args[0], op, "grad_output", &gy) ||
      !tensor_arg(args[1], op, "input", &x) || !tensor_arg(args[2], op, "weight", &w) ||
      !conv_params(args + 3, op, p) || !int_arg(args[6], op, "groups", &groups) ||
      !int_arg(args[7], op, "output_mask", &mask))
    return nullptr;
  sdk_tensor* out[3] = {};
  sdk_status st;
  SDK_PY_RUN_NOGIL_IF_LARGE(
      numel(x) + numel(gy),
      st = sdk_convolution_backward(gy, x, w, static_cast<int64_t>(p[0].size()), p[0].data(),
                                    p[1].data(), p[2].data(), groups, static_cast<int32_t>(mask),
                                    &out[0], &out[1], &out[2]));
  if (st != SDK_OK) return raise_last_error();
  return tuple_or_none(out);
}

// einsum(equation, operands)
SDK_PY_FASTCALL(o_einsum) {
  const char* op = "einsum";
  if (!check_nargs(op, nargs, 2, 2)) return nullptr;
  const char* eq = PyUnicode_Check(args[0]) ? PyUnicode_AsUTF8(args[0]) : nullptr;
  if (!eq) {
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "einsum(): equation must be a str");
    return nullptr;
  }
  // The snapshot keeps the operands alive while the op runs (without the GIL when large).
  PyObject* seq = sequence_snapshot(args[1], "einsum(): operands must be a sequence of tensors");
  if (!seq) return nullptr;
  Py_ssize_t n = PyTuple_GET_SIZE(seq);
  std::vector<sdk_tensor*> hs(static_cast<size_t>(n));
  int64_t total = 0;
  for (Py_ssize_t i = 0; i < n; ++i) {
    if (!tensor_arg(PyTuple_GET_ITEM(seq, i), op, "operands", &hs[size_t(i)])) {
      Py_DECREF(seq);
      return nullptr;
    }
    total = add_numel(total, numel(hs[size_t(i)]));
  }
  sdk_tensor* r = nullptr;
  sdk_status st;
  SDK_PY_RUN_NOGIL_IF_LARGE(total, st = sdk_einsum(eq, n, hs.data(), &r));
  Py_DECREF(seq);
  return finish(st, &r, nullptr);
}

}  // namespace

PyMethodDef sdkpy::ops_nn_methods[] = {
    SDK_PY_FASTCALL_METHOD(
        "layer_norm", o_layer_norm,
        "layer_norm(input, normalized_ndim, weight, bias, eps) -> (output, mean, rstd)"),
    SDK_PY_FASTCALL_METHOD(
        "layer_norm_backward", o_layer_norm_backward,
        "layer_norm_backward(grad, input, mean, rstd, normalized_ndim, weight, mask)"),
    SDK_PY_FASTCALL_METHOD("convolution", o_convolution,
                           "convolution(input, weight, bias, stride, padding, dilation, groups)"),
    SDK_PY_FASTCALL_METHOD(
        "convolution_backward", o_convolution_backward,
        "convolution_backward(grad, input, weight, stride, padding, dilation, groups, mask)"),
    SDK_PY_FASTCALL_METHOD("einsum", o_einsum, "einsum(equation, operands)"),
    {nullptr, nullptr, 0, nullptr}};
