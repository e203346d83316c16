// Figure geometry the Chromium layout test checks as a whole, here per figure
// function: round axis ticks, labels kept apart on the Ka/Ks plot and the
// chromosome map, Ks peaks only from enough pairs, one colour per motif in
// every figure, the promoter figure's category summary, tree supports kept apart,
// the synteny circle's blocks and tandem arcs, motif logo letters between their
// header and position numbers, axis titles inside the canvas.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "figures/svg.h"
#include "genefamily/figures/figures.h"
#include "genefamily/figures/figures_paper.h"
#include "genefamily/figures/palette.h"

using namespace bioagent;
using namespace bioagent::figures;

namespace {

// The y of every <text> whose content is one of `labels`.
std::map<std::string, double> text_y(const std::string& svg, const std::set<std::string>& labels) {
  std::map<std::string, double> out;
  std::regex text_re(R"re(<text x="[-0-9.]+" y="([-0-9.]+)"[^>]*>([^<]*)</text>)re");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), text_re); it != std::sregex_iterator(); ++it)
    if (labels.count((*it)[2])) out[(*it)[2]] = std::stod((*it)[1]);
  return out;
}

void expect_apart(const std::map<std::string, double>& y, double gap) {
  std::vector<double> v;
  for (auto& [k, at] : y) v.push_back(at);
  std::sort(v.begin(), v.end());
  for (size_t i = 1; i < v.size(); ++i) EXPECT_GE(v[i] - v[i - 1], gap - 1e-6) << "labels " << i - 1 << " and " << i;
}

// A text's vertical extent as Chromium measures it (DejaVu Sans: ascent 0.93, descent 0.24 of the size), through
// a translate-and-scale transform when it has one.
struct TextSpan {
  std::string text;
  double x = 0, top = 0, bottom = 0;
  bool stacked = false;
};
std::vector<TextSpan> text_spans(const std::string& svg) {
  std::vector<TextSpan> out;
  std::regex text_re(R"re(<text x="([-0-9.]+)" y="([-0-9.]+)" font-size="([0-9.]+)"([^>]*)>([^<]*)</text>)re");
  std::regex scale_re(R"re(translate\(([-0-9.]+) ([-0-9.]+)\) scale\(([-0-9.]+) ([-0-9.]+)\))re");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), text_re); it != std::sregex_iterator(); ++it) {
    const std::string attrs = (*it)[4];
    double x = std::stod((*it)[1]), y = std::stod((*it)[2]), size = std::stod((*it)[3]), sy = 1;
    std::smatch m;
    if (std::regex_search(attrs, m, scale_re)) x += std::stod(m[1]), y += std::stod(m[2]), sy = std::stod(m[4]);
    out.push_back(
        {(*it)[5], x, y - 0.93 * size * sy, y + 0.24 * size * sy, attrs.find("data-stacked") != std::string::npos});
  }
  return out;
}

double svg_width(const std::string& svg) {
  std::smatch m;
  std::regex_search(svg, m, std::regex(R"re(viewBox="0 0 ([0-9.]+) ([0-9.]+)")re"));
  return m.empty() ? 0 : std::stod(m[1]);
}

}  // namespace

TEST(FigureGeometry, TicksAreRoundNumbers) {
  auto t = round_ticks(0.21 * 1.05, 5);
  EXPECT_DOUBLE_EQ(t.step, 0.05);
  std::vector<std::string> labels;
  for (double v : t.values) labels.push_back(tick_label(v, t.decimals));
  EXPECT_EQ(labels, (std::vector<std::string>{"0.00", "0.05", "0.10", "0.15", "0.20", "0.25"}));
  EXPECT_DOUBLE_EQ(round_ticks(1.3, 5).step, 0.5);
  EXPECT_DOUBLE_EQ(round_ticks(9, 5).step, 2);
  EXPECT_EQ(tick_label(round_ticks(0.11, 5).values[1], round_ticks(0.11, 5).decimals), "0.025");
  EXPECT_GE(round_ticks(0.21, 5).values.back(), 0.21);
}

