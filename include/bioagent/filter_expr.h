// Filter expressions for the vector-store actions (seed 001's filter syntax):
// comparisons (== != < > <= >=), `in` / `not in` lists, `like` with % and _,
// `and` / `or` / `not` (also Milvus's AND OR NOT IN LIKE TRUE FALSE, && || !), parentheses, + - * / % ** arithmetic,
// indexing (bbox[0]), array_contains(a, v), array_length(a), string and number literals and lists. Fields are checked
// against the collection's known fields when parsing; every error gives the position. Parsed once, evaluated per
// record. Thread-safe.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "bioagent/status.h"

namespace bioagent {

struct FilterValue {
  std::variant<std::monostate, bool, int64_t, double, std::string, std::vector<FilterValue>> v;
  bool is_null() const { return std::holds_alternative<std::monostate>(v); }
  std::string repr() const;
};

// How a record exposes its fields; nullopt for an absent field (compares as null).
using FieldLookup = std::function<std::optional<FilterValue>(std::string_view name)>;

class FilterExpr {
 public:
  // An empty (or all-space) text is the filter that keeps everything.
  static Result<FilterExpr> parse(std::string_view text, const std::set<std::string>& known_fields);
  FilterExpr(FilterExpr&&) noexcept;
  FilterExpr& operator=(FilterExpr&&) noexcept;
  ~FilterExpr();

  // True if the record passes; type errors (e.g. comparing a string with a
  // number) are errors, not silent falses.
  Result<bool> matches(const FieldLookup& record) const;
  bool empty() const { return root_ == nullptr; }
  const std::set<std::string>& fields() const { return fields_; }

  struct Node;

 private:
  FilterExpr();
  std::unique_ptr<Node> root_;
  std::set<std::string> fields_;
};

}  // namespace bioagent
