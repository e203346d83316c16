// The tree figures, rectangular and circular (see figures.h): branches to
// scale with a scale bar, supports placed clear of every branch and text,
// subgroups coloured only when reference members named them.
#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "genefamily/algo/natural_order.h"
#include "genefamily/figures/figures_paper.h"

namespace bioagent::figures {
namespace {

constexpr double kPi = 3.14159265358979323846;
const char* kReferenceGrey = "#777777";

bool is_reference(const std::string& leaf) { return leaf.rfind("REF_", 0) == 0; }
std::string shown_name(const std::string& leaf) { return is_reference(leaf) ? leaf.substr(4) : leaf; }

// A node's support as printed (a percentage): the UFBoot part of "SH-aLRT/UFBoot"; a 0-1 local support times
// 100; "" for a leaf or a label that is no number.
std::string support_text(const NewickNode& n) {
  if (n.children.empty() || n.name.empty()) return "";
  const std::string label = n.name.substr(n.name.find('/') == std::string::npos ? 0 : n.name.find('/') + 1);
  char* end = nullptr;
  double v = std::strtod(label.c_str(), &end);
  if (label.empty() || !end || *end != '\0' || !std::isfinite(v)) return "";
  if (v <= 1 && label.find('.') != std::string::npos) v *= 100;
  return std::to_string(int(std::lround(v)));
}

// Subgroup colours in natural order of the group names.
std::map<std::string, std::string> group_colours(const std::map<std::string, std::string>& group) {
  std::vector<std::string> names;
  for (auto& [leaf, g] : group)
    if (std::find(names.begin(), names.end(), g) == names.end()) names.push_back(g);
  std::sort(names.begin(), names.end(), [](auto& a, auto& b) { return natural_less(a, b); });
  std::map<std::string, std::string> colour;
  for (size_t i = 0; i < names.size(); ++i) colour[names[i]] = distinct_colour(i);
  return colour;
}

// A scale bar's length: 1, 2 or 5 times a power of ten, about a fifth of the deepest leaf.
double scale_bar_length(double max_depth) {
  const double want = max_depth / 5, power = std::pow(10.0, std::floor(std::log10(want)));
  double best = power;
  for (double m : {1.0, 2.0, 5.0})
    if (m * power <= want * 1.5) best = m * power;
  return best;
}

std::string scale_bar_label(double length) {
  char b[32];
  std::snprintf(b, sizeof b, "%g", length);
  return b;
}

// What every support label must keep clear of: the branches and the texts placed.
struct Obstacles {
  std::vector<Segment> lines;
  std::vector<Box> texts;
  bool free(const Box& b) const {
    return std::none_of(texts.begin(), texts.end(), [&](const Box& t) { return overlaps(b, t); }) &&
           std::none_of(lines.begin(), lines.end(), [&](const Segment& s) { return crosses(b, s); });
  }
};

// The supports at their first free place among `candidates(node)` (x, baseline, anchor); returns how many found
// none.
template <typename Candidates>
size_t place_supports(svg::Doc& d, const NewickTree& t, double size, Obstacles& ob, Candidates candidates) {
  size_t hidden = 0;
  for (size_t i = 1; i < t.nodes.size(); ++i) {
    const std::string s = support_text(t.nodes[i]);
    if (s.empty()) continue;
    bool placed = false;
    for (auto& [x, y, anchor] : candidates(i)) {
      Box b = text_box(x, y, s, size, anchor);
      b.x0 -= 0.5, b.x1 += 0.5;  // a hair of air on each side
      if (b.x0 < 0 || !ob.free(b)) continue;
      d.text(x, y, s, size, anchor, "fill=\"#555555\" data-claim=\"supports\"");
      ob.texts.push_back(b);
      placed = true;
      break;
    }
    hidden += placed ? 0 : 1;
  }
  return hidden;
}

struct Candidate {
  double x, y;
  std::string anchor;
};

// The legends under a tree: subgroups, references, the supports' kind and how many were left out; returns the
// height used.
double tree_legends(svg::Doc& d, Lang lang, double x, double y, const TreeStyle& style,
                    const std::map<std::string, std::string>& colours, bool references, size_t hidden, double f) {
  double at = y;
  if (!colours.empty()) {
    std::vector<svg::LegendItem> items;
    for (auto& [g, c] : colours) items.push_back({g, c});
    std::sort(items.begin(), items.end(), [](auto& a, auto& b) { return natural_less(a.label, b.label); });
    at += d.legend(x, at, items, "subgroups",
                   BiText{"Subgroups (from reference members)", "亚组（依据参考成员）"}.in(lang), f) +
          6;
  }
  if (references)
    at += d.legend(x, at, {{BiText{"reference member", "参考成员"}.in(lang), kReferenceGrey, "circle"}}, "references",
                   "", f) +
          4;
  if (!style.support_kind.empty()) {
    d.text(x, at + f,
           BiText{"Numbers at nodes: " + style.support_kind + " support (%)",
                  "节点数字：" + style.support_kind + " 支持率（%）"}
               .in(lang),
           f, "start", "data-claim=\"supports\"");
    at += f * 1.5;
    if (hidden) {
      d.text(x, at + f,
             BiText{std::to_string(hidden) + " support values not drawn where they would touch a branch (all in the "
                                             "Newick file)",
                    std::to_string(hidden) + " 个支持率因会与分支重叠未标出（完整数值见 Newick 文件）"}
                 .in(lang),
             f, "start", "fill=\"#555555\"");
      at += f * 1.5;
    }
  }
  return at - y;
}

std::string rectangular(Lang lang, const NewickTree& t, const TreeStyle& style, const std::string& title) {
  const TreeLayout l = tree_layout(t);
  const auto colours = group_colours(style.group);
  const size_t n = std::max<size_t>(1, l.leaves.size());
  double longest = 0;
  bool references = false;
  for (int leaf : l.leaves) {
    longest = std::max(longest, text_width(shown_name(t.nodes[size_t(leaf)].name), 10));
    references |= is_reference(t.nodes[size_t(leaf)].name);
  }
  const double tree_w = 340, left = 16, top = 14, row = 15;
  const double width = std::max(left + tree_w + 6 + longest + (colours.empty() ? 0 : 14) + 16, 420.0);
  const double f = print_font(width), fs = std::max(8.0, svg::min_font(width) + 0.1);
  svg::Doc d(width, 0, title);
  auto X = [&](double depth) { return left + depth / l.max_depth * tree_w; };
  auto Y = [&](double pos) { return top + pos * row + row / 2; };
  Obstacles ob;
  for (size_t i = 1; i < t.nodes.size(); ++i) {
    const int p = t.nodes[i].parent;
    const double xp = X(l.depth[size_t(p)]), xi = X(l.depth[i]), yi = Y(l.pos[i]), yp = Y(l.pos[size_t(p)]);
    d.line(xp, yi, xi, yi, "#333333", 1);
    d.line(xp, yp, xp, yi, "#333333", 1);
    ob.lines.push_back({xp, yi, xi, yi});
    ob.lines.push_back({xp, yp, xp, yi});
  }
  const double strip_x = left + tree_w + 6 + longest + 4;
  for (int leaf : l.leaves) {
    const std::string& name = t.nodes[size_t(leaf)].name;
    const double x = X(l.depth[size_t(leaf)]) + 3, y = Y(l.pos[size_t(leaf)]) + f * 0.35;
    auto g = style.group.find(name);
    const std::string colour = is_reference(name)       ? kReferenceGrey
                               : g != style.group.end() ? colours.at(g->second)
                                                        : "#222222";
    std::string attrs = "fill=\"" + colour + "\"";
    if (is_reference(name))
      attrs += " font-style=\"italic\"";
    else
      attrs += " data-gene=\"1\"";
    d.text(x, y, shown_name(name), f, "start", attrs);
    ob.texts.push_back(text_box(x, y, shown_name(name), f));
    if (x + text_width(shown_name(name), f) + 2 < strip_x)  // a dotted guide to the aligned strip
      d.line(x + text_width(shown_name(name), f) + 2, Y(l.pos[size_t(leaf)]), strip_x - 2, Y(l.pos[size_t(leaf)]),
             "#cccccc", 0.5, "stroke-dasharray=\"1,2\"");
    if (g != style.group.end())
      d.rect(strip_x, Y(l.pos[size_t(leaf)]) - row / 2, 8, row, colours.at(g->second), "none",
             "data-claim=\"subgroups\"");
  }
  size_t hidden = 0;
  if (!style.support_kind.empty())
    hidden = place_supports(d, t, fs, ob, [&](size_t i) {
      const double x = X(l.depth[i]), y = Y(l.pos[i]);
      return std::vector<Candidate>{{x - 2, y - 2, "end"}, {x - 2, y + fs + 1, "end"}, {x + 3, y + fs * 0.35, "start"}};
    });
  // Scale bar under the tree.
  const double bar = scale_bar_length(l.max_depth), by = Y(double(n)) + 6;
  d.line(left, by, left + bar / l.max_depth * tree_w, by, "#000000", 1.2, "data-claim=\"scale-bar\"");
  d.text(left + bar / l.max_depth * tree_w + 5, by + f * 0.35,
         scale_bar_label(bar) + BiText{" substitutions per site", " 个替换/位点"}.in(lang), f);
  const double legends = tree_legends(d, lang, left, by + f + 8, style, colours, references, hidden, f);
  d.set_size(width, by + f + 8 + legends + 8);
  return d.str();
}

// Points along an arc (for the obstacles of the circular layout).
void arc_segments(double cx, double cy, double r, double a0, double a1, std::vector<Segment>& out) {
  const int steps = std::max(1, int(std::ceil(std::fabs(a1 - a0) / (kPi / 60))));
  for (int k = 0; k < steps; ++k) {
    const double u = a0 + (a1 - a0) * k / steps, v = a0 + (a1 - a0) * (k + 1) / steps;
    out.push_back({cx + r * std::cos(u), cy + r * std::sin(u), cx + r * std::cos(v), cy + r * std::sin(v)});
  }
}

std::string circular(Lang lang, const NewickTree& t, const TreeStyle& style, const std::string& title) {
  const TreeLayout l = tree_layout(t);
  const auto colours = group_colours(style.group);
  const size_t n = std::max<size_t>(1, l.leaves.size());
  double longest = 0;
  bool references = false;
  for (int leaf : l.leaves) {
    longest = std::max(longest, text_width(shown_name(t.nodes[size_t(leaf)].name), 10));
    references |= is_reference(t.nodes[size_t(leaf)].name);
  }
  const double r_max = std::max(150.0, double(n) * 13 / (2 * kPi)), ring = colours.empty() ? 0 : 10;
  const double cx = 12 + r_max + 6 + longest + ring + 6, cy = cx, width = 2 * cx;
  const double f = print_font(width), fs = std::max(8.0, svg::min_font(width) + 0.1);
  svg::Doc d(width, 0, title);
  auto angle = [&](double pos) { return 2 * kPi * pos / double(n) - kPi / 2; };
  auto R = [&](double depth) { return 12 + depth / l.max_depth * r_max; };
  auto px = [&](double r, double a) { return cx + r * std::cos(a); };
  auto py = [&](double r, double a) { return cy + r * std::sin(a); };
  Obstacles ob;
  for (size_t i = 1; i < t.nodes.size(); ++i) {
    const int p = t.nodes[i].parent;
    const double a = angle(l.pos[i]), rp = R(l.depth[size_t(p)]), ap = angle(l.pos[size_t(p)]);
    d.line(px(rp, a), py(rp, a), px(R(l.depth[i]), a), py(R(l.depth[i]), a), "#333333", 1);
    ob.lines.push_back({px(rp, a), py(rp, a), px(R(l.depth[i]), a), py(R(l.depth[i]), a)});
    d.path("M" + svg::num(px(rp, ap)) + "," + svg::num(py(rp, ap)) + " A" + svg::num(rp) + "," + svg::num(rp) +
               " 0 0," + (a > ap ? "1 " : "0 ") + svg::num(px(rp, a)) + "," + svg::num(py(rp, a)),
           "#333333", 1);
    arc_segments(cx, cy, rp, ap, a, ob.lines);
  }
  for (int leaf : l.leaves) {
    const std::string& name = t.nodes[size_t(leaf)].name;
    const double a = angle(l.pos[size_t(leaf)]), r = R(l.depth[size_t(leaf)]) + 4;
    const double deg = a * 180 / kPi;
    const bool flip = std::cos(a) < 0;
    auto g = style.group.find(name);
    const std::string colour = is_reference(name)       ? kReferenceGrey
                               : g != style.group.end() ? colours.at(g->second)
                                                        : "#222222";
    std::string attrs = "fill=\"" + colour + "\" dominant-baseline=\"middle\" transform=\"rotate(" +
                        svg::num(flip ? deg + 180 : deg) + " " + svg::num(px(r, a)) + " " + svg::num(py(r, a)) + ")\"";
    attrs += is_reference(name) ? " font-style=\"italic\"" : " data-gene=\"1\"";
    d.text(px(r, a), py(r, a), shown_name(name), f, flip ? "end" : "start", attrs);
    // The rotated name's box, as the label ring it occupies (for the supports' obstacles).
    const double w = text_width(shown_name(name), f), nx = -std::sin(a) * f * 0.5, ny = std::cos(a) * f * 0.5;
    for (double side : {-1.0, 0.0, 1.0})
      ob.lines.push_back(
          {px(r, a) + side * nx, py(r, a) + side * ny, px(r + w, a) + side * nx, py(r + w, a) + side * ny});
    if (g != style.group.end()) {
      const double r0 = 12 + r_max + 6 + longest + 2, half = kPi / double(n);
      d.path("M" + svg::num(px(r0, a - half)) + "," + svg::num(py(r0, a - half)) + " A" + svg::num(r0) + "," +
                 svg::num(r0) + " 0 0,1 " + svg::num(px(r0, a + half)) + "," + svg::num(py(r0, a + half)),
             colours.at(g->second), ring - 2, "none", "data-claim=\"subgroups\"");
    }
  }
  size_t hidden = 0;
  if (!style.support_kind.empty())
    hidden = place_supports(d, t, fs, ob, [&](size_t i) {
      const double a = angle(l.pos[i]), r = R(l.depth[i]), x = px(r, a), y = py(r, a);
      return std::vector<Candidate>{
          {x - 2, y - 2, "end"}, {x + 2, y - 2, "start"}, {x - 2, y + fs + 1, "end"}, {x + 2, y + fs + 1, "start"}};
    });
  const double bar = scale_bar_length(l.max_depth), by = 2 * cy + 4;
  d.line(12, by, 12 + bar / l.max_depth * r_max, by, "#000000", 1.2, "data-claim=\"scale-bar\"");
  d.text(12 + bar / l.max_depth * r_max + 5, by + f * 0.35,
         scale_bar_label(bar) + BiText{" substitutions per site", " 个替换/位点"}.in(lang), f);
  const double legends = tree_legends(d, lang, 12, by + f + 8, style, colours, references, hidden, f);
  d.set_size(width, by + f + 8 + legends + 8);
  return d.str();
}

}  // namespace

std::string tree(Lang lang, const NewickTree& rooted, const TreeStyle& style, const std::string& title) {
  return style.circular ? circular(lang, rooted, style, title) : rectangular(lang, rooted, style, title);
}

}  // namespace bioagent::figures
