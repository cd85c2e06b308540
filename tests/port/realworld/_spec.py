"""The shapes of the package table: a pinned sdist, the builds made from its sources, and the
ops checked in each build (seeded inputs, the call, and a numpy reference where written)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np


@dataclass(frozen=True)
class Build:
    """One extension built from a package's sources (paths relative to the sdist's top folder).

    `namespace`: the ops namespace the sources register (`torch.ops.NS` / `sdk.ops.NS`), None
    for a pybind11 module. `glue`: (file name, torch-style C++) binding the ops of a package
    whose own binding file spans the whole package; it is ported like the sources.
    `compile_only`: CUDA sources compiled with nvcc, nothing run (no GPU here).
    `patch`: hand edits applied to the ported sources (a file in patches/), counted per hunk.
    `cflags`: compiler flags the package's own build passes (e.g. -fopenmp), on both sides.
    `cu_as_cxx`: the package's CPU build compiles its .cu files as C++ (CPU code in .cu files
    that its build copies to .cc when CUDA is off): both sides do the same."""

    name: str
    sources: tuple[str, ...]
    include_dirs: tuple[str, ...] = ()
    defines: tuple[str, ...] = ()
    namespace: str | None = None
    glue: tuple[str, str] | None = None
    compile_only: bool = False
    patch: str | None = None
    cflags: tuple[str, ...] = ()
    cu_as_cxx: bool = False


@dataclass(frozen=True)
class Op:
    """An op of a build: `inputs(rng)` makes numpy inputs, `call(ns, fw, inputs)` runs it on a
    framework (ns: the module or ops namespace; fw: tensor()/empty()), and `ref(inputs)`, when
    given, computes the expected outputs with numpy."""

    name: str
    build: str
    inputs: Callable[[np.random.Generator], dict[str, Any]] = lambda rng: {}
    call: Callable[[Any, Any, dict[str, Any]], Any] | None = None
    ref: Callable[[dict[str, Any]], Any] | None = None
    seed: int = 0
    rtol: float = 1e-5
    atol: float = 1e-6

    def inputs_now(self) -> dict[str, Any]:
        return self.inputs(np.random.default_rng(self.seed))


@dataclass(frozen=True)
class Package:
    """A pinned sdist on PyPI and what is ported from it. `port_roots`: the folders given to
    the porter (only the sources the ops need, for large packages)."""

    name: str
    version: str
    filename: str
    sha256: str
    port_roots: tuple[str, ...]
    builds: tuple[Build, ...]
    ops: tuple[Op, ...] = field(default=())
    why: str = ""

    def build(self, name: str) -> Build:
        for b in self.builds:
            if b.name == name:
                return b
        raise KeyError(f"{self.name} has no build {name!r}")

    def ops_of(self, build: str) -> list[Op]:
        return [op for op in self.ops if op.build == build]
