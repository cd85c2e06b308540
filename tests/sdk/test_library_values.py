"""One converter between Python values and boxed values (sdk/csrc/op_values.cpp) for a call's
arguments and a Python kernel's results: the same kinds convert the same way both ways, and
the only differences are the ones the core makes up for (a result's numbers and bools)."""

from __future__ import annotations

import uuid

import numpy as np
import pytest

import sdk
import sdk.library as L


@pytest.fixture
def lib():
    library = L.Library("v" + uuid.uuid4().hex[:10], "DEF")
    yield library
    library._destroy()


def _op(lib, schema: str, kernel):
    name = lib.define(schema)
    lib.impl(name, kernel, "CompositeExplicitAutograd")
    return getattr(getattr(sdk.ops, lib.ns), name)


def test_a_kernel_may_return_what_a_caller_may_pass(lib):
    # a device as the text sdk.device takes, and arrays in a Tensor[] (both once refused)
    dev = _op(lib, "dev(str d) -> Device", lambda d: d)
    assert dev("cpu") == sdk.device("cpu")
    arrays = _op(lib, "arrays(Tensor x) -> Tensor[]", lambda x: [np.arange(2.0), x])
    got = arrays(sdk.ones(2))
    assert all(isinstance(t, sdk.Tensor) for t in got)
    np.testing.assert_array_equal(got[0].numpy(), [0.0, 1.0])
    # and the caller's side takes the same values
    echo = _op(lib, "echo(Device d, Tensor[] ts) -> Tensor[]", lambda d, ts: ts)
    assert len(echo("cpu", [np.zeros(1), sdk.ones(1)])) == 2


@pytest.mark.parametrize(
    "schema, returned, kind",
    [
        ("s(Tensor x) -> str", 3, "int for its str result"),
        ("t(Tensor x) -> Tensor", 3.5, "float for its Tensor result"),
        ("l(Tensor x) -> int[]", 7, "int for its int\\[\\] result"),
        ("ts(Tensor x) -> Tensor[]", [None], "NoneType in its Tensor\\[\\] result"),
    ],
)
def test_a_result_of_the_wrong_kind_names_the_op_and_the_type(lib, schema, returned, kind):
    op = _op(lib, schema, lambda x: returned)
    with pytest.raises(TypeError, match=f"{lib.ns}::\\w+: the Python kernel returned a {kind}"):
        op(sdk.ones(1))


def test_an_argument_of_the_wrong_kind_names_the_argument_and_the_schema(lib):
    op = _op(lib, "f(Tensor x, str s, float[] fs) -> Tensor", lambda x, s, fs: x)
    with pytest.raises(TypeError, match=r"f\(\): argument 's' must be str, not int \(schema:"):
        op(sdk.ones(1), 3, [1.0])
    with pytest.raises(TypeError, match=r"argument 'x' must be Tensor, not float"):
        op(3.5, "a", [1.0])
    with pytest.raises(TypeError, match=r"argument 'fs' must be float\[\], not str"):
        op(sdk.ones(1), "a", ["z"])


def test_result_numbers_and_bools_are_read_by_value(lib):
    # numpy scalars and computed values, as kernels produce them; the core converts them
    floats = _op(lib, "fl(Tensor x) -> float[]", lambda x: [np.float32(1.5), 2])
    assert floats(sdk.ones(1)) == [1.5, 2.0]
    bools = _op(lib, "bl(Tensor x) -> bool[]", lambda x: [np.bool_(True), 0])
    assert bools(sdk.ones(1)) == [True, False]
    one = _op(lib, "one(Tensor x) -> float", lambda x: 2)
    assert one(sdk.ones(1)) == 2.0 and isinstance(one(sdk.ones(1)), float)


def test_int_list_lists_convert_both_ways(lib):
    # int[][] (torch's schema type): lists or tuples of ints, each list of any length
    seen = []
    op = _op(
        lib,
        "grp(Tensor x, int[][] g, int[][]? og=None) -> int[][]",
        lambda x, g, og: seen.append((g, og)) or g[::-1],
    )
    assert op(sdk.ones(1), [[1, 2], (3,), [], [np.int64(4)]]) == [[4], [], [3], [1, 2]]
    assert seen[-1] == ([[1, 2], [3], [], [4]], None)
    assert op(sdk.ones(1), (), og=[[-(2**63)]]) == [] and seen[-1] == ([], [[-(2**63)]])
    assert op.schema == f"{lib.ns}::grp(Tensor x, int[][] g, int[][]? og=None) -> int[][]"


