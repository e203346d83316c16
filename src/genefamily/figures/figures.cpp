// Gene-family figures (see figures.h).
#include "genefamily/figures/figures.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>

#include "figures/svg.h"
#include "genefamily/figures/figures_paper.h"

namespace bioagent::figures {

TreeLayout tree_layout(const NewickTree& t) {
  TreeLayout l;
  l.depth.assign(t.nodes.size(), 0);
  l.pos.assign(t.nodes.size(), 0);
  std::function<void(int, double)> walk = [&](int n, double d) {
    l.depth[size_t(n)] = d;
    l.max_depth = std::max(l.max_depth, d);
    const auto& kids = t.nodes[size_t(n)].children;
    if (kids.empty()) {
      l.pos[size_t(n)] = double(l.leaves.size());
      l.leaves.push_back(n);
      return;
    }
    double sum = 0;
    for (int k : kids) {
      walk(k, d + std::max(0.0, t.nodes[size_t(k)].length));
      sum += l.pos[size_t(k)];
    }
    l.pos[size_t(n)] = sum / double(kids.size());
  };
  if (!t.nodes.empty()) walk(0, 0);
  if (l.max_depth <= 0) l.max_depth = 1;
  return l;
}

namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kMapLabelGap = 10;  // an 8 px label's line

// A text's box from its anchor at the start of its baseline: ascent 0.8 and descent 0.25 of its size.
struct LabelBox {
  double x0, y0, x1, y1;
};
LabelBox text_box(double x, double baseline, double width, double size) {
  return {x, baseline - 0.8 * size, x + width, baseline + 0.25 * size};
}
bool boxes_overlap(const LabelBox& a, const LabelBox& b) {
  return a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1;
}

// A node's support label (the UFBoot part of "SH-aLRT/UFBoot"); "" for a leaf or an unlabelled node.
std::string support_label(const NewickNode& n) {
  if (n.children.empty() || n.name.empty()) return "";
  return n.name.substr(n.name.find('/') == std::string::npos ? 0 : n.name.find('/') + 1);
}

// Each support label left of its node, above its branch, else below it, else left out (every value stays in
// the Newick file) so that none covers a text of `taken`; returns how many were left out.
template <typename ToX, typename ToY>
size_t draw_supports(svg::Doc& d, const NewickTree& t, const TreeLayout& l, ToX X, ToY Y,
                     std::vector<LabelBox>& taken) {
  size_t hidden = 0;
  for (size_t i = 1; i < t.nodes.size(); ++i) {
    const std::string s = support_label(t.nodes[i]);
    if (s.empty()) continue;
    const double right = X(l.depth[i]) - 3, w = text_width(s, 8);
    bool placed = false;
    for (double y : {Y(l.pos[i]) - 3, Y(l.pos[i]) + 9}) {
      LabelBox b = text_box(right - w, y, w, 8);
      if (std::any_of(taken.begin(), taken.end(), [&](const LabelBox& o) { return boxes_overlap(b, o); })) continue;
      d.text(right, y, s, 8, "end", "fill=\"#777777\"");
      taken.push_back(b);
      placed = true;
      break;
    }
    hidden += placed ? 0 : 1;
  }
  return hidden;
}

std::map<std::string, std::string> group_colours(const std::map<std::string, std::string>& group) {
  std::map<std::string, std::string> colour;
  for (auto& [leaf, g] : group)
    if (!colour.count(g)) colour[g] = svg::palette(colour.size());
  return colour;
}

}  // namespace

std::vector<std::string> leaf_order(const NewickTree& t) {
  std::vector<std::string> out;
  for (int l : tree_layout(t).leaves) out.push_back(t.nodes[size_t(l)].name);
  return out;
}

