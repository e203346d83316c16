// The promoter stage: the upstream region of each member (default 2,000 bp,
// strand-aware, clipped at sequence ends, optionally stopped at the
// neighbouring gene) fetched with htslib faidx, scanned on both strands with
// the built-in plant cis-element library and, when given, MEME-format PWMs.
#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "bioagent/json_text.h"
#include "figures/svg.h"
#include "genefamily/algo/cis_scan.h"
#include "genefamily/figures/figures.h"
#include "genefamily/io/genome_index.h"
#include "genefamily/stages/stage_common.h"

namespace bioagent::gf {
namespace {

// A category's name in the run's language.
std::string category_label(const std::string& key, Lang lang) {
  static const std::map<std::string, BiText> kLabels = {{"light", {"light", "光响应"}},
                                                        {"hormone", {"hormone", "激素响应"}},
                                                        {"stress", {"stress", "胁迫响应"}},
                                                        {"development", {"development", "生长发育"}},
                                                        {"PWM", {"PWM matches", "PWM 匹配"}}};
  auto it = kLabels.find(key);
  return it == kLabels.end() ? key : it->second.in(lang);
}

// The categories in the order drawn (light, hormone, stress, development, then any other, e.g. a PWM
// file's), each with its label in the run's language.
std::vector<std::pair<std::string, std::string>> categories_drawn(Lang lang,
                                                                  const std::map<std::string, std::string>& category) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const char* key : {"light", "hormone", "stress", "development"}) out.push_back({key, category_label(key, lang)});
  for (auto& entry : category) {
    const std::string& c = entry.second;  // a named variable: clang's lambdas cannot capture structured bindings
    if (std::none_of(out.begin(), out.end(), [&](auto& o) { return o.first == c; }))
      out.push_back({c, category_label(c, lang)});
  }
  return out;
}

using Pwms = std::vector<std::pair<Pwm, std::array<double, 4>>>;
using GenesOn = std::map<std::string, std::vector<std::pair<int64_t, int64_t>>>;  // seqid -> gene spans

// The MEME file's motifs, each with the file's background; none without a file.
Result<Pwms> read_pwms(const std::string& pwm_path) {
  Pwms pwms;
  if (pwm_path.empty()) return pwms;
  auto text = read_text(pwm_path);
  if (!text) return text.status();
  auto meme = parse_meme(*text, fs::path(pwm_path).filename().string());
  if (!meme) return meme.status();
  for (auto& m : meme->motifs) pwms.push_back({m, meme->background});
  return pwms;
}

// The member's upstream region [a, b] on its strand, `length` bp, stopped at the
// neighbouring gene when `stop`.
std::pair<int64_t, int64_t> upstream_region(const Member& m, int64_t length, bool stop, const GenesOn& genes_on) {
  static const std::vector<std::pair<int64_t, int64_t>> kNone;
  auto it = genes_on.find(m.seqid);
  const auto& genes = it == genes_on.end() ? kNone : it->second;
  int64_t a, b;
  if (m.strand == '-') {
    a = m.end + 1;
    b = m.end + length;
    if (stop)
      for (auto& [s, e] : genes)
        if (s > m.end) b = std::min(b, s - 1);
  } else {
    a = m.start - length;
    b = m.start - 1;
    if (stop)
      for (auto& [s, e] : genes)
        if (e < m.start) a = std::max(a, e + 1);
  }
  return {a, b};
}

// Consensus matches have no p-value: "NA" (not estimated), never a number.
std::string p_text(double v) {
  if (v < 0) return "NA";
  char b[32];
  std::snprintf(b, sizeof b, "%.3g", v);
  return b;
}

// What scanning every member's promoter gathers.
struct PromoterScan {
  std::vector<FastaRecord> promoters;
  std::ostringstream sites;
  std::map<std::string, std::map<std::string, int>> counts;  // gene -> element -> n
  std::map<std::string, std::string> category;               // element -> category
  std::map<std::string, int> short_sites;                    // element -> sites left out for being short
};

// One member's promoter, fetched and scanned with the cis-element library and the PWMs.
Status scan_member(const StageContext& ctx, const Member& m, GenomeIndex& genome, const GenesOn& genes_on,
                   const Pwms& pwms, PromoterScan& scan) {
  const int64_t min_length = ctx.params["min_element_length"];
  auto [a, b] = upstream_region(m, ctx.params["length"], ctx.params["stop_at_neighbour"], genes_on);
  auto seq = genome.fetch(m.seqid, a, b);
  if (!seq) return seq.status();
  std::string p = m.strand == '-' ? reverse_complement(*seq) : *seq;  // 5' -> 3', ending at the gene
  scan.promoters.push_back(
      {m.name, m.seqid + ":" + std::to_string(std::max<int64_t>(1, a)) + "-" + std::to_string(b) + "(" + m.strand + ")",
       p});
  std::vector<CisHit> hits;
  for (auto& h : scan_elements(p))  // consensus words shorter than min_element_length: counted apart
    if (int64_t(h.match.size()) >= min_length)
      hits.push_back(h);
    else
      ++scan.short_sites[h.element];
  for (auto& [pwm, bg] : pwms)
    for (auto& h : scan_pwm(pwm, bg, p, ctx.params["pwm_pvalue"].get<double>(), ctx.params["pwm_qvalue"].get<double>()))
      hits.push_back(h);
  for (auto& h : hits) {
    scan.sites << m.name << '\t' << h.element << '\t' << h.category << '\t' << h.strand << '\t'
               << h.offset - int64_t(p.size()) << '\t' << h.match << '\t' << p_text(h.p_value) << '\t'
               << p_text(h.q_value) << '\n';
    ++scan.counts[m.name][h.element];
    scan.category[h.element] = h.category;
  }
  return {};
}

