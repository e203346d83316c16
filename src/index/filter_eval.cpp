// Evaluation of parsed filter expressions: comparisons, lists, like, logic,
// arithmetic, indexing and the two array functions. Type errors are errors.
#include <cmath>
#include <cstdint>
#include <optional>

#include "index/filter_node.h"

namespace bioagent::filter_internal {
namespace {

using Node = FilterExpr::Node;
using Kind = Node::Kind;

const char* type_name(const FilterValue& v) {
  switch (v.v.index()) {
    case 0:
      return "null";
    case 1:
      return "boolean";
    case 2:
    case 3:
      return "number";
    case 4:
      return "string";
    default:
      return "list";
  }
}

bool number(const FilterValue& v, double* out) {
  if (auto* i = std::get_if<int64_t>(&v.v)) return *out = static_cast<double>(*i), true;
  if (auto* d = std::get_if<double>(&v.v)) return *out = *d, true;
  return false;
}

bool equal(const FilterValue& a, const FilterValue& b) {
  double x, y;
  if (number(a, &x) && number(b, &y)) return x == y;
  if (a.v.index() != b.v.index()) return false;
  if (auto* s = std::get_if<std::string>(&a.v)) return *s == std::get<std::string>(b.v);
  if (auto* t = std::get_if<bool>(&a.v)) return *t == std::get<bool>(b.v);
  if (auto* l = std::get_if<std::vector<FilterValue>>(&a.v)) {
    const auto& r = std::get<std::vector<FilterValue>>(b.v);
    if (l->size() != r.size()) return false;
    for (size_t i = 0; i < l->size(); ++i) {
      if (!equal((*l)[i], r[i])) return false;
    }
    return true;
  }
  return true;  // both null
}

// SQL LIKE: % any run, _ one character (bytes).
bool like(std::string_view s, std::string_view p) {
  size_t si = 0, pi = 0, star = std::string_view::npos, mark = 0;
  while (si < s.size()) {
    if (pi < p.size() && (p[pi] == '_' || p[pi] == s[si])) {
      ++si;
      ++pi;
    } else if (pi < p.size() && p[pi] == '%') {
      star = pi++;
      mark = si;
    } else if (star != std::string_view::npos) {
      pi = star + 1;
      si = ++mark;
    } else {
      return false;
    }
  }
  while (pi < p.size() && p[pi] == '%') ++pi;
  return pi == p.size();
}

}  // namespace

Result<bool> truth(const Node& n, const FieldLookup& rec) {
  auto v = eval(n, rec);
  if (!v) return v.status();
  if (v->is_null()) return false;
  if (auto* b = std::get_if<bool>(&v->v)) return *b;
  return error_at(n.pos, std::string("expected a true/false condition, got a ") + type_name(*v));
}

namespace {

Result<FilterValue> eval_list(const Node& n, const FieldLookup& rec) {
  std::vector<FilterValue> items;
  for (auto& k : n.kids) {
    auto v = eval(*k, rec);
    if (!v) return v.status();
    items.push_back(std::move(*v));
  }
  FilterValue out;
  out.v = std::move(items);
  return out;
}

Result<FilterValue> eval_neg(const Node& n, const FieldLookup& rec) {
  auto v = eval(*n.kids[0], rec);
  if (!v) return v;
  FilterValue out;
  if (auto* i = std::get_if<int64_t>(&v->v))
    out.v = -*i;
  else if (auto* d = std::get_if<double>(&v->v))
    out.v = -*d;
  else
    return error_at(n.pos, std::string("cannot negate a ") + type_name(*v));
  return out;
}

// array_length(list) and array_contains(list, x); null for a null list.
Result<FilterValue> eval_call(const Node& n, const FieldLookup& rec) {
  auto a = eval(*n.kids[0], rec);
  if (!a) return a;
  auto* list = std::get_if<std::vector<FilterValue>>(&a->v);
  if (!list) {
    if (a->is_null()) return FilterValue{};
    return error_at(n.pos, n.op + "() needs a list, got a " + type_name(*a));
  }
  FilterValue out;
  if (n.op == "array_length") {
    out.v = static_cast<int64_t>(list->size());
    return out;
  }
  auto x = eval(*n.kids[1], rec);
  if (!x) return x;
  bool found = false;
  for (auto& item : *list) found = found || equal(item, *x);
  out.v = found;
  return out;
}

// list[i], negative i from the end; null when out of range or the list is null.
Result<FilterValue> eval_index(const Node& n, const FieldLookup& rec) {
  auto a = eval(*n.kids[0], rec);
  if (!a) return a;
  auto i = eval(*n.kids[1], rec);
  if (!i) return i;
  auto* list = std::get_if<std::vector<FilterValue>>(&a->v);
  auto* idx = std::get_if<int64_t>(&i->v);
  if (!list || !idx) {
    if (a->is_null()) return FilterValue{};
    return error_at(n.pos, "indexing needs a list and an integer");
  }
  int64_t k = *idx < 0 ? *idx + static_cast<int64_t>(list->size()) : *idx;
  if (k < 0 || k >= static_cast<int64_t>(list->size())) return FilterValue{};
  return (*list)[static_cast<size_t>(k)];
}

// and/or, the right side evaluated only when the left does not decide.
Result<FilterValue> eval_logic(const Node& n, const FieldLookup& rec) {
  const std::string& op = n.op;
  auto l = truth(*n.kids[0], rec);
  if (!l) return l.status();
  if (op == "and" && !*l) return FilterValue{{false}};
  if (op == "or" && *l) return FilterValue{{true}};
  auto r = truth(*n.kids[1], rec);
  if (!r) return r.status();
  FilterValue out;
  out.v = *r;
  return out;
}

// in, not in, like, not like, ==, !=, <, >, <=, >=; null when `op` is none of them.
std::optional<Result<FilterValue>> compare(const Node& n, const FilterValue& a, const FilterValue& b) {
  const std::string& op = n.op;
  FilterValue out;
  if (op == "in" || op == "not in") {
    auto* list = std::get_if<std::vector<FilterValue>>(&b.v);
    if (!list) return error_at(n.pos, "'" + op + "' needs a list on its right, e.g. x in ['a', 'b']");
    bool found = false;
    for (auto& item : *list) found = found || equal(a, item);
    out.v = op == "in" ? found : !found;
    return out;
  }
  if (op == "like" || op == "not like") {
    auto* s = std::get_if<std::string>(&a.v);
    auto* p = std::get_if<std::string>(&b.v);
    if (a.is_null()) return FilterValue{{false}};
    if (!s || !p) return error_at(n.pos, "'like' compares strings");
    out.v = op == "like" ? like(*s, *p) : !like(*s, *p);
    return out;
  }
  double x = 0, y = 0;
  if (op == "==" || op == "!=") {
    bool comparable = a.is_null() || b.is_null() || a.v.index() == b.v.index() || (number(a, &x) && number(b, &y));
    if (!comparable)
      return error_at(n.pos, std::string("cannot compare a ") + type_name(a) + " with a " + type_name(b));
    out.v = op == "==" ? equal(a, b) : !equal(a, b);
    return out;
  }
  if (op == "<" || op == ">" || op == "<=" || op == ">=") {
    if (a.is_null() || b.is_null()) return FilterValue{{false}};
    int c;
    if (number(a, &x) && number(b, &y))
      c = x < y ? -1 : x > y ? 1 : 0;
    else if (std::holds_alternative<std::string>(a.v) && std::holds_alternative<std::string>(b.v))
      c = std::get<std::string>(a.v).compare(std::get<std::string>(b.v));
    else
      return error_at(n.pos, std::string("cannot order a ") + type_name(a) + " and a " + type_name(b));
    out.v = op == "<" ? c < 0 : op == ">" ? c > 0 : op == "<=" ? c <= 0 : c >= 0;
    return out;
  }
  return std::nullopt;
}

// + - * / % ^: integers while they do not overflow, else doubles; null with a null side; + joins strings.
Result<FilterValue> arithmetic(const Node& n, const FilterValue& a, const FilterValue& b) {
  const std::string& op = n.op;
  if (a.is_null() || b.is_null()) return FilterValue{};
  FilterValue out;
  if (op == "+" && std::holds_alternative<std::string>(a.v) && std::holds_alternative<std::string>(b.v)) {
    out.v = std::get<std::string>(a.v) + std::get<std::string>(b.v);
    return out;
  }
  double x = 0, y = 0;
  if (!number(a, &x) || !number(b, &y))
    return error_at(n.pos, "'" + op + "' needs numbers, got a " + type_name(a) + " and a " + type_name(b));
  auto* ia = std::get_if<int64_t>(&a.v);
  auto* ib = std::get_if<int64_t>(&b.v);
  int64_t r = 0;
  if (ia && ib) {
    if (op == "+" && !__builtin_add_overflow(*ia, *ib, &r)) return FilterValue{{r}};
    if (op == "-" && !__builtin_sub_overflow(*ia, *ib, &r)) return FilterValue{{r}};
    if (op == "*" && !__builtin_mul_overflow(*ia, *ib, &r)) return FilterValue{{r}};
    if (op == "%" && *ib != 0 && !(*ia == INT64_MIN && *ib == -1)) {
      r = *ia % *ib;
      if (r != 0 && ((r < 0) != (*ib < 0))) r += *ib;
      return FilterValue{{r}};
    }
  }
  if ((op == "/" || op == "%") && y == 0) return error_at(n.pos, "division by zero");
  double d = op == "+"   ? x + y
             : op == "-" ? x - y
             : op == "*" ? x * y
             : op == "/" ? x / y
             : op == "%" ? std::fmod(x, y)
                         : std::pow(x, y);
  if (!std::isfinite(d)) return error_at(n.pos, "the arithmetic overflows");
  out.v = d;
  return out;
}

}  // namespace

Result<FilterValue> eval(const Node& n, const FieldLookup& rec) {
  switch (n.kind) {
    case Kind::kLiteral:
      return n.value;
    case Kind::kField: {
      auto v = rec(n.op);
      return v ? *v : FilterValue{};
    }
    case Kind::kList:
      return eval_list(n, rec);
    case Kind::kNot: {
      auto t = truth(*n.kids[0], rec);
      if (!t) return t.status();
      FilterValue out;
      out.v = !*t;
      return out;
    }
    case Kind::kNeg:
      return eval_neg(n, rec);
    case Kind::kCall:
      return eval_call(n, rec);
    case Kind::kIndex:
      return eval_index(n, rec);
    case Kind::kBinary:
      break;
  }
  if (n.op == "and" || n.op == "or") return eval_logic(n, rec);
  auto a = eval(*n.kids[0], rec);
  if (!a) return a;
  auto b = eval(*n.kids[1], rec);
  if (!b) return b;
  if (auto compared = compare(n, *a, *b)) return std::move(*compared);
  return arithmetic(n, *a, *b);
}

}  // namespace bioagent::filter_internal
