// lltm_ctypes.cpp: the LLTM op over the plain C ABI, exported to Python by the ctypes bridge.
//
// No binding library and no C++ tensor API: only sdk/c_api.h and sdk/export.h, so it
// compiles in a fraction of a second. Build: cpp_extension.load(..., is_python_module=False).
// Every call returns an sdk_status; failures are recorded with sdk_set_last_error and the
// bridge raises them in Python.
#include <sdk/export.h>

#include <cstdint>
#include <cstdio>

namespace {

// Owns one tensor reference; released when it goes out of scope (also on error paths).
class Ref {
 public:
  Ref() = default;
  Ref(const Ref&) = delete;
  Ref& operator=(const Ref&) = delete;
  ~Ref() { sdk_tensor_release(t_); }
  sdk_tensor** out() { return &t_; }  // for ops that write a new reference
  sdk_tensor* get() const { return t_; }
  sdk_tensor* release() {  // hand the reference to the caller
    sdk_tensor* t = t_;
    t_ = nullptr;
    return t;
  }

 private:
  sdk_tensor* t_ = nullptr;
};

#define TRY(call)                          \
  do {                                     \
    sdk_status status_ = (call);           \
    if (status_ != SDK_OK) return status_; \
  } while (0)

sdk_scalar f64(double v) { return sdk_scalar{v, 0, SDK_SCALAR_FLOAT, 0}; }

// out = a * b (a fresh tensor)
sdk_status mul(const sdk_tensor* a, const sdk_tensor* b, Ref& out) {
  return sdk_binary(SDK_MUL, a, b, nullptr, out.out());
}

// inout *= b, in place
sdk_status mul_(Ref& inout, const sdk_tensor* b) {
  sdk_tensor* r = nullptr;
  TRY(sdk_binary(SDK_MUL, inout.get(), b, inout.get(), &r));
  sdk_tensor_release(r);
  return SDK_OK;
}

// s'(z) = (1 - s) * s
sdk_status d_sigmoid(const sdk_tensor* z, Ref& out) {
  Ref s;
  TRY(sdk_unary(SDK_SIGMOID, z, nullptr, s.out()));
  TRY(sdk_binary_scalar(SDK_SUB, s.get(), f64(1.0), /*scalar_first=*/1, nullptr, out.out()));
  return mul_(out, s.get());
}

// tanh'(z) = 1 - tanh(z)^2, from t = tanh(z)
sdk_status d_tanh_from_tanh(const sdk_tensor* t, Ref& out) {
  TRY(sdk_unary(SDK_SQUARE, t, nullptr, out.out()));
  sdk_tensor* r = nullptr;
  TRY(sdk_binary_scalar(SDK_SUB, out.get(), f64(1.0), 1, out.get(), &r));
  sdk_tensor_release(r);
  return SDK_OK;
}

// elu'(z) = [z > 0] + [e^z - 1 < 0] * e^z  (alpha = 1)
sdk_status d_elu(const sdk_tensor* z, Ref& out) {
  Ref e, em1, neg, pos, negf;
  TRY(sdk_unary(SDK_EXP, z, nullptr, e.out()));
  TRY(sdk_binary_scalar(SDK_SUB, e.get(), f64(1.0), 0, nullptr, em1.out()));
  TRY(sdk_binary_scalar(SDK_LT, em1.get(), f64(0.0), 0, nullptr, neg.out()));
  TRY(sdk_binary_scalar(SDK_GT, z, f64(0.0), 0, nullptr, pos.out()));
  TRY(sdk_to_dtype(neg.get(), sdk_tensor_dtype(z), 0, negf.out()));
  TRY(mul(negf.get(), e.get(), out));
  sdk_tensor* r = nullptr;
  TRY(sdk_binary(SDK_ADD, out.get(), pos.get(), out.get(), &r));
  sdk_tensor_release(r);
  return SDK_OK;
}

// The gates G (B, 3S) split into its three (B, S) column blocks (views).
sdk_status chunk3(const sdk_tensor* G, Ref (&parts)[3]) {
  int64_t s = sdk_tensor_sizes(G)[1] / 3;
  const int64_t sizes[3] = {s, s, s};
  sdk_tensor* out[3] = {nullptr, nullptr, nullptr};
  TRY(sdk_split_with_sizes(G, 3, sizes, 1, out));
  for (int k = 0; k < 3; ++k) *parts[k].out() = out[k];
  return SDK_OK;
}

sdk_status expect_2d(const char* op, const char* name, const sdk_tensor* t, int64_t rows,
                     int64_t cols) {
  const int64_t* sz = sdk_tensor_sizes(t);
  if (sdk_tensor_ndim(t) == 2 && (rows < 0 || sz[0] == rows) && (cols < 0 || sz[1] == cols)) {
    return SDK_OK;
  }
  char msg[256];
  if (sdk_tensor_ndim(t) == 2) {
    std::snprintf(msg, sizeof msg, "%s: %s must have shape (%lld, %lld), got (%lld, %lld)", op,
                  name, (long long)rows, (long long)cols, (long long)sz[0], (long long)sz[1]);
  } else {
    std::snprintf(msg, sizeof msg, "%s: %s must be 2-D, got %lld dims", op, name,
                  (long long)sdk_tensor_ndim(t));
  }
  return sdk_set_last_error(SDK_ERROR_VALUE, msg);
}

sdk_status expect_float(const char* op, const char* name, const sdk_tensor* t) {
  sdk_dtype d = sdk_tensor_dtype(t);
  if (d == SDK_FLOAT32 || d == SDK_FLOAT64) return SDK_OK;
  char msg[160];
  std::snprintf(msg, sizeof msg, "%s: %s must be float32 or float64, got %s", op, name,
                sdk_dtype_name(d));
  return sdk_set_last_error(SDK_ERROR_TYPE, msg);
}

}  // namespace

