// Deciding families from domain hits, how far the profiles at hand can express
// each family, and running hmmsearch once per HMM file (see classify.h).
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>

#include <zlib.h>

#include "genefamily/classify/classify.h"
#include "pipeline/subprocess.h"

namespace bioagent::gf {
namespace {

namespace fs = std::filesystem;

struct Counted {
  int hits = 0;
  double best_evalue = 1e300;
};

// Which declared domain each profile (by name) stands for.
std::map<std::string, const DomainSpec*> domains_of_models(const std::vector<SearchedHits>& searches,
                                                           const RuleSet& rules) {
  std::map<std::string, const DomainSpec*> by_id;
  for (auto& d : rules.domains) {
    by_id.emplace(d.name, &d);
    for (auto& id : d.ids) by_id.emplace(id, &d);
  }
  std::map<std::string, const DomainSpec*> out;
  for (auto& s : searches)
    for (auto& m : s.models) {
      auto it = by_id.find(m.name);
      if (it == by_id.end() && !m.accession.empty()) it = by_id.find(m.accession);
      if (it != by_id.end()) out[m.name] = it->second;
    }
  return out;
}

// Per protein: counted hits of each domain after the thresholds.
std::map<std::string, std::map<std::string, Counted>> count_domains(
    const std::vector<SearchedHits>& searches, const std::map<std::string, const DomainSpec*>& model_domain) {
  std::map<std::string, std::map<std::string, Counted>> out;
  for (auto& s : searches)
    for (auto& h : s.hits) {
      auto it = model_domain.find(h.query);
      if (it == model_domain.end()) continue;
      const DomainThresholds& th = it->second->thresholds;
      if (!s.cut_ga && (h.dom_score < th.min_domain_score || h.seq_score < th.min_sequence_score)) continue;
      double cov = h.query_len > 0 ? double(h.hmm_to - h.hmm_from + 1) / double(h.query_len) : 0;
      if (cov < th.min_coverage) continue;
      Counted& c = out[h.target][it->second->name];
      ++c.hits;
      c.best_evalue = std::min(c.best_evalue, h.c_evalue);
    }
  return out;
}

// Domains in E-value order after similar domains yield to better-scoring ones.
std::vector<std::string> ordered_domains(const std::map<std::string, Counted>& counted, const RuleSet& rules) {
  std::vector<std::string> out;
  for (auto& [d, c] : counted) {
    bool yields = false;
    if (auto y = rules.yields.find(d); y != rules.yields.end())
      for (auto& other : y->second)
        if (auto o = counted.find(other); o != counted.end() && o->second.best_evalue < c.best_evalue) yields = true;
    if (!yields) out.push_back(d);
  }
  std::sort(out.begin(), out.end(), [&](const std::string& a, const std::string& b) {
    double ea = counted.at(a).best_evalue, eb = counted.at(b).best_evalue;
    return ea != eb ? ea < eb : a < b;
  });
  return out;
}

bool term_holds(const RuleTerm& t, const std::map<std::string, int>& hits) {
  auto it = hits.find(t.domain);
  int n = it == hits.end() ? 0 : it->second;
  return n >= t.min_count && n <= t.max_count;
}

bool rule_holds(const FamilyRule& r, const std::map<std::string, int>& hits) {
  for (auto& t : r.required)
    if (!term_holds(t, hits)) return false;
  for (auto& t : r.forbidden)
    if (term_holds(t, hits)) return false;
  return true;
}

bool requires_domain(const FamilyRule& r, const std::string& d) {
  return std::any_of(r.required.begin(), r.required.end(), [&](auto& t) { return t.domain == d; });
}

// Between two satisfied rules: the protein's best-scoring domain that only one
// of them requires decides; when none does, the earlier rule stays.
const FamilyRule* decide(const FamilyRule* kept, const FamilyRule* next, const std::vector<std::string>& order) {
  for (auto& d : order) {
    bool a = requires_domain(*kept, d), b = requires_domain(*next, d);
    if (a && b) continue;
    if (a) return kept;
    if (b) return next;
  }
  return kept;
}

void assess_expressibility(const RuleSet& rules, const std::set<std::string>& modelled, Classification& out) {
  auto missing = [&](const std::vector<RuleTerm>& terms) {
    std::vector<std::string> m;
    for (auto& t : terms)
      if (!modelled.count(t.domain)) m.push_back(t.domain);
    return m;
  };
  std::set<std::string> rule_ok;
  for (auto& r : rules.rules) {
    auto m = missing(r.required);
    for (auto& f : missing(r.forbidden)) m.push_back(f);
    if (m.empty()) {
      rule_ok.insert(r.name);
    } else {
      out.unexpressible_rules[r.name] = m;
    }
  }
  std::map<std::string, std::vector<const FamilyRule*>> by_family;
  for (auto& r : rules.rules) by_family[r.family].push_back(&r);
  for (auto& [family, frs] : by_family) {
    bool all_rules = std::all_of(frs.begin(), frs.end(), [&](auto* r) { return rule_ok.count(r->name) > 0; });
    bool required = std::all_of(frs.begin(), frs.end(), [&](auto* r) { return missing(r->required).empty(); });
    bool competitors = true;  // every rule sharing a required domain is modelled too
    for (auto* r : frs)
      for (auto& t : r->required)
        for (auto& other : rules.rules)
          if (requires_domain(other, t.domain) && !rule_ok.count(other.name)) competitors = false;
    out.families[family] = all_rules  ? (competitors ? Expressible::kFull : Expressible::kRules)
                           : required ? Expressible::kRequired
                                      : Expressible::kNone;
  }
}

// hmmsearch rereads its target for every profile, so a gzip proteome is inflated first.
Result<std::string> plain_proteome(const std::string& proteome, const std::string& work_dir) {
  if (proteome.size() < 3 || proteome.compare(proteome.size() - 3, 3, ".gz") != 0) return proteome;
  gzFile in = gzopen(proteome.c_str(), "rb");
  if (!in) return not_found("cannot read " + proteome);
  std::string out_path = (fs::path(work_dir) / "proteome.fa").string();
  std::ofstream out(out_path, std::ios::binary | std::ios::trunc);
  char buf[1 << 16];
  int n = 0;
  while ((n = gzread(in, buf, sizeof buf)) > 0) out.write(buf, n);
  bool bad = n < 0;
  gzclose(in);
  if (bad) return parse_error(proteome + " is not valid gzip data");
  if (!out) return Status(ErrorCode::kInternal, "cannot write " + out_path);
  return out_path;
}

}  // namespace

Result<Classification> classify_hits(const std::vector<SearchedHits>& searches, const RuleSet& rules) {
  Classification out;
  auto model_domain = domains_of_models(searches, rules);
  std::set<std::string> modelled;
  for (auto& [m, d] : model_domain) modelled.insert(d->name);
  assess_expressibility(rules, modelled, out);
  auto counted = count_domains(searches, model_domain);
  out.proteins_with_domains = counted.size();
  for (auto& [protein, domains] : counted) {
    std::vector<std::string> order = ordered_domains(domains, rules);
    std::map<std::string, int> hits;
    for (auto& d : order) hits[d] = domains.at(d).hits;
    const FamilyRule* chosen = nullptr;
    int candidates = 0;
    for (auto& r : rules.rules) {
      if (!rule_holds(r, hits)) continue;
      ++candidates;
      chosen = chosen ? decide(chosen, &r, order) : &r;
    }
    if (!chosen) continue;
    out.calls.push_back({protein, chosen->family, chosen->subfamily, chosen->name, candidates, order});
  }
  return out;
}

Result<Classification> classify_proteome(const std::vector<std::string>& hmm_files, const std::string& proteome,
                                         const RuleSet& rules, const std::string& work_dir, int cpus, double evalue) {
  if (hmm_files.empty()) return invalid_argument("no HMM file given");
  if (!fs::exists(proteome)) return not_found("cannot read the proteome " + proteome);
  std::error_code ec;
  fs::create_directories(work_dir, ec);
  auto target = plain_proteome(proteome, work_dir);
  if (!target) return target.status();
  std::vector<SearchedHits> searches;
  for (size_t i = 0; i < hmm_files.size(); ++i) {
    std::ifstream in(hmm_files[i], std::ios::binary);
    if (!in) return not_found("cannot read " + hmm_files[i]);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    auto models = read_hmm_models(text, hmm_files[i]);
    if (!models) return models.status();
    SearchedHits s;
    s.models = std::move(*models);
    std::string table = (fs::path(work_dir) / ("hits." + std::to_string(i) + ".domtbl")).string();
    std::vector<std::string> argv = {"hmmsearch",   "--noali", "--cpu", std::to_string(std::max(1, cpus)),
                                     "--domtblout", table,     "-o",    "/dev/null"};
    for (auto& a : hmmsearch_threshold_args(s.models, evalue)) argv.push_back(a);
    s.cut_ga = argv.back() == "--cut_ga";
    argv.push_back(hmm_files[i]);
    argv.push_back(*target);
    auto run = capture(argv, 6 * 3600 * 1000);
    if (!run) return run.status();
    if (run->exit_code != 0)
      return Status(ErrorCode::kToolFailed,
                    "hmmsearch failed (exit " + std::to_string(run->exit_code) + "): " + run->out.substr(0, 2000));
    std::ifstream tin(table, std::ios::binary);
    std::string ttext((std::istreambuf_iterator<char>(tin)), std::istreambuf_iterator<char>());
    auto hits = parse_domtblout(ttext, table);
    if (!hits) return hits.status();
    s.hits = std::move(*hits);
    searches.push_back(std::move(s));
  }
  return classify_hits(searches, rules);
}

}  // namespace bioagent::gf
