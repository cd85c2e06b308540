"""Custom classes (torch::class_, c10::intrusive_ptr; sdk/custom_class.h, sdk.classes): a
library written in torch's spelling, ported with the porter and built with load(); objects
made, called, passed to ops, returned, pickled, kept alive by Python or by C++ alone, and
refused with clear errors when they are the wrong thing. With torch installed, the same source
built against torch gives the same answers."""

from __future__ import annotations

import copy
import gc
import pickle
import uuid
import weakref
from pathlib import Path

import numpy as np
import pytest

import sdk
from cpp_extension import load
from cpp_extension.port import sdk_names as _port_names
from cpp_extension.port.cxx import port_cxx
from tests._support import kept_folder, kept_source, toolchain_key, torch_key
from tests.cpp_extension.conftest import REPO

# The library as a torch extension writes it (the idiom of pyg-lib's hash maps and torchtext's
# vocabularies: state built once, queried by methods and ops, pickled by its state).
TORCH_SOURCE = r"""
#include <ATen/ATen.h>
#include <c10/util/intrusive_ptr.h>
#include <torch/custom_class.h>
#include <torch/library.h>

#include <atomic>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

namespace {

std::atomic<int64_t> live_stacks{0};

// A stack of ints.
struct Stack : torch::CustomClassHolder {
  std::vector<int64_t> items;
  explicit Stack(std::vector<int64_t> init) : items(std::move(init)) { ++live_stacks; }
  ~Stack() override { --live_stacks; }
  void push(int64_t x) { items.push_back(x); }
  int64_t pop() {
    TORCH_CHECK(!items.empty(), "Stack.pop: the stack is empty");
    int64_t x = items.back();
    items.pop_back();
    return x;
  }
  int64_t size() const { return static_cast<int64_t>(items.size()); }
  c10::intrusive_ptr<Stack> clone() const { return c10::make_intrusive<Stack>(items); }
  void merge(const c10::intrusive_ptr<Stack>& other) {
    std::vector<int64_t> theirs = other->items;  // other may be this stack
    items.insert(items.end(), theirs.begin(), theirs.end());
  }
};

// The positions of a tensor's keys: built once, queried often.
struct KeyIndex : torch::CustomClassHolder {
  at::Tensor keys_;
  std::unordered_map<int64_t, int64_t> pos_;
  explicit KeyIndex(const at::Tensor& keys) : keys_(keys.contiguous()) {
    TORCH_CHECK(keys.dim() == 1 && keys.scalar_type() == at::kLong,
                "KeyIndex: expected a 1-d int64 tensor of keys");
    const int64_t* k = keys_.data_ptr<int64_t>();
    for (int64_t i = 0; i < keys_.numel(); ++i) {
      TORCH_CHECK(pos_.emplace(k[i], i).second, "KeyIndex: duplicate key ", k[i]);
    }
  }
  at::Tensor get(const at::Tensor& query) {
    at::Tensor q = query.contiguous();
    at::Tensor out = at::empty({q.numel()}, q.options().dtype(at::kLong));
    const int64_t* qd = q.data_ptr<int64_t>();
    int64_t* od = out.data_ptr<int64_t>();
    for (int64_t i = 0; i < q.numel(); ++i) {
      auto it = pos_.find(qd[i]);
      od[i] = it == pos_.end() ? -1 : it->second;
    }
    return out;
  }
  at::Tensor keys() const { return keys_; }
};

// A class without pickling.
struct Opaque : torch::CustomClassHolder {
  int64_t tag;
  explicit Opaque(int64_t t) : tag(t) {}
};

std::vector<c10::intrusive_ptr<Stack>> held;  // objects only C++ refers to

int64_t sum_stack(const c10::intrusive_ptr<Stack>& s) {
  int64_t total = 0;
  for (int64_t x : s->items) total += x;
  return total;
}
c10::intrusive_ptr<Stack> make_stack(int64_t n) {
  std::vector<int64_t> v;
  for (int64_t i = 0; i < n; ++i) v.push_back(i);
  return c10::make_intrusive<Stack>(v);
}
int64_t hold(c10::intrusive_ptr<Stack> s) {
  held.push_back(s);
  return static_cast<int64_t>(held.size());
}
int64_t held_sum() {
  int64_t total = 0;
  for (const auto& s : held) total += sum_stack(s);
  return total;
}
int64_t release_held() {
  int64_t n = static_cast<int64_t>(held.size());
  held.clear();
  return n;
}
int64_t live() { return live_stacks.load(); }
int64_t size_or(const c10::optional<c10::intrusive_ptr<Stack>>& s) {
  return s ? (*s)->size() : -1;
}
// A kernel calling another op with an object, through the dispatcher.
int64_t sum_through_dispatcher(const c10::intrusive_ptr<Stack>& s) {
  static auto op = c10::Dispatcher::singleton()
                       .findSchemaOrThrow("{NS}::sum_stack", "")
                       .typed<int64_t(const c10::intrusive_ptr<Stack>&)>();
  return op.call(s) * 10;
}
// References taken and dropped from several threads at once: the count ends where it began.
bool refs_from_threads(const c10::intrusive_ptr<Stack>& s, int64_t n) {
  size_t before = s.use_count();
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&s, n] {
      for (int64_t i = 0; i < n; ++i) {
        c10::intrusive_ptr<Stack> copy = s;
        c10::weak_intrusive_ptr<Stack> weak(copy);
        TORCH_CHECK(weak.lock().defined(), "a live object's weak pointer must lock");
      }
    });
  }
  for (auto& th : threads) th.join();
  return s.use_count() == before;
}
// intrusive_ptr on its own: counts through copies, weak pointers, release and reclaim.
std::vector<int64_t> pointer_counts() {
  std::vector<int64_t> out;
  auto a = c10::make_intrusive<Stack>(std::vector<int64_t>{1});
  out.push_back(static_cast<int64_t>(a.use_count()));
  auto b = a;
  out.push_back(static_cast<int64_t>(a.use_count()));
  c10::weak_intrusive_ptr<Stack> w(a);
  out.push_back(static_cast<int64_t>(w.use_count()));
  b.reset();
  out.push_back(static_cast<int64_t>(a.use_count()));
  a.reset();
  out.push_back(w.expired() ? 1 : 0);
  out.push_back(w.lock().defined() ? 1 : 0);
  auto c = c10::make_intrusive<Stack>(std::vector<int64_t>{2, 3});
  Stack* raw = c.release();
  out.push_back(c.defined() ? 1 : 0);
  auto d = c10::intrusive_ptr<Stack>::reclaim(raw);
  out.push_back(static_cast<int64_t>(d.use_count()));
  out.push_back(d->size());
  return out;
}

}  // namespace

TORCH_LIBRARY({NS}, m) {
  m.class_<Stack>("Stack")
      .def(torch::init<std::vector<int64_t>>())
      .def("push", &Stack::push)
      .def("pop", &Stack::pop)
      .def("size", &Stack::size)
      .def("clone", &Stack::clone)
      .def("merge", &Stack::merge)
      .def(
          "push_n",
          [](const c10::intrusive_ptr<Stack>& self, int64_t x, int64_t times, double scale) {
            for (int64_t i = 0; i < times; ++i) self->items.push_back(x);
            return static_cast<double>(self->size()) * scale;
          },
          "push x, times times",
          {torch::arg("x"), torch::arg("times") = 1, torch::arg("scale") = 0.5})
      .def("top",
           [](const c10::intrusive_ptr<Stack>& self) {
             TORCH_CHECK(!self->items.empty(), "Stack.top: the stack is empty");
             return self->items.back();
           })
      .def_static("of_range", [](int64_t n) { return make_stack(n); })
      .def_pickle([](const c10::intrusive_ptr<Stack>& self) { return self->items; },
                  [](std::vector<int64_t> state) {
                    return c10::make_intrusive<Stack>(std::move(state));
                  });
  m.class_<Opaque>("Opaque")
      .def(torch::init<int64_t>())
      .def("tag", [](const c10::intrusive_ptr<Opaque>& self) { return self->tag; });
  m.def("sum_stack(__torch__.torch.classes.{NS}.Stack s) -> int", sum_stack);
  m.def("size_or(__torch__.torch.classes.{NS}.Stack? s) -> int", size_or);
  m.def("make_stack", make_stack);
  m.def("hold", hold);
  m.def("held_sum", held_sum);
  m.def("release_held", release_held);
  m.def("live", live);
  m.def("sum_through_dispatcher", sum_through_dispatcher);
  m.def("refs_from_threads", refs_from_threads);
  m.def("pointer_counts", pointer_counts);
}

static auto key_index = torch::class_<KeyIndex>("{NS}", "KeyIndex")
                            .def(torch::init<at::Tensor>())
                            .def("get", &KeyIndex::get)
                            .def("keys", &KeyIndex::keys)
                            .def_pickle(
                                [](const c10::intrusive_ptr<KeyIndex>& self) {
                                  return self->keys_;
                                },
                                [](at::Tensor keys) {
                                  return c10::make_intrusive<KeyIndex>(keys);
                                });
"""


