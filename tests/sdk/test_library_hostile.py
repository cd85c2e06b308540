"""The op registry against hostile Python: arguments whose __index__ redefines the op, kernels
returning values the schema cannot hold, schema text that must be refused, and a Python
kernel's exception that C code handled. (Thread stress: tests/reliability.)"""

from __future__ import annotations

import ctypes
import gc
import uuid

import numpy as np
import pytest

import sdk
import sdk.library as L


def ns() -> str:
    """A fresh namespace per test (registrations are process-wide)."""
    return "h" + uuid.uuid4().hex[:10]


# ---- an argument's __index__ redefines the op during the call ----------------------------


class Redefines:
    """An int whose __index__ closes the op's library, defines the op again with another
    schema and reads the new definition (which replaces the handle's argument plan)."""

    def __init__(self, state: dict) -> None:
        self.state = state

    def __index__(self) -> int:
        st = self.state
        if not st["done"]:
            st["done"] = True
            st["lib"]._destroy()
            lib = L.Library(st["ns"], "DEF")
            lib.define("f(Tensor x, float[] a, str b, int c, int d, int e) -> Tensor")
            lib.impl("f", lambda x, *rest: x, "CompositeExplicitAutograd")
            st["lib"] = lib
            op = getattr(sdk.ops, st["ns"]).f
            assert [a["name"] for a in op.arguments][:2] == ["x", "a"]  # the new plan
            _reuse_the_heap()
        return 3


def _reuse_the_heap() -> None:
    """Plans of other ops, allocated where a freed plan would have been: a call that still
    read a freed plan would read theirs."""
    lib = L.Library(ns(), "DEF")
    for k in range(40):
        lib.define(f"junk{k}(Tensor[] aaaaaaaaaaaaaaaaaaaaaaaaaa{k}, str b, int c) -> Tensor")
        _ = sdk._C.op_find(f"{lib.ns}::junk{k}").arguments
    lib._destroy()


@pytest.mark.parametrize("where", ["first", "last", "keyword"])
def test_index_that_redefines_the_op_mid_call_fails_cleanly(where):
    n = ns()
    lib = L.Library(n, "DEF")
    lib.define("f(int a, int b, int[] c, int d, *, int k=0) -> int")
    lib.impl("f", lambda a, b, c, d, k: a + b + sum(c) + d + k, "CompositeExplicitAutograd")
    op = getattr(sdk.ops, n).f
    st = {"done": False, "lib": lib, "ns": n}
    r = Redefines(st)
    args = {"first": ((r, 1, [1, 2], 1), {}), "last": ((1, 1, [1, r], 1), {}),
            "keyword": ((1, 1, [1, 2], 1), {"k": r})}[where]  # fmt: skip
    # the call read the old definition's plan; the core now holds a new definition that
    # does not match the values it was given: a clear error, never a crash
    with pytest.raises((TypeError, RuntimeError), match=f"{n}::f"):
        op(*args[0], **args[1])
    assert st["done"]
    x = sdk.ones(2)
    np.testing.assert_array_equal(op(x, [1.0], "s", 1, 2, 3).numpy(), [1.0, 1.0])
    st["lib"]._destroy()


def test_index_that_closes_the_library_mid_call_fails_cleanly():
    n = ns()
    lib = L.Library(n, "DEF")
    lib.define("g(int a, int b) -> int")
    lib.impl("g", lambda a, b: a + b, "CompositeExplicitAutograd")
    op = getattr(sdk.ops, n).g

    class Closes:
        def __index__(self) -> int:
            lib._destroy()
            with pytest.raises(RuntimeError, match="not defined"):
                _ = op.arguments
            _reuse_the_heap()
            return 1

    with pytest.raises(RuntimeError, match=f"{n}::g: the op is not defined"):
        op(Closes(), 2)


# ---- results a Python kernel returns -----------------------------------------------------


