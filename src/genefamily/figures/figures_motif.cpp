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

// A logo letter drawn as a 14 px glyph scaled to its share of the column: its ink (the cap height, ~10.5 px
// unscaled) spans exactly its bits; its text box (DejaVu Sans: ascent 0.93, descent 0.24 of the size) reaches
// past the ink above and below, and the header and position numbers are placed clear of those boxes.
constexpr double kGlyph = 14, kGlyphCap = 10.5, kAscent = 0.93, kDescent = 0.24;

struct Letter {
  double x = 0, base = 0, px = 0;  // column centre; baseline and ink height, relative to the 0-bits line
  char c = 0;
};

// One motif's stacked letters (largest on top) and how far their boxes reach above (`top`, negative) and below
// (`bottom`) the 0-bits line.
struct Logo {
  std::vector<Letter> letters;
  double top = 0, bottom = 0;
};

Logo logo_of(const Motif& m, double left, double col_w, double height, double max_bits) {
  Logo out;
  for (size_t k = 0; k < m.width && k < m.pwm.size(); ++k) {
    const auto& col = m.pwm[k];
    double h = 0;
    for (double p : col)
      if (p > 0) h -= p * std::log2(p);
    const double ic = std::max(0.0, max_bits - h);
    std::vector<std::pair<double, char>> letters;
    for (size_t a = 0; a < col.size() && a < 20; ++a) letters.push_back({col[a] * ic, kProtein[a]});
    std::sort(letters.begin(), letters.end());
    double y = 0;
    for (auto& [bits_of, c] : letters) {
      const double px = bits_of / max_bits * height;
      if (px < 1) continue;
      const double scale = px / kGlyphCap;
      out.letters.push_back({left + col_w * (double(k) + 0.5), y, px, c});
      out.top = std::min(out.top, y - kAscent * kGlyph * scale);
      out.bottom = std::max(out.bottom, y + kDescent * kGlyph * scale);
      y -= px;
    }
  }
  return out;
}

void draw_letters(svg::Doc& d, const Logo& logo, double y0, double col_w) {
  for (const Letter& l : logo.letters)
    d.text(0, 0, std::string(1, l.c), kGlyph, "middle",
           "data-stacked=\"1\" fill=\"" + std::string(residue_colour(l.c)) +
               "\" font-weight=\"bold\" transform=\"translate(" + svg::num(l.x) + " " + svg::num(y0 + l.base) +
               ") scale(" + svg::num(col_w / 10) + " " + svg::num(l.px / kGlyphCap) + ")\"");
}

// The motif's header (its name in the motif map's colour, E-value, sites, width) with its baseline at `y`.
void draw_header(svg::Doc& d, Lang lang, const Motif& m, size_t n, double left, double y, double f) {
  d.open_group(svg::data("legend", "motif-" + std::to_string(n + 1)));  // the motif's colour in the map
  d.rect(left, y - f * 0.8, f * 0.9, f * 0.9, motif_colour(n));
  d.text(left + f * 1.3, y, motif_label(n), f, "start", "font-weight=\"bold\"");
  d.close_group();
  d.text(left + f * 1.3 + text_width(motif_label(n), f) + 12, y,
         "E = " + evalue_text(m.evalue) + BiText{"; sites: ", "；位点数："}.in(lang) + std::to_string(m.sites.size()) +
             BiText{"; width: ", "；宽度："}.in(lang) + std::to_string(m.width),
         f, "start", "data-claim=\"evalue\"");
}

// The positions under the logo (the 0-bits line at `y0`, numbers on the baseline `y_num`): every one numbered
// when there is room, else 1 and every fifth or tenth; the axis title after the last.
void draw_positions(svg::Doc& d, Lang lang, const Motif& m, size_t n, double left, double col_w, double y0,
                    double y_num, double f) {
  const std::string pos_id = "position-" + std::to_string(n + 1);
  d.open_group(svg::data("axis", pos_id));
  d.line(left, y0, left + col_w * double(m.width), y0, "#333333", 0.6);
  const size_t every = col_w >= f * 1.3 ? 1 : col_w * 5 >= f * 1.6 ? 5 : 10;
  for (size_t k = 0; k < m.width; ++k)
    if (k == 0 || (k + 1) % every == 0) {  // a tick ties the number to its column across the letters' room
      const double x = left + col_w * (double(k) + 0.5);
      d.line(x, y0, x, std::max(y0 + 3, y_num - f * kAscent - 1), "#333333", 0.6);
      d.text(x, y_num, std::to_string(k + 1), f, "middle");
    }
  d.close_group();
  d.text(left + col_w * double(m.width) + 6, y_num, BiText{"position", "位置"}.in(lang), f, "start",
         svg::data("axis-title", pos_id));
}

}  // namespace

std::string motif_logos(Lang lang, const std::vector<Motif>& motifs, const std::string& title) {
  size_t widest = 1;
  for (auto& m : motifs) widest = std::max(widest, m.width);
  const double col_w = std::clamp(440.0 / double(widest), 8.0, 14.0), height = 64, left = 52, top = 8;
  // Room on the right for the position axis's title after the widest logo (at the font the width asks for).
  const std::string pos_title = BiText{"position", "位置"}.in(lang);
  auto width_at = [&](double size) {
    return std::max(left + col_w * double(widest) + 14 + text_width(pos_title, size), 460.0);
  };
  const double width = width_at(print_font(width_at(10))), f = print_font(width);
  const double max_bits = std::log2(20.0);
  svg::Doc d(width, 0, title);
  double y = top;  // the top of the next motif's block
  for (size_t n = 0; n < motifs.size(); ++n) {
    const Motif& m = motifs[n];
    const Logo logo = logo_of(m, left, col_w, height, max_bits);
    const double y_head = y + f * kAscent;
    draw_header(d, lang, m, n, left, y_head, f);
    // y0, the 0-bits line: the letters' boxes (and the axis's top) below the header's.
    const double y0 = y_head + f * kDescent + 3 + std::max(height, -logo.top);
    RoundTicks bits;  // 0 to 4 bits (log2 20 = 4.32 at most for proteins)
    bits.step = 2;
    bits.values = {0, 2, 4};
    axis(d, "bits-" + std::to_string(n + 1), false, left - 4, y0, y0 - 4 / max_bits * height, 0, 4, bits,
         BiText{"bits", "比特"}.in(lang), f);
    draw_letters(d, logo, y0, col_w);
    const double y_num = y0 + std::max(f * 1.1, logo.bottom + 2 + f * kAscent);
    draw_positions(d, lang, m, n, left, col_w, y0, y_num, f);
    y = y_num + f * kDescent + 14;
  }
  const double ly = y - 4;
  std::vector<svg::LegendItem> items;
  for (auto& r : residue_classes()) items.push_back({r.name.in(lang), r.colour});
  const double h = d.legend(left, ly, items, "residues", BiText{"Residues", "氨基酸残基"}.in(lang), f);
  d.set_size(width, ly + h + 8);
  return d.str();
}

}  // namespace bioagent::figures
