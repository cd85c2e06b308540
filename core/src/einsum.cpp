// core/src/einsum.cpp: einsum in torch's notation, as views, sums and batched GEMMs.
//
// Repeated labels of one operand become diagonal views; labels used by one operand only
// and absent from the output are summed out first; the operands are then contracted left
// to right, each pair as one bmm: (batch, left-only, summed) x (batch, summed, right-only).
// Size-1 dims broadcast against the other operands' sizes of the same label.
#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "kernel_util.h"

namespace sdk::detail {
namespace {

constexpr int kLetters = 52;     // a-z then A-Z
constexpr int kMaxLabels = 128;  // letters, then the ellipsis dims

int letter_id(char c) {
  if (c >= 'a' && c <= 'z') return c - 'a';
  if (c >= 'A' && c <= 'Z') return 26 + c - 'A';
  return -1;
}

// The result of a core call inside the op (read after the call: `r` is its result slot); a
// failure is rethrown with the op's name.
Ref take(sdk_status st, sdk_tensor** r) {
  if (st != SDK_OK) SDK_FAIL(sdk_last_error_kind(), "einsum: ", sdk_last_error_message());
  return Ref(to_impl(*r));
}

struct Term {
  std::vector<int> labels;  // one per dim
  Ref t;
};

// One side of the equation: letters and at most one "..." (ellipsis labels expanded later).
struct Parsed {
  std::vector<int> letters;  // -1 marks where the ellipsis stands
  bool ellipsis = false;
};

Parsed parse_term(const std::string& s, const std::string& eq) {
  Parsed p;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == ' ') continue;
    if (c == '.') {
      SDK_VALUE_CHECK(s.compare(i, 3, "...") == 0 && !p.ellipsis, "einsum(): '", eq,
                      "': an ellipsis is three dots, at most once per operand");
      p.ellipsis = true;
      p.letters.push_back(-1);
      i += 2;
      continue;
    }
    int id = letter_id(c);
    SDK_VALUE_CHECK(id >= 0, "einsum(): '", eq, "': invalid subscript '", c,
                    "' (subscripts are letters a-z and A-Z)");
    p.letters.push_back(id);
  }
  return p;
}

// The labels of a term with `ell` ellipsis dims (the last `ell` of the max_ell ellipsis ids).
std::vector<int> expand_labels(const Parsed& p, int64_t ell, int64_t max_ell) {
  std::vector<int> out;
  for (int l : p.letters) {
    if (l >= 0) {
      out.push_back(l);
      continue;
    }
    for (int64_t k = max_ell - ell; k < max_ell; ++k) out.push_back(kLetters + int(k));
  }
  return out;
}

Ref permute(const Ref& t, const std::vector<int64_t>& dims) {
  sdk_tensor* r = nullptr;
  return take(sdk_permute(to_handle(t.get()), dims.data(), &r), &r);
}

Ref reshape(const Ref& t, const std::vector<int64_t>& sizes) {
  sdk_tensor* r = nullptr;
  return take(sdk_reshape(to_handle(t.get()), int64_t(sizes.size()), sizes.data(), &r), &r);
}

// Sum term over the dims whose labels `drop` marks.
void sum_out(Term& term, const std::array<bool, kMaxLabels>& drop) {
  std::vector<int64_t> dims;
  std::vector<int> keep;
  for (size_t d = 0; d < term.labels.size(); ++d) {
    if (drop[term.labels[d]])
      dims.push_back(int64_t(d));
    else
      keep.push_back(term.labels[d]);
  }
  if (dims.empty()) return;
  sdk_tensor* r = nullptr;
  term.t = take(sdk_reduce(SDK_SUM, to_handle(term.t.get()), int64_t(dims.size()), dims.data(), 0,
                           sdk_dtype(-1), nullptr, &r),
                &r);
  term.labels = keep;
}

// Merge repeated labels into one dim (the diagonal, as a view).
void take_diagonals(Term& term, const std::string& eq) {
  for (size_t i = 0; i < term.labels.size(); ++i) {
    for (size_t j = i + 1; j < term.labels.size(); ++j) {
      if (term.labels[j] != term.labels[i]) continue;
      const TensorImpl& t = *term.t;
      SDK_VALUE_CHECK(t.sizes[i] == t.sizes[j], "einsum(): '", eq, "': subscript repeated in one ",
                      "operand for dims of sizes ", t.sizes[i], " and ", t.sizes[j]);
      std::vector<int64_t> sz(t.sizes, t.sizes + t.ndim), st(t.strides, t.strides + t.ndim);
      st[i] += st[j];
      sz.erase(sz.begin() + int64_t(j));
      st.erase(st.begin() + int64_t(j));
      sdk_tensor* r = nullptr;
      term.t = take(sdk_as_strided(to_handle(term.t.get()), int64_t(sz.size()), sz.data(),
                                   st.data(), t.offset, &r),
                    &r);
      term.labels.erase(term.labels.begin() + int64_t(j));
      --j;
    }
  }
}

