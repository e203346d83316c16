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

// What the circle's drawing steps share: the chromosomes drawn, the circle's centre and radii, each
// chromosome's arc and each member's angle.
struct Circle {
  const Circos& c;
  Lang lang;
  std::vector<std::pair<std::string, int64_t>> chromosomes;
  double r_ideo = 196, r_ticks = 214, r_elbow = 236, r_names = 240;
  double cx = 0, cy = 0, width = 0, f = 10;
  int64_t total = 0, longest = 1;
  std::map<std::string, std::pair<double, double>> arc;  // chromosome -> (start angle, radians per bp)
  std::map<std::string, double> member_angle;            // member's name -> angle of its start

  std::optional<double> angle_of(const std::string& chr, int64_t pos) const {
    auto it = arc.find(chr);
    if (it == arc.end()) return std::nullopt;
    return it->second.first + it->second.second * double(pos);
  }
  // The angle where a chromosome ends.
  double arc_end(const std::string& chr, int64_t len) const {
    return arc.at(chr).first + arc.at(chr).second * double(std::max<int64_t>(1, len));
  }
};

// The chromosomes around the circle, clockwise from the top, each an arc in proportion to its length; the
// canvas wide enough for the members' names outside.
Circle circle_of(Lang lang, const Circos& c) {
  Circle k{c, lang, circle_chromosomes(c)};
  double name_w = 0;
  for (auto& m : c.members) name_w = std::max(name_w, text_width(m.gene, 10));
  k.cx = k.r_names + name_w + 14, k.cy = k.cx, k.width = 2 * k.cx, k.f = print_font(k.width);
  for (auto& [n, len] : k.chromosomes) k.total += std::max<int64_t>(1, len), k.longest = std::max(k.longest, len);
  const double gap = k.chromosomes.size() > 1 ? 0.025 : 0;
  const double usable = 2 * kPi - gap * double(k.chromosomes.size());
  double a = -kPi / 2 + gap / 2;
  for (auto& [name, len] : k.chromosomes) {
    const double span = usable * double(std::max<int64_t>(1, len)) / double(std::max<int64_t>(1, k.total));
    k.arc[name] = {a, span / double(std::max<int64_t>(1, len))};
    a += span + gap;
  }
  for (auto& m : c.members)
    if (auto t = k.angle_of(m.seqid, m.start)) k.member_angle[m.gene] = *t;
  return k;
}

