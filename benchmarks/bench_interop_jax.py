"""An SDK op under jax.jit (sdk.interop.jax's one FFI handler) vs a native XLA FFI handler.

python benchmarks/bench_interop_jax.py [--repeat 2000] [--sizes 4,1000000]

The op is muladd (a * b + c, float32): one C++ loop, compiled twice: as an SDK op (SDK_LIBRARY,
its result from sdk::empty, reached through sdk.interop.jax's handler, which copies it into
XLA's buffer) and as a handler written directly against XLA's FFI headers, which computes into
XLA's result buffer. Each row times
``jax.jit(f)(a, b).block_until_ready()`` per call (median and minimum, microseconds, after
warm-up; the two are interleaved). Goals (issue 30): at most 1.2x native for 4 elements,
parity for 1M. Needs jax (skipped with a message when absent).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import _checkout  # noqa: F401  (the sdk under test: the checkout's build or the installed one)

# The op through the SDK: registered once, callable from every framework.
SDK_OP = r"""
#include <sdk/library.h>
static void muladd_loop(const sdk::Tensor& a, const sdk::Tensor& b, double c, sdk::Tensor& out) {
  const float* x = a.data_ptr<float>();
  const float* y = b.data_ptr<float>();
  float* r = out.data_ptr<float>();
  const float cf = static_cast<float>(c);
  for (int64_t i = 0, n = a.numel(); i < n; ++i) r[i] = x[i] * y[i] + cf;
}
sdk::Tensor muladd(const sdk::Tensor& a, const sdk::Tensor& b, double c) {
  SDK_CHECK(a.sizes() == b.sizes() && a.dtype() == sdk::kFloat && b.dtype() == sdk::kFloat,
            "a and b must be float32 tensors of one shape");
  sdk::Tensor out = sdk::empty(a.sizes(), a.options());
  muladd_loop(a, b, c, out);
  return out;
}
sdk::Tensor muladd_out(const sdk::Tensor& a, const sdk::Tensor& b, double c, sdk::Tensor& out) {
  SDK_CHECK(a.sizes() == b.sizes() && a.dtype() == sdk::kFloat && b.dtype() == sdk::kFloat &&
            out.sizes() == a.sizes() && out.dtype() == sdk::kFloat && out.is_contiguous(),
            "a, b and out must be float32 tensors of one shape");
  muladd_loop(a, b, c, out);
  return out;
}
SDK_LIBRARY(bench_jax, m) {
  m.def("muladd(Tensor a, Tensor b, float c) -> Tensor");
  m.def("muladd.out(Tensor a, Tensor b, float c, *, Tensor(a!) out) -> Tensor(a!)");
  m.def("muladd_nocopy(Tensor a, Tensor b, float c) -> Tensor");  // no out= form: one copy
}
SDK_LIBRARY_IMPL(bench_jax, CPU, m) {
  m.impl("muladd", &muladd);
  m.impl("muladd.out", &muladd_out);
  m.impl("muladd_nocopy", &muladd);
}
"""

# The native way: one XLA FFI handler per op, written against jaxlib's headers.
NATIVE = r"""
#include <sdk/export.h>  // only so that cpp_extension's loader accepts the library
#include "xla/ffi/api/ffi.h"
namespace ffi = xla::ffi;
static ffi::Error muladd(ffi::Buffer<ffi::F32> a, ffi::Buffer<ffi::F32> b, float c,
                         ffi::ResultBuffer<ffi::F32> out) {
  if (a.element_count() != b.element_count()) return ffi::Error::InvalidArgument("shapes");
  const float* x = a.typed_data();
  const float* y = b.typed_data();
  float* r = out->typed_data();
  for (size_t i = 0, n = a.element_count(); i < n; ++i) r[i] = x[i] * y[i] + c;
  return ffi::Error::Success();
}
XLA_FFI_DEFINE_HANDLER(kMuladd, muladd,
                       ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Arg<ffi::Buffer<ffi::F32>>()
                           .Attr<float>("c").Ret<ffi::Buffer<ffi::F32>>());