// The counts matrix: elements present in any promoter, grouped by category, a row per member.
struct CountMatrix {
  std::string tsv;
  std::vector<std::string> rows;
  std::vector<std::vector<double>> values;
  std::vector<figures::PromoterElement> cols;
};

CountMatrix count_matrix(const std::vector<Member>& members, PromoterScan& scan) {
  std::vector<std::string> elements;
  for (auto& [e, c] : scan.category)
    for (auto& [g, row] : scan.counts)
      if (row.count(e)) {
        elements.push_back(e);
        break;
      }
  // Grouped by function, in the figure's order of the categories (light, hormone, stress, development, others).
  const auto rank = [](const std::string& c) {
    const char* order[] = {"light", "hormone", "stress", "development"};
    for (int i = 0; i < 4; ++i)
      if (c == order[i]) return i;
    return 4;
  };
  std::stable_sort(elements.begin(), elements.end(), [&](auto& x, auto& y) {
    return std::make_pair(rank(scan.category[x]), scan.category[x]) <
           std::make_pair(rank(scan.category[y]), scan.category[y]);
  });
  CountMatrix out;
  std::ostringstream matrix;
  matrix << "gene";
  for (auto& e : elements) matrix << '\t' << e;
  matrix << '\n';
  for (auto& m : members) {
    if (m.seqid.empty()) continue;  // no position, no promoter: not a row of zeros
    matrix << m.name;
    std::vector<double> row;
    for (auto& e : elements) {
      int n = scan.counts[m.name][e];
      matrix << '\t' << n;
      row.push_back(n);
    }
    matrix << '\n';
    out.rows.push_back(m.name);
    out.values.push_back(row);
  }
  for (auto& e : elements) out.cols.push_back({e, scan.category[e]});
  out.tsv = matrix.str();
  return out;
}

// promoter.json: sites by category, the eight most frequent elements, what was left out.
Json promoter_summary(const StageContext& ctx, PromoterScan& scan, size_t pwms) {
  std::map<std::string, int> by_category, by_element;
  for (auto& [g, row] : scan.counts)
    for (auto& [e, n] : row) {
      by_category[scan.category[e]] += n;
      by_element[e] += n;
    }
  std::vector<std::pair<int, std::string>> top;
  for (auto& [e, n] : by_element) top.push_back({n, e});
  std::sort(top.rbegin(), top.rend());
  Json top_json = Json::array();
  for (size_t i = 0; i < top.size() && i < 8; ++i)
    top_json.push_back({{"element", top[i].second}, {"sites", top[i].first}});
  return Json{{"promoters", scan.promoters.size()},
              {"length", ctx.params["length"].get<int64_t>()},
              {"pwms", pwms},
              {"sites_by_category", by_category},
              {"min_element_length", ctx.params["min_element_length"].get<int64_t>()},
              {"short_elements_left_out", scan.short_sites},
              {"top_elements", top_json}};
}

Status scan(const StageContext& ctx) {
  auto members = read_members(ctx.input.at("identify"));
  if (!members) return members.status();
  auto gff = read_gff3(ctx.data("gff3"));
  if (!gff) return gff.status();
  auto genome = GenomeIndex::open(ctx.data("genome"), ctx.work / "index");
  if (!genome) return genome.status();
  const int64_t length = ctx.params["length"];
  auto pwms = read_pwms(ctx.params["pwm_meme"]);
  if (!pwms) return pwms.status();
  GenesOn genes_on;  // for the neighbour stop
  for (auto& [id, g] : gff->genes) genes_on[g.seqid].push_back({g.start, g.end});
  PromoterScan scan;
  scan.sites << "gene\telement\tcategory\tstrand\tposition\tmatch\tp_value\tq_value\n";
  for (auto& e : plant_cis_elements()) scan.category[e.name] = e.category;
  for (auto& m : *members)
    if (!m.seqid.empty()) BIOAGENT_RETURN_IF_ERROR(scan_member(ctx, m, **genome, genes_on, *pwms, scan));
  CountMatrix matrix = count_matrix(*members, scan);
  BIOAGENT_RETURN_IF_ERROR(write_fasta(ctx.work / final_name(ctx, "promoters.fasta"), scan.promoters));
  BIOAGENT_RETURN_IF_ERROR(write_text(ctx.work / final_name(ctx, "promoter_sites.tsv"), scan.sites.str()));
  BIOAGENT_RETURN_IF_ERROR(write_text(ctx.work / final_name(ctx, "promoter_counts.tsv"), matrix.tsv));
  std::string title = figure_title(ctx, {" promoter elements (" + std::to_string(length) + " bp upstream)",
                                         " 启动子顺式作用元件（上游 " + std::to_string(length) + " bp）"});
  BIOAGENT_RETURN_IF_ERROR(
      write_text(ctx.work / final_name(ctx, "promoter_heatmap.svg"),
                 figures::promoter_figure(run_lang(ctx), matrix.rows, matrix.cols,
                                          categories_drawn(run_lang(ctx), scan.category), matrix.values, title)));
  return write_text(ctx.work / "promoter.json", json_text(promoter_summary(ctx, scan, pwms->size()), 2));
}