SDK_EXPORT(lltm_forward,
           "(Tensor input, Tensor weights, Tensor bias, Tensor old_h, Tensor old_cell) -> "
           "(Tensor new_h, Tensor new_cell, Tensor input_gate, Tensor output_gate, "
           "Tensor candidate_cell, Tensor X, Tensor gate_weights)")
sdk_status lltm_forward(const sdk_tensor* input, const sdk_tensor* weights, const sdk_tensor* bias,
                        const sdk_tensor* old_h, const sdk_tensor* old_cell, sdk_tensor** new_h,
                        sdk_tensor** new_cell, sdk_tensor** input_gate, sdk_tensor** output_gate,
                        sdk_tensor** candidate_cell, sdk_tensor** X, sdk_tensor** gate_weights) {
  SDK_EXPORT_TRY
  const char* op = "lltm_forward";
  TRY(expect_float(op, "input", input));
  TRY(expect_2d(op, "input", input, -1, -1));
  const int64_t batch = sdk_tensor_sizes(input)[0];
  const int64_t features = sdk_tensor_sizes(input)[1];
  TRY(expect_2d(op, "old_h", old_h, batch, -1));
  const int64_t state = sdk_tensor_sizes(old_h)[1];
  TRY(expect_2d(op, "old_cell", old_cell, batch, state));
  TRY(expect_2d(op, "weights", weights, 3 * state, state + features));
  TRY(expect_2d(op, "bias", bias, 1, 3 * state));

  Ref x, wt, g, gates[3], i, o, c, cell, t, h;
  const sdk_tensor* parts[2] = {old_h, input};
  TRY(sdk_cat(2, parts, 1, nullptr, x.out()));
  TRY(sdk_transpose(weights, 0, 1, wt.out()));
  TRY(sdk_addmm(bias, x.get(), wt.get(), f64(1.0), f64(1.0), nullptr, g.out()));
  TRY(chunk3(g.get(), gates));
  TRY(sdk_unary(SDK_SIGMOID, gates[0].get(), nullptr, i.out()));
  TRY(sdk_unary(SDK_SIGMOID, gates[1].get(), nullptr, o.out()));
  TRY(sdk_elu(gates[2].get(), 1.0, nullptr, c.out()));
  TRY(mul(c.get(), i.get(), cell));  // C' = old_cell + c~ * i
  sdk_tensor* r = nullptr;
  TRY(sdk_binary(SDK_ADD, cell.get(), old_cell, cell.get(), &r));
  sdk_tensor_release(r);
  TRY(sdk_unary(SDK_TANH, cell.get(), nullptr, t.out()));
  TRY(mul(t.get(), o.get(), h));  // h' = tanh(C') * o

  *new_h = h.release();
  *new_cell = cell.release();
  *input_gate = i.release();
  *output_gate = o.release();
  *candidate_cell = c.release();
  *X = x.release();
  *gate_weights = g.release();
  return SDK_OK;
  SDK_EXPORT_CATCH
}

