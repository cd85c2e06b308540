"""Operators registered from C++ (SDK_LIBRARY, sdk/library.h) and from C (the C ABI), built
with load(): calls from Python, C++ and C, every schema type, and the errors of loading."""

from __future__ import annotations

import uuid

import numpy as np
import pytest

import cpp_extension
import sdk
import sdk.library as L
from cpp_extension import load, load_inline

ALL_TYPES = r"""
#include <sdk/containers.h>
#include <sdk/library.h>

using sdk::Tensor;

std::tuple<Tensor, std::optional<Tensor>, std::vector<Tensor>, int64_t, std::vector<int64_t>,
           double, bool, std::string, sdk::Scalar, sdk::ScalarType, sdk::Device>
echo(const Tensor& t, std::optional<Tensor> ot, std::vector<Tensor> ts,
     std::vector<std::optional<Tensor>> ots, int64_t i, sdk::IntArrayRef il, double f,
     std::vector<double> fl, bool b, std::vector<bool> bl, std::string s, sdk::Scalar sc,
     sdk::ScalarType dt, std::optional<sdk::ScalarType> odt, sdk::Device dev, int64_t kw) {
  SDK_CHECK(ots.size() == 2 && ots[0].has_value() && !ots[1].has_value(), "ots");
  SDK_CHECK(fl.size() == 2 && bl.size() == 2 && !odt.has_value(), "lists");
  return {t, ot, ts, i + kw, std::vector<int64_t>(il.begin(), il.end()), f, b, s, sc, dt, dev};
}

Tensor twice(const Tensor& x) { return x * 2; }

// int[][]: the lists' sums, and the lists back reversed (each of any length, as in torch)
std::tuple<std::vector<int64_t>, std::vector<std::vector<int64_t>>> groups(
    const Tensor& x, std::vector<std::vector<int64_t>> g, std::optional<std::vector<std::vector<int64_t>>> og) {
  std::vector<int64_t> sums;
  for (const auto& l : g) {
    int64_t s = 0;
    for (int64_t v : l) s += v;
    sums.push_back(s);
  }
  if (og) sums.push_back(static_cast<int64_t>(og->size()));
  return {sums, std::vector<std::vector<int64_t>>(g.rbegin(), g.rend())};
}

// a C++ kernel calling an op defined in Python, through the dispatcher
Tensor via_python(const Tensor& x) {
  return sdk::Dispatcher::singleton()
      .findSchemaOrThrow("{PYNS}::pyadd", "")
      .typed<Tensor(const Tensor&, double)>()
      .call(x, 10.0);
}

// int[][] as torch's List<List<int64_t>> (sdk/containers.h): each list doubled
sdk::List<sdk::List<int64_t>> doubled(const sdk::List<sdk::List<int64_t>>& g) {
  sdk::List<sdk::List<int64_t>> out;
  for (const sdk::List<int64_t>& l : g) {
    sdk::List<int64_t> d;
    for (int64_t v : l) d.push_back(2 * v);
    out.push_back(d);
  }
  return out;
}

// lists of lists of other item types and str[]: the list kind, with no Box of their own
std::tuple<std::vector<std::vector<double>>, std::vector<std::vector<bool>>,
           std::vector<std::vector<Tensor>>, std::vector<std::string>, int64_t>
nested(std::vector<std::vector<double>> f, std::vector<std::vector<bool>> b,
       std::vector<std::vector<Tensor>> t, std::vector<std::string> s,
       std::optional<std::vector<std::vector<double>>> of) {
  for (auto& l : f)
    for (double& x : l) x *= 2;
  for (auto& l : b) l.flip();
  for (auto& l : t)
    for (Tensor& x : l) x = x + 1;
  std::vector<std::string> r(s.rbegin(), s.rend());
  return {f, b, t, r, of ? static_cast<int64_t>(of->size()) : -1};
}

SDK_LIBRARY({NS}, m) {
  m.def("nested(float[][] f, bool[][] b, Tensor[][] t, str[] s, float[][]? of=None) -> "
        "(float[][], bool[][], Tensor[][], str[], int)");
  m.def("nested_inferred", &nested);
  m.def("echo(Tensor t, Tensor? ot, Tensor[] ts, Tensor?[] ots, int i, int[] il, float f, "
        "float[] fl, bool b, bool[] bl, str s, Scalar sc, ScalarType dt, ScalarType? odt, "
        "Device dev, *, int kw=0) -> (Tensor, Tensor?, Tensor[], int, int[], float, bool, str, "
        "Scalar, ScalarType, Device)");
  m.def("twice", &twice);  // schema inferred: twice(Tensor _0) -> Tensor
  m.def("groups(Tensor x, int[][] g, int[][]? og=None) -> (int[], int[][])");
  m.def("groups_inferred", &groups);
  m.def("doubled", &doubled);
  m.def("via_python(Tensor x) -> Tensor");
}
SDK_LIBRARY_IMPL({NS}, CPU, m) {
  m.impl("echo", &echo);
  m.impl("groups", &groups);
  m.impl("nested", &nested);
  m.impl("via_python", &via_python);
}
"""