@pytest.mark.parametrize(
    "value, error",
    [
        ([1, 2], r"argument 'g' item \[0\] must be int\[\], not int"),
        (
            [[1], [2.5]],
            r"argument 'g' item \[1\] must be a list of ints \(int\[\]\); item 0 is float",
        ),
        ([[1], None], r"argument 'g' item \[1\] must be int\[\], not NoneType"),
        ([["a"]], r"item 0 is str"),
        ("ab", r"argument 'g' must be int\[\]\[\], not str"),
        (None, r"argument 'g' must be int\[\]\[\], not NoneType"),
    ],
)
def test_a_bad_int_list_list_names_the_argument_and_the_item(lib, value, error):
    op = _op(lib, "grp(Tensor x, int[][] g) -> Tensor", lambda x, g: x)
    with pytest.raises(TypeError, match=error):
        op(sdk.ones(1), value)


def test_int_list_list_results_and_schemas_are_checked(lib):
    flat = _op(lib, "flat(Tensor x) -> int[][]", lambda x: [1, 2])
    with pytest.raises(
        TypeError, match=r"the Python kernel's int\[\]\[\] result item \[0\] must be"
    ):
        flat(sdk.ones(1))
    with pytest.raises(OverflowError, match="does not fit in int64"):
        _op(lib, "big(Tensor x) -> int[][]", lambda x: [[2**63]])(sdk.ones(1))
    # as in torch: no list-of-lists default (None only), and no sized list inside
    for schema, why in [
        ("d1(int[][] g=[[0, 1], [2]]) -> ()", "takes no default but None"),
        ("d2(int[][] g=[]) -> ()", "takes no default but None"),
        ("d4(int[2][] g) -> ()", r"a list of lists holds lists of any length"),
        ("d5(int[][][] g=[]) -> ()", "takes no default but None"),
        (f"d7(int{'[]' * 65} g) -> ()", r"deeper than SDK_VALUE_LIST_MAX_DEPTH \(64 levels\)"),
    ]:
        with pytest.raises(ValueError, match=why):
            lib.define(schema)
    assert lib.define("d6(SymInt[][]? g=None) -> ()") == "d6"
    assert lib.define(f"d8(int{'[]' * 64} g) -> ()") == "d8"  # the deepest allowed


def test_lists_of_int_lists_nest_deeper_through_the_list_kind(lib):
    # int[][][]: a LIST of LISTs of INT_LISTs, converted both ways by walking the levels
    seen = []
    op = _op(lib, "deep(int[][][] g) -> int[][][]", lambda g: seen.append(g) or g + [[[0]]])
    value = [[[1, 2], []], [], [[-(2**63), 2**63 - 1]]]
    assert op(value) == value + [[[0]]] and seen[-1] == value
    assert op(
        (
            [
                (),
            ],
        )
    ) == [[[]], [[0]]]  # tuples, nested empties
    with pytest.raises(TypeError, match=r"argument 'g' item \[0\]\[1\] must be int\[\], not int"):
        op([[[1], 2]])
    with pytest.raises(TypeError, match=r"argument 'g' item \[1\] must be int\[\]\[\], not int"):
        op([[], 5])
    with pytest.raises(OverflowError, match=r"argument 'g' item \[0\]\[0\]: item 1 .* int64"):
        op([[[0, 2**63]]])
    bad = _op(lib, "bad(Tensor x) -> int[][][]", lambda x: [[[1]], [["a"]]])
    with pytest.raises(TypeError, match=r"int\[\]\[\]\[\] result item \[1\]\[0\] .*item 0 is str"):
        bad(sdk.ones(1))
    assert op.schema == f"{lib.ns}::deep(int[][][] g) -> int[][][]"


def test_a_self_containing_list_is_refused_not_followed(lib):
    # the schema's type bounds the walk: a list that contains itself fails at the type's depth
    loop: list = []
    loop.append(loop)
    op = _op(lib, "deep(int[][][] g) -> ()", lambda g: None)
    with pytest.raises(TypeError, match=r"item \[0\]\[0\] must be a list of ints .*item 0 is list"):
        op(loop)


NESTED = (
    "nest(float[][] f, bool[][] b, Tensor[][] t, Tensor?[][] ot, str[] s, str[][] ss, "
    "float[][]? of=None) -> (float[][], bool[][], Tensor[][], Tensor?[][], str[], str[][], "
    "float[][]?)"
)


