// Documents of the same shape as a valid one with one value of the wrong type:
// what a changed or hostile web API sends. A parser of outside JSON must answer
// each with a result or a Status, never an exception.
#pragma once

#include <algorithm>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace bioagent::testing {

// Calls visit(text) once for every node of `doc` replaced, in turn, by each of
// null, a number, a string, an empty and a non-empty array and object.
inline void for_each_wrong_type(const nlohmann::json& doc, const std::function<void(const std::string&)>& visit) {
  static const nlohmann::json kWrong[] = {
      nullptr, 7, -2.5, "x", nlohmann::json::array(), {1, "a"}, nlohmann::json::object(), {{"k", 1}}};
  nlohmann::json flat = doc.flatten();
  std::vector<nlohmann::json::json_pointer> nodes;
  // Every container on the way to a leaf is a node too: "/a/b/0" gives /a, /a/b, /a/b/0.
  for (auto& [path, value] : flat.items()) {
    nlohmann::json::json_pointer p(path);
    for (; !p.empty(); p = p.parent_pointer()) {
      if (std::find(nodes.begin(), nodes.end(), p) == nodes.end()) nodes.push_back(p);
    }
  }
  for (auto& p : nodes) {
    for (auto& wrong : kWrong) {
      nlohmann::json copy = doc;
      copy[p] = wrong;
      visit(copy.dump());
    }
  }
  for (auto& wrong : kWrong) visit(wrong.dump());
}

}  // namespace bioagent::testing
