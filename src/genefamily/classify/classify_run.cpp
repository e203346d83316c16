// classify_families: the command-line and stage entry of the classifier
// (bioagent/genefamily_classify.h); the engine is in classify.h.
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "bioagent/genefamily_classify.h"
#include "genefamily/classify/classify.h"

namespace bioagent {
namespace {

namespace fs = std::filesystem;

Result<std::string> slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return not_found("cannot read " + path);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// "OSTLU.fa.gz" -> "OSTLU"
std::string stem_of(const std::string& path) {
  std::string s = fs::path(path).filename().string();
  for (const char* ext : {".gz", ".fa", ".fasta", ".faa", ".pep"})
    if (s.size() > std::strlen(ext) && s.compare(s.size() - std::strlen(ext), std::string::npos, ext) == 0)
      s.erase(s.size() - std::strlen(ext));
  return s;
}

std::string calls_tsv(const gf::Classification& c) {
  std::ostringstream out;
  out << "protein\tfamily\tsubfamily\trule\tcandidate_rules\tdomains\n";
  for (auto& call : c.calls) {
    out << call.protein << '\t' << call.family << '\t' << call.subfamily << '\t' << call.rule << '\t' << call.candidates
        << '\t';
    for (size_t i = 0; i < call.domains.size(); ++i) out << (i ? "," : "") << call.domains[i];
    out << '\n';
  }
  return out.str();
}

Json expressibility_json(const gf::Classification& c) {
  Json families = Json::object(), rules = Json::object();
  for (auto& [f, e] : c.families) families[f] = gf::to_string(e);
  for (auto& [r, missing] : c.unexpressible_rules) rules[r] = missing;
  return {{"families", families}, {"unexpressible_rules", rules}};
}

Json agreement_json(const std::vector<gf::FamilyAgreement>& rows) {
  Json out = {{"rows", Json::array()}, {"pooled", Json::object()}};
  for (auto& r : rows)
    out["rows"].push_back({{"family", r.family},
                           {"modelled", gf::to_string(r.expressible)},
                           {"agree", r.both},
                           {"only_ours", r.only_ours},
                           {"only_reference", r.only_reference},
                           {"recall", r.recall()},
                           {"precision", r.precision()}});
  for (auto level : {gf::Expressible::kFull, gf::Expressible::kRules, gf::Expressible::kRequired}) {
    auto [recall, precision] = gf::pooled_agreement(rows, level);
    out["pooled"][gf::to_string(level)] = {{"recall", recall}, {"precision", precision}};
  }
  return out;
}

}  // namespace

Result<ClassifyReport> classify_families(const ClassifyOptions& o) {
  if (o.hmm_files.empty()) return invalid_argument("give at least one HMM file (--hmm)");
  if (o.proteomes.empty()) return invalid_argument("give at least one proteome (--proteome)");
  if (!o.references.empty() && o.references.size() != o.proteomes.size())
    return invalid_argument("give one reference table per proteome (" + std::to_string(o.proteomes.size()) +
                            " proteomes, " + std::to_string(o.references.size()) + " references)");
  std::string rules_text(gf::builtin_family_rules()), rules_name = "built-in rules";
  if (!o.rules_file.empty()) {
    auto t = slurp(o.rules_file);
    if (!t) return t.status();
    rules_text = *t;
    rules_name = o.rules_file;
  }
  auto rules = gf::parse_family_rules(rules_text, rules_name);
  if (!rules) return rules.status();
  ClassifyReport report;
  report.summary = {{"rules", rules_name}, {"proteomes", Json::array()}, {"threshold_mode", Json::object()}};
  for (auto& h : o.hmm_files) {
    auto t = slurp(h);
    if (!t) return t.status();
    auto models = gf::read_hmm_models(*t, h);
    if (!models) return models.status();
    auto args = gf::hmmsearch_threshold_args(*models, o.evalue);
    report.summary["threshold_mode"][h] = args[0] == "--cut_ga"
                                              ? "gathering thresholds (--cut_ga)"
                                              : "E-value " + args[1] + " and the rules' per-domain score and coverage";
  }
  gf::Classification pooled;
  std::map<std::string, std::string> pooled_ref;
  for (size_t i = 0; i < o.proteomes.size(); ++i) {
    std::string stem = stem_of(o.proteomes[i]);
    auto c = gf::classify_proteome(o.hmm_files, o.proteomes[i], *rules, (fs::path(o.out_dir) / stem).string(), o.cpus,
                                   o.evalue);
    if (!c) return c.status();
    fs::path table = fs::path(o.out_dir) / (stem + ".families.tsv");
    std::ofstream(table, std::ios::binary) << calls_tsv(*c);
    Json counts = Json::object();
    for (auto& call : c->calls) counts[call.family] = counts.value(call.family, 0) + 1;
    report.summary["proteomes"].push_back({{"proteome", o.proteomes[i]},
                                           {"proteins_with_domains", c->proteins_with_domains},
                                           {"classified", c->calls.size()},
                                           {"families", counts},
                                           {"table", table.string()}});
    if (i == 0) pooled.families = c->families, pooled.unexpressible_rules = c->unexpressible_rules;
    pooled.calls.insert(pooled.calls.end(), c->calls.begin(), c->calls.end());
    if (!o.references.empty()) {
      auto t = slurp(o.references[i]);
      if (!t) return t.status();
      auto ref = gf::parse_tapscan_calls(*t, o.references[i]);
      if (!ref) return ref.status();
      pooled_ref.insert(ref->begin(), ref->end());
    }
  }
  Json expressibility = expressibility_json(pooled);
  for (auto& [k, v] : expressibility.items()) report.summary[k] = v;
  if (!o.references.empty()) {
    auto rows = gf::compare_calls(pooled, pooled_ref);
    report.summary["agreement"] = agreement_json(rows);
    report.agreement_table = gf::agreement_table(rows);
  }
  return report;
}

}  // namespace bioagent
