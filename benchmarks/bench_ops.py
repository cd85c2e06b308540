"""Per-call cost of a registered operator: sdk.ops.<ns>.<op>(a, b) against the same C++
function bound with pybind11, and against torch.ops for the same op built with torch (when
torch is importable). 4-element float32 tensors, so the call path is what is measured.

    python benchmarks/bench_ops.py [--repeat 7] [--json PATH]

Goals (issue: operator registration): sdk.ops call <= 1.5x the pybind11-bound function and
<= 0.3x torch.ops. Each implementation's repeats are interleaved, so a slow moment of a
shared machine slows every column alike; the table reports the best of the repeats.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import timeit

import _checkout  # noqa: F401  (the sdk under test: the checkout's build or the installed one)

KERNEL = """
{include}
{ns}::Tensor mymul({ns}::Tensor const& a, {ns}::Tensor const& b) {{
  {check}(a.sizes() == b.sizes(), "a and b must have the same shape");
  {ns}::Tensor ac = a.contiguous(), bc = b.contiguous();
  {ns}::Tensor r = {ns}::empty(ac.sizes(), ac.options());
  const float* x = ac.data_ptr<float>();
  const float* y = bc.data_ptr<float>();
  float* z = r.data_ptr<float>();
  const int64_t n = r.numel();  // once: numel() is a call the compiler cannot hoist
  for (int64_t i = 0; i < n; i++) z[i] = x[i] * y[i];
  return r;
}}
"""
SDK_LIB = (
    KERNEL.format(include="#include <sdk/library.h>", ns="sdk", check="SDK_CHECK")
    + """
SDK_LIBRARY(bench_ops, m) { m.def("mymul(Tensor a, Tensor b) -> Tensor"); }
SDK_LIBRARY_IMPL(bench_ops, CPU, m) { m.impl("mymul", &mymul); }
"""
)
SDK_PYBIND = (
    KERNEL.format(include="#include <sdk/extension.h>", ns="sdk", check="SDK_CHECK")
    + """
PYBIND11_MODULE(SDK_EXTENSION_NAME, m) { m.def("mymul", &mymul); }
"""
)
TORCH_LIB = (
    KERNEL.format(include="#include <torch/extension.h>", ns="at", check="TORCH_CHECK")
    + """
TORCH_LIBRARY(bench_ops_torch, m) { m.def("mymul(Tensor a, Tensor b) -> Tensor"); }
TORCH_LIBRARY_IMPL(bench_ops_torch, CPU, m) { m.impl("mymul", &mymul); }
"""
)


def build(work: str) -> dict:
    """The callables to time: (name, fn, args)."""
    import sdk
    from cpp_extension import load

    lib_src = os.path.join(work, "ops_lib.cpp")
    pyb_src = os.path.join(work, "ops_pyb.cpp")
    with open(lib_src, "w") as f:
        f.write(SDK_LIB)
    with open(pyb_src, "w") as f:
        f.write(SDK_PYBIND)
    load("bench_ops_lib", [lib_src], is_python_module=False)
    pyb = load("bench_ops_pyb", [pyb_src])
    a, b = sdk.randn(4), sdk.randn(4)
    cases = {
        "sdk.ops.bench_ops.mymul(a, b)": (lambda: sdk.ops.bench_ops.mymul(a, b)),
        "pybind11 module.mymul(a, b)": (lambda: pyb.mymul(a, b)),
    }
    try:
        import torch
        from torch.utils.cpp_extension import load as torch_load
    except ImportError:
        return cases
    torch_src = os.path.join(work, "ops_torch.cpp")
    with open(torch_src, "w") as f:
        f.write(TORCH_LIB)
    torch_load("bench_ops_torch", [torch_src], is_python_module=False, verbose=False)
    ta, tb = torch.randn(4), torch.randn(4)
    cases["torch.ops.bench_ops_torch.mymul(a, b)"] = lambda: torch.ops.bench_ops_torch.mymul(ta, tb)
    return cases


def measure(cases: dict, repeat: int) -> dict[str, float]:
    best = {name: float("inf") for name in cases}
    for fn in cases.values():  # warm up, and size the loops to ~0.2 s
        fn()
    loops = {
        n: max(1000, int(0.2 / max(timeit.timeit(f, number=200) / 200, 1e-8)))
        for n, f in cases.items()
    }
    for _ in range(repeat):
        for name, fn in cases.items():
            t = timeit.timeit(fn, number=loops[name]) / loops[name]
            best[name] = min(best[name], t)
    return best


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeat", type=int, default=7)
    p.add_argument("--json", metavar="PATH")
    args = p.parse_args(argv)
    with tempfile.TemporaryDirectory() as work:
        cases = build(work)
        best = measure(cases, args.repeat)
    pyb_t = best["pybind11 module.mymul(a, b)"]
    torch_t = best.get("torch.ops.bench_ops_torch.mymul(a, b)")
    print("| call | us | vs pybind11 | vs torch.ops | goal |")
    print("|---|---|---|---|---|")
    for name, t in best.items():
        rp = f"{t / pyb_t:.2f}"
        rt = f"{t / torch_t:.2f}" if torch_t else "-"
        goal = ""
        if name.startswith("sdk.ops"):
            goal = f"<= 1.5x pybind11: {'met' if t <= 1.5 * pyb_t else 'NOT met'}"
            if torch_t:
                goal += f"; <= 0.3x torch.ops: {'met' if t <= 0.3 * torch_t else 'NOT met'}"
        print(f"| {name} | {t * 1e6:.3f} | {rp} | {rt} | {goal} |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({k: v * 1e6 for k, v in best.items()}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
