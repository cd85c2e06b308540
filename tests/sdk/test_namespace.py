"""sdk.__all__ is derived from what the namespace binds: every public op and helper, no
submodule, nothing private; `from sdk import *` gives exactly those names."""

from __future__ import annotations

import types

import sdk


def test_all_names_every_public_binding_and_nothing_else():
    public = {
        n
        for n, v in vars(sdk).items()
        if not n.startswith("_") and not isinstance(v, types.ModuleType) and n != "annotations"
    }
    assert public | {"set_printoptions"} == set(sdk.__all__)
    assert sdk.__all__ == sorted(sdk.__all__)
    for name in ("add", "tensor", "float32", "Tensor", "no_grad", "get_num_threads", "where"):
        assert name in sdk.__all__, name


def test_all_leaves_out_modules_and_private_names():
    assert not [n for n in sdk.__all__ if n.startswith("_")]
    assert "grad_mode" not in sdk.__all__ and "annotations" not in sdk.__all__
    for name in sdk.__all__:
        assert not isinstance(getattr(sdk, name), types.ModuleType), name


def test_star_import_gives_the_listed_names():
    scope: dict = {}
    exec("from sdk import *", scope)
    got = {n for n in scope if n != "__builtins__"}
    assert got == set(sdk.__all__)
    assert scope["tensor"] is sdk.tensor  # the device-aware converter, not the raw one
