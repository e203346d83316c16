// The circos-style synteny figure and the dual-synteny plot (see figures.h).
#include <algorithm>
#include <cmath>
#include <optional>
#include <set>

#include "genefamily/algo/natural_order.h"
#include "genefamily/figures/figures_paper.h"

namespace bioagent::figures {
namespace {

constexpr double kPi = 3.14159265358979323846;
const char* kSegmental = "#0072B2";
const char* kTandemLink = "#D55E00";

// Duplicate classes (MCScanX's) in the order of their legend, with their colours.
struct DupClass {
  const char* key;
  const char* colour;
  BiText label;
};
const std::vector<DupClass>& dup_classes() {
  static const std::vector<DupClass> k = {{"segmental", "#0072B2", {"segmental/WGD", "片段/全基因组复制"}},
                                          {"tandem", "#D55E00", {"tandem", "串联重复"}},
                                          {"proximal", "#CC79A7", {"proximal", "近端复制"}},
                                          {"dispersed", "#E69F00", {"dispersed", "分散复制"}},
                                          {"singleton", "#999999", {"singleton", "单拷贝"}}};
  return k;
}

// The chromosomes drawn: those holding a member or a block, else the longest; at most 40, in natural order.
std::vector<std::pair<std::string, int64_t>> circle_chromosomes(const Circos& c) {
  std::set<std::string> used;
  for (auto& m : c.members) used.insert(m.seqid);
  for (auto& b : c.blocks) used.insert(b.chr_a), used.insert(b.chr_b);
  std::vector<std::pair<std::string, int64_t>> by_length = c.chromosomes;
  std::stable_sort(by_length.begin(), by_length.end(), [](auto& a, auto& b) { return a.second > b.second; });
  const int64_t longest = by_length.empty() ? 1 : by_length[0].second;
  std::vector<std::pair<std::string, int64_t>> out;
  for (auto& ch : by_length)
    if (used.count(ch.first) || (out.size() < 40 && ch.second >= longest / 20)) out.push_back(ch);
  return naturally_ordered(out);
}

std::string pt(double cx, double cy, double r, double a) {
  return svg::num(cx + r * std::cos(a)) + "," + svg::num(cy + r * std::sin(a));
}
std::string arc_to(double cx, double cy, double r, double a0, double a1) {  // clockwise from a0 to a1
  return " A" + svg::num(r) + "," + svg::num(r) + " 0 " + (a1 - a0 > kPi ? "1" : "0") + ",1 " + pt(cx, cy, r, a1);
}
// A band between two radii from a0 to a1.
std::string band(double cx, double cy, double r0, double r1, double a0, double a1) {
  return "M" + pt(cx, cy, r1, a0) + arc_to(cx, cy, r1, a0, a1) + " L" + pt(cx, cy, r0, a1) + " A" + svg::num(r0) + "," +
         svg::num(r0) + " 0 " + (a1 - a0 > kPi ? "1" : "0") + ",0 " + pt(cx, cy, r0, a0) + " Z";
}

// A round bin size (1, 2 or 5 times a power of ten bp) giving about `bins` bins over `total` bp.
int64_t bin_size(int64_t total, int bins) {
  const double want = double(total) / bins, power = std::pow(10.0, std::floor(std::log10(std::max(1.0, want))));
  double best = power;
  for (double m : {1.0, 2.0, 5.0})
    if (m * power <= want * 1.5) best = m * power;
  return std::max<int64_t>(1, int64_t(best));
}

std::string length_text(double bp) {
  char b[32];
  if (bp >= 1e6)
    std::snprintf(b, sizeof b, "%g Mb", bp / 1e6);
  else
    std::snprintf(b, sizeof b, "%g kb", bp / 1e3);
  return b;
}

}  // namespace

std::string synteny_circle(Lang lang, const Circos& c, const std::string& title) {
  const auto chromosomes = circle_chromosomes(c);
  double name_w = 0;
  for (auto& m : c.members) name_w = std::max(name_w, text_width(m.gene, 10));
  const double r_ideo = 196, r_ticks = 214, r_elbow = 236, r_names = 240;
  const double cx = r_names + name_w + 14, cy = cx, width = 2 * cx, f = print_font(width);
  svg::Doc d(width, 0, title);
  int64_t total = 0, longest = 1;
  for (auto& [n, len] : chromosomes) total += std::max<int64_t>(1, len), longest = std::max(longest, len);
  std::map<std::string, std::pair<double, double>> arc;  // chromosome -> (start angle, radians per bp)
  const double gap = chromosomes.size() > 1 ? 0.025 : 0;
  const double usable = 2 * kPi - gap * double(chromosomes.size());
  double a = -kPi / 2 + gap / 2;
  for (auto& [name, len] : chromosomes) {
    const double span = usable * double(std::max<int64_t>(1, len)) / double(std::max<int64_t>(1, total));
    arc[name] = {a, span / double(std::max<int64_t>(1, len))};
    a += span + gap;
  }
  auto angle_of = [&](const std::string& chr, int64_t pos) -> std::optional<double> {
    auto it = arc.find(chr);
    if (it == arc.end()) return std::nullopt;
    return it->second.first + it->second.second * double(pos);
  };
  // Ideograms, their names inside, scale ticks outside.
  const RoundTicks ticks = round_ticks(double(longest) / 1e6, 4);
  const bool in_kb = ticks.step < 0.1;
  d.open_group(svg::data("axis", "ticks") + " data-claim=\"ticks\"");
  for (size_t i = 0; i < chromosomes.size(); ++i) {
    const auto& [name, len] = chromosomes[i];
    const double a0 = arc[name].first, a1 = a0 + arc[name].second * double(std::max<int64_t>(1, len));
    d.path(band(cx, cy, r_ideo, r_ideo + 12, a0, a1), "#555555", 0.6, i % 2 ? "#BDBDBD" : "#8C8C8C");
    double last = -1e9;
    for (double v : ticks.values) {
      if (v * 1e6 > double(len)) break;
      const double t = a0 + arc[name].second * v * 1e6;
      d.line(cx + (r_ideo + 12) * std::cos(t), cy + (r_ideo + 12) * std::sin(t), cx + (r_ticks - 4) * std::cos(t),
             cy + (r_ticks - 4) * std::sin(t), "#333333", 0.8);
      const std::string label =
          in_kb ? tick_label(v * 1000, std::max(0, ticks.decimals - 3)) : tick_label(v, ticks.decimals);
      if ((t - last) * r_ticks < f * 1.4 || (a1 - t) * r_ticks < f * 0.6) continue;  // no room for its label
      last = t;
      // Tangential, never upside down: in the lower half turned over, its baseline moved out by the text's height.
      const bool lower = std::sin(t) > 0;
      const double deg = t * 180 / kPi + (lower ? 270 : 90), rt = r_ticks + (lower ? f * 0.8 : 0);
      const double tx = cx + rt * std::cos(t), ty = cy + rt * std::sin(t);
      d.text(tx, ty, label, f, "middle",
             "transform=\"rotate(" + svg::num(deg) + " " + svg::num(tx) + " " + svg::num(ty) + ")\"");
    }
    const double mid = (a0 + a1) / 2;
    d.text(cx + (r_ideo - 12) * std::cos(mid), cy + (r_ideo - 12) * std::sin(mid) + f * 0.35, name, f, "middle",
           "font-weight=\"bold\"");
  }
  d.close_group();
  // Gene density: genes per bin on each chromosome, inside the names.
  const int64_t bin = bin_size(total, 180);
  int max_count = 1;
  std::map<std::string, std::map<int64_t, int>> counts;
  for (auto& [chr, starts] : c.gene_starts)
    if (arc.count(chr))
      for (int64_t s : starts) max_count = std::max(max_count, ++counts[chr][s / bin]);
  const double r_dens0 = r_ideo - 46, r_dens1 = r_ideo - 26;
  std::map<std::string, int64_t> length_of(chromosomes.begin(), chromosomes.end());
  for (auto& [chr, bins] : counts)
    for (auto& [b, n] : bins) {
      const double a0 = arc[chr].first + arc[chr].second * double(b * bin),
                   a1 = std::min(a0 + arc[chr].second * double(bin),
                                 arc[chr].first + arc[chr].second * double(std::max<int64_t>(1, length_of[chr])));
      d.path(band(cx, cy, r_dens0, r_dens1, a0, std::max(a1, a0 + 1e-4)), "none", 0, svg::sequential(n, max_count),
             "data-scale=\"density\" data-claim=\"density\"");
    }
  // The genome's collinear blocks, faint, behind the family's links.
  const double r_link = r_dens0 - 4;
  for (auto& b : c.blocks) {
    auto a0 = angle_of(b.chr_a, std::min(b.start_a, b.end_a)), a1 = angle_of(b.chr_a, std::max(b.start_a, b.end_a));
    auto b0 = angle_of(b.chr_b, std::min(b.start_b, b.end_b)), b1 = angle_of(b.chr_b, std::max(b.start_b, b.end_b));
    if (!a0 || !a1 || !b0 || !b1) continue;
    d.raw("<path d=\"M" + pt(cx, cy, r_link, *a0) + arc_to(cx, cy, r_link, *a0, *a1) + " Q" + svg::num(cx) + "," +
          svg::num(cy) + " " + pt(cx, cy, r_link, *b0) + arc_to(cx, cy, r_link, *b0, *b1) + " Q" + svg::num(cx) + "," +
          svg::num(cy) + " " + pt(cx, cy, r_link, *a0) +
          "Z\" fill=\"#BDBDBD\" fill-opacity=\"0.35\" stroke=\"#9E9E9E\" stroke-opacity=\"0.5\" stroke-width=\"0.4\" "
          "data-claim=\"blocks\"/>\n");
  }
  std::map<std::string, double> at;
  for (auto& m : c.members)
    if (auto t = angle_of(m.seqid, m.start)) at[m.gene] = *t;
  std::set<std::string> kinds;
  for (auto& l : c.links) {
    if (!at.count(l.a) || !at.count(l.b)) continue;
    kinds.insert(l.kind);
    const double a1 = at[l.a], a2 = at[l.b];
    const char* colour = l.kind == "tandem" ? kTandemLink : kSegmental;
    // Tandem neighbours bow gently inward; other pairs curve through the centre.
    const double mid = (a1 + a2) / 2, pull = l.kind == "tandem" ? r_link - 30 : 0;
    d.path("M" + pt(cx, cy, r_link, a1) + " Q" + pt(cx, cy, pull, mid) + " " + pt(cx, cy, r_link, a2), colour,
           l.kind == "tandem" ? 2 : 1.4, "none", "data-claim=\"links\"");
  }
  // Members: a tick on the ideogram in their duplicate class's colour, the name outside with a leader.
  std::vector<const Placed*> named;
  for (auto& m : c.members)
    if (at.count(m.gene)) named.push_back(&m);
  std::sort(named.begin(), named.end(), [&](auto* x, auto* y) { return at[x->gene] < at[y->gene]; });
  std::vector<double> want;
  for (auto* m : named) want.push_back(at[m->gene]);
  const double step = (f + 1) / r_names;
  const bool fit = step * double(named.size()) < 2 * kPi * 0.95;
  const auto placed = spread_labels(want, fit ? step : 0, -kPi / 2, 3 * kPi / 2 - step);
  std::set<std::string> classes_drawn;
  for (size_t i = 0; i < named.size(); ++i) {
    const Placed& m = *named[i];
    const auto cls = c.member_class.count(m.gene) ? c.member_class.at(m.gene) : std::string("singleton");
    const char* colour = "#999999";
    for (auto& k : dup_classes())
      if (cls == k.key) colour = k.colour;
    classes_drawn.insert(cls);
    const double t = at[m.gene], p = placed[i];
    d.line(cx + r_ideo * std::cos(t), cy + r_ideo * std::sin(t), cx + (r_ideo + 12) * std::cos(t),
           cy + (r_ideo + 12) * std::sin(t), colour, 2.2);
    if (!fit) continue;
    d.path("M" + pt(cx, cy, r_ideo + 12, t) + " L" + pt(cx, cy, r_elbow - 8, t) + " L" + pt(cx, cy, r_elbow, p),
           "#999999", 0.5);
    const double deg = p * 180 / kPi;
    const bool flip = std::cos(p) < 0;
    d.text(cx + r_names * std::cos(p), cy + r_names * std::sin(p), m.gene, f, flip ? "end" : "start",
           "data-gene=\"1\" data-claim=\"gene-names\" dominant-baseline=\"middle\" transform=\"rotate(" +
               svg::num(flip ? deg + 180 : deg) + " " + svg::num(cx + r_names * std::cos(p)) + " " +
               svg::num(cy + r_names * std::sin(p)) + ")\"");
  }
  // Legends under the circle: members' classes, links, blocks; the density scale; the ticks' unit.
  double y = 2 * cy + 4;
  std::vector<svg::LegendItem> members;
  for (auto& k : dup_classes())
    if (classes_drawn.count(k.key)) members.push_back({k.label.in(lang), k.colour});
  const double col2 = width / 2 + 10;
  double left_h =
      d.legend(12, y, members, "classes", BiText{"Members by duplication type", "成员的复制类型"}.in(lang), f);
  std::vector<svg::LegendItem> links;
  if (kinds.count("segmental"))
    links.push_back(
        {BiText{"segmental/WGD pair (collinear)", "片段/全基因组复制对（共线）"}.in(lang), kSegmental, "line"});
  if (kinds.count("tandem")) links.push_back({BiText{"tandem pair", "串联重复对"}.in(lang), kTandemLink, "line"});
  if (!c.blocks.empty())
    links.push_back({BiText{"collinear blocks of the genome", "全基因组共线性区块"}.in(lang), "#BDBDBD"});
  double right_h = d.legend(col2, y, links, "links", BiText{"Links", "连线"}.in(lang), f);
  y += std::max(left_h, right_h) + 8;
  const std::string unit = in_kb ? "kb" : "Mb";
  d.text(
      12, y + f,
      BiText{"Outer ticks: position on the chromosome (" + unit + ")", "外圈刻度：染色体上的位置（" + unit + "）"}.in(
          lang),
      f, "start", svg::data("axis-title", "ticks"));
  y += f * 1.8;
  if (!counts.empty()) {
    RoundTicks dt = round_ticks(max_count, 4);
    y += d.colour_bar(
        12, y, 200, [&](double v) { return svg::sequential(v, max_count); }, 0, dt.values.back(), dt.values,
        [&](double v) { return tick_label(v, 0); },
        BiText{"Genes per " + length_text(double(bin)) + " (inner track)",
               "每 " + length_text(double(bin)) + " 的基因数（内圈）"}
            .in(lang),
        "density", f);
  }
  if (!fit && !named.empty()) {
    d.text(12, y + f,
           BiText{"Member names are not drawn: " + std::to_string(named.size()) + " do not fit around the circle.",
                  "成员名称未画出：" + std::to_string(named.size()) + " 个名称在圆周上放不下。"}
               .in(lang),
           f);
    y += f * 1.6;
  }
  d.set_size(width, y + 8);
  return d.str();
}

std::string dual_synteny(Lang lang, const Genome& top_in, const Genome& bottom_in,
                         const std::vector<SyntenyPair>& pairs, const std::string& title) {
  Genome top = top_in, bottom = bottom_in;
  top.chromosomes = naturally_ordered(top.chromosomes);
  bottom.chromosomes = naturally_ordered(bottom.chromosomes);
  double name_w = 0;
  for (auto& p : pairs)
    if (p.family) name_w = std::max(name_w, text_width(p.name, 10));
  const double left = 14 + std::max({60.0, text_width(top.species, 10), text_width(bottom.species, 10)});
  const double width = 700, track = width - left - 14, f = print_font(width), gapx = 6;
  const double y_names = 12, y_top = y_names + name_w + 24, y_bottom = y_top + 190;
  auto layout = [&](const Genome& g) {
    int64_t total = 0;
    for (auto& [c, len] : g.chromosomes) total += std::max<int64_t>(1, len);
    const double usable = track - gapx * double(std::max<size_t>(1, g.chromosomes.size()) - 1);
    std::map<std::string, std::pair<double, double>> at;  // chr -> (x, pixels per base)
    double x = left;
    for (auto& [c, len] : g.chromosomes) {
      const double scale = usable / double(std::max<int64_t>(1, total));
      at[c] = {x, scale};
      x += scale * double(std::max<int64_t>(1, len)) + gapx;
    }
    return at;
  };
  const auto ta = layout(top), ba = layout(bottom);
  svg::Doc d(width, 0, title);
  auto xy = [&](const SyntenyPair& p) -> std::optional<std::pair<double, double>> {
    auto a = ta.find(p.chr_a);
    auto b = ba.find(p.chr_b);
    if (a == ta.end() || b == ba.end()) return std::nullopt;
    return std::pair{a->second.first + a->second.second * double(p.pos_a),
                     b->second.first + b->second.second * double(p.pos_b)};
  };
  auto link = [&](const SyntenyPair& p, const char* colour, double w, const char* claim) {
    auto x = xy(p);
    if (!x) return;
    const double y1 = y_top + 6, y2 = y_bottom - 6, ym = (y1 + y2) / 2;
    d.path("M" + svg::num(x->first) + "," + svg::num(y1) + " C" + svg::num(x->first) + "," + svg::num(ym) + " " +
               svg::num(x->second) + "," + svg::num(ym) + " " + svg::num(x->second) + "," + svg::num(y2),
           colour, w, "none", claim);
  };
  bool family = false;
  for (auto& p : pairs)
    if (!p.family) link(p, "#C8C8C8", 0.5, "");
  for (auto& p : pairs)
    if (p.family) link(p, "#D55E00", 1.4, "data-claim=\"family-pairs\""), family = true;
  auto draw_genome = [&](const Genome& g, const std::map<std::string, std::pair<double, double>>& at, double y,
                         bool above) {
    d.text(left - 8, y + f * 0.35, g.species, f, "end", "font-style=\"italic\"");
    for (auto& [c, len] : g.chromosomes) {
      auto [x, s] = at.at(c);
      const double w = s * double(std::max<int64_t>(1, len));
      d.rect(x, y - 6, w, 12, "#D9D9D9", "#555555", "rx=\"4\" stroke-width=\"0.6\"");
      if (text_width(c, f) < w + gapx) d.text(x + w / 2, above ? y - 9 : y + 6 + f * 1.1, c, f, "middle");
    }
  };
  draw_genome(top, ta, y_top, false);
  draw_genome(bottom, ba, y_bottom, false);
  // The family's names above the top genome, spread apart, leaders to their genes.
  std::vector<std::pair<double, std::string>> names;
  for (auto& p : pairs)
    if (p.family && !p.name.empty())
      if (auto x = xy(p); x && std::none_of(names.begin(), names.end(), [&](auto& n) { return n.second == p.name; }))
        names.push_back({x->first, p.name});
  std::sort(names.begin(), names.end());
  std::vector<double> want;
  for (auto& n : names) want.push_back(n.first);
  const auto at = spread_labels(want, f + 1, left, left + track);
  for (size_t i = 0; i < names.size(); ++i) {
    const double ly = y_names + name_w + 6;
    d.path("M" + svg::num(names[i].first) + "," + svg::num(y_top - 6) + " L" + svg::num(at[i]) + "," + svg::num(ly + 2),
           "#999999", 0.5);
    d.text(at[i] + f * 0.35, ly, names[i].second, f, "start",
           "data-gene=\"1\" transform=\"rotate(-90 " + svg::num(at[i] + f * 0.35) + " " + svg::num(ly) + ")\"");
  }
  std::vector<svg::LegendItem> items = {{BiText{"collinear gene pairs", "共线性基因对"}.in(lang), "#C8C8C8", "line"}};
  if (family)
    items.insert(items.begin(), {BiText{"family member pairs", "家族成员基因对"}.in(lang), "#D55E00", "line"});
  const double h = d.legend(left, y_bottom + f * 2.6, items, "pairs", "", f);
  d.set_size(width, y_bottom + f * 2.6 + h + 8);
  return d.str();
}

}  // namespace bioagent::figures