def test_an_int_result_out_of_int64_is_an_overflow_error_and_leaves_nothing_set():
    n = ns()
    lib = L.Library(n, "DEF")
    lib.define("big(int x) -> int")
    lib.impl("big", lambda x: x * 2**70, "CompositeExplicitAutograd")
    lib.define("ints(int x) -> int[]")
    lib.impl("ints", lambda x: [1, x * 2**70], "CompositeExplicitAutograd")
    ops = getattr(sdk.ops, n)
    with pytest.raises(OverflowError, match=f"{n}::big: .*int result .* does not fit in int64"):
        ops.big(1)
    assert len([k for k in range(3)]) == 3  # no pending exception surfaces as SystemError
    assert sdk.ones(2).sum().item() == 2.0
    with pytest.raises(OverflowError, match=f"{n}::ints.*item 1 .* does not fit in int64"):
        ops.ints(1)
    assert ops.big(0) == 0 and ops.ints(0) == [1, 0]
    lib._destroy()


def test_an_optional_tensor_list_result_may_hold_none():
    n = ns()
    lib = L.Library(n, "DEF")
    lib.define("opts(Tensor x) -> Tensor?[]")
    lib.impl("opts", lambda x: [x, None, x + 1], "CompositeExplicitAutograd")
    lib.define("plain(Tensor x) -> Tensor[]")
    lib.impl("plain", lambda x: [x, None], "CompositeExplicitAutograd")
    ops = getattr(sdk.ops, n)
    got = ops.opts(sdk.zeros(2))
    assert got[1] is None and len(got) == 3
    np.testing.assert_array_equal(got[2].numpy(), [1.0, 1.0])
    with pytest.raises(TypeError, match=f"{n}::plain: .*NoneType in its Tensor\\[\\] result"):
        ops.plain(sdk.zeros(2))
    lib._destroy()


@pytest.mark.parametrize(
    "returned, match",
    [
        (lambda x: x.reshape(2, 3), "must return a tuple of 2 results .* not Tensor"),
        (lambda x: np.zeros((2, 3), np.float32), "must return a tuple of 2 results .*ndarray"),
        (lambda x: (x,), "returned 1 values, the schema .* has 2"),
        (lambda x: (x, x, x), "returned 3 values, the schema .* has 2"),
    ],
)
def test_several_results_need_a_tuple_of_that_many(returned, match):
    n = ns()
    lib = L.Library(n, "DEF")
    lib.define("two(Tensor x) -> (Tensor, Tensor)")
    lib.impl("two", returned, "CompositeExplicitAutograd")
    with pytest.raises(TypeError, match=f"{n}::two: .*{match}"):
        getattr(sdk.ops, n).two(sdk.zeros(6))
    lib._destroy()


# ---- int[] is a list of int64, not a shape -----------------------------------------------


def test_int_list_arguments_and_results_take_any_int64():
    n = ns()
    lib = L.Library(n, "DEF")
    lib.define("echo(int[] xs, int[2] pair) -> int[]")
    lib.impl("echo", lambda xs, pair: xs + pair, "CompositeExplicitAutograd")
    op = getattr(sdk.ops, n).echo
    big = [2**32, 2**32, -(2**63), 2**63 - 1]
    assert op(big, [2**40, -1]) == big + [2**40, -1]
    assert op([], 5) == [5, 5] and op((np.int64(7),), [1, 2]) == [7, 1, 2]
    with pytest.raises(OverflowError, match=f"{n}::echo\\(\\): argument 'xs': item 1"):
        op([1, 2**64], [1, 2])
    with pytest.raises(TypeError, match="item 0 is float"):
        op([1.5], [1, 2])
    with pytest.raises(TypeError, match="argument 'xs' must be int\\[\\]"):
        op("12", [1, 2])
    lib._destroy()


def test_an_int_list_whose_items_change_it_is_read_from_a_copy():
    n = ns()
    lib = L.Library(n, "DEF")
    lib.define("echo(int[] xs, float[] fs) -> int[]")
    lib.impl("echo", lambda xs, fs: xs, "CompositeExplicitAutograd")
    values: list = []

    class Clears:
        def __index__(self) -> int:
            values.clear()  # frees the other items while the call reads the list
            gc.collect()
            return 4

        def __float__(self) -> float:
            values.clear()
            return 1.0

    values[:] = [Clears(), 10**6, 2**40 + 1]
    assert getattr(sdk.ops, n).echo(values, [1.0]) == [4, 10**6, 2**40 + 1]
    values[:] = [Clears(), 10**6]
    assert getattr(sdk.ops, n).echo([1], values) == [1]
    lib._destroy()