def _ns() -> str:
    return "c" + uuid.uuid4().hex[:10]


@pytest.fixture(autouse=True)
def _private_cache(ext_dir):
    """Every build of this module in a private SDK_EXTENSIONS_DIR."""


@pytest.fixture(scope="module")
def cpp_ops(tmp_path_factory):
    """A C++ op library (built once) and the namespaces it and its Python helper use."""
    ns, pyns = _ns(), _ns()
    mp = pytest.MonkeyPatch()
    mp.setenv("SDK_EXTENSIONS_DIR", str(tmp_path_factory.mktemp("cache")))

    @L.custom_op(f"{pyns}::pyadd", mutates_args=())
    def pyadd(x: sdk.Tensor, v: float) -> sdk.Tensor:
        return x + v

    src = tmp_path_factory.mktemp("ops") / "all_types.cpp"
    src.write_text(ALL_TYPES.replace("{NS}", ns).replace("{PYNS}", pyns))
    load(f"optypes_{ns}", [str(src)], is_python_module=False)
    mp.undo()
    return ns


def test_every_schema_type_round_trips_through_a_cpp_kernel(cpp_ops):
    op = getattr(sdk.ops, cpp_ops).echo
    t = sdk.arange(3.0)
    out = op(t, None, [t, t], [t, None], 3, [5, 6], 1.5, [0.5, 1.0], True, [True, False], "hé",
             2.5, sdk.int64, None, "cpu", kw=4)  # fmt: skip
    rt, rot, rts, ri, ril, rf, rb, rs, rsc, rdt, rdev = out
    assert rt.data_ptr() == t.data_ptr() and rot is None and len(rts) == 2
    assert (ri, ril, rf, rb, rs, rsc, rdt) == (7, [5, 6], 1.5, True, "hé", 2.5, sdk.int64)
    assert rdev == sdk.device("cpu")
    with pytest.raises(RuntimeError, match="ots"):  # the kernel's own SDK_CHECK
        op(t, None, [t], [None, None], 3, [5], 1.5, [0.5, 1.0], True, [True, False], "s", 1,
           sdk.int64, None, "cpu")  # fmt: skip


def test_inferred_schema_numpy_inputs_and_cpp_calling_python(cpp_ops):
    ops = getattr(sdk.ops, cpp_ops)
    assert ops.twice.schema == f"{cpp_ops}::twice(Tensor _0) -> Tensor"
    np.testing.assert_array_equal(ops.twice(np.arange(3.0)).numpy(), [0.0, 2.0, 4.0])
    np.testing.assert_array_equal(ops.via_python(sdk.ones(2)).numpy(), [11.0, 11.0])


