// parse_newick and tree helpers (see newick.h).
#include "genefamily/algo/newick.h"

#include <cstdlib>
#include <nlohmann/json.hpp>

namespace bioagent {

std::vector<int> NewickTree::leaves() const {
  std::vector<int> out;
  for (size_t i = 0; i < nodes.size(); ++i)
    if (nodes[i].children.empty()) out.push_back(int(i));
  return out;
}

std::vector<double> NewickTree::supports() const {
  std::vector<double> out;
  for (size_t i = 1; i < nodes.size(); ++i) {
    const NewickNode& n = nodes[i];
    if (n.children.empty() || n.name.empty()) continue;
    std::string label = n.name.substr(0, n.name.find('/'));  // "SH-aLRT/UFBoot" when both were asked for
    if (n.name.find('/') != std::string::npos) label = n.name.substr(n.name.find('/') + 1);
    char* end = nullptr;
    double v = std::strtod(label.c_str(), &end);
    if (end && *end == '\0') out.push_back(v);
  }
  return out;
}

double NewickTree::distance(int a, int b) const {
  std::vector<double> up(nodes.size(), -1);
  double d = 0;
  for (int x = a; x >= 0; x = nodes[size_t(x)].parent) {
    up[size_t(x)] = d;
    d += nodes[size_t(x)].length;
  }
  d = 0;
  for (int x = b; x >= 0; x = nodes[size_t(x)].parent) {
    if (up[size_t(x)] >= 0) return d + up[size_t(x)];
    d += nodes[size_t(x)].length;
  }
  return -1;
}

Result<NewickTree> parse_newick(std::string_view text) {
  NewickTree t;
  size_t i = 0;
  auto skip = [&] {
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  };
  auto fail = [&](const std::string& why) {
    return Status(ErrorCode::kParseError, "Newick: " + why + " at position " + std::to_string(i)).with("position", i);
  };
  auto read_label = [&]() {
    std::string s;
    skip();
    if (i < text.size() && text[i] == '\'') {  // quoted label
      for (++i; i < text.size() && text[i] != '\''; ++i) s += text[i];
      if (i < text.size()) ++i;
      return s;
    }
    while (i < text.size() && std::string_view("(),:;").find(text[i]) == std::string_view::npos &&
           !std::isspace(static_cast<unsigned char>(text[i])))
      s += text[i++];
    return s;
  };
  t.nodes.push_back({});
  int cur = 0;
  std::vector<int> stack;
  skip();
  if (i >= text.size()) return fail("empty tree");
  while (true) {
    skip();
    if (i >= text.size()) return fail("unexpected end (missing ';' or ')')");
    char c = text[i];
    if (c == '(') {
      if (stack.size() > 10000) return fail("nesting deeper than 10000");
      ++i;
      int child = int(t.nodes.size());
      t.nodes.push_back({});
      t.nodes[size_t(child)].parent = cur;
      t.nodes[size_t(cur)].children.push_back(child);
      stack.push_back(cur);
      cur = child;
      continue;
    }
    // a node's label and length, then ',', ')' or ';'
    t.nodes[size_t(cur)].name = read_label();
    skip();
    if (i < text.size() && text[i] == ':') {
      ++i;
      skip();
      const char* start = text.data() + i;
      char* end = nullptr;
      std::string num(start, std::min<size_t>(64, text.size() - i));
      double v = std::strtod(num.c_str(), &end);
      if (end == num.c_str()) return fail("a branch length is not a number");
      t.nodes[size_t(cur)].length = v;
      i += size_t(end - num.c_str());
    }
    skip();
    if (i >= text.size()) return fail("unexpected end");
    c = text[i];
    if (c == ',') {
      if (stack.empty()) return fail("',' outside parentheses");
      ++i;
      int parent = stack.back();
      int sib = int(t.nodes.size());
      t.nodes.push_back({});
      t.nodes[size_t(sib)].parent = parent;
      t.nodes[size_t(parent)].children.push_back(sib);
      cur = sib;
    } else if (c == ')') {
      if (stack.empty()) return fail("unbalanced ')'");
      ++i;
      cur = stack.back();
      stack.pop_back();
    } else if (c == ';') {
      if (!stack.empty()) return fail("unbalanced '('");
      ++i;
      return t;
    } else {
      return fail(std::string("unexpected '") + c + "'");
    }
  }
}

}  // namespace bioagent