// Contract a and b into the labels `kept` marks (the others they share are summed).
Term contract(const Term& a, const Term& b, const std::array<bool, kMaxLabels>& kept,
              const std::array<int64_t, kMaxLabels>& size) {
  std::array<int, kMaxLabels> where_a, where_b;
  where_a.fill(-1);
  where_b.fill(-1);
  for (size_t d = 0; d < a.labels.size(); ++d) where_a[a.labels[d]] = int(d);
  for (size_t d = 0; d < b.labels.size(); ++d) where_b[b.labels[d]] = int(d);
  std::vector<int> batch, left, right, summed;
  for (int l : a.labels) {
    if (where_b[l] < 0)
      left.push_back(l);
    else if (kept[l])
      batch.push_back(l);
    else
      summed.push_back(l);
  }
  for (int l : b.labels) {
    if (where_a[l] < 0) right.push_back(l);
  }
  auto prod = [&](const std::vector<int>& ls) {
    int64_t p = 1;
    for (int l : ls) p *= size[l];
    return p;
  };
  // a as (batch, left, summed), b as (batch, summed, right), size-1 dims broadcast
  auto arrange = [&](const Term& t, const std::array<int, kMaxLabels>& where,
                     const std::vector<int>& mid, const std::vector<int>& last, bool b_side) {
    std::vector<int64_t> perm, full;
    std::vector<int> order = batch;
    order.insert(order.end(), mid.begin(), mid.end());
    order.insert(order.end(), last.begin(), last.end());
    for (int l : order) {
      perm.push_back(where[l]);
      full.push_back(size[l]);
    }
    Ref p = permute(t.t, perm);
    sdk_tensor* r = nullptr;
    p = take(sdk_expand(to_handle(p.get()), int64_t(full.size()), full.data(), &r), &r);
    const int64_t m = b_side ? prod(summed) : prod(left);
    const int64_t n = b_side ? prod(right) : prod(summed);
    return reshape(p, {prod(batch), m, n});
  };
  Ref am = arrange(a, where_a, left, summed, false);
  Ref bm = arrange(b, where_b, summed, right, true);
  sdk_tensor* r = nullptr;
  Ref c = take(sdk_bmm(to_handle(am.get()), to_handle(bm.get()), nullptr, &r), &r);
  Term out;
  std::vector<int64_t> shape;
  for (const auto* ls : {&batch, &left, &right}) {
    for (int l : *ls) {
      out.labels.push_back(l);
      shape.push_back(size[l]);
    }
  }
  out.t = reshape(c, shape);
  return out;
}

// The output's labels: those after "->" (each once, each in an operand or an ellipsis dim),
// else (implicit) the ellipsis dims, then the labels written once, in alphabetical order.
std::vector<int> output_labels(const std::string& eq, size_t arrow, int64_t max_ell,
                               const std::array<int, kMaxLabels>& count,
                               const std::array<int, kMaxLabels>& written) {
  std::vector<int> out;
  if (arrow != std::string::npos) {
    Parsed p = parse_term(eq.substr(arrow + 2), eq);
    out = expand_labels(p, max_ell, max_ell);
    std::array<bool, kMaxLabels> seen{};
    for (int l : out) {
      SDK_VALUE_CHECK(!seen[l] && (count[l] > 0 || l >= kLetters), "einsum(): '", eq,
                      "': output subscript ", l < 26 ? char('a' + l) : char('A' + l - 26),
                      seen[l] ? " appears more than once" : " does not appear in the operands");
      seen[l] = true;
    }
    return out;
  }
  for (int64_t k = 0; k < max_ell; ++k) out.push_back(kLetters + int(k));
  for (int l : {26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43,
                44, 45, 46, 47, 48, 49, 50, 51, 0,  1,  2,  3,  4,  5,  6,  7,  8,  9,
                10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25}) {
    if (written[l] == 1) out.push_back(l);
  }
  return out;
}

// Each label's size over the operands (size-1 dims broadcast).
std::array<int64_t, kMaxLabels> label_sizes(const std::vector<Term>& ops, const std::string& eq) {
  std::array<int64_t, kMaxLabels> size;
  size.fill(1);
  for (const Term& term : ops) {
    for (size_t d = 0; d < term.labels.size(); ++d) {
      const int l = term.labels[d];
      const int64_t s = term.t->sizes[d];
      SDK_VALUE_CHECK(s == 1 || size[l] == 1 || s == size[l], "einsum(): '", eq,
                      "': a subscript is used for dims of sizes ", size[l], " and ", s);
      if (s != 1) size[l] = s;
    }
  }
  return size;
}