# ---- schema text -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "schema, match",
    [
        ("f(int[100000000000000000000000] x) -> Tensor", "list size 1000.* is too large"),
        ("f(int[4294967298] x) -> Tensor", "list size 4294967298 is too large"),
        ("f(int[65537] x) -> Tensor", "list size 65537 is too large"),
        ("f(Tensor x) -> Tensor\0; g(Tensor y) -> Tensor", "contains a NUL character"),
        ("f(Tensor x\0) -> Tensor", "contains a NUL character"),
    ],
)
def test_schema_text_that_the_parser_must_refuse(schema, match):
    lib = L.Library(ns(), "DEF")
    with pytest.raises((ValueError, RuntimeError), match=match):
        lib.define(schema)
    assert sdk._C.op_list(lib.ns) == []
    lib._destroy()


def test_a_fixed_list_size_within_the_limit_is_kept_exactly():
    lib = L.Library(ns(), "DEF")
    lib.define("f(int[65536] x) -> Tensor")
    assert getattr(sdk.ops, lib.ns).f.arguments[0]["list_size"] == 65536
    lib._destroy()


@pytest.mark.parametrize("where", ["namespace", "op name", "op_find"])
def test_a_nul_in_a_name_is_refused(where):
    n = ns()
    with pytest.raises(ValueError, match="contains a NUL character"):
        if where == "namespace":
            L.Library(n + "\0evil", "DEF")
        elif where == "op name":
            lib = L.Library(n, "DEF")
            lib.define("f(Tensor x) -> Tensor")
            try:
                lib.impl("f\0g", lambda x: x, "CPU")
            finally:
                lib._destroy()
        else:
            sdk._C.op_find(f"{n}::f\0")
    assert sdk._C.op_list(n) == []


# ---- a Python kernel's exception that C code handled ---------------------------------------


def _core():
    core = ctypes.CDLL(sdk.get_library_path())
    core.sdk_op_find.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p)]
    core.sdk_values_new.argtypes = [ctypes.POINTER(ctypes.c_void_p)]
    core.sdk_values_push_int.argtypes = [ctypes.c_void_p, ctypes.c_int64]
    core.sdk_op_call.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
    core.sdk_values_free.argtypes = [ctypes.c_void_p]
    return core


def test_an_exception_that_c_code_handled_does_not_resurface_later():
    n = ns()

    class Stale(Exception):
        pass

    @L.custom_op(f"{n}::boom", mutates_args=())
    def boom(x: int) -> int:
        raise Stale("from the kernel C code called and handled")

    lib = L.Library(n, "FRAGMENT")
    lib.define("nokernel(Tensor x) -> Tensor")
    # C code (here through ctypes) calls the failing Python kernel and handles the failure
    core = _core()
    op, values = ctypes.c_void_p(), ctypes.c_void_p()
    assert core.sdk_op_find(f"{n}::boom".encode(), ctypes.byref(op)) == 0
    assert core.sdk_values_new(ctypes.byref(values)) == 0
    assert core.sdk_values_push_int(values, 1) == 0
    assert core.sdk_op_call(op, values) != 0
    core.sdk_values_free(values)
    # the next failing op raises its own error, not the handled one
    with pytest.raises(NotImplementedError, match=f"{n}::nokernel: no kernel"):
        getattr(sdk.ops, n).nokernel(sdk.ones(1))
    with pytest.raises(Stale, match="from the kernel"):  # the kernel's own calls still do
        boom(1)
    lib._destroy()


# ---- a tensor list whose item empties the list while it is checked for other frameworks ----


def test_a_list_emptied_by_its_items_getattr_is_read_from_a_snapshot():
    n = ns()

    @L.custom_op(f"{n}::total", mutates_args=())
    def total(xs: list[sdk.Tensor]) -> sdk.Tensor:
        return sdk.stack(xs).sum(0)

    items: list = []

    class Clears:
        """Its attribute lookups (is it a DLPack producer?) empty the caller's list."""

        def __getattr__(self, name):
            items.clear()
            gc.collect()
            raise AttributeError(name)

    items.extend([sdk.ones(2), Clears(), sdk.ones(2)])
    # no crash: the check reads a snapshot; the call then sees the emptied list
    with pytest.raises(ValueError, match="non-empty list"):
        sdk.ops.__getattr__(n).total(items)
    assert sdk.ops.__getattr__(n).total([sdk.ones(2), sdk.ones(2)]).tolist() == [2.0, 2.0]


