// Promoter elements grouped by function (see figures.h): the sites of each
// category per member beside the most frequent elements, each category on a
// colour ramp of its own hue with its own colour bar.
#include <algorithm>
#include <cmath>
#include <functional>

#include "genefamily/figures/figures_paper.h"

namespace bioagent::figures {
namespace {

// Each category's hue: light, hormone, stress, development, then others.
const char* category_hue(const std::string& key, size_t index) {
  if (key == "light") return "#E69F00";
  if (key == "hormone") return "#009E73";
  if (key == "stress") return "#0072B2";
  if (key == "development") return "#CC79A7";
  static const char* more[] = {"#D55E00", "#56B4E9", "#7F3C8D", "#999933"};
  return more[index % 4];
}

}  // namespace

std::string promoter_figure(Lang lang, const std::vector<std::string>& genes,
                            const std::vector<PromoterElement>& elements,
                            const std::vector<std::pair<std::string, std::string>>& categories,
                            const std::vector<std::vector<double>>& counts, const std::string& title,
                            size_t max_elements) {
  // Sites per element and per member category; the elements drawn: the most frequent, grouped by category.
  std::vector<double> total(elements.size(), 0);
  std::vector<std::vector<double>> per_cat(genes.size(), std::vector<double>(categories.size(), 0));
  for (size_t i = 0; i < genes.size() && i < counts.size(); ++i)
    for (size_t e = 0; e < elements.size() && e < counts[i].size(); ++e) {
      total[e] += counts[i][e];
      for (size_t c = 0; c < categories.size(); ++c)
        if (categories[c].first == elements[e].category) per_cat[i][c] += counts[i][e];
    }
  std::vector<size_t> order(elements.size());
  for (size_t e = 0; e < order.size(); ++e) order[e] = e;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return total[a] > total[b]; });
  order.resize(std::min(order.size(), max_elements));
  auto cat_index = [&](const std::string& key) {
    for (size_t c = 0; c < categories.size(); ++c)
      if (categories[c].first == key) return c;
    return categories.size();
  };
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return cat_index(elements[a].category) < cat_index(elements[b].category);
  });
  double name_w = 0, label_h = 0;
  for (auto& g : genes) name_w = std::max(name_w, text_width(g, 10));
  for (size_t e : order) label_h = std::max(label_h, text_width(elements[e].name, 10));
  for (auto& c : categories) label_h = std::max(label_h, text_width(c.second, 10));
  const double cell = 13, cat_w = 30, left = 8 + name_w + 8;
  const double x_el = left + cat_w * double(categories.size()) + 14;
  const double width = std::max(x_el + cell * double(order.size()) + 12, 420.0), f = print_font(width);
  const double top = 10 + f * 1.4 + label_h + 10;  // block titles, then the vertical labels
  svg::Doc d(width, 0, title);
  d.text(left, 10 + f, BiText{"Sites per category", "各类别位点数"}.in(lang), f, "start", "font-weight=\"bold\"");
  d.text(x_el, 10 + f, BiText{"Elements, grouped by function", "按功能分组的元件"}.in(lang), f, "start",
         "font-weight=\"bold\"");
  auto vertical = [&](double x, const std::string& label) {
    d.text(x + f * 0.35, top - 6, label, f, "start",
           "transform=\"rotate(-90 " + svg::num(x + f * 0.35) + " " + svg::num(top - 6) + ")\"");
  };
  std::vector<double> cat_max(categories.size(), 1), max_total = {1};
  for (size_t e : order) {
    const size_t c = cat_index(elements[e].category);
    for (size_t i = 0; i < genes.size() && i < counts.size(); ++i)
      if (c < cat_max.size()) cat_max[c] = std::max(cat_max[c], counts[i][e]);
  }
  for (auto& row : per_cat)
    for (double v : row) max_total[0] = std::max(max_total[0], v);
  for (size_t c = 0; c < categories.size(); ++c) {
    vertical(left + cat_w * double(c) + cat_w / 2 - f * 0.35, categories[c].second);
    d.rect(left + cat_w * double(c), top - 4, cat_w - 1, 3, category_hue(categories[c].first, c));
  }
  for (size_t k = 0; k < order.size(); ++k) {
    const auto& el = elements[order[k]];
    vertical(x_el + cell * double(k) + cell / 2 - f * 0.35, el.name);
    d.rect(x_el + cell * double(k), top - 4, cell - 1, 3, category_hue(el.category, cat_index(el.category)));
  }
  for (size_t i = 0; i < genes.size(); ++i) {
    const double y = top + cell * double(i);
    d.text(left - 6, y + cell / 2 + f * 0.35, genes[i], f, "end", "data-gene=\"1\"");
    for (size_t c = 0; c < categories.size(); ++c) {
      const double v = per_cat[i][c];
      d.rect(left + cat_w * double(c), y, cat_w, cell, svg::sequential(v, max_total[0]), "white",
             "stroke-width=\"0.5\" data-scale=\"sites\"");
      d.text(left + cat_w * double(c) + cat_w / 2, y + cell / 2 + f * 0.35, std::to_string(int(v)), f, "middle",
             v > max_total[0] * 0.55 ? "fill=\"white\"" : "fill=\"#222222\"");
    }
    for (size_t k = 0; k < order.size(); ++k) {
      const size_t e = order[k], c = cat_index(elements[e].category);
      const double v = i < counts.size() && e < counts[i].size() ? counts[i][e] : 0;
      d.rect(x_el + cell * double(k), y, cell, cell,
             svg::ramp(category_hue(elements[e].category, c), v, c < cat_max.size() ? cat_max[c] : 1), "#EEEEEE",
             "stroke-width=\"0.5\" data-scale=\"" + elements[e].category + "\"");
    }
  }
  // Legends: the categories' hues, the totals' scale, then each category's own scale.
  double y = top + cell * double(genes.size()) + 12;
  std::vector<svg::LegendItem> hues;
  for (size_t c = 0; c < categories.size(); ++c)
    hues.push_back({categories[c].second, category_hue(categories[c].first, c)});
  const double bar_w = 120;
  const double hh = d.legend(left, y, hues, "categories", BiText{"Function", "功能类别"}.in(lang), f);
  double x = left + 170, row_h = 0;
  auto bar = [&](const std::string& id, const std::function<std::string(double)>& colour, double max,
                 const std::string& label) {
    const RoundTicks t = round_ticks(max, 2);
    if (x + bar_w > width - 8) x = left + 170, y += row_h + 6, row_h = 0;
    row_h = std::max(row_h, d.colour_bar(
                                x, y, bar_w, colour, 0, t.values.back(), t.values,
                                [](double v) { return tick_label(v, 0); }, label, id, f));
    x += bar_w + 30;
  };
  bar(
      "sites", [&](double v) { return svg::sequential(v, max_total[0]); }, max_total[0],
      BiText{"sites per category", "类别位点数"}.in(lang));
  for (size_t c = 0; c < categories.size(); ++c)
    if (std::any_of(order.begin(), order.end(), [&](size_t e) { return elements[e].category == categories[c].first; }))
      bar(
          categories[c].first,
          [&, c](double v) { return svg::ramp(category_hue(categories[c].first, c), v, cat_max[c]); }, cat_max[c],
          categories[c].second + BiText{" sites", " 位点数"}.in(lang));
  y = std::max(y + row_h, top + cell * double(genes.size()) + 12 + hh) + 4;
  if (order.size() < elements.size()) {
    d.text(left, y + f,
           BiText{"The " + std::to_string(order.size()) + " most frequent of " + std::to_string(elements.size()) +
                      " elements found are drawn; the category sums count them all.",
                  "图中为 " + std::to_string(elements.size()) + " 种元件中最常见的 " + std::to_string(order.size()) +
                      " 种；类别汇总计入全部元件。"}
               .in(lang),
           f);
    y += f * 1.6;
  }
  d.set_size(width, y + 8);
  return d.str();
}

}  // namespace bioagent::figures
