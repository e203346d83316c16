// Classification of a proteome into gene families by domain rules (TAPscan
// style): the HMMs are searched once, each protein's domain hits are filtered
// by per-domain thresholds, and each protein goes to the family whose rule
// (required domains, forbidden domains, hit counts) it satisfies.
//
// Rules format (tab-separated, '#' starts a comment line):
//   default  min_domain_score|min_sequence_score|min_coverage  VALUE
//   domain   NAME  ID, ID...  [score=S] [sequence_score=S] [coverage=C]
//            IDs are HMM names or Pfam accessions (version ignored) standing for NAME
//   yields   NAME  OTHER, OTHER...   NAME is ignored when an OTHER has a better E-value
//   rule     NAME  FAMILY  SUBFAMILY(- for none)  REQUIRED  FORBIDDEN(- for none)
//            terms are domain names; NAME*N: at least N hits, NAME*N-M: N to M hits
// Thresholds apply only to hits of profiles searched without --cut_ga; the
// coverage threshold (fraction of the model's match states aligned) always applies.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "bioagent/seqio.h"
#include "bioagent/status.h"

namespace bioagent::gf {

struct DomainThresholds {
  double min_domain_score = 22, min_sequence_score = 0, min_coverage = 0.3;
};

struct DomainSpec {
  std::string name;
  std::vector<std::string> ids;  // HMM names or Pfam accessions
  DomainThresholds thresholds;
};

struct RuleTerm {
  std::string domain;
  int min_count = 1, max_count = 1 << 30;
};

struct FamilyRule {
  std::string name, family, subfamily;  // subfamily "-" when the family has none
  std::vector<RuleTerm> required, forbidden;
};

struct RuleSet {
  std::vector<DomainSpec> domains;
  std::map<std::string, std::vector<std::string>> yields;  // domain -> domains it yields to
  std::vector<FamilyRule> rules;                           // in decision order (by name)
  std::string source;
};

// The built-in table (TAPscan v4's family rules restated).
std::string_view builtin_family_rules();
// Errors name the file and line.
Result<RuleSet> parse_family_rules(std::string_view text, const std::string& name);

// One profile of a HMMER3 file.
struct HmmModel {
  std::string name, accession;  // accession without its version
  int64_t length = 0;
  bool has_ga = false;
  double ga_sequence = 0, ga_domain = 0;  // the GA line's bit scores (sequence, domain) when has_ga
};
Result<std::vector<HmmModel>> read_hmm_models(std::string_view text, const std::string& name);

// The hmmsearch thresholds for one HMM file: --cut_ga when every profile has GA
// lines, else the E-value (the rules' per-domain thresholds apply afterwards).
std::vector<std::string> hmmsearch_threshold_args(const std::vector<HmmModel>& models, double evalue);

// For a stage that searches one family's profile: a file of several profiles is
// refused (they are a set of domains: `genefamily classify` assigns families
// from them); otherwise whether hmmsearch can use the profile's GA lines.
Result<bool> single_family_profile_uses_ga(const std::string& hmm_path);
// That one profile itself (refused as above when the file holds several).
Result<HmmModel> single_family_profile(const std::string& hmm_path);

// How far a family can be decided with the profiles at hand.
enum class Expressible {
  kFull,      // its rules and every rule competing for its required domains are modelled
  kRules,     // its rules are modelled, a competing rule is not
  kRequired,  // its required domains are modelled, some forbidden domain is not
  kNone,      // a required domain has no profile
};
const char* to_string(Expressible e);

struct ProteinCall {
  std::string protein, family, subfamily, rule;
  int candidates = 0;                // rules the protein satisfied before the tie was decided
  std::vector<std::string> domains;  // counted domains, best E-value first
};

struct Classification {
  std::vector<ProteinCall> calls;                                       // proteins with a family, by id
  std::map<std::string, Expressible> families;                          // every family of the rules
  std::map<std::string, std::vector<std::string>> unexpressible_rules;  // rule -> domains without profile
  size_t proteins_with_domains = 0;
};

struct SearchedHits {
  std::vector<DomainHit> hits;  // one hmmsearch --domtblout table
  std::vector<HmmModel> models;
  bool cut_ga = false;
};

// Assigns families from the hits of one proteome.
Result<Classification> classify_hits(const std::vector<SearchedHits>& searches, const RuleSet& rules);

// Runs hmmsearch once per HMM file over the proteome (in `work_dir`) and classifies.
Result<Classification> classify_proteome(const std::vector<std::string>& hmm_files, const std::string& proteome,
                                         const RuleSet& rules, const std::string& work_dir, int cpus,
                                         double evalue = 0.01);

// Agreement with a reference classification (TAPscan's output.3: id;family;subfamily;...).
struct FamilyAgreement {
  std::string family;
  Expressible expressible = Expressible::kNone;
  int both = 0, only_ours = 0, only_reference = 0;
  double recall() const { return both + only_reference ? double(both) / (both + only_reference) : 1.0; }
  double precision() const { return both + only_ours ? double(both) / (both + only_ours) : 1.0; }
};
Result<std::map<std::string, std::string>> parse_tapscan_calls(std::string_view text, const std::string& name);
std::vector<FamilyAgreement> compare_calls(const Classification& ours, const std::map<std::string, std::string>& ref);
// Pooled recall and precision over the families with the given level.
std::pair<double, double> pooled_agreement(const std::vector<FamilyAgreement>& rows, Expressible level);
// The per-family table as text.
std::string agreement_table(const std::vector<FamilyAgreement>& rows);

}  // namespace bioagent::gf