def test_int_list_lists_round_trip_through_a_cpp_kernel(cpp_ops):
    ops = getattr(sdk.ops, cpp_ops)
    assert ops.groups(sdk.ones(1), [[1, 2], [3], []]) == ([3, 3, 0], [[], [3], [1, 2]])
    assert ops.groups(sdk.ones(1), ((4, 5), (6,)), og=[[1], [2, 3]]) == ([9, 6, 2], [[6], [4, 5]])
    assert ops.groups(sdk.ones(1), []) == ([], [])
    assert ops.doubled([[1, 2], [], [3]]) == [[2, 4], [], [6]]
    assert ops.doubled.schema == f"{cpp_ops}::doubled(int[][] _0) -> int[][]"
    assert ops.groups_inferred(sdk.ones(1), [[7, -1]], None) == ([6], [[7, -1]])
    assert ops.groups_inferred.schema == (
        f"{cpp_ops}::groups_inferred(Tensor _0, int[][] _1, int[][]? _2) -> (int[], int[][])"
    )
    assert ops.groups.schema == (
        f"{cpp_ops}::groups(Tensor x, int[][] g, int[][]? og=None) -> (int[], int[][])"
    )
    with pytest.raises(TypeError, match=r"argument 'g' item \[1\] must be int\[\], not int"):
        ops.groups(sdk.ones(1), [[1], 2])
    with pytest.raises(
        TypeError, match=r"argument 'g' item \[0\] must be a list of ints .*item 1 is float"
    ):
        ops.groups(sdk.ones(1), [[1, 2.5]])


def test_nested_lists_of_every_item_type_round_trip_through_a_cpp_kernel(cpp_ops):
    ops = getattr(sdk.ops, cpp_ops)
    t = sdk.arange(2.0)
    f, b, ts, s, n = ops.nested([[1.5], [], [-2.0, 1e300]], [[True, False], []], [[t], [], [t, t]],
                                ["a", "b", "é"], of=[[], [1.0]])  # fmt: skip
    assert f == [[3.0], [], [-4.0, 2e300]] and b == [[False, True], []] and n == 2
    assert s == ["é", "b", "a"] and [len(x) for x in ts] == [1, 0, 2]
    np.testing.assert_array_equal(ts[2][1].numpy(), [1.0, 2.0])
    assert ops.nested([], [], [], [])[4] == -1
    assert ops.nested_inferred.schema == (
        f"{cpp_ops}::nested_inferred(float[][] _0, bool[][] _1, Tensor[][] _2, str[] _3, "
        "float[][]? _4) -> (float[][], bool[][], Tensor[][], str[], int)"
    )
    with pytest.raises(TypeError, match=r"argument 'f' item \[0\] must be float\[\], not str"):
        ops.nested(["x"], [], [], [])


def test_pybind11_module_with_registrations_and_cpp_callers(tmp_path, monkeypatch):
    ns = _ns()
    src = f"""
    sdk::Tensor mymuladd(const sdk::Tensor& a, const sdk::Tensor& b, double c) {{ return a * b + c; }}
    SDK_LIBRARY({ns}, m) {{ m.def("mymuladd(Tensor a, Tensor b, float c) -> Tensor"); }}
    SDK_LIBRARY_IMPL({ns}, CPU, m) {{ m.impl("mymuladd", &mymuladd); }}
    sdk::Tensor call_typed(const sdk::Tensor& a) {{
      auto op = sdk::Dispatcher::singleton().findSchemaOrThrow("{ns}::mymuladd", "")
                    .typed<sdk::Tensor(const sdk::Tensor&, const sdk::Tensor&, double)>();
      return op.call(a, a, 1.0);
    }}
    sdk::Tensor call_short(const sdk::Tensor& a) {{
      return sdk::call_op<sdk::Tensor>("{ns}::mymuladd", a, a, 2.0);
    }}
    std::string missing() {{
      try {{ sdk::Dispatcher::singleton().findSchemaOrThrow("{ns}::nope", ""); }}
      catch (const sdk::Error& e) {{ return e.what(); }}
      return "";
    }}
    """
    m = load_inline(f"pyb_{ns}", cpp_sources=src, functions=["call_typed", "call_short", "missing"])
    x = sdk.tensor([1.0, 2.0])
    np.testing.assert_array_equal(getattr(sdk.ops, ns).mymuladd(x, x, 0.5).numpy(), [1.5, 4.5])
    np.testing.assert_array_equal(m.call_typed(x).numpy(), [2.0, 5.0])
    np.testing.assert_array_equal(m.call_short(x).numpy(), [3.0, 6.0])
    assert f"no op named '{ns}::nope'" in m.missing() and "mymuladd" in m.missing()