def _ns() -> str:
    return "cls" + uuid.uuid4().hex[:10]


# The namespace of the library built once and kept between runs (`lib`, and torch's build
# of the same source): a stable name, so later runs load the kept builds.
KEPT_NS = "clskept"


def ported(source: str) -> str:
    """The torch source through the porter: includes, namespaces and macros become ours, and
    every name it uses has a counterpart."""
    result = port_cxx(
        source, "classes.cpp", _port_names.sdk_headers(str(REPO / "core" / "include"))
    )
    assert [m.name for m in result.missing] == []
    return result.text


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    """The ported library, built once; its namespace."""
    ns = KEPT_NS
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("MAX_JOBS", "2")
        _kept_load(tmp_path_factory, mp, f"classes_{ns}", ported(TORCH_SOURCE.replace("{NS}", ns)))
    return ns


def _kept_load(tmp_path_factory, monkeypatch, name: str, text: str) -> None:
    """load() of `text` as `name` in a kept cache folder of its own: one library a process."""
    cache = kept_folder(tmp_path_factory, f"custom_classes_{name}", *toolchain_key())
    monkeypatch.setenv("SDK_EXTENSIONS_DIR", str(cache))
    load(name, [str(kept_source(cache, f"{name}.cpp", text))], is_python_module=False)


