// A Newick tree reader: leaf names, internal node labels (support values),
// branch lengths. Malformed text is an error with the position.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "bioagent/status.h"

namespace bioagent {

struct NewickNode {
  std::string name;  // leaf name or internal label (IQ-TREE puts UFBoot support here)
  double length = 0;
  int parent = -1;
  std::vector<int> children;
};

struct NewickTree {
  std::vector<NewickNode> nodes;  // nodes[0] is the root
  std::vector<int> leaves() const;
  // Support values of internal, non-root nodes whose label is a number.
  std::vector<double> supports() const;
  // Sum of branch lengths between two nodes.
  double distance(int a, int b) const;
};

Result<NewickTree> parse_newick(std::string_view text);

}  // namespace bioagent
