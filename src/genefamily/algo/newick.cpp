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

namespace {

// A Newick reader: the text, the position in it and the tree built so far.
class NewickReader {
 public:
  explicit NewickReader(std::string_view text) : text_(text) {}
  Result<NewickTree> read();

 private:
  void skip() {
    while (i_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[i_]))) ++i_;
  }
  Status fail(const std::string& why) const {
    return Status(ErrorCode::kParseError, "Newick: " + why + " at position " + std::to_string(i_)).with("position", i_);
  }
  std::string read_label();
  Status read_length(int node);
  int add_child(int parent) {
    int child = int(t_.nodes.size());
    t_.nodes.push_back({});
    t_.nodes[size_t(child)].parent = parent;
    t_.nodes[size_t(parent)].children.push_back(child);
    return child;
  }

  std::string_view text_;
  size_t i_ = 0;
  NewickTree t_;
};

std::string NewickReader::read_label() {
  std::string s;
  skip();
  if (i_ < text_.size() && text_[i_] == '\'') {  // quoted label
    for (++i_; i_ < text_.size() && text_[i_] != '\''; ++i_) s += text_[i_];
    if (i_ < text_.size()) ++i_;
    return s;
  }
  while (i_ < text_.size() && std::string_view("(),:;").find(text_[i_]) == std::string_view::npos &&
         !std::isspace(static_cast<unsigned char>(text_[i_])))
    s += text_[i_++];
  return s;
}

// ":length" after a node's label, when there is one.
Status NewickReader::read_length(int node) {
  skip();
  if (i_ >= text_.size() || text_[i_] != ':') return {};
  ++i_;
  skip();
  char* end = nullptr;
  std::string num(text_.data() + i_, std::min<size_t>(64, text_.size() - i_));
  double v = std::strtod(num.c_str(), &end);
  if (end == num.c_str()) return fail("a branch length is not a number");
  t_.nodes[size_t(node)].length = v;
  i_ += size_t(end - num.c_str());
  return {};
}

Result<NewickTree> NewickReader::read() {
  t_.nodes.push_back({});
  int cur = 0;
  std::vector<int> stack;
  skip();
  if (i_ >= text_.size()) return fail("empty tree");
  while (true) {
    skip();
    if (i_ >= text_.size()) return fail("unexpected end (missing ';' or ')')");
    if (text_[i_] == '(') {
      if (stack.size() > 10000) return fail("nesting deeper than 10000");
      ++i_;
      stack.push_back(cur);
      cur = add_child(cur);
      continue;
    }
    // a node's label and length, then ',', ')' or ';'
    t_.nodes[size_t(cur)].name = read_label();
    BIOAGENT_RETURN_IF_ERROR(read_length(cur));
    skip();
    if (i_ >= text_.size()) return fail("unexpected end");
    const char c = text_[i_];
    if (c == ',') {
      if (stack.empty()) return fail("',' outside parentheses");
      ++i_;
      cur = add_child(stack.back());
    } else if (c == ')') {
      if (stack.empty()) return fail("unbalanced ')'");
      ++i_;
      cur = stack.back();
      stack.pop_back();
    } else if (c == ';') {
      if (!stack.empty()) return fail("unbalanced '('");
      ++i_;
      return std::move(t_);
    } else {
      return fail(std::string("unexpected '") + c + "'");
    }
  }
}

}  // namespace

Result<NewickTree> parse_newick(std::string_view text) { return NewickReader(text).read(); }

}  // namespace bioagent
