// Internals shared by the filter parser (filter_expr.cpp) and evaluator (filter_eval.cpp).
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bioagent/filter_expr.h"

namespace bioagent {

struct FilterExpr::Node {
  enum class Kind { kLiteral, kField, kNot, kNeg, kBinary, kCall, kIndex, kList };
  Kind kind;
  std::string op;  // binary operator, field or function name
  FilterValue value;
  std::vector<std::unique_ptr<Node>> kids;
  size_t pos = 0;
};

namespace filter_internal {

inline Status error_at(size_t pos, const std::string& message) {
  Status s = invalid_argument("filter: " + message + " at position " + std::to_string(pos));
  s.with("position", pos).with("field", "args.filter");
  return s;
}

// Value of a node for a record; truth() also requires a true/false result (null is false).
Result<FilterValue> eval(const FilterExpr::Node& n, const FieldLookup& rec);
Result<bool> truth(const FilterExpr::Node& n, const FieldLookup& rec);

}  // namespace filter_internal
}  // namespace bioagent
