// The paper figures (see figures_paper.h): renaming, the combined panel,
// labelled chromosome map, dual synteny and the Ks distribution.
#include "genefamily/figures/figures_paper.h"

#include "genefamily/figures/palette.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <set>
#include <sstream>

#include "figures/svg.h"

namespace bioagent::figures {
namespace {

constexpr double kPi = 3.14159265358979323846;

std::string bold() { return "font-weight=\"bold\""; }

// A title line that fits: the document is at least this wide.
double titled_width(const std::string& title, double width) { return std::max(width, text_width(title, 14) + 40); }

}  // namespace

const char* distinct_colour(size_t i) {
  static const char* k[] = {"#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9",
                            "#F0E442", "#7F3C8D", "#11A579", "#3969AC", "#E73F74", "#80BA5A"};
  return k[i % 12];
}

double text_width(const std::string& s, double size) {
  // DejaVu Sans advances are at most ~0.72 em for capitals, ~0.6 for lower case; a CJK character (a
  // three- or four-byte UTF-8 sequence) is a full em; a continuation byte adds nothing.
  double units = 0;
  for (unsigned char c : s)
    units += c >= 0xE0                                        ? 1.0
             : c >= 0xC0                                      ? 0.6
             : c >= 0x80                                      ? 0.0
             : (c >= 'A' && c <= 'Z') || c == 'W' || c == 'm' ? 0.72
                                                              : 0.6;
  return units * size;
}

Result<std::string> rooted_tree_figure(Lang lang, const NewickTree& t, const std::vector<std::string>& outgroup,
                                       const std::map<std::string, std::string>& subfamily, const std::string& title) {
  if (outgroup.empty())
    return tree(lang, midpoint_rooted(t), subfamily, false,
                title + BiText{" (midpoint-rooted)", "（中点定根）"}.in(lang));
  auto rooted = outgroup_rooted(t, outgroup);
  if (!rooted) return rooted.status();
  return tree(lang, *rooted, subfamily, false,
              title + BiText{" (rooted on " + std::to_string(outgroup.size()) + " outgroup members)",
                             "（以 " + std::to_string(outgroup.size()) + " 个外类群成员定根）"}
                          .in(lang));
}

std::vector<Renamed> rename_by_chromosome_order(const std::vector<Placed>& genes,
                                                const std::vector<std::string>& chromosome_order,
                                                const std::string& prefix, const std::string& family) {
  std::map<std::string, size_t> rank;
  for (size_t i = 0; i < chromosome_order.size(); ++i) rank.emplace(chromosome_order[i], i);
  std::vector<Renamed> out;
  for (auto& g : genes) out.push_back({g.gene, "", g.seqid, g.start});
  std::stable_sort(out.begin(), out.end(), [&](const Renamed& a, const Renamed& b) {
    size_t ra = rank.count(a.seqid) ? rank[a.seqid] : rank.size(),
           rb = rank.count(b.seqid) ? rank[b.seqid] : rank.size();
    return std::tie(ra, a.seqid, a.start, a.gene) < std::tie(rb, b.seqid, b.start, b.gene);
  });
  for (size_t i = 0; i < out.size(); ++i) out[i].name = prefix + family + std::to_string(i + 1);
  return out;
}

std::string renaming_table(const std::vector<Renamed>& renamed) {
  std::ostringstream o;
  o << "new_name\tgene\tseqid\tstart\n";
  for (auto& r : renamed) o << r.name << '\t' << r.gene << '\t' << r.seqid << '\t' << r.start << '\n';
  return o.str();
}

std::string combined_panel(Lang lang, const NewickTree& rooted, const std::map<std::string, std::string>& subfamily,
                           const std::map<std::string, PanelRow>& rows, const std::string& title) {
  TreeLayout tr = tree_layout(rooted);
  const double row = 20, top = 64, tree_w = 200, name_w = 150, col_w = 260, gap = 24;
  const double x_tree = 20, x_names = x_tree + tree_w + 6, x_motif = x_names + name_w, x_domain = x_motif + col_w + gap,
               x_gene = x_domain + col_w + gap;
  std::map<std::string, std::string> sub_colour, motif_colour, domain_colour;
  for (auto& [leaf, s] : subfamily)
    if (!sub_colour.count(s)) sub_colour[s] = distinct_colour(sub_colour.size());
  int64_t max_protein = 1, max_gene = 1;
  for (auto& [g, r] : rows) {
    max_protein = std::max(max_protein, r.protein_length);
    max_gene = std::max(max_gene, r.gene_length);
    for (auto& m : r.motifs)
      if (!motif_colour.count(m.label)) motif_colour[m.label] = "";
    for (auto& d : r.domains)
      if (!domain_colour.count(d.label)) domain_colour[d.label] = "";
  }
  // Motifs keep the colour the motif map and the logos give them (palette.h); domains draw from their own list.
  for (auto& [k, c] : motif_colour) c = figures::motif_colour(k);
  size_t ci = 0;
  for (auto& [k, c] : domain_colour) c = figures::domain_colour(ci++);
  size_t n = std::max<size_t>(1, tr.leaves.size());
  double legend_rows = double(std::max({motif_colour.size(), domain_colour.size(), sub_colour.size(), size_t(1)}));
  double width = titled_width(title, x_gene + col_w + 30);
  svg::Doc d(width, top + row * double(n) + 40 + 16 * legend_rows + 30, title);
  d.text(20, 24, title, 14, "start", bold());
  for (auto [x, label] : {std::pair<double, std::string>{x_tree, BiText{"Phylogeny", "系统发育树"}.in(lang)},
                          {x_motif, BiText{"Conserved motifs", "保守基序"}.in(lang)},
                          {x_domain, BiText{"Domains", "结构域"}.in(lang)},
                          {x_gene, BiText{"Gene structure (exons)", "基因结构（外显子）"}.in(lang)}})
    d.text(x, 48, label, 11, "start", bold());
  auto X = [&](double depth) { return x_tree + depth / tr.max_depth * tree_w; };
  auto Y = [&](double pos) { return top + pos * row + row / 2; };
  for (size_t i = 1; i < rooted.nodes.size(); ++i) {
    int p = rooted.nodes[i].parent;
    if (p < 0) continue;
    d.line(X(tr.depth[size_t(p)]), Y(tr.pos[i]), X(tr.depth[i]), Y(tr.pos[i]), "#444444", 1.2);
    d.line(X(tr.depth[size_t(p)]), Y(tr.pos[size_t(p)]), X(tr.depth[size_t(p)]), Y(tr.pos[i]), "#444444", 1.2);
  }
  auto bar = [&](double x0, double y, double w, int64_t from, int64_t to, int64_t len, const std::string& fill) {
    double a = x0 + w * double(from - 1) / double(len), b = x0 + w * double(to) / double(len);
    d.rect(a, y - 6, std::max(1.0, b - a), 12, fill, "#333333", "stroke-width=\"0.4\"");
  };
  for (size_t k = 0; k < tr.leaves.size(); ++k) {
    const std::string& name = rooted.nodes[size_t(tr.leaves[k])].name;
    double y = Y(double(k));
    auto sf = subfamily.find(name);
    std::string colour = sf == subfamily.end() ? "#333333" : sub_colour[sf->second];
    d.line(X(tr.depth[size_t(tr.leaves[k])]), y, x_names - 4, y, "#bbbbbb", 0.6, "stroke-dasharray=\"2,2\"");
    d.text(x_names, y + 4, name, 10, "start", "fill=\"" + colour + "\"");
    auto it = rows.find(name);
    if (it == rows.end()) continue;
    const PanelRow& r = it->second;
    if (r.protein_length > 0) {
      double w = col_w * double(r.protein_length) / double(max_protein);
      d.line(x_motif, y, x_motif + w, y, "#666666", 1.5);
      d.line(x_domain, y, x_domain + w, y, "#666666", 1.5);
      for (auto& m : r.motifs) bar(x_motif, y, w, m.start, m.end, r.protein_length, motif_colour[m.label]);
      for (auto& s : r.domains) bar(x_domain, y, w, s.start, s.end, r.protein_length, domain_colour[s.label]);
    }
    if (r.gene_length > 0) {
      double w = col_w * double(r.gene_length) / double(max_gene);
      d.line(x_gene, y, x_gene + w, y, "#666666", 1);  // introns
      for (auto& e : r.exons) bar(x_gene, y, w, e.start, e.end, r.gene_length, "#F0E442");
    }
  }
  double ly = top + row * double(n) + 30;
  auto legend = [&](double x, const std::string& head, const std::map<std::string, std::string>& c) {
    if (c.empty()) return;  // nothing to name (e.g. no subfamilies without references)
    d.text(x, ly, head, 10, "start", bold());
    std::vector<std::pair<std::string, std::string>> items(c.begin(), c.end());
    std::stable_sort(items.begin(), items.end(), [](auto& a, auto& b) {  // MEME-2 before MEME-10
      return std::make_pair(a.first.size(), a.first) < std::make_pair(b.first.size(), b.first);
    });
    d.legend(x, ly + 8, items);
  };
  legend(x_tree, BiText{"Subfamilies", "亚家族"}.in(lang), sub_colour);
  legend(x_motif, BiText{"Motifs", "基序"}.in(lang), motif_colour);
  legend(x_domain, BiText{"Domains", "结构域"}.in(lang), domain_colour);
  d.text(x_gene, ly,
         BiText{"Scale: " + std::to_string(max_protein) + " aa (motifs, domains); " + std::to_string(max_gene) +
                    " bp (genes)",
                "比例尺：" + std::to_string(max_protein) + " aa（基序、结构域）；" + std::to_string(max_gene) +
                    " bp（基因）"}
             .in(lang),
         9);
  return d.str();
}

std::vector<double> spread_labels(const std::vector<double>& wanted, double gap, double lo, double hi) {
  std::vector<size_t> order(wanted.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return wanted[a] < wanted[b]; });
  std::vector<double> y(wanted.size());
  double prev = lo - gap;
  for (size_t i : order) prev = y[i] = std::max(wanted[i], prev + gap);  // push down past the previous label
  double over = wanted.empty() ? 0 : y[order.back()] - hi;
  if (over > 0)  // shift up from the bottom, keeping the gaps
    for (size_t k = order.size(); k-- > 0;) {
      double limit = k + 1 < order.size() ? y[order[k + 1]] - gap : hi;
      y[order[k]] = std::min(y[order[k]], limit);
    }
  return y;
}