std::string tree(Lang lang, const NewickTree& t, const std::map<std::string, std::string>& group, bool circular,
                 const std::string& title) {
  TreeLayout l = tree_layout(t);
  auto colours = group_colours(group);
  auto leaf_colour = [&](const std::string& name) {
    auto g = group.find(name);
    return g == group.end() ? std::string("#333333") : colours[g->second];
  };
  size_t n = std::max<size_t>(1, l.leaves.size());
  if (!circular) {
    // left: room for the support labels of the branches next to the root (drawn left of their node)
    double row = 16, left = 48, width = 520, top = 40;
    svg::Doc d(width + 348, top + row * double(n) + 60, title);
    d.text(20, 22, title, 14, "start", "font-weight=\"bold\"");
    auto X = [&](double depth) { return left + depth / l.max_depth * width; };
    auto Y = [&](double pos) { return top + pos * row; };
    std::vector<LabelBox> taken;  // the leaf names, then each support label placed
    for (int leaf : l.leaves) {
      const std::string& name = t.nodes[size_t(leaf)].name;
      const double x = X(l.depth[size_t(leaf)]) + 4, y = Y(l.pos[size_t(leaf)]) + 4;
      d.text(x, y, name, 10, "start", "fill=\"" + leaf_colour(name) + "\"");
      taken.push_back(text_box(x, y, text_width(name, 10), 10));
    }
    for (size_t i = 1; i < t.nodes.size(); ++i) {
      int p = t.nodes[i].parent;
      d.line(X(l.depth[size_t(p)]), Y(l.pos[i]), X(l.depth[i]), Y(l.pos[i]), "#444444", 1.2);  // horizontal
      d.line(X(l.depth[size_t(p)]), Y(l.pos[size_t(p)]), X(l.depth[size_t(p)]), Y(l.pos[i]), "#444444", 1.2);
    }
    const size_t hidden = draw_supports(d, t, l, X, Y, taken);
    std::vector<std::pair<std::string, std::string>> items(colours.begin(), colours.end());
    d.legend(width + 180, top, items);
    double bar = width * 0.1;  // scale bar: 10% of the deepest leaf's distance
    d.line(left, Y(double(n)) + 20, left + bar, Y(double(n)) + 20, "#000000", 1.5);
    d.text(left + bar + 6, Y(double(n)) + 24,
           svg::num(l.max_depth * 0.1) + BiText{" substitutions/site", " 替换/位点"}.in(lang), 9);
    if (hidden)
      d.text(
          left, Y(double(n)) + 42,
          BiText{std::to_string(hidden) + " support values not shown where they would overlap (all in the Newick file)",
                 std::to_string(hidden) + " 个支持率因位置重叠未标出（完整数值见 Newick 文件）"}
              .in(lang),
          9, "start", "fill=\"#777777\"");
    return d.str();
  }
  // The centre leaves room for the longest leaf name around the tips (and the title above them).
  double longest = 0;
  for (int leaf : l.leaves) longest = std::max(longest, text_width(t.nodes[size_t(leaf)].name, 9));
  const double r_max = 260, cx = std::max(340.0, 20 + r_max + 6 + longest + 12),
               cy = std::max(330.0, 20 + r_max + 6 + longest + 34);
  svg::Doc d(std::max(2 * cx + 160, text_width(title, 14) + 40), 2 * cy, title);
  d.text(20, 22, title, 14, "start", "font-weight=\"bold\"");
  auto angle = [&](double pos) { return 2 * kPi * pos / double(n); };
  auto R = [&](double depth) { return 20 + depth / l.max_depth * r_max; };
  auto pt = [&](double r, double a) { return std::pair<double, double>(cx + r * std::cos(a), cy + r * std::sin(a)); };
  for (size_t i = 1; i < t.nodes.size(); ++i) {
    int p = t.nodes[i].parent;
    double a = angle(l.pos[i]), rp = R(l.depth[size_t(p)]);
    auto [x1, y1] = pt(rp, a);
    auto [x2, y2] = pt(R(l.depth[i]), a);
    d.line(x1, y1, x2, y2, "#444444", 1.2);
    double ap = angle(l.pos[size_t(p)]);  // arc at the parent's radius from the parent's angle to this child's
    auto [ax, ay] = pt(rp, ap);
    d.path("M" + svg::num(ax) + "," + svg::num(ay) + " A" + svg::num(rp) + "," + svg::num(rp) + " 0 0," +
               (a > ap ? "1 " : "0 ") + svg::num(x1) + "," + svg::num(y1),
           "#444444", 1.2);
  }
  for (int leaf : l.leaves) {
    const std::string& name = t.nodes[size_t(leaf)].name;
    double a = angle(l.pos[size_t(leaf)]);
    auto [x, y] = pt(R(l.depth[size_t(leaf)]) + 6, a);
    double deg = a * 180 / kPi;
    bool flip = deg > 90 && deg < 270;
    d.text(x, y, name, 9, flip ? "end" : "start",
           "fill=\"" + leaf_colour(name) + "\" transform=\"rotate(" + svg::num(flip ? deg + 180 : deg) + " " +
               svg::num(x) + " " + svg::num(y) + ")\" dominant-baseline=\"middle\"");
  }
  std::vector<std::pair<std::string, std::string>> items(colours.begin(), colours.end());
  d.legend(2 * cx, 40, items);
  return d.str();
}

