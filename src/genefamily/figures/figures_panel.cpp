// The combined figure and its columns drawn alone (see figures.h): the rooted
// tree beside motifs, domains and gene structures; gene structures; the motif
// map; motif logos.
#include <algorithm>
#include <cmath>

#include "genefamily/algo/natural_order.h"
#include "genefamily/figures/figures_paper.h"
#include "genefamily/figures/palette.h"

namespace bioagent::figures {
namespace {

std::string bold() { return "font-weight=\"bold\""; }

// A scale bar of a round length (1, 2 or 5 times a power of ten) at most `most` units long, `px` pixels per
// unit; labelled "<n> <unit>".
void scale_bar(svg::Doc& d, double x, double y, double most, double px, const std::string& unit, double f) {
  double power = std::pow(10.0, std::floor(std::log10(std::max(1e-9, most)))), len = power;
  for (double m : {1.0, 2.0, 5.0})
    if (m * power <= most) len = m * power;
  d.line(x, y, x + len * px, y, "#000000", 1.2, "data-claim=\"scale-bar\"");
  d.line(x, y - 3, x, y + 3, "#000000", 1);
  d.line(x + len * px, y - 3, x + len * px, y + 3, "#000000", 1);
  char b[32];
  std::snprintf(b, sizeof b, "%g %s", len, unit.c_str());
  d.text(x + len * px + 5, y + f * 0.35, b, f);
}

// Motif labels in their numbers' order (motif 2 before motif 10).
std::vector<svg::LegendItem> motif_items(const std::map<std::string, std::string>& colour) {
  std::vector<svg::LegendItem> items;
  for (auto& [label, c] : colour) items.push_back({label, c});
  std::sort(items.begin(), items.end(), [](auto& a, auto& b) { return natural_less(a.label, b.label); });
  return items;
}

std::vector<svg::LegendItem> structure_items(Lang lang, bool utrs) {
  std::vector<svg::LegendItem> items = {{BiText{"CDS (exon)", "CDS（外显子）"}.in(lang), cds_colour()}};
  if (utrs) items.push_back({"UTR", utr_colour()});
  items.push_back({BiText{"intron", "内含子"}.in(lang), "#666666", "line"});
  return items;
}

}  // namespace

std::string motif_label(size_t n) { return "motif " + std::to_string(n + 1); }

std::string combined_panel(Lang lang, const NewickTree& rooted, const std::map<std::string, std::string>& subgroup,
                           const std::map<std::string, PanelRow>& rows, const std::string& title) {
  const TreeLayout tr = tree_layout(rooted);
  double name_w = 0;
  for (int leaf : tr.leaves) name_w = std::max(name_w, text_width(rooted.nodes[size_t(leaf)].name, 10));
  const double tree_w = 140, col_w = 165, gene_w = 175, gap = 14, row = 16, top = 26;
  const double x_tree = 8, x_names = x_tree + tree_w + 4, x_motif = x_names + name_w + 10,
               x_domain = x_motif + col_w + gap, x_gene = x_domain + col_w + gap, width = x_gene + gene_w + 10;
  const double f = print_font(width);
  std::map<std::string, std::string> sub_colour, motif_col, domain_col;
  {
    std::vector<std::string> groups;
    for (auto& [leaf, g] : subgroup)
      if (std::find(groups.begin(), groups.end(), g) == groups.end()) groups.push_back(g);
    std::sort(groups.begin(), groups.end(), [](auto& a, auto& b) { return natural_less(a, b); });
    for (size_t i = 0; i < groups.size(); ++i) sub_colour[groups[i]] = distinct_colour(i);
  }
  int64_t max_protein = 1, max_gene = 1;
  bool utrs = false, any_gene = false;
  for (auto& [g, r] : rows) {
    max_protein = std::max(max_protein, r.protein_length);
    max_gene = std::max(max_gene, r.gene_length);
    any_gene |= r.gene_length > 0;
    utrs |= !r.utrs.empty();
    for (auto& m : r.motifs) motif_col[m.label] = motif_colour(m.label);
    for (auto& s : r.domains) domain_col.emplace(s.label, "");
  }
  size_t ci = 0;
  for (auto& [k, c] : domain_col) c = domain_colour(ci++);
  const size_t n = std::max<size_t>(1, tr.leaves.size());
  svg::Doc d(width, 0, title);
  for (auto [x, label] : {std::pair<double, std::string>{x_tree, BiText{"Phylogeny", "系统发育树"}.in(lang)},
                          {x_motif, BiText{"Conserved motifs", "保守基序"}.in(lang)},
                          {x_domain, BiText{"Domains", "结构域"}.in(lang)},
                          {x_gene, BiText{"Gene structure", "基因结构"}.in(lang)}})
    d.text(x, 16, label, f, "start", bold());
  auto X = [&](double depth) { return x_tree + depth / tr.max_depth * tree_w; };
  auto Y = [&](double pos) { return top + pos * row + row / 2; };
  for (size_t i = 1; i < rooted.nodes.size(); ++i) {
    const int p = rooted.nodes[i].parent;
    if (p < 0) continue;
    d.line(X(tr.depth[size_t(p)]), Y(tr.pos[i]), X(tr.depth[i]), Y(tr.pos[i]), "#333333", 1);
    d.line(X(tr.depth[size_t(p)]), Y(tr.pos[size_t(p)]), X(tr.depth[size_t(p)]), Y(tr.pos[i]), "#333333", 1);
  }
  auto bar = [&](double x0, double y, double px, int64_t from, int64_t to, const std::string& fill, double h,
                 const std::string& extra = "") {
    const double a = x0 + px * double(from - 1), b = x0 + px * double(to);
    d.rect(a, y - h / 2, std::max(1.0, b - a), h, fill, "#333333", "stroke-width=\"0.3\" " + extra);
  };
  const double aa_px = col_w / double(max_protein), bp_px = gene_w / double(max_gene);
  for (size_t k = 0; k < tr.leaves.size(); ++k) {
    const std::string& name = rooted.nodes[size_t(tr.leaves[k])].name;
    const double y = Y(double(k));
    auto sg = subgroup.find(name);
    const bool ref = name.rfind("REF_", 0) == 0;
    const std::string colour = sg != subgroup.end() ? sub_colour[sg->second] : ref ? "#777777" : "#222222";
    d.line(X(tr.depth[size_t(tr.leaves[k])]), y, x_names - 3, y, "#cccccc", 0.5, "stroke-dasharray=\"1,2\"");
    d.text(x_names, y + f * 0.35, ref ? name.substr(4) : name, f, "start",
           "fill=\"" + colour + "\"" + (ref ? std::string(" font-style=\"italic\"") : std::string(" data-gene=\"1\"")) +
               (sg != subgroup.end() ? " data-claim=\"subgroups\"" : ""));
    auto it = rows.find(name);
    if (it == rows.end()) continue;
    const PanelRow& r = it->second;
    if (r.protein_length > 0) {
      d.line(x_motif, y, x_motif + aa_px * double(r.protein_length), y, "#666666", 1.2);
      d.line(x_domain, y, x_domain + aa_px * double(r.protein_length), y, "#666666", 1.2);
      for (auto& m : r.motifs) bar(x_motif, y, aa_px, m.start, m.end, motif_col[m.label], 10);
      for (auto& s : r.domains) bar(x_domain, y, aa_px, s.start, s.end, domain_col[s.label], 10);
    }
    if (r.gene_length > 0) {
      d.line(x_gene, y, x_gene + bp_px * double(r.gene_length), y, "#666666", 1);
      for (auto& u : r.utrs) bar(x_gene, y, bp_px, u.start, u.end, utr_colour(), 7);
      for (auto& e : r.cds) bar(x_gene, y, bp_px, e.start, e.end, cds_colour(), 10);
    }
  }
  // Scale bars, then each column's legend under it.
  const double sy = Y(double(n)) + 4;
  scale_bar(d, x_motif, sy, double(max_protein) / 3, aa_px, "aa", f);
  scale_bar(d, x_domain, sy, double(max_protein) / 3, aa_px, "aa", f);
  if (any_gene) scale_bar(d, x_gene, sy, double(max_gene) / 1000 / 3, bp_px * 1000, "kb", f);
  const double ly = sy + f + 10;
  double tallest = 0;
  if (!sub_colour.empty()) {
    std::vector<svg::LegendItem> items;
    for (auto& [g, c] : sub_colour) items.push_back({g, c});
    std::sort(items.begin(), items.end(), [](auto& a, auto& b) { return natural_less(a.label, b.label); });
    tallest = std::max(tallest, d.legend(x_tree, ly, items, "subgroups", BiText{"Subgroups", "亚组"}.in(lang), f));
  }
  tallest =
      std::max(tallest, d.legend(x_motif, ly, motif_items(motif_col), "motifs", BiText{"Motifs", "基序"}.in(lang), f));
  std::vector<svg::LegendItem> domains;
  for (auto& [label, c] : domain_col) domains.push_back({label, c});
  tallest = std::max(tallest, d.legend(x_domain, ly, domains, "domains", BiText{"Domains", "结构域"}.in(lang), f));
  if (any_gene)
    tallest = std::max(tallest, d.legend(x_gene, ly, structure_items(lang, utrs), "structure",
                                         BiText{"Gene structure", "基因结构"}.in(lang), f));
  d.set_size(width, ly + tallest + 8);
  return d.str();
}

std::string gene_structure(Lang lang, const std::vector<std::string>& genes,
                           const std::map<std::string, const GffTranscript*>& transcript, const std::string& title) {
  int64_t longest = 1;
  double name_w = 0;
  bool utrs = false;
  for (auto& g : genes) {
    name_w = std::max(name_w, text_width(g, 10));
    if (auto it = transcript.find(g); it != transcript.end()) {
      longest = std::max(longest, it->second->end - it->second->start + 1);
      utrs |= !it->second->utr5.empty() || !it->second->utr3.empty();
    }
  }
  const double row = 18, left = 8 + name_w + 10, plot_w = 440, top = 12, width = left + plot_w + 30;
  const double f = print_font(width);
  svg::Doc d(width, 0, title);
  const double kb = double(longest) / 1000;
  const RoundTicks ticks = round_ticks(kb, 5);
  const double px = plot_w / ticks.values.back();  // pixels per kb
  for (size_t i = 0; i < genes.size(); ++i) {
    const double y = top + double(i) * row + row / 2;
    d.text(left - 8, y + f * 0.35, genes[i], f, "end", "data-gene=\"1\"");
    auto it = transcript.find(genes[i]);
    if (it == transcript.end()) continue;
    const GffTranscript& t = *it->second;
    auto X = [&](int64_t pos) {  // the transcript's 5' end on the left, whatever the strand
      const double off = t.strand == '-' ? double(t.end - pos) : double(pos - t.start);
      return left + off / 1000 * px;
    };
    d.line(X(t.start), y, X(t.end), y, "#666666", 1);
    auto boxes = [&](const std::vector<GffSegment>& segs, const char* colour, double h) {
      for (auto& s : segs) {
        const double a = X(s.start), b = X(s.end);
        d.rect(std::min(a, b), y - h / 2, std::fabs(b - a) + 0.5, h, colour);
      }
    };
    boxes(t.utr5, utr_colour(), 7);
    boxes(t.utr3, utr_colour(), 7);
    boxes(t.cds.empty() ? t.exons : t.cds, cds_colour(), 11);
  }
  const double ay = top + double(genes.size()) * row + 4;
  axis(d, "x", true, ay, left, left + plot_w, 0, ticks.values.back(), ticks,
       BiText{"Length from the 5′ end (kb)", "距 5′ 端的长度（kb）"}.in(lang), f);
  const double ly = ay + 8 + 3.2 * f;
  const double h = d.legend(left, ly, structure_items(lang, utrs), "structure", "", f);
  d.set_size(width, ly + h + 8);
  return d.str();
}

std::string motif_map(Lang lang, const std::vector<std::string>& genes, const std::map<std::string, size_t>& length,
                      const std::map<std::string, std::vector<MotifHit>>& hits, const std::vector<Motif>& motifs,
                      const std::string& title) {
  size_t longest = 1;
  double name_w = 0;
  for (auto& [g, l] : length) longest = std::max(longest, l);
  for (auto& g : genes) name_w = std::max(name_w, text_width(g, 10));
  const double row = 18, left = 8 + name_w + 10, plot_w = 420, top = 12;
  const double legend_x = left + plot_w + 18, width = legend_x + text_width(motif_label(9), 10) + 24;
  const double f = print_font(width);
  svg::Doc d(width, 0, title);
  const RoundTicks ticks = round_ticks(double(longest), 5);
  const double px = plot_w / ticks.values.back();
  for (size_t i = 0; i < genes.size(); ++i) {
    const double y = top + double(i) * row + row / 2;
    d.text(left - 8, y + f * 0.35, genes[i], f, "end", "data-gene=\"1\"");
    const double len = double(length.count(genes[i]) ? length.at(genes[i]) : 0);
    d.line(left, y, left + len * px, y, "#666666", 1.2);
    if (auto it = hits.find(genes[i]); it != hits.end())
      for (auto& h : it->second)
        d.rect(left + double(h.start) * px, y - 5, double(motifs[h.motif].width) * px, 10, motif_colour(h.motif),
               "#333333", "stroke-width=\"0.3\"");
  }
  const double ay = top + double(genes.size()) * row + 4;
  axis(d, "x", true, ay, left, left + plot_w, 0, ticks.values.back(), ticks,
       BiText{"Position (amino acids)", "位置（氨基酸）"}.in(lang), f);
  std::vector<svg::LegendItem> items;
  for (size_t k = 0; k < motifs.size(); ++k) items.push_back({motif_label(k), motif_colour(k)});
  const double h = d.legend(legend_x, top, items, "motifs", BiText{"Motifs", "基序"}.in(lang), f);
  d.set_size(width, std::max(ay + 8 + 3.2 * f, top + h) + 8);
  return d.str();
}

}  // namespace bioagent::figures
