// Family classification by domain rules: the rules format, the decision on
// made-up hits, and (when ../shared/fixtures exists) the agreement with
// TAPscan's calls on the three Ostreococcus proteomes.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>

#include "bioagent/genefamily_classify.h"
#include "genefamily/classify/classify.h"

namespace fs = std::filesystem;
using namespace bioagent;
using namespace bioagent::gf;

namespace {

const char* kRules =
    "default\tmin_domain_score\t20\n"
    "domain\tMyb\tPF00249\n"
    "domain\tG2\tG2-like\n"
    "domain\tSWIRM\tPF04433\tscore=40\n"
    "domain\tZZ\tzz-ADA2\n"
    "yields\tMyb\tG2\n"
    "yields\tG2\tMyb\n"
    "rule\tMYB-2R\tMYB\tMYB-2R\tMyb*2-2\tG2\n"
    "rule\tMYB-related\tMYB\tMYB-related\tMyb\tG2, Myb*2-4\n"
    "rule\tG2-like\tGARP\t-\tG2\tMyb\n"
    "rule\tSWI3\tSWI3\t-\tSWIRM, Myb\t-\n"
    "rule\tADA2\tADA2\t-\tZZ, Myb\t-\n";

DomainHit hit(const std::string& protein, const std::string& model, double score, double evalue, int64_t from = 1,
              int64_t to = 40, int64_t len = 46) {
  DomainHit h;
  h.target = protein;
  h.query = model;
  h.query_len = len;
  h.seq_score = h.dom_score = score;
  h.seq_evalue = h.c_evalue = h.i_evalue = evalue;
  h.hmm_from = from;
  h.hmm_to = to;
  return h;
}

SearchedHits searched(std::vector<DomainHit> hits, std::vector<std::string> models, bool cut_ga = false) {
  SearchedHits s;
  s.hits = std::move(hits);
  for (auto& m : models) s.models.push_back({m, "", 46, cut_ga});
  s.cut_ga = cut_ga;
  return s;
}

std::map<std::string, const ProteinCall*> by_protein(const Classification& c) {
  std::map<std::string, const ProteinCall*> out;
  for (auto& call : c.calls) out[call.protein] = &call;
  return out;
}

}  // namespace

TEST(ClassifyRules, BuiltInTableParsesAndCoversTapscanFamilies) {
  auto rs = parse_family_rules(builtin_family_rules(), "built-in");
  ASSERT_TRUE(rs) << rs.status().to_string();
  EXPECT_GT(rs->rules.size(), 140u);
  std::set<std::string> families;
  for (auto& r : rs->rules) families.insert(r.family);
  for (const char* f : {"MYB", "bZIP", "NFY", "C2C2_CO-like", "SBP", "WRKY", "GARP_ARR-B", "HDZ"})
    EXPECT_TRUE(families.count(f)) << f;
  // CO-like needs the B-box as well as CCT (the false CO-like calls).
  for (auto& r : rs->rules)
    if (r.name == "C2C2_CO-like") {
      ASSERT_EQ(r.required.size(), 2u);
      EXPECT_EQ(r.required[1].domain, "zf-B_box");
    }
}

TEST(ClassifyRules, ErrorsNameTheLine) {
  auto bad = parse_family_rules("domain\tA\tPF1\nrule\tX\tX\t-\tA*0\t-\n", "r.tsv");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.status().message().find("r.tsv line 2"), std::string::npos) << bad.status().message();
  auto undeclared = parse_family_rules("domain\tA\tPF1\nrule\tX\tX\t-\tA\tB\n", "r.tsv");
  ASSERT_FALSE(undeclared);
  EXPECT_NE(undeclared.status().message().find("undeclared domain 'B'"), std::string::npos);
  EXPECT_FALSE(parse_family_rules("frobnicate\tA\n", "r.tsv"));
  EXPECT_FALSE(parse_family_rules("domain\tA\tPF1\tscore=high\nrule\tX\tX\t-\tA\t-\n", "r.tsv"));
}

TEST(ClassifyRules, HmmHeadersAndThresholdMode) {
  std::string two =
      "HMMER3/f [3.3]\nNAME  A\nACC   PF00001.9\nLENG  20\nGA    20.0 20.0;\n//\n"
      "HMMER3/f [3.3]\nNAME  B\nLENG  30\n//\n";
  auto models = read_hmm_models(two, "two.hmm");
  ASSERT_TRUE(models);
  ASSERT_EQ(models->size(), 2u);
  EXPECT_EQ((*models)[0].accession, "PF00001");
  EXPECT_TRUE((*models)[0].has_ga);
  EXPECT_EQ(hmmsearch_threshold_args(*models, 0.01)[0], "-E");  // B has no GA line
  models->pop_back();
  EXPECT_EQ(hmmsearch_threshold_args(*models, 0.01), std::vector<std::string>{"--cut_ga"});
  EXPECT_FALSE(read_hmm_models("HMMER3/f\nNAME  A\nLENG 5\n", "cut.hmm"));  // truncated
  EXPECT_FALSE(read_hmm_models(">seq\nACGT\n", "x.hmm"));
}

