// Real files as portals ship them (../shared/fixtures; skipped when absent): NCBI RefSeq's protein FASTA
// (">gi|7525080|ref|NP_051037.1| ribosomal protein S12 [Arabidopsis thaliana]") beside a GFF3 whose gene rows
// carry protein_id: every protein maps by what its identifiers are, every one is placed on the real sequence.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "bioagent/genefamily.h"
#include "test_util.h"

using namespace bioagent;
namespace fs = std::filesystem;

namespace {

TEST(RealPortalFiles, NcbiRefSeqProteinsMapToTheirAnnotationAndArePlaced) {
  const fs::path src = fs::path(BIOAGENT_FIXTURES_DIR) / "genefamily" / "arabidopsis_chloroplast";
  if (!fs::exists(src / "NC_000932.faa")) GTEST_SKIP() << "fixtures absent: " << src;
  bioagent::testing::TempDir dir;
  const fs::path folder = dir.path() / "Atha";
  fs::create_directories(folder);
  fs::copy_file(src / "NC_000932.faa", folder / "Atha.pep.fasta");
  fs::copy_file(src / "NC_000932_derived.gff3", folder / "Atha.gff3");
  fs::copy_file(src / "NC_000932_derived.fa", folder / "Atha.genome.fasta");
  auto check = check_species_data(folder, "Atha", "", true);
  ASSERT_TRUE(check.is_ok()) << check.status().to_string();
  const Json& map = (*check)["consistency"]["gene_map"];
  EXPECT_EQ(map["proteins"], 85) << map.dump(1);
  EXPECT_EQ(map["placed"], 85) << map.dump(1);
  EXPECT_EQ(map["unplaced"], 0);
  EXPECT_EQ((*check)["consistency"]["proteins_without_gff_mrna"], 0);
  // The only problem is the family profile no folder of proteins alone has.
  for (auto& p : (*check)["problems"]) EXPECT_EQ(p["kind"], "hmm") << p.dump();
}

}  // namespace
