// The Ka/Ks stage: duplicated pairs (tandem clusters, and mutual best matches
// among the members by global protein alignment), codon alignments (the
// protein alignment laid back onto the CDS), Ka, Ks and Ka/Ks by PAML yn00
// (Yang & Nielsen 2000), and divergence times T = Ks / 2r.
#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>

#include "bioagent/json_text.h"
#include "genefamily/algo/align.h"
#include "genefamily/algo/natural_order.h"
#include "genefamily/figures/figures.h"
#include "genefamily/figures/figures_paper.h"
#include "genefamily/stages/stage_common.h"

namespace bioagent::gf {
namespace {

struct Pair {
  std::string a, b, kind;
  double identity = 0;
};

Result<std::vector<Pair>> find_pairs(const StageContext& ctx) {
  auto pep = read_fasta(ctx.input.at("identify") / final_name(ctx, "pep.fasta"));
  if (!pep) return pep.status();
  std::vector<Pair> pairs;
  std::set<std::pair<std::string, std::string>> seen;
  auto add = [&](std::string a, std::string b, const std::string& kind, double id) {
    if (natural_less(b, a)) std::swap(a, b);
    if (seen.insert({a, b}).second) pairs.push_back({a, b, kind, id});
  };
  // Tandem clusters from the chromosome stage (when it placed the members): consecutive members in a cluster.
  if (auto t = ctx.input.count("chromosome")
                   ? read_text(ctx.input.at("chromosome") / final_name(ctx, "chromosome_positions.tsv"))
                   : Result<std::string>(not_found("no positions"))) {
    std::istringstream in(*t);
    std::string line, prev_gene, prev_cluster;
    std::getline(in, line);
    while (std::getline(in, line)) {
      std::vector<std::string> f;
      std::istringstream row(line);
      for (std::string x; std::getline(row, x, '\t');) f.push_back(x);
      std::string cluster = f.size() > 4 ? f[4] : "";
      if (!cluster.empty() && cluster == prev_cluster) add(prev_gene, f[0], "tandem", 0);
      prev_gene = f.empty() ? "" : f[0];
      prev_cluster = cluster;
    }
  }
  // Mutual best matches by identity of global alignments.
  const auto& v = *pep;
  std::vector<std::vector<double>> id(v.size(), std::vector<double>(v.size(), 0));
  for (size_t i = 0; i < v.size(); ++i)
    for (size_t j = i + 1; j < v.size(); ++j) id[i][j] = id[j][i] = align_proteins(v[i].seq, v[j].seq).identity;
  std::vector<size_t> best(v.size(), SIZE_MAX);
  for (size_t i = 0; i < v.size(); ++i)
    for (size_t j = 0; j < v.size(); ++j)
      if (j != i && (best[i] == SIZE_MAX || id[i][j] > id[i][best[i]])) best[i] = j;
  for (size_t i = 0; i < v.size(); ++i)
    if (best[i] != SIZE_MAX && best[best[i]] == i && id[i][best[i]] >= ctx.params["min_identity"].get<double>())
      add(v[i].id, v[best[i]].id, "mutual best", id[i][best[i]]);
  return pairs;
}

Status prepare(const StageContext& ctx, const std::vector<Pair>& pairs) {
  auto pep = read_fasta(ctx.input.at("identify") / final_name(ctx, "pep.fasta"));
  auto cds = read_fasta(ctx.input.at("identify") / final_name(ctx, "cds.fasta"));
  if (!pep || !cds) return pep ? cds.status() : pep.status();
  std::map<std::string, std::string> p, c;
  for (auto& r : *pep) p[r.id] = r.seq;
  for (auto& r : *cds) c[r.id] = r.seq;
  std::ostringstream phy, list;
  list << "gene_a\tgene_b\tkind\n";
  int n = 0;
  for (auto& pr : pairs) {
    auto block = codon_pair_phylip(pr.a, p[pr.a], c[pr.a], pr.b, p[pr.b], c[pr.b]);
    if (!block) continue;  // a CDS that does not encode its protein: left out, listed below
    phy << *block;
    list << pr.a << '\t' << pr.b << '\t' << pr.kind << '\n';
    ++n;
  }
  if (n == 0) {
    BIOAGENT_RETURN_IF_ERROR(write_text(ctx.work / "pairs.tsv", list.str()));
    return write_text(ctx.work / "pairs.phy", "");
  }
  BIOAGENT_RETURN_IF_ERROR(write_text(ctx.work / "pairs.phy", phy.str()));
  BIOAGENT_RETURN_IF_ERROR(write_text(ctx.work / "pairs.tsv", list.str()));
  return write_text(ctx.work / "yn00.ctl", yn00_control("pairs.phy", size_t(n)));
}

}  // namespace

std::optional<std::string> codon_pair_phylip(const std::string& a, std::string pa, std::string ca, const std::string& b,
                                             std::string pb, std::string cb) {
  while (!pa.empty() && pa.back() == '*') pa.pop_back();
  while (!pb.empty() && pb.back() == '*') pb.pop_back();
  ca = ca.substr(0, pa.size() * 3);  // without the stop codon
  cb = cb.substr(0, pb.size() * 3);
  auto al = align_proteins(pa, pb);
  auto xa = codon_align(al.a, ca), xb = codon_align(al.b, cb);
  if (!xa || !xb) return std::nullopt;
  return "  2  " + std::to_string(xa->size()) + "\n" + a + "  " + *xa + "\n" + b + "  " + *xb + "\n\n";
}

std::string yn00_control(const std::string& seqfile, size_t datasets) {
  return "seqfile = " + seqfile +
         "\noutfile = yn00.out\nverbose = 0\nicode = 0\nweighting = 0\ncommonf3x4 = 0\nndata = " +
         std::to_string(datasets) + "\n";
}

// yn00 writes 99 (or -99) where it could not estimate a value, and NaN or -0
// on a degenerate pair: none of them is a value.
double yn00_value(const std::string& field) {
  char* end = nullptr;
  double v = std::strtod(field.c_str(), &end);
  if (end == field.c_str() || !std::isfinite(v) || std::fabs(std::fabs(v) - 99) < 1e-9 || v < 0 ||
      (v == 0 && std::signbit(v)))
    return NAN;
  return v;
}

// dN and dS of each data set, from the Yang & Nielsen (2000) table of yn00's output:
// "seq seq S N t kappa omega dN +- SE dS +- SE".
std::vector<Yn00Pair> parse_yn00(const std::string& out) {
  std::vector<Yn00Pair> r;
  size_t at = 0;
  while ((at = out.find("Yang & Nielsen (2000) method", at)) != std::string::npos) {
    size_t header = out.find("seq. seq.", at);
    if (header == std::string::npos) break;
    size_t line_start = out.find('\n', header) + 1;
    while (line_start < out.size() && out[line_start] == '\n') ++line_start;
    std::istringstream row(out.substr(line_start, out.find('\n', line_start) - line_start));
    std::vector<std::string> t;
    for (std::string x; row >> x;) t.push_back(x);
    Yn00Pair v;
    if (t.size() >= 11) {
      v.dn = yn00_value(t[7]);
      v.ds = yn00_value(t[10]);
    }
    if (t.size() >= 13 && t[8] == "+-" && t[11] == "+-") {
      v.dn_se = yn00_value(t[9]);
      v.ds_se = yn00_value(t[12]);
    }
    r.push_back(v);
    at = line_start;
  }
  return r;
}

std::string selection_test(const Yn00Pair& v, double* z_out, double* p_out) {
  if (z_out) *z_out = NAN;
  if (p_out) *p_out = NAN;
  const double se = std::sqrt(v.dn_se * v.dn_se + v.ds_se * v.ds_se);
  if (!std::isfinite(v.dn) || !std::isfinite(v.ds) || !std::isfinite(se) || se <= 0) return "";
  const double z = (v.dn - v.ds) / se, p = std::erfc(std::fabs(z) / std::sqrt(2.0));
  if (z_out) *z_out = z;
  if (p_out) *p_out = p;
  return p >= 0.05 ? "neutral" : z < 0 ? "purifying" : "positive";
}

namespace {

// pairs.tsv's rows after its header: gene_a, gene_b, kind.
std::vector<std::array<std::string, 3>> read_pairs(const std::string& text) {
  std::vector<std::array<std::string, 3>> pairs;
  std::istringstream in(text);
  std::string line;
  std::getline(in, line);
  while (std::getline(in, line)) {
    std::array<std::string, 3> f;
    std::istringstream row(line);
    std::getline(row, f[0], '\t');
    std::getline(row, f[1], '\t');
    std::getline(row, f[2], '\t');
    pairs.push_back(f);
  }
  return pairs;
}

// Every pair with its Ka, Ks, ratio, the test of Ka = Ks and the date (or why not), as kaks.tsv, JSON rows
// and figure points.
struct KaksTable {
  std::ostringstream tsv;
  std::vector<figures::KaKs> points;  // the estimated pairs
  std::vector<double> ratios;
  Json rows = Json::array();
  size_t below_one = 0, purifying = 0, positive = 0, neutral = 0, not_tested = 0, estimated = 0, not_estimated = 0,
         saturated = 0;
};

void tabulate_pairs(const std::vector<std::array<std::string, 3>>& pairs, const std::vector<Yn00Pair>& values,
                    double rate, double max_ks, KaksTable& t) {
  t.tsv << "gene_a\tgene_b\tkind\tKa\tKs\tKa_Ks\tz\tp_value\tselection\tdivergence_mya\tstatus\n";
  auto na = [](double v, int digits = 4) { return std::isfinite(v) ? fmt(v, digits) : std::string("NA"); };
  for (size_t i = 0; i < pairs.size(); ++i) {
    const Yn00Pair v = i < values.size() ? values[i] : Yn00Pair{};
    const double ka = v.dn, ks = v.ds;
    // Ks above max_ks is saturated: too many substitutions to count, so no
    // ratio and no date is trusted; it is shown, flagged, and left out.
    std::string status = !std::isfinite(ka) || !std::isfinite(ks) || ks <= 0 ? "not estimated"
                         : ks > max_ks                                       ? "saturated"
                                                                             : "estimated";
    const double ratio = status == "estimated" ? ka / ks : NAN;
    const double mya = status == "estimated" ? ks / (2 * rate) / 1e6 : NAN;
    double z = NAN, p = NAN;
    const std::string selection = status == "estimated" ? selection_test(v, &z, &p) : "";
    if (status == "estimated") {
      ++t.estimated;
      t.below_one += ratio < 1;
      t.ratios.push_back(ratio);
      ++(selection == "purifying"  ? t.purifying
         : selection == "positive" ? t.positive
         : selection == "neutral"  ? t.neutral
                                   : t.not_tested);
      t.points.push_back({pairs[i][0] + "/" + pairs[i][1], ka, ks, selection});
    } else {
      ++(status == "saturated" ? t.saturated : t.not_estimated);
    }
    t.tsv << pairs[i][0] << '\t' << pairs[i][1] << '\t' << pairs[i][2] << '\t' << na(ka) << '\t' << na(ks) << '\t'
          << na(ratio) << '\t' << na(z, 2) << '\t' << (std::isfinite(p) ? fmt(p, 4) : "NA") << '\t'
          << (selection.empty() ? "not tested" : selection) << '\t' << (std::isfinite(mya) ? fmt(mya, 1) : "NA") << '\t'
          << status << '\n';
    t.rows.push_back({{"pair", pairs[i][0] + "/" + pairs[i][1]},
                      {"kind", pairs[i][2]},
                      {"ka", std::isfinite(ka) ? Json(ka) : Json()},
                      {"ks", std::isfinite(ks) ? Json(ks) : Json()},
                      {"ka_ks", std::isfinite(ratio) ? Json(ratio) : Json()},
                      {"z", std::isfinite(z) ? Json(z) : Json()},
                      {"p_value", std::isfinite(p) ? Json(p) : Json()},
                      {"selection", selection},
                      {"divergence_mya", std::isfinite(mya) ? Json(mya) : Json()},
                      {"status", status}});
  }
}

// The Ks distribution and its peaks (for dating duplication events) from the estimated pairs only;
// with fewer than three there is no distribution to speak of, and no figure.
Result<Json> ks_peaks(const StageContext& ctx, const std::vector<figures::KaKs>& points, double rate, double max_ks) {
  std::vector<double> ks_values;
  for (auto& p : points) ks_values.push_back(p.ks);
  Json peaks = Json::array();
  if (ks_values.size() < 3) return peaks;
  for (auto& pk : figures::ks_peaks(ks_values, max_ks))
    peaks.push_back({{"ks", pk.ks}, {"mya", pk.ks / (2 * rate) / 1e6}});
  std::string ks_title = figure_title(ctx, {" Ks distribution of duplicated pairs", " 重复基因对的 Ks 分布"});
  BIOAGENT_RETURN_IF_ERROR(write_text(
      ctx.work / final_name(ctx, "ks_distribution.svg"),
      figures::ks_distribution(run_lang(ctx), ks_values, ks_title, max_ks, {},
                               BiText{"the family's duplicated pairs", "家族重复基因对"}.in(run_lang(ctx)))));
  return peaks;
}

}  // namespace

Status summarise_kaks(const StageContext& ctx) {
  auto list = read_text(ctx.work / "pairs.tsv");
  if (!list) return list.status();
  std::vector<std::array<std::string, 3>> pairs = read_pairs(*list);
  auto out = read_text(ctx.work / "yn00.out");
  auto values = out ? parse_yn00(*out) : std::vector<Yn00Pair>{};
  const double rate = ctx.params["substitution_rate"], max_ks = ctx.params["max_ks"];
  KaksTable t;
  tabulate_pairs(pairs, values, rate, max_ks, t);
  if (pairs.empty())
    return write_text(ctx.work / "kaks.json",
                      json_text(Json{{"skipped", true},
                                     {"reason_kind", "no_pairs"},
                                     {"reason",
                                      "no duplicated pairs among the members (no tandem cluster, no mutual best match "
                                      "at the identity threshold)"}},
                                2));
  BIOAGENT_RETURN_IF_ERROR(write_text(ctx.work / final_name(ctx, "kaks.tsv"), t.tsv.str()));
  std::string title = figure_title(ctx, {" duplicated pairs: Ka vs Ks (yn00)", " 重复基因对的 Ka 与 Ks（yn00）"});
  BIOAGENT_RETURN_IF_ERROR(
      write_text(ctx.work / final_name(ctx, "kaks.svg"), figures::kaks(run_lang(ctx), t.points, title)));
  auto peaks = ks_peaks(ctx, t.points, rate, max_ks);
  if (!peaks) return peaks.status();
  return write_text(ctx.work / "kaks.json",
                    json_text(Json{{"pairs", pairs.size()},
                                   {"ks_peaks", *peaks},
                                   {"estimated", t.estimated},
                                   {"not_estimated", t.not_estimated},
                                   {"saturated", t.saturated},
                                   {"max_ks", max_ks},
                                   {"ka_ks_below_1", t.below_one},
                                   {"median_ka_ks", t.ratios.empty() ? Json() : Json(median_of(t.ratios))},
                                   {"purifying_selection", t.purifying},
                                   {"positive_selection", t.positive},
                                   {"not_significant", t.neutral},
                                   {"not_tested", t.not_tested},
                                   {"substitution_rate", rate},
                                   {"rows", t.rows}},
                              2));
}

namespace {

// The pairs with their divergence time T = Ks / 2λ (λ the run's substitution
// rate, stated); a pair whose Ks is missing or saturated is "not estimated".
void pair_table(ReportSection& s, const Json& j, Lang lang) {
  const double rate = j.value("substitution_rate", 0.0);
  char lambda[32];
  std::snprintf(lambda, sizeof lambda, "%.3g", rate);
  s.paragraphs.push_back(
      BiText{std::string("Divergence time T = Ks / 2λ with λ = ") + lambda +
                 " synonymous substitutions per site per year (Koch et al. 2000, eudicots; set with "
                 "kaks.substitution_rate); pairs whose Ks is missing or saturated are not dated.",
             std::string("分化时间 T = Ks / 2λ，λ = ") + lambda +
                 " 个同义替换/位点/年（Koch 等 2000 年对双子叶植物的估计；可用 kaks.substitution_rate 设置）；"
                 "Ks 缺失或饱和的基因对不估计分化时间。"}
          .in(lang));
  s.table_caption =
      BiText{"Ka, Ks, Ka/Ks and divergence time of duplicated pairs", "重复基因对的 Ka、Ks、Ka/Ks 与分化时间"}.in(lang);
  s.table_header = {BiText{"pair", "基因对"}.in(lang),
                    BiText{"kind", "类型"}.in(lang),
                    "Ka",
                    "Ks",
                    "Ka/Ks",
                    BiText{"selection (test of Ka = Ks)", "选择（Ka = Ks 检验）"}.in(lang),
                    BiText{"T (Mya)", "分化时间（百万年前）"}.in(lang)};
  const std::string none = BiText{"not estimated", "未估计"}.in(lang);
  auto value = [&](const Json& row, const char* key, int digits) {
    const Json v = row.value(key, Json());
    return v.is_number() ? fmt(v.get<double>(), digits) : none;
  };
  for (auto& row : j.value("rows", Json::array())) {
    std::string kind = row.value("kind", "");
    if (lang == Lang::kZh) kind = kind == "tandem" ? "串联重复" : kind == "mutual best" ? "互为最佳匹配" : kind;
    const std::string sel = row.value("selection", "");
    const Json p = row.value("p_value", Json());
    const std::string verdict = sel.empty() ? BiText{"not tested", "未检验"}.in(lang)
                                            : (sel == "purifying"  ? BiText{"purifying", "纯化选择"}
                                               : sel == "positive" ? BiText{"positive", "正选择"}
                                                                   : BiText{"not significant", "不显著"})
                                                      .in(lang) +
                                                  (p.is_number() ? " (p = " + fmt(p.get<double>(), 3) + ")" : "");
    s.table.push_back({row.value("pair", ""), kind, value(row, "ka", 4), value(row, "ks", 4), value(row, "ka_ks", 3),
                       row.value("status", "") == "estimated" ? verdict : none, value(row, "divergence_mya", 1)});
  }
}

ReportSection report(const ReportContext& r) {
  ReportSection s = section(r, "kaks", {"Ka/Ks of duplicated pairs", "重复基因对的 Ka/Ks"});
  Json j = read_json_or(r.folder.empty() ? fs::path() : r.folder / "kaks.json");
  if (j.empty() || j.value("skipped", false)) return s;
  auto n = [&](const char* key) { return std::to_string(j.value(key, 0)); };
  const Json median = j.value("median_ka_ks", Json());
  const std::string med =
      median.is_number() ? fmt(median.get<double>(), 2) : BiText{"not estimated", "未估计"}.in(r.lang);
  s.paragraphs.push_back(BiText{
      "Of the " + n("pairs") + " duplicated pairs ({table}), yn00 estimated " + n("estimated") +
          "; their median Ka/Ks is " + med + " and " + n("ka_ks_below_1") +
          " have Ka/Ks < 1. Tested with yn00's standard errors (z-test of Ka = Ks, two-sided, p < 0.05), " +
          n("purifying_selection") + " are under significant purifying selection, " + n("positive_selection") +
          " under significant positive selection, " + n("not_significant") + " do not differ from 1 and " +
          n("not_tested") + " could not be tested ({figure}). " + n("not_estimated") +
          " pairs were not estimated by yn00 and " + n("saturated") + " have saturated Ks (> " +
          fmt(j.value("max_ks", 0.0), 1) + "); both are left out of the dating and the selection counts.",
      n("pairs") + " 对重复基因（{table}）中，yn00 可估计 " + n("estimated") + " 对，Ka/Ks 中位数为 " + med +
          "，其中 " + n("ka_ks_below_1") + " 对 Ka/Ks < 1。用 yn00 的标准误检验 Ka = Ks（z 检验，双侧，p < 0.05）：" +
          n("purifying_selection") + " 对受显著纯化选择，" + n("positive_selection") + " 对受显著正选择，" +
          n("not_significant") + " 对与 1 无显著差异，" + n("not_tested") + " 对无法检验（{figure}）。另有 " +
          n("not_estimated") + " 对 yn00 无法估计、" + n("saturated") + " 对 Ks 饱和（> " +
          fmt(j.value("max_ks", 0.0), 1) + "），均未用于分化时间与选择统计。"}
                             .in(r.lang));
  s.figures = {final_base(r.ctx) + "kaks.svg"};
  pair_table(s, j, r.lang);
  if (!j.value("ks_peaks", Json::array()).empty()) {
    std::string peaks;
    for (auto& pk : j["ks_peaks"])
      peaks += (peaks.empty() ? "" : ", ") + ("Ks " + fmt(pk.value("ks", 0.0), 2) + " (~" +
                                              fmt(pk.value("mya", 0.0), 0) + BiText{" Mya)", " 百万年前)"}.in(r.lang));
    s.paragraphs.push_back(BiText{"Peaks of the Ks distribution: " + peaks + " (each may mark a duplication event).",
                                  "Ks 分布的峰：" + peaks + "（每个峰可能对应一次复制事件）。"}
                               .in(r.lang));
    s.figures.push_back(final_base(r.ctx) + "ks_distribution.svg");
  } else if (j.value("estimated", 0) >= 3) {
    const std::string n = std::to_string(j.value("estimated", 0)), need = std::to_string(figures::kMinPairsForKsPeaks);
    s.paragraphs.push_back(BiText{"No peak is marked in the Ks distribution: " + n +
                                      " pairs were estimated, and a peak needs at least " + need + ".",
                                  "Ks 分布未标峰：可估计的只有 " + n + " 对，判断一个峰至少需要 " + need + " 对。"}
                               .in(r.lang));
    s.figures.push_back(final_base(r.ctx) + "ks_distribution.svg");
  }
  return s;
}

}  // namespace

StageSpec kaks_stage() {
  StageSpec s;
  s.name = "kaks";
  s.label = "Ka/Ks of duplicated pairs";
  s.label_zh = "Ka/Ks分析";
  s.description = "Ka, Ks and Ka/Ks of duplicated pairs (codon alignments, PAML yn00), divergence times";
  s.after = {"identify"};
  s.uses = {"chromosome"};  // tandem pairs, when the members have positions
  s.needs = {"cds"};
  s.revision = 4;  // 2: values yn00 could not estimate and saturated Ks are flagged, not counted; 3: round ticks,
                   // labels apart, Ks peaks from 10 pairs; 4: the members' names, the z-test of Ka = Ks
  s.programs = {"yn00"};
  s.params_schema = Json::parse(R"JS({"type": "object", "properties": {
      "min_identity": {"type": "number", "minimum": 0, "maximum": 1, "default": 0.3, "description": "mutual best pairs below this identity are not duplicates"},
      "max_ks": {"type": "number", "minimum": 0.5, "maximum": 10, "default": 2.5, "description": "Ks above this is saturated: flagged, not dated, not counted"},
      "substitution_rate": {"type": "number", "minimum": 1e-12, "maximum": 1e-6, "default": 1.5e-8, "description": "synonymous substitutions per site per year (Koch et al. 2000, Arabidopsis)"}
    }, "additionalProperties": false})JS");
  s.steps = [](const StageContext& ctx) -> Result<std::vector<Step>> {
    auto pairs = find_pairs(ctx);  // yn00 runs only when there is a pair
    if (!pairs) return pairs.status();
    std::vector<Step> steps = {StageFn([pairs = *pairs](const StageContext& c) { return prepare(c, pairs); })};
    if (!pairs->empty()) steps.push_back(Command{{"yn00", "yn00.ctl"}, "yn00.stdout", ""});
    steps.push_back(StageFn(summarise_kaks));
    return steps;
  };
  s.outputs = {"kaks.json"};
  s.parse = [](const StageContext& ctx) -> Result<Json> {
    auto t = read_text(ctx.work / "kaks.json");
    if (!t) return t.status();
    Json j = Json::parse(*t, nullptr, false);
    if (j.is_discarded()) return parse_error("kaks.json is not JSON");
    j.erase("rows");
    return j;
  };
  s.report = report;
  return s;
}

}  // namespace bioagent::gf
