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

// What the figure's drawing steps share: the inputs, the elements drawn (the most frequent, grouped by
// category), the sums and maxima of the colour scales, and the layout.
struct PromoterPlot {
  Lang lang;
  const std::vector<std::string>& genes;
  const std::vector<PromoterElement>& elements;
  const std::vector<std::pair<std::string, std::string>>& categories;  // key, label
  const std::vector<std::vector<double>>& counts;                      // member x element
  std::vector<size_t> order;                                           // the elements drawn, in their columns' order
  std::vector<std::vector<double>> per_cat;  // member x category: sites of every element found
  std::vector<double> cat_max;               // each category's largest count among the drawn elements
  double max_total = 1;                      // the largest per_cat value
  double cell = 13, cat_w = 30, left = 0, x_el = 0, width = 0, f = 10, top = 0;

  size_t cat_index(const std::string& key) const {
    for (size_t c = 0; c < categories.size(); ++c)
      if (categories[c].first == key) return c;
    return categories.size();
  }
  const char* hue_of(const PromoterElement& e) const { return category_hue(e.category, cat_index(e.category)); }
};

// Sites per element and per member category; the elements drawn: the most frequent, grouped by category.
void choose_elements(PromoterPlot& k, size_t max_elements) {
  std::vector<double> total(k.elements.size(), 0);
  k.per_cat.assign(k.genes.size(), std::vector<double>(k.categories.size(), 0));
  for (size_t i = 0; i < k.genes.size() && i < k.counts.size(); ++i)
    for (size_t e = 0; e < k.elements.size() && e < k.counts[i].size(); ++e) {
      total[e] += k.counts[i][e];
      for (size_t c = 0; c < k.categories.size(); ++c)
        if (k.categories[c].first == k.elements[e].category) k.per_cat[i][c] += k.counts[i][e];
    }
  k.order.resize(k.elements.size());
  for (size_t e = 0; e < k.order.size(); ++e) k.order[e] = e;
  std::stable_sort(k.order.begin(), k.order.end(), [&](size_t a, size_t b) { return total[a] > total[b]; });
  k.order.resize(std::min(k.order.size(), max_elements));
  std::stable_sort(k.order.begin(), k.order.end(), [&](size_t a, size_t b) {
    return k.cat_index(k.elements[a].category) < k.cat_index(k.elements[b].category);
  });
  k.cat_max.assign(k.categories.size(), 1);
  for (size_t e : k.order) {
    const size_t c = k.cat_index(k.elements[e].category);
    for (size_t i = 0; i < k.genes.size() && i < k.counts.size(); ++i)
      if (c < k.cat_max.size()) k.cat_max[c] = std::max(k.cat_max[c], k.counts[i][e]);
  }
  for (auto& row : k.per_cat)
    for (double v : row) k.max_total = std::max(k.max_total, v);
}

// The columns: member names on the left, the category sums, then the elements; room above for their
// vertical labels.
void lay_out_columns(PromoterPlot& k) {
  double name_w = 0, label_h = 0;
  for (auto& g : k.genes) name_w = std::max(name_w, text_width(g, 10));
  for (size_t e : k.order) label_h = std::max(label_h, text_width(k.elements[e].name, 10));
  for (auto& c : k.categories) label_h = std::max(label_h, text_width(c.second, 10));
  k.left = 8 + name_w + 8;
  k.x_el = k.left + k.cat_w * double(k.categories.size()) + 14;
  k.width = std::max(k.x_el + k.cell * double(k.order.size()) + 12, 420.0), k.f = print_font(k.width);
  k.top = 10 + k.f * 1.4 + label_h + 10;  // block titles, then the vertical labels
}

// The two blocks' titles and their columns' vertical labels over a strip of each category's hue.
void draw_column_heads(svg::Doc& d, const PromoterPlot& k) {
  const double f = k.f;
  d.text(k.left, 10 + f, BiText{"Sites per category", "各类别位点数"}.in(k.lang), f, "start", "font-weight=\"bold\"");
  d.text(k.x_el, 10 + f, BiText{"Elements, grouped by function", "按功能分组的元件"}.in(k.lang), f, "start",
         "font-weight=\"bold\"");
  auto vertical = [&](double x, const std::string& label) {
    d.text(x + f * 0.35, k.top - 6, label, f, "start",
           "transform=\"rotate(-90 " + svg::num(x + f * 0.35) + " " + svg::num(k.top - 6) + ")\"");
  };
  for (size_t c = 0; c < k.categories.size(); ++c) {
    vertical(k.left + k.cat_w * double(c) + k.cat_w / 2 - f * 0.35, k.categories[c].second);
    d.rect(k.left + k.cat_w * double(c), k.top - 4, k.cat_w - 1, 3, category_hue(k.categories[c].first, c));
  }
  for (size_t j = 0; j < k.order.size(); ++j) {
    const auto& el = k.elements[k.order[j]];
    vertical(k.x_el + k.cell * double(j) + k.cell / 2 - f * 0.35, el.name);
    d.rect(k.x_el + k.cell * double(j), k.top - 4, k.cell - 1, 3, k.hue_of(el));
  }
}