SDK_EXPORT(lltm_backward,
           "(Tensor grad_h, Tensor grad_cell, Tensor new_cell, Tensor input_gate, "
           "Tensor output_gate, Tensor candidate_cell, Tensor X, Tensor gate_weights, "
           "Tensor weights) -> "
           "(Tensor d_old_h, Tensor d_input, Tensor d_weights, Tensor d_bias, Tensor d_old_cell)")
sdk_status lltm_backward(const sdk_tensor* grad_h, const sdk_tensor* grad_cell,
                         const sdk_tensor* new_cell, const sdk_tensor* input_gate,
                         const sdk_tensor* output_gate, const sdk_tensor* candidate_cell,
                         const sdk_tensor* X, const sdk_tensor* gate_weights,
                         const sdk_tensor* weights, sdk_tensor** d_old_h, sdk_tensor** d_input,
                         sdk_tensor** d_weights, sdk_tensor** d_bias, sdk_tensor** d_old_cell) {
  SDK_EXPORT_TRY
  const char* op = "lltm_backward";
  TRY(expect_2d(op, "grad_h", grad_h, -1, -1));
  const int64_t batch = sdk_tensor_sizes(grad_h)[0];
  const int64_t state = sdk_tensor_sizes(grad_h)[1];
  TRY(expect_2d(op, "grad_cell", grad_cell, batch, state));
  TRY(expect_2d(op, "new_cell", new_cell, batch, state));
  TRY(expect_2d(op, "gate_weights", gate_weights, batch, 3 * state));
  TRY(expect_2d(op, "X", X, batch, -1));
  TRY(expect_2d(op, "weights", weights, 3 * state, sdk_tensor_sizes(X)[1]));

  Ref t, d_o, d_tanh_cell, d_cell, d_c, d_i, gates[3], dgates, dgt, dw, db, dx, oh, in;
  sdk_tensor* r = nullptr;
  TRY(sdk_unary(SDK_TANH, new_cell, nullptr, t.out()));
  TRY(mul(t.get(), grad_h, d_o));
  TRY(mul(output_gate, grad_h, d_tanh_cell));
  TRY(d_tanh_from_tanh(t.get(), d_cell));  // dC' = tanh'(C') * (o * dh) + dC
  TRY(mul_(d_cell, d_tanh_cell.get()));
  TRY(sdk_binary(SDK_ADD, d_cell.get(), grad_cell, d_cell.get(), &r));
  sdk_tensor_release(r);
  TRY(mul(input_gate, d_cell.get(), d_c));
  TRY(mul(candidate_cell, d_cell.get(), d_i));

  TRY(chunk3(gate_weights, gates));
  Ref dsi, dso, dec;
  TRY(d_sigmoid(gates[0].get(), dsi));
  TRY(mul_(d_i, dsi.get()));
  TRY(d_sigmoid(gates[1].get(), dso));
  TRY(mul_(d_o, dso.get()));
  TRY(d_elu(gates[2].get(), dec));
  TRY(mul_(d_c, dec.get()));

  const sdk_tensor* parts[3] = {d_i.get(), d_o.get(), d_c.get()};
  TRY(sdk_cat(3, parts, 1, nullptr, dgates.out()));
  TRY(sdk_transpose(dgates.get(), 0, 1, dgt.out()));
  TRY(sdk_mm(dgt.get(), X, nullptr, dw.out()));
  const int64_t dim0 = 0;
  TRY(sdk_reduce(SDK_SUM, dgates.get(), 1, &dim0, /*keepdim=*/1, -1, nullptr, db.out()));
  TRY(sdk_mm(dgates.get(), weights, nullptr, dx.out()));
  TRY(sdk_slice(dx.get(), 1, 0, state, 1, oh.out()));
  TRY(sdk_slice(dx.get(), 1, state, INT64_MAX, 1, in.out()));

  *d_old_h = oh.release();
  *d_input = in.release();
  *d_weights = dw.release();
  *d_bias = db.release();
  *d_old_cell = d_cell.release();
  return SDK_OK;
  SDK_EXPORT_CATCH
}