def classes(ns):
    return getattr(sdk.classes, ns)


def ops(ns):
    return getattr(sdk.ops, ns)


def test_the_porter_maps_the_custom_class_names():
    text = ported(TORCH_SOURCE)
    assert "#include <sdk/custom_class.h>" in text and "#include <sdk/intrusive_ptr.h>" in text
    assert "sdk::class_<KeyIndex>" in text and "sdk::make_intrusive<Stack>" in text
    assert "torch::" not in text and "c10::" not in text


def test_construct_call_methods_and_pass_objects_to_ops(lib):
    Stack = classes(lib).Stack
    s = Stack([4, 5])
    s.push(6)
    assert (s.size(), s.top()) == (3, 6)
    assert ops(lib).sum_stack(s) == 15
    assert s.pop() == 6 and s.size() == 2
    s.merge(s)  # the object passed back into its own method
    assert s.size() == 4 and ops(lib).sum_stack(s) == 18
    assert ops(lib).size_or(s) == 4 and ops(lib).size_or(None) == -1
    assert ops(lib).sum_through_dispatcher(s) == 180
    # torch::arg: names and defaults of a method's arguments
    assert s.push_n(7) == 2.5 and s.top() == 7
    assert s.push_n(x=2, times=3, scale=1.0) == 8.0 and s.pop() == 2
    with pytest.raises(TypeError, match="times"):
        s.push_n(1, times="3")
    assert "sum_stack" in dir(ops(lib)) and {"push", "pop", "top"} <= set(dir(s))
    assert isinstance(s, sdk.classes.ScriptObject)
    assert f"sdk.classes.{lib}.Stack object" in repr(s)
    assert s._type() == f"__torch__.torch.classes.{lib}.Stack"


def test_methods_and_ops_return_new_objects(lib):
    Stack = classes(lib).Stack
    s = Stack([1, 2, 3])
    c = s.clone()
    c.push(10)
    assert (s.size(), c.size()) == (3, 4)
    assert c._address != s._address
    made = ops(lib).make_stack(5)
    assert ops(lib).sum_stack(made) == sum(range(5)) and made.size() == 5
    stat = Stack.of_range(4)
    assert [stat.pop() for _ in range(4)] == [3, 2, 1, 0]


def test_tensors_in_objects_match_numpy(lib):
    keys = np.array([10, 3, 7, -2], dtype=np.int64)
    query = np.array([7, 10, 5, -2, 3], dtype=np.int64)
    index = classes(lib).KeyIndex(sdk.tensor(keys))
    where = {int(k): i for i, k in enumerate(keys)}
    expected = np.array([where.get(int(q), -1) for q in query])
    np.testing.assert_array_equal(index.get(sdk.tensor(query)).numpy(), expected)
    np.testing.assert_array_equal(index.keys().numpy(), keys)
    back = pickle.loads(pickle.dumps(index))
    np.testing.assert_array_equal(back.get(sdk.tensor(query)).numpy(), expected)
    with pytest.raises(RuntimeError, match="duplicate key 3"):
        classes(lib).KeyIndex(sdk.tensor(np.array([3, 3], dtype=np.int64)))


