// What the figures share: rooting a tree (midpoint, or on reference
// outgroups), the width a text needs, colours that stay apart, labels spread
// so they never overlap, and the boxes, segments and axes the layouts test
// and draw.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "bioagent/status.h"
#include "figures/svg.h"
#include "genefamily/algo/newick.h"
#include "genefamily/figures/figures.h"

namespace bioagent::figures {

// Rooted at the midpoint of the longest leaf-to-leaf path. Support labels stay
// with their branches.
NewickTree midpoint_rooted(const NewickTree& t);
// Rooted on the branch above the smallest clade holding every outgroup leaf;
// an error when a name is missing or the outgroups are not one clade.
Result<NewickTree> outgroup_rooted(const NewickTree& t, const std::vector<std::string>& outgroup);
std::string newick_text(const NewickTree& t);
// The tree with only the leaves in `keep`: the others removed and the nodes left with one child joined to it
// (their branch lengths added); the root stays where it was.
NewickTree pruned_to(const NewickTree& t, const std::set<std::string>& keep);

// Twelve colours that stay apart (Okabe-Ito first, then distinct hues).
const char* distinct_colour(size_t i);
// Width in pixels a text needs at `size` (DejaVu Sans advance, generous).
double text_width(const std::string& s, double size);

// Label positions near `wanted` (sorted or not), at least `gap` apart, inside [lo, hi].
std::vector<double> spread_labels(const std::vector<double>& wanted, double gap, double lo, double hi);

// A text's box (ascent 0.8, descent 0.25 of its size) and a straight segment, for placing labels clear of
// what is drawn.
struct Box {
  double x0 = 0, y0 = 0, x1 = 0, y1 = 0;
};
Box text_box(double x, double baseline, const std::string& s, double size, const std::string& anchor = "start");
bool overlaps(const Box& a, const Box& b);
struct Segment {
  double x0 = 0, y0 = 0, x1 = 0, y1 = 0;
};
bool crosses(const Box& b, const Segment& s);

// A numeric axis from `lo` to `hi` (screen coordinates from `from` to `to` along x when `horizontal`, else y,
// at the other coordinate `at`), ticks and labels at `ticks` on the side away from the plot, its title centred;
// marked data-axis="id" and data-axis-title="id".
void axis(svg::Doc& d, const std::string& id, bool horizontal, double at, double from, double to, double lo, double hi,
          const RoundTicks& ticks, const std::string& title, double size);
// How far left of a vertical axis's line its tick labels and rotated title reach (the title's box included).
double vertical_axis_room(const RoundTicks& ticks, double size);

// The font size a figure `width` wide needs to print at 180 mm (at least `base`).
double print_font(double width, double base = 10);

}  // namespace bioagent::figures