// The ideograms, their names inside, scale ticks outside (labels where there is room). True when the ticks
// are in kb.
bool draw_ideograms(svg::Doc& d, const Circle& k) {
  const double cx = k.cx, cy = k.cy, f = k.f, r_ideo = k.r_ideo, r_ticks = k.r_ticks;
  const RoundTicks ticks = round_ticks(double(k.longest) / 1e6, 4);
  const bool in_kb = ticks.step < 0.1;
  d.open_group(svg::data("axis", "ticks") + " data-claim=\"ticks\"");
  for (size_t i = 0; i < k.chromosomes.size(); ++i) {
    const auto& [name, len] = k.chromosomes[i];
    const double a0 = k.arc.at(name).first, a1 = k.arc_end(name, len);
    d.path(band(cx, cy, r_ideo, r_ideo + 12, a0, a1), "#555555", 0.6, i % 2 ? "#BDBDBD" : "#8C8C8C");
    double last = -1e9;
    for (double v : ticks.values) {
      if (v * 1e6 > double(len)) break;
      const double t = a0 + k.arc.at(name).second * v * 1e6;
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
  return in_kb;
}

// The gene density track: genes per bin on each chromosome, inside the names.
struct Density {
  int64_t bin = 1;
  int max_count = 1;
  bool drawn = false;
};
Density draw_density(svg::Doc& d, const Circle& k) {
  Density out;
  out.bin = bin_size(k.total, 180);
  std::map<std::string, std::map<int64_t, int>> counts;
  for (auto& [chr, starts] : k.c.gene_starts)
    if (k.arc.count(chr))
      for (int64_t s : starts) out.max_count = std::max(out.max_count, ++counts[chr][s / out.bin]);
  const double r_dens0 = k.r_ideo - 46, r_dens1 = k.r_ideo - 26;
  std::map<std::string, int64_t> length_of(k.chromosomes.begin(), k.chromosomes.end());
  for (auto& [chr, bins] : counts)
    for (auto& [b, n] : bins) {
      const double a0 = k.arc.at(chr).first + k.arc.at(chr).second * double(b * out.bin),
                   a1 = std::min(a0 + k.arc.at(chr).second * double(out.bin), k.arc_end(chr, length_of[chr]));
      d.path(band(k.cx, k.cy, r_dens0, r_dens1, a0, std::max(a1, a0 + 1e-4)), "none", 0,
             svg::sequential(n, out.max_count), "data-scale=\"density\" data-claim=\"density\"");
    }
  out.drawn = !counts.empty();
  return out;
}

// The radius the links and blocks end at: inside the density track.
double link_radius(const Circle& k) { return k.r_ideo - 46 - 4; }

// The genome's collinear blocks, faint, behind the family's links.
void draw_blocks(svg::Doc& d, const Circle& k) {
  const double cx = k.cx, cy = k.cy, r_link = link_radius(k);
  for (auto& b : k.c.blocks) {
    auto a0 = k.angle_of(b.chr_a, std::min(b.start_a, b.end_a)), a1 = k.angle_of(b.chr_a, std::max(b.start_a, b.end_a));
    auto b0 = k.angle_of(b.chr_b, std::min(b.start_b, b.end_b)), b1 = k.angle_of(b.chr_b, std::max(b.start_b, b.end_b));
    if (!a0 || !a1 || !b0 || !b1) continue;
    d.raw("<path d=\"M" + pt(cx, cy, r_link, *a0) + arc_to(cx, cy, r_link, *a0, *a1) + " Q" + svg::num(cx) + "," +
          svg::num(cy) + " " + pt(cx, cy, r_link, *b0) + arc_to(cx, cy, r_link, *b0, *b1) + " Q" + svg::num(cx) + "," +
          svg::num(cy) + " " + pt(cx, cy, r_link, *a0) +
          "Z\" fill=\"#BDBDBD\" fill-opacity=\"0.35\" stroke=\"#9E9E9E\" stroke-opacity=\"0.5\" stroke-width=\"0.4\" "
          "data-claim=\"blocks\"/>\n");
  }
}

// The family's duplicate pairs as links between their members; the kinds drawn.
std::set<std::string> draw_links(svg::Doc& d, const Circle& k) {
  const double r_link = link_radius(k);
  std::set<std::string> kinds;
  for (auto& l : k.c.links) {
    if (!k.member_angle.count(l.a) || !k.member_angle.count(l.b)) continue;
    kinds.insert(l.kind);
    const double a1 = k.member_angle.at(l.a), a2 = k.member_angle.at(l.b);
    const char* colour = l.kind == "tandem" ? kTandemLink : kSegmental;
    // Tandem neighbours bow gently inward; other pairs curve through the centre.
    const double mid = (a1 + a2) / 2, pull = l.kind == "tandem" ? r_link - 30 : 0;
    d.path("M" + pt(k.cx, k.cy, r_link, a1) + " Q" + pt(k.cx, k.cy, pull, mid) + " " + pt(k.cx, k.cy, r_link, a2),
           colour, l.kind == "tandem" ? 2 : 1.4, "none", "data-claim=\"links\"");
  }
  return kinds;
}

// What the member marks drew: the duplicate classes, how many members, whether their names fit.
struct MemberMarks {
  std::set<std::string> classes;
  size_t members = 0;
  bool names_fit = true;
};

// Members: a tick on the ideogram in their duplicate class's colour, the name outside with a leader.
MemberMarks draw_members(svg::Doc& d, const Circle& k) {
  const double cx = k.cx, cy = k.cy, f = k.f, r_ideo = k.r_ideo, r_elbow = k.r_elbow, r_names = k.r_names;
  const auto& at = k.member_angle;
  std::vector<const Placed*> named;
  for (auto& m : k.c.members)
    if (at.count(m.gene)) named.push_back(&m);
  std::sort(named.begin(), named.end(), [&](auto* x, auto* y) { return at.at(x->gene) < at.at(y->gene); });
  std::vector<double> want;
  for (auto* m : named) want.push_back(at.at(m->gene));
  const double step = (f + 1) / r_names;
  MemberMarks out;
  out.members = named.size();
  out.names_fit = step * double(named.size()) < 2 * kPi * 0.95;
  const auto placed = spread_labels(want, out.names_fit ? step : 0, -kPi / 2, 3 * kPi / 2 - step);
  for (size_t i = 0; i < named.size(); ++i) {
    const Placed& m = *named[i];
    const auto cls = k.c.member_class.count(m.gene) ? k.c.member_class.at(m.gene) : std::string("singleton");
    const char* colour = "#999999";
    for (auto& dc : dup_classes())
      if (cls == dc.key) colour = dc.colour;
    out.classes.insert(cls);
    const double t = at.at(m.gene), p = placed[i];
    d.line(cx + r_ideo * std::cos(t), cy + r_ideo * std::sin(t), cx + (r_ideo + 12) * std::cos(t),
           cy + (r_ideo + 12) * std::sin(t), colour, 2.2);
    if (!out.names_fit) continue;
    d.path("M" + pt(cx, cy, r_ideo + 12, t) + " L" + pt(cx, cy, r_elbow - 8, t) + " L" + pt(cx, cy, r_elbow, p),
           "#999999", 0.5);
    const double deg = p * 180 / kPi;
    const bool flip = std::cos(p) < 0;
    d.text(cx + r_names * std::cos(p), cy + r_names * std::sin(p), m.gene, f, flip ? "end" : "start",
           "data-gene=\"1\" data-claim=\"gene-names\" dominant-baseline=\"middle\" transform=\"rotate(" +
               svg::num(flip ? deg + 180 : deg) + " " + svg::num(cx + r_names * std::cos(p)) + " " +
               svg::num(cy + r_names * std::sin(p)) + ")\"");
  }
  return out;
}

// The legends under the circle (members' classes, links, blocks), the ticks' unit, the density scale and a
// note when the names did not fit; the figure's height.
double draw_circle_legends(svg::Doc& d, const Circle& k, const MemberMarks& marks, const std::set<std::string>& kinds,
                           bool in_kb, const Density& density) {
  const Lang lang = k.lang;
  const double f = k.f;
  double y = 2 * k.cy + 4;
  std::vector<svg::LegendItem> members;
  for (auto& dc : dup_classes())
    if (marks.classes.count(dc.key)) members.push_back({dc.label.in(lang), dc.colour});
  const double col2 = k.width / 2 + 10;
  double left_h =
      d.legend(12, y, members, "classes", BiText{"Members by duplication type", "成员的复制类型"}.in(lang), f);
  std::vector<svg::LegendItem> links;
  if (kinds.count("segmental"))
    links.push_back(
        {BiText{"segmental/WGD pair (collinear)", "片段/全基因组复制对（共线）"}.in(lang), kSegmental, "line"});
  if (kinds.count("tandem")) links.push_back({BiText{"tandem pair", "串联重复对"}.in(lang), kTandemLink, "line"});
  if (!k.c.blocks.empty())
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
  if (density.drawn) {
    RoundTicks dt = round_ticks(density.max_count, 4);
    const int max_count = density.max_count;
    y += d.colour_bar(
        12, y, 200, [&](double v) { return svg::sequential(v, max_count); }, 0, dt.values.back(), dt.values,
        [&](double v) { return tick_label(v, 0); },
        BiText{"Genes per " + length_text(double(density.bin)) + " (inner track)",
               "每 " + length_text(double(density.bin)) + " 的基因数（内圈）"}
            .in(lang),
        "density", f);
  }
  if (!marks.names_fit && marks.members > 0) {
    d.text(12, y + f,
           BiText{"Member names are not drawn: " + std::to_string(marks.members) + " do not fit around the circle.",
                  "成员名称未画出：" + std::to_string(marks.members) + " 个名称在圆周上放不下。"}
               .in(lang),
           f);
    y += f * 1.6;
  }
  return y + 8;
}

}  // namespace

std::string synteny_circle(Lang lang, const Circos& c, const std::string& title) {
  const Circle k = circle_of(lang, c);
  svg::Doc d(k.width, 0, title);
  const bool in_kb = draw_ideograms(d, k);
  const Density density = draw_density(d, k);
  draw_blocks(d, k);
  const auto kinds = draw_links(d, k);
  const MemberMarks marks = draw_members(d, k);
  d.set_size(k.width, draw_circle_legends(d, k, marks, kinds, in_kb, density));
  return d.str();
}

namespace {

using TrackLayout = std::map<std::string, std::pair<double, double>>;  // chromosome -> (x, pixels per base)

// A genome's chromosomes side by side along a track from `left`, `track` wide, `gapx` apart.
TrackLayout track_layout(const Genome& g, double left, double track, double gapx) {
  int64_t total = 0;
  for (auto& [c, len] : g.chromosomes) total += std::max<int64_t>(1, len);
  const double usable = track - gapx * double(std::max<size_t>(1, g.chromosomes.size()) - 1);
  TrackLayout at;
  double x = left;
  for (auto& [c, len] : g.chromosomes) {
    const double scale = usable / double(std::max<int64_t>(1, total));
    at[c] = {x, scale};
    x += scale * double(std::max<int64_t>(1, len)) + gapx;
  }
  return at;
}

// What the dual-synteny plot's steps share: the two genomes (chromosomes in natural order) on their tracks.
struct DualPlot {
  Genome top, bottom;
  double name_w = 0, left = 0, width = 700, track = 0, f = 10, gapx = 6;
  double y_names = 12, y_top = 0, y_bottom = 0;
  TrackLayout ta, ba;

  // A pair's x on the top and on the bottom track (none when a chromosome is not drawn).
  std::optional<std::pair<double, double>> xy(const SyntenyPair& p) const {
    auto a = ta.find(p.chr_a);
    auto b = ba.find(p.chr_b);
    if (a == ta.end() || b == ba.end()) return std::nullopt;
    return std::pair{a->second.first + a->second.second * double(p.pos_a),
                     b->second.first + b->second.second * double(p.pos_b)};
  }
};

DualPlot dual_plot_of(const Genome& top, const Genome& bottom, const std::vector<SyntenyPair>& pairs) {
  DualPlot k{top, bottom};
  k.top.chromosomes = naturally_ordered(k.top.chromosomes);
  k.bottom.chromosomes = naturally_ordered(k.bottom.chromosomes);
  for (auto& p : pairs)
    if (p.family) k.name_w = std::max(k.name_w, text_width(p.name, 10));
  k.left = 14 + std::max({60.0, text_width(k.top.species, 10), text_width(k.bottom.species, 10)});
  k.track = k.width - k.left - 14, k.f = print_font(k.width);
  k.y_top = k.y_names + k.name_w + 24, k.y_bottom = k.y_top + 190;
  k.ta = track_layout(k.top, k.left, k.track, k.gapx), k.ba = track_layout(k.bottom, k.left, k.track, k.gapx);
  return k;
}

// The collinear pairs (grey) and the family's pairs on top (coloured); true when a family pair was drawn.
bool draw_pair_links(svg::Doc& d, const DualPlot& k, const std::vector<SyntenyPair>& pairs) {
  auto link = [&](const SyntenyPair& p, const char* colour, double w, const char* claim) {
    auto x = k.xy(p);
    if (!x) return;
    const double y1 = k.y_top + 6, y2 = k.y_bottom - 6, ym = (y1 + y2) / 2;
    d.path("M" + svg::num(x->first) + "," + svg::num(y1) + " C" + svg::num(x->first) + "," + svg::num(ym) + " " +
               svg::num(x->second) + "," + svg::num(ym) + " " + svg::num(x->second) + "," + svg::num(y2),
           colour, w, "none", claim);
  };
  bool family = false;
  for (auto& p : pairs)
    if (!p.family) link(p, "#C8C8C8", 0.5, "");
  for (auto& p : pairs)
    if (p.family) link(p, "#D55E00", 1.4, "data-claim=\"family-pairs\""), family = true;
  return family;
}

// A genome's species name and chromosomes on its track at `y`, each named below when its name fits.
void draw_track(svg::Doc& d, const DualPlot& k, const Genome& g, const TrackLayout& at, double y) {
  d.text(k.left - 8, y + k.f * 0.35, g.species, k.f, "end", "font-style=\"italic\"");
  for (auto& [c, len] : g.chromosomes) {
    auto [x, s] = at.at(c);
    const double w = s * double(std::max<int64_t>(1, len));
    d.rect(x, y - 6, w, 12, "#D9D9D9", "#555555", "rx=\"4\" stroke-width=\"0.6\"");
    if (text_width(c, k.f) < w + k.gapx) d.text(x + w / 2, y + 6 + k.f * 1.1, c, k.f, "middle");
  }
}

// The family's names above the top genome, spread apart, leaders to their genes.
void draw_family_names(svg::Doc& d, const DualPlot& k, const std::vector<SyntenyPair>& pairs) {
  const double f = k.f;
  std::vector<std::pair<double, std::string>> names;
  for (auto& p : pairs)
    if (p.family && !p.name.empty())
      if (auto x = k.xy(p); x && std::none_of(names.begin(), names.end(), [&](auto& n) { return n.second == p.name; }))
        names.push_back({x->first, p.name});
  std::sort(names.begin(), names.end());
  std::vector<double> want;
  for (auto& n : names) want.push_back(n.first);
  const auto at = spread_labels(want, f + 1, k.left, k.left + k.track);
  for (size_t i = 0; i < names.size(); ++i) {
    const double ly = k.y_names + k.name_w + 6;
    d.path(
        "M" + svg::num(names[i].first) + "," + svg::num(k.y_top - 6) + " L" + svg::num(at[i]) + "," + svg::num(ly + 2),
        "#999999", 0.5);
    d.text(at[i] + f * 0.35, ly, names[i].second, f, "start",
           "data-gene=\"1\" transform=\"rotate(-90 " + svg::num(at[i] + f * 0.35) + " " + svg::num(ly) + ")\"");
  }
}

}  // namespace

std::string dual_synteny(Lang lang, const Genome& top, const Genome& bottom, const std::vector<SyntenyPair>& pairs,
                         const std::string& title) {
  const DualPlot k = dual_plot_of(top, bottom, pairs);
  svg::Doc d(k.width, 0, title);
  const bool family = draw_pair_links(d, k, pairs);
  draw_track(d, k, k.top, k.ta, k.y_top);
  draw_track(d, k, k.bottom, k.ba, k.y_bottom);
  draw_family_names(d, k, pairs);
  std::vector<svg::LegendItem> items = {{BiText{"collinear gene pairs", "共线性基因对"}.in(lang), "#C8C8C8", "line"}};
  if (family)
    items.insert(items.begin(), {BiText{"family member pairs", "家族成员基因对"}.in(lang), "#D55E00", "line"});
  const double h = d.legend(k.left, k.y_bottom + k.f * 2.6, items, "pairs", "", k.f);
  d.set_size(k.width, k.y_bottom + k.f * 2.6 + h + 8);
  return d.str();
}

}  // namespace bioagent::figures
