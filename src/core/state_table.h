// Lookups over one constant table of states, each row {state, name, label}
// (stage states, task states): the name and the label of a state, and every
// state in the table's order. Header-only; pure.
#pragma once

#include <iterator>
#include <string_view>
#include <vector>

#include "bioagent/bitext.h"

namespace bioagent::state_table {

template <typename Rows, typename State>
std::string_view name_of(const Rows& rows, State s) {
  for (auto& r : rows)
    if (r.state == s) return r.name;
  return "unknown";
}

template <typename Rows, typename State>
BiText label_of(const Rows& rows, State s) {
  for (auto& r : rows)
    if (r.state == s) return r.label;
  return {"unknown", "未知"};
}

template <typename Rows>
auto all_of(const Rows& rows) {
  std::vector<decltype(std::begin(rows)->state)> out;
  for (auto& r : rows) out.push_back(r.state);
  return out;
}

}  // namespace bioagent::state_table
