"""Check every LLTM variant's forward and backward against the sdk-autograd and numpy references.

float64, B=3, F=17, S=5, rtol 1e-7 (the tutorial's check sizes). Exits nonzero if anything differs.

    python check.py [--variant cpp ctypes py] [-v]
"""

from __future__ import annotations

import argparse
import sys
from concurrent.futures import ThreadPoolExecutor, as_completed

import numpy as np
from lltm import LLTM, VARIANTS, load_backend
from reference import numpy_backward, numpy_forward, sdk_cell

import sdk

B, F, S = 3, 17, 5
RTOL, ATOL = 1e-7, 1e-12
FORWARD_NAMES = ("new_h", "new_cell", "input_gate", "output_gate", "candidate_cell", "X", "gates")
BACKWARD_NAMES = ("d_old_h", "d_input", "d_weights", "d_bias", "d_old_cell")
PARAMS = ("input", "weights", "bias", "old_h", "old_cell")


def make_inputs(seed: int = 0) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    bound = 1.0 / np.sqrt(S)
    return {
        "input": rng.standard_normal((B, F)),
        "weights": rng.uniform(-bound, bound, (3 * S, F + S)),
        "bias": rng.uniform(-bound, bound, (1, 3 * S)),
        "old_h": rng.standard_normal((B, S)),
        "old_cell": rng.standard_normal((B, S)),
        "grad_h": rng.standard_normal((B, S)),
        "grad_cell": rng.standard_normal((B, S)),
    }


def compare(what: str, names, got, want) -> list[str]:
    errors = []
    for name, g, w in zip(names, got, want):
        g = np.asarray(g.detach().numpy() if isinstance(g, sdk.Tensor) else g)
        if g.shape != w.shape or g.dtype != np.float64:
            errors.append(f"{what} {name}: got {g.dtype}{g.shape}, want float64{w.shape}")
        elif not np.allclose(g, w, rtol=RTOL, atol=ATOL):
            err = np.max(np.abs(g - w) / (ATOL + np.abs(w)))
            errors.append(f"{what} {name}: max relative error {err:.3g} > {RTOL}")
    return errors


def autograd_reference(a: dict[str, np.ndarray]) -> tuple[list, list]:
    """(h', C') and grads in the C++ backward order, from sdk ops + sdk autograd."""
    t = {k: sdk.tensor(a[k], requires_grad=True) for k in PARAMS}
    new_h, new_cell = sdk_cell(*(t[k] for k in PARAMS))
    loss = (new_h * sdk.tensor(a["grad_h"])).sum() + (new_cell * sdk.tensor(a["grad_cell"])).sum()
    loss.backward()
    grads = [t[k].grad for k in ("old_h", "input", "weights", "bias", "old_cell")]
    return [new_h, new_cell], grads


def check_variant(variant: str, a: dict[str, np.ndarray]) -> list[str]:
    backend = load_backend(variant)
    t = {k: sdk.tensor(v) for k, v in a.items()}
    fwd = backend.forward(*(t[k] for k in PARAMS))
    want_fwd = numpy_forward(*(a[k] for k in PARAMS))
    errors = compare(f"[{variant}] forward", FORWARD_NAMES, fwd, want_fwd)
    bwd = backend.backward(t["grad_h"], t["grad_cell"], *fwd[1:], t["weights"])
    want_bwd = numpy_backward(a["grad_h"], a["grad_cell"], *(a[k] for k in PARAMS))
    errors += compare(f"[{variant}] backward vs numpy", BACKWARD_NAMES, bwd, want_bwd)

    ref_fwd, ref_grads = autograd_reference(a)
    errors += compare(
        f"[{variant}] forward vs sdk",
        FORWARD_NAMES[:2],
        fwd[:2],
        [r.detach().numpy() for r in ref_fwd],
    )
    errors += compare(
        f"[{variant}] backward vs sdk autograd", BACKWARD_NAMES, bwd, [g.numpy() for g in ref_grads]
    )

    # The same numbers through the Module and autograd Function.
    cell = LLTM(F, S, backend=backend).double()
    with sdk.no_grad():
        cell.weights.copy_(t["weights"])
        cell.bias.copy_(t["bias"])
    x, h, c = (sdk.tensor(a[k], requires_grad=True) for k in ("input", "old_h", "old_cell"))
    new_h, new_cell = cell(x, (h, c))
    ((new_h * t["grad_h"]).sum() + (new_cell * t["grad_cell"]).sum()).backward()
    errors += compare(
        f"[{variant}] LLTM module grads",
        BACKWARD_NAMES,
        [h.grad, x.grad, cell.weights.grad, cell.bias.grad, c.grad],
        want_bwd,
    )
    return errors


def built_as_ready(variants: list[str]):
    """Yield each variant once its backend is built, the builds running side by side: the
    quick ctypes build is checked while the pybind11 one still compiles (a build error is
    raised here, as load() raises it)."""
    with ThreadPoolExecutor(max_workers=len(variants)) as pool:
        futures = {pool.submit(load_backend, v): v for v in variants}
        for done in as_completed(futures):
            done.result()
            yield futures[done]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", nargs="+", choices=VARIANTS, default=list(VARIANTS))
    args = parser.parse_args(argv)
    a = make_inputs()
    failed = False
    for variant in built_as_ready(args.variant):
        errors = check_variant(variant, a)
        for e in errors:
            print("FAIL", e)
        failed |= bool(errors)
        print(
            f"{variant:7s} {'FAILED' if errors else 'ok'}: forward and backward match numpy "
            f"and sdk autograd (float64, B={B} F={F} S={S}, rtol {RTOL:g})"
        )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
