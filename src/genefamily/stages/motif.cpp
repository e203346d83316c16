// The motif stage: our ZOOPS/EM motif discovery on the members' proteins
// (default 10 motifs of width 6-50), MEME-format output, a per-gene motif map
// in the members' order, and sequence logos.
#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "figures/svg.h"
#include "genefamily/algo/motif_em.h"
#include "genefamily/figures/figures.h"
#include "genefamily/figures/figures_paper.h"
#include "genefamily/figures/palette.h"
#include "genefamily/stages/stage_common.h"

namespace bioagent::gf {
namespace {

constexpr const char* kProtein = "ACDEFGHIKLMNPQRSTVWY";

const char* residue_colour(char c) {  // by chemistry, colour-blind-safe hues
  switch (c) {
    case 'D':
    case 'E':
      return "#D55E00";  // acidic
    case 'K':
    case 'R':
    case 'H':
      return "#0072B2";  // basic
    case 'S':
    case 'T':
    case 'N':
    case 'Q':
    case 'C':
    case 'Y':
      return "#009E73";  // polar
    case 'G':
    case 'P':
      return "#E69F00";  // special
    default:
      return "#000000";  // hydrophobic
  }
}

// One logo per motif: letters stacked by their share of the column's
// information (bits, up to log2 20), a bits axis at the left, the motif's name
// in its colour (the motif map's and the combined panel's) and its consensus
// under the logo.
std::string logos(Lang lang, const std::vector<Motif>& motifs, const std::string& title) {
  const double col_w = 14, height = 80, gap = 44, left = 110, top = 44;
  const double max_bits = std::log2(20.0);
  double widest = 0;  // the longest logo with its consensus beside it
  for (auto& m : motifs) widest = std::max(widest, col_w * double(m.width) + 10 + figures::text_width(m.consensus, 9));
  const double width = std::max(left + widest + 20, figures::text_width(title, 14) + 40);
  svg::Doc d(width, top + double(motifs.size()) * (height + gap) + 10, title);
  d.text(20, 22, title, 14, "start", "font-weight=\"bold\"");
  for (size_t n = 0; n < motifs.size(); ++n) {
    const double y0 = top + double(n) * (height + gap) + height;  // the baseline (0 bits)
    const std::string name = "MEME-" + std::to_string(n + 1);
    d.rect(10, y0 - height / 2 - 9, 10, 10, figures::motif_colour(n));
    d.text(24, y0 - height / 2, name, 10);
    // The bits axis: 0 to 4 bits (log2 20 = 4.32 at most for proteins).
    const double ax = left - 6;
    d.line(ax, y0, ax, y0 - 4 / max_bits * height, "#333333", 0.8);
    for (int b = 0; b <= 4; b += 2) {
      double y = y0 - b / max_bits * height;
      d.line(ax - 3, y, ax, y, "#333333", 0.8);
      d.text(ax - 5, y + 3, std::to_string(b), 8, "end");
    }
    d.text(ax - 20, y0 - height / 2, BiText{"bits", "比特"}.in(lang), 8, "middle",
           "transform=\"rotate(-90 " + svg::num(ax - 20) + " " + svg::num(y0 - height / 2) + ")\"");
    d.line(left, y0, left + col_w * double(motifs[n].width), y0, "#999999", 0.5);
    for (size_t k = 0; k < motifs[n].width; ++k) {
      const auto& col = motifs[n].pwm[k];
      double h = 0;
      for (double p : col)
        if (p > 0) h -= p * std::log2(p);
      double ic = std::max(0.0, max_bits - h);
      std::vector<std::pair<double, char>> letters;
      for (size_t a = 0; a < col.size(); ++a) letters.push_back({col[a] * ic, kProtein[a]});
      std::sort(letters.begin(), letters.end());
      double y = y0;
      for (auto& [bits, c] : letters) {
        double px = bits / max_bits * height;
        if (px < 1) continue;
        double x = left + col_w * double(k);
        // A 14 px glyph (cap height ~10.5 px) scaled to the letter's height; stacked letters meet by design.
        d.text(0, 0, std::string(1, c), 14, "middle",
               "data-stacked=\"1\" fill=\"" + std::string(residue_colour(c)) +
                   "\" font-weight=\"bold\" transform=\"translate(" + svg::num(x + col_w / 2) + " " + svg::num(y) +
                   ") scale(1 " + svg::num(px / 10.5) + ")\"");
        y -= px;
      }
    }
    d.text(left + col_w * double(motifs[n].width) + 10, y0 - 4, motifs[n].consensus, 9);
  }
  return d.str();
}

std::string motif_map(const std::vector<std::string>& genes, const std::map<std::string, size_t>& length,
                      const std::map<std::string, std::vector<std::pair<size_t, MotifSite>>>& sites,
                      const std::vector<Motif>& motifs, const std::string& title) {
  size_t longest = 1;
  for (auto& [g, l] : length) longest = std::max(longest, l);
  double row = 20, left = 130, width = 560, top = 44;
  svg::Doc d(left + width + 160, top + row * double(genes.size()) + 30, title);
  d.text(20, 22, title, 14, "start", "font-weight=\"bold\"");
  for (size_t i = 0; i < genes.size(); ++i) {
    double y = top + double(i) * row;
    d.text(left - 8, y + 4, genes[i], 10, "end");
    double len = double(length.count(genes[i]) ? length.at(genes[i]) : 0);
    d.line(left, y, left + len / double(longest) * width, y, "#777777", 1.5);
    if (auto it = sites.find(genes[i]); it != sites.end())
      for (auto& [motif, s] : it->second)
        d.rect(left + double(s.start) / double(longest) * width, y - 6,
               double(motifs[motif].width) / double(longest) * width, 12, figures::motif_colour(motif), "#333333",
               "stroke-width=\"0.3\"");
  }
  std::vector<std::pair<std::string, std::string>> legend;
  for (size_t n = 0; n < motifs.size(); ++n)
    legend.push_back({"MEME-" + std::to_string(n + 1), figures::motif_colour(n)});
  d.legend(left + width + 20, top, legend);
  return d.str();
}

Status discover(const StageContext& ctx) {
  auto pep = read_fasta(ctx.input.at("identify") / final_name(ctx, "pep.fasta"));
  if (!pep) return pep.status();
  for (auto& r : *pep) r.seq.erase(std::remove(r.seq.begin(), r.seq.end(), '*'), r.seq.end());
  MotifOptions o;
  o.motifs = ctx.params["motifs"];
  o.min_width = ctx.params["min_width"];
  o.max_width = ctx.params["max_width"];
  auto motifs = discover_motifs(*pep, kProtein, o);
  auto bg = background_frequencies(*pep, kProtein);
  BIOAGENT_RETURN_IF_ERROR(
      write_text(ctx.work / final_name(ctx, "motifs.meme.txt"), motifs_to_meme(motifs, kProtein, bg)));
  std::ostringstream tsv;
  tsv << "gene\tmotif\tstart\tend\tsite\tprobability\n";
  std::map<std::string, std::vector<std::pair<size_t, MotifSite>>> by_gene;
  std::map<std::string, size_t> length;
  for (auto& r : *pep) length[r.id] = r.seq.size();
  Json summary = Json::array();
  for (size_t n = 0; n < motifs.size(); ++n) {
    for (auto& s : motifs[n].sites) {
      const auto& r = (*pep)[s.sequence];
      tsv << r.id << "\tMEME-" << n + 1 << '\t' << s.start + 1 << '\t' << s.start + motifs[n].width << '\t'
          << r.seq.substr(s.start, motifs[n].width) << '\t' << s.probability << '\n';
      by_gene[r.id].push_back({n, s});
    }
    summary.push_back({{"motif", "MEME-" + std::to_string(n + 1)},
                       {"consensus", motifs[n].consensus},
                       {"width", motifs[n].width},
                       {"sites", motifs[n].sites.size()},
                       {"evalue_like", motifs[n].evalue}});
  }
  // The members' own order: the tree-ordered view is the combined figure's (panel), so this
  // figure does not wait for the tree.
  std::vector<std::string> order;
  for (auto& r : *pep) order.push_back(r.id);
  BIOAGENT_RETURN_IF_ERROR(write_text(ctx.work / final_name(ctx, "motif_sites.tsv"), tsv.str()));
  BIOAGENT_RETURN_IF_ERROR(
      write_text(ctx.work / final_name(ctx, "motif_map.svg"),
                 motif_map(order, length, by_gene, motifs, figure_title(ctx, {" motifs", " 保守基序"}))));
  BIOAGENT_RETURN_IF_ERROR(
      write_text(ctx.work / final_name(ctx, "motif_logos.svg"),
                 logos(run_lang(ctx), motifs, figure_title(ctx, {" motif logos", " 基序标识图"}))));
  return write_text(ctx.work / "motif.json", Json{{"motifs", summary}, {"count", motifs.size()}}.dump(2));
}

ReportSection report(const ReportContext& r) {
  ReportSection s = section(r, "motifs", {"Motifs", "Motif 分析"});
  Json j = read_json_or(r.folder.empty() ? fs::path() : r.folder / "motif.json");
  std::string p;
  for (auto& m : j.value("motifs", Json::array()))
    p += m.value("motif", "") + " " + m.value("consensus", "") + " (" + std::to_string(m.value("sites", 0)) +
         BiText{" sites); ", " 个位点); "}.in(r.lang);
  if (!p.empty()) s.paragraphs.push_back(p);
  const std::string base = final_base(r.ctx);
  s.figures = {base + "motif_map.svg", base + "motif_logos.svg"};
  return s;
}

}  // namespace

StageSpec motif_stage() {
  StageSpec s;
  s.name = "motif";
  s.label = "motif discovery";
  s.label_zh = "motif分析";
  s.description = "Motif discovery (our ZOOPS/EM, MEME-style) on the members' proteins, motif map and logos";
  s.after = {"identify"};
  s.params_schema = Json::parse(R"JS({"type": "object", "properties": {
      "motifs": {"type": "integer", "minimum": 1, "maximum": 30, "default": 10},
      "min_width": {"type": "integer", "minimum": 4, "maximum": 50, "default": 6},
      "max_width": {"type": "integer", "minimum": 4, "maximum": 100, "default": 50}
    }, "additionalProperties": false})JS");
  s.steps = [](const StageContext&) -> Result<std::vector<Step>> { return std::vector<Step>{StageFn(discover)}; };
  s.outputs = {"motif.json"};
  s.parse = summary_file("motif.json");
  s.report = report;
  s.revision = 3;  // 2: one colour per motif shared with the panel; logos with a bits axis; 3: the members' order
  return s;
}

}  // namespace bioagent::gf