TEST(FigureGeometry, KaKsPairLabelsNeverOverlap) {
  // Four pairs at nearly the same Ka (the example run's case): their names stay a line apart.
  std::vector<KaKs> pairs = {
      {"g1/g2", 0.020, 0.10}, {"g3/g4", 0.021, 0.11}, {"g5/g6", 0.022, 0.12}, {"g7/g8", 0.021, 0.16}};
  std::string svg = kaks(Lang::kEn, pairs, "t");
  auto y = text_y(svg, {"g1/g2", "g3/g4", "g5/g6", "g7/g8"});
  ASSERT_EQ(y.size(), 4u) << svg;
  expect_apart(y, 10);
  EXPECT_NE(svg.find(">0.05<"), std::string::npos) << "round ticks";
  EXPECT_EQ(svg.find(">0.04<"), std::string::npos);
}

TEST(FigureGeometry, ChromosomeMapLabelsNeverOverlap) {
  std::vector<Placed> genes;
  std::set<std::string> names;
  for (int i = 0; i < 8; ++i) {
    genes.push_back({"gene" + std::to_string(i), "Chr1", 1000000 + i * 2000, i < 2 ? 0 : -1});
    names.insert("gene" + std::to_string(i));
  }
  std::string svg = chromosome_map(Lang::kEn, {{"Chr1", 30000000}}, genes, "t");
  auto y = text_y(svg, names);
  ASSERT_EQ(y.size(), 8u);
  expect_apart(y, 10);
}

TEST(FigureGeometry, KsPeaksNeedEnoughPairs) {
  std::vector<double> four = {0.1, 0.12, 0.5, 0.52};
  EXPECT_TRUE(ks_peaks(four).empty()) << "four pairs show the kernel, not a duplication";
  std::string svg = ks_distribution(Lang::kEn, four, "t");
  EXPECT_NE(svg.find("No peak marked: a peak needs at least " + std::to_string(kMinPairsForKsPeaks) + " pairs."),
            std::string::npos);
  EXPECT_EQ(svg.find("data-claim=\"peaks\""), std::string::npos);
  std::vector<double> many;
  for (int i = 0; i < 30; ++i) many.push_back(0.3 + 0.002 * i);
  EXPECT_FALSE(ks_peaks(many).empty());
}

TEST(FigureGeometry, EachMotifHasOneColourInEveryFigure) {
  std::set<std::string> ten;
  for (size_t n = 0; n < 10; ++n) ten.insert(motif_colour(n));
  EXPECT_EQ(ten.size(), 10u) << "ten motifs, ten colours";
  EXPECT_EQ(motif_colour(std::string("motif 3")), motif_colour(size_t(2)));
  for (size_t n = 0; n < 6; ++n) EXPECT_EQ(ten.count(domain_colour(n)), 0u) << "a domain never looks like a motif";
  // The combined panel draws motif 9 in motif 9's colour (the motif map's), not in the next free colour.
  auto t = parse_newick("(A:0.1,B:0.2);");
  ASSERT_TRUE(t);
  std::map<std::string, PanelRow> rows;
  rows["A"] = {100, 500, {{10, 20, "motif 9"}}, {{30, 60, "SBP"}}, {{1, 100, ""}}, {}};
  rows["B"] = {100, 500, {{10, 20, "motif 9"}}, {}, {}, {}};
  std::string svg = combined_panel(Lang::kEn, midpoint_rooted(*t), {}, rows, "t");
  EXPECT_NE(svg.find(std::string("fill=\"") + motif_colour(size_t(8)) + "\""), std::string::npos);
  EXPECT_NE(svg.find(std::string("fill=\"") + domain_colour(0) + "\""), std::string::npos);
}

TEST(FigureGeometry, PromoterFigureSummarisesByCategoryInTheRunsLanguage) {
  std::vector<PromoterElement> elements = {{"G-box", "light"}, {"ABRE", "hormone"}, {"MBS", "stress"}};
  std::string en = promoter_figure(Lang::kEn, {"g1", "g2"}, elements, {{"light", "light"}, {"hormone", "hormone"}},
                                   {{2, 1, 0}, {0, 3, 1}}, "t");
  EXPECT_NE(en.find(">Sites per category<"), std::string::npos);
  EXPECT_EQ(en.find("(light)"), std::string::npos) << "categories are a column of their own, not a suffix";
  EXPECT_NE(en.find(">3<"), std::string::npos) << "g2's hormone sites, written in its summary cell";
  std::string cn = promoter_figure(Lang::kZh, {"g1"}, elements, {{"light", "光响应"}}, {{2, 1, 0}}, "t");
  EXPECT_NE(cn.find("各类别位点数"), std::string::npos);
  EXPECT_EQ(cn.find("per category"), std::string::npos);
}