def test_int_list_lists_through_the_c_abi():
    # sdk_values_push/get_int_list_list (ABI 1.8): ints one list after another, the lengths
    core = _core()
    i64p = ctypes.POINTER(ctypes.c_int64)
    core.sdk_values_push_int_list_list.argtypes = [ctypes.c_void_p, i64p, i64p, ctypes.c_int64]
    core.sdk_values_get_int_list_list.argtypes = [
        ctypes.c_void_p, ctypes.c_int64, ctypes.POINTER(i64p), ctypes.POINTER(i64p), i64p,
    ]  # fmt: skip
    values = ctypes.c_void_p()
    assert core.sdk_values_new(ctypes.byref(values)) == 0
    try:
        data, lengths = (ctypes.c_int64 * 3)(1, 2, 3), (ctypes.c_int64 * 3)(2, 0, 1)
        assert core.sdk_values_push_int_list_list(values, data, lengths, 3) == 0
        d, n_of, n = i64p(), i64p(), ctypes.c_int64()
        assert core.sdk_values_get_int_list_list(values, 0, d, n_of, ctypes.byref(n)) == 0
        assert n.value == 3 and list(n_of[:3]) == [2, 0, 1] and list(d[:3]) == [1, 2, 3]
        bad = (ctypes.c_int64 * 1)(-1)
        assert core.sdk_values_push_int_list_list(values, data, bad, 1) == 1  # ValueError
        assert core.sdk_values_push_int_list_list(values, None, lengths, 3) == 1  # NULL ints
        assert core.sdk_values_push_int(values, 4) == 0
        assert core.sdk_values_get_int_list_list(values, 1, d, n_of, ctypes.byref(n)) == 2
    finally:
        core.sdk_values_free(values)


def _list_core():
    """The core with the argument types of the list functions (ABI 1.8 and 1.9)."""
    core = _core()
    i64p = ctypes.POINTER(ctypes.c_int64)
    vpp = ctypes.POINTER(ctypes.c_void_p)
    core.sdk_values_push_list.argtypes = [ctypes.c_void_p, ctypes.c_int64]
    core.sdk_values_get_list.argtypes = [ctypes.c_void_p, ctypes.c_int64, vpp]
    core.sdk_values_get_int_list.argtypes = [ctypes.c_void_p, ctypes.c_int64, vpp, i64p]
    core.sdk_values_push_int_list.argtypes = [ctypes.c_void_p, i64p, ctypes.c_int64]
    core.sdk_values_size.argtypes = [ctypes.c_void_p]
    core.sdk_values_size.restype = ctypes.c_int64
    core.sdk_values_tag.argtypes = [ctypes.c_void_p, ctypes.c_int64]
    core.sdk_values_get_int.argtypes = [ctypes.c_void_p, ctypes.c_int64, i64p]
    core.sdk_values_push_int_list_list.argtypes = [ctypes.c_void_p, i64p, i64p, ctypes.c_int64]
    core.sdk_values_get_int_list_list.argtypes = [
        ctypes.c_void_p, ctypes.c_int64, ctypes.POINTER(i64p), ctypes.POINTER(i64p), i64p,
    ]  # fmt: skip
    core.sdk_last_error_message.restype = ctypes.c_char_p
    return core


LIST, INT_LIST, INT = 13, 8, 2  # SDK_VALUE_LIST, SDK_VALUE_INT_LIST, SDK_VALUE_INT
VALUE_ERROR, TYPE_ERROR, INDEX_ERROR = 1, 2, 3


@pytest.fixture
def values():
    core = _list_core()
    v = ctypes.c_void_p()
    assert core.sdk_values_new(ctypes.byref(v)) == 0
    yield core, v
    core.sdk_values_free(v)


def _items(core, v, i):
    items = ctypes.c_void_p()
    assert core.sdk_values_get_list(v, i, ctypes.byref(items)) == 0
    return items


