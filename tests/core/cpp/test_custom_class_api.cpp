// test_custom_class_api.cpp: custom classes and intrusive_ptr from C++ alone (no Python): a
// class registered, constructed, called, pickled and passed to ops through the core's boxed
// calls, with every object's lifetime checked (the test runs under AddressSanitizer when the
// compiler has it: a leaked or doubly freed object fails it).
#include <sdk/library.h>

#include <atomic>
#include <unordered_set>
#include <vector>

#include "expect.h"

namespace {

std::atomic<int> live{0};

struct Stack : sdk::CustomClassHolder {
  std::vector<int64_t> items;
  explicit Stack(std::vector<int64_t> v) : items(std::move(v)) { ++live; }
  ~Stack() override { --live; }
  void push(int64_t x) { items.push_back(x); }
  int64_t size() const { return static_cast<int64_t>(items.size()); }
};

struct Other : sdk::CustomClassHolder {};

using Ptr = sdk::intrusive_ptr<Stack>;

int64_t total(const Ptr& s) {
  int64_t t = 0;
  for (int64_t x : s->items) t += x;
  return t;
}

}  // namespace

SDK_LIBRARY(cpp_classes, m) {
  m.class_<Stack>("Stack")
      .def(sdk::init<std::vector<int64_t>>())
      .def("push", &Stack::push)
      .def("size", &Stack::size)
      .def_pickle([](const Ptr& s) { return s->items; },
                  [](std::vector<int64_t> v) { return sdk::make_intrusive<Stack>(std::move(v)); });
  m.class_<Other>("Other").def(sdk::init<>());
  m.def("total", &total);
  m.def("twin", [](const Ptr& s) { return sdk::make_intrusive<Stack>(s->items); });
  // a schema naming one class over a kernel reading another: the C++ side refuses
  m.def("misread(__torch__.torch.classes.cpp_classes.Other o) -> int",
        [](const Ptr& s) { return s->size(); });
}

template <typename Sig>
sdk::TypedOperatorHandle<Sig> method(const char* cls_name, const char* name) {
  const sdk_class* cls = nullptr;
  const sdk_op* op = nullptr;
  sdk::detail::check_status(sdk_class_find(cls_name, &cls), "sdk_class_find");
  sdk::detail::check_status(sdk_class_method(cls, name, &op), name);
  return sdk::OperatorHandle(op).typed<Sig>();
}

int main() {
  const char* kStack = "__torch__.torch.classes.cpp_classes.Stack";
  {
    Ptr s = method<Ptr(std::vector<int64_t>)>(kStack, "__init__").call({1, 2});
    EXPECT(live == 1 && s.use_count() == 1);
    method<void(const Ptr&, int64_t)>(kStack, "push").call(s, 4);
    EXPECT(method<int64_t(const Ptr&)>(kStack, "size").call(s) == 3);
    EXPECT(sdk::call_op<int64_t>("cpp_classes::total", s) == 7);
    Ptr t = sdk::call_op<Ptr>("cpp_classes::twin", s);
    EXPECT(t != s && live == 2 && t->items == s->items);
    auto state = method<std::vector<int64_t>(const Ptr&)>(kStack, "__getstate__").call(t);
    Ptr u = method<Ptr(std::vector<int64_t>)>(kStack, "__setstate__").call(state);
    EXPECT(live == 3 && u->items == s->items);

    // values hold references: two in a list, two more read out of it, none once cleared
    sdk::detail::Values v;
    sdk::detail::Box<Ptr>::push(v.v, u);
    sdk::detail::Box<Ptr>::push(v.v, u);
    EXPECT(sdk_values_push_list(v.v, 2) == SDK_OK && u.use_count() == 3);
    std::vector<Ptr> read = sdk::detail::Box<std::vector<Ptr>>::read(v.v, 0);
    EXPECT(read.size() == 2 && read[0] == u && u.use_count() == 5);
    read.clear();
    sdk_values_clear(v.v);
    EXPECT(u.use_count() == 1);

    // the wrong class and the wrong value, refused by name
    auto other = method<sdk::intrusive_ptr<Other>()>("cpp_classes.Other", "__init__").call();
    EXPECT_ERROR(SDK_ERROR_TYPE,
                 "expected an object of class __torch__.torch.classes.cpp_classes.Stack",
                 sdk::call_op<int64_t>("cpp_classes::misread", other));
    EXPECT_ERROR(SDK_ERROR_TYPE, "must be __torch__.torch.classes.cpp_classes.Stack",
                 sdk::call_op<int64_t>("cpp_classes::total", int64_t{3}));
    EXPECT_ERROR(SDK_ERROR_VALUE, "has no method 'nope' (it has: __getstate__, __init__",
                 method<int64_t(const Ptr&)>(kStack, "nope"));
    EXPECT(sdk_values_push_object(v.v, nullptr, u.get()) == SDK_ERROR_VALUE);

    // intrusive_ptr on its own
    sdk::weak_intrusive_ptr<Stack> weak(t);
    std::unordered_set<Ptr> set{s, t, s};
    EXPECT(set.size() == 2 && weak.use_count() == 2 && !weak.expired());
    set.clear();
    t.reset();
    // as torch's: the last strong reference releases resources, the last weak one deletes
    EXPECT(weak.expired() && !weak.lock() && live == 3);
    weak.reset();
    EXPECT(live == 2);
    Stack* raw = u.release();
    EXPECT(!u && live == 2);
    Ptr back = Ptr::reclaim(raw);
    EXPECT(back.use_count() == 1 && back->size() == 3);
  }
  EXPECT(live == 0);
  std::printf("%d checks, %d failures\n", g_checks, g_failures);
  return g_failures == 0 ? 0 : 1;
}