// A row per member: its name, its category sums (numbered), its elements' counts on their category's ramp.
void draw_rows(svg::Doc& d, const PromoterPlot& k) {
  const double f = k.f, cell = k.cell;
  for (size_t i = 0; i < k.genes.size(); ++i) {
    const double y = k.top + cell * double(i);
    d.text(k.left - 6, y + cell / 2 + f * 0.35, k.genes[i], f, "end", "data-gene=\"1\"");
    for (size_t c = 0; c < k.categories.size(); ++c) {
      const double v = k.per_cat[i][c], x = k.left + k.cat_w * double(c);
      d.rect(x, y, k.cat_w, cell, svg::sequential(v, k.max_total), "white",
             "stroke-width=\"0.5\" data-scale=\"sites\"");
      d.text(x + k.cat_w / 2, y + cell / 2 + f * 0.35, std::to_string(int(v)), f, "middle",
             v > k.max_total * 0.55 ? "fill=\"white\"" : "fill=\"#222222\"");
    }
    for (size_t j = 0; j < k.order.size(); ++j) {
      const size_t e = k.order[j], c = k.cat_index(k.elements[e].category);
      const double v = i < k.counts.size() && e < k.counts[i].size() ? k.counts[i][e] : 0;
      d.rect(k.x_el + cell * double(j), y, cell, cell,
             svg::ramp(category_hue(k.elements[e].category, c), v, c < k.cat_max.size() ? k.cat_max[c] : 1), "#EEEEEE",
             "stroke-width=\"0.5\" data-scale=\"" + k.elements[e].category + "\"");
    }
  }
}

// Legends: the categories' hues, the totals' scale, then each drawn category's own scale; a note when not every
// element is drawn. The figure's height.
double draw_promoter_legends(svg::Doc& d, const PromoterPlot& k) {
  const Lang lang = k.lang;
  const double f = k.f, left = k.left, rows_end = k.top + k.cell * double(k.genes.size()) + 12;
  double y = rows_end;
  std::vector<svg::LegendItem> hues;
  for (size_t c = 0; c < k.categories.size(); ++c)
    hues.push_back({k.categories[c].second, category_hue(k.categories[c].first, c)});
  const double bar_w = 120;
  const double hh = d.legend(left, y, hues, "categories", BiText{"Function", "功能类别"}.in(lang), f);
  double x = left + 170, row_h = 0;
  auto bar = [&](const std::string& id, const std::function<std::string(double)>& colour, double max,
                 const std::string& label) {
    const RoundTicks t = round_ticks(max, 2);
    if (x + bar_w > k.width - 8) x = left + 170, y += row_h + 6, row_h = 0;
    row_h = std::max(row_h, d.colour_bar(
                                x, y, bar_w, colour, 0, t.values.back(), t.values,
                                [](double v) { return tick_label(v, 0); }, label, id, f));
    x += bar_w + 30;
  };
  bar(
      "sites", [&](double v) { return svg::sequential(v, k.max_total); }, k.max_total,
      BiText{"sites per category", "类别位点数"}.in(lang));
  for (size_t c = 0; c < k.categories.size(); ++c)
    if (std::any_of(k.order.begin(), k.order.end(),
                    [&](size_t e) { return k.elements[e].category == k.categories[c].first; }))
      bar(
          k.categories[c].first,
          [&, c](double v) { return svg::ramp(category_hue(k.categories[c].first, c), v, k.cat_max[c]); }, k.cat_max[c],
          k.categories[c].second + BiText{" sites", " 位点数"}.in(lang));
  y = std::max(y + row_h, rows_end + hh) + 4;
  if (k.order.size() < k.elements.size()) {
    const std::string drawn = std::to_string(k.order.size()), found = std::to_string(k.elements.size());
    d.text(left, y + f,
           BiText{"The " + drawn + " most frequent of " + found +
                      " elements found are drawn; the category sums count them all.",
                  "图中为 " + found + " 种元件中最常见的 " + drawn + " 种；类别汇总计入全部元件。"}
               .in(lang),
           f);
    y += f * 1.6;
  }
  return y + 8;
}

}  // namespace

std::string promoter_figure(Lang lang, const std::vector<std::string>& genes,
                            const std::vector<PromoterElement>& elements,
                            const std::vector<std::pair<std::string, std::string>>& categories,
                            const std::vector<std::vector<double>>& counts, const std::string& title,
                            size_t max_elements) {
  PromoterPlot k{lang, genes, elements, categories, counts};
  choose_elements(k, max_elements);
  lay_out_columns(k);
  svg::Doc d(k.width, 0, title);
  draw_column_heads(d, k);
  draw_rows(d, k);
  d.set_size(k.width, draw_promoter_legends(d, k));
  return d.str();
}

}  // namespace bioagent::figures