def test_a_list_of_values_is_built_bottom_up_and_read_through_a_view(values):
    # [[7, 8], [], 9]: an INT_LIST, an empty LIST and an INT wrapped into one LIST
    core, v = values
    assert core.sdk_values_push_int(v, 1) == 0  # below the list: untouched
    assert core.sdk_values_push_int_list(v, (ctypes.c_int64 * 2)(7, 8), 2) == 0
    assert core.sdk_values_push_list(v, 0) == 0  # an empty list
    assert core.sdk_values_push_int(v, 9) == 0
    assert core.sdk_values_push_list(v, 3) == 0
    assert core.sdk_values_size(v) == 2 and core.sdk_values_tag(v, 1) == LIST
    items = _items(core, v, -1)
    assert core.sdk_values_size(items) == 3
    assert [core.sdk_values_tag(items, k) for k in range(3)] == [INT_LIST, LIST, INT]
    d, n = ctypes.c_void_p(), ctypes.c_int64()
    assert core.sdk_values_get_int_list(items, 0, ctypes.byref(d), ctypes.byref(n)) == 0
    assert ctypes.cast(d, ctypes.POINTER(ctypes.c_int64))[: n.value] == [7, 8]
    assert core.sdk_values_size(_items(core, items, 1)) == 0
    x = ctypes.c_int64()
    assert core.sdk_values_get_int(items, 2, ctypes.byref(x)) == 0 and x.value == 9
    for k in range(100):  # the view and its pointers stay valid while more values are pushed
        assert core.sdk_values_push_int(v, k) == 0
    assert ctypes.cast(d, ctypes.POINTER(ctypes.c_int64))[:2] == [7, 8]
    assert core.sdk_values_size(items) == 3


def test_the_list_functions_refuse_bad_input_with_an_error(values):
    core, v = values
    items = ctypes.c_void_p()
    assert core.sdk_values_push_list(None, 0) == VALUE_ERROR  # NULL values
    assert b"values" in core.sdk_last_error_message()
    assert core.sdk_values_push_list(v, -1) == VALUE_ERROR
    assert core.sdk_values_push_list(v, 1) == VALUE_ERROR  # more than there are
    assert b"cannot make a list of 1 of 0 values" in core.sdk_last_error_message()
    assert core.sdk_values_get_list(None, 0, ctypes.byref(items)) == VALUE_ERROR
    assert core.sdk_values_push_int(v, 4) == 0
    assert core.sdk_values_get_list(v, 0, None) == VALUE_ERROR  # NULL out pointer
    assert core.sdk_values_get_list(v, 0, ctypes.byref(items)) == TYPE_ERROR  # an int
    assert b"is int, not a list" in core.sdk_last_error_message()
    assert core.sdk_values_get_list(v, 5, ctypes.byref(items)) == INDEX_ERROR
    assert core.sdk_values_get_list(v, -2, ctypes.byref(items)) == INDEX_ERROR
    assert core.sdk_values_size(v) == 1  # nothing changed by the refusals


def test_lists_nest_at_most_the_limit_deep(values):
    core, v = values
    assert core.sdk_values_push_int(v, 1) == 0
    for _ in range(64):  # 64 levels of LIST around an int: the limit
        assert core.sdk_values_push_list(v, 1) == 0
    assert core.sdk_values_push_list(v, 1) == VALUE_ERROR
    assert b"65 levels, more than SDK_VALUE_LIST_MAX_DEPTH (64)" in core.sdk_last_error_message()
    assert core.sdk_values_size(v) == 1 and core.sdk_values_tag(v, 0) == LIST  # left as it was
    assert core.sdk_values_push_int_list(v, None, 0) == 0  # a flat list is a level itself
    for _ in range(63):
        assert core.sdk_values_push_list(v, 1) == 0
    assert core.sdk_values_push_list(v, 1) == VALUE_ERROR
    items = v  # 63 views down, an empty INT_LIST
    for _ in range(63):
        items = _items(core, items, -1)
    assert core.sdk_values_tag(items, 0) == INT_LIST


