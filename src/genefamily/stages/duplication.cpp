// The duplication context stage: Ks of every collinear anchor pair across the
// genome (the whole-genome background: codon alignments of each gene's
// longest protein, PAML yn00), the peaks of that distribution (whole-genome
// or large segmental duplications), and the family's own collinear pairs
// placed on it — which peak each falls in — with the members' duplicate
// classes from the synteny stage (MCScanX's classifier).
#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "bioagent/json_text.h"
#include "genefamily/figures/figures_paper.h"
#include "genefamily/stages/stage_common.h"

namespace bioagent::gf {
namespace {

using GenePair = std::pair<std::string, std::string>;

// anchors.tsv of the synteny stage: (gene_a, gene_b) per anchor, each pair once.
Result<std::vector<GenePair>> read_anchors(const fs::path& synteny) {
  auto t = read_text(synteny / "anchors.tsv");
  if (!t) return t.status();
  std::vector<GenePair> out;
  std::set<GenePair> seen;
  std::istringstream in(*t);
  std::string line, block, a, b;
  std::getline(in, line);
  while (std::getline(in, line)) {
    std::istringstream row(line);
    if (!std::getline(row, block, '\t') || !std::getline(row, a, '\t') || !std::getline(row, b, '\t')) continue;
    if (a > b) std::swap(a, b);
    if (seen.insert({a, b}).second) out.push_back({a, b});
  }
  return out;
}

// pairs.tsv, pairs.phy and yn00.ctl for the anchor pairs (every k-th when there are more than
// max_pairs); the proteins are the synteny stage's longest per gene, the CDS those of the same ids.
Status prepare(const StageContext& ctx, const std::vector<GenePair>& anchors) {
  auto proteome = read_fasta(ctx.input.at("synteny") / "proteome.fasta");
  auto cds = read_fasta(ctx.data("cds"));
  if (!proteome || !cds) return proteome ? cds.status() : proteome.status();
  std::map<std::string, std::pair<std::string, std::string>> gene;  // gene -> (protein id, protein)
  for (auto& r : *proteome) gene[r.id] = {r.description.substr(0, r.description.find(' ')), r.seq};
  std::map<std::string, const std::string*> coding;
  for (auto& r : *cds) coding[r.id] = &r.seq;
  const size_t max_pairs = size_t(ctx.params["max_pairs"].get<int>());
  const size_t every = std::max<size_t>(1, (anchors.size() + max_pairs - 1) / max_pairs);
  std::ostringstream phy, list;
  list << "gene_a\tgene_b\n";
  size_t n = 0, no_cds = 0;
  for (size_t i = 0; i < anchors.size(); i += every) {
    const auto& [a, b] = anchors[i];
    auto ga = gene.find(a), gb = gene.find(b);
    if (ga == gene.end() || gb == gene.end() || !coding.count(ga->second.first) || !coding.count(gb->second.first)) {
      ++no_cds;
      continue;
    }
    auto block = codon_pair_phylip(a, ga->second.second, *coding[ga->second.first], b, gb->second.second,
                                   *coding[gb->second.first]);
    if (!block) {
      ++no_cds;
      continue;
    }
    phy << *block;
    list << a << '\t' << b << '\n';
    ++n;
  }
  if (n == 0)
    return invalid_argument("none of the " + std::to_string(anchors.size()) +
                            " collinear anchor pairs has CDS that encode their proteins: the CDS file's ids must "
                            "be the protein file's ids (" +
                            ctx.data("cds").filename().string() + ")");
  BIOAGENT_RETURN_IF_ERROR(write_text(ctx.work / "pairs.phy", phy.str()));
  BIOAGENT_RETURN_IF_ERROR(write_text(ctx.work / "pairs.tsv", list.str()));
  BIOAGENT_RETURN_IF_ERROR(write_text(
      ctx.work / "prepare.json",
      json_text(
          Json{{"anchor_pairs", anchors.size()}, {"sampled_every", every}, {"aligned", n}, {"without_cds", no_cds}},
          2)));
  return write_text(ctx.work / "yn00.ctl", yn00_control("pairs.phy", n));
}

std::vector<GenePair> read_pairs(const std::string& text) {
  std::vector<GenePair> out;
  std::istringstream in(text);
  std::string line;
  std::getline(in, line);
  while (std::getline(in, line)) {
    auto tab = line.find('\t');
    if (tab != std::string::npos) out.push_back({line.substr(0, tab), line.substr(tab + 1)});
  }
  return out;
}

// The peak a Ks value belongs to: the nearest one within half the distance to its neighbours
// (and within 0.3), else -1.
int peak_of(double ks, const std::vector<figures::KsPeak>& peaks) {
  int best = -1;
  for (size_t i = 0; i < peaks.size(); ++i) {
    double reach = 0.3;
    if (i > 0) reach = std::min(reach, (peaks[i].ks - peaks[i - 1].ks) / 2);
    if (i + 1 < peaks.size()) reach = std::min(reach, (peaks[i + 1].ks - peaks[i].ks) / 2);
    if (std::fabs(ks - peaks[i].ks) <= reach) best = int(i);
  }
  return best;
}

Status summarise(const StageContext& ctx) {
  auto list = read_text(ctx.work / "pairs.tsv");
  auto out = read_text(ctx.work / "yn00.out");
  auto members = read_members(ctx.input.at("identify"));
  if (!list || !out || !members) return !list ? list.status() : !out ? out.status() : members.status();
  const auto pairs = read_pairs(*list);
  const auto values = parse_yn00(*out);
  const double max_ks = ctx.params["max_ks"];
  std::map<std::string, std::string> name;  // the genome's gene id -> the member's name
  for (auto& m : *members) name[m.gene] = m.name;
  auto shown = [&](const std::string& gene) { return name.count(gene) ? name.at(gene) : gene; };
  std::vector<double> background, family;
  std::vector<std::pair<std::string, double>> family_pairs;
  size_t not_estimated = 0, saturated = 0;
  std::ostringstream tsv;
  tsv << "gene_a\tgene_b\tKs\tstatus\tfamily_pair\n";
  for (size_t i = 0; i < pairs.size(); ++i) {
    const double ks = i < values.size() ? values[i].ds : NAN;
    const bool both = name.count(pairs[i].first) && name.count(pairs[i].second);
    const std::string status = !std::isfinite(ks) ? "not estimated" : ks > max_ks ? "saturated" : "estimated";
    tsv << shown(pairs[i].first) << '\t' << shown(pairs[i].second) << '\t' << (std::isfinite(ks) ? fmt(ks, 4) : "NA")
        << '\t' << status << '\t' << (both ? "yes" : "no") << '\n';
    if (status != "estimated") {
      ++(status == "saturated" ? saturated : not_estimated);
      continue;
    }
    background.push_back(ks);
    if (both) family.push_back(ks), family_pairs.push_back({shown(pairs[i].first) + "/" + shown(pairs[i].second), ks});
  }
  BIOAGENT_RETURN_IF_ERROR(write_text(ctx.work / final_name(ctx, "genome_ks.tsv"), tsv.str()));
  const auto peaks = figures::ks_peaks(background, max_ks);
  Json peak_rows = Json::array(), family_rows = Json::array();
  std::vector<int> in_peak(peaks.size(), 0), family_in_peak(peaks.size(), 0);
  for (double k : background)
    if (int p = peak_of(k, peaks); p >= 0) ++in_peak[size_t(p)];
  for (auto& [pair, ks] : family_pairs) {
    const int p = peak_of(ks, peaks);
    if (p >= 0) ++family_in_peak[size_t(p)];
    family_rows.push_back({{"pair", pair}, {"ks", ks}, {"peak_ks", p >= 0 ? Json(peaks[size_t(p)].ks) : Json()}});
  }
  for (size_t i = 0; i < peaks.size(); ++i)
    peak_rows.push_back({{"ks", peaks[i].ks}, {"pairs", in_peak[i]}, {"family_pairs", family_in_peak[i]}});
  const std::string title = figure_title(ctx, {": genome-wide Ks of collinear gene pairs, family pairs marked",
                                               "：全基因组共线基因对的 Ks 分布（家族基因对已标出）"});
  BIOAGENT_RETURN_IF_ERROR(write_text(
      ctx.work / final_name(ctx, "genome_ks.svg"),
      figures::ks_distribution(run_lang(ctx), background, title, max_ks, family,
                               BiText{"collinear gene pairs of the genome", "全基因组共线基因对"}.in(run_lang(ctx)))));
  Json prep = read_json_or(ctx.work / "prepare.json");
  return write_text(ctx.work / "duplication.json", json_text(Json{{"anchor_pairs", prep.value("anchor_pairs", 0)},
                                                                  {"sampled_every", prep.value("sampled_every", 1)},
                                                                  {"without_cds", prep.value("without_cds", 0)},
                                                                  {"estimated", background.size()},
                                                                  {"not_estimated", not_estimated},
                                                                  {"saturated", saturated},
                                                                  {"max_ks", max_ks},
                                                                  {"peaks", peak_rows},
                                                                  {"family_pairs", family_rows}},
                                                             2));
}

ReportSection report(const ReportContext& r) {
  ReportSection s = section(r, "duplication", {"Duplication context (genome-wide Ks)", "全基因组复制背景（Ks）"});
  Json j = read_json_or(r.folder.empty() ? fs::path() : r.folder / "duplication.json");
  if (j.empty() || j.value("skipped", false)) return s;
  std::string peaks;
  for (auto& p : j.value("peaks", Json::array()))
    peaks += (peaks.empty() ? "" : BiText{"; ", "；"}.in(r.lang)) +
             ("Ks " + fmt(p.value("ks", 0.0), 2) +
              BiText{" (" + std::to_string(p.value("pairs", 0)) + " pairs, " +
                         std::to_string(p.value("family_pairs", 0)) + " of the family)",
                     "（" + std::to_string(p.value("pairs", 0)) + " 对，家族 " +
                         std::to_string(p.value("family_pairs", 0)) + " 对）"}
                  .in(r.lang));
  const std::string est = std::to_string(j.value("estimated", 0)), all = std::to_string(j.value("anchor_pairs", 0));
  const std::string fam = std::to_string(j.value("family_pairs", Json::array()).size());
  s.paragraphs.push_back(
      BiText{"Ks was estimated (yn00) for " + est + " of the genome's " + all +
                 " collinear anchor pairs. Peaks of the distribution: " +
                 (peaks.empty() ? std::string("none (too few pairs to show one)") : peaks) + ". The family's " + fam +
                 " collinear pairs are marked in red ({figure}); a family pair within a peak is as old as that "
                 "whole-genome or large segmental duplication.",
             "全基因组 " + all + " 对共线锚点基因中 " + est + " 对的 Ks 可估计（yn00）。分布的峰：" +
                 (peaks.empty() ? std::string("无（基因对太少，不足以显示峰）") : peaks) + "。家族内共线基因对 " + fam +
                 " 对，其 Ks 在图中以红色标出（{figure}）；落在某个峰内的家族基因对与该次全基因组或大片段复制同期。"}
          .in(r.lang));
  if (j.value("sampled_every", 1) > 1)
    s.paragraphs.push_back(
        BiText{"There were more anchor pairs than max_pairs: every " + std::to_string(j.value("sampled_every", 1)) +
                   "th pair was used.",
               "锚点基因对过多，每 " + std::to_string(j.value("sampled_every", 1)) + " 对取 1 对计算。"}
            .in(r.lang));
  s.figures = {final_base(r.ctx) + "genome_ks.svg"};
  return s;
}

}  // namespace

StageSpec duplication_stage() {
  StageSpec s;
  s.name = "duplication";
  s.label = "duplication context (genome-wide Ks)";
  s.label_zh = "全基因组复制背景";
  s.description = "Ks of all collinear anchor pairs (yn00), its peaks, and the family's pairs placed on them";
  s.after = {"identify", "synteny"};
  s.needs = {"cds"};
  s.programs = {"yn00"};
  s.revision = 2;  // 2: the members' names in its tables
  s.params_schema = Json::parse(R"JS({"type": "object", "properties": {
      "max_ks": {"type": "number", "minimum": 0.5, "maximum": 10, "default": 3, "description": "Ks above this is saturated: left out of the distribution"},
      "max_pairs": {"type": "integer", "minimum": 100, "maximum": 200000, "default": 30000, "description": "anchor pairs estimated at most (every k-th beyond it)"}
    }, "additionalProperties": false})JS");
  s.steps = [](const StageContext& ctx) -> Result<std::vector<Step>> {
    auto anchors = read_anchors(ctx.input.at("synteny"));
    if (!anchors || anchors->empty()) {  // synteny found no blocks (or was skipped): nothing to estimate
      const std::string why = anchors ? "the synteny stage found no collinear anchor pairs"
                                      : "the synteny stage wrote no anchor table: " + anchors.status().message();
      return std::vector<Step>{StageFn([why](const StageContext& c) {
        return write_text(c.work / "duplication.json", json_text(Json{{"skipped", true}, {"reason", why}}, 2));
      })};
    }
    return std::vector<Step>{StageFn([a = *anchors](const StageContext& c) { return prepare(c, a); }),
                             Command{{"yn00", "yn00.ctl"}, "yn00.stdout", ""}, StageFn(summarise)};
  };
  s.outputs = {"duplication.json"};
  s.parse = [](const StageContext& ctx) -> Result<Json> {
    auto j = summary_file("duplication.json")(ctx);
    if (j) j->erase("family_pairs");
    return j;
  };
  s.report = report;
  return s;
}

}  // namespace bioagent::gf