std::string chromosome_map_labelled(const std::vector<std::pair<std::string, int64_t>>& chromosomes,
                                    const std::vector<Placed>& genes, const std::string& title) {
  int64_t longest = 1;
  for (auto& [c, len] : chromosomes) longest = std::max(longest, len);
  // Columns wide enough for the longest label; tall enough for the most crowded chromosome's labels.
  double widest = 0, crowded = 0;
  std::map<std::string, size_t> per_chr;
  for (auto& g : genes) {
    widest = std::max(widest, text_width(g.gene, 9));
    crowded = std::max(crowded, double(++per_chr[g.seqid]));
  }
  const double top = 60, label_gap = 11, height = std::max(420.0, label_gap * crowded),
               col = std::max(150.0, 40 + widest);
  double width = titled_width(title, 40 + col * double(std::max<size_t>(1, chromosomes.size())));
  svg::Doc d(width, top + height + 50, title);
  d.text(20, 24, title, 14, "start", bold());
  for (size_t i = 0; i < chromosomes.size(); ++i) {
    auto& [name, len] = chromosomes[i];
    double x = 40 + col * double(i), h = height * double(len) / double(longest);
    d.rect(x, top, 12, h, "#dddddd", "#555555", "rx=\"6\"");
    d.text(x + 6, top + h + 18, name, 10, "middle");
    std::vector<const Placed*> on;
    for (auto& g : genes)
      if (g.seqid == name) on.push_back(&g);
    std::vector<double> want;
    for (auto* g : on) want.push_back(top + h * double(g->start) / double(std::max<int64_t>(1, len)));
    auto at = spread_labels(want, label_gap, top, top + std::max(h, label_gap * double(on.size())));
    for (size_t k = 0; k < on.size(); ++k) {
      std::string colour = on[k]->cluster >= 0 ? "#D55E00" : "#0072B2";
      d.line(x, want[k], x + 12, want[k], colour, 1.5);
      d.line(x + 12, want[k], x + 26, at[k], "#999999", 0.6);
      d.text(x + 28, at[k] + 3.5, on[k]->gene, 9, "start", "fill=\"" + colour + "\"");
    }
  }
  return d.str();
}

