// The plots (see figures.h): Ka against Ks, Ks distributions with their
// peaks, the expression heatmap and the promoter elements by function.
#include <algorithm>
#include <cmath>
#include <set>

#include "genefamily/figures/figures_paper.h"

namespace bioagent::figures {
namespace {

constexpr double kPi = 3.14159265358979323846;

struct Verdict {
  const char* key;
  const char* colour;
  BiText label;
};
// The Ka/Ks test's verdicts (yn00's standard errors) with their colours; "" is a pair that was not tested.
const std::vector<Verdict>& verdicts() {
  static const std::vector<Verdict> k = {
      {"purifying", "#0072B2", {"Ka/Ks < 1 (purifying selection, p < 0.05)", "Ka/Ks < 1（纯化选择，p < 0.05）"}},
      {"positive", "#D55E00", {"Ka/Ks > 1 (positive selection, p < 0.05)", "Ka/Ks > 1（正选择，p < 0.05）"}},
      {"neutral", "#999999", {"Ka/Ks not different from 1 (p ≥ 0.05)", "Ka/Ks 与 1 无显著差异（p ≥ 0.05）"}},
      {"", "#333333", {"duplicated pair (not tested)", "重复基因对（未检验）"}}};
  return k;
}

}  // namespace

std::string kaks(Lang lang, const std::vector<KaKs>& pairs, const std::string& title) {
  const double left = 70, top = 12, w = 300, h = 300;
  double max_v = 0.01, label_w = 0;
  std::vector<const KaKs*> shown;
  for (auto& p : pairs) {
    if (!std::isfinite(p.ka) || !std::isfinite(p.ks)) continue;
    shown.push_back(&p);
    max_v = std::max({max_v, p.ks, p.ka});
    label_w = std::max(label_w, text_width(p.pair, 10));
  }
  const double label_x = left + w + 22, width = std::max(label_x + label_w + 10, 460.0), f = print_font(width);
  svg::Doc d(width, 0, title);
  // One round scale for both axes (Ka = Ks stays the diagonal).
  const RoundTicks ticks = round_ticks(max_v * 1.05, 5);
  const double m = ticks.values.back();
  d.rect(left, top, w, h, "none", "#BBBBBB", "stroke-width=\"0.5\"");
  d.line(left, top + h, left + w, top, "#777777", 1, "stroke-dasharray=\"4 3\"");
  axis(d, "ks", true, top + h, left, left + w, 0, m, ticks,
       BiText{"Ks (synonymous substitutions per site)", "Ks（同义替换率）"}.in(lang), f);
  axis(d, "ka", false, left, top + h, top, 0, m, ticks,
       BiText{"Ka (non-synonymous substitutions per site)", "Ka（非同义替换率）"}.in(lang), f);
  std::vector<double> want;
  for (auto* p : shown) want.push_back(top + h - p->ka / m * h);
  const auto at = spread_labels(want, f + 2, top + f, top + h);
  std::set<std::string> used;
  for (size_t i = 0; i < shown.size(); ++i) {
    const KaKs& p = *shown[i];
    const double x = left + p.ks / m * w, y = want[i];
    const Verdict* v = &verdicts().back();
    for (auto& k : verdicts())
      if (p.selection == k.key) v = &k;
    used.insert(v->key);
    d.circle(x, y, 4, v->colour, "white", *v->key ? "data-claim=\"selection-test\"" : "");
    d.line(x + 4, y, label_x - 3, at[i], "#CCCCCC", 0.5);
    d.text(label_x, at[i] + f * 0.35, p.pair, f);
  }
  std::vector<svg::LegendItem> items;
  for (auto& k : verdicts())
    if (used.count(k.key)) items.push_back({k.label.in(lang), k.colour, "circle"});
  items.push_back({BiText{"Ka = Ks (Ka/Ks = 1)", "Ka = Ks（Ka/Ks = 1）"}.in(lang), "#777777", "line"});
  const double ly = top + h + 8 + 3.4 * f;
  const double lh = d.legend(left, ly, items, "verdicts", "", f);
  double y = ly + lh;
  if (!used.count("") && !shown.empty()) {  // the test said how each verdict was reached
    d.text(left, y + f,
           BiText{"Test of Ka = Ks: z from yn00's standard errors, two-sided.",
                  "Ka = Ks 的检验：由 yn00 标准误计算 z 值，双侧检验。"}
               .in(lang),
           f, "start", "data-claim=\"selection-test\"");
    y += f * 1.6;
  }
  d.set_size(width, y + 8);
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
  const double sd = std::sqrt(var / double(v.size() - 1));
  std::sort(v.begin(), v.end());
  const double iqr = v[v.size() * 3 / 4] - v[v.size() / 4];
  const double spread = std::min(sd, iqr > 0 ? iqr / 1.34 : sd);
  const double h = 0.9 * (spread > 0 ? spread : 0.05) * std::pow(double(v.size()), -0.2);  // Silverman
  const int grid = 300;
  std::vector<double> dens(grid + 1);
  for (int i = 0; i <= grid; ++i) {
    double x = max_ks * i / grid, s = 0;
    for (double k : v) s += std::exp(-0.5 * ((x - k) / h) * ((x - k) / h));
    dens[size_t(i)] = s / (double(v.size()) * h * std::sqrt(2 * kPi));
  }
  const double top = *std::max_element(dens.begin(), dens.end());
  std::vector<KsPeak> out;
  for (int i = 1; i < grid; ++i)
    if (dens[size_t(i)] > dens[size_t(i - 1)] && dens[size_t(i)] >= dens[size_t(i + 1)] && dens[size_t(i)] >= top / 10)
      out.push_back({max_ks * i / grid, dens[size_t(i)]});
  return out;
}

std::string ks_distribution(Lang lang, const std::vector<double>& ks, const std::string& title, double max_ks,
                            const std::vector<double>& marked, const std::string& bars) {
  const double left = 64, width = 520, plot_w = width - left - 16, top = 14 + 26, height = 220;
  const int bins = 30;
  const double f = print_font(width);
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
  const RoundTicks yt = round_ticks(std::max(1, *std::max_element(count.begin(), count.end())), 4);
  RoundTicks y_ticks = yt;
  if (yt.step < 1) {  // counts are whole numbers
    y_ticks.step = 1, y_ticks.decimals = 0, y_ticks.values.clear();
    for (int v = 0; v <= int(std::ceil(yt.values.back())); ++v) y_ticks.values.push_back(v);
  }
  const double most = y_ticks.values.back();
  svg::Doc d(width, 0, title);
  auto X = [&](double k) { return left + k / max_ks * plot_w; };
  auto Y = [&](double c) { return top + height - c / most * height; };
  for (size_t b = 0; b < count.size(); ++b)
    if (count[b] > 0)
      d.rect(X(max_ks * double(b) / bins), Y(count[b]), plot_w / bins - 1, height - (Y(count[b]) - top), "#56B4E9");
  axis(d, "ks", true, top + height, left, left + plot_w, 0, max_ks, round_ticks(max_ks, 6),
       BiText{"Ks (synonymous substitutions per site)", "Ks（同义替换率）"}.in(lang), f);
  axis(d, "pairs", false, left, top + height, top, 0, most, y_ticks, BiText{"Gene pairs", "基因对数"}.in(lang), f);
  // Peaks: a dashed line at each, its label in a row above the plot (a second row when two labels would touch).
  double last_end[2] = {-1e9, -1e9};
  const auto peaks = ks_peaks(ks, max_ks);
  for (auto& p : peaks) {
    const std::string label = BiText{"peak ", "峰 "}.in(lang) + tick_label(p.ks, 2);
    const double w = text_width(label, f), x = X(p.ks);
    const int row_i = x - w / 2 > last_end[0] + 4 ? 0 : 1;
    last_end[row_i] = x + w / 2;
    const double y = top - 16 + (f + 1) * row_i - (f + 1);
    d.line(x, y + 3, x, top + height, "#D55E00", 1.2, "stroke-dasharray=\"4,3\" data-claim=\"peaks\"");
    d.text(x, y, label, f, "middle", "fill=\"#D55E00\" data-claim=\"peaks\"");
  }
  size_t shown = 0;
  for (double k : marked)
    if (std::isfinite(k) && k >= 0 && k <= max_ks) {
      d.line(X(k), top + height - 14, X(k), top + height, "#CC0000", 1.6, "data-claim=\"family-pairs\"");
      ++shown;
    }
  double y = top + height + 8 + 3.4 * f;
  std::vector<svg::LegendItem> items = {{bars.empty() ? BiText{"gene pairs", "基因对"}.in(lang) : bars, "#56B4E9"}};
  if (!peaks.empty()) items.push_back({BiText{"peak of the kernel density", "核密度的峰"}.in(lang), "#D55E00", "line"});
  if (!marked.empty())
    items.push_back(
        {BiText{"the family's pairs (" + std::to_string(shown) + ")", "家族基因对（" + std::to_string(shown) + " 对）"}
             .in(lang),
         "#CC0000", "line"});
  y += d.legend(left, y, items, "ks", "", f);
  std::string note = BiText{std::to_string(used) + " pairs drawn; " + std::to_string(outside) +
                                " not estimated or above Ks " + tick_label(max_ks, 1) + " (saturated) left out",
                            "图中 " + std::to_string(used) + " 对；" + std::to_string(outside) +
                                " 对未估计或 Ks 高于 " + tick_label(max_ks, 1) + "（饱和）未计入"}
                         .in(lang);
  d.text(left, y + f, note, f);
  y += f * 1.5;
  if (used < kMinPairsForKsPeaks) {
    d.text(left, y + f,
           BiText{"No peak marked: a peak needs at least " + std::to_string(kMinPairsForKsPeaks) + " pairs.",
                  "未标峰：判断峰至少需要 " + std::to_string(kMinPairsForKsPeaks) + " 对。"}
               .in(lang),
           f);
    y += f * 1.5;
  }
  d.set_size(width, y + 8);
  return d.str();
}

std::string expression_heatmap(Lang lang, const std::vector<std::string>& rows, const std::vector<std::string>& cols,
                               const std::vector<std::vector<double>>& z, const std::string& title) {
  double name_w = 0, col_label = 0;
  for (auto& r : rows) name_w = std::max(name_w, text_width(r, 10));
  for (auto& c : cols) col_label = std::max(col_label, text_width(c, 10));
  const double cell_w = std::clamp(480.0 / double(std::max<size_t>(1, cols.size())), 14.0, 36.0), cell_h = 16;
  const double left = 8 + name_w + 8, width = std::max(left + cell_w * double(cols.size()) + 16, 300.0);
  const double f = print_font(width), top = 8 + f * 1.6 + col_label * std::sin(kPi / 4) + f;
  svg::Doc d(width, 0, title);
  d.text(left + cell_w * double(cols.size()) / 2, 8 + f, BiText{"Samples", "样本"}.in(lang), f, "middle",
         svg::data("axis-title", "samples"));
  d.open_group(svg::data("axis", "samples"));
  for (size_t j = 0; j < cols.size(); ++j) {
    const double x = left + cell_w * (double(j) + 0.5), y = top - 5;
    d.text(x, y, cols[j], f, "start", "transform=\"rotate(-45 " + svg::num(x) + " " + svg::num(y) + ")\"");
  }
  d.close_group();
  for (size_t i = 0; i < rows.size(); ++i) {
    const double y = top + cell_h * double(i);
    d.text(left - 6, y + cell_h / 2 + f * 0.35, rows[i], f, "end", "data-gene=\"1\"");
    for (size_t j = 0; j < cols.size() && j < z[i].size(); ++j)
      d.rect(left + cell_w * double(j), y, cell_w, cell_h, svg::diverging(z[i][j]), "white",
             "stroke-width=\"0.5\" data-scale=\"z\"");
  }
  const double by = top + cell_h * double(rows.size()) + 10;
  RoundTicks t;
  t.decimals = 1, t.values = {-2.5, 0, 2.5};
  const double h = d.colour_bar(
      left, by, std::min(200.0, width - left - 16), [](double v) { return svg::diverging(v); }, -2.5, 2.5, t.values,
      [](double v) { return tick_label(v, 1); }, BiText{"Row z-score of log2(x+1)", "log2(x+1) 的行 z 分数"}.in(lang),
      "z", f);
  d.set_size(width, by + h + 8);
  return d.str();
}

}  // namespace bioagent::figures
