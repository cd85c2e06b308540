// core/src/value.h: boxed values (sdk_values in the C ABI): an op's arguments and results.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tensor_impl.h"

namespace sdk::detail {
struct Value;
}  // namespace sdk::detail

struct sdk_class;

// The C ABI's sdk_values: a vector of Values. Defined before Value because a LIST value holds
// one (its items), which sdk_values_get_list hands out as a read-only view.
struct sdk_values {
  std::vector<sdk::detail::Value> items;
};

namespace sdk::detail {

// Strings and lists, which most values do not have: kept out of line so that a Value stays
// small (a call moves a few of them), and so that a list's storage (and every pointer a getter
// handed out into it) stays put when the Value itself moves.
struct ValueExtra {
  std::string s;                     // STRING
  std::vector<int64_t> ints;         // INT_LIST; a LIST of INT_LISTs: their ints, one after another
  std::vector<int64_t> lengths;      // a LIST of INT_LISTs: their lengths (sync_int_lists)
  std::vector<double> floats;        // FLOAT_LIST
  std::vector<int32_t> bools;        // BOOL_LIST (0/1)
  std::vector<Ref> tensors;          // TENSOR_LIST (null entries for Tensor?[])
  std::vector<sdk_tensor*> handles;  // borrowed view of `tensors` for the C ABI getter
  sdk_values list;                   // LIST: the items
  int32_t depth = 0;                 // LIST: list levels, itself included (list_depth)
};

// Take and drop one reference to a custom-class object through its class (classes.cpp): a
// dead class's objects are neither retained nor released (c_api.h, "Custom classes").
void object_retain(const sdk_class* cls, void* object);
void object_release(const sdk_class* cls, void* object);

// An OBJECT value's object and class, holding one reference.
struct ObjectRef {
  const sdk_class* cls = nullptr;
  void* object = nullptr;

  ObjectRef() = default;
  ObjectRef(const sdk_class* c, void* o) : cls(c), object(o) {}  // adopts a reference
  ObjectRef(const ObjectRef& o) : cls(o.cls), object(o.object) {
    if (object) object_retain(cls, object);
  }
  ObjectRef(ObjectRef&& o) noexcept
      : cls(std::exchange(o.cls, nullptr)), object(std::exchange(o.object, nullptr)) {}
  ObjectRef& operator=(ObjectRef o) noexcept {
    std::swap(cls, o.cls);
    std::swap(object, o.object);
    return *this;
  }
  ~ObjectRef() {
    if (object) object_release(cls, object);
  }
};

// One tagged value; `tag` (an sdk_value_tag) says which member holds it.
struct Value {
  int32_t tag = SDK_VALUE_NONE;
  int64_t i = 0;                      // INT, BOOL (0/1), SCALAR_TYPE
  double f = 0.0;                     // FLOAT
  sdk_device device{};                // DEVICE
  Ref tensor;                         // TENSOR
  ObjectRef object;                   // OBJECT (ABI 1.12)
  std::unique_ptr<ValueExtra> extra;  // STRING and the lists

  Value() = default;
  Value(Value&&) noexcept = default;
  Value& operator=(Value&&) noexcept = default;
  Value(const Value& o)
      : tag(o.tag), i(o.i), f(o.f), device(o.device), tensor(o.tensor), object(o.object) {
    if (o.extra) extra = std::make_unique<ValueExtra>(*o.extra);
  }
  Value& operator=(const Value& o) {
    if (this != &o) *this = Value(o);
    return *this;
  }

  // The strings and lists (created on first write).
  ValueExtra& x() {
    if (!extra) extra = std::make_unique<ValueExtra>();
    return *extra;
  }
  const ValueExtra& x() const {
    static const ValueExtra kEmpty;
    return extra ? *extra : kEmpty;
  }

  static Value none() { return Value{}; }
  static Value of_int(int64_t v) {
    Value x;
    x.tag = SDK_VALUE_INT;
    x.i = v;
    return x;
  }
  static Value of_float(double v) {
    Value x;
    x.tag = SDK_VALUE_FLOAT;
    x.f = v;
    return x;
  }
  static Value of_bool(bool v) {
    Value x;
    x.tag = SDK_VALUE_BOOL;
    x.i = v ? 1 : 0;
    return x;
  }
  static Value of_tensor(Ref t) {
    Value x;
    x.tag = t ? SDK_VALUE_TENSOR : SDK_VALUE_NONE;
    x.tensor = std::move(t);
    return x;
  }
  // Refresh `handles` after `tensors` changed.
  void sync_handles() {
    ValueExtra& e = x();
    e.handles.clear();
    for (const Ref& t : e.tensors) e.handles.push_back(t ? to_handle(t.get()) : nullptr);
  }
  // A LIST holding `items` (depth checked against SDK_VALUE_LIST_MAX_DEPTH; ValueError naming
  // `fn` when deeper). Defined in values.cpp.
  static Value of_list(std::vector<Value> items, const char* fn);
  // Refresh a LIST's flat int[][] view (`ints`, `lengths`) after its items changed: filled when
  // every item is an INT_LIST, empty otherwise.
  void sync_int_lists();
};

// How many list levels a value has: 0 for a scalar, 1 for a flat list (INT_LIST, ...), and
// for a LIST one more than its deepest item (1 when empty).
int32_t list_depth(const Value& v);

// Call f(const TensorImpl*) for each tensor `v` holds: itself, a Tensor[]'s entries (null for
// None) and, through LISTs (at most SDK_VALUE_LIST_MAX_DEPTH deep), those of its items.
template <typename F>
void for_each_tensor(const Value& v, F&& f) {
  if (v.tag == SDK_VALUE_TENSOR) f(v.tensor.get());
  if (v.tag == SDK_VALUE_TENSOR_LIST) {
    for (const Ref& t : v.x().tensors) f(t.get());
  }
  if (v.tag == SDK_VALUE_LIST) {
    for (const Value& item : v.x().list.items) for_each_tensor(item, f);
  }
}

// Name of a tag for messages ("Tensor", "int", "list of floats", ...).
const char* value_tag_name(int32_t tag);

}  // namespace sdk::detail
