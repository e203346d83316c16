// The identify stage's second round with a species profile (see the header).
#include "genefamily/stages/identify_species_profile.h"

#include <algorithm>
#include <cstdio>

namespace bioagent::gf {

namespace {

constexpr size_t kMaxSeeds = 300;  // MAFFT stays in seconds; a profile gains little beyond this

struct Seed {
  std::string protein;
  double score = 0;
  int64_t from = 0, to = 0;  // the confident domains' envelope, 1-based inclusive
  std::vector<std::pair<int64_t, int64_t>> hmm_spans;
  int64_t hmm_len = 0;
  double evalue = 1e9;
};

}  // namespace

double hmm_coverage(std::vector<std::pair<int64_t, int64_t>> spans, int64_t hmm_len) {
  if (hmm_len <= 0 || spans.empty()) return 0;
  std::sort(spans.begin(), spans.end());
  int64_t covered = 0, a = spans[0].first, b = spans[0].second;
  for (auto& [x, y] : spans) {
    if (x > b + 1) {
      covered += b - a + 1;
      a = x;
    }
    b = std::max(b, y);
  }
  covered += b - a + 1;
  return std::min(1.0, double(covered) / double(hmm_len));
}

bool species_profile_on(const StageContext& ctx) {
  return ctx.params.value("species_profile", false) && ctx.params.value("blast_references", std::string()).empty();
}

Status write_species_seeds(const StageContext& ctx) {
  auto text = read_text(ctx.work / "hits.domtbl");
  if (!text) return text.status();
  auto hits = parse_domtblout(*text, "hits.domtbl");
  if (!hits) return hits.status();
  const double evalue = ctx.params["evalue"], dom_evalue = ctx.params["domain_evalue"];
  const double min_cov = ctx.params["min_coverage"];
  std::map<std::string, Seed> by;
  for (auto& h : *hits) {
    Seed& s = by[h.target];
    s.protein = h.target, s.score = h.seq_score, s.evalue = h.seq_evalue, s.hmm_len = h.query_len;
    if (h.i_evalue > dom_evalue) continue;
    s.from = s.from ? std::min(s.from, h.env_from) : h.env_from;
    s.to = std::max(s.to, h.env_to);
    s.hmm_spans.push_back({h.hmm_from, h.hmm_to});
  }
  std::vector<Seed> seeds;
  for (auto& [p, s] : by)
    if (s.evalue <= evalue && s.to > 0 && hmm_coverage(s.hmm_spans, s.hmm_len) >= min_cov) seeds.push_back(s);
  if (seeds.empty())
    return with_failure(Status(ErrorCode::kNotFound,
                               "found no member: no protein passed the E-value and coverage "
                               "filters, so no species profile can be built"),
                        FailureClass::kEmptyResult);
  std::sort(seeds.begin(), seeds.end(), [](const Seed& a, const Seed& b) { return a.score > b.score; });
  if (seeds.size() > kMaxSeeds) seeds.resize(kMaxSeeds);
  auto pep = read_fasta(ctx.work / "proteome.fasta");
  if (!pep) return pep.status();
  std::map<std::string, const FastaRecord*> pep_by;
  for (auto& r : *pep) pep_by[r.id] = &r;
  std::vector<FastaRecord> out;
  for (auto& s : seeds) {
    auto it = pep_by.find(s.protein);
    if (it == pep_by.end() || s.from < 1 || size_t(s.to) > it->second->seq.size()) continue;
    out.push_back({s.protein, "", it->second->seq.substr(size_t(s.from - 1), size_t(s.to - s.from + 1))});
  }
  if (out.size() == 1) out.push_back({out[0].id + "_copy", "", out[0].seq});  // MAFFT wants two sequences
  return write_fasta(ctx.work / "species_seeds.fasta", out);
}

std::vector<Step> species_profile_commands(const StageContext& ctx) {
  char ev[32], dev[32];
  std::snprintf(ev, sizeof ev, "%g", ctx.params["evalue"].get<double>());
  std::snprintf(dev, sizeof dev, "%g", ctx.params["domain_evalue"].get<double>());
  const std::string cpus = std::to_string(ctx.cpus);
  return {Command{{"mafft", "--auto", "--quiet", "--thread", cpus, "species_seeds.fasta"}, "species_seeds.aln", ""},
          Command{{"hmmbuild", "--informat", "afa", "--cpu", cpus, "-n", "species_profile", "species.hmm",
                   "species_seeds.aln"},
                  "species_hmmbuild.txt",
                  ""},
          Command{{"hmmsearch", "--domtblout", "species.domtbl", "--noali", "-E", ev, "--domE", dev, "--cpu", cpus,
                   "-o", "species_hmmsearch.txt", "species.hmm", "proteome.fasta"},
                  "",
                  ""}};
}

std::set<std::string> species_profile_hits(const StageContext& ctx, const std::vector<DomainHit>& family_hits) {
  std::set<std::string> out;
  auto text = read_text(ctx.work / "species.domtbl");
  if (!text) return out;  // the round did not run
  auto hits = parse_domtblout(*text, "species.domtbl");
  if (!hits) return out;
  const double evalue = ctx.params["evalue"];
  std::set<std::string> family;
  for (auto& h : family_hits) family.insert(h.target);
  for (auto& h : *hits)  // only proteins the family profile also hit: its domains confirm or refuse them
    if (h.seq_evalue <= evalue && family.count(h.target)) out.insert(h.target);
  return out;
}

}  // namespace bioagent::gf
