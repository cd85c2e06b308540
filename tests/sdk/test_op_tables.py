"""The op tables of the C ABI (SDK_UNARY_OPS, SDK_BINARY_OPS, SDK_REDUCE_OPS in sdk/c_api.h)
are the one list of elementwise ops and reductions, and their facts tables (SDK_UNARY_OP_FACTS,
SDK_BINARY_OP_FACTS) the one place of each op's facts: everything else follows them, and these
tests fail when something does not."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import sdk
from sdk import _C, _ops_math
from sdk.autograd.derivatives import DERIVATIVES
from tests._support import REPO, include_dir

TABLES = {
    "SDK_UNARY_OPS": "UNARY_OPS",
    "SDK_BINARY_OPS": "BINARY_OPS",
    "SDK_REDUCE_OPS": "REDUCE_OPS",
}
ENUMS = {
    "SDK_UNARY_OPS": "sdk_unary_op",
    "SDK_BINARY_OPS": "sdk_binary_op",
    "SDK_REDUCE_OPS": "sdk_reduce_op",
}


def header_table(text: str, macro: str) -> list[tuple[str, str, int]]:
    """(NAME, name, code) of each line of `macro` in a header's text."""
    body = text[text.index(f"#define {macro}(X)") :]
    body = body[: body.index("\n\n")]
    return [(n, t, int(c)) for n, t, c in re.findall(r"X\((\w+), (\w+), (\d+)\)", body)]


FACTS = {"SDK_UNARY_OP_FACTS": "UNARY_OP_FACTS", "SDK_BINARY_OP_FACTS": "BINARY_OP_FACTS"}


def header_facts(text: str, macro: str) -> list[tuple[str, str, tuple[bool, bool, bool]]]:
    """(NAME, name, (differentiable, inplace, bool_result)) of each line of a facts table."""
    body = text[text.index(f"#define {macro}(X)") :]
    body = body[: body.index("\n\n")]
    rows = re.findall(r"X\((\w+), (\w+), ([01]), ([01]), ([01])\)", body)
    return [(n, t, (d == "1", i == "1", b == "1")) for n, t, d, i, b in rows]


def frozen_enum(text: str, enum: str) -> dict[str, int]:
    """NAME -> code of an enum written out in full (the frozen ABI 1.0 headers)."""
    body = text[: text.index(f"}} {enum};")]
    body = body[body.rindex("typedef enum {") :]
    return {n: int(c) for n, c in re.findall(r"SDK_(\w+) = (\d+)", body)}


@pytest.fixture(scope="module")
def header() -> str:
    return (include_dir() / "sdk" / "c_api.h").read_text()


@pytest.mark.parametrize("macro", TABLES)
def test_the_binding_exports_the_table(header, macro):
    table = header_table(header, macro)
    assert table and [c for _, _, c in table] == list(range(len(table)))  # dense, in order
    assert getattr(_C, TABLES[macro]) == {name: code for _, name, code in table}


@pytest.mark.parametrize("macro", TABLES)
def test_codes_never_change(header, macro):
    """ABI rule 2: an op keeps its code; new ops come at the end of their table."""
    frozen_path = REPO / "tests/abi/abi_1_0/include/sdk/c_api.h"
    if not frozen_path.is_file():  # a staged copy of some test folders (tests/sanitizers)
        pytest.skip("the frozen ABI 1.0 headers (tests/abi) are not in this tree")
    frozen_text = frozen_path.read_text()
    frozen = frozen_enum(frozen_text, ENUMS[macro])
    now = {n: c for n, _, c in header_table(header, macro)}
    assert frozen and all(now.get(n) == c for n, c in frozen.items()), (frozen, now)


@pytest.mark.parametrize("macro", FACTS)
def test_the_binding_exports_the_facts_of_every_op_in_table_order(header, macro):
    facts = header_facts(header, macro)
    ops = header_table(header, macro.replace("_OP_FACTS", "_OPS"))
    assert [(n, t) for n, t, _ in facts] == [(n, t) for n, t, _ in ops]
    exported = getattr(_C, FACTS[macro])
    assert list(exported) == [t for _, t, _ in facts]
    assert exported == {t: f for _, t, f in facts}


def test_bool_results_are_bool_and_not_differentiable():
    """The bool_result fact is what the kernels do: bool from float inputs, and only then."""
    for name, (differentiable, _inplace, bool_result) in _ops_math.FACTS.items():
        x = sdk.tensor([3, -1, 2]) if name.startswith("bitwise") else sdk.tensor([0.5, -1.0, 2.0])
        args = (x,) if name in _C.UNARY_OPS else (x, x)
        assert (getattr(sdk, name)(*args).dtype == sdk.bool) == bool_result, name
        if bool_result:
            assert not differentiable, name