TEST(ClassifyDecide, CountsForbiddenYieldsAndThresholds) {
  auto rs = parse_family_rules(kRules, "rules");
  ASSERT_TRUE(rs) << rs.status().to_string();
  std::vector<DomainHit> hits = {
      hit("two_repeats", "PF00249", 30, 1e-9),  hit("two_repeats", "PF00249", 28, 1e-8),
      hit("one_repeat", "PF00249", 30, 1e-9),   hit("weak", "PF00249", 15, 1e-3),  // under the default score
      hit("short", "PF00249", 30, 1e-9, 1, 10),                                    // covers 10 of 46 match states
      hit("g2_better", "PF00249", 30, 1e-6),    hit("g2_better", "G2-like", 50, 1e-12),
      hit("swirm_weak", "PF04433", 30, 1e-6),   hit("swirm_weak", "PF00249", 30, 1e-9),  // SWIRM needs 40
      hit("swi3", "PF04433", 60, 1e-15),        hit("swi3", "PF00249", 30, 1e-9),
  };
  auto c = classify_hits({searched(hits, {"PF00249", "G2-like", "PF04433"})}, *rs);
  ASSERT_TRUE(c);
  auto calls = by_protein(*c);
  ASSERT_TRUE(calls.count("two_repeats"));
  EXPECT_EQ(calls["two_repeats"]->subfamily, "MYB-2R");
  EXPECT_EQ(calls["one_repeat"]->subfamily, "MYB-related");
  EXPECT_FALSE(calls.count("weak"));
  EXPECT_FALSE(calls.count("short"));
  EXPECT_EQ(calls["g2_better"]->family, "GARP");  // Myb yields to the better G2 hit
  EXPECT_EQ(calls["swirm_weak"]->family, "MYB");
  // SWIRM (best E-value) is required by SWI3 only: SWI3 wins over MYB-related.
  EXPECT_EQ(calls["swi3"]->family, "SWI3");
  EXPECT_EQ(calls["swi3"]->candidates, 2);
}

TEST(ClassifyDecide, GatheringThresholdsReplaceTheScoreFilter) {
  auto rs = parse_family_rules(kRules, "rules");
  ASSERT_TRUE(rs);
  auto c = classify_hits({searched({hit("weak", "PF00249", 15, 1e-3)}, {"PF00249"}, true)}, *rs);
  ASSERT_TRUE(c);
  ASSERT_EQ(c->calls.size(), 1u);  // hmmsearch --cut_ga already decided this hit
}

TEST(ClassifyDecide, ExpressibilityFollowsTheProfilesAtHand) {
  auto rs = parse_family_rules(kRules, "rules");
  ASSERT_TRUE(rs);
  auto c = classify_hits({searched({}, {"PF00249", "PF04433"})}, *rs);  // no G2, no ZZ profile
  ASSERT_TRUE(c);
  EXPECT_EQ(c->families.at("MYB"), Expressible::kRequired);  // cannot exclude G2-like proteins
  EXPECT_EQ(c->families.at("GARP"), Expressible::kNone);
  EXPECT_EQ(c->families.at("ADA2"), Expressible::kNone);
  EXPECT_EQ(c->families.at("SWI3"), Expressible::kRules);  // ADA2 competes for Myb and is not modelled
  EXPECT_EQ(c->unexpressible_rules.at("ADA2"), std::vector<std::string>{"ZZ"});
  auto all = classify_hits({searched({}, {"PF00249", "PF04433", "G2-like", "zz-ADA2"})}, *rs);
  ASSERT_TRUE(all);
  EXPECT_EQ(all->families.at("SWI3"), Expressible::kFull);
}

TEST(ClassifyCompare, CountsAgreementPerFamily) {
  auto ref = parse_tapscan_calls(
      "family classifications for x\na;MYB;MYB-related;1;Myb;\nb;WRKY;-;1;WRKY;\n"
      "c;0_no_family_found;-;0;PP2C;\n",
      "ref");
  ASSERT_TRUE(ref);
  EXPECT_EQ(ref->size(), 2u);
  Classification ours;
  ours.families = {{"MYB", Expressible::kFull}, {"WRKY", Expressible::kFull}};
  ours.calls = {{"a", "MYB", "MYB-related", "MYB-related", 1, {}}, {"c", "WRKY", "-", "WRKY", 1, {}}};
  auto rows = compare_calls(ours, *ref);
  auto [recall, precision] = pooled_agreement(rows, Expressible::kFull);
  EXPECT_DOUBLE_EQ(recall, 0.5);     // b missed
  EXPECT_DOUBLE_EQ(precision, 0.5);  // c is not WRKY in the reference
  EXPECT_FALSE(parse_tapscan_calls("no separators here\n", "ref"));
}

