// core/src/values.cpp: boxed values (sdk_values), the arguments and results of an op call
// through the C ABI: push, read and take them by index and tag.
#include <algorithm>
#include <cstdint>
#include <iterator>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "dtype.h"
#include "schema.h"
#include "value.h"

namespace sdk::detail {
namespace {

const Value& at(const sdk_values* v, int64_t i, const char* fn) {
  check_not_null(v, fn, "values");
  int64_t n = static_cast<int64_t>(v->items.size());
  int64_t j = i < 0 ? i + n : i;
  if (j < 0 || j >= n)
    SDK_FAIL(SDK_ERROR_INDEX, fn, ": index ", i, " is out of range for ", n, " values");
  return v->items[static_cast<size_t>(j)];
}

const Value& typed(const sdk_values* v, int64_t i, int32_t tag, const char* fn) {
  const Value& x = at(v, i, fn);
  if (x.tag != tag) {
    SDK_FAIL(SDK_ERROR_TYPE, fn, ": value ", i, " is ", value_tag_name(x.tag), ", not ",
             value_tag_name(tag));
  }
  return x;
}

sdk_values* push(sdk_values* v, Value x, const char* fn) {
  check_not_null(v, fn, "values");
  v->items.push_back(std::move(x));
  return v;
}

template <typename T>
void check_list(const T* data, int64_t n, const char* fn) {
  SDK_VALUE_CHECK(n >= 0, fn, ": n must be >= 0, got ", n);
  if (n > 0) check_not_null(data, fn, "values");
}

}  // namespace

int32_t list_depth(const Value& v) {
  switch (v.tag) {
    case SDK_VALUE_LIST:
      return v.x().depth;
    case SDK_VALUE_INT_LIST:
    case SDK_VALUE_FLOAT_LIST:
    case SDK_VALUE_BOOL_LIST:
    case SDK_VALUE_TENSOR_LIST:
      return 1;
    default:
      return 0;
  }
}

Value Value::of_list(std::vector<Value> items, const char* fn) {
  int32_t depth = 1;
  for (const Value& item : items) depth = std::max(depth, list_depth(item) + 1);
  SDK_VALUE_CHECK(depth <= SDK_VALUE_LIST_MAX_DEPTH, fn, ": the list would have ", depth,
                  " levels, more than SDK_VALUE_LIST_MAX_DEPTH (", SDK_VALUE_LIST_MAX_DEPTH, ")");
  Value x;
  x.tag = SDK_VALUE_LIST;
  x.x().depth = depth;
  x.x().list.items = std::move(items);
  x.sync_int_lists();
  return x;
}

void Value::sync_int_lists() {
  ValueExtra& e = x();
  e.ints.clear();
  e.lengths.clear();
  for (const Value& item : e.list.items) {
    if (item.tag != SDK_VALUE_INT_LIST) {
      e.ints.clear();
      e.lengths.clear();
      return;
    }
    const std::vector<int64_t>& xs = item.x().ints;
    e.lengths.push_back(static_cast<int64_t>(xs.size()));
    e.ints.insert(e.ints.end(), xs.begin(), xs.end());
  }
}

}  // namespace sdk::detail

using namespace sdk::detail;

