// core/src/schema_values.cpp: the boxed values of schema types: which tag a type's values
// have, and the check (with torch's coercions) of a call's values against the schema.
#include <string>
#include <utility>
#include <vector>

#include "schema.h"

namespace sdk::detail {
namespace {

// The flat list kind of a list of `ty`'s base (int[], float[], ...); NONE when it has none, and
// its values are a LIST of the items (str[], int[][], an optional int's list).
int32_t flat_list_tag(const Type& ty) {
  if (ty.nesting > 0) return SDK_VALUE_NONE;
  switch (ty.base) {
    case BaseType::Tensor:
      return SDK_VALUE_TENSOR_LIST;  // Tensor?[] too: its entries may be NULL
    case BaseType::Int:
    case BaseType::Layout:
    case BaseType::MemoryFormat:
      return ty.optional_elements ? SDK_VALUE_NONE : SDK_VALUE_INT_LIST;
    case BaseType::Float:
      return ty.optional_elements ? SDK_VALUE_NONE : SDK_VALUE_FLOAT_LIST;
    case BaseType::Bool:
      return ty.optional_elements ? SDK_VALUE_NONE : SDK_VALUE_BOOL_LIST;
    default:
      return SDK_VALUE_NONE;
  }
}

int32_t value_tag_of(const Type& ty) {
  if (ty.list) {
    int32_t flat = flat_list_tag(ty);
    return flat == SDK_VALUE_NONE ? SDK_VALUE_LIST : flat;
  }
  switch (ty.base) {
    case BaseType::Tensor:
      return SDK_VALUE_TENSOR;
    case BaseType::Float:
      return SDK_VALUE_FLOAT;
    case BaseType::Bool:
      return SDK_VALUE_BOOL;
    case BaseType::Str:
      return SDK_VALUE_STRING;
    case BaseType::ScalarType:
      return SDK_VALUE_SCALAR_TYPE;
    case BaseType::Device:
      return SDK_VALUE_DEVICE;
    case BaseType::Generator:
      return SDK_VALUE_NONE;
    case BaseType::Object:
      return SDK_VALUE_OBJECT;
    default:
      return SDK_VALUE_INT;  // int, SymInt, Layout, MemoryFormat; Scalar is INT/FLOAT/BOOL
  }
}

// Where a value does not fit its type: the item's path ("[1][0]", "" for the value itself)
// and what it is instead.
struct Misfit {
  std::string path;
  std::string got;
  bool fits() const { return got.empty(); }
};

Misfit fit(const Type& ty, Value& v);

// A flat list (int[], float[], bool[], Tensor[], Tensor?[]), coercing as torch does: one int
// for an int[N], ints for floats.
Misfit fit_flat_list(const Type& ty, int32_t want, Value& v) {
  if (ty.base == BaseType::Int && v.tag == SDK_VALUE_INT && ty.list_size > 0) {
    std::vector<int64_t> rep(static_cast<size_t>(ty.list_size), v.i);  // int[2] given 3
    v.tag = SDK_VALUE_INT_LIST;
    v.x().ints = std::move(rep);
  }
  if (ty.base == BaseType::Float && v.tag == SDK_VALUE_INT_LIST) {
    v.tag = SDK_VALUE_FLOAT_LIST;
    v.x().floats.assign(v.x().ints.begin(), v.x().ints.end());
    v.x().ints.clear();
  }
  if (v.tag != want) return {"", value_tag_name(v.tag)};
  if (want == SDK_VALUE_TENSOR_LIST && !ty.optional_elements) {
    for (const Ref& t : v.x().tensors) {
      if (!t) return {"", "a list holding None"};
    }
  }
  int64_t n = want == SDK_VALUE_INT_LIST     ? static_cast<int64_t>(v.x().ints.size())
              : want == SDK_VALUE_FLOAT_LIST ? static_cast<int64_t>(v.x().floats.size())
              : want == SDK_VALUE_BOOL_LIST  ? static_cast<int64_t>(v.x().bools.size())
                                             : static_cast<int64_t>(v.x().tensors.size());
  if (ty.list_size >= 0 && n != ty.list_size) return {"", str("a list of ", n, " elements")};
  return {};
}

// A LIST: each item against the list's item type (which may be a LIST again).
Misfit fit_items(const Type& ty, Value& v) {
  if (v.tag != SDK_VALUE_LIST) return {"", value_tag_name(v.tag)};
  const Type item = ty.item();
  std::vector<Value>& items = v.x().list.items;
  for (size_t k = 0; k < items.size(); ++k) {
    Misfit m = fit(item, items[k]);
    if (!m.fits()) return {"[" + std::to_string(k) + "]" + m.path, m.got};
  }
  v.sync_int_lists();  // items may have been coerced (ints to floats)
  return {};
}

Misfit fit(const Type& ty, Value& v) {
  if (v.tag == SDK_VALUE_NONE) {
    if (ty.optional || ty.base == BaseType::Generator) return {};
    return {"", "None"};
  }
  if (ty.list) {
    int32_t want = value_tag_of(ty);
    return want == SDK_VALUE_LIST ? fit_items(ty, v) : fit_flat_list(ty, want, v);
  }
  switch (ty.base) {
    case BaseType::Scalar:
      if (v.tag != SDK_VALUE_INT && v.tag != SDK_VALUE_FLOAT && v.tag != SDK_VALUE_BOOL) {
        return {"", value_tag_name(v.tag)};
      }
      return {};
    case BaseType::Float:
      if (v.tag == SDK_VALUE_INT) {  // torch accepts an int for a float
        v.tag = SDK_VALUE_FLOAT;
        v.f = static_cast<double>(v.i);
        return {};
      }
      break;
    case BaseType::Generator:
      return {"", value_tag_name(v.tag)};
    case BaseType::Object:
      if (v.tag == SDK_VALUE_OBJECT && class_name_of(v.object.cls) != ty.class_name) {
        return {"", "an object of class " + class_type_name(class_name_of(v.object.cls))};
      }
      break;
    default:
      break;
  }
  if (v.tag != value_tag_of(ty)) return {"", value_tag_name(v.tag)};
  return {};
}

}  // namespace

const char* value_tag_name(int32_t tag) {
  switch (tag) {
    case SDK_VALUE_NONE:
      return "None";
    case SDK_VALUE_TENSOR:
      return "Tensor";
    case SDK_VALUE_INT:
      return "int";
    case SDK_VALUE_FLOAT:
      return "float";
    case SDK_VALUE_BOOL:
      return "bool";
    case SDK_VALUE_STRING:
      return "str";
    case SDK_VALUE_SCALAR_TYPE:
      return "ScalarType";
    case SDK_VALUE_DEVICE:
      return "Device";
    case SDK_VALUE_INT_LIST:
      return "int[]";
    case SDK_VALUE_FLOAT_LIST:
      return "float[]";
    case SDK_VALUE_BOOL_LIST:
      return "bool[]";
    case SDK_VALUE_TENSOR_LIST:
      return "Tensor[]";
    case SDK_VALUE_INT_LIST_LIST:
      return "int[][]";
    case SDK_VALUE_LIST:
      return "a list";
    case SDK_VALUE_OBJECT:
      return "an object";
    default:
      return "an unknown value";
  }
}

int32_t schema_value_tag(const Type& ty) { return value_tag_of(ty); }

int32_t schema_list_levels(const Type& ty) {
  int32_t depth = 0;
  for (Type t = ty; value_tag_of(t) == SDK_VALUE_LIST; t = t.item()) ++depth;
  return depth;
}

int32_t schema_item_tag(const Type& ty) {
  if (value_tag_of(ty) != SDK_VALUE_LIST) return SDK_VALUE_NONE;
  Type t = ty.item();
  while (value_tag_of(t) == SDK_VALUE_LIST) t = t.item();
  return value_tag_of(t);
}

void coerce_value(const Schema& schema, const Argument& arg, bool is_return, Value& v) {
  Misfit m = fit(arg.type, v);
  if (m.fits()) return;
  std::string got = m.path.empty() ? m.got : "a list whose item " + m.path + " is " + m.got;
  SDK_FAIL(SDK_ERROR_TYPE, schema.qualified(), "(): ", is_return ? "return" : "argument", " '",
           arg.name.empty() ? std::string("#") : arg.name, "' must be ", arg.type.str(), ", got ",
           got, " (schema: ", schema.str(), ")");
}

}  // namespace sdk::detail
