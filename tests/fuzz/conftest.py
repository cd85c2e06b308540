"""Hypothesis profiles for the fuzz tests (tests/fuzz), selected by env SDK_FUZZ_PROFILE.

- "ci" (the default): derandomized, so every run (and every CI machine) draws the same cases;
  a failure prints the reproduction blob (print_blob) and nothing is written to disk.
  The whole package runs a few thousand cases in well under a minute.
- "deep": random draws and `DEEP_FACTOR` times more examples per test, with the example
  database in .hypothesis/ (git-ignored) so a failure found once is replayed first next time:

      SDK_FUZZ_PROFILE=deep python -m pytest -q tests/fuzz -p no:cacheprovider

Tests size themselves with `examples(n)`: n under "ci", n * DEEP_FACTOR under "deep".
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings
from hypothesis.database import DirectoryBasedExampleDatabase

PROFILE = os.environ.get("SDK_FUZZ_PROFILE", "ci")
DEEP_FACTOR = 20

_COMMON = dict(
    deadline=None,  # a shared 2-core machine makes per-example timings meaningless
    print_blob=True,
    # Generated values come from a seeded numpy generator: data size and speed are ours to mind.
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

settings.register_profile("ci", derandomize=True, database=None, **_COMMON)
settings.register_profile(
    "deep",
    derandomize=False,
    database=DirectoryBasedExampleDatabase(".hypothesis/examples"),
    **_COMMON,
)
if PROFILE not in ("ci", "deep"):
    raise ValueError(f"SDK_FUZZ_PROFILE must be 'ci' or 'deep', got {PROFILE!r}")
settings.load_profile(PROFILE)


def examples(n: int) -> settings:
    """@examples(n): run n cases of this test under "ci", n * DEEP_FACTOR under "deep"."""
    return settings(max_examples=n * (DEEP_FACTOR if PROFILE == "deep" else 1))
