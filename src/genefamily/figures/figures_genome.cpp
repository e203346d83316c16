// The figures of the genome (see figures.h): the chromosome map with its Mb
// ruler, the circos-style synteny circle, the dual-synteny plot between two
// species. Chromosomes in natural order everywhere.
#include <algorithm>
#include <cmath>
#include <optional>

#include "genefamily/algo/natural_order.h"
#include "genefamily/figures/figures_paper.h"

namespace bioagent::figures {
namespace {

constexpr double kPi = 3.14159265358979323846;
const char* kMember = "#0072B2";
const char* kTandem = "#D55E00";

// The chromosomes to draw: those holding a member (every one when none does), in natural order.
std::vector<std::pair<std::string, int64_t>> holding(const std::vector<std::pair<std::string, int64_t>>& chromosomes,
                                                     const std::vector<Placed>& genes) {
  std::vector<std::pair<std::string, int64_t>> out;
  for (auto& c : chromosomes)
    if (std::any_of(genes.begin(), genes.end(), [&](const Placed& g) { return g.seqid == c.first; })) out.push_back(c);
  return naturally_ordered(out.empty() ? chromosomes : out);
}

}  // namespace

std::string chromosome_map(Lang lang, const std::vector<std::pair<std::string, int64_t>>& chromosomes,
                           const std::vector<Placed>& genes, const std::string& title) {
  const auto drawn = holding(chromosomes, genes);
  int64_t longest = 1;
  double name_w = 0;
  for (auto& [c, len] : drawn) longest = std::max(longest, len);
  for (auto& g : genes) name_w = std::max(name_w, text_width(g.gene, 10));
  const double f0 = 10, col = 14 + 6 + 22 + name_w + 14, max_width = 700;
  const double mb = double(longest) / 1e6;
  const RoundTicks ticks = round_ticks(mb, 5);
  // The ruler's labels and title clear of the left edge at the largest font the width can ask for.
  const double ruler_w = std::max(52.0, 10 + vertical_axis_room(ticks, print_font(std::max(max_width, col) + 120, f0)));
  const size_t per_row = std::max<size_t>(1, size_t((max_width - ruler_w) / col));
  const size_t rows = (drawn.size() + per_row - 1) / std::max<size_t>(1, per_row);
  const double width = ruler_w + col * double(std::min(per_row, std::max<size_t>(1, drawn.size()))) + 8;
  const double f = print_font(width, f0), gap = f + 2, plot_h = 300;
  svg::Doc d(width, 0, title);
  const double px = plot_h / ticks.values.back();  // pixels per Mb
  double y_row = 10;
  bool tandem = false;
  for (size_t r = 0; r < std::max<size_t>(1, rows); ++r) {
    // The row's height: its tallest chromosome, or its most crowded labels.
    double row_h = plot_h;
    for (size_t i = r * per_row; i < std::min(drawn.size(), (r + 1) * per_row); ++i) {
      const auto n =
          std::count_if(genes.begin(), genes.end(), [&](const Placed& g) { return g.seqid == drawn[i].first; });
      row_h = std::max(row_h, gap * double(n));
    }
    const double top = y_row + f;
    d.open_group("data-claim=\"scale-bar\"");  // the Mb ruler is the map's scale (the caption's "Mb ruler")
    axis(d, "mb-" + std::to_string(r + 1), false, ruler_w - 8, top, top + plot_h, 0, ticks.values.back(), ticks,
         BiText{"Position (Mb)", "位置（Mb）"}.in(lang), f);
    d.close_group();
    for (size_t i = r * per_row; i < std::min(drawn.size(), (r + 1) * per_row); ++i) {
      const auto& [name, len] = drawn[i];
      const double x = ruler_w + col * double(i - r * per_row) + 6, h = double(len) / 1e6 * px;
      d.rect(x, top, 14, h, "#E8E8E8", "#666666", "rx=\"7\" stroke-width=\"0.8\"");
      d.text(x + 7, top + std::max(h, row_h) + f * 1.4, name, f, "middle", "font-weight=\"bold\"");
      std::vector<const Placed*> on;
      std::vector<double> want;
      for (auto& g : genes)
        if (g.seqid == name) on.push_back(&g), want.push_back(top + double(g.start) / 1e6 * px);
      const auto at = spread_labels(want, gap, top + f * 0.4, top + std::max(h, row_h));
      std::map<int, std::pair<double, double>> cluster_span;
      for (size_t k = 0; k < on.size(); ++k) {
        const bool t = on[k]->cluster >= 0;
        tandem |= t;
        const char* colour = t ? kTandem : kMember;
        d.line(x, want[k], x + 14, want[k], colour, 1.6);
        d.line(x + 14, want[k], x + 30, at[k], "#999999", 0.6);
        d.text(x + 32, at[k] + f * 0.35, on[k]->gene, f, "start",
               std::string("fill=\"") + colour + "\" data-gene=\"1\"" + (t ? " data-claim=\"tandem\"" : ""));
        if (t) {
          auto& span = cluster_span.try_emplace(on[k]->cluster, want[k], want[k]).first->second;
          span = {std::min(span.first, want[k]), std::max(span.second, want[k])};
        }
      }
      for (auto& [c, span] : cluster_span)  // a bracket left of the chromosome joins a tandem cluster
        d.path("M" + svg::num(x - 2) + "," + svg::num(span.first - 2) + " h-3 V" + svg::num(span.second + 2) + " h3",
               kTandem, 1.2, "none", "data-claim=\"tandem\"");
    }
    y_row = top + row_h + f * 2.4 + 8;
  }
  std::vector<svg::LegendItem> items = {{BiText{"family member", "家族成员"}.in(lang), kMember, "line"}};
  if (tandem)
    items.push_back(
        {BiText{"tandem duplicate (bracket: one cluster)", "串联重复（括号：同一簇）"}.in(lang), kTandem, "line"});
  double h = d.legend(ruler_w, y_row, items, "members", "", f);
  if (drawn.size() < chromosomes.size() && !genes.empty()) {
    d.text(ruler_w, y_row + h + f,
           BiText{std::to_string(chromosomes.size() - drawn.size()) +
                      " chromosomes or scaffolds without a member are not drawn.",
                  std::to_string(chromosomes.size() - drawn.size()) + " 条没有家族成员的染色体或支架未画出。"}
               .in(lang),
           f);
    h += f * 1.6;
  }
  d.set_size(width, y_row + h + 8);
  return d.str();
}

}  // namespace bioagent::figures
