"""Time of `python -m cpp_extension port` on a 10-file torch extension (6 C++/CUDA sources and
headers of ~150 lines, setup.py, a package __init__ and wrappers, a README): the whole
command in a fresh interpreter, and the port alone in this process (the first call imports
sdk and reads the scan of the SDK headers, cached on disk; later calls find both loaded).

    python benchmarks/bench_port.py [--repeat 5] [--json PATH]

Goal (issue 18): under 1 s for the command.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import _checkout  # noqa: F401  (the sdk under test: the checkout's build or the installed one)

KERNEL = """
#include <torch/extension.h>
#include <ATen/Parallel.h>
#include <c10/util/irange.h>
#include "common.h"

// {name}: a kernel written the torch way
at::Tensor {name}_forward(const at::Tensor& x, c10::optional<at::Tensor> bias, double alpha) {{
  TORCH_CHECK(x.dim() == 2, "{name}: expected 2 dims, got ", x.dim());
  auto out = torch::empty_like(x);
  AT_DISPATCH_FLOATING_TYPES(x.scalar_type(), "{name}", [&] {{
    auto in = x.accessor<scalar_t, 2>();
    auto o = out.accessor<scalar_t, 2>();
    at::parallel_for(0, x.size(0), 1, [&](int64_t b, int64_t e) {{
      for (const auto i : c10::irange(b, e)) {{
        for (int64_t j = 0; j < x.size(1); ++j) o[i][j] = in[i][j] * alpha;
      }}
    }});
  }});
  if (bias.has_value()) out = out + *bias;
  return out;
}}
"""
HEADER = """
#pragma once
#include <torch/extension.h>
#define CHECK_INPUT(x) TORCH_CHECK(x.is_contiguous(), #x " must be contiguous")
at::Tensor helper(const at::Tensor& x);
"""
SETUP = """
from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CppExtension

setup(name="bench_ext", ext_modules=[CppExtension("bench_ext._C", ["csrc/a.cpp"])],
      cmdclass={"build_ext": BuildExtension}, install_requires=["torch"])
"""
INIT = """
import torch
from . import _C


def forward(x: torch.Tensor, bias=None, alpha: float = 1.0) -> torch.Tensor:
    return _C.forward(x, bias, alpha)
"""


def make_project(root: Path) -> Path:
    """Ten files: 4 sources (one .cu), 2 headers, setup.py, 2 Python modules, a README."""
    (root / "csrc").mkdir(parents=True)
    (root / "bench_ext").mkdir()
    for i, suffix in enumerate((".cpp", ".cpp", ".cpp", ".cu")):
        body = "".join(KERNEL.format(name=f"k{i}_{j}") for j in range(6))
        (root / "csrc" / f"{'abcd'[i]}{suffix}").write_text(body)
    (root / "csrc" / "common.h").write_text(HEADER)
    (root / "csrc" / "utils.cuh").write_text(HEADER)
    (root / "setup.py").write_text(SETUP)
    (root / "bench_ext" / "__init__.py").write_text(INIT)
    (root / "bench_ext" / "ops.py").write_text(INIT)
    (root / "README.md").write_text("# bench_ext\n")
    return root


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--json", metavar="PATH")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        src = make_project(Path(tmp) / "src")
        files = sum(1 for p in src.rglob("*") if p.is_file())
        lines = sum(len(p.read_text().splitlines()) for p in src.rglob("*") if p.is_file())
        command = []
        for i in range(args.repeat):
            start = time.perf_counter()
            subprocess.run(
                [sys.executable, "-m", "cpp_extension", "port", str(src), "--out",
                 f"{tmp}/out{i}"],
                check=True, capture_output=True,
            )  # fmt: skip
            command.append(time.perf_counter() - start)
        from cpp_extension.port import main as _port

        first = _port.port_paths([src], f"{tmp}/first").seconds
        again = min(_port.port_paths([src], f"{tmp}/again{i}").seconds for i in range(3))
    rows = [
        ("python -m cpp_extension port (fresh process), median", statistics.median(command)),
        ("python -m cpp_extension port (fresh process), best", min(command)),
        ("port_paths, first call (imports sdk, reads the header scan)", first),
        ("port_paths, later calls", again),
    ]
    print(f"{files} files, {lines} lines")
    print(f"| {'what':<66} | seconds |")
    print(f"|{'-' * 68}|---------|")
    for what, seconds in rows:
        print(f"| {what:<66} | {seconds:7.3f} |")
    if args.json:
        Path(args.json).write_text(json.dumps({w: s for w, s in rows}, indent=1))


if __name__ == "__main__":
    main()