PURE_C = r"""
#include <sdk/export.h>
#include <string.h>

/* a boxed C kernel: relu(x) with the core's ops */
static sdk_status relu_kernel(void* ctx, const sdk_op* op, sdk_values* v) {
  sdk_tensor* x = NULL;
  sdk_tensor* r = NULL;
  (void)ctx;
  (void)op;
  if (sdk_values_take_tensor(v, 0, &x) != SDK_OK) return sdk_last_error_kind();
  sdk_status st = sdk_unary(SDK_RELU, x, NULL, &r);
  sdk_tensor_release(x);
  if (st != SDK_OK) return st;
  sdk_values_clear(v);
  return sdk_values_push_tensor_steal(v, r);
}

__attribute__((constructor)) static void register_ops(void) {
  sdk_library* lib = NULL;
  if (sdk_library_open(SDK_LIBRARY_DEF, "{NS}", -1, "pure_c.c", &lib) != SDK_OK ||
      sdk_library_define(lib, "crelu(Tensor x) -> Tensor") != SDK_OK ||
      sdk_library_impl(lib, "crelu", SDK_DISPATCH_CPU, relu_kernel, NULL, NULL) != SDK_OK) {
    sdk_library_record_error(sdk_last_error_message());
  }
}

/* a C caller of any registered op taking one tensor */
SDK_EXPORT(call_unary_op, "(Tensor x) -> Tensor")
sdk_status call_unary_op(const sdk_tensor* x, sdk_tensor** out) {
  const sdk_op* op = NULL;
  sdk_values* v = NULL;
  sdk_status st = sdk_op_find("{NS}::crelu", &op);
  if (st == SDK_OK) st = sdk_values_new(&v);
  if (st == SDK_OK) st = sdk_values_push_tensor(v, x);
  if (st == SDK_OK) st = sdk_op_call(op, v);
  if (st == SDK_OK) st = sdk_values_take_tensor(v, 0, out);
  sdk_values_free(v);
  return st;
}
"""


def test_an_op_registered_and_called_from_pure_c(tmp_path):
    ns = _ns()
    src = tmp_path / "pure_c.c"
    src.write_text(PURE_C.replace("{NS}", ns))
    m = load(f"purec_{ns}", [str(src)], is_python_module=False)
    x = sdk.tensor([-1.0, 2.0])
    np.testing.assert_array_equal(getattr(sdk.ops, ns).crelu(x).numpy(), [0.0, 2.0])
    np.testing.assert_array_equal(m.call_unary_op(x).numpy(), [0.0, 2.0])


