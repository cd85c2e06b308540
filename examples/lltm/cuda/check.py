"""Compare the LLTM CUDA op with the CPU op (forward and backward), float64; needs a GPU.

python check.py          # builds lltm_cuda (jit.py) and lltm_cpp, exits 0 when they agree
"""

from __future__ import annotations

import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

import sdk  # noqa: E402
import sdk.cuda  # noqa: E402


def main() -> int:
    if not sdk.cuda.is_available():
        print(f"skipped: CUDA is not available ({sdk.cuda.unavailable_reason()})")
        return 0
    from jit import lltm_cuda  # noqa: E402  (builds on first use)
    from lltm import load_backend  # noqa: E402

    cpu = load_backend("cpp")
    sdk.manual_seed(0)
    batch, features, state = 4, 17, 33
    args = [
        sdk.randn(batch, features, dtype=sdk.float64),
        sdk.randn(3 * state, features + state, dtype=sdk.float64),
        sdk.randn(1, 3 * state, dtype=sdk.float64),
        sdk.randn(batch, state, dtype=sdk.float64),
        sdk.randn(batch, state, dtype=sdk.float64),
    ]
    ref = cpu.forward(*args)
    got = lltm_cuda.forward(*[a.cuda() for a in args])
    worst = 0.0
    for r, g in zip(ref[:5], got[:5]):  # h', C', i, o, c~
        worst = max(worst, float(np.max(np.abs(r.numpy() - g.cpu().numpy()))))
    grads = [sdk.randn(batch, state, dtype=sdk.float64) for _ in range(2)]
    ref_b = cpu.backward(*grads, *ref[1:], args[1])
    got_b = lltm_cuda.backward(*[t.cuda() for t in grads], *got[1:], args[1].cuda())
    for r, g in zip(ref_b, got_b):
        worst = max(worst, float(np.max(np.abs(r.numpy() - g.cpu().numpy().reshape(r.shape)))))
    print(f"max abs difference CUDA vs CPU: {worst:.3g}")
    return 0 if worst < 1e-9 else 1


if __name__ == "__main__":
    sys.exit(main())
