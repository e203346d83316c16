// The phylogeny stage: MAFFT (L-INS-i below 200 sequences, --auto above), our
// trimming of gappy columns, IQ-TREE 2 (ModelFinder + UFBoot) with FastTree as
// the fallback for large sets or when IQ-TREE fails; reference members (a
// FASTA whose headers name their group) join the tree, and each clade is named
// by the group its references share (phylogeny_groups.h). Without references, the
// reviewed Arabidopsis and rice members of the family's Pfam domain are
// fetched from UniProt when the run may use the network (cached; offline, the
// cache only), else the report says why there are none.
#include <algorithm>
#include <cctype>
#include <chrono>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "bioagent/json_text.h"
#include "genefamily/algo/iqtree_log.h"
#include "genefamily/algo/newick.h"
#include "genefamily/stages/phylogeny_groups.h"
#include "genefamily/stages/stage_common.h"

namespace bioagent::gf {
namespace {

// A Pfam accession ("PF03110", "PF03110.18") without its version; "" for any other word.
std::string pfam_accession(const std::string& word) {
  const std::string acc = word.substr(0, word.find('.'));
  const bool ok = acc.size() == 7 && acc.rfind("PF", 0) == 0 &&
                  std::all_of(acc.begin() + 2, acc.end(), [](unsigned char c) { return std::isdigit(c); });
  return ok ? acc : "";
}

// The family's Pfam accession: identify.pfam, else the ACC line of <Family>.hmm,
// else its NAME when that is an accession (a profile saved as "NAME PF03110").
std::string family_pfam(const StageContext& ctx) {
  std::string acc = ctx.run.value("params", Json::object()).value("identify", Json::object()).value("pfam", "");
  if (!acc.empty() || ctx.data("hmm").empty()) return acc;
  std::ifstream in(ctx.data("hmm"));
  std::string from_name;
  for (std::string line; std::getline(in, line);) {
    std::istringstream f(line);
    std::string key, value;
    f >> key >> value;
    if (key == "ACC" && !pfam_accession(value).empty()) return pfam_accession(value);
    if (key == "NAME" && from_name.empty()) from_name = pfam_accession(value);
    if (key == "HMM") break;
  }
  return from_name;
}

// UniProt FASTA ("sp|Q9S840|SPL1_ARATH Squamosa ... GN=SPL1 PE=1") as reference
// members named by their entry name, grouped by species code and gene name.
std::vector<FastaRecord> uniprot_references(const std::string& body, const std::string& code, size_t at_most) {
  std::vector<FastaRecord> out;
  auto recs = parse_fasta(body, "UniProt answer");
  if (!recs) return out;
  for (auto& r : *recs) {
    if (out.size() >= at_most) break;
    std::string entry = r.id.substr(r.id.rfind('|') + 1), gene = entry;
    if (auto gn = r.description.find("GN="); gn != std::string::npos)
      gene = r.description.substr(gn + 3, r.description.find(' ', gn) - gn - 3);
    out.push_back({entry, code + " " + gene, r.seq});
  }
  return out;
}

// With no references given: the reviewed Arabidopsis and rice members of the
// family's Pfam domain from UniProt, only when the run allows the network
// (network.offline set and false; offline, only what the cache holds).
// Writes references.json (fetched, or why not) and references.fasta.
Status fetch_references(const StageContext& ctx) {
  const Json net = ctx.run.value("network", Json::object());
  // The reason in both languages: a Chinese report quotes reason_zh.
  auto unavailable = [&](const std::string& why, const std::string& why_zh) {
    return write_text(ctx.work / "references.json",
                      json_text(Json{{"status", "not available"}, {"reason", why}, {"reason_zh", why_zh}}, 2));
  };
  const std::string acc = family_pfam(ctx);
  if (acc.empty())
    return unavailable(
        "the family has no Pfam accession: no identify.pfam parameter, and its HMM has no ACC line and a NAME "
        "that is no accession",
        "该家族没有 Pfam 编号：未设置 identify.pfam 参数，其 HMM 既没有 ACC 行，NAME 也不是 Pfam 编号");
  if (!net.contains("offline"))
    return unavailable("the run did not say whether it may use the network, so UniProt was not asked",
                       "本次运行未说明是否可以联网，因此没有查询 UniProt");
  auto http = http_for_run(ctx, "uniprot", std::chrono::hours(24 * 90));
  if (!http) return http.status();
  std::vector<FastaRecord> refs;
  Json counts = Json::object();
  const size_t at_most = ctx.params["max_references"].get<size_t>();
  for (auto [code, taxon] : {std::pair<const char*, const char*>{"Ath", "3702"}, {"Osa", "39947"}}) {
    HttpRequest req;
    req.url = ctx.params["uniprot_url"].get<std::string>() + "/uniprotkb/stream?format=fasta&query=%28xref%3Apfam-" +
              acc + "%29%20AND%20%28organism_id%3A" + taxon + "%29%20AND%20%28reviewed%3Atrue%29";
    req.source = "uniprot";
    auto resp = (*http)->fetch(req);
    if (!resp) {
      const bool offline = net.value("offline", false);
      return unavailable(
          std::string(offline ? "offline, and UniProt's answer is not cached: " : "UniProt could not be reached: ") +
              resp.status().message(),
          std::string(offline ? "离线运行，且缓存中没有 UniProt 的回答" : "无法连接 UniProt") +
              "（详情见 references.json）");
    }
    if (resp->status != 200)
      return unavailable("UniProt answered HTTP " + std::to_string(resp->status),
                         "UniProt 返回 HTTP " + std::to_string(resp->status));
    auto got = uniprot_references(resp->body, code, at_most);
    counts[code] = got.size();
    refs.insert(refs.end(), got.begin(), got.end());
  }
  if (refs.empty())
    return unavailable("UniProt lists no reviewed Arabidopsis or rice protein with " + acc,
                       "UniProt 中没有含 " + acc + " 的已审阅拟南芥或水稻蛋白");
  BIOAGENT_RETURN_IF_ERROR(write_fasta(ctx.work / "references.fasta", refs));
  return write_text(
      ctx.work / "references.json",
      json_text(Json{{"status", "fetched"}, {"pfam", acc}, {"counts", counts}, {"source", "UniProt"}}, 2));
}

// The reference members: the given FASTA, else the data folder's <Family>.references.fasta, else the ones
// fetched into the stage folder.
std::string reference_fasta(const StageContext& ctx) {
  std::string refs = ctx.params.value("references", std::string());
  if (refs.empty()) refs = ctx.data("references").string();
  if (refs.empty() && fs::exists(ctx.work / "references.fasta")) refs = (ctx.work / "references.fasta").string();
  return refs;
}

Status gather(const StageContext& ctx) {
  auto members = read_fasta(ctx.input.at("identify") / final_name(ctx, "pep.fasta"));
  if (!members) return members.status();
  std::vector<FastaRecord> all = *members;
  std::string refs = reference_fasta(ctx);
  if (!refs.empty()) {
    auto r = read_fasta(refs);
    if (!r) return r.status();
    for (auto& rec : *r) all.push_back({"REF_" + rec.id, rec.description, rec.seq});
  }
  // Stops ('*') and anything that is not a residue letter are stripped, and counted.
  size_t stripped = 0, sequences_changed = 0;
  for (auto& rec : all) {
    size_t before = rec.seq.size();
    rec.seq.erase(std::remove_if(rec.seq.begin(), rec.seq.end(),
                                 [](char c) { return !std::isalpha(static_cast<unsigned char>(c)); }),
                  rec.seq.end());
    for (auto& c : rec.seq) c = char(std::toupper(static_cast<unsigned char>(c)));
    stripped += before - rec.seq.size();
    sequences_changed += before != rec.seq.size();
  }
  BIOAGENT_RETURN_IF_ERROR(write_text(
      ctx.work / "gather.json",
      json_text(Json{{"stripped_characters", stripped}, {"sequences_with_stripped_characters", sequences_changed}},
                2)));
  return write_fasta(ctx.work / "input.fasta", all);
}

Status trim(const StageContext& ctx) {
  auto aln = read_fasta(ctx.work / "aln.fasta");
  if (!aln) return aln.status();
  if (aln->empty()) return invalid_argument("MAFFT produced an empty alignment");
  size_t cols = (*aln)[0].seq.size();
  for (auto& r : *aln)
    if (r.seq.size() != cols) return parse_error("the alignment's rows differ in length");
  double max_gap = ctx.params["max_gap_fraction"];
  std::vector<bool> keep(cols);
  size_t kept = 0;
  for (size_t c = 0; c < cols; ++c) {
    size_t gaps = 0;
    for (auto& r : *aln) gaps += (r.seq[c] == '-' || r.seq[c] == '.');
    keep[c] = double(gaps) / double(aln->size()) <= max_gap;
    kept += keep[c];
  }
  if (kept < 10) return invalid_argument("only " + std::to_string(kept) + " alignment columns survive trimming");
  for (auto& r : *aln) {
    std::string s;
    for (size_t c = 0; c < cols; ++c)
      if (keep[c]) s += r.seq[c];
    r.seq = s;
    r.description.clear();
  }
  BIOAGENT_RETURN_IF_ERROR(write_fasta(ctx.work / "trimmed.fasta", *aln));
  return write_text(ctx.work / "trim.json",
                    json_text(Json{{"columns", cols}, {"kept", kept}, {"max_gap_fraction", max_gap}}, 2));
}

double support_threshold(const std::string& kind);

// A support value as printed: whole numbers as they are, a median between two values with its decimal.
std::string support_text(double v) { return fmt(v, std::fabs(v - std::round(v)) < 1e-9 ? 0 : 1); }

bool uses_model_finder(const std::string& model) { return model.rfind("MF", 0) == 0 || model.rfind("TEST", 0) == 0; }

// ModelFinder restricted to the nuclear protein matrices gene-family studies
// report (LG, WAG, JTT, VT, Blosum62; with empirical or model frequencies) and
// gamma, invariant+gamma or FreeRate heterogeneity with at most 4 categories
// (as many as the gamma's): 50 models in place of the 546 IQ-TREE tests by
// default (mitochondrial, chloroplast, viral and HIV matrices, FreeRate up to
// 10 categories), which cost over an hour on 20 sequences here. FreeRate's
// higher categories are what makes model selection slow on a family of 50+
// (bench/phylogeny_models.sh measures both and compares the trees' clades).
std::vector<std::string> model_finder_options(const Json& params) {
  if (!uses_model_finder(params["model"])) return {};
  std::vector<std::string> out;
  if (std::string m = params["model_set"]; !m.empty()) out.insert(out.end(), {"-mset", m});
  if (std::string r = params["rate_set"]; !r.empty()) out.insert(out.end(), {"-mrate", r});
  if (int c = params["max_rate_categories"]; c > 0) out.insert(out.end(), {"-cmax", std::to_string(c)});
  return out;
}

// A node's support (the UFBoot part of "SH-aLRT/UFBoot"), NaN when its label is no number.
double node_support(const NewickNode& n) {
  std::string label = n.name.find('/') == std::string::npos ? n.name : n.name.substr(n.name.find('/') + 1);
  char* end = nullptr;
  double v = std::strtod(label.c_str(), &end);
  return !label.empty() && end && *end == '\0' ? v : NAN;
}

// Internal nodes with support below `threshold`, weakest first: {support, clade}
// where the clade is the node's leaves (the member genes it groups), up to 8 named.
Json low_support_nodes(const NewickTree& tree, double scale, double threshold) {
  std::vector<std::pair<double, Json>> low;
  for (size_t i = 1; i < tree.nodes.size(); ++i) {
    const NewickNode& n = tree.nodes[i];
    double v = n.children.empty() ? NAN : node_support(n) * scale;
    if (!std::isfinite(v) || v >= threshold) continue;
    Json clade = Json::array();
    size_t leaves = 0;
    std::vector<int> stack = {int(i)};
    while (!stack.empty()) {
      const NewickNode& x = tree.nodes[size_t(stack.back())];
      stack.pop_back();
      if (x.children.empty() && leaves++ < 8) clade.push_back(x.name);
      for (int c : x.children) stack.push_back(c);
    }
    low.push_back({v, Json{{"support", v}, {"leaves", leaves}, {"clade", clade}}});
  }
  std::stable_sort(low.begin(), low.end(), [](auto& a, auto& b) { return a.first < b.first; });
  Json out = Json::array();
  for (auto& [v, j] : low) out.push_back(j);
  return out;
}

// The running IQ-TREE's phase from its log, with the time left re-estimated as
// it runs (iqtree_progress_text): the expected time of the whole IQ-TREE call
// from the trimmed alignment's size, counted from when the alignment was
// written (IQ-TREE starts right after). Empty before IQ-TREE writes its log.
std::string iqtree_progress(const fs::path& work) {
  std::error_code ec;
  if (fs::file_size(work / "tree.log", ec) > (64u << 20) || ec) return "";
  auto log = read_text(work / "tree.log");
  std::string phase = log ? iqtree_phase(*log) : "";
  auto aln = read_fasta(work / "trimmed.fasta");
  if (phase.empty() || !aln || aln->empty()) return phase;
  const int n = int(aln->size()), cols = int(aln->front().seq.size());
  const auto started = fs::last_write_time(work / "trimmed.fasta", ec);
  const double elapsed = ec ? 0 : std::chrono::duration<double>(fs::file_time_type::clock::now() - started).count();
  return iqtree_progress_text(phase, iqtree_expected_seconds(n, cols, iqtree_threads(*log)), elapsed, n, cols);
}

// The model IQ-TREE used: ModelFinder's choice, else the fixed model it was given (-m).
std::string iqtree_model(const std::string& report) {
  for (const char* key : {"Best-fit model according to", "Model of substitution:"}) {
    auto at = report.find(key);
    if (at == std::string::npos) continue;
    auto colon = report.find(':', at);
    std::string m = report.substr(colon + 1, report.find('\n', colon) - colon - 1);
    while (!m.empty() && m.front() == ' ') m.erase(0, 1);
    while (!m.empty() && (m.back() == ' ' || m.back() == '\r')) m.pop_back();
    if (!m.empty()) return m;
  }
  return "";
}

// Copies the tree to its final name and assigns subfamilies from references.
Status finish(const StageContext& ctx) {
  bool ft = fs::exists(ctx.work / "fasttree.nwk");
  auto text = read_text(ctx.work / (ft ? "fasttree.nwk" : "tree.treefile"));
  if (!text) return text.status();
  auto tree = parse_newick(*text);
  if (!tree) return tree.status();
  BIOAGENT_RETURN_IF_ERROR(write_text(ctx.work / final_name(ctx, "tree.nwk"), *text));
  std::vector<double> sup = tree->supports();
  if (ft)
    for (double& v : sup) v *= 100;                        // FastTree's local supports are 0-1
  const double median = sup.empty() ? 0 : median_of(sup);  // of an even count: the mean of the middle two
  // Subfamilies: each clade named by the group its reference members share (phylogeny_groups.cpp).
  auto groups = write_reference_groups(ctx, *tree, reference_fasta(ctx));
  if (!groups) return groups.status();
  // The tree figures are the panel stage's (drawn once the members may have their new names):
  // it reads each leaf's group from here, references included.
  std::string leaf_groups = "leaf\tgroup\n";
  for (auto& [leaf, group] : *groups) leaf_groups += leaf + '\t' + group + '\n';
  BIOAGENT_RETURN_IF_ERROR(write_text(ctx.work / "leaf_groups.tsv", leaf_groups));
  std::string model;
  if (auto iq = read_text(ctx.work / "tree.iqtree")) model = iqtree_model(*iq);
  const std::string asked = ctx.params["model"];
  const bool model_finder = uses_model_finder(asked);
  std::string finder_set;
  for (auto& a : model_finder_options(ctx.params)) finder_set += " " + a;
  if (model.empty() && !ft && !model_finder) model = asked;  // fixed with -m: recorded as given
  Json gathered = read_json_or(ctx.work / "gather.json");
  const Json low = low_support_nodes(*tree, ft ? 100 : 1, support_threshold(ft ? "sh_like" : "ufboot"));
  return write_text(
      ctx.work / "phylogeny.json",
      json_text(Json{{"method", ft ? "FastTree" : "IQ-TREE"},
                     {"model", ft ? "JTT+CAT (FastTree default)" : model},
                     {"model_selection", ft             ? "none (FastTree)"
                                         : model_finder ? "ModelFinder (-m " + asked + finder_set + ")"
                                                        : "fixed (-m " + asked + ")"},
                     {"low_support_nodes", low},
                     {"leaves", tree->leaves().size()},
                     {"supports", sup.size()},
                     {"support_kind", ft ? "sh_like" : "ufboot"},
                     {"median_support", median},
                     {"stripped_characters", gathered.value("stripped_characters", 0)},
                     {"sequences_with_stripped_characters", gathered.value("sequences_with_stripped_characters", 0)}},
                2));
}

// Support values compared with a threshold of their own kind (on a 0-100
// scale): UFBoot (IQ-TREE; a clade is reliable at 95, Minh et al. 2013) and
// FastTree's SH-like local supports (reliable at 80, as for SH-aLRT,
// Guindon et al. 2010) are different measures.
double support_threshold(const std::string& kind) { return kind == "ufboot" ? 95 : 80; }

// "; 2 nodes below 95: 52 (SPL7, SPL1, SPL12), 80 (...)" (the weakest five named).
std::string low_support_text(const Json& summary, Lang lang) {
  const Json low = summary.value("low_support_nodes", Json::array());
  if (low.empty()) return "";
  const std::string kind = summary.value("support_kind", std::string("ufboot"));
  std::string out = BiText{"; " + std::to_string(low.size()) + " nodes below " + fmt(support_threshold(kind), 0) + ": ",
                           "；" + std::to_string(low.size()) + " 个节点低于 " + fmt(support_threshold(kind), 0) + "："}
                        .in(lang);
  for (size_t i = 0; i < low.size() && i < 5; ++i) {
    std::string clade;
    for (auto& l : low[i].value("clade", Json::array())) clade += (clade.empty() ? "" : ", ") + l.get<std::string>();
    if (low[i].value("leaves", size_t(0)) > low[i].value("clade", Json::array()).size()) clade += ", …";
    out += (i ? "; " : "") + fmt(low[i].value("support", 0.0), 0) + " (" + clade + ")";
  }
  return out + (low.size() > 5 ? BiText{" and more", " 等"}.in(lang) : "");
}

std::vector<StageCheck> check_support(const StageContext&, const Json& summary) {
  const std::string kind = summary.value("support_kind", std::string("ufboot"));
  const double median = summary.value("median_support", 0.0), want = support_threshold(kind);
  const std::string label = kind == "ufboot" ? "UFBoot" : "SH-like";
  return {{"median " + label + " support", median >= want ? "pass" : "warn",
           "median " + label + " support " + support_text(median) + " (threshold " + fmt(want, 0) + " for " + label +
               ")" + low_support_text(summary, Lang::kEn),
           median, want}};
}

ReportSection report(const ReportContext& r) {
  ReportSection s = section(r, "phylogeny", {"Phylogeny", "系统发育分析"});
  Json j = read_json_or(r.folder.empty() ? fs::path() : r.folder / "phylogeny.json");
  if (j.empty()) return s;
  const std::string kind = j.value("support_kind", std::string("ufboot"));
  const std::string label = kind == "ufboot" ? BiText{"UFBoot support", "UFBoot 支持率"}.in(r.lang)
                                             : BiText{"SH-like local support", "SH-like 局部支持率"}.in(r.lang);
  s.paragraphs.push_back(BiText{"Method ", "方法 "}.in(r.lang) + j.value("method", std::string()) + ", " +
                         BiText{"model ", "模型 "}.in(r.lang) + j.value("model", std::string()) + ", " +
                         BiText{"median ", "中位数 "}.in(r.lang) + label + " " +
                         support_text(j.value("median_support", 0.0)) + BiText{" (threshold ", "（阈值 "}.in(r.lang) +
                         fmt(support_threshold(kind), 0) + BiText{")", "）"}.in(r.lang) + low_support_text(j, r.lang) +
                         BiText{".", "。"}.in(r.lang));
  if (const std::string sel = j.value("model_selection", std::string()); !sel.empty())
    s.paragraphs.push_back(BiText{"Model selection: ", "模型选择："}.in(r.lang) + sel + BiText{".", "。"}.in(r.lang));
  if (int n = j.value("stripped_characters", 0); n > 0)
    s.paragraphs.push_back(BiText{
        std::to_string(n) + " characters that are not residues (stops '*' and others) were stripped from " +
            std::to_string(j.value("sequences_with_stripped_characters", 0)) + " sequences before the alignment.",
        "建树前从 " + std::to_string(j.value("sequences_with_stripped_characters", 0)) + " 条序列中去除了 " +
            std::to_string(n) + " 个非残基字符（终止符 * 等）。"}
                               .in(r.lang));
  Json refs = read_json_or(r.folder / "references.json");
  if (refs.value("status", std::string()) == "fetched") {
    const Json c = refs.value("counts", Json::object());
    s.paragraphs.push_back(BiText{"Reference members: " + json_text(c.value("Ath", Json(0))) + " Arabidopsis and " +
                                      json_text(c.value("Osa", Json(0))) + " rice reviewed proteins with Pfam " +
                                      refs.value("pfam", std::string()) +
                                      " from UniProt; each clade is named by the reference members it holds.",
                                  "参考成员：从 UniProt 获取的拟南芥 " + json_text(c.value("Ath", Json(0))) +
                                      " 个、水稻 " + json_text(c.value("Osa", Json(0))) + " 个已审阅蛋白（Pfam " +
                                      refs.value("pfam", std::string()) + "），各分支以其所含参考成员命名。"}
                               .in(r.lang));
  } else if (refs.contains("reason")) {
    // A record written before reason_zh existed has only the English reason: the zh report then points to the file.
    s.paragraphs.push_back(BiText{
        "Reference members were not available (" + refs.value("reason", std::string()) +
            "): the tree is rooted at its midpoint.",
        "参考成员不可用（" + refs.value("reason_zh", std::string("原因见 references.json")) + "），系统树以中点定根。"}
                               .in(r.lang));
  }
  return s;  // its figures are drawn by the panel stage (panel.cpp)
}

}  // namespace

StageSpec phylogeny_stage() {
  StageSpec s;
  s.name = "phylogeny";
  s.label = "phylogenetic analysis";
  s.label_zh = "系统发育分析";
  s.revision = 9;  // 2: reproducible MAFFT refinement (--threadit 0); 3: support kind, stripped characters;
                   // 4: reference members fetched from UniProt; 5: restricted ModelFinder set, low-support nodes;
                   // 6: subfamilies named by the clades of grouped references, members table with groups;
                   // 7: FreeRate up to 4 categories; 8: the tree figures moved to the panel stage (leaf_groups.tsv); 9:
                   // the true median
  s.description = "MAFFT alignment, gappy-column trimming, IQ-TREE 2 ModelFinder + UFBoot (FastTree fallback)";
  s.after = {"identify"};
  s.data_files = {"references"};  // <Family>.references.fasta of the data folder, when it has one
  s.resource = "large";
  s.programs = {"mafft", "iqtree2", "FastTree"};
  s.dialog = {{"method", {"tree method", "建树方法"}}};
  s.params_schema = Json::parse(R"JS({"type": "object", "properties": {
      "method": {"type": "string", "enum": ["iqtree", "fasttree"], "default": "iqtree"},
      "model": {"type": "string", "default": "MFP", "description": "IQ-TREE -m (MFP: ModelFinder; a model such as LG+G4 is used as given)"},
      "model_set": {"type": "string", "default": "LG,WAG,JTT,VT,Blosum62", "pattern": "^[A-Za-z0-9.,]*$", "description": "matrices ModelFinder tests (-mset; empty: IQ-TREE's full set of 546 models, mitochondrial, viral and chloroplast ones included)"},
      "rate_set": {"type": "string", "default": "G,I+G,R", "pattern": "^[A-Za-z0-9+,]*$", "description": "rate heterogeneity ModelFinder tests (-mrate; empty: IQ-TREE's default)"},
      "max_rate_categories": {"type": "integer", "minimum": 0, "maximum": 20, "default": 4, "description": "most FreeRate categories ModelFinder tries (-cmax; 0: IQ-TREE's default of 10)"},
      "bootstrap": {"type": "integer", "minimum": 1000, "maximum": 100000, "default": 1000, "description": "UFBoot replicates (-B)"},
      "max_gap_fraction": {"type": "number", "minimum": 0, "maximum": 1, "default": 0.5},
      "fasttree_above": {"type": "integer", "minimum": 4, "default": 500, "description": "use FastTree for more sequences than this"},
      "references": {"type": "string", "default": "", "format": "path", "description": "FASTA of reference members; a header word group=G1 (or subfamily=, clade=) names its group"},
      "reference_groups": {"type": "string", "default": "", "format": "path", "description": "table of reference id<TAB>group, for references whose headers name no group"},
      "fetch_references": {"type": "boolean", "default": true, "description": "without references: fetch the reviewed Arabidopsis and rice members of the family's Pfam domain from UniProt (cached), when the run may use the network"},
      "uniprot_url": {"type": "string", "default": "https://rest.uniprot.org"},
      "max_references": {"type": "integer", "minimum": 1, "maximum": 200, "default": 40, "description": "reference members kept per species"}
    }, "additionalProperties": false})JS");
  s.check = [](const StageContext& ctx) -> Status {
    auto m = read_fasta(ctx.input.at("identify") / final_name(ctx, "pep.fasta"));
    if (!m) return m.status();
    if (m->size() < 4)
      return invalid_argument("a tree needs at least 4 sequences; identify found " + std::to_string(m->size()));
    return Status::ok();
  };
  s.steps = [](const StageContext& ctx) -> Result<std::vector<Step>> {
    std::vector<Step> steps;
    if (ctx.params["references"].get<std::string>().empty() && ctx.data("references").empty() &&
        ctx.params["fetch_references"].get<bool>())
      steps.push_back(StageFn(fetch_references));
    steps.push_back(StageFn(gather));
    auto n = read_fasta(ctx.input.at("identify") / final_name(ctx, "pep.fasta"));
    size_t count = n ? n->size() : 0;
    // --threadit 0: MAFFT's threaded iterative refinement gives a different
    // alignment on every run (and then IQ-TREE's model search takes 6 s or
    // 70 s); a keyed, resumable pipeline needs the same output for the same input.
    std::vector<std::string> mafft = {"mafft", "--thread", std::to_string(ctx.cpus), "--threadit", "0", "--quiet"};
    if (count < 200)
      mafft.insert(mafft.end(), {"--localpair", "--maxiterate", "1000"});
    else
      mafft.push_back("--auto");
    mafft.push_back("input.fasta");
    steps.push_back(Command{mafft, "aln.fasta", ""});
    steps.push_back(StageFn(trim));
    if (ctx.params["method"] == "fasttree" || int(count) > ctx.params["fasttree_above"].get<int>()) {
      steps.push_back(Command{{"FastTree", "-quiet", "trimmed.fasta"}, "fasttree.nwk", ""});
    } else {
      std::vector<std::string> iq = {"iqtree2",
                                     "-s",
                                     "trimmed.fasta",
                                     "-m",
                                     ctx.params["model"].get<std::string>(),
                                     "-B",
                                     std::to_string(ctx.params["bootstrap"].get<int>()),
                                     "-T",
                                     std::to_string(ctx.cpus),
                                     "--prefix",
                                     "tree",
                                     "--seed",
                                     "12345",
                                     "-redo"};
      for (auto& a : model_finder_options(ctx.params)) iq.push_back(a);
      steps.push_back(Command{iq, "iqtree.out", ""});
    }
    steps.push_back(StageFn(finish));
    return steps;
  };
  s.outputs = {"phylogeny.json", "trimmed.fasta"};
  s.parse = summary_file("phylogeny.json");
  const Json fasttree = {{"method", "fasttree"}};
  s.repairs = {
      {FailureClass::kOutOfMemory, "", "fasttree_fallback",
       "build the tree with FastTree instead of IQ-TREE (less memory and time)", "IQ-TREE ran out of memory",
       "use FastTree for the phylogeny of large families", fasttree, true,
       "改用 FastTree 构建系统发育树（内存与时间更少）", "大家族的系统发育分析使用 FastTree", "IQ-TREE 内存不足"},
      {FailureClass::kTimeout, "", "fasttree_on_timeout", "build the tree with FastTree instead of IQ-TREE",
       "IQ-TREE exceeded the stage's time limit", "use FastTree when IQ-TREE would exceed the time limit", fasttree,
       true, "改用 FastTree 构建系统发育树", "预计 IQ-TREE 超出时限时使用 FastTree", "IQ-TREE 超出本阶段的时限"},
      {FailureClass::kToolError, "iqtree2", "fasttree_after_iqtree_error",
       "IQ-TREE failed: build the tree with FastTree instead", "IQ-TREE exited with an error on this alignment",
       "look at the alignment (stage log) before trusting either tree", fasttree, true,
       "IQ-TREE 运行出错：改用 FastTree 构建系统发育树", "采信任一棵树之前先检查比对结果（见阶段日志）",
       "IQ-TREE 处理该比对时出错退出"},
      {FailureClass::kMissingProgram, "iqtree", "fasttree_if_iqtree_missing",
       "build the tree with FastTree (IQ-TREE is not installed)", "IQ-TREE is not installed",
       "check installed programs before planning the phylogeny", fasttree, false,
       "用 FastTree 构建系统发育树（未安装 IQ-TREE）", "规划系统发育分析之前先检查已安装的程序", "未安装 IQ-TREE"}};
  s.checks = check_support;
  s.phase = iqtree_progress;
  s.report = report;
  return s;
}

}  // namespace bioagent::gf