def test_int_list_lists_of_abi_1_8_read_and_write_the_list_kind(values):
    # push_int_list_list makes a LIST of INT_LISTs; get_int_list_list reads one made by either
    core, v = values
    i64p = ctypes.POINTER(ctypes.c_int64)
    data, lengths = (ctypes.c_int64 * 3)(2**63 - 1, -(2**63), 3), (ctypes.c_int64 * 3)(2, 0, 1)
    assert core.sdk_values_push_int_list_list(v, data, lengths, 3) == 0
    assert core.sdk_values_tag(v, 0) == LIST
    assert core.sdk_values_size(_items(core, v, 0)) == 3
    assert core.sdk_values_push_int_list(v, (ctypes.c_int64 * 1)(5), 1) == 0
    assert core.sdk_values_push_int_list(v, None, 0) == 0
    assert core.sdk_values_push_list(v, 2) == 0  # [[5], []] built as a generic list
    d, n_of, n = i64p(), i64p(), ctypes.c_int64()
    assert core.sdk_values_get_int_list_list(v, 0, d, n_of, ctypes.byref(n)) == 0
    assert n.value == 3 and n_of[:3] == [2, 0, 1] and d[:3] == [2**63 - 1, -(2**63), 3]
    assert core.sdk_values_get_int_list_list(v, 1, d, n_of, ctypes.byref(n)) == 0
    assert n.value == 2 and n_of[:2] == [1, 0] and d[:1] == [5]
    assert core.sdk_values_push_list(v, 0) == 0  # an empty list is an empty int[][]
    assert core.sdk_values_get_int_list_list(v, 2, d, n_of, ctypes.byref(n)) == 0 and n.value == 0
    assert core.sdk_values_push_int(v, 1) == 0
    assert core.sdk_values_push_list(v, 1) == 0  # [1]: a list, but not of int lists
    assert core.sdk_values_get_int_list_list(v, 3, d, n_of, ctypes.byref(n)) == TYPE_ERROR
    assert b"its item 0 is int, not int[]" in core.sdk_last_error_message()
    assert core.sdk_values_get_int_list_list(v, 3, None, n_of, ctypes.byref(n)) == VALUE_ERROR
    bad = (ctypes.c_int64 * 2)(1, -2)
    assert core.sdk_values_push_int_list_list(v, data, bad, 2) == VALUE_ERROR
    assert core.sdk_values_push_int_list_list(v, data, lengths, -1) == VALUE_ERROR
    assert core.sdk_values_size(v) == 4


def test_a_c_caller_s_int_lists_inside_a_float_list_of_lists_become_floats(values):
    # the schema check walks the list kind and coerces items as torch does (ints for floats);
    # the coerced list is no longer an int[][] to the ABI 1.8 getter
    core, v = values
    lib = L.Library(ns(), "DEF")
    try:
        lib.define("fl(float[][] g) -> float[][]")
        seen = []
        lib.impl("fl", lambda g: seen.append(g) or g, "CompositeExplicitAutograd")
        op = ctypes.c_void_p()
        assert core.sdk_op_find(f"{lib.ns}::fl".encode(), ctypes.byref(op)) == 0
        assert core.sdk_values_push_int_list(v, (ctypes.c_int64 * 2)(1, 2), 2) == 0
        assert core.sdk_values_push_list(v, 1) == 0  # [[1, 2]] as ints
        assert core.sdk_op_call(op, v) == 0
        assert seen == [[[1.0, 2.0]]] and isinstance(seen[0][0][0], float)
        assert core.sdk_values_tag(_items(core, v, 0), 0) == 9  # SDK_VALUE_FLOAT_LIST
        i64p = ctypes.POINTER(ctypes.c_int64)
        d, n_of, n = i64p(), i64p(), ctypes.c_int64()
        assert core.sdk_values_get_int_list_list(v, 0, d, n_of, ctypes.byref(n)) == TYPE_ERROR
        core.sdk_values_clear.argtypes = [ctypes.c_void_p]
        core.sdk_values_clear(v)
        assert core.sdk_values_push_int(v, 3) == 0
        assert core.sdk_values_push_list(v, 1) == 0  # [3]: an int where a float[] belongs
        assert core.sdk_op_call(op, v) == TYPE_ERROR
        assert b"got a list whose item [0] is int" in core.sdk_last_error_message()
    finally:
        lib._destroy()