std::string dual_synteny(Lang lang, const Genome& top, const Genome& bottom, const std::vector<SyntenyPair>& pairs,
                         const std::string& title) {
  const double left = 20 + std::max({90.0, text_width(top.species, 11), text_width(bottom.species, 11)}), track = 900,
               y_top = 80, y_bottom = 300, gapx = 8;
  auto layout = [&](const Genome& g) {
    int64_t total = 0;
    for (auto& [c, len] : g.chromosomes) total += std::max<int64_t>(1, len);
    double usable = track - gapx * double(std::max<size_t>(1, g.chromosomes.size()) - 1);
    std::map<std::string, std::pair<double, double>> at;  // chr -> (x, pixels per base)
    double x = left;
    for (auto& [c, len] : g.chromosomes) {
      double scale = usable / double(std::max<int64_t>(1, total));
      at[c] = {x, scale};
      x += scale * double(std::max<int64_t>(1, len)) + gapx;
    }
    return at;
  };
  auto ta = layout(top), ba = layout(bottom);
  svg::Doc d(titled_width(title, left + track + 40), y_bottom + 70, title);
  d.text(20, 24, title, 14, "start", bold());
  auto draw_genome = [&](const Genome& g, const std::map<std::string, std::pair<double, double>>& at, double y,
                         bool label_above) {
    d.text(left - 10, y + 5, g.species, 11, "end", "font-style=\"italic\"");
    for (auto& [c, len] : g.chromosomes) {
      auto [x, s] = at.at(c);
      d.rect(x, y - 6, s * double(std::max<int64_t>(1, len)), 12, "#cccccc", "#555555", "rx=\"4\"");
      d.text(x + s * double(len) / 2, label_above ? y - 12 : y + 22, c, 9, "middle");
    }
  };
  auto link = [&](const SyntenyPair& p, const std::string& colour, double width) {
    auto a = ta.find(p.chr_a);
    auto b = ba.find(p.chr_b);
    if (a == ta.end() || b == ba.end()) return;
    double x1 = a->second.first + a->second.second * double(p.pos_a),
           x2 = b->second.first + b->second.second * double(p.pos_b), y1 = y_top + 6, y2 = y_bottom - 6,
           ym = (y1 + y2) / 2;
    d.path("M" + svg::num(x1) + "," + svg::num(y1) + " C" + svg::num(x1) + "," + svg::num(ym) + " " + svg::num(x2) +
               "," + svg::num(ym) + " " + svg::num(x2) + "," + svg::num(y2),
           colour, width);
  };
  for (auto& p : pairs)
    if (!p.family) link(p, "#d9d9d9", 0.5);
  for (auto& p : pairs)
    if (p.family) link(p, "#D55E00", 1.4);
  draw_genome(top, ta, y_top, true);
  draw_genome(bottom, ba, y_bottom, false);
  d.line(left, y_bottom + 44, left + 20, y_bottom + 44, "#D55E00", 1.4);
  d.text(left + 26, y_bottom + 48, BiText{"family member pairs", "家族成员基因对"}.in(lang), 9);
  d.line(left + 170, y_bottom + 44, left + 190, y_bottom + 44, "#bbbbbb", 1);
  d.text(left + 196, y_bottom + 48, BiText{"collinear gene pairs", "共线性基因对"}.in(lang), 9);
  return d.str();
}

