// core/src/schema.cpp: the parser and printer of operator schemas (schema_values.cpp checks
// values against them).
#include "schema.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>

namespace sdk::detail {
namespace {

struct BaseName {
  const char* text;
  BaseType base;
};
constexpr BaseName kBaseNames[] = {
    {"Tensor", BaseType::Tensor},
    {"int", BaseType::Int},
    {"SymInt", BaseType::Int},
    {"float", BaseType::Float},
    {"bool", BaseType::Bool},
    {"str", BaseType::Str},
    {"Scalar", BaseType::Scalar},
    {"ScalarType", BaseType::ScalarType},
    {"Device", BaseType::Device},
    {"Layout", BaseType::Layout},
    {"MemoryFormat", BaseType::MemoryFormat},
    {"Generator", BaseType::Generator},
};

const char* base_text(BaseType b) {
  switch (b) {
    case BaseType::Tensor:
      return "Tensor";
    case BaseType::Int:
      return "int";
    case BaseType::Float:
      return "float";
    case BaseType::Bool:
      return "bool";
    case BaseType::Str:
      return "str";
    case BaseType::Scalar:
      return "Scalar";
    case BaseType::ScalarType:
      return "ScalarType";
    case BaseType::Device:
      return "Device";
    case BaseType::Layout:
      return "Layout";
    case BaseType::MemoryFormat:
      return "MemoryFormat";
    case BaseType::Generator:
      return "Generator";
    case BaseType::Object:
      return "__torch__.torch.classes";
  }
  return "?";
}

// Whether `text` is `torch_name` lowercased ("float" for Float).
bool is_lowercase_of(const std::string& text, const char* torch_name) {
  size_t i = 0;
  for (; torch_name[i] != '\0'; ++i) {
    const char c = torch_name[i];
    const char lower = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
    if (i >= text.size() || text[i] != lower) return false;
  }
  return i == text.size();
}

// The dtype a ScalarType default names, -1 for none: its Python name or its ScalarType name
// lowercased (float32 or float), from SDK_DTYPES, as torch's schemas spell them.
sdk_dtype dtype_of_name(const std::string& text) {
#define SDK_DETAIL_DTYPE_NAMED(NAME, code, name, Torch, ...) \
  if (text == name || is_lowercase_of(text, #Torch)) return SDK_##NAME;
  SDK_DTYPES(SDK_DETAIL_DTYPE_NAMED)
#undef SDK_DETAIL_DTYPE_NAMED
  return -1;
}

class Parser {
 public:
  Parser(const std::string& text, const std::string& ns) : t_(text), ns_(ns) {}

  Schema parse() {
    Schema s;
    parse_name(s);
    expect('(');
    bool kwarg_only = false;
    skip_space();
    if (peek() != ')') {
      for (;;) {
        skip_space();
        if (peek() == '*') {
          if (kwarg_only) fail("a second '*'");
          ++pos_;
          kwarg_only = true;
        } else {
          Argument a = parse_argument(/*is_return=*/false);
          a.kwarg_only = kwarg_only;
          for (const Argument& b : s.arguments) {
            if (b.name == a.name) fail("argument '" + a.name + "' appears twice");
          }
          if (!a.has_default && !a.kwarg_only && !s.arguments.empty() &&
              s.arguments.back().has_default && !s.arguments.back().kwarg_only) {
            fail("argument '" + a.name + "' without a default follows one with a default");
          }
          s.arguments.push_back(std::move(a));
        }
        skip_space();
        if (peek() == ',') {
          ++pos_;
          continue;
        }
        break;
      }
    }
    expect(')');
    skip_space();
    if (!take("->")) fail("expected '->' and the returns");
    parse_returns(s);
    skip_space();
    if (pos_ != t_.size()) fail("unexpected text after the returns");
    return s;
  }

 private:
  const std::string& t_;
  const std::string& ns_;
  size_t pos_ = 0;

  [[noreturn]] void fail(const std::string& what) const {
    SDK_FAIL(SDK_ERROR_VALUE, "invalid schema '", t_, "': ", what, " (at column ", pos_ + 1, ")");
  }
  char peek() const { return pos_ < t_.size() ? t_[pos_] : '\0'; }
  void skip_space() {
    while (pos_ < t_.size() && std::isspace(static_cast<unsigned char>(t_[pos_]))) ++pos_;
  }
  bool take(const char* s) {
    skip_space();
    size_t n = std::char_traits<char>::length(s);
    if (t_.compare(pos_, n, s) == 0) {
      pos_ += n;
      return true;
    }
    return false;
  }
  void expect(char c) {
    skip_space();
    if (peek() != c) fail(std::string("expected '") + c + "'");
    ++pos_;
  }
  std::string identifier(const char* what) {
    skip_space();
    size_t start = pos_;
    if (pos_ < t_.size() && (std::isalpha(static_cast<unsigned char>(t_[pos_])) || t_[pos_] == '_'))
      ++pos_;
    else
      fail(std::string("expected ") + what);
    while (pos_ < t_.size() &&
           (std::isalnum(static_cast<unsigned char>(t_[pos_])) || t_[pos_] == '_'))
      ++pos_;
    return t_.substr(start, pos_ - start);
  }

  void parse_name(Schema& s) {
    std::string first = identifier("the operator's name");
    std::string ns;
    std::string name = first;
    if (take("::")) {
      ns = first;
      name = identifier("the operator's name after '::'");
    }
    if (peek() == '.') {
      ++pos_;
      s.overload = identifier("an overload name after '.'");
    }
    if (!ns.empty() && !ns_.empty() && ns != ns_) {
      fail("the operator is in namespace '" + ns + "', not this library's '" + ns_ + "'");
    }
    if (ns.empty()) ns = ns_;
    s.name = ns.empty() ? name : ns + "::" + name;
  }

  Type parse_type() {
    Type ty;
    std::string word = identifier("a type");
    if (word == "__torch__") return parse_class_type();
    bool found = false;
    for (const BaseName& b : kBaseNames) {
      if (word == b.text) {
        ty.base = b.base;
        found = true;
      }
    }
    if (!found) {
      fail("unknown type '" + word +
           "' (expected Tensor, int, SymInt, float, bool, str, Scalar, ScalarType, Device, "
           "Layout, MemoryFormat or Generator)");
    }
    return ty;
  }

  // The rest of __torch__.torch.classes.ns.Name.
  Type parse_class_type() {
    Type ty;
    ty.base = BaseType::Object;
    if (!take(".torch.classes.")) fail("expected a class type: __torch__.torch.classes.ns.Name");
    std::string ns = identifier("the class's namespace");
    if (peek() != '.') fail("expected a class type: __torch__.torch.classes.ns.Name");
    ++pos_;
    ty.class_name = ns + "." + identifier("the class's name");
    return ty;
  }

  AliasInfo parse_alias() {
    AliasInfo a;
    skip_space();
    if (peek() != '(') return a;
    ++pos_;
    a.present = true;
    auto alias_set = [&](std::vector<std::string>& out) {
      for (;;) {
        skip_space();
        if (peek() == '*') {
          ++pos_;
          out.push_back("*");
        } else {
          out.push_back(identifier("an alias set name"));
        }
        skip_space();
        if (peek() == '|') {
          ++pos_;
          continue;
        }
        break;
      }
    };
    alias_set(a.before);
    skip_space();
    if (peek() == '!') {
      ++pos_;
      a.write = true;
    }
    if (take("->")) alias_set(a.after);
    expect(')');
    return a;
  }

  // N of T[N], at most kMaxListSize: digits read with an overflow check (a saturating or
  // wrapping read would turn a hostile size into another, valid-looking one).
  int64_t parse_list_size() {
    size_t start = pos_;
    int64_t n = 0;
    bool too_big = false;
    while (std::isdigit(static_cast<unsigned char>(peek()))) {
      too_big = too_big || n > (kMaxListSize - (peek() - '0')) / 10;
      if (!too_big) n = n * 10 + (peek() - '0');
      ++pos_;
    }
    if (too_big) {
      fail("list size " + t_.substr(start, pos_ - start) + " is too large (at most " +
           std::to_string(kMaxListSize) + ")");
    }
    return n;
  }

  // Type with its suffixes ("?", "[]", "[N]") and alias annotation, in torch's order:
  // Tensor(a!), Tensor(a)[], Tensor?[], int[2]?.
  void parse_full_type(Type& ty, AliasInfo& alias) {
    ty = parse_type();
    alias = parse_alias();
    skip_space();
    if (peek() == '?') {
      ++pos_;
      ty.optional = true;
    }
    skip_space();
    if (peek() == '[') {
      ++pos_;
      skip_space();
      if (std::isdigit(static_cast<unsigned char>(peek()))) ty.list_size = parse_list_size();
      expect(']');
      ty.list = true;
      parse_nested_list(ty);
      if (ty.optional) {
        if (ty.base != BaseType::Tensor) fail("only Tensor?[] may hold optional elements");
        ty.optional = false;
        ty.optional_elements = true;
      }
      if (!alias.present) alias = parse_alias();
      skip_space();
      if (peek() == '?') {
        ++pos_;
        ty.optional = true;
      }
    }
    if (ty.base == BaseType::Generator && !ty.optional) fail("a Generator must be optional");
  }

  // More "[]" after a list type, as torch: int[][] (SymInt[][]), float[][], bool[][],
  // Tensor[][], Tensor?[][], str[][], int[][][], ...: unsized lists of any lengths, each level a
  // LIST of the level inside (at most SDK_VALUE_LIST_MAX_DEPTH levels).
  void parse_nested_list(Type& ty) {
    for (skip_space(); peek() == '['; skip_space()) {
      ++pos_;
      expect(']');
      if (ty.list_size >= 0) fail("a list of lists holds lists of any length (no [N] inside)");
      if (++ty.nesting + 1 > SDK_VALUE_LIST_MAX_DEPTH) {
        fail("lists nest deeper than SDK_VALUE_LIST_MAX_DEPTH (" +
             std::to_string(SDK_VALUE_LIST_MAX_DEPTH) + " levels)");
      }
    }
  }

  Argument parse_argument(bool is_return) {
    Argument a;
    parse_full_type(a.type, a.alias);
    if (a.alias.present && a.type.base != BaseType::Tensor) {
      fail("only tensors take alias annotations");
    }
    skip_space();
    if (std::isalpha(static_cast<unsigned char>(peek())) || peek() == '_') {
      a.name = identifier("a name");
    } else if (!is_return) {
      fail("expected the argument's name after its type");
    }
    if (!is_return) {
      skip_space();
      if (peek() == '=') {
        ++pos_;
        parse_default(a);
      }
    }
    return a;
  }

  void parse_returns(Schema& s) {
    skip_space();
    if (peek() == '(') {
      ++pos_;
      s.returns_tuple = true;
      skip_space();
      if (peek() == ')') {
        ++pos_;
        return;
      }
      for (;;) {
        s.returns.push_back(parse_argument(/*is_return=*/true));
        skip_space();
        if (peek() == ',') {
          ++pos_;
          continue;
        }
        break;
      }
      expect(')');
      return;
    }
    s.returns.push_back(parse_argument(/*is_return=*/true));
  }

  // ---- defaults -----------------------------------------------------------------------

  std::string default_token() {
    skip_space();
    size_t start = pos_;
    int depth = 0;
    char quote = 0;
    while (pos_ < t_.size()) {
      char c = t_[pos_];
      if (quote) {
        if (c == '\\') {
          ++pos_;
        } else if (c == quote) {
          quote = 0;
        }
      } else if (c == '"' || c == '\'') {
        quote = c;
      } else if (c == '[') {
        ++depth;
      } else if (c == ']') {
        --depth;
      } else if ((c == ',' || c == ')') && depth == 0) {
        break;
      }
      ++pos_;
    }
    if (quote) fail("unterminated string in a default");
    std::string tok = t_.substr(start, pos_ - start);
    while (!tok.empty() && std::isspace(static_cast<unsigned char>(tok.back()))) tok.pop_back();
    if (tok.empty()) fail("expected a default value after '='");
    return tok;
  }

  static bool parse_int(const std::string& s, int64_t* out) {
    if (s.empty()) return false;
    char* end = nullptr;
    errno = 0;
    long long v = std::strtoll(s.c_str(), &end, 10);
    if (errno || *end) return false;
    *out = v;
    return true;
  }
  static bool parse_float(const std::string& s, double* out) {
    if (s == "inf" || s == "math.inf") {
      *out = std::numeric_limits<double>::infinity();
      return true;
    }
    if (s == "-inf" || s == "-math.inf") {
      *out = -std::numeric_limits<double>::infinity();
      return true;
    }
    if (s == "nan") {
      *out = std::nan("");
      return true;
    }
    if (s.empty()) return false;
    char* end = nullptr;
    double v = std::strtod(s.c_str(), &end);
    if (*end) return false;
    *out = v;
    return true;
  }

  std::vector<std::string> list_items(const std::string& tok) {
    std::vector<std::string> items;
    std::string inner = tok.substr(1, tok.size() - 2);
    size_t start = 0;
    for (size_t i = 0; i <= inner.size(); ++i) {
      if (i == inner.size() || inner[i] == ',') {
        std::string item = inner.substr(start, i - start);
        size_t a = item.find_first_not_of(" \t");
        size_t b = item.find_last_not_of(" \t");
        item = a == std::string::npos ? "" : item.substr(a, b - a + 1);
        if (!item.empty()) items.push_back(item);
        start = i + 1;
      }
    }
    return items;
  }

  [[noreturn]] void bad_default(const Argument& a, const std::string& tok) {
    fail("default '" + tok + "' of argument '" + a.name + "' is not a valid " + a.type.str());
  }

  void parse_default(Argument& a) {
    std::string tok = default_token();
    a.has_default = true;
    a.default_text = tok;
    if (tok == "None") {
      if (!a.type.optional)
        fail("default None of argument '" + a.name + "' needs an optional type");
      a.default_value = Value::none();
    } else if (a.type.nesting > 0) {  // as torch's parser: no list of lists is written as a default
      fail("argument '" + a.name + "' of type " + a.type.str() + " takes no default but None");
    } else if (a.type.list) {
      parse_list_default(a, tok);
    } else {
      parse_single_default(a, tok);
    }
  }

  // int[], float[], bool[] (a bracketed list, or one item for all of a sized list), Tensor[].
  void parse_list_default(Argument& a, const std::string& tok) {
    Value& v = a.default_value;
    const Type& ty = a.type;
    auto bad = [&]() { bad_default(a, tok); };
    if (ty.base == BaseType::Tensor && tok == "[]") {
      v.tag = SDK_VALUE_TENSOR_LIST;
      return;
    }
    if (ty.base != BaseType::Int && ty.base != BaseType::Float && ty.base != BaseType::Bool) bad();
    std::vector<std::string> items;
    if (tok.front() == '[' && tok.back() == ']') {
      items = list_items(tok);
    } else {
      items.push_back(tok);  // int[2] stride=1 means [1, 1]
    }
    if (ty.base == BaseType::Int) {
      v.tag = SDK_VALUE_INT_LIST;
      for (const auto& it : items) {
        int64_t x;
        if (!parse_int(it, &x)) bad();
        v.x().ints.push_back(x);
      }
      if (tok.front() != '[' && ty.list_size > 0) v.x().ints.assign(ty.list_size, v.x().ints[0]);
    } else if (ty.base == BaseType::Float) {
      v.tag = SDK_VALUE_FLOAT_LIST;
      for (const auto& it : items) {
        double x;
        if (!parse_float(it, &x)) bad();
        v.x().floats.push_back(x);
      }
    } else {
      v.tag = SDK_VALUE_BOOL_LIST;
      for (const auto& it : items) {
        if (it != "True" && it != "False") bad();
        v.x().bools.push_back(it == "True" ? 1 : 0);
      }
    }
  }

  // The default of a type that is not a list.
  void parse_single_default(Argument& a, const std::string& tok) {
    Value& v = a.default_value;
    const Type& ty = a.type;
    auto bad = [&]() { bad_default(a, tok); };
    switch (ty.base) {
      case BaseType::Int:
      case BaseType::Layout:
      case BaseType::MemoryFormat: {
        int64_t x;
        if (ty.base == BaseType::MemoryFormat && tok == "contiguous_format") {
          x = SDK_CONTIGUOUS_FORMAT;
        } else if (ty.base == BaseType::MemoryFormat && tok == "preserve_format") {
          x = SDK_PRESERVE_FORMAT;
        } else if (ty.base == BaseType::Layout && tok == "strided") {
          x = 0;
        } else if (!parse_int(tok, &x)) {
          bad();
        }
        v = Value::of_int(x);
        return;
      }
      case BaseType::Float: {
        double x;
        if (!parse_float(tok, &x)) bad();
        v = Value::of_float(x);
        return;
      }
      case BaseType::Bool:
        if (tok != "True" && tok != "False") bad();
        v = Value::of_bool(tok == "True");
        return;
      case BaseType::Scalar: {
        int64_t i;
        double x;
        if (tok == "True" || tok == "False") {
          v = Value::of_bool(tok == "True");
        } else if (parse_int(tok, &i)) {
          v = Value::of_int(i);
        } else if (parse_float(tok, &x)) {
          v = Value::of_float(x);
        } else {
          bad();
        }
        return;
      }
      case BaseType::Str:
        if (tok.size() < 2 || (tok.front() != '"' && tok.front() != '\'') ||
            tok.back() != tok.front()) {
          bad();
        }
        v.tag = SDK_VALUE_STRING;
        v.x().s = tok.substr(1, tok.size() - 2);
        return;
      case BaseType::ScalarType:
        v.i = dtype_of_name(tok);
        if (v.i < 0) bad();
        v.tag = SDK_VALUE_SCALAR_TYPE;
        return;
      case BaseType::Device:
        if (tok == "\"cpu\"" || tok == "'cpu'" || tok == "cpu") {
          v.tag = SDK_VALUE_DEVICE;
          v.device = sdk_device{SDK_CPU, 0};
          return;
        }
        bad();
      case BaseType::Tensor:
      case BaseType::Generator:
      case BaseType::Object:
        bad();
    }
  }
};

}  // namespace

std::string class_type_name(const std::string& class_name) {
  return "__torch__.torch.classes." + class_name;
}

std::string Type::str() const {
  std::string s = base == BaseType::Object ? class_type_name(class_name) : base_text(base);
  if (optional_elements) s += "?";
  if (list) s += list_size >= 0 ? "[" + std::to_string(list_size) + "]" : "[]";
  for (int32_t k = 0; k < nesting; ++k) s += "[]";
  if (optional) s += "?";
  return s;
}

Type Type::item() const {
  Type t = *this;
  t.optional = false;
  if (nesting > 0) {
    --t.nesting;
    return t;
  }
  t.list = false;
  t.list_size = -1;
  t.optional = optional_elements;
  t.optional_elements = false;
  return t;
}

std::string AliasInfo::str() const {
  if (!present) return "";
  auto join = [](const std::vector<std::string>& v) {
    std::string out;
    for (size_t i = 0; i < v.size(); ++i) out += (i ? "|" : "") + v[i];
    return out;
  };
  std::string s = "(" + join(before) + (write ? "!" : "");
  if (!after.empty()) s += " -> " + join(after);
  return s + ")";
}

namespace {
std::string argument_text(const Argument& a) {
  // The alias annotation goes right after the base type: Tensor(a!), Tensor(a)[].
  std::string type = a.type.str();
  if (a.alias.present) {
    size_t at = std::char_traits<char>::length(base_text(a.type.base));
    type.insert(at, a.alias.str());
  }
  std::string s = type;
  if (!a.name.empty()) s += " " + a.name;
  if (a.has_default) s += "=" + a.default_text;
  return s;
}
}  // namespace

std::string Schema::qualified() const { return overload.empty() ? name : name + "." + overload; }

std::string Schema::str() const {
  std::string s = qualified() + "(";
  bool star = false;
  for (size_t i = 0; i < arguments.size(); ++i) {
    if (i) s += ", ";
    if (arguments[i].kwarg_only && !star) {
      s += "*, ";
      star = true;
    }
    s += argument_text(arguments[i]);
  }
  s += ") -> ";
  if (returns_tuple) {
    s += "(";
    for (size_t i = 0; i < returns.size(); ++i) s += (i ? ", " : "") + argument_text(returns[i]);
    s += ")";
  } else {
    s += argument_text(returns[0]);
  }
  return s;
}

Schema parse_schema(const std::string& text, const std::string& default_ns) {
  return Parser(text, default_ns).parse();
}

bool is_bare_name(const std::string& text) { return text.find('(') == std::string::npos; }

}  // namespace sdk::detail