@pytest.mark.parametrize(
    "body, problem",
    [
        ('m.def("bad(Tensor x -> Tensor");', "invalid schema 'bad(Tensor x -> Tensor'"),
        ('m.def("dup(Tensor x) -> Tensor"); m.def("dup(Tensor y) -> Tensor");', "::dup is already defined"),
        ('m.def("ok(Tensor x) -> Tensor"); m.impl("ghost", &ident);', "a kernel for {NS}::ghost, which is not defined"),
    ],
)  # fmt: skip
def test_registration_failures_raise_importerror_at_load(tmp_path, body, problem):
    ns = _ns()
    src = tmp_path / "bad.cpp"
    src.write_text(
        "#include <sdk/library.h>\nsdk::Tensor ident(const sdk::Tensor& x) { return x; }\n"
        f"SDK_LIBRARY({ns}, m) {{ {body} }}\n"
    )
    with pytest.raises(ImportError) as e:
        load(f"bad_{ns}", [str(src)], is_python_module=False)
    msg = str(e.value)
    assert "operator registration failed" in msg and f"bad_{ns}.so" in msg, msg
    assert problem.replace("{NS}", ns) in msg and f"SDK_LIBRARY({ns})" in msg, msg
    # loading it again, by any loader, fails the same way (its registrations ran once)
    path = msg.split(": operator registration failed")[0]
    with pytest.raises(ImportError) as again:
        load(f"bad_{ns}", [str(src)], is_python_module=False)
    assert str(again.value) == msg
    for loader in (sdk.ops.load_library, cpp_extension.load_library):
        with pytest.raises(ImportError) as again:
            loader(path)
        assert str(again.value) == msg, loader


def test_a_second_library_for_a_namespace_is_refused(tmp_path, cpp_ops):
    src = tmp_path / "again.cpp"
    src.write_text(
        f'#include <sdk/library.h>\nSDK_LIBRARY({cpp_ops}, m) {{ m.def("x(Tensor a) -> Tensor"); }}\n'
    )
    with pytest.raises(
        ImportError, match=f"namespace '{cpp_ops}' is already defined.*SDK_LIBRARY_FRAGMENT"
    ):
        load(f"again_{cpp_ops}", [str(src)], is_python_module=False)


OLD_1_8 = r"""
#include <sdk/c_api.h>
#include <stdlib.h>
#include <string.h>

/* An extension as one built against ABI 1.8 is: it says ABI 1.8 (what <sdk/export.h> wrote
 * then), reads and writes int[][] only through sdk_values_get/push_int_list_list, and has
 * sdk_op_argument as 1.8 laid it out (without list_levels and item_tag), its size set to that
 * smaller size. */
__attribute__((visibility("default"))) const uint32_t sdk_extension_abi_version = (1u << 16) | 8u;

typedef struct {
  uint32_t size;
  uint32_t reserved;
  const char* name;
  const char* type;
  int32_t tag, optional, kwarg_only, has_default, is_write, list_size;
  const char* alias;
  const char* default_text;
} argument_1_8;

/* the lists in reverse order, each item negated */
static sdk_status flip_kernel(void* ctx, const sdk_op* op, sdk_values* v) {
  argument_1_8 info;
  const int64_t* data = NULL;
  const int64_t* lengths = NULL;
  int64_t n = 0, total = 0, k, j, at = 0, start;
  int64_t *out, *out_lengths;
  sdk_status st;
  (void)ctx;
  memset(&info, 0, sizeof info);
  info.size = sizeof info;
  st = sdk_op_argument_info(op, 0, 0, (sdk_op_argument*)&info);
  if (st != SDK_OK) return st;
  if (strcmp(info.type, "int[][]") != 0 || info.list_size != -1)
    return sdk_set_last_error(SDK_ERROR_RUNTIME, "not the 1.8 description of int[][]");
  st = sdk_values_get_int_list_list(v, 0, &data, &lengths, &n);
  if (st != SDK_OK) return st;
  for (k = 0; k < n; ++k) total += lengths[k];
  out = (int64_t*)malloc(sizeof(int64_t) * (size_t)(total + 1));
  out_lengths = (int64_t*)malloc(sizeof(int64_t) * (size_t)(n + 1));
  for (k = n - 1; k >= 0; --k) {
    for (start = 0, j = 0; j < k; ++j) start += lengths[j];
    out_lengths[n - 1 - k] = lengths[k];
    for (j = 0; j < lengths[k]; ++j) out[at++] = -data[start + j];
  }
  sdk_values_clear(v);
  st = sdk_values_push_int_list_list(v, out, out_lengths, n);
  free(out);
  free(out_lengths);
  return st;
}

__attribute__((constructor)) static void register_ops(void) {
  sdk_library* lib = NULL;
  if (sdk_library_open(SDK_LIBRARY_DEF, "{NS}", -1, "old_1_8.c", &lib) != SDK_OK ||
      sdk_library_define(lib, "flip(int[][] g) -> int[][]") != SDK_OK ||
      sdk_library_impl(lib, "flip", -1, flip_kernel, NULL, NULL) != SDK_OK) {
    sdk_library_record_error(sdk_last_error_message());
  }
}
"""


