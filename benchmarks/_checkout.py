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

# A cold build compiles: a compiler cache on the machine (torch's load() puts ccache in front of
# the compiler whenever it is on PATH; the sdk steps its precompiled header and split code
# generation aside for one) would time its hits or its own path instead of a first build.
NO_COMPILER_CACHE = {"CCACHE_DISABLE": "1", "SDK_EXTENSIONS_NO_CCACHE": "1"}

__all__ = ["NO_COMPILER_CACHE", "REPO", "import_path", "subprocess_env"]
