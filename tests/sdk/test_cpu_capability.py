"""The hand-written SIMD loops and their fallbacks agree: SDK_CPU_CAPABILITY (as torch's
ATEN_CPU_CAPABILITY) caps the level the core uses, so the baseline, AVX2 and AVX-512 paths of
the reductions, softmax, exp and sigmoid all run here and are checked against numpy."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests._support import run_python

# The test files whose code paths change with the SIMD level (vec_simd.h's exp/sigmoid/tanh,
# reduce_kernels.h's sums and extrema): the rest of the suite runs them at this machine's level
# only, so each lower level reruns them here, in a fresh process (the level is read once).
SIMD_TEST_FILES = ["core/test_vec_math.py", "sdk/test_ops_reduce.py"]

CHECK = """
import json, sys
import numpy as np
import sdk

rng = np.random.default_rng(7)
out = {}
for n in (1, 7, 16, 33, 1000, 70_001, 300_003):
    x = rng.standard_normal(n).astype(np.float32)
    t = sdk.tensor(x)
    x64 = x.astype(np.float64)
    s = float(t.sum())
    out[f"sum{n}"] = abs(s - x64.sum()) / max(1.0, np.abs(x64).sum())
    out[f"amax{n}"] = float(t.amax()) == float(x.max())
    out[f"amin{n}"] = float(t.amin()) == float(x.min())
    e = t.exp().numpy().astype(np.float64)
    out[f"exp{n}"] = float(np.max(np.abs(e - np.exp(x64)) / np.exp(x64)))
    g = t.sigmoid().numpy().astype(np.float64)
    out[f"sigmoid{n}"] = float(np.max(np.abs(g - 1 / (1 + np.exp(-x64)))))
    sm = t.softmax(0).numpy().astype(np.float64)
    ref = np.exp(x64 - x64.max()); ref /= ref.sum()
    out[f"softmax{n}"] = float(np.max(np.abs(sm - ref)))
m = rng.standard_normal((257, 129)).astype(np.float32)
tm = sdk.tensor(m)
for dim in (0, 1):
    r = tm.sum(dim).numpy().astype(np.float64)
    out[f"rows{dim}"] = float(np.max(np.abs(r - m.astype(np.float64).sum(dim))))
    out[f"amax_dim{dim}"] = bool((tm.amax(dim).numpy() == m.max(dim)).all())
x = np.array([1.0, np.nan, 3.0] * 50, dtype=np.float32)
out["nan_max"] = bool(np.isnan(float(sdk.tensor(x).amax())))
out["nan_sum"] = bool(np.isnan(float(sdk.tensor(x).sum())))
print(json.dumps(out))
"""


@pytest.mark.parametrize("capability", ["default", "avx2", "avx512"])
def test_every_simd_level_matches_numpy(capability):
    proc = run_python(CHECK, SDK_CPU_CAPABILITY=capability)
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    bad = {}
    for key, value in got.items():
        if isinstance(value, bool):
            ok = value
        elif key.startswith("sum") or key.startswith("rows"):
            ok = value < 1e-5
        else:  # exp relative error, sigmoid and softmax absolute error
            ok = value < 1e-6
        if not ok:
            bad[key] = value
    assert not bad, f"SDK_CPU_CAPABILITY={capability}: {bad}"


@pytest.mark.parametrize("capability", ["default", "avx2"])
def test_simd_sensitive_files_pass_at_every_level(capability):
    tests = Path(__file__).resolve().parents[1]
    files = [str(tests / f) for f in SIMD_TEST_FILES]
    proc = run_python(
        f"""
        import sys, pytest
        sys.exit(pytest.main(["-q", "-p", "no:cacheprovider", "-p", "no:xdist", *{files!r}]))
        """,
        SDK_CPU_CAPABILITY=capability,
    )
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert " passed" in proc.stdout and " failed" not in proc.stdout, proc.stdout[-2000:]