std::vector<KsPeak> ks_peaks(const std::vector<double>& ks, double max_ks) {
  std::vector<double> v;
  for (double k : ks)
    if (std::isfinite(k) && k >= 0 && k <= max_ks) v.push_back(k);
  if (v.size() < kMinPairsForKsPeaks) return {};
  double mean = 0, var = 0;
  for (double k : v) mean += k;
  mean /= double(v.size());
  for (double k : v) var += (k - mean) * (k - mean);
  double sd = std::sqrt(var / double(v.size() - 1));
  std::sort(v.begin(), v.end());
  double iqr = v[v.size() * 3 / 4] - v[v.size() / 4];
  double spread = std::min(sd, iqr > 0 ? iqr / 1.34 : sd);
  double h = 0.9 * (spread > 0 ? spread : 0.05) * std::pow(double(v.size()), -0.2);  // Silverman
  const int grid = 300;
  std::vector<double> dens(grid + 1);
  for (int i = 0; i <= grid; ++i) {
    double x = max_ks * i / grid, s = 0;
    for (double k : v) s += std::exp(-0.5 * ((x - k) / h) * ((x - k) / h));
    dens[size_t(i)] = s / (double(v.size()) * h * std::sqrt(2 * kPi));
  }
  double top = *std::max_element(dens.begin(), dens.end());
  std::vector<KsPeak> out;
  for (int i = 1; i < grid; ++i)
    if (dens[size_t(i)] > dens[size_t(i - 1)] && dens[size_t(i)] >= dens[size_t(i + 1)] && dens[size_t(i)] >= top / 10)
      out.push_back({max_ks * i / grid, dens[size_t(i)]});
  return out;
}

