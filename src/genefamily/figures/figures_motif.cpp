// Motif logos (see figures.h): residues stacked by their information over
// numbered positions, each logo headed by its motif's name (in the motif
// map's colour), E-value and site count; residue colours in a legend.
#include <algorithm>
#include <cmath>

#include "genefamily/figures/figures_paper.h"
#include "genefamily/figures/palette.h"

namespace bioagent::figures {
namespace {

constexpr const char* kProtein = "ACDEFGHIKLMNPQRSTVWY";

struct ResidueClass {
  const char* residues;
  const char* colour;
  BiText name;
};
// By chemistry, colour-blind-safe hues.
const std::vector<ResidueClass>& residue_classes() {
  static const std::vector<ResidueClass> k = {
      {"DE", "#D55E00", {"acidic (D, E)", "酸性（D、E）"}},
      {"KRH", "#0072B2", {"basic (K, R, H)", "碱性（K、R、H）"}},
      {"STNQCY", "#009E73", {"polar (S, T, N, Q, C, Y)", "极性（S、T、N、Q、C、Y）"}},
      {"GP", "#E69F00", {"G, P", "G、P"}},
      {"AVLIMFW", "#000000", {"hydrophobic (A, V, L, I, M, F, W)", "疏水（A、V、L、I、M、F、W）"}}};
  return k;
}

const char* residue_colour(char c) {
  for (auto& r : residue_classes())
    if (std::string(r.residues).find(c) != std::string::npos) return r.colour;
  return "#000000";
}

std::string evalue_text(double e) {
  char b[32];
  std::snprintf(b, sizeof b, e < 0.01 ? "%.1e" : "%.2f", e);
  return b;
}

}  // namespace

std::string motif_logos(Lang lang, const std::vector<Motif>& motifs, const std::string& title) {
  size_t widest = 1;
  for (auto& m : motifs) widest = std::max(widest, m.width);
  const double col_w = std::clamp(440.0 / double(widest), 8.0, 14.0), height = 64, left = 52, top = 8;
  const double width = std::max(left + col_w * double(widest) + 16, 460.0), f = print_font(width);
  const double block = f * 1.6 + height + f * 1.6 + 14;  // header, logo, positions, gap
  const double max_bits = std::log2(20.0);
  svg::Doc d(width, 0, title);
  for (size_t n = 0; n < motifs.size(); ++n) {
    const Motif& m = motifs[n];
    const double y_head = top + double(n) * block + f, y0 = y_head + f * 0.6 + height;  // y0: 0 bits
    d.open_group(svg::data("legend", "motif-" + std::to_string(n + 1)));                // the motif's colour in the map
    d.rect(left, y_head - f * 0.8, f * 0.9, f * 0.9, motif_colour(n));
    d.text(left + f * 1.3, y_head, motif_label(n), f, "start", "font-weight=\"bold\"");
    d.close_group();
    d.text(left + f * 1.3 + text_width(motif_label(n), f) + 12, y_head,
           "E = " + evalue_text(m.evalue) + BiText{"; sites: ", "；位点数："}.in(lang) +
               std::to_string(m.sites.size()) + BiText{"; width: ", "；宽度："}.in(lang) + std::to_string(m.width),
           f, "start", "data-claim=\"evalue\"");
    const std::string id = "bits-" + std::to_string(n + 1), pos_id = "position-" + std::to_string(n + 1);
    // The bits axis: 0 to 4 bits (log2 20 = 4.32 at most for proteins).
    RoundTicks bits;
    bits.step = 2;
    bits.values = {0, 2, 4};
    axis(d, id, false, left - 4, y0, y0 - 4 / max_bits * height, 0, 4, bits, BiText{"bits", "比特"}.in(lang), f);
    // Positions: every one numbered when there is room, else 1 and every fifth.
    d.open_group(svg::data("axis", pos_id));
    d.line(left, y0, left + col_w * double(m.width), y0, "#333333", 0.6);
    const size_t every = col_w >= f * 1.3 ? 1 : col_w * 5 >= f * 1.6 ? 5 : 10;
    for (size_t k = 0; k < m.width; ++k)
      if (k == 0 || (k + 1) % every == 0)
        d.text(left + col_w * (double(k) + 0.5), y0 + f * 1.1, std::to_string(k + 1), f, "middle");
    d.close_group();
    d.text(left + col_w * double(m.width) + 6, y0 + f * 1.1, BiText{"position", "位置"}.in(lang), f, "start",
           svg::data("axis-title", pos_id));
    for (size_t k = 0; k < m.width && k < m.pwm.size(); ++k) {
      const auto& col = m.pwm[k];
      double h = 0;
      for (double p : col)
        if (p > 0) h -= p * std::log2(p);
      const double ic = std::max(0.0, max_bits - h);
      std::vector<std::pair<double, char>> letters;
      for (size_t a = 0; a < col.size() && a < 20; ++a) letters.push_back({col[a] * ic, kProtein[a]});
      std::sort(letters.begin(), letters.end());
      double y = y0;
      for (auto& [bits_of, c] : letters) {
        const double px = bits_of / max_bits * height;
        if (px < 1) continue;
        const double x = left + col_w * double(k);
        // A 14 px glyph (cap height ~10.5 px) scaled to the letter's height; stacked letters meet by design.
        d.text(0, 0, std::string(1, c), 14, "middle",
               "data-stacked=\"1\" fill=\"" + std::string(residue_colour(c)) +
                   "\" font-weight=\"bold\" transform=\"translate(" + svg::num(x + col_w / 2) + " " + svg::num(y) +
                   ") scale(" + svg::num(col_w / 10) + " " + svg::num(px / 10.5) + ")\"");
        y -= px;
      }
    }
  }
  const double ly = top + double(motifs.size()) * block + 4;
  std::vector<svg::LegendItem> items;
  for (auto& r : residue_classes()) items.push_back({r.name.in(lang), r.colour});
  const double h = d.legend(left, ly, items, "residues", BiText{"Residues", "氨基酸残基"}.in(lang), f);
  d.set_size(width, ly + h + 8);
  return d.str();
}

}  // namespace bioagent::figures