std::string gene_structure(Lang lang, const std::vector<std::string>& genes,
                           const std::map<std::string, const GffTranscript*>& transcript, const std::string& title) {
  int64_t longest = 1;
  for (auto& g : genes)
    if (auto it = transcript.find(g); it != transcript.end())
      longest = std::max(longest, it->second->end - it->second->start + 1);
  double row = 22, left = 130, width = 600, top = 44;
  svg::Doc d(left + width + 40, top + row * double(genes.size()) + 60, title);
  d.text(20, 22, title, 14, "start", "font-weight=\"bold\"");
  for (size_t i = 0; i < genes.size(); ++i) {
    double y = top + double(i) * row;
    d.text(left - 8, y + 4, genes[i], 10, "end");
    auto it = transcript.find(genes[i]);
    if (it == transcript.end()) continue;
    const GffTranscript& t = *it->second;
    auto X = [&](int64_t pos) {  // 5' end of the transcript on the left, whatever the strand
      double off = t.strand == '-' ? double(t.end - pos) : double(pos - t.start);
      return left + off / double(longest) * width;
    };
    d.line(X(t.start), y, X(t.end), y, "#777777", 1);  // introns as the line beneath
    auto box = [&](const std::vector<GffSegment>& segs, const char* colour, double h) {
      for (auto& s : segs) {
        double a = X(s.start), b = X(s.end);
        d.rect(std::min(a, b), y - h / 2, std::fabs(b - a) + 0.5, h, colour);
      }
    };
    box(t.utr5, "#56B4E9", 8);
    box(t.utr3, "#56B4E9", 8);
    box(t.cds, "#E69F00", 12);
  }
  double ly = top + row * double(genes.size()) + 10;
  d.legend(left, ly, {{"CDS", "#E69F00"}, {"UTR", "#56B4E9"}});
  d.line(left + 200, ly + 6, left + 240, ly + 6, "#777777", 1);
  d.text(left + 246, ly + 10, BiText{"intron", "内含子"}.in(lang), 11);
  double kb = std::pow(10.0, std::floor(std::log10(double(longest))));
  d.line(left + 360, ly + 6, left + 360 + kb / double(longest) * width, ly + 6, "#000000", 1.5);
  d.text(left + 366 + kb / double(longest) * width, ly + 10, std::to_string(int64_t(kb)) + " bp", 11);
  return d.str();
}

std::string chromosome_map(Lang lang, const std::vector<std::pair<std::string, int64_t>>& chromosomes,
                           const std::vector<Placed>& genes, const std::string& title) {
  int64_t longest = 1;
  for (auto& [c, len] : chromosomes) longest = std::max(longest, len);
  double col = 110, top = 60, height = 420;
  svg::Doc d(std::max(60 + col * double(chromosomes.size()) + 40, text_width(title, 14) + 40), top + height + 110,
             title);
  d.text(20, 22, title, 14, "start", "font-weight=\"bold\"");
  for (size_t i = 0; i < chromosomes.size(); ++i) {
    double x = 50 + col * double(i);
    double h = double(chromosomes[i].second) / double(longest) * height;
    d.rect(x, top, 14, h, "#DDDDDD", "#666666", "rx=\"7\"");
    d.text(x + 7, top - 10, chromosomes[i].first, 11, "middle");
    d.text(x + 7, top + h + 16, svg::num(double(chromosomes[i].second) / 1e6) + " Mb", 9, "middle");
    // Labels at least a line apart (spread_labels), each joined to its gene's tick by a leader.
    std::vector<const Placed*> on;
    std::vector<double> want;
    for (auto& g : genes)
      if (g.seqid == chromosomes[i].first) {
        on.push_back(&g);
        want.push_back(top + double(g.start) / double(longest) * height);
      }
    auto at = spread_labels(want, kMapLabelGap, top, top + height + 40);
    for (size_t k = 0; k < on.size(); ++k) {
      const char* colour = on[k]->cluster >= 0 ? "#D55E00" : "#0072B2";
      d.line(x, want[k], x + 14, want[k], colour, 2);
      d.line(x + 14, want[k], x + 22, at[k], colour, 0.8);
      d.text(x + 24, at[k] + 3, on[k]->gene, 8, "start", std::string("fill=\"") + colour + "\"");
    }
  }
  d.legend(50, top + height + 70,
           {{BiText{"member", "家族成员"}.in(lang), "#0072B2"},
            {BiText{"tandem cluster member", "串联重复簇成员"}.in(lang), "#D55E00"}});
  return d.str();
}

