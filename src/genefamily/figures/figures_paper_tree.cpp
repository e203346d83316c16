// Rooting trees: midpoint and outgroup (see figures_paper.h).
#include <algorithm>
#include <cstdio>
#include <functional>
#include <set>

#include "genefamily/figures/figures_paper.h"

namespace bioagent::figures {
namespace {

// The tree as an undirected graph; a branch's label (support) belongs to the branch.
struct Edge {
  int to;
  double length;
  std::string label;
};
struct Graph {
  std::vector<std::vector<Edge>> adj;
  std::vector<std::string> leaf_name;  // "" for internal nodes
};

Graph graph_of(const NewickTree& t) {
  Graph g;
  g.adj.resize(t.nodes.size());
  g.leaf_name.resize(t.nodes.size());
  for (size_t i = 0; i < t.nodes.size(); ++i) {
    const NewickNode& n = t.nodes[i];
    if (n.children.empty()) g.leaf_name[i] = n.name;
    if (n.parent < 0) continue;
    std::string label = n.children.empty() ? "" : n.name;
    g.adj[i].push_back({n.parent, std::max(0.0, n.length), label});
    g.adj[size_t(n.parent)].push_back({int(i), std::max(0.0, n.length), label});
  }
  // A root with two children is no node of the unrooted tree: its branches join.
  if (!g.adj.empty() && g.adj[0].size() == 2) {
    Edge x = g.adj[0][0], y = g.adj[0][1];
    std::string label = x.label.empty() ? y.label : x.label;
    for (auto* pair : {&x, &y}) {
      auto& back = g.adj[size_t(pair->to)];
      back.erase(std::remove_if(back.begin(), back.end(), [](const Edge& e) { return e.to == 0; }), back.end());
    }
    g.adj[size_t(x.to)].push_back({y.to, x.length + y.length, label});
    g.adj[size_t(y.to)].push_back({x.to, x.length + y.length, label});
    g.adj[0].clear();
  }
  return g;
}

// A new tree rooted inside the branch a-b, `from_a` along it from a.
NewickTree rooted_on(const Graph& g, int a, int b, double from_a) {
  double len = 0;
  std::string label;
  for (auto& e : g.adj[size_t(a)])
    if (e.to == b) len = e.length, label = e.label;
  from_a = std::clamp(from_a, 0.0, len);
  NewickTree out;
  out.nodes.push_back({});  // the new root
  std::function<void(int, int, int, double, const std::string&)> add = [&](int node, int from, int parent,
                                                                           double length, const std::string& lab) {
    int id = int(out.nodes.size());
    out.nodes.push_back({g.leaf_name[size_t(node)], length, parent, {}});
    out.nodes[size_t(parent)].children.push_back(id);
    bool internal = false;
    for (auto& e : g.adj[size_t(node)])
      if (e.to != from) {
        internal = true;
        add(e.to, node, id, e.length, e.label);
      }
    if (internal) out.nodes[size_t(id)].name = lab;
  };
  add(a, b, 0, from_a, label);
  add(b, a, 0, len - from_a, label);
  return out;
}

// Distances and predecessors from `src` over the graph.
void walk(const Graph& g, int src, std::vector<double>& dist, std::vector<int>& pred) {
  dist.assign(g.adj.size(), -1);
  pred.assign(g.adj.size(), -1);
  std::vector<int> stack = {src};
  dist[size_t(src)] = 0;
  while (!stack.empty()) {
    int n = stack.back();
    stack.pop_back();
    for (auto& e : g.adj[size_t(n)])
      if (dist[size_t(e.to)] < 0) {
        dist[size_t(e.to)] = dist[size_t(n)] + e.length;
        pred[size_t(e.to)] = n;
        stack.push_back(e.to);
      }
  }
}

int farthest_leaf(const Graph& g, const std::vector<double>& dist) {
  int best = -1;
  for (size_t i = 0; i < dist.size(); ++i)
    if (!g.leaf_name[i].empty() && (best < 0 || dist[i] > dist[size_t(best)])) best = int(i);
  return best;
}

void write_node(const NewickTree& t, int n, std::string& out) {
  const NewickNode& node = t.nodes[size_t(n)];
  if (!node.children.empty()) {
    out += '(';
    for (size_t i = 0; i < node.children.size(); ++i) {
      if (i) out += ',';
      write_node(t, node.children[i], out);
    }
    out += ')';
  }
  out += node.name;
  if (node.parent >= 0) {
    char b[32];
    std::snprintf(b, sizeof b, ":%.6g", node.length);
    out += b;
  }
}

}  // namespace

NewickTree midpoint_rooted(const NewickTree& t) {
  if (t.nodes.size() < 3) return t;
  Graph g = graph_of(t);
  std::vector<double> dist;
  std::vector<int> pred;
  int start = -1;
  for (size_t i = 0; i < g.leaf_name.size() && start < 0; ++i)
    if (!g.leaf_name[i].empty()) start = int(i);
  walk(g, start, dist, pred);
  int a = farthest_leaf(g, dist);
  walk(g, a, dist, pred);
  int b = farthest_leaf(g, dist);
  double half = dist[size_t(b)] / 2;
  // Walk back from b towards a to the branch holding the midpoint.
  for (int n = b; pred[size_t(n)] >= 0; n = pred[size_t(n)]) {
    int p = pred[size_t(n)];
    if (dist[size_t(p)] <= half) return rooted_on(g, p, n, half - dist[size_t(p)]);
  }
  return t;
}

Result<NewickTree> outgroup_rooted(const NewickTree& t, const std::vector<std::string>& outgroup) {
  if (outgroup.empty()) return invalid_argument("no outgroup given");
  Graph g = graph_of(t);
  std::set<std::string> out(outgroup.begin(), outgroup.end());
  int ingroup_leaf = -1;
  std::set<std::string> found;
  for (size_t i = 0; i < g.leaf_name.size(); ++i) {
    if (g.leaf_name[i].empty()) continue;
    if (out.count(g.leaf_name[i])) {
      found.insert(g.leaf_name[i]);
    } else if (ingroup_leaf < 0) {
      ingroup_leaf = int(i);
    }
  }
  for (auto& o : out)
    if (!found.count(o)) return not_found("the outgroup member " + o + " is not a leaf of the tree");
  if (ingroup_leaf < 0) return invalid_argument("every leaf is an outgroup member: nothing to root against");
  // Hang the tree from an ingroup leaf; the outgroup clade is the deepest node
  // below which every outgroup leaf lies.
  std::vector<int> par(g.adj.size(), -1), order, count(g.adj.size(), 0), leaves(g.adj.size(), 0);
  std::vector<char> seen(g.adj.size(), 0);
  std::vector<int> stack = {ingroup_leaf};
  seen[size_t(ingroup_leaf)] = 1;
  while (!stack.empty()) {
    int n = stack.back();
    stack.pop_back();
    order.push_back(n);
    for (auto& e : g.adj[size_t(n)])
      if (!seen[size_t(e.to)]) seen[size_t(e.to)] = 1, par[size_t(e.to)] = n, stack.push_back(e.to);
  }
  for (size_t k = order.size(); k-- > 0;) {
    int n = order[k];
    if (!g.leaf_name[size_t(n)].empty()) {
      leaves[size_t(n)] += 1;
      count[size_t(n)] += out.count(g.leaf_name[size_t(n)]) ? 1 : 0;
    }
    if (par[size_t(n)] >= 0)
      leaves[size_t(par[size_t(n)])] += leaves[size_t(n)], count[size_t(par[size_t(n)])] += count[size_t(n)];
  }
  int clade = ingroup_leaf;
  for (bool deeper = true; deeper;) {
    deeper = false;
    for (auto& e : g.adj[size_t(clade)])
      if (e.to != par[size_t(clade)] && count[size_t(e.to)] == int(out.size())) {
        clade = e.to;
        deeper = true;
        break;
      }
  }
  if (leaves[size_t(clade)] != int(out.size()))
    return invalid_argument("the outgroup members are not one clade of the tree (their smallest clade has " +
                            std::to_string(leaves[size_t(clade)]) + " leaves)");
  double len = 0;
  for (auto& e : g.adj[size_t(clade)])
    if (e.to == par[size_t(clade)]) len = e.length;
  return rooted_on(g, par[size_t(clade)], clade, len / 2);
}

NewickTree pruned_to(const NewickTree& t, const std::set<std::string>& keep) {
  if (t.nodes.empty()) return t;
  std::vector<char> holds(t.nodes.size(), 0);  // the node has a kept leaf below it
  std::function<bool(int)> mark = [&](int n) -> bool {
    const NewickNode& node = t.nodes[size_t(n)];
    bool any = node.children.empty() && keep.count(node.name);
    for (int c : node.children) any = mark(c) || any;
    return holds[size_t(n)] = any;
  };
  mark(0);
  auto kept = [&](int n) {
    std::vector<int> out;
    for (int c : t.nodes[size_t(n)].children)
      if (holds[size_t(c)]) out.push_back(c);
    return out;
  };
  int root = 0;  // a root with one kept child hands the root to it
  while (kept(root).size() == 1 && !t.nodes[size_t(kept(root)[0])].children.empty()) root = kept(root)[0];
  NewickTree out;
  out.nodes.push_back({t.nodes[size_t(root)].children.empty() ? t.nodes[size_t(root)].name : "", 0, -1, {}});
  // Copies node n under `parent`, joining a node with one kept child to it (its length carried down).
  std::function<void(int, int, double)> copy = [&](int n, int parent, double extra) {
    const NewickNode& node = t.nodes[size_t(n)];
    const auto children = kept(n);
    if (!node.children.empty() && children.size() == 1) return copy(children[0], parent, extra + node.length);
    out.nodes.push_back({node.name, node.length + extra, parent, {}});
    const int id = int(out.nodes.size()) - 1;
    out.nodes[size_t(parent)].children.push_back(id);
    for (int c : children) copy(c, id, 0);
  };
  if (holds[size_t(root)])
    for (int c : kept(root)) copy(c, 0, 0);
  return out;
}

std::string newick_text(const NewickTree& t) {
  std::string out;
  if (!t.nodes.empty()) write_node(t, 0, out);
  return out + ";";
}

}  // namespace bioagent::figures