extern "C" {

// ---- values ------------------------------------------------------------------------------

SDK_API sdk_status sdk_values_new(sdk_values** result) {
  SDK_SAFE_CALL_BEGIN;
  check_not_null(result, "sdk_values_new", "result");
  auto v = std::make_unique<sdk_values>();
  v->items.reserve(8);  // most calls take and return fewer values
  *result = v.release();
  SDK_SAFE_CALL_END;
}

SDK_API void sdk_values_free(sdk_values* values) { delete values; }

SDK_API int64_t sdk_values_size(const sdk_values* values) {
  return values ? static_cast<int64_t>(values->items.size()) : 0;
}

SDK_API int32_t sdk_values_tag(const sdk_values* values, int64_t i) {
  if (!values) return -1;
  int64_t n = static_cast<int64_t>(values->items.size());
  int64_t j = i < 0 ? i + n : i;
  return j >= 0 && j < n ? values->items[static_cast<size_t>(j)].tag : -1;
}

SDK_API void sdk_values_clear(sdk_values* values) {
  if (values) values->items.clear();
}

SDK_API sdk_status sdk_values_pop(sdk_values* values, int64_t n) {
  SDK_SAFE_CALL_BEGIN;
  check_not_null(values, "sdk_values_pop", "values");
  SDK_VALUE_CHECK(n >= 0 && n <= static_cast<int64_t>(values->items.size()),
                  "sdk_values_pop: cannot pop ", n, " of ", values->items.size(), " values");
  values->items.resize(values->items.size() - static_cast<size_t>(n));
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_values_push_none(sdk_values* values) {
  SDK_SAFE_CALL_BEGIN;
  push(values, Value::none(), "sdk_values_push_none");
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_values_push_tensor(sdk_values* values, const sdk_tensor* t) {
  SDK_SAFE_CALL_BEGIN;
  push(values, Value::of_tensor(Ref::borrow(t)), "sdk_values_push_tensor");
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_values_push_int(sdk_values* values, int64_t v) {
  SDK_SAFE_CALL_BEGIN;
  push(values, Value::of_int(v), "sdk_values_push_int");
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_values_push_float(sdk_values* values, double v) {
  SDK_SAFE_CALL_BEGIN;
  push(values, Value::of_float(v), "sdk_values_push_float");
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_values_push_bool(sdk_values* values, int32_t v) {
  SDK_SAFE_CALL_BEGIN;
  push(values, Value::of_bool(v != 0), "sdk_values_push_bool");
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_values_push_string(sdk_values* values, const char* data, int64_t len) {
  SDK_SAFE_CALL_BEGIN;
  check_list(data, len, "sdk_values_push_string");
  Value x;
  x.tag = SDK_VALUE_STRING;
  x.x().s.assign(data ? data : "", static_cast<size_t>(len));
  push(values, std::move(x), "sdk_values_push_string");
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_values_push_scalar_type(sdk_values* values, int32_t dtype) {
  SDK_SAFE_CALL_BEGIN;
  check_dtype(static_cast<sdk_dtype>(dtype), "sdk_values_push_scalar_type");
  Value x;
  x.tag = SDK_VALUE_SCALAR_TYPE;
  x.i = dtype;
  push(values, std::move(x), "sdk_values_push_scalar_type");
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_values_push_device(sdk_values* values, sdk_device device) {
  SDK_SAFE_CALL_BEGIN;
  SDK_VALUE_CHECK(device.type == SDK_CPU || device.type == SDK_CUDA,
                  "sdk_values_push_device: unknown device type ", device.type);
  Value x;
  x.tag = SDK_VALUE_DEVICE;
  x.device = device;
  push(values, std::move(x), "sdk_values_push_device");
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_values_push_int_list(sdk_values* values, const int64_t* data, int64_t n) {
  SDK_SAFE_CALL_BEGIN;
  check_list(data, n, "sdk_values_push_int_list");
  Value x;
  x.tag = SDK_VALUE_INT_LIST;
  if (n > 0) x.x().ints.assign(data, data + n);
  push(values, std::move(x), "sdk_values_push_int_list");
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_values_push_float_list(sdk_values* values, const double* data, int64_t n) {
  SDK_SAFE_CALL_BEGIN;
  check_list(data, n, "sdk_values_push_float_list");
  Value x;
  x.tag = SDK_VALUE_FLOAT_LIST;
  if (n > 0) x.x().floats.assign(data, data + n);
  push(values, std::move(x), "sdk_values_push_float_list");
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_values_push_bool_list(sdk_values* values, const int32_t* data, int64_t n) {
  SDK_SAFE_CALL_BEGIN;
  check_list(data, n, "sdk_values_push_bool_list");
  Value x;
  x.tag = SDK_VALUE_BOOL_LIST;
  for (int64_t k = 0; k < n; ++k) x.x().bools.push_back(data[k] != 0);
  push(values, std::move(x), "sdk_values_push_bool_list");
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_values_push_tensor_list(sdk_values* values, const sdk_tensor* const* data,
                                               int64_t n) {
  SDK_SAFE_CALL_BEGIN;
  check_list(data, n, "sdk_values_push_tensor_list");
  Value x;
  x.tag = SDK_VALUE_TENSOR_LIST;
  for (int64_t k = 0; k < n; ++k) x.x().tensors.push_back(Ref::borrow(data[k]));
  x.sync_handles();
  push(values, std::move(x), "sdk_values_push_tensor_list");
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_values_push_int_list_list(sdk_values* values, const int64_t* data,
                                                 const int64_t* lengths, int64_t n) {
  SDK_SAFE_CALL_BEGIN;
  const char* fn = "sdk_values_push_int_list_list";
  check_list(lengths, n, fn);
  int64_t total = 0;
  for (int64_t k = 0; k < n; ++k) {
    SDK_VALUE_CHECK(lengths[k] >= 0, fn, ": list ", k, " has a negative length ", lengths[k]);
    SDK_VALUE_CHECK(lengths[k] <= INT64_MAX - total, fn, ": the lengths overflow int64");
    total += lengths[k];
  }
  check_list(data, total, fn);
  check_not_null(values, fn, "values");
  std::vector<Value> lists(static_cast<size_t>(n));
  for (int64_t k = 0; k < n; data += lengths[k], ++k) {
    lists[k].tag = SDK_VALUE_INT_LIST;
    if (lengths[k] > 0) lists[k].x().ints.assign(data, data + lengths[k]);
  }
  push(values, Value::of_list(std::move(lists), fn), fn);
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_values_push_list(sdk_values* values, int64_t n) {
  SDK_SAFE_CALL_BEGIN;
  const char* fn = "sdk_values_push_list";
  check_not_null(values, fn, "values");
  std::vector<Value>& all = values->items;
  SDK_VALUE_CHECK(n >= 0 && n <= static_cast<int64_t>(all.size()), fn, ": cannot make a list of ",
                  n, " of ", all.size(), " values");
  auto first = all.end() - n;
  int32_t deepest = 0;  // checked before anything moves, so a refusal leaves `values` as it was
  for (auto it = first; it != all.end(); ++it) deepest = std::max(deepest, list_depth(*it));
  SDK_VALUE_CHECK(deepest < SDK_VALUE_LIST_MAX_DEPTH, fn, ": the list would have ", deepest + 1,
                  " levels, more than SDK_VALUE_LIST_MAX_DEPTH (", SDK_VALUE_LIST_MAX_DEPTH, ")");
  std::vector<Value> items(std::make_move_iterator(first), std::make_move_iterator(all.end()));
  all.erase(first, all.end());
  all.push_back(Value::of_list(std::move(items), fn));
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_values_push_tensor_steal(sdk_values* values, sdk_tensor* t) {
  Ref owned(to_impl(t));  // adopted now: released if the push fails
  SDK_SAFE_CALL_BEGIN;
  push(values, Value::of_tensor(std::move(owned)), "sdk_values_push_tensor_steal");
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_values_take_tensor(sdk_values* values, int64_t i, sdk_tensor** result) {
  SDK_SAFE_CALL_BEGIN;
  check_not_null(result, "sdk_values_take_tensor", "result");
  Value& x = const_cast<Value&>(at(values, i, "sdk_values_take_tensor"));
  if (x.tag == SDK_VALUE_NONE) {
    *result = nullptr;
  } else {
    typed(values, i, SDK_VALUE_TENSOR, "sdk_values_take_tensor");
    *result = x.tensor.release_handle();
    x.tag = SDK_VALUE_NONE;
  }
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_values_get_tensor(const sdk_values* values, int64_t i, sdk_tensor** result) {
  SDK_SAFE_CALL_BEGIN;
  check_not_null(result, "sdk_values_get_tensor", "result");
  const Value& x = at(values, i, "sdk_values_get_tensor");
  if (x.tag == SDK_VALUE_NONE) {
    *result = nullptr;
  } else {
    typed(values, i, SDK_VALUE_TENSOR, "sdk_values_get_tensor");
    *result = to_handle(x.tensor.get());
  }
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_values_get_int(const sdk_values* values, int64_t i, int64_t* result) {
  SDK_SAFE_CALL_BEGIN;
  check_not_null(result, "sdk_values_get_int", "result");
  *result = typed(values, i, SDK_VALUE_INT, "sdk_values_get_int").i;
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_values_get_float(const sdk_values* values, int64_t i, double* result) {
  SDK_SAFE_CALL_BEGIN;
  check_not_null(result, "sdk_values_get_float", "result");
  const Value& x = at(values, i, "sdk_values_get_float");
  *result = x.tag == SDK_VALUE_INT ? static_cast<double>(x.i)
                                   : typed(values, i, SDK_VALUE_FLOAT, "sdk_values_get_float").f;
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_values_get_bool(const sdk_values* values, int64_t i, int32_t* result) {
  SDK_SAFE_CALL_BEGIN;
  check_not_null(result, "sdk_values_get_bool", "result");
  *result = static_cast<int32_t>(typed(values, i, SDK_VALUE_BOOL, "sdk_values_get_bool").i);
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_values_get_scalar(const sdk_values* values, int64_t i, sdk_scalar* result) {
  SDK_SAFE_CALL_BEGIN;
  check_not_null(result, "sdk_values_get_scalar", "result");
  const Value& x = at(values, i, "sdk_values_get_scalar");
  sdk_scalar s{};
  if (x.tag == SDK_VALUE_INT) {
    s.kind = SDK_SCALAR_INT;
    s.i = x.i;
  } else if (x.tag == SDK_VALUE_BOOL) {
    s.kind = SDK_SCALAR_BOOL;
    s.i = x.i;
  } else if (x.tag == SDK_VALUE_FLOAT) {
    s.kind = SDK_SCALAR_FLOAT;
    s.f = x.f;
  } else {
    SDK_FAIL(SDK_ERROR_TYPE, "sdk_values_get_scalar: value ", i, " is ", value_tag_name(x.tag),
             ", not a number");
  }
  *result = s;
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_values_get_string(const sdk_values* values, int64_t i, const char** data,
                                         int64_t* len) {
  SDK_SAFE_CALL_BEGIN;
  check_not_null(data, "sdk_values_get_string", "data");
  check_not_null(len, "sdk_values_get_string", "len");
  const Value& x = typed(values, i, SDK_VALUE_STRING, "sdk_values_get_string");
  *data = x.x().s.c_str();
  *len = static_cast<int64_t>(x.x().s.size());
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_values_get_scalar_type(const sdk_values* values, int64_t i,
                                              int32_t* result) {
  SDK_SAFE_CALL_BEGIN;
  check_not_null(result, "sdk_values_get_scalar_type", "result");
  *result =
      static_cast<int32_t>(typed(values, i, SDK_VALUE_SCALAR_TYPE, "sdk_values_get_scalar_type").i);
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_values_get_device(const sdk_values* values, int64_t i, sdk_device* result) {
  SDK_SAFE_CALL_BEGIN;
  check_not_null(result, "sdk_values_get_device", "result");
  *result = typed(values, i, SDK_VALUE_DEVICE, "sdk_values_get_device").device;
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_values_get_int_list(const sdk_values* values, int64_t i,
                                           const int64_t** data, int64_t* n) {
  SDK_SAFE_CALL_BEGIN;
  check_not_null(data, "sdk_values_get_int_list", "values");
  check_not_null(n, "sdk_values_get_int_list", "n");
  const Value& x = typed(values, i, SDK_VALUE_INT_LIST, "sdk_values_get_int_list");
  *data = x.x().ints.data();
  *n = static_cast<int64_t>(x.x().ints.size());
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_values_get_float_list(const sdk_values* values, int64_t i,
                                             const double** data, int64_t* n) {
  SDK_SAFE_CALL_BEGIN;
  check_not_null(data, "sdk_values_get_float_list", "values");
  check_not_null(n, "sdk_values_get_float_list", "n");
  const Value& x = typed(values, i, SDK_VALUE_FLOAT_LIST, "sdk_values_get_float_list");
  *data = x.x().floats.data();
  *n = static_cast<int64_t>(x.x().floats.size());
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_values_get_bool_list(const sdk_values* values, int64_t i,
                                            const int32_t** data, int64_t* n) {
  SDK_SAFE_CALL_BEGIN;
  check_not_null(data, "sdk_values_get_bool_list", "values");
  check_not_null(n, "sdk_values_get_bool_list", "n");
  const Value& x = typed(values, i, SDK_VALUE_BOOL_LIST, "sdk_values_get_bool_list");
  *data = x.x().bools.data();
  *n = static_cast<int64_t>(x.x().bools.size());
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_values_get_tensor_list(const sdk_values* values, int64_t i,
                                              sdk_tensor* const** data, int64_t* n) {
  SDK_SAFE_CALL_BEGIN;
  check_not_null(data, "sdk_values_get_tensor_list", "tensors");
  check_not_null(n, "sdk_values_get_tensor_list", "n");
  const Value& x = typed(values, i, SDK_VALUE_TENSOR_LIST, "sdk_values_get_tensor_list");
  *data = x.x().handles.data();
  *n = static_cast<int64_t>(x.x().handles.size());
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_values_get_int_list_list(const sdk_values* values, int64_t i,
                                                const int64_t** data, const int64_t** lengths,
                                                int64_t* n) {
  SDK_SAFE_CALL_BEGIN;
  const char* fn = "sdk_values_get_int_list_list";
  check_not_null(data, fn, "data");
  check_not_null(lengths, fn, "lengths");
  check_not_null(n, fn, "n");
  const Value& x = typed(values, i, SDK_VALUE_LIST, fn);
  const std::vector<Value>& items = x.x().list.items;
  for (size_t k = 0; k < items.size(); ++k) {
    if (items[k].tag != SDK_VALUE_INT_LIST) {
      SDK_FAIL(SDK_ERROR_TYPE, fn, ": value ", i, " is not an int[][]: its item ", k, " is ",
               value_tag_name(items[k].tag), ", not int[]");
    }
  }
  *data = x.x().ints.data();  // the flat view Value::sync_int_lists keeps
  *lengths = x.x().lengths.data();
  *n = static_cast<int64_t>(items.size());
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_values_get_list(const sdk_values* values, int64_t i,
                                       const sdk_values** items) {
  SDK_SAFE_CALL_BEGIN;
  check_not_null(items, "sdk_values_get_list", "items");
  *items = &typed(values, i, SDK_VALUE_LIST, "sdk_values_get_list").x().list;
  SDK_SAFE_CALL_END;
}

}  // extern "C"

// ---- custom-class objects (ABI 1.12) --------------------------------------------------------

extern "C" {

SDK_API sdk_status sdk_values_push_object(sdk_values* values, const sdk_class* cls, void* object) {
  SDK_SAFE_CALL_BEGIN;
  check_not_null(cls, "sdk_values_push_object", "cls");
  SDK_VALUE_CHECK(object != nullptr, "sdk_values_push_object: the object is NULL (an undefined ",
                  class_type_name(class_name_of(cls)), "; use None for an optional one)");
  check_not_null(values, "sdk_values_push_object", "values");
  SDK_REQUIRE(sdk_class_is_alive(cls), SDK_ERROR_RUNTIME, "an object of class ",
              class_type_name(class_name_of(cls)),
              " cannot be passed on: the library that registered the class was closed");
  object_retain(cls, object);
  Value x;
  x.tag = SDK_VALUE_OBJECT;
  x.object = ObjectRef(cls, object);
  push(values, std::move(x), "sdk_values_push_object");
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_values_get_object(const sdk_values* values, int64_t i, const sdk_class** cls,
                                         void** object) {
  SDK_SAFE_CALL_BEGIN;
  check_not_null(cls, "sdk_values_get_object", "cls");
  check_not_null(object, "sdk_values_get_object", "object");
  const Value& x = typed(values, i, SDK_VALUE_OBJECT, "sdk_values_get_object");
  *cls = x.object.cls;
  *object = x.object.object;
  SDK_SAFE_CALL_END;
}

}  // extern "C"