def test_pickle_copy_and_deepcopy_go_through_def_pickle(lib):
    s = classes(lib).Stack([7, 8, 9])
    for twin in (pickle.loads(pickle.dumps(s)), copy.deepcopy(s), copy.copy(s)):
        assert twin._address != s._address
        assert [twin.pop() for _ in range(3)] == [9, 8, 7]
    assert s.size() == 3  # the original kept its items
    with pytest.raises(TypeError, match=rf"cannot pickle .*{lib}\.Opaque.*def_pickle"):
        pickle.dumps(classes(lib).Opaque(1))


def test_python_references_keep_objects_alive_and_the_last_frees(lib):
    base = ops(lib).live()
    s = classes(lib).Stack([1])
    r = weakref.ref(s)
    assert ops(lib).live() == base + 1
    del s
    gc.collect()
    assert r() is None and ops(lib).live() == base
    made = ops(lib).make_stack(3)  # an op's new object: Python holds the only reference
    assert ops(lib).live() == base + 1
    del made
    assert ops(lib).live() == base


def test_an_object_held_only_by_cpp_stays_alive(lib):
    base = ops(lib).live()
    s = classes(lib).Stack([5, 6])
    ops(lib).hold(s)
    del s
    gc.collect()
    assert ops(lib).live() == base + 1 and ops(lib).held_sum() == 11
    assert ops(lib).release_held() == 1 and ops(lib).live() == base


def test_reference_counts_are_atomic_and_intrusive_ptr_works_alone(lib):
    s = classes(lib).Stack([1])
    assert ops(lib).refs_from_threads(s, 20000) is True
    # use counts 1, 2; weak sees 2; 1 after a reset; expired; lock fails; release leaves
    # the pointer empty; reclaim adopts the one reference; the object is intact
    assert ops(lib).pointer_counts() == [1, 2, 2, 1, 1, 0, 0, 1, 2]


def test_wrong_objects_and_values_are_refused_by_name(lib):
    s = classes(lib).Stack([1])
    opaque = classes(lib).Opaque(3)
    assert opaque.tag() == 3
    want = rf"__torch__\.torch\.classes\.{lib}\.Stack"
    with pytest.raises(TypeError, match=rf"must be {want}, got an object of class .*{lib}\.Opaque"):
        ops(lib).sum_stack(opaque)
    with pytest.raises(TypeError, match=rf"must be {want}, not int"):
        ops(lib).sum_stack(3)
    with pytest.raises(TypeError, match=rf"'self' must be {want}, got an object of class"):
        s.merge.__func__(opaque, s)  # the method op called with another class's object
    with pytest.raises(
        TypeError, match=r"Stack\.__init__\(\): argument '_0' must be a list of ints"
    ):
        classes(lib).Stack(["x"])
    with pytest.raises(RuntimeError, match="the stack is empty"):
        classes(lib).Stack([]).pop()
    with pytest.raises(AttributeError, match=r"has no method 'nope' \(it has: .*push"):
        s.nope  # noqa: B018
    with pytest.raises(AttributeError, match="has no class 'Nope'"):
        classes(lib).Nope  # noqa: B018
    with pytest.raises(TypeError, match="made by their class"):
        sdk.classes.ScriptObject()


CLOSING = r"""
#include <sdk/library.h>

#include <memory>

struct Temp : sdk::CustomClassHolder {
  int64_t v;
  explicit Temp(int64_t v) : v(v) {}
};

static std::unique_ptr<sdk::class_<Temp>> temp_class;

SDK_LIBRARY({NS}, m) {
  m.def("open_temp", []() {
    temp_class = std::make_unique<sdk::class_<Temp>>("{NS}", "Temp");
    temp_class->def(sdk::init<int64_t>()).def("value", [](const sdk::intrusive_ptr<Temp>& t) {
      return t->v;
    });
    return true;
  });
  m.def("close_temp", []() {
    temp_class.reset();
    return true;
  });
  m.def("temp_value(__torch__.torch.classes.{NS}.Temp t) -> int",
        [](const sdk::intrusive_ptr<Temp>& t) { return t->v; });
}
"""


def test_an_object_whose_library_closed_is_refused_not_crashed(tmp_path_factory, monkeypatch):
    ns = "clsclosing"
    _kept_load(tmp_path_factory, monkeypatch, f"closing_{ns}", CLOSING.replace("{NS}", ns))
    assert ops(ns).open_temp() is True
    old = classes(ns).Temp(5)
    assert (old.value(), ops(ns).temp_value(old)) == (5, 5)
    assert ops(ns).close_temp() is True
    with pytest.raises(
        RuntimeError, match=rf"{ns}\.Temp: the library that registered it was closed"
    ):
        old.value()
    with pytest.raises(RuntimeError, match=rf"{ns}\.Temp cannot be passed on: .* closed"):
        ops(ns).temp_value(old)
    with pytest.raises(AttributeError, match="has no class 'Temp'"):
        classes(ns).Temp  # noqa: B018
    assert ops(ns).open_temp() is True  # registered again: a new class
    assert classes(ns).Temp(6).value() == 6
    with pytest.raises(RuntimeError, match="closed"):
        ops(ns).temp_value(old)
    del old  # its memory is kept, not freed by a closed library's code: no crash


