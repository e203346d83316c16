// The genome-scale generated species and what genome scale needs from the
// pipeline: the all-against-all search reused across families through the
// cache folder, and the duplication context finding the planted WGD's Ks.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "bioagent/genefamily.h"
#include "bioagent/seqio.h"
#include "test_util.h"

namespace fs = std::filesystem;
using bioagent::Json;
using bioagent::testing::TempDir;

namespace {

bioagent::ScaleGenomeOptions small_species() {
  bioagent::ScaleGenomeOptions o;
  o.genes = 1200;
  o.genome_mb = 8;
  o.scaffolds = 40;
  o.families = {{"GLOBIN", "/usr/share/doc/hmmer/examples/tutorial/globins4.hmm", 10},
                {"FN3", "/usr/share/doc/hmmer/examples/tutorial/fn3.hmm", 10}};
  return o;
}

const bioagent::StageStatus* stage_of(const std::vector<bioagent::StageStatus>& r, const std::string& name) {
  for (auto& s : r)
    if (s.stage == name) return &s;
  return nullptr;
}

bioagent::Result<std::vector<bioagent::StageStatus>> run_family(const fs::path& data, const std::string& family,
                                                                const fs::path& run, const fs::path& cache) {
  auto cfg = bioagent::genefamily_run_config("Scal", family, data, Json::object());
  if (!cfg) return cfg.status();
  (*cfg)["network"] = {{"offline", true}, {"cache_dir", cache.string()}};
  bioagent::PipelineOptions o;
  o.run_dir = run;
  o.cpus = 2;
  o.stages = {"duplication"};
  auto runner = bioagent::make_local_runner();
  return bioagent::run_genefamily(*cfg, *runner, o);
}

}  // namespace

TEST(ScaleGenome, WritesAPlantedSpeciesTheCheckAccepts) {
  TempDir dir;
  auto truth = bioagent::write_scale_genome(dir.path() / "data", small_species());
  ASSERT_TRUE(truth) << truth.status().message();
  EXPECT_NEAR((*truth)["genes"].get<double>(), 1200, 300);
  EXPECT_EQ((*truth)["chromosomes"].size(), 12u);
  EXPECT_GT((*truth)["soft_masked_fraction"].get<double>(), 0.2);
  for (const char* cls : {"wgd", "segmental", "tandem"}) EXPECT_GT((*truth)["duplicate_pairs"].value(cls, 0), 0) << cls;
  auto genome = bioagent::read_fasta(dir.path() / "data" / "Scal.genome.fasta");
  ASSERT_TRUE(genome);
  EXPECT_EQ(genome->size(), 12u + 40u) << "chromosomes and unplaced scaffolds";
  auto check = bioagent::check_species_data(dir.path() / "data", "Scal", "GLOBIN");
  ASSERT_TRUE(check) << check.status().message();
  EXPECT_EQ((*check)["ok"], true) << check->dump(2);
  // Deterministic for a seed; refuses a folder that already holds a genome.
  EXPECT_FALSE(bioagent::write_scale_genome(dir.path() / "data", small_species()));
  auto again = bioagent::write_scale_genome(dir.path() / "again", small_species());
  ASSERT_TRUE(again);
  EXPECT_EQ(again->dump(), truth->dump());
}

TEST(ScaleGenome, RefusesScalesOutsideItsRange) {
  TempDir dir;
  auto o = small_species();
  o.genes = 10;
  EXPECT_EQ(bioagent::write_scale_genome(dir.path(), o).status().code(), bioagent::ErrorCode::kInvalidArgument);
  o = small_species();
  o.genome_mb = 0;
  EXPECT_EQ(bioagent::write_scale_genome(dir.path(), o).status().code(), bioagent::ErrorCode::kInvalidArgument);
}

TEST(ScaleGenome, SecondFamilyReusesTheSearchAndTheWgdPeakIsFound) {
  TempDir dir;
  auto truth = bioagent::write_scale_genome(dir.path() / "data", small_species());
  ASSERT_TRUE(truth) << truth.status().message();
  auto first = run_family(dir.path() / "data", "GLOBIN", dir.path() / "run1", dir.path() / "cache");
  ASSERT_TRUE(first) << first.status().message();
  const auto* synteny = stage_of(*first, "synteny");
  ASSERT_NE(synteny, nullptr);
  ASSERT_EQ(synteny->state, bioagent::StageState::kDone) << synteny->message;
  EXPECT_EQ(synteny->summary["homology_search"].value("reused", true), false);
  auto second = run_family(dir.path() / "data", "FN3", dir.path() / "run2", dir.path() / "cache");
  ASSERT_TRUE(second) << second.status().message();
  EXPECT_EQ(stage_of(*second, "synteny")->summary["homology_search"].value("reused", false), true);

  const auto* dup = stage_of(*first, "duplication");
  ASSERT_NE(dup, nullptr);
  ASSERT_EQ(dup->state, bioagent::StageState::kDone) << dup->message;
  const double planted = (*truth)["wgd"]["expected_ks"];
  double nearest = 1e9;
  for (auto& p : dup->summary["peaks"]) nearest = std::min(nearest, std::abs(p["ks"].get<double>() - planted));
  EXPECT_LT(nearest, 0.1) << dup->summary.dump(2);
  std::ifstream tsv(fs::path(dup->folder) / "final" / "Scal.GLOBIN.genome_ks.tsv");
  EXPECT_TRUE(tsv.good()) << "the genome-wide Ks table is a final file";
}