ReportSection report(const ReportContext& r) {
  ReportSection s = section(r, "promoters", {"Promoter elements", "启动子顺式元件"});
  Json j = read_json_or(r.folder.empty() ? fs::path() : r.folder / "promoter.json");
  if (j.empty()) return s;
  std::string by_cat;
  int total = 0;
  const Json cats = j.value("sites_by_category", Json::object());
  for (const char* key : {"light", "hormone", "stress", "development", "PWM"})
    if (cats.contains(key)) {
      total += cats[key].get<int>();
      by_cat += (by_cat.empty() ? "" : BiText{", ", "，"}.in(r.lang)) + category_label(key, r.lang) +
                BiText{" ", " "}.in(r.lang) + json_text(cats[key]);
    }
  std::string top;
  for (auto& t : j.value("top_elements", Json::array()))
    if (top.size() < 200)
      top += (top.empty() ? "" : BiText{", ", "，"}.in(r.lang)) + t.value("element", "") + " (" +
             std::to_string(t.value("sites", 0)) + ")";
  const std::string n = std::to_string(j.value("promoters", 0)), len = std::to_string(j.value("length", 0));
  s.paragraphs.push_back(BiText{"In the " + len + " bp upstream of the " + n + " members with a position, " +
                                    std::to_string(total) + " cis-element sites were found (" + by_cat +
                                    "; {figure}); the most frequent elements: " + top + ".",
                                n + " 个有位置的成员上游 " + len + " bp 内共找到 " + std::to_string(total) +
                                    " 个顺式元件位点（" + by_cat + "；{figure}）；最常见的元件：" + top + "。"}
                             .in(r.lang));
  const int64_t min_length = j.value("min_element_length", 0);
  const Json left_out = j.value("short_elements_left_out", Json::object());
  if (min_length > 0) {
    int sites = 0;
    std::string names;
    for (auto& [e, k] : left_out.items()) sites += k.get<int>(), names += (names.empty() ? "" : ", ") + e;
    // A random word of min_length - 1 bases: expected 2 L / 4^(k) times on both strands of L bp.
    const int64_t promoter_length = j.value("length", 0);
    const double expected = 2.0 * double(promoter_length) / std::pow(4.0, double(min_length - 1));
    const std::string ml = std::to_string(min_length), k = std::to_string(min_length - 1), chance = fmt(expected, 1),
                      bp = std::to_string(promoter_length);
    s.paragraphs.push_back(
        left_out.empty()
            ? BiText{"Only elements of at least " + ml + " bp are counted.", "仅计数不短于 " + ml + " bp 的元件。"}.in(
                  r.lang)
            : BiText{"Consensus elements shorter than " + ml + " bp (" + names + ") are left out of the counts and " +
                         "the figure: " + std::to_string(sites) + " sites; a " + k + "-bp word turns up about " +
                         chance + " times by chance in " + bp + " bp (both strands) and would inflate them (set " +
                         "promoter.min_element_length to change this).",
                     "短于 " + ml + " bp 的共有序列元件（" + names + "）未计入计数和图：共 " + std::to_string(sites) +
                         " 个位点；一个 " + k + " bp 的序列在 " + bp + " bp（两条链）中随机出现约 " + chance +
                         " 次，计入会夸大数目（可用 promoter.min_element_length 更改）。"}
                  .in(r.lang));
  }
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
      "min_element_length": {"type": "integer", "minimum": 4, "maximum": 20, "default": 6,
                             "description": "consensus elements shorter than this are left out of the counts and the figure (said in the report); PWM matches are kept by their q-value"},
      "pwm_meme": {"type": "string", "default": "", "format": "path", "description": "MEME-format motif file scanned as well"},
      "pwm_pvalue": {"type": "number", "minimum": 0, "maximum": 0.01, "default": 1e-4},
      "pwm_qvalue": {"type": "number", "minimum": 0, "maximum": 1, "default": 0.05,
                     "description": "PWM matches kept at most this q-value (Benjamini-Hochberg over the promoter's positions, as FIMO)"}
    }, "additionalProperties": false})JS");
  s.steps = [](const StageContext&) -> Result<std::vector<Step>> { return std::vector<Step>{StageFn(scan)}; };
  s.outputs = {"promoter.json"};
  s.parse = summary_file("promoter.json");
  s.report = report;
  s.revision = 3;  // 2: elements shorter than min_element_length left out; the category summary beside the heatmap;
                   // 3: the members' names, elements grouped by function
  return s;
}

}  // namespace bioagent::gf