def test_an_abi_1_8_int_list_list_kernel_still_works(tmp_path):
    # int[][] travels as the list kind since ABI 1.9: a kernel written against 1.8 reads its
    # argument and pushes its result through the 1.8 functions, which wrap that kind
    ns = _ns()
    src = tmp_path / "old_1_8.c"
    src.write_text(OLD_1_8.replace("{NS}", ns))
    load(f"old18_{ns}", [str(src)], is_python_module=False)
    flip = getattr(sdk.ops, ns).flip
    assert flip([[1, 2], [], [3]]) == [[-3], [], [-1, -2]]
    assert flip([]) == [] and flip([[]]) == [[]]
    assert flip([[2**63 - 1]]) == [[-(2**63 - 1)]]
    with pytest.raises(TypeError, match=r"argument 'g' item \[0\] must be int\[\], not float"):
        flip([1.5])


NESTED_DISPATCH = r"""
#include <sdk/export.h>
#include <sdk/library.h>

using sdk::Tensor;

// which kernel a Tensor[][] call runs: the dispatcher looks for tensors inside the list kind
int64_t which_cpu(std::vector<std::vector<Tensor>> t) { return 10 + static_cast<int64_t>(t.size()); }
int64_t which_meta(std::vector<std::vector<Tensor>> t) {
  SDK_CHECK(t.size() == 2 && t[1].size() == 1 && t[1][0].is_meta(), "the meta tensor");
  return 20;
}

SDK_LIBRARY({NS}, m) { m.def("which(Tensor[][] t) -> int"); }
SDK_LIBRARY_IMPL({NS}, CPU, m) { m.impl("which", &which_cpu); }
SDK_LIBRARY_IMPL({NS}, Meta, m) { m.impl("which", &which_meta); }

// a C++ caller with a meta tensor inside the second list: its kernel's answer as a tensor's size
SDK_EXPORT(which_for_meta, "() -> Tensor")
sdk_status which_for_meta(sdk_tensor** result) {
  try {
    Tensor m = sdk::empty({2}, sdk::device(sdk::Device(sdk::kMeta)));
    std::vector<std::vector<Tensor>> lists{{}, {m}};
    int64_t k = sdk::call_op<int64_t>("{NS}::which", lists);
    *result = sdk::zeros({k}).release();
    return SDK_OK;
  } catch (const std::exception& e) {
    return sdk_set_last_error(SDK_ERROR_RUNTIME, e.what());
  }
}
"""


def test_a_tensor_inside_a_list_of_lists_picks_the_kernel(tmp_path):
    ns = _ns()
    src = tmp_path / "nested_dispatch.cpp"
    src.write_text(NESTED_DISPATCH.replace("{NS}", ns))
    m = load(f"nestdisp_{ns}", [str(src)], is_python_module=False)
    assert getattr(sdk.ops, ns).which([[sdk.ones(1)], []]) == 12  # CPU tensors: the CPU kernel
    assert tuple(m.which_for_meta().shape) == (20,)  # a meta tensor two levels down: Meta's