std::string synteny_circle(Lang lang, const std::vector<std::pair<std::string, int64_t>>& chromosomes,
                           const std::vector<Placed>& genes, const std::vector<Link>& links, const std::string& title,
                           const std::vector<BlockSpan>& blocks) {
  const double cx = 330, cy = 340, r = 240, inner = r - 10;
  svg::Doc d(std::max(2 * cx + 330, text_width(title, 14) + 40), 2 * cy, title);
  d.text(20, 22, title, 14, "start", "font-weight=\"bold\"");
  int64_t total = 0;
  for (auto& [c, len] : chromosomes) total += len;
  if (total <= 0) return d.str();
  const double gap = 0.02 * 2 * kPi / double(std::max<size_t>(1, chromosomes.size()));
  const double usable = 2 * kPi - gap * double(chromosomes.size());
  std::map<std::string, std::pair<double, double>> arc;  // chromosome -> (start angle, radians per bp)
  auto pt = [&](double radius, double ang) {
    return svg::num(cx + radius * std::cos(ang)) + "," + svg::num(cy + radius * std::sin(ang));
  };
  auto arc_path = [&](double radius, double a0, double a1) {  // clockwise from a0 to a1
    return " A" + svg::num(radius) + "," + svg::num(radius) + " 0 " + (a1 - a0 > kPi ? "1" : "0") + ",1 " +
           pt(radius, a1);
  };
  double a = -kPi / 2;
  for (size_t i = 0; i < chromosomes.size(); ++i) {
    double span = usable * double(chromosomes[i].second) / double(total);
    arc[chromosomes[i].first] = {a, span / double(std::max<int64_t>(1, chromosomes[i].second))};
    d.path("M" + pt(r, a) + arc_path(r, a, a + span), i % 2 ? "#BBBBBB" : "#888888",
           10);  // greys: the colours are for the links
    double mid = a + span / 2;
    d.text(cx + (r + 34) * std::cos(mid), cy + (r + 34) * std::sin(mid) + 4, chromosomes[i].first, 11, "middle");
    a += span + gap;
  }
  auto angle_of = [&](const std::string& chr, int64_t pos) -> std::optional<double> {
    auto it = arc.find(chr);
    if (it == arc.end()) return std::nullopt;
    return it->second.first + it->second.second * double(pos);
  };
  // The genome's collinear blocks first, faint, so that the family's links lie on top.
  for (auto& b : blocks) {
    auto a0 = angle_of(b.chr_a, std::min(b.start_a, b.end_a)), a1 = angle_of(b.chr_a, std::max(b.start_a, b.end_a));
    auto b0 = angle_of(b.chr_b, std::min(b.start_b, b.end_b)), b1 = angle_of(b.chr_b, std::max(b.start_b, b.end_b));
    if (!a0 || !a1 || !b0 || !b1) continue;
    d.raw("<path d=\"M" + pt(inner, *a0) + arc_path(inner, *a0, *a1) + " Q" + svg::num(cx) + "," + svg::num(cy) + " " +
          pt(inner, *b0) + arc_path(inner, *b0, *b1) + " Q" + svg::num(cx) + "," + svg::num(cy) + " " + pt(inner, *a0) +
          "Z\" fill=\"#9E9E9E\" fill-opacity=\"0.18\" stroke=\"#9E9E9E\" stroke-opacity=\"0.3\" "
          "stroke-width=\"0.5\"/>\n");
  }
  std::map<std::string, double> at;  // gene -> its angle on the circle
  for (auto& g : genes) {
    auto ang = angle_of(g.seqid, g.start);
    if (!ang) continue;
    at[g.gene] = *ang;
    d.line(cx + (r - 8) * std::cos(*ang), cy + (r - 8) * std::sin(*ang), cx + (r + 6) * std::cos(*ang),
           cy + (r + 6) * std::sin(*ang), "#333333", 1);
  }
  const char* kSegmental = "#0072B2";
  const char* kTandem = "#D55E00";
  for (auto& l : links) {
    if (!at.count(l.a) || !at.count(l.b)) continue;
    double a1 = std::min(at[l.a], at[l.b]), a2 = std::max(at[l.a], at[l.b]);
    if (l.kind == "tandem") {  // neighbours: an arc just outside their chromosome, at least 2 degrees long
      const double pad = std::max(0.0, (2 * kPi / 180 - (a2 - a1)) / 2);
      d.path("M" + pt(r + 12, a1 - pad) + arc_path(r + 12, a1 - pad, a2 + pad), kTandem, 4);
      continue;
    }
    d.path("M" + pt(inner, a1) + " Q" + svg::num(cx) + "," + svg::num(cy) + " " + pt(inner, a2), kSegmental, 1.4);
  }
  d.legend(2 * cx + 20, 40,
           {{BiText{"segmental / WGD pair", "片段/全基因组复制对"}.in(lang), kSegmental},
            {BiText{"tandem pair (arc on the chromosome)", "串联重复对（染色体外侧弧线）"}.in(lang), kTandem},
            {BiText{"collinear blocks of the genome", "全基因组共线性区块"}.in(lang), "#D8D8D8"}});
  return d.str();
}