std::string ks_distribution(Lang lang, const std::vector<double>& ks, const std::string& title, double max_ks,
                            const std::vector<double>& marked) {
  const double left = 60, width = 560, top = 70, height = 260, bins = 30;
  std::vector<int> count(size_t(bins), 0);
  size_t used = 0, outside = 0;
  for (double k : ks) {
    if (!std::isfinite(k) || k < 0 || k > max_ks) {
      ++outside;
      continue;
    }
    ++count[std::min(size_t(bins) - 1, size_t(k / max_ks * bins))];
    ++used;
  }
  int most = std::max(1, *std::max_element(count.begin(), count.end()));
  svg::Doc d(titled_width(title, left + width + 40), top + height + 70, title);
  d.text(20, 24, title, 14, "start", bold());
  auto X = [&](double k) { return left + k / max_ks * width; };
  auto Y = [&](double c) { return top + height - c / most * height; };
  for (size_t b = 0; b < count.size(); ++b)
    d.rect(X(max_ks * double(b) / bins), Y(count[b]), width / bins - 1, height - (Y(count[b]) - top), "#56B4E9");
  d.line(left, top + height, left + width, top + height, "#000000");
  d.line(left, top, left, top + height, "#000000");
  for (int t = 0; t <= 6; ++t) {
    double k = max_ks * t / 6;
    d.text(X(k), top + height + 14, svg::num(k).substr(0, 4), 9, "middle");
  }
  d.text(left + width / 2, top + height + 32,
         BiText{"Ks (synonymous substitutions per site)", "Ks（每个同义位点的替换数）"}.in(lang), 10, "middle");
  d.text(left - 8, top + 6, std::to_string(most), 9, "end");
  d.text(left - 8, top + height, "0", 9, "end");
  // Peaks: a dashed line at each, its label in a row above the plot (a second
  // row when two labels would touch). Too few pairs show no peak, and the figure says so.
  if (used < kMinPairsForKsPeaks)
    d.text(left + 8, top + 12,
           BiText{"no peak marked: " + std::to_string(used) + " pairs, a peak needs at least " +
                      std::to_string(kMinPairsForKsPeaks),
                  "未标峰：仅 " + std::to_string(used) + " 对，至少需要 " + std::to_string(kMinPairsForKsPeaks) +
                      " 对才能判断峰"}
               .in(lang),
           9, "start", "fill=\"#777777\"");
  double last_end[2] = {-1e9, -1e9};
  for (auto& p : ks_peaks(ks, max_ks)) {
    std::string label = BiText{"peak Ks ", "峰值 Ks "}.in(lang) + svg::num(p.ks);
    double w = text_width(label, 9), x = X(p.ks);
    int row_i = x - w / 2 > last_end[0] + 4 ? 0 : 1;
    last_end[row_i] = x + w / 2;
    double y = top - 22 + 11 * row_i;
    d.line(x, y + 3, x, top + height, "#D55E00", 1.2, "stroke-dasharray=\"4,3\"");
    d.text(x, y, label, 9, "middle", "fill=\"#D55E00\"");
  }
  // Marked pairs (e.g. the family's): a red tick each along the foot of the bars.
  size_t shown = 0;
  for (double k : marked)
    if (std::isfinite(k) && k >= 0 && k <= max_ks) {
      d.line(X(k), top + height - 14, X(k), top + height, "#CC0000", 1.5);
      ++shown;
    }
  if (!marked.empty())
    d.text(left + width, top + height + 52,
           BiText{"red ticks: " + std::to_string(shown) + " family pairs",
                  "红色刻线：" + std::to_string(shown) + " 对家族基因"}
               .in(lang),
           9, "end", "fill=\"#CC0000\"");
  d.text(left, top + height + 52,
         BiText{std::to_string(used) + " pairs; " + std::to_string(outside) + " not estimated or above Ks " +
                    svg::num(max_ks).substr(0, 4) + " (saturated) left out",
                std::to_string(used) + " 对；" + std::to_string(outside) + " 对未估计或 Ks 高于 " +
                    svg::num(max_ks).substr(0, 4) + "（饱和）未计入"}
             .in(lang),
         9);
  return d.str();
}

}  // namespace bioagent::figures