extern "C" SDK_EXPORT_VISIBLE XLA_FFI_Error* native_muladd(XLA_FFI_CallFrame* f) {
  return kMuladd(f);
}
"""


NATIVE_ROW = "native"


def build() -> dict:
    import jax
    import numpy as np

    import cpp_extension
    import sdk.interop.jax

    cpp_extension.load_inline(
        "bench_jax_ops", [SDK_OP], extra_cflags=["-O3"], is_python_module=False
    )
    native = cpp_extension.load_inline(
        "native_xla_muladd",
        [NATIVE],
        extra_cflags=["-O3", "-isystem", jax.ffi.include_dir()],
        is_python_module=False,
    )
    jax.ffi.register_ffi_target(
        "native_muladd", jax.ffi.pycapsule(native._lib.native_muladd), platform="cpu"
    )
    sdk.interop.jax.build_handler()  # now, not inside the first timed call
    shape = {"muladd": lambda a, b, c: a, "muladd_nocopy": lambda a, b, c: a}
    ops = sdk.interop.jax.register("bench_jax", shapes=shape)

    def via_native(a, b):
        call = jax.ffi.ffi_call("native_muladd", jax.ShapeDtypeStruct(a.shape, a.dtype))
        return call(a, b, c=np.float32(0.5))

    return {
        NATIVE_ROW: jax.jit(via_native),
        "sdk": jax.jit(lambda a, b: ops.muladd(a, b, 0.5)),
        "sdk, copy": jax.jit(lambda a, b: ops.muladd_nocopy(a, b, 0.5)),
    }


def timed(fn, a, b, repeat: int, clock) -> list[float]:
    times = []
    for _ in range(repeat):
        start = clock()
        fn(a, b).block_until_ready()
        times.append(clock() - start)
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=2000)
    parser.add_argument("--sizes", default="4,1000000")
    parser.add_argument(
        "--clock",
        choices=("wall", "cpu"),
        default="wall",
        help="cpu: the process's CPU time (all threads), steadier than wall time on a busy "
        "machine, since time spent preempted is not counted",
    )
    args = parser.parse_args()
    try:
        import jax
        import jax.numpy as jnp
    except ImportError:
        print("jax is not installed: nothing to measure")
        return 0
    fns = build()
    clock = time.process_time if args.clock == "cpu" else time.perf_counter
    print(f"jax {jax.__version__}, {jax.devices()[0].platform}; {args.clock} time per call, us: "
          "median (min); ratio to native: of the medians (of the mins)")  # fmt: skip
    print(f"{'elements':>10}" + "".join(f"{name:>24}" for name in fns) + "".join(
        f"{'ratio ' + name:>16}" for name in list(fns)[1:]))  # fmt: skip
    for n in (int(s) for s in args.sizes.split(",")):
        a = jnp.linspace(0.0, 1.0, n, dtype=jnp.float32)
        b = jnp.linspace(1.0, 2.0, n, dtype=jnp.float32)
        expected = a * b + 0.5
        for name, fn in fns.items():  # compile, warm up and check each
            assert bool(jnp.allclose(fn(a, b), expected)), name
        repeat = args.repeat if n <= 100_000 else max(50, args.repeat // 20)
        times: dict[str, list[float]] = {name: [] for name in fns}
        for _ in range(5):  # interleaved rounds: drift hits all alike
            for name, fn in fns.items():
                times[name] += timed(fn, a, b, repeat // 5, clock)
        med = {k: statistics.median(t) * 1e6 for k, t in times.items()}
        low = {k: min(t) * 1e6 for k, t in times.items()}
        row = f"{n:>10}" + "".join(f"{med[k]:>14.2f} ({low[k]:>7.2f})" for k in fns)
        row += "".join(
            f"{f'{med[k] / med[NATIVE_ROW]:.2f} ({low[k] / low[NATIVE_ROW]:.2f})':>16}"
            for k in list(fns)[1:]
        )
        print(row)
    return 0


if __name__ == "__main__":
    sys.exit(main())
