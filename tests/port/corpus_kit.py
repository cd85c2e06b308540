"""What the porting-corpus tests share: the Framework a check runs on (the SDK build of the
ported sources, or torch's build of the originals), the build-cache fixture, and the
`ported`/`fw` fixture pair of one corpus folder."""

from __future__ import annotations

import os
import pickle
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import cpp_extension
import sdk
from cpp_extension.port import main as _port
from tests._support import (
    build_once,
    kept_folder,
    run_folder,
    sync_tree,
    toolchain_key,
    torch_key,
)


@dataclass
class Framework:
    """What a check needs from the framework it runs on."""

    name: str
    tensor: Callable[[np.ndarray], Any]
    ops: Any
    load: Callable[..., Any]
    source_root: Path


@pytest.fixture(scope="module")
def build_cache(tmp_path_factory):
    """JIT caches that every xdist worker shares, and that later runs keep (`kept_folder`): a
    case whose tests run on both workers (its parameters, its two frameworks' tests) is built
    once, by whichever asks first, under load()'s cache lock (torch's build folder lock on its
    side), and a later run builds only what changed (ninja's own test, over sources whose
    time stamps `ported` keeps)."""
    mp = pytest.MonkeyPatch()
    mp.setenv(
        "SDK_EXTENSIONS_DIR", str(kept_folder(tmp_path_factory, "corpus-sdk", *toolchain_key()))
    )
    mp.setenv(
        "TORCH_EXTENSIONS_DIR",
        str(kept_folder(tmp_path_factory, "corpus-torch", *torch_key())),
    )
    mp.setenv("MAX_JOBS", "2")
    yield
    mp.undo()


def corpus_fixtures(corpus: Path, tag: str):
    """The module-scoped fixtures `ported` ((out folder, port report) of `corpus`) and `fw`
    (one Framework per param: "sdk" over the ported copy, "torch" over the originals, skipped
    without torch). A test module assigns them: `ported, fw = corpus_fixtures(CORPUS, "x")`,
    and imports `build_cache` beside them."""

    @pytest.fixture(scope="module")
    def ported(tmp_path_factory):
        # ported once per run, then copied into a kept folder the workers share (only the files
        # that changed: the others keep their time stamps): their builds of one case compile
        # the same files, and a later run's builds find them unchanged
        kept = kept_folder(tmp_path_factory, f"ported-{tag}") / "out"
        step = _port_into(corpus, kept)
        folder = build_once(run_folder(tmp_path_factory, f"ported_{tag}"), step)
        return kept, pickle.loads((folder / "report.pickle").read_bytes())

    @pytest.fixture(scope="module", params=["sdk", "torch"])
    def fw(request, ported, build_cache) -> Framework:
        if request.param == "sdk":
            return Framework("sdk", sdk.from_numpy, sdk.ops, cpp_extension.load, ported[0])
        torch = pytest.importorskip(
            "torch", reason="torch is not installed: no build of the original"
        )
        return Framework("torch", torch.from_numpy, torch.ops, torch_pch_load(request), corpus)

    return ported, fw


TORCH_PCH = "torch-pch"  # the folder of the precompiled torch header


def torch_pch_load(request) -> Callable[..., Any]:
    """torch's load() with torch/extension.h precompiled once per run (`-include` of a header
    whose .gch lies beside it): each build of an original then takes about 12 s instead of
    30. The header is built with the flags torch's own build file gives a plain load(); where
    a build's flags differ (or the header could not be built), gcc reads the headers as
    before, so what is built never changes, only how fast."""
    from torch.utils import cpp_extension as torch_ext

    factory = request.getfixturevalue("tmp_path_factory")
    header = build_once(kept_folder(factory, TORCH_PCH, *torch_key()), _torch_pch)
    include = ["-include", str(header)] if header.with_suffix(".h.gch").is_file() else []

    def load(name: str, sources: list[str], extra_cflags: list[str] | None = None, **kwargs):
        return torch_ext.load(
            name, sources, extra_cflags=[*include, *(extra_cflags or [])], **kwargs
        )

    return load


def remove_torch_pch(tmp_path_factory) -> None:
    """Delete the run's precompiled header (about 800 MB) once every worker is done with it
    (made only with SDK_TEST_CACHE=off: a kept one stays for the next run)."""
    import shutil

    shutil.rmtree(run_folder(tmp_path_factory, TORCH_PCH), ignore_errors=True)


def _torch_pch(folder: Path) -> Path:
    """build_once's step: <folder>/torch_pch.h and its .gch, compiled with the flags of the
    build file torch writes for a plain load() (private API: if it is gone, no .gch)."""
    import inspect
    import shlex
    import subprocess

    from torch.utils import cpp_extension as torch_ext

    header = folder / "torch_pch.h"
    header.write_text("#include <torch/extension.h>\n")
    try:
        write = torch_ext._write_ninja_file_to_build_library
        args = {"path": str(folder / "build.ninja"), "name": "torch_pch", "sources": [str(header)]}
        for p in inspect.signature(write).parameters:  # extra_*: none; with_*, is_*: False
            args.setdefault(p, [] if p.startswith("extra_") else False)
        write(**args)
    except (AttributeError, TypeError, ValueError):
        return header
    ninja = (folder / "build.ninja").read_text()
    line = next((ln for ln in ninja.splitlines() if ln.startswith("cflags = ")), None)
    if line is None:
        return header
    flags = [f for f in shlex.split(line[len("cflags = ") :]) if "TORCH_EXTENSION_NAME" not in f]
    cxx = os.environ.get("CXX", "c++")
    gch = header.with_suffix(".h.gch")
    cmd = [cxx, "-x", "c++-header", *flags, str(header), "-o", str(gch)]
    if subprocess.run(cmd, capture_output=True).returncode != 0:
        gch.unlink(missing_ok=True)
    return header


def _port_into(corpus: Path, kept: Path) -> Callable[[Path], Path]:
    """build_once's step: port `corpus` into <folder>/out, keep the report beside it, and copy
    what changed into `kept` (`sync_tree`)."""

    def port(folder: Path) -> Path:
        report = _port.port_paths([corpus], folder / "out")
        (folder / "report.pickle").write_bytes(pickle.dumps(report))
        sync_tree(folder / "out", kept)
        return folder

    return port


def build_case(fw: Framework, prefix: str, case: str, *files: str, **kwargs: Any) -> Any:
    """Build the corpus case `case` from `files` on `fw`, named `<prefix>_<case>_<fw>`."""
    sources = [str(fw.source_root / case / f) for f in files]
    return fw.load(f"{prefix}_{case}_{fw.name}", sources, **kwargs)
