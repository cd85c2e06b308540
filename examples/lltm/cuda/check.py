"""Compare the LLTM CUDA op with the CPU op (forward and backward); needs a GPU.

python check.py          # builds lltm_cuda (jit.py) and lltm_cpp, exits 0 when they agree

Every output of forward and backward must satisfy |cuda - cpu| <= tol * (1 + |cpu|), with
tol 1e-7 in float64 and 1e-5 in float32 (the matmuls run in another order on the GPU).
Weights are initialised as LLTM.reset_parameters does; standard-normal weights (gate inputs
around +-28) saturate the gates, where float32 rounding differences are amplified.
"""

from __future__ import annotations

import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
# this folder first: its jit.py builds lltm_cuda (the parent's builds the CPU variants)
sys.path[:0] = [HERE, os.path.dirname(HERE)]

import sdk  # noqa: E402
import sdk.cuda  # noqa: E402

TOLERANCE = {"float64": 1e-7, "float32": 1e-5}
SIZES = [(4, 17, 33), (64, 256, 512)]  # (batch, features, state)


OUTPUTS = ["h'", "C'", "input_gate", "output_gate", "candidate_cell"]
GRADS = ["d_old_h", "d_input", "d_weights", "d_bias", "d_old_cell"]


def worst_error(names, ref, got) -> tuple[float, str]:
    """max of |got - ref| / (1 + |ref|) over every pair of tensors, and where it is."""
    worst, where = 0.0, ""
    for name, r, g in zip(names, ref, got):
        r = r.numpy()
        g = g.cpu().numpy().reshape(r.shape)
        err = float(np.max(np.abs(g - r) / (1 + np.abs(r)), initial=0.0))
        if err >= worst:
            worst, where = err, name
    return worst, where


def compare(cpu, lltm_cuda, dtype_name: str, batch: int, features: int, state: int):
    """Forward and backward on both devices; the worst error and the output it is in."""
    dtype = getattr(sdk, dtype_name)
    sdk.manual_seed(0)
    # weights and bias as LLTM.reset_parameters makes them: uniform(-1/sqrt(S), 1/sqrt(S))
    bound = 1.0 / state**0.5
    args = [
        sdk.randn(batch, features, dtype=dtype),
        sdk.empty(3 * state, features + state, dtype=dtype).uniform_(-bound, bound),
        sdk.empty(1, 3 * state, dtype=dtype).uniform_(-bound, bound),
        sdk.randn(batch, state, dtype=dtype),
        sdk.randn(batch, state, dtype=dtype),
    ]
    ref = cpu.forward(*args)
    got = lltm_cuda.forward(*[a.cuda() for a in args])
    grads = [sdk.randn(batch, state, dtype=dtype) for _ in range(2)]
    ref_b = cpu.backward(*grads, *ref[1:], args[1])
    got_b = lltm_cuda.backward(*[t.cuda() for t in grads], *got[1:], args[1].cuda())
    return max(worst_error(OUTPUTS, ref[:5], got[:5]), worst_error(GRADS, ref_b, got_b))


def main() -> int:
    if not sdk.cuda.is_available():
        print(f"skipped: CUDA is not available ({sdk.cuda.unavailable_reason()})")
        return 0
    from jit import lltm_cuda  # noqa: E402  (builds on first use)
    from lltm import load_backend  # noqa: E402

    cpu = load_backend("cpp")
    failed = 0
    for dtype_name, tol in TOLERANCE.items():
        for size in SIZES:
            err, where = compare(cpu, lltm_cuda, dtype_name, *size)
            ok = err <= tol
            failed += not ok
            shape = "B,F,S=" + ",".join(map(str, size))
            verdict = "ok" if ok else "FAILED"
            print(
                f"{dtype_name} {shape}: max |cuda-cpu|/(1+|cpu|) = {err:.3g} in {where} "
                f"(tol {tol:g}) {verdict}"
            )
    print("max abs difference CUDA vs CPU: " + ("within tolerance" if not failed else "too large"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