std::string heatmap(const std::vector<std::string>& rows, const std::vector<std::string>& cols,
                    const std::vector<std::vector<double>>& values, bool diverging, const std::string& title,
                    const std::string& scale_label) {
  size_t longest_label = 0;
  for (auto& c : cols) longest_label = std::max(longest_label, c.size());
  double cell = 16, left = 130, top = 50 + double(longest_label) * 5.5;  // room for the slanted column labels
  double max = 0;
  for (auto& r : values)
    for (double v : r) max = std::max(max, std::fabs(v));
  svg::Doc d(std::max(left + cell * double(cols.size()) + 140, text_width(title, 14) + 40),
             top + cell * double(rows.size()) + 40, title);
  d.text(20, 22, title, 14, "start", "font-weight=\"bold\"");
  for (size_t j = 0; j < cols.size(); ++j) {
    double x = left + cell * double(j) + cell / 2;
    d.text(x, top - 6, cols[j], 9, "start", "transform=\"rotate(-60 " + svg::num(x) + " " + svg::num(top - 6) + ")\"");
  }
  for (size_t i = 0; i < rows.size(); ++i) {
    double y = top + cell * double(i);
    d.text(left - 6, y + cell * 0.7, rows[i], 9, "end");
    for (size_t j = 0; j < cols.size() && j < values[i].size(); ++j) {
      double v = values[i][j];
      d.rect(left + cell * double(j), y, cell, cell, diverging ? svg::diverging(v) : svg::sequential(v, max), "white",
             "stroke-width=\"0.5\"><title>" + svg::esc(rows[i] + " / " + cols[j] + ": " + svg::num(v)) +
                 "</title></rect><rect width=\"0\" height=\"0\"");
    }
  }
  double lx = left + cell * double(cols.size()) + 20;
  for (int k = 0; k <= 10; ++k) {  // colour scale
    double v = diverging ? -2.5 + 0.5 * k : max * k / 10.0;
    d.rect(lx, top + 12.0 * (10 - k), 14, 12, diverging ? svg::diverging(v) : svg::sequential(v, max));
    if (k % 5 == 0) d.text(lx + 18, top + 12.0 * (10 - k) + 10, svg::num(v), 9);
  }
  d.text(lx, top - 8, scale_label, 10);
  return d.str();
}

RoundTicks round_ticks(double max, int intervals) {
  RoundTicks t;
  if (!(max > 0) || !std::isfinite(max)) max = 1;
  intervals = std::max(1, intervals);
  const double raw = max / intervals, power = std::pow(10.0, std::floor(std::log10(raw)));
  double mantissa = 10;
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0})
    if (m * power >= raw * (1 - 1e-9)) {
      mantissa = m;
      break;
    }
  t.step = mantissa * power;
  t.decimals = std::max(0, int(-std::floor(std::log10(t.step) + 1e-9)) + (mantissa == 2.5 ? 1 : 0));
  const int n = std::max(1, int(std::ceil(max / t.step - 1e-9)));
  for (int k = 0; k <= n; ++k) t.values.push_back(k * t.step);
  return t;
}

