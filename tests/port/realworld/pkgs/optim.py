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


# DeepSpeed's CPU optimizers (ZeRO-Offload's Adam, Lion and Adagrad steps): one pybind11 module
# per optimizer, each keeping optimizer objects in a table keyed by id. Built as the package's
# CPU op builder builds them: OpenMP and the 256-bit SIMD path (-D__AVX256__, AVX2 + FMA +
# F16C); 1003 elements so the SIMD body and the scalar tail both run.
DS_FLAGS = ("-fopenmp", "-mavx2", "-mfma", "-mf16c")
DS_LR, DS_WD, DS_STEP, DS_N, DS_SPLIT = 1e-2, 0.01, 3, 1003, 517


def _ds_state(rng, half=False):
    p = rng.standard_normal(DS_N).astype(np.float16 if half else np.float32)
    g = rng.standard_normal(DS_N).astype(p.dtype)
    m = (rng.standard_normal(DS_N) * 0.1).astype(np.float32)
    return {"p": p, "g": g, "m": m, "v": rng.uniform(0, 0.1, DS_N).astype(np.float32)}


def _ds_adam(ns, fw, i, rollback=False):
    p, g, m, v = (fw.tensor(i[k]) for k in ("p", "g", "m", "v"))
    ns.create_adam(0, DS_LR, B1, B2, EPS, DS_WD, True, False)
    ns.adam_update(0, DS_STEP, DS_LR, B1, B2, EPS, DS_WD, True, p, g, m, v)
    if rollback:
        ns.adam_rollback(0, DS_STEP, DS_LR, B1, B2, EPS, DS_WD, True, p, g, m, v)
    return p, m, v


def _ds_adam_ref(i):
    """AdamW with bias correction at step DS_STEP, in float32 as the kernel computes it."""
    p, g = i["p"].astype(np.float32), i["g"].astype(np.float32)
    m = B1 * i["m"] + (1 - B1) * g
    v = B2 * i["v"] + (1 - B2) * g * g
    denom = np.sqrt(v) / np.sqrt(1 - B2**DS_STEP) + EPS
    p = p * (1 - DS_LR * DS_WD) - DS_LR / (1 - B1**DS_STEP) * m / denom
    return p.astype(i["p"].dtype), m, v


def _ds_multi_tensor_adam(ns, fw, i):
    """The fused step over lists of tensors (grads, params, exp_avg, exp_avg_sq), each state
    split in two tensors: a list of lists of tensors through pybind11."""
    lists = [[fw.tensor(i[k][:DS_SPLIT]), fw.tensor(i[k][DS_SPLIT:])] for k in ("g", "p", "m", "v")]
    noop = fw.tensor(np.zeros(1, np.int32))
    ns.multi_tensor_adam(2048, noop, lists, DS_LR, B1, B2, EPS, DS_STEP, 1, 1, DS_WD)
    return [t for k in (1, 2, 3) for t in lists[k]]


def _ds_multi_tensor_adam_ref(i):
    return tuple(a for out in _ds_adam_ref(i) for a in (out[:DS_SPLIT], out[DS_SPLIT:]))


def _ds_lion(ns, fw, i):
    p, g, m = (fw.tensor(i[k]) for k in ("p", "g", "m"))
    ns.create_lion(0, DS_LR, B1, B2, DS_WD, False)
    ns.lion_update(0, DS_STEP, DS_LR, B1, B2, DS_WD, p, g, m)
    return p, m


def _ds_lion_ref(i):
    c = B1 * i["m"] + (1 - B1) * i["g"]
    p = i["p"] * (1 - DS_LR * DS_WD) - DS_LR * np.sign(c)
    return p, B2 * i["m"] + (1 - B2) * i["g"]


def _ds_adagrad(ns, fw, i):
    p, g, v = (fw.tensor(i[k]) for k in ("p", "g", "v"))
    ns.create_adagrad(0, DS_LR, EPS, DS_WD, False)
    ns.adagrad_update(0, DS_STEP, DS_LR, EPS, DS_WD, p, g, v)
    return p, v


def _ds_adagrad_ref(i):
    g = i["g"] + DS_WD * i["p"]
    v = i["v"] + g * g
    return i["p"] - DS_LR * g / (np.sqrt(v) + EPS), v


def _ds_build(name: str, *sources: str) -> Build:
    return Build(
        name,
        sources,
        ("csrc/includes",),
        defines=("__AVX256__",),
        cflags=DS_FLAGS,
    )


DEEPSPEED = Package(
    name="deepspeed",
    version="0.19.8",
    filename="deepspeed-0.19.8.tar.gz",
    sha256="9e491abd0827ea5c389dd702e15e11e13d83d904bac4a20d6c2a4cb37207a9af",
    # the optimizers' folders and the five headers they include (csrc/includes is mostly CUDA)
    port_roots=(
        "csrc/adam",
        "csrc/lion",
        "csrc/adagrad",
        "csrc/cpu/adam",
        *(f"csrc/includes/{h}.h" for h in ("cpu_adam", "cpu_lion", "cpu_adagrad", "simd", "sve")),
    ),
    why="training at scale: ZeRO-Offload's SIMD CPU optimizer steps",
    builds=(
        _ds_build("cpu_adam", "csrc/adam/cpu_adam.cpp", "csrc/adam/cpu_adam_impl.cpp"),
        _ds_build("cpu_lion", "csrc/lion/cpu_lion.cpp", "csrc/lion/cpu_lion_impl.cpp"),
        _ds_build("cpu_adagrad", "csrc/adagrad/cpu_adagrad.cpp"),
        # the CPU build of the fused (multi-tensor) Adam op, over the same optimizer code
        _ds_build("fused_adam", "csrc/cpu/adam/fused_adam.cpp", "csrc/adam/cpu_adam_impl.cpp"),
    ),
    ops=(
        Op("adam_update", "cpu_adam", _ds_state, _ds_adam, _ds_adam_ref, rtol=1e-5),
        Op(
            "adam_update (fp16 params)",
            "cpu_adam",
            lambda rng: _ds_state(rng, half=True),
            _ds_adam,
            _ds_adam_ref,
            rtol=1e-3,
            atol=1e-3,
        ),
        Op(
            "adam_rollback",
            "cpu_adam",
            _ds_state,
            lambda ns, fw, i: _ds_adam(ns, fw, i, rollback=True),
            lambda i: (i["p"], i["m"], i["v"]),
            rtol=1e-4,
            atol=1e-5,
        ),
        Op(
            "multi_tensor_adam",
            "fused_adam",
            _ds_state,
            _ds_multi_tensor_adam,
            _ds_multi_tensor_adam_ref,
        ),
        Op("lion_update", "cpu_lion", _ds_state, _ds_lion, _ds_lion_ref),
        Op("adagrad_update", "cpu_adagrad", _ds_state, _ds_adagrad, _ds_adagrad_ref),
    ),
)
