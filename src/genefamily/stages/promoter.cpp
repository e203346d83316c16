// The promoter stage: the upstream region of each member (default 2,000 bp,
// strand-aware, clipped at sequence ends, optionally stopped at the
// neighbouring gene) fetched with htslib faidx, scanned on both strands with
// the built-in plant cis-element library and, when given, MEME-format PWMs.
#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "genefamily/algo/cis_scan.h"
#include "genefamily/figures/figures.h"
#include "genefamily/io/genome_index.h"
#include "genefamily/stages/stage_common.h"

namespace bioagent::gf {
namespace {

Status scan(const StageContext& ctx) {
  auto members = read_members(ctx.input.at("identify"));
  if (!members) return members.status();
  auto gff = read_gff3(ctx.data("gff3"));
  if (!gff) return gff.status();
  auto genome = GenomeIndex::open(ctx.data("genome"), ctx.work / "index");
  if (!genome) return genome.status();
  const int64_t length = ctx.params["length"];
  const bool stop = ctx.params["stop_at_neighbour"];
  std::vector<std::pair<Pwm, std::array<double, 4>>> pwms;
  std::string pwm_path = ctx.params["pwm_meme"];
  if (!pwm_path.empty()) {
    auto text = read_text(pwm_path);
    if (!text) return text.status();
    auto meme = parse_meme(*text, fs::path(pwm_path).filename().string());
    if (!meme) return meme.status();
    for (auto& m : meme->motifs) pwms.push_back({m, meme->background});
  }
  std::map<std::string, std::vector<std::pair<int64_t, int64_t>>> genes_on;  // for the neighbour stop
  for (auto& [id, g] : gff->genes) genes_on[g.seqid].push_back({g.start, g.end});
  std::vector<FastaRecord> promoters;
  std::ostringstream sites;
  sites << "gene\telement\tcategory\tstrand\tposition\tmatch\tp_value\tq_value\n";
  std::map<std::string, std::map<std::string, int>> counts;  // gene -> element -> n
  std::map<std::string, std::string> category;
  for (auto& e : plant_cis_elements()) category[e.name] = e.category;
  for (auto& m : *members) {
    if (m.seqid.empty()) continue;
    int64_t a, b;
    if (m.strand == '-') {
      a = m.end + 1;
      b = m.end + length;
      if (stop)
        for (auto& [s, e] : genes_on[m.seqid])
          if (s > m.end) b = std::min(b, s - 1);
    } else {
      a = m.start - length;
      b = m.start - 1;
      if (stop)
        for (auto& [s, e] : genes_on[m.seqid])
          if (e < m.start) a = std::max(a, e + 1);
    }
    auto seq = (*genome)->fetch(m.seqid, a, b);
    if (!seq) return seq.status();
    std::string p = m.strand == '-' ? reverse_complement(*seq) : *seq;  // 5' -> 3', ending at the gene
    promoters.push_back(
        {m.gene,
         m.seqid + ":" + std::to_string(std::max<int64_t>(1, a)) + "-" + std::to_string(b) + "(" + m.strand + ")", p});
    std::vector<CisHit> hits = scan_elements(p);
    for (auto& [pwm, bg] : pwms)
      for (auto& h :
           scan_pwm(pwm, bg, p, ctx.params["pwm_pvalue"].get<double>(), ctx.params["pwm_qvalue"].get<double>()))
        hits.push_back(h);
    for (auto& h : hits) {
      // Consensus matches have no p-value: "NA" (not estimated), never a number.
      auto num = [](double v) {
        if (v < 0) return std::string("NA");
        char b[32];
        std::snprintf(b, sizeof b, "%.3g", v);
        return std::string(b);
      };
      sites << m.gene << '\t' << h.element << '\t' << h.category << '\t' << h.strand << '\t'
            << h.offset - int64_t(p.size()) << '\t' << h.match << '\t' << num(h.p_value) << '\t' << num(h.q_value)
            << '\n';
      ++counts[m.gene][h.element];
      category[h.element] = h.category;
    }
  }
  // Counts matrix: elements present in any promoter, grouped by category.
  std::vector<std::string> elements;
  for (auto& [e, c] : category)
    for (auto& [g, row] : counts)
      if (row.count(e)) {
        elements.push_back(e);
        break;
      }
  std::stable_sort(elements.begin(), elements.end(), [&](auto& x, auto& y) { return category[x] < category[y]; });
  std::ostringstream matrix;
  matrix << "gene";
  for (auto& e : elements) matrix << '\t' << e;
  matrix << '\n';
  std::vector<std::string> rows;
  std::vector<std::vector<double>> values;
  for (auto& m : *members) {
    matrix << m.gene;
    std::vector<double> row;
    for (auto& e : elements) {
      int n = counts[m.gene][e];
      matrix << '\t' << n;
      row.push_back(n);
    }
    matrix << '\n';
    rows.push_back(m.gene);
    values.push_back(row);
  }
  std::vector<std::string> cols;
  for (auto& e : elements) cols.push_back(e + " (" + category[e] + ")");
  BIOAGENT_RETURN_IF_ERROR(write_fasta(ctx.work / final_name(ctx, "promoters.fasta"), promoters));
  BIOAGENT_RETURN_IF_ERROR(write_text(ctx.work / final_name(ctx, "promoter_sites.tsv"), sites.str()));
  BIOAGENT_RETURN_IF_ERROR(write_text(ctx.work / final_name(ctx, "promoter_counts.tsv"), matrix.str()));
  std::string title = figure_title(ctx, " promoter elements (" + std::to_string(length) + " bp upstream)",
                                   " 启动子顺式作用元件（上游 " + std::to_string(length) + " bp）");
  BIOAGENT_RETURN_IF_ERROR(write_text(ctx.work / final_name(ctx, "promoter_heatmap.svg"),
                                      figures::heatmap(rows, cols, values, false, title, svg::tr("sites", "位点数"))));
  std::map<std::string, int> by_category, by_element;
  for (auto& [g, row] : counts)
    for (auto& [e, n] : row) {
      by_category[category[e]] += n;
      by_element[e] += n;
    }
  std::vector<std::pair<int, std::string>> top;
  for (auto& [e, n] : by_element) top.push_back({n, e});
  std::sort(top.rbegin(), top.rend());
  Json top_json = Json::array();
  for (size_t i = 0; i < top.size() && i < 8; ++i)
    top_json.push_back({{"element", top[i].second}, {"sites", top[i].first}});
  return write_text(ctx.work / "promoter.json", Json{{"promoters", promoters.size()},
                                                     {"length", length},
                                                     {"pwms", pwms.size()},
                                                     {"sites_by_category", by_category},
                                                     {"top_elements", top_json}}
                                                    .dump(2));
}

ReportSection report(const ReportContext& r) {
  ReportSection s = section(r, "promoters", "Promoter elements", "启动子顺式元件");
  Json j = read_json_or(r.folder.empty() ? fs::path() : r.folder / "promoter.json");
  if (j.empty()) return s;
  s.paragraphs.push_back((r.zh ? "各类元件位点数：" : "Sites by category: ") +
                         join_counts(j.value("sites_by_category", Json::object())) + " (" +
                         std::to_string(j.value("length", 0)) + (r.zh ? " bp 上游)" : " bp upstream)"));
  s.figures = {final_base(r.ctx) + "promoter_heatmap.svg"};
  return s;
}

}  // namespace

StageSpec promoter_stage() {
  StageSpec s;
  s.name = "promoter";
  s.label = "promoter cis-elements";
  s.label_zh = "启动子分析";
  s.description = "Upstream regions (htslib faidx) scanned for plant cis-elements and optional PWMs";
  s.after = {"identify"};
  s.needs = {"genome", "gff3"};
  s.data_files = {"genome", "gff3"};
  s.params_schema = Json::parse(R"JS({"type": "object", "properties": {
      "length": {"type": "integer", "minimum": 50, "maximum": 10000, "default": 2000},
      "stop_at_neighbour": {"type": "boolean", "default": false, "description": "end the region at the next gene upstream"},
      "pwm_meme": {"type": "string", "default": "", "description": "MEME-format motif file scanned as well"},
      "pwm_pvalue": {"type": "number", "minimum": 0, "maximum": 0.01, "default": 1e-4},
      "pwm_qvalue": {"type": "number", "minimum": 0, "maximum": 1, "default": 0.05,
                     "description": "PWM matches kept at most this q-value (Benjamini-Hochberg over the promoter's positions, as FIMO)"}
    }, "additionalProperties": false})JS");
  s.steps = [](const StageContext&) -> Result<std::vector<Step>> { return std::vector<Step>{StageFn(scan)}; };
  s.outputs = {"promoter.json"};
  s.parse = summary_file("promoter.json");
  s.report = report;
  return s;
}

}  // namespace bioagent::gf
