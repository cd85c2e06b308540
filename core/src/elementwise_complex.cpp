// core/src/elementwise_complex.cpp: the kernels that take complex64 and complex128 (add, sub,
// mul, div, eq, ne, neg, abs), kept out of the generic dispatch so that no other kernel
// compiles two more types.
#include <cmath>

#include "binary_kernels.h"
#include "cuda/glue/cuda_glue.h"

namespace sdk::detail {
namespace {

template <typename T>
bool complex_kernel(int op, const Launch& L) {
  switch (op) {
    case SDK_ADD:
      L.binary_libm<T, T>([](T a, T b) { return a + b; });
      return true;
    case SDK_SUB:
      L.binary_libm<T, T>([](T a, T b) { return a - b; });
      return true;
    case SDK_MUL:
      L.binary_libm<T, T>([](T a, T b) { return a * b; });
      return true;
    case SDK_DIV:
      L.binary_libm<T, T>([](T a, T b) { return a / b; });
      return true;
    case SDK_EQ:
      L.binary_libm<bool, T>([](T a, T b) { return a == b; });
      return true;
    case SDK_NE:
      L.binary_libm<bool, T>([](T a, T b) { return a != b; });
      return true;
    default:
      return false;
  }
}

}  // namespace

bool binary_complex(int op, sdk_dtype compute, const Launch& L) {
  if (!is_complex(compute)) return false;
  return SDK_DISPATCH_COMPLEX(compute, binary_name(op),
                              [&] { return complex_kernel<scalar_t>(op, L); });
}

bool complex_binary_op(int op) {
  return op == SDK_ADD || op == SDK_SUB || op == SDK_MUL || op == SDK_DIV || op == SDK_EQ ||
         op == SDK_NE;
}

void store_complex_scalar(sdk_dtype compute, const sdk_scalar& s, char* buf) {
  SDK_DISPATCH_COMPLEX(compute, "scalar", [&] {
    *reinterpret_cast<scalar_t*>(buf) = scalar_t(scalar_as<typename scalar_t::value_type>(s));
  });
}

void unary_complex(int op, const TensorImpl& tx, sdk_tensor* out, sdk_tensor** result) {
  const char* name = unary_op_name(op);
  if (op != SDK_NEG && op != SDK_ABS) {
    SDK_FAIL(SDK_ERROR_TYPE, name, ": unsupported dtype ", dtype_name(tx.dtype));
  }
  if (cuda::is_cuda(tx)) {
    SDK_FAIL(SDK_ERROR_NOT_IMPLEMENTED, name, ": ", dtype_name(tx.dtype),
             " tensors are not implemented on CUDA; keep them on the CPU");
  }
  if (op == SDK_ABS && out && is_complex(sdk_tensor_dtype(out))) {  // torch refuses it too
    SDK_FAIL(SDK_ERROR_TYPE, "abs: the result of a ", dtype_name(tx.dtype),
             " tensor is real and cannot be written into a complex tensor (in-place abs_ is not "
             "supported for complex tensors)");
  }
  // abs is real, as torch's: |z| of the parts' type, without overflow in between (hypot).
  const sdk_dtype rdt = op == SDK_ABS ? complex_part(tx.dtype) : tx.dtype;
  OutPlan plan;
  plan.prepare(name, out, tx.ndim, tx.sizes, rdt, {&tx});
  Ref hx;
  const TensorImpl* ix = plan.fix_alias(&tx, hx);
  TensorImpl& o = *plan.target;
  if (o.numel > 0) {
    TensorIter it;
    Launch L = make_launch(o, {ix}, it, name);
    SDK_DISPATCH_COMPLEX(tx.dtype, name, [&] {
      using P = typename scalar_t::value_type;
      if (op == SDK_NEG) {
        L.unary_libm<scalar_t, scalar_t>([](scalar_t z) { return -z; });
      } else {
        L.unary_libm<P, scalar_t>([](scalar_t z) { return std::hypot(z.real(), z.imag()); });
      }
    });
  }
  plan.finish(result);
}

}  // namespace sdk::detail