def test_lists_of_lists_of_every_item_type_convert_both_ways(lib):
    # float[][], bool[][], Tensor[][], Tensor?[][], str[], str[][]: the one list kind, walked
    seen = []
    op = _op(lib, NESTED, lambda *a: seen.append(a) or a)
    t, u = sdk.arange(2.0), np.ones(3)
    out = op([[1.5, 2], [], [np.float32(0.25)]], ([True], [False, True]), [[t], [], [t, u]],
             [[None, t], []], ["a", "é"], [["x"], [], ["y", "z"]])  # fmt: skip
    f, b, ts, ots, s, ss, of = out
    assert f == [[1.5, 2.0], [], [0.25]] and isinstance(f[0][1], float)
    assert b == [[True], [False, True]] and s == ["a", "é"] and ss == [["x"], [], ["y", "z"]]
    assert [len(x) for x in ts] == [1, 0, 2] and all(isinstance(x, sdk.Tensor) for x in ts[2])
    np.testing.assert_array_equal(ts[2][1].numpy(), np.ones(3))
    assert ots[0][0] is None and ots[1] == [] and of is None
    assert seen[-1][0] == f and isinstance(seen[-1][2][0][0], sdk.Tensor)  # the kernel's view
    assert op([], [], [], [], [], [], of=[[-1e308, float("inf")]])[6] == [[-1e308, float("inf")]]
    assert op.schema == f"{lib.ns}::{NESTED}"


@pytest.mark.parametrize(
    "index, value, error",
    [
        (0, [[1.0], ["a"]], r"argument 'f' item \[1\] must be float\[\], not str"),
        (0, [1.0], r"argument 'f' item \[0\] must be float\[\], not float"),
        (1, [[True], None], r"argument 'b' item \[1\] must be bool\[\], not NoneType"),
        (2, [[sdk.ones(1)], [3]], r"argument 't' item \[1\] must be Tensor\[\], not int"),
        (2, [[None]], r"argument 't' item \[0\] must be Tensor\[\], not NoneType"),
        (4, ["a", 1], r"argument 's' item \[1\] must be str, not int"),
        (5, [["a"], "b"], r"argument 'ss' item \[1\] must be str\[\], not str"),
        (5, "ab", r"argument 'ss' must be str\[\]\[\], not str"),
    ],
)
def test_a_bad_nested_list_names_the_argument_and_the_item(lib, index, value, error):
    op = _op(lib, NESTED, lambda *a: a)
    args = [[], [], [], [], [], []]
    args[index] = value
    with pytest.raises(TypeError, match=error):
        op(*args)


def test_nested_results_are_checked_and_nested_types_parse_as_torch(lib):
    bad = _op(lib, "r1(Tensor x) -> float[][]", lambda x: [[1.0], "x"])
    with pytest.raises(
        TypeError, match=r"float\[\]\[\] result item \[1\] must be float\[\], not str"
    ):
        bad(sdk.ones(1))
    none = _op(lib, "r2(Tensor x) -> Tensor[][]", lambda x: [[x], None])
    with pytest.raises(
        TypeError, match=r"must be Tensor\[\]\[\], got a list whose item \[1\] is None"
    ):
        none(sdk.ones(1))
    for schema, why in [
        ("n1(float[][] g=[[1.0]]) -> ()", "takes no default but None"),
        ("n2(str[] g=['a']) -> ()", r"is not a valid str\[\]"),
        ("n3(int[2][] g) -> ()", r"a list of lists holds lists of any length"),
        ("n4(float?[] g) -> ()", r"only Tensor\?\[\] may hold optional elements"),
    ]:
        with pytest.raises(ValueError, match=why):
            lib.define(schema)
    assert lib.define("n5(bool[][][] h, Tensor?[][]? g=None) -> str[][]") == "n5"


def test_lists_without_a_flat_kind_are_lists_of_their_items(lib):
    # Scalar[], ScalarType[], Device[] (once taken for Tensor[]): the list kind's items
    op = _op(
        lib,
        "sc(Scalar[] s, ScalarType[] d, Device[] dv) -> (Scalar[], ScalarType[], Device[])",
        lambda s, d, dv: (s[::-1], d, dv),
    )
    s, d, dv = op([1, 2.5, True], [sdk.float32, sdk.int64], ["cpu"])
    assert s == [True, 2.5, 1] and [type(x) for x in s] == [bool, float, int]
    assert d == [sdk.float32, sdk.int64] and dv == [sdk.device("cpu")]
    with pytest.raises(TypeError, match=r"argument 's' item \[1\] must be Scalar, not str"):
        op([1, "a"], [], [])