// A node a short branch above another, half a row apart: their support labels would cover each other.
// Every support drawn keeps clear of every other text; the ones left out are counted under the tree.
TEST(FigureGeometry, TreeSupportLabelsNeverOverlap) {
  auto t = parse_newick("(((A:0.5,(B:0.5,C:0.5)91:0.01)92:0.01,D:0.5)93:0.01,(E:0.5,F:0.5)94:0.5);");
  ASSERT_TRUE(t.is_ok());
  const std::string svg = tree(Lang::kEn, *t, TreeStyle{false, {}, "UFBoot"}, "supports");
  struct Box {
    double x0, y0, x1, y1;
    std::string text;
  };
  std::vector<Box> boxes;
  std::regex text_re(R"re(<text x="([-0-9.]+)" y="([-0-9.]+)" font-size="([0-9.]+)"([^>]*)>([^<]*)</text>)re");
  size_t supports = 0;
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), text_re); it != std::sregex_iterator(); ++it) {
    const std::string text = (*it)[5], attrs = (*it)[4];
    const double x = std::stod((*it)[1]), y = std::stod((*it)[2]), size = std::stod((*it)[3]);
    if (text.empty()) continue;
    const double w = text_width(text, size);
    const bool end = attrs.find("text-anchor=\"end\"") != std::string::npos;
    boxes.push_back({end ? x - w : x, y - 0.8 * size, end ? x : x + w, y + 0.25 * size, text});
    supports += text.size() == 2 && std::isdigit(static_cast<unsigned char>(text[0])) ? 1 : 0;
  }
  ASSERT_FALSE(boxes.empty()) << svg;
  for (size_t i = 0; i < boxes.size(); ++i)
    for (size_t j = i + 1; j < boxes.size(); ++j) {
      const Box &a = boxes[i], &b = boxes[j];
      EXPECT_FALSE(a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1)
          << "\"" << a.text << "\" and \"" << b.text << "\" overlap";
    }
  // All four supports are shown, the crowded one moved below its branch, or the figure counts the missing.
  const bool counted = svg.find("support values not drawn") != std::string::npos;
  EXPECT_TRUE(supports == 4 || counted) << supports << " supports drawn";
  // Of the three nodes a 0.01 branch apart, a label goes only where it clears both the branches and the other
  // labels; the long-branch node (94) and at least one of the crowded ones are always drawn.
  EXPECT_GE(supports, 2u) << "only crowded labels move or go";
}