std::string tick_label(double v, int decimals) {
  char b[32];
  std::snprintf(b, sizeof b, "%.*f", decimals, v);
  return b;
}

std::string kaks(Lang lang, const std::vector<KaKs>& pairs, const std::string& title) {
  const double left = 70, top = 50, w = 420, h = 320, label_gap = 10;
  double max_ks = 0, max_ka = 0, label_w = 0;
  std::vector<const KaKs*> shown;
  for (auto& p : pairs) {
    if (!std::isfinite(p.ka) || !std::isfinite(p.ks)) continue;
    shown.push_back(&p);
    max_ks = std::max(max_ks, p.ks);
    max_ka = std::max(max_ka, p.ka);
    label_w = std::max(label_w, text_width(p.pair, 8));
  }
  // One round scale for both axes (Ka = Ks stays the diagonal): 0, step, 2 step, ...
  const RoundTicks ticks = round_ticks(std::max({max_ks, max_ka, 0.01}) * 1.05, 5);
  const double m = ticks.values.back();
  const double label_x = left + w + 24;  // the pair names in a column right of the plot, leaders to their points
  svg::Doc d(std::max(label_x + label_w + 20, text_width(title, 14) + 40), top + h + 110, title);
  d.text(20, 22, title, 14, "start", "font-weight=\"bold\"");
  d.rect(left, top, w, h, "none", "#333333");
  d.line(left, top + h, left + w, top, "#999999", 1, "stroke-dasharray=\"4 3\"");  // Ka = Ks
  d.text(left + w - 4, top + 14, "Ka/Ks = 1", 9, "end", "fill=\"#777777\"");
  for (double v : ticks.values) {
    const std::string label = tick_label(v, ticks.decimals);
    d.text(left + w * v / m, top + h + 14, label, 9, "middle");
    d.text(left - 6, top + h - h * v / m + 3, label, 9, "end");
  }
  d.text(left + w / 2, top + h + 34,
         BiText{"Ks (synonymous substitutions per site)", "Ks（每个同义位点的替换数）"}.in(lang), 11, "middle");
  d.text(18, top + h / 2, "Ka", 11, "middle", "transform=\"rotate(-90 18 " + svg::num(top + h / 2) + ")\"");
  std::vector<double> want;
  for (auto* p : shown) want.push_back(top + h - p->ka / m * h);
  const auto at = spread_labels(want, label_gap, top + 4, top + h);
  for (size_t i = 0; i < shown.size(); ++i) {
    const KaKs& p = *shown[i];
    double x = left + p.ks / m * w, y = want[i];
    bool positive = p.ks > 0 && p.ka / p.ks > 1;
    d.circle(x, y, 4, positive ? "#D55E00" : "#0072B2");
    d.line(x + 4, y, label_x - 3, at[i], "#BBBBBB", 0.6);
    d.text(label_x, at[i] + 3, p.pair, 8);
  }
  d.legend(left, top + h + 52,
           {{BiText{"Ka/Ks < 1 (purifying)", "Ka/Ks < 1（纯化选择）"}.in(lang), "#0072B2"},
            {BiText{"Ka/Ks > 1 (positive)", "Ka/Ks > 1（正选择）"}.in(lang), "#D55E00"}});
  return d.str();
}