def test_same_answers_as_torch(lib, tmp_path_factory):
    torch = pytest.importorskip("torch")
    from torch.utils import cpp_extension as tce

    ns = KEPT_NS
    kept = kept_folder(tmp_path_factory, "custom_classes_torch", *torch_key())
    src = kept_source(kept, "torch_classes.cpp", TORCH_SOURCE.replace("{NS}", ns))
    tce.load(f"tclasses_{ns}", [str(src)], is_python_module=False, build_directory=str(kept))

    def run(classes_ns, ops_ns, tensor):
        s = classes_ns.Stack([3, 1, 4])
        s.push(1)
        c = s.clone()
        c.merge(s)
        k = classes_ns.KeyIndex(tensor(np.array([5, 9, 2], dtype=np.int64)))
        got = k.get(tensor(np.array([2, 5, 8], dtype=np.int64)))
        back = copy.deepcopy(s)  # through def_pickle in both
        return [
            s.pop(),
            s.size(),
            c.size(),
            ops_ns.sum_stack(c),
            ops_ns.size_or(None),
            ops_ns.sum_through_dispatcher(c),
            ops_ns.sum_stack(ops_ns.make_stack(6)),
            classes_ns.Stack.of_range(3).top(),
            s.push_n(4, times=2),
            s.push_n(x=5, scale=2.0),
            list(np.asarray(got)),
            back.size(),
            ops_ns.pointer_counts(),
        ]

    ours = run(classes(lib), ops(lib), sdk.tensor)
    theirs = run(getattr(torch.classes, ns), getattr(torch.ops, ns), torch.from_numpy)
    assert ours == theirs


def test_porting_python_rewrites_torch_classes():
    from cpp_extension.port.python import port_python

    result = port_python("import torch\ns = torch.classes.myns.Stack([1])\n", "m.py")
    assert "sdk.classes.myns.Stack([1])" in result.text and not result.missing


def test_sdk_classes_lists_namespaces_and_classes(lib):
    assert lib in dir(sdk.classes)
    assert {"Stack", "Opaque", "KeyIndex"} <= set(dir(classes(lib)))
    assert "of_range" in dir(classes(lib).Stack)
    assert Path(sdk.classes.__file__).name == "classes.py"


def test_a_python_kernel_takes_and_returns_objects(lib):
    import sdk.library as L

    pyns = _ns()
    stack = f"__torch__.torch.classes.{lib}.Stack"
    pylib = L.Library(pyns, "DEF")
    try:
        pylib.define(f"grow({stack} s, int n) -> {stack}")
        pylib.define(f"broken({stack} s) -> {stack}")

        def grow(s, n):
            t = s.clone()
            for i in range(n):
                t.push(i)
            return t

        pylib.impl("grow", grow)
        pylib.impl("broken", lambda s: s.size())
        s = classes(lib).Stack([9])
        g = getattr(sdk.ops, pyns).grow(s, 3)
        assert (g.size(), s.size(), ops(lib).sum_stack(g)) == (4, 1, 12)
        with pytest.raises(TypeError, match=rf"argument 's' must be {stack}, got an object"):
            getattr(sdk.ops, pyns).grow(classes(lib).Opaque(1), 1)
        with pytest.raises(TypeError, match=rf"the Python kernel returned a int for its {stack}"):
            getattr(sdk.ops, pyns).broken(s)
    finally:
        pylib._destroy()


WRONG_ARGS = r"""
#include <sdk/custom_class.h>
struct Box : sdk::CustomClassHolder {};
SDK_LIBRARY({NS}, m) {
  m.class_<Box>("Box").def(
      "get", [](const sdk::intrusive_ptr<Box>&, int64_t a) { return a; }, "",
      {sdk::class_arg("a"), sdk::class_arg("b") = 2});
}
"""


def test_torch_arg_entries_that_do_not_match_the_arguments_fail_the_load(
    tmp_path_factory, monkeypatch
):
    ns = "clswrongargs"
    with pytest.raises(ImportError, match=r"Box\.get: 2 torch::arg entries .* \(after self\)"):
        _kept_load(
            tmp_path_factory, monkeypatch, f"wrong_args_{ns}", WRONG_ARGS.replace("{NS}", ns)
        )