// The synteny circle: chromosome labels and ticks, the genome's blocks as faint ribbons behind the family's links,
// a tandem pair as an arc on its chromosome (no curve through the centre), member names, the legend in the run's
// language.
TEST(FigureGeometry, SyntenyCircleBlocksBehindLinksAndTandemPairsOnTheChromosome) {
  Circos c;
  c.chromosomes = {{"Chr10", 800000}, {"Chr1", 1000000}, {"Chr2", 600000}};
  c.members = {{"AtX1", "Chr1", 100000}, {"AtX2", "Chr1", 110000}, {"AtX3", "Chr10", 400000}, {"AtX4", "Chr1", 700000}};
  c.member_class = {{"AtX1", "tandem"}, {"AtX2", "tandem"}, {"AtX3", "segmental"}, {"AtX4", "segmental"}};
  c.links = {{"AtX1", "AtX2", "tandem"}};
  c.blocks = {{"Chr1", 600000, 750000, "Chr10", 300000, 450000}};
  for (int i = 0; i < 50; ++i) c.gene_starts["Chr1"].push_back(i * 20000);
  const std::string svg = synteny_circle(Lang::kEn, c, "circle");
  EXPECT_NE(svg.find(">Chr1</text>"), std::string::npos);
  EXPECT_NE(svg.find(">Chr10</text>"), std::string::npos);
  EXPECT_LT(svg.find(">Chr2</text>"), svg.find(">Chr10</text>")) << "natural order: Chr2 before Chr10";
  for (const char* name : {">AtX1<", ">AtX2<", ">AtX3<", ">AtX4<"})
    EXPECT_NE(svg.find(name), std::string::npos) << name;
  EXPECT_NE(svg.find("data-claim=\"ticks\""), std::string::npos) << "scale ticks";
  EXPECT_NE(svg.find("data-claim=\"density\""), std::string::npos) << "gene density track";
  const size_t block = svg.find("data-claim=\"blocks\"");
  ASSERT_NE(block, std::string::npos) << "the genome's block is drawn";
  c.links.push_back({"AtX4", "AtX3", "segmental"});
  const std::string with_segmental = synteny_circle(Lang::kEn, c, "circle");
  const size_t ribbon = with_segmental.find("data-claim=\"blocks\""),
               link = with_segmental.find("data-claim=\"links\"");
  ASSERT_NE(link, std::string::npos);
  EXPECT_LT(ribbon, link) << "the blocks lie behind the family's links";
  const std::string zh_svg = synteny_circle(Lang::kZh, c, "circle");
  EXPECT_NE(zh_svg.find("全基因组共线性区块"), std::string::npos);
  EXPECT_EQ(zh_svg.find("tandem pair"), std::string::npos) << "no English legend in a Chinese run";
  EXPECT_EQ(zh_svg.find("collinear"), std::string::npos);
  // A block on a chromosome the genome does not have is left out, not drawn at a made-up place.
  c.blocks = {{"ChrX", 1, 2, "Chr1", 1, 2}};
  EXPECT_EQ(synteny_circle(Lang::kEn, c, "circle").find("data-claim=\"blocks\""), std::string::npos);
}

TEST(FigureGeometry, MotifLogoLettersStayBetweenTheirHeaderAndPositions) {
  // Each motif with one fully conserved column (a letter the logo's full height, whose box reaches furthest past
  // its ink) and mixed ones; the widest 50 columns, so that the position title needs the canvas's right edge.
  for (size_t width : {6, 12, 50}) {
    Motif m;
    m.width = width;
    m.evalue = 1e-6;
    m.sites = {{0, 0, 1}, {1, 0, 1}};
    for (size_t k = 0; k < width; ++k) {
      std::vector<double> col(20, k == 0 ? 0.0 : 0.2 / 19);
      col[(k * 7) % 20] = k == 0 ? 1.0 : 0.8;
      m.pwm.push_back(col);
    }
    const std::string svg = motif_logos(Lang::kEn, {m}, "t");
    double letters_top = 1e9, letters_bottom = -1e9;
    for (auto& t : text_spans(svg))
      if (t.stacked) letters_top = std::min(letters_top, t.top), letters_bottom = std::max(letters_bottom, t.bottom);
    ASSERT_LT(letters_top, letters_bottom) << svg;
    for (auto& t : text_spans(svg)) {
      if (t.stacked) continue;
      if (t.text == "motif 1" || t.text.rfind("E = ", 0) == 0) {
        EXPECT_LE(t.bottom, letters_top) << t.text;
      }
      if (t.text == "1" || t.text == "5" || t.text == "position") {
        EXPECT_GE(t.top, letters_bottom) << t.text;
      }
      if (t.text == "position") {
        EXPECT_LE(t.x + text_width(t.text, 10), svg_width(svg)) << width << " columns";
      }
    }
  }
}

TEST(FigureGeometry, ChromosomeRulerTitleInsideTheCanvas) {
  // Ticks as narrow as "0" and as wide as "0.20" or "250": the rotated title's glyphs (one ascent left of its
  // baseline) stay right of the canvas's left edge.
  for (int64_t length : {190000, 2000000, 250000000}) {
    const std::string svg = chromosome_map(Lang::kEn, {{"Chr1", length}}, {{"g1", "Chr1", length / 2, -1}}, "t");
    bool found = false;
    for (auto& t : text_spans(svg))
      if (t.text == "Position (Mb)") {
        found = true;
        EXPECT_GE(t.x - 0.93 * 10, 0) << length;
      }
    EXPECT_TRUE(found) << svg;
  }
}
