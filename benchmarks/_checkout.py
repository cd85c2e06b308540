"""Imported first by the benchmark scripts: they measure the checkout's build when it is built
(an editable install or build_ext --inplace), else the installed package, which the unbuilt
source tree must not shadow (tests/_support.py decides, for the tests too).

`subprocess_env()` and `import_path()` give child processes the same package."""

from __future__ import annotations

import os
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if REPO not in sys.path:
    sys.path.insert(0, REPO)

from tests._support import import_path, subprocess_env, use_tested_package  # noqa: E402

use_tested_package()

# Children time what a user's process pays, and a user's process reads bytecode: pip compiles it
# at install, a checkout writes it on the first import. A PYTHONDONTWRITEBYTECODE left in the
# environment (some CI images and sandboxes set it) would time the sdk compiling its ~40 modules
# from source on every import (0.16 s against 0.08 s), while numpy and torch, installed by pip,
# still read theirs.
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)

# A cold build compiles: a compiler cache on the machine (torch's load() puts ccache in front of
# the compiler whenever it is on PATH; the sdk steps its precompiled header and split code
# generation aside for one) would time its hits or its own path instead of a first build.
NO_COMPILER_CACHE = {"CCACHE_DISABLE": "1", "SDK_EXTENSIONS_NO_CCACHE": "1"}

__all__ = ["NO_COMPILER_CACHE", "REPO", "import_path", "subprocess_env"]