// The contracted term in the output's label order, broadcasting dims the output keeps at
// size 1.
Ref to_output_order(Term cur, const std::vector<int>& out,
                    const std::array<int64_t, kMaxLabels>& size) {
  std::vector<int64_t> perm, full;
  for (int l : out) {
    auto it = std::find(cur.labels.begin(), cur.labels.end(), l);
    if (it == cur.labels.end()) {  // an ellipsis dim no operand has: size 1
      sdk_tensor* r = nullptr;
      cur.t = take(sdk_unsqueeze(to_handle(cur.t.get()), int64_t(cur.labels.size()), &r), &r);
      cur.labels.push_back(l);
      it = cur.labels.end() - 1;
    }
    perm.push_back(int64_t(it - cur.labels.begin()));
    full.push_back(size[l]);
  }
  Ref res = permute(cur.t, perm);
  sdk_tensor* r = nullptr;
  return take(sdk_expand(to_handle(res.get()), int64_t(full.size()), full.data(), &r), &r);
}

Ref einsum_impl(const std::string& eq, int64_t n, const sdk_tensor* const* operands) {
  const size_t arrow = eq.find("->");
  const std::string lhs = eq.substr(0, arrow);
  std::vector<Parsed> terms;
  size_t start = 0;
  while (true) {
    size_t comma = lhs.find(',', start);
    terms.push_back(parse_term(lhs.substr(start, comma - start), eq));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  SDK_VALUE_CHECK(int64_t(terms.size()) == n, "einsum(): '", eq, "' has ", terms.size(),
                  " operand subscripts but ", n, " operand", n == 1 ? " was" : "s were", " given");
  std::vector<Term> ops(static_cast<size_t>(n));
  int64_t max_ell = 0;
  std::vector<int64_t> ell(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    const TensorImpl& t = checked(operands[i], "einsum", "operand");
    const Parsed& p = terms[static_cast<size_t>(i)];
    const int64_t named = int64_t(p.letters.size()) - (p.ellipsis ? 1 : 0);
    ell[size_t(i)] = t.ndim - named;
    SDK_VALUE_CHECK(p.ellipsis ? ell[size_t(i)] >= 0 : ell[size_t(i)] == 0, "einsum(): '", eq,
                    "': operand ", i, " has ", t.ndim, " dims but its subscripts name ", named);
    max_ell = std::max(max_ell, ell[size_t(i)]);
  }
  SDK_VALUE_CHECK(kLetters + max_ell <= kMaxLabels, "einsum(): too many ellipsis dims");
  std::array<int, kMaxLabels> count{};    // operands that use a label
  std::array<int, kMaxLabels> written{};  // times it is written (the implicit output's rule)
  for (int64_t i = 0; i < n; ++i) {
    Term& term = ops[size_t(i)];
    term.labels = expand_labels(terms[size_t(i)], ell[size_t(i)], max_ell);
    for (int l : term.labels) ++written[l];
    term.t = Ref::borrow(operands[i]);
    take_diagonals(term, eq);
    for (int l : term.labels) ++count[l];
  }
  const std::vector<int> out = output_labels(eq, arrow, max_ell, count, written);
  const std::array<int64_t, kMaxLabels> size = label_sizes(ops, eq);
  std::array<bool, kMaxLabels> in_out{};
  for (int l : out) in_out[l] = true;
  // sum out what one operand alone uses and the output does not
  for (Term& term : ops) {
    std::array<bool, kMaxLabels> drop{};
    for (int l : term.labels) drop[l] = count[l] == 1 && !in_out[l];
    sum_out(term, drop);
  }
  Term cur = ops[0];
  for (size_t k = 1; k < ops.size(); ++k) {
    std::array<bool, kMaxLabels> kept = in_out;
    for (size_t j = k + 1; j < ops.size(); ++j) {
      for (int l : ops[j].labels) kept[l] = true;
    }
    cur = contract(cur, ops[k], kept, size);
  }
  std::array<bool, kMaxLabels> drop{};
  for (int l : cur.labels) drop[l] = !in_out[l];
  sum_out(cur, drop);
  return to_output_order(std::move(cur), out, size);
}

}  // namespace
}  // namespace sdk::detail

using namespace sdk::detail;

extern "C" SDK_API sdk_status sdk_einsum(const char* equation, int64_t n,
                                         const sdk_tensor* const* operands, sdk_tensor** result) {
  SDK_SAFE_CALL_BEGIN;
  check_not_null(equation, "einsum", "equation");
  check_not_null(result, "einsum", "result");
  SDK_VALUE_CHECK(n >= 1, "einsum(): at least one operand is required");
  check_not_null(operands, "einsum", "operands");
  set_result(result, einsum_impl(equation, n, operands));
  SDK_SAFE_CALL_END;
}