def test_every_elementwise_op_is_a_function_and_a_method():
    for name in (*_ops_math.UNARY, *_ops_math.BINARY):
        fn = getattr(sdk, name)
        assert callable(fn) and name in sdk.__all__, name
        assert getattr(sdk.Tensor, name) is fn, name
        inplace = getattr(sdk.Tensor, name + "_", None)
        assert (inplace is not None) == _ops_math.has_inplace(name), name
        assert inplace is None or inplace is getattr(_ops_math, name + "_"), name
    assert not hasattr(sdk.Tensor, "isnan_") and hasattr(sdk.Tensor, "eq_")
    assert sdk.Tensor.exp_ is _ops_math.exp_ and sdk.Tensor.add_ is _ops_math.add_


def test_inplace_bool_ops_write_in_self_dtype_as_torch():
    """torch's eq_, logical_not_, logical_and_ write 1/0 in self's dtype; atan2_ and
    bitwise_and_ are torch's in-place methods too."""
    x = sdk.tensor([1.0, 2.0, 0.0])
    r = x.eq_(sdk.tensor([1.0, 0.0, 0.0]))
    assert r is x and x.dtype == sdk.float32 and x.tolist() == [1.0, 0.0, 1.0]
    assert x.logical_not_().tolist() == [0.0, 1.0, 0.0]
    assert x.lt_(0.5).tolist() == [1.0, 0.0, 1.0]
    y = sdk.tensor([5, 6, 7])
    assert y.logical_and_(sdk.tensor([1, 0, 1])).tolist() == [1, 0, 1] and y.dtype == sdk.int64
    assert sdk.tensor([6, 5]).bitwise_and_(3).tolist() == [2, 1]
    np.testing.assert_allclose(
        sdk.tensor([1.0, -1.0]).atan2_(sdk.tensor([1.0, 1.0])).numpy(),
        np.arctan2([1, -1], 1),
        rtol=1e-6,
    )
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        sdk.ones(2, requires_grad=True).eq_(1.0)


@pytest.mark.parametrize("name", sorted(_C.UNARY_OPS))
def test_each_unary_function_runs_its_own_code(name):
    x = sdk.tensor(np.linspace(0.5, 2.0, 7))
    if name in ("logical_not", "bitwise_not"):
        x = sdk.tensor([0, 1, 2, 5])
    got = getattr(sdk, name)(x)
    np.testing.assert_array_equal(got.numpy(), _C.unary(_C.UNARY_OPS[name], x).numpy())


@pytest.mark.parametrize("name", sorted(_C.BINARY_OPS))
def test_each_binary_function_runs_its_own_code(name):
    a, b = sdk.tensor([6, 7, -8, 9]), sdk.tensor([2, 3, 3, 4])
    got = getattr(sdk, name)(a, b)
    np.testing.assert_array_equal(got.numpy(), _C.binary(_C.BINARY_OPS[name], a, b).numpy())


def test_derivative_rows_cover_exactly_the_differentiable_ops():
    for name in (*_ops_math.UNARY, *_ops_math.BINARY):
        differentiable = _ops_math.differentiable(name)
        assert (name in DERIVATIVES) == differentiable, name


def test_every_op_has_a_cpu_and_a_cuda_kernel(header):
    """Each op's code is a `case` of the CPU kernels (the elementwise*.cpp files, split by op
    family) and of the CUDA device code (which the host-memory test backend shares)."""
    cpu = "".join(p.read_text() for p in sorted((REPO / "core/src").glob("elementwise*.cpp")))
    cuda = (REPO / "core/src/cuda/backend/device_util.cuh").read_text()
    for macro in ("SDK_UNARY_OPS", "SDK_BINARY_OPS"):
        for NAME, _, _ in header_table(header, macro):
            assert f"case SDK_{NAME}:" in cpu, f"no CPU kernel for SDK_{NAME}"
            assert f"case SDK_{NAME}:" in cuda, f"no CUDA kernel for SDK_{NAME}"


def test_python_names_no_op_by_number():
    """Op codes are spelled through the tables (`BINARY["add"]`), never as bare numbers."""
    bare = re.compile(r"_C\.(unary|binary|reduce)\(\s*\d|\b_(unary|binary)\(\s*\d")
    offenders = [
        f"{p.relative_to(REPO)}:{i}"
        for p in sorted(Path(REPO / "sdk").rglob("*.py"))
        for i, line in enumerate(p.read_text().splitlines(), 1)
        if bare.search(line)
    ]
    assert not offenders, offenders
