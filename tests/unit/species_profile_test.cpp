// The identify stage's second round with a species profile: a species' family
// descends from one ancestor, so its members share residues the family profile
// does not weigh; diverged copies the family profile misses among thousands of
// proteins are found by a profile of the species' own members, while random
// proteins stay out (the family profile's domains must confirm every new hit).
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>

#include <fstream>
#include <random>
#include <set>

#include "bioagent/genefamily.h"
#include "bioagent/seqio.h"
#include "pipeline/subprocess.h"
#include "test_util.h"

using namespace bioagent;
using bioagent::testing::TempDir;

namespace {

const char* kFn3 = "/usr/share/doc/hmmer/examples/tutorial/fn3.hmm";
constexpr char kResidues[] = "ACDEFGHIKLMNPQRSTVWY";

std::string random_protein(std::mt19937& rng, size_t n) {
  std::uniform_int_distribution<int> aa(0, 19);
  std::string s;
  for (size_t i = 0; i < n; ++i) s += kResidues[aa(rng)];
  return s;
}

// `seq` with each residue replaced by a random one with probability `rate`.
std::string mutated(std::mt19937& rng, const std::string& seq, double rate) {
  std::uniform_real_distribution<double> u(0, 1);
  std::uniform_int_distribution<int> aa(0, 19);
  std::string out = seq;
  for (auto& c : out)
    if (u(rng) < rate) c = kResidues[aa(rng)];
  return out;
}

struct Planted {
  std::set<std::string> members, diverged, background;
};

// Spec.pep.fasta + FN3.hmm in `d`: 14 members (the ancestor's domain at `member_rate` substitutions),
// 8 diverged copies (at `diverged_rate`) and 4,000 random proteins.
Planted write_species(const fs::path& d, double member_rate, double diverged_rate) {
  fs::create_directories(d);
  fs::copy_file(kFn3, d / "FN3.hmm");
  auto emitted = capture({"hmmemit", "-c", kFn3});  // the consensus: the ancestor of the species' family
  EXPECT_TRUE(emitted.is_ok() && emitted->exit_code == 0);
  auto recs = parse_fasta(emitted->out, "hmmemit");
  EXPECT_TRUE(recs.is_ok() && !recs->empty());
  const std::string ancestor = (*recs)[0].seq;
  std::mt19937 rng(20261202);
  Planted p;
  std::vector<FastaRecord> out;
  auto add = [&](const std::string& id, const std::string& domain, std::set<std::string>& into) {
    out.push_back({id, "", random_protein(rng, 60) + domain + random_protein(rng, 90)});
    into.insert(id);
  };
  for (int i = 0; i < 14; ++i) add("Spec_m" + std::to_string(i), mutated(rng, ancestor, member_rate), p.members);
  for (int i = 0; i < 8; ++i) add("Spec_d" + std::to_string(i), mutated(rng, ancestor, diverged_rate), p.diverged);
  for (int i = 0; i < 4000; ++i) add("Spec_b" + std::to_string(i), random_protein(rng, 170), p.background);
  EXPECT_TRUE(write_fasta(d / "Spec.pep.fasta", out).is_ok());
  return p;
}

std::set<std::string> found(const fs::path& d, const fs::path& run, bool species_profile, Json* summary) {
  auto cfg = genefamily_run_config("Spec", "FN3", d, Json{{"identify", {{"species_profile", species_profile}}}});
  EXPECT_TRUE(cfg.is_ok()) << cfg.status().to_string();
  PipelineOptions o;
  o.run_dir = run;
  o.stages = {"identify"};
  auto runner = make_local_runner();
  auto r = run_genefamily(*cfg, *runner, o);
  EXPECT_TRUE(r.is_ok()) << r.status().to_string();
  std::set<std::string> ids;
  for (auto& st : *r)
    if (st.stage == "identify") {
      EXPECT_TRUE(finished_with_outputs(st.state)) << st.message;
      *summary = Json::parse(std::ifstream(fs::path(st.folder) / "identify.json"));
      // The FASTA names members by the run's one name; names.tsv maps each to its protein id.
      std::map<std::string, std::string> protein_of;
      std::ifstream names(run / "final" / "Spec.FN3.names.tsv");
      std::string line;
      std::getline(names, line);
      while (std::getline(names, line)) {
        std::stringstream ss(line);
        std::string name, gene, protein;
        std::getline(ss, name, '\t');
        std::getline(ss, gene, '\t');
        std::getline(ss, protein, '\t');
        protein_of[name] = protein;
      }
      auto members = read_fasta(run / "final" / "Spec.FN3.pep.fasta");
      if (members)
        for (auto& m : *members) ids.insert(protein_of.count(m.id) ? protein_of[m.id] : m.id);
    }
  return ids;
}

}  // namespace

TEST(SpeciesProfile, FindsDivergedMembersTheFamilyProfileMissesAndNoRandomProtein) {
  if (which("hmmsearch").empty() || which("hmmemit").empty() || which("mafft").empty() || !fs::exists(kFn3))
    GTEST_SKIP() << "hmmer/mafft are not installed (scripts/setup.sh installs them)";
  TempDir dir;
  const Planted p = write_species(dir.path() / "data", 0.25, 0.55);
  Json one_round, two_rounds;
  const auto first = found(dir.path() / "data", dir.path() / "run1", false, &one_round);
  const auto both = found(dir.path() / "data", dir.path() / "run2", true, &two_rounds);
  auto count = [](const std::set<std::string>& got, const std::set<std::string>& of) {
    size_t n = 0;
    for (auto& g : got) n += of.count(g);
    return n;
  };
  EXPECT_EQ(count(first, p.members), p.members.size()) << "the family profile finds the ordinary members";
  EXPECT_TRUE(std::includes(both.begin(), both.end(), first.begin(), first.end())) << "the second round only adds";
  EXPECT_GT(count(both, p.diverged), count(first, p.diverged)) << two_rounds.dump(2);
  EXPECT_EQ(count(both, p.background), 0u) << "no random protein is called";
  EXPECT_TRUE(one_round["species_profile"].is_null());
  ASSERT_TRUE(two_rounds["species_profile"].is_object()) << two_rounds.dump(2);
  EXPECT_EQ(two_rounds["species_profile"]["added"].size(), both.size() - first.size());
}
