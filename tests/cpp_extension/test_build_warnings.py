"""Warnings of extension builds: a function that falls off its end without returning a value
fails the build (-Werror=return-type, which the user's -Wno-error=return-type undoes), and a
successful build says in one line how many warnings build.log holds."""

from __future__ import annotations

import uuid

import pytest

from cpp_extension import load_inline
from cpp_extension._errors import BuildError
from tests.cpp_extension.conftest import require_core

FORGETS_RETURN = r"""
SDK_EXPORT(twice, "(Tensor x) -> Tensor")
sdk_status twice(const sdk_tensor* x, sdk_tensor** out) {
  sdk_scalar two = {2.0, 0, SDK_SCALAR_FLOAT, 0};
  sdk_binary_scalar(SDK_MUL, x, two, 0, NULL, out);  /* the return is forgotten */
}
"""


def test_a_missing_return_fails_the_build_unless_the_user_allows_it(ext_dir, capfd):
    require_core()
    name = "noret_" + uuid.uuid4().hex[:8]
    with pytest.raises(BuildError, match="return-type"):
        load_inline(name, cpp_sources=FORGETS_RETURN, bridge="ctypes")
    capfd.readouterr()
    load_inline(
        name, cpp_sources=FORGETS_RETURN, bridge="ctypes", extra_cflags=["-Wno-error=return-type"]
    )
    err = capfd.readouterr().err
    assert f"Built {name} in " in err and "(1 warning; see build.log)" in err
    assert "no return statement" not in err  # counted, not repeated: it is in build.log
    assert "return-type" in (ext_dir.glob(f"*/{name}/build.log").__next__()).read_text()


def test_build_extension_makes_return_type_an_error_before_the_users_flags(tmp_path):
    from setuptools import Distribution

    from cpp_extension import BuildExtension, CppExtension
    from cpp_extension.builder import plan as _plan

    ext = CppExtension("pkg.m", ["m.cpp"], extra_compile_args=["-Wno-error=return-type"])
    cmd = BuildExtension(Distribution({"name": "pkg", "ext_modules": [ext]}))
    cmd.ensure_finalized()
    target = cmd._target(ext, tmp_path, _plan.Toolchain({"cxx"}))
    flags = target.flags["cxx"]
    assert flags.index("-Werror=return-type") < flags.index("-Wno-error=return-type")
    assert "-Werror=return-type" in target.flags["c"]
