"""The C++ API's elementwise functions follow the per-op facts of c_api.h (SDK_UNARY_OP_FACTS,
SDK_BINARY_OP_FACTS): an op has an in-place form where torch has one (eq_, logical_not_) and
wherever its result is not bool, none otherwise (no isnan_()), and facts that disagree with
their op table do not compile."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from tests.core.test_cpp_api import INCLUDE, _cxx

FACTS = {"SDK_UNARY_OP_FACTS": "unary", "SDK_BINARY_OP_FACTS": "binary"}


def facts_rows(macro: str) -> list[tuple[str, str, int, int, int]]:
    """(NAME, name, differentiable, inplace, bool_result) of each row of a facts table."""
    text = (INCLUDE / "sdk" / "c_api.h").read_text()
    body = text[text.index(f"#define {macro}(X)") :]
    body = body[: body.index("\n\n")]
    rows = re.findall(r"X\((\w+), (\w+), ([01]), ([01]), ([01])\)", body)
    return [(N, n, int(d), int(i), int(b)) for N, n, d, i, b in rows]


def _compile(tmp_path: Path, source: str) -> subprocess.CompletedProcess:
    src = tmp_path / "probe.cpp"
    src.write_text(source)
    cmd = [_cxx(), "-std=c++17", "-Wall", "-Wextra", "-Werror", "-fsyntax-only", f"-I{INCLUDE}"]
    return subprocess.run(
        [*cmd, str(src)], capture_output=True, text=True, timeout=300, check=False
    )


def _detector(name: str, kind: str) -> str:
    """Traits telling whether Tensor::name_ and sdk::name_ exist (SFINAE: one unit checks
    every op, where a call to a missing name would stop the compile at the first)."""
    args = "" if kind == "unary" else "std::declval<const T&>()"
    free_args = "std::declval<const T&>()" + ("" if kind == "unary" else ", 1")
    return f"""
template <class T, class = void> struct method_{name} : std::false_type {{}};
template <class T>
struct method_{name}<T, std::void_t<decltype(std::declval<const T&>().{name}_({args}))>>
    : std::true_type {{}};
template <class T, class = void> struct free_{name} : std::false_type {{}};
template <class T>
struct free_{name}<T, std::void_t<decltype({name}_({free_args}))>> : std::true_type {{}};
"""


def test_inplace_forms_exist_exactly_where_the_facts_give_them(tmp_path):
    lines = ["#include <type_traits>", "#include <utility>", '#include "sdk/all.h"']
    checks = []
    for macro, kind in FACTS.items():
        for _, name, _, inplace, bool_result in facts_rows(macro):
            lines.append(_detector(name, kind))
            want = "true" if inplace or not bool_result else "false"
            checks.append(
                f'static_assert(method_{name}<sdk::Tensor>::value == {want}, "Tensor::{name}_");'
            )
            if kind == "unary":  # the binary in-place forms are methods only, as in torch
                checks.append(
                    f'static_assert(free_{name}<sdk::Tensor>::value == {want}, "sdk::{name}_");'
                )
    assert len(checks) > 100
    proc = _compile(tmp_path, "\n".join([*lines, *checks, ""]))
    assert proc.returncode == 0, proc.stderr[-4000:]


def test_the_bool_result_ops_are_the_expected_ones():
    bool_ops = {n for m in FACTS for _, n, _, _, b in facts_rows(m) if b}
    assert {"isnan", "isinf", "logical_not", "eq", "lt", "logical_and"} <= bool_ops
    assert not {"exp", "bitwise_not", "gelu", "add", "bitwise_and"} & bool_ops
    # torch's in-place forms of bool-result ops (they write in self's dtype); none for isnan
    inplace = {n for m in FACTS for _, n, _, i, b in facts_rows(m) if i and b}
    assert inplace == {"logical_not", "eq", "ne", "lt", "le", "gt", "ge"} | {
        "logical_and",
        "logical_or",
        "logical_xor",
    }


def test_an_in_place_call_of_a_bool_op_does_not_compile(tmp_path):
    source = '#include "sdk/all.h"\nvoid f(const sdk::Tensor& t) { t.isnan_(); }\n'
    proc = _compile(tmp_path, source)
    assert proc.returncode != 0 and "isnan_" in proc.stderr, proc.stderr[-2000:]


@pytest.mark.parametrize("macro", FACTS)
def test_facts_that_disagree_with_their_op_table_do_not_compile(tmp_path, macro):
    rows = facts_rows(macro)
    swapped = [rows[1], rows[0], *rows[2:]]  # two rows out of code order
    body = " ".join(f"X({N}, {n}, {d}, {i}, {b})" for N, n, d, i, b in swapped)
    source = (
        '#include "sdk/c_api.h"\n'
        f"#undef {macro}\n"
        f"#define {macro}(X) {body}\n"
        '#include "sdk/op_table.h"\n'
    )
    proc = _compile(tmp_path, source)
    assert proc.returncode != 0, "a facts table out of order compiled"
    assert f"{macro} must have one row per" in proc.stderr, proc.stderr[-2000:]
