"""torchopt (differentiable optimizers): its fused Adam step, a pybind11 submodule registered
by the package's own function, bound here by a small glue file (the package's module is named
_C, which a JIT build cannot import under its own name)."""

from __future__ import annotations

import numpy as np

from .._spec import Build, Op, Package

GLUE = (
    "torchopt_glue.cpp",
    "// Builds the package's adam_op submodule (written for the real-world port check).\n"
    "#include <torch/extension.h>\n\n"
    '#include "include/adam_op/adam_op.h"\n\n'
    "PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { torchopt::adam_op::buildSubmodule(m); }\n",
)
B1, B2, EPS, EPS_ROOT, COUNT = 0.9, 0.999, 1e-8, 0.0, 3


def _state(rng):
    return {
        "updates": rng.standard_normal((4, 5)),
        "mu": rng.standard_normal((4, 5)) * 0.1,
        "nu": rng.uniform(0, 0.1, (4, 5)),
    }


def _step(ns, fw, i):
    u, mu, nu = (fw.tensor(i[k]) for k in ("updates", "mu", "nu"))
    return ns.adam_op.forward_(u, mu, nu, B1, B2, EPS, EPS_ROOT, COUNT)


def _step_ref(i):
    mu = B1 * i["mu"] + (1 - B1) * i["updates"]
    nu = B2 * i["nu"] + (1 - B2) * i["updates"] ** 2
    mu_hat, nu_hat = mu / (1 - B1**COUNT), nu / (1 - B2**COUNT)
    return mu_hat / (np.sqrt(nu_hat + EPS_ROOT) + EPS), mu, nu


def _mu(ns, fw, i):
    return ns.adam_op.forward_mu(fw.tensor(i["updates"]), fw.tensor(i["mu"]), B1)


TORCHOPT = Package(
    name="torchopt",
    version="0.7.3",
    filename="torchopt-0.7.3.tar.gz",
    sha256="7b5f1628318a89891b14b7eecf26adde0e9c0590842a16a99fcaa09a91c59c56",
    port_roots=("src", "include"),
    why="differentiable optimizers (fused Adam step)",
    builds=(
        Build(
            "adam_op",
            ("src/adam_op/adam_op.cpp", "src/adam_op/adam_op_impl_cpu.cpp"),
            (".",),
            glue=GLUE,
            cflags=("-fopenmp",),  # the package's CMake build links OpenMP
        ),
    ),
    ops=(
        Op("adam_forward_", "adam_op", _state, _step, _step_ref),
        Op(
            "adam_forward_mu",
            "adam_op",
            _state,
            _mu,
            lambda i: 0.9 * i["mu"] + 0.1 * i["updates"],
        ),
    ),
)