std::string promoter_figure(Lang lang, const std::vector<std::string>& genes,
                            const std::vector<PromoterElement>& elements,
                            const std::vector<std::pair<std::string, std::string>>& categories,
                            const std::vector<std::vector<double>>& counts, const std::string& title) {
  // Rows: members. Left block: sites per category (the number in each cell); right block: one column per
  // element, a bar above each in its category's colour. Column labels slanted at -60 degrees, one cell apart
  // (16 px apart, 13.9 px between the slanted lines: a 9 px label never meets the next).
  const double cell = 16, cat_w = 34, left = 130;
  double longest = 0;
  for (auto& e : elements) longest = std::max(longest, text_width(e.name, 9));
  for (auto& c : categories) longest = std::max(longest, text_width(c.second, 9));
  const double top = 60 + longest * std::sin(kPi / 3) + 14;
  const double x_elements = left + cat_w * double(categories.size()) + 30;
  const double x_scale = x_elements + cell * double(elements.size()) + 20;
  const std::string legend_title = BiText{"sites", "位点数"}.in(lang);
  double legend_w = text_width(legend_title, 10);
  for (auto& c : categories) legend_w = std::max(legend_w, 16 + text_width(c.second, 11));
  svg::Doc d(std::max(x_scale + 40 + legend_w, text_width(title, 14) + 40),
             std::max(top + cell * double(genes.size()) + 30, top + 160 + 16.0 * double(categories.size())), title);
  d.text(20, 22, title, 14, "start", "font-weight=\"bold\"");
  d.text(left, 44, BiText{"by category", "按类别汇总"}.in(lang), 10, "start", "font-weight=\"bold\"");
  d.text(x_elements, 44, BiText{"by element", "按元件"}.in(lang), 10, "start", "font-weight=\"bold\"");
  auto slanted = [&](double x, const std::string& label) {
    d.text(x, top - 10, label, 9, "start", "transform=\"rotate(-60 " + svg::num(x) + " " + svg::num(top - 10) + ")\"");
  };
  std::map<std::string, std::string> colour;
  std::vector<std::vector<double>> per_category(genes.size(), std::vector<double>(categories.size(), 0));
  for (size_t c = 0; c < categories.size(); ++c) colour[categories[c].first] = svg::palette(c);
  double max_cat = 1, max_el = 1;
  for (size_t i = 0; i < genes.size(); ++i)
    for (size_t e = 0; e < elements.size() && e < counts[i].size(); ++e) {
      for (size_t c = 0; c < categories.size(); ++c)
        if (categories[c].first == elements[e].category) per_category[i][c] += counts[i][e];
      max_el = std::max(max_el, counts[i][e]);
    }
  for (auto& row : per_category)
    for (double v : row) max_cat = std::max(max_cat, v);
  for (size_t c = 0; c < categories.size(); ++c) {
    slanted(left + cat_w * double(c) + cat_w / 2, categories[c].second);
    d.rect(left + cat_w * double(c), top - 6, cat_w - 1, 4, colour[categories[c].first]);
  }
  for (size_t e = 0; e < elements.size(); ++e) {
    slanted(x_elements + cell * double(e) + cell / 2, elements[e].name);
    d.rect(x_elements + cell * double(e), top - 6, cell - 1, 4, colour[elements[e].category]);
  }
  for (size_t i = 0; i < genes.size(); ++i) {
    const double y = top + cell * double(i);
    d.text(left - 6, y + cell * 0.7, genes[i], 9, "end");
    for (size_t c = 0; c < categories.size(); ++c) {
      const double v = per_category[i][c];
      d.rect(left + cat_w * double(c), y, cat_w, cell, svg::sequential(v, max_cat), "white", "stroke-width=\"0.5\"");
      d.text(left + cat_w * double(c) + cat_w / 2, y + cell * 0.7, std::to_string(int(v)), 8, "middle",
             v > max_cat * 0.6 ? "fill=\"white\"" : "fill=\"#222222\"");
    }
    for (size_t e = 0; e < elements.size() && e < counts[i].size(); ++e)
      d.rect(x_elements + cell * double(e), y, cell, cell, svg::sequential(counts[i][e], max_el), "white",
             "stroke-width=\"0.5\"><title>" +
                 svg::esc(genes[i] + " / " + elements[e].name + ": " + std::to_string(int(counts[i][e]))) +
                 "</title></rect><rect width=\"0\" height=\"0\"");
  }
  for (int k = 0; k <= 10; ++k) {  // the element colour scale
    double v = max_el * k / 10.0;
    d.rect(x_scale, top + 14 + 12.0 * (10 - k), 14, 12, svg::sequential(v, max_el));
    if (k % 5 == 0) d.text(x_scale + 18, top + 24 + 12.0 * (10 - k), tick_label(v, max_el >= 10 ? 0 : 1), 9);
  }
  d.text(x_scale, top + 8, legend_title, 10);
  std::vector<std::pair<std::string, std::string>> items;
  for (auto& c : categories) items.push_back({c.second, colour[c.first]});
  d.legend(x_scale, top + 154, items);
  return d.str();
}

}  // namespace bioagent::figures
