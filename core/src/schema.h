// core/src/schema.h: operator schemas in torch's syntax, parsed once at registration.
//
//   mymuladd(Tensor a, Tensor b, float c) -> Tensor
//   myadd_out(Tensor a, Tensor b, *, Tensor(a!) out) -> ()
//   split.sizes(Tensor(a -> *) self, SymInt[] split_sizes, int dim=0) -> Tensor(a)[]
//
// A schema is a name (with an optional ".overload"), arguments (a type, an optional alias
// annotation, a name, an optional default; arguments after `*` are keyword-only) and
// returns (a type, an optional alias annotation, an optional name).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "value.h"

namespace sdk::detail {

// The value a schema type holds (lists and optionals wrap one of these).
enum class BaseType : int32_t {
  Tensor,
  Int,  // int and SymInt
  Float,
  Bool,
  Str,
  Scalar,      // int, float or bool
  ScalarType,  // a dtype
  Device,
  Layout,        // carried as an int (torch's layouts; only strided exists here)
  MemoryFormat,  // carried as an int (sdk_memory_format)
  Generator,     // only None is accepted: kernels draw from the default generator
  Object,        // a custom-class object, __torch__.torch.classes.ns.Name (ABI 1.12)
};

// The largest N of T[N]: fixed-size lists are small (sizes, strides); a default like
// int[N] x=1 is expanded to N copies, so N is bounded.
constexpr int64_t kMaxListSize = 1 << 16;

struct Type {
  BaseType base = BaseType::Tensor;
  bool optional = false;           // T?
  bool list = false;               // T[] or T[N]
  int64_t list_size = -1;          // N of T[N]; -1 when unsized
  bool optional_elements = false;  // Tensor?[]
  int32_t nesting = 0;             // lists around the list: int[][] 1, float[][][] 2
  std::string class_name;          // Object: "ns.Name"
  std::string str() const;         // as written in a schema: "Tensor?[]", "int[2]", "int[][]"
  Type item() const;               // a list's items: int[] for int[][], Tensor? for Tensor?[]
};

// Tensor(a), Tensor(a!), Tensor(a -> *): the argument or return aliases set `before`; `write`
// means the op mutates it; `after` holds what it may alias afterwards.
struct AliasInfo {
  bool present = false;
  std::vector<std::string> before;
  std::vector<std::string> after;
  bool write = false;
  std::string str() const;  // "(a!)" or ""
};

struct Argument {
  std::string name;
  Type type;
  AliasInfo alias;
  bool kwarg_only = false;
  bool has_default = false;
  Value default_value;       // valid when has_default
  std::string default_text;  // as written
};

struct Schema {
  std::string name;      // "ns::op" (or "op" before the namespace is known)
  std::string overload;  // "" for the default overload
  std::vector<Argument> arguments;
  std::vector<Argument> returns;  // names optional, no defaults
  bool returns_tuple = false;     // "(Tensor, Tensor)" or "()" rather than one type
  std::string str() const;        // canonical text
  std::string qualified() const;  // "ns::op.overload" or "ns::op"
};

// The sdk_value_tag of values of `ty` (INT for Scalar, which also takes FLOAT and BOOL): a
// list is the flat kind of its items where one exists (int[], Tensor?[], ...), else a LIST.
int32_t schema_value_tag(const Type& ty);
// How a LIST type nests (sdk_op_argument's list_levels and item_tag): its LIST levels (0 when
// it is no LIST) and the tag of its innermost LIST's items.
int32_t schema_list_levels(const Type& ty);
int32_t schema_item_tag(const Type& ty);

// Parse `text`. A name without "::" gets `default_ns`; a name whose namespace differs from a
// non-empty `default_ns` is an error. Throws Error(SDK_ERROR_VALUE) naming the problem and
// its column.
Schema parse_schema(const std::string& text, const std::string& default_ns);

// The schema spelling of custom class "ns.Name": "__torch__.torch.classes.ns.Name".
std::string class_type_name(const std::string& class_name);
// The name ("ns.Name") of a custom class (library.cpp).
const std::string& class_name_of(const sdk_class* cls);

// Whether `text` is a bare operator name ("op" or "op.overload"), not a full schema.
bool is_bare_name(const std::string& text);

// Check the value for argument/return `arg` (of op `op`), coercing where torch does (an int
// for a float, one int for int[N]). Throws a TypeError-kind Error naming the op, the
// argument, the expected type and the schema.
void coerce_value(const Schema& schema, const Argument& arg, bool is_return, Value& v);

}  // namespace sdk::detail
