// Subfamilies from reference members (see reference_groups.h).
#include "genefamily/algo/reference_groups.h"

#include <re2/re2.h>

#include <set>
#include <sstream>

namespace bioagent {

namespace {
// Descriptions come from the user's reference FASTA: RE2 (linear time, no
// recursion), Latin-1 so that every byte, valid UTF-8 or not, is one character.
RE2::Options description_options() {
  RE2::Options o;
  o.set_encoding(RE2::Options::EncodingLatin1);
  o.set_log_errors(false);
  return o;
}
}  // namespace

std::string group_in_description(const std::string& description) {
  static const RE2 key(R"((?i)(?:^|[\s\[;|,])(?:group|subfamily|clade)\s*[=:]\s*([A-Za-z0-9][A-Za-z0-9_.+-]*))",
                       description_options());
  std::string group;
  return RE2::PartialMatch(description, key, &group) ? group : "";
}

std::string gene_name_in_description(const std::string& description) {
  static const RE2 gn(R"((?:^|\s)GN=(\S+))", description_options());
  std::string name;
  return RE2::PartialMatch(description, gn, &name) ? name : "";
}

Result<std::map<std::string, std::string>> parse_group_table(const std::string& text) {
  std::map<std::string, std::string> out;
  std::istringstream in(text);
  std::string line;
  for (size_t n = 1; std::getline(in, line); ++n) {
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t')) line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    std::istringstream row(line);
    std::string id, group, extra;
    row >> id >> group;
    if (n == 1 && (id == "id" || id == "reference") && (group == "group" || group == "subfamily")) continue;
    if (id.empty() || group.empty() || (row >> extra))
      return invalid_argument("reference group table line " + std::to_string(n) + ": expected 'id<TAB>group', got '" +
                              line.substr(0, 120) + "'");
    out[id] = group;
  }
  return out;
}

std::map<std::string, GroupCall> call_reference_groups(const NewickTree& t,
                                                       const std::map<std::string, std::string>& reference_group) {
  // The reference groups under each node, filled children first (reverse of a preorder from the root).
  std::vector<std::set<std::string>> groups(t.nodes.size());
  std::vector<int> preorder, stack = {0};
  while (!t.nodes.empty() && !stack.empty()) {
    int x = stack.back();
    stack.pop_back();
    preorder.push_back(x);
    for (int c : t.nodes[size_t(x)].children) stack.push_back(c);
  }
  for (auto it = preorder.rbegin(); it != preorder.rend(); ++it) {
    const size_t i = size_t(*it);
    const NewickNode& n = t.nodes[i];
    if (n.children.empty())
      if (auto g = reference_group.find(n.name); g != reference_group.end()) groups[i].insert(g->second);
    for (int c : n.children) groups[i].insert(groups[size_t(c)].begin(), groups[size_t(c)].end());
  }
  std::map<std::string, GroupCall> out;
  const std::vector<int> leaves = t.leaves();
  for (int leaf : leaves) {
    const std::string& name = t.nodes[size_t(leaf)].name;
    if (reference_group.count(name)) continue;
    GroupCall call;
    call.distance = 1e300;
    for (int other : leaves)
      if (reference_group.count(t.nodes[size_t(other)].name)) {
        double d = t.distance(leaf, other);
        if (d >= 0 && d < call.distance) call.distance = d, call.nearest_reference = t.nodes[size_t(other)].name;
      }
    if (call.nearest_reference.empty()) call.distance = 0;
    int up = t.nodes[size_t(leaf)].parent;
    while (up >= 0 && groups[size_t(up)].empty()) up = t.nodes[size_t(up)].parent;
    if (up < 0) {
      call.group = "—";
      call.reason = "no reference member in the tree";
    } else if (groups[size_t(up)].size() == 1) {
      call.group = *groups[size_t(up)].begin();
    } else {
      std::string names;
      for (auto& g : groups[size_t(up)]) names += (names.empty() ? "" : ", ") + g;
      call.group = "—";
      call.reason = "its smallest clade with references holds several groups (" + names + ")";
    }
    out[name] = call;
  }
  return out;
}

}  // namespace bioagent