// The real data: 53 Pfam profiles over three Ostreococcus proteomes against TAPscan v4.
TEST(ClassifyFixtures, AgreesWithTapscanOnOstreococcus) {
  fs::path fx = fs::path(BIOAGENT_FIXTURES_DIR) / "genefamily";
  fs::path hmm = fx / "hmm" / "planttfhunter_PFAM_TF_domains.hmm";
  if (!fs::exists(hmm)) GTEST_SKIP() << "fixtures absent: " << hmm;
  ClassifyOptions o;
  o.hmm_files = {hmm.string()};
  for (const char* sp : {"OSTLU", "OSTSP", "OSTTA"}) {
    o.proteomes.push_back((fx / "ostreococcus_tapscan_proteomes" / (std::string(sp) + ".fa.gz")).string());
    o.references.push_back((fx / "ostreococcus_tapscan_proteomes" / (std::string(sp) + ".output.3")).string());
  }
  o.out_dir = (fs::temp_directory_path() / ("classify_test_" + std::to_string(::getpid()))).string();
  o.cpus = 2;
  auto r = classify_families(o);
  fs::remove_all(o.out_dir);
  ASSERT_TRUE(r) << r.status().to_string();
  std::cout << r->agreement_table;
  const Json& full = r->summary["agreement"]["pooled"]["full"];
  EXPECT_GE(full["recall"].get<double>(), 0.95);
  EXPECT_GE(full["precision"].get<double>(), 0.95);
  EXPECT_EQ(r->summary["families"]["SBP"], "full");
  EXPECT_EQ(r->summary["families"]["MYB"], "required");  // ARID, G2-like and trihelix have no profile here
  EXPECT_TRUE(r->summary["unexpressible_rules"].contains("ADA2"));
}

// The identify stage's check: a file of many domain profiles is not one family.
TEST(ClassifyRules, MultiProfileFileIsRefusedForOneFamily) {
  fs::path dir = fs::temp_directory_path() / ("classify_hmm_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "set.hmm") << "HMMER3/f\nNAME  A\nLENG  5\n//\nHMMER3/f\nNAME  B\nLENG  5\n//\n";
  std::ofstream(dir / "one.hmm") << "HMMER3/f\nNAME  SBP\nLENG  75\nGA    25.0 25.0;\n//\n";
  auto set = single_family_profile_uses_ga((dir / "set.hmm").string());
  ASSERT_FALSE(set);
  EXPECT_NE(set.status().message().find("genefamily classify"), std::string::npos) << set.status().message();
  EXPECT_NE(set.status().message().find("2 profiles"), std::string::npos);
  auto one = single_family_profile_uses_ga((dir / "one.hmm").string());
  ASSERT_TRUE(one);
  EXPECT_TRUE(*one);  // GA lines: the stage searches with --cut_ga
  fs::remove_all(dir);
}

TEST(ClassifyRules, BadInputIsAClearError) {
  ClassifyOptions o;
  EXPECT_EQ(classify_families(o).status().code(), ErrorCode::kInvalidArgument);  // no HMM, no proteome
  o.hmm_files = {"/nonexistent/domains.hmm"};
  o.proteomes = {"/nonexistent/a.fa", "/nonexistent/b.fa"};
  o.references = {"/nonexistent/a.output.3"};
  auto r = classify_families(o);
  ASSERT_FALSE(r);
  EXPECT_NE(r.status().message().find("one reference table per proteome"), std::string::npos);
  o.references.clear();
  r = classify_families(o);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.status().code(), ErrorCode::kNotFound);
  EXPECT_NE(r.status().message().find("/nonexistent/domains.hmm"), std::string::npos);
  o.rules_file = "/nonexistent/rules.tsv";
  EXPECT_NE(classify_families(o).status().message().find("rules.tsv"), std::string::npos);
}

// Pfam's own files name a profile by its ID and carry the accession: either matches.
TEST(ClassifyDecide, ProfilesMatchByNameOrAccession) {
  auto rs = parse_family_rules(kRules, "rules");
  ASSERT_TRUE(rs);
  SearchedHits s;
  s.models = {{"Myb_DNA-binding", "PF00249", 46, false}};
  s.hits = {hit("p", "Myb_DNA-binding", 30, 1e-9)};
  auto c = classify_hits({s}, *rs);
  ASSERT_TRUE(c);
  ASSERT_EQ(c->calls.size(), 1u);
  EXPECT_EQ(c->calls[0].subfamily, "MYB-related");
}
