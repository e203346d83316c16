// Subfamilies named from reference members: the clade rule on hand-made trees,
// the group words of FASTA headers and the group table, and the phylogeny
// stage on the example genome's family with a few made-up grouped references
// (members.tsv and subfamilies.tsv get each member's group, "—" with a reason).
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "bioagent/genefamily.h"
#include "bioagent/seqio.h"
#include "genefamily/algo/newick.h"
#include "genefamily/algo/reference_groups.h"
#include "test_util.h"

using namespace bioagent;
using bioagent::testing::TempDir;
namespace fs = std::filesystem;

namespace {

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// A TSV's rows by their first cell, as header -> value.
std::map<std::string, std::map<std::string, std::string>> table_of(const fs::path& p) {
  std::map<std::string, std::map<std::string, std::string>> out;
  std::istringstream in(slurp(p));
  std::string line;
  std::vector<std::string> header;
  for (bool first = true; std::getline(in, line); first = false) {
    std::vector<std::string> cells;
    std::istringstream cs(line);
    for (std::string c; std::getline(cs, c, '\t');) cells.push_back(c);
    if (first) {
      header = cells;
      continue;
    }
    for (size_t i = 0; i < cells.size() && i < header.size(); ++i) out[cells[0]][header[i]] = cells[i];
  }
  return out;
}

}  // namespace

TEST(ReferenceGroups, TheSmallestCladeWithReferencesNamesAMember) {
  // G1: a1, a2, a3; G2: b1, b2. D's smallest clade with references holds a3 and b2.
  auto t = parse_newick(
      "((((A:0.1,REF_a1:0.1):0.1,REF_a2:0.2):0.5,((B:0.1,REF_b1:0.1):0.1,C:0.3):0.5):0.1,"
      "(D:0.2,(REF_a3:0.1,REF_b2:0.1):0.1):0.6);");
  ASSERT_TRUE(t.is_ok()) << t.status().to_string();
  const std::map<std::string, std::string> groups = {
      {"REF_a1", "G1"}, {"REF_a2", "G1"}, {"REF_a3", "G1"}, {"REF_b1", "G2"}, {"REF_b2", "G2"}};
  auto calls = call_reference_groups(*t, groups);
  ASSERT_EQ(calls.size(), 4u) << "members only";
  EXPECT_EQ(calls["A"].group, "G1");
  EXPECT_EQ(calls["A"].nearest_reference, "REF_a1");
  EXPECT_NEAR(calls["A"].distance, 0.2, 1e-9);
  EXPECT_EQ(calls["B"].group, "G2");
  EXPECT_EQ(calls["C"].group, "G2") << "sister to the G2 cherry: the clade holds only G2 references";
  EXPECT_TRUE(calls["C"].reason.empty());
  EXPECT_EQ(calls["D"].group, "—");
  EXPECT_NE(calls["D"].reason.find("several groups (G1, G2)"), std::string::npos) << calls["D"].reason;
  // Without references every member is "—", and says why.
  auto none = call_reference_groups(*t, {});
  EXPECT_EQ(none["A"].group, "—");
  EXPECT_EQ(none["A"].reason, "no reference member in the tree");
}

TEST(ReferenceGroups, HeaderWordsAndTheGroupTable) {
  EXPECT_EQ(group_in_description("SPL4 Arabidopsis group=G1"), "G1");
  EXPECT_EQ(group_in_description("OsSPL14 [subfamily=G5] rice"), "G5");
  EXPECT_EQ(group_in_description("x Clade: VIII-b"), "VIII-b");
  EXPECT_EQ(group_in_description("subgroup of something"), "") << "only the key words, as words";
  EXPECT_EQ(group_in_description("Squamosa promoter-binding-like protein 1 GN=SPL1"), "");
  auto table = parse_group_table("id\tgroup\n# SPL groups\nAtSPL1\tG4\nOsSPL9 G7\n\n");
  ASSERT_TRUE(table.is_ok()) << table.status().to_string();
  EXPECT_EQ(table->size(), 2u);
  EXPECT_EQ(table->at("OsSPL9"), "G7");
  auto bad = parse_group_table("AtSPL1\tG4\nAtSPL2\n");
  ASSERT_FALSE(bad.is_ok());
  EXPECT_NE(bad.status().message().find("line 2"), std::string::npos) << bad.status().message();
}

// The example genome's family with made-up references: copies of two members
// labelled group=GA in their headers, of a third labelled GB through the table.
TEST(ReferenceGroups, PhylogenyStageNamesTheMembersAndTheMembersTable) {
  if (!fs::exists("/usr/bin/mafft") || !fs::exists("/usr/bin/FastTree"))
    GTEST_SKIP() << "mafft/FastTree are not installed";
  TempDir dir;
  ExampleGenomeOptions eo;
  eo.members = 6;
  eo.decoys = 4;
  eo.random_genes = 20;
  eo.chromosomes = 2;
  const fs::path data = dir.path() / "data";
  ASSERT_TRUE(write_example_genome(data, eo).is_ok());
  auto pep = read_fasta(data / "Exam.pep.fasta");
  ASSERT_TRUE(pep.is_ok());
  Json truth = Json::parse(slurp(data / "truth.json"));
  auto member_seq = [&](size_t i) {  // a member's protein (its gene's first transcript)
    std::string g = truth["members"][i];
    for (auto& r : *pep)
      if (r.id.rfind(g + ".", 0) == 0) return r.seq;
    return std::string();
  };
  {
    std::ofstream refs(dir.path() / "refs.fasta");
    refs << ">RefA1 made-up reference group=GA\n"
         << member_seq(0) << "\n>RefA2 made-up reference [group=GA]\n"
         << member_seq(1) << "\n>RefB1 made-up reference\n"
         << member_seq(2) << "\n";
    std::ofstream(dir.path() / "groups.tsv") << "id\tgroup\nRefB1\tGB\n";
  }
  Json params = {{"phylogeny",
                  {{"method", "fasttree"},
                   {"fetch_references", false},
                   {"references", (dir.path() / "refs.fasta").string()},
                   {"reference_groups", (dir.path() / "groups.tsv").string()}}},
                 {"identify", {{"pfam", "PF00042"}}}};
  auto cfg = genefamily_run_config("", "", data, params);
  ASSERT_TRUE(cfg.is_ok()) << cfg.status().to_string();
  PipelineOptions o;
  o.run_dir = dir.path() / "run";
  o.cpus = 2;
  o.stages = {"phylogeny", "panel"};  // the panel stage draws the tree figures
  auto runner = make_local_runner();
  auto r = run_genefamily(*cfg, *runner, o);
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  const fs::path final_dir = dir.path() / "run" / "final";
  auto members = table_of(final_dir / "Exam.GLOBIN.members.tsv");
  ASSERT_EQ(members.size(), truth["members"].size()) << slurp(final_dir / "Exam.GLOBIN.members.tsv");
  // The tables name each member by its one name; names.tsv maps the data's gene ids to them.
  std::map<std::string, std::string> name_of;
  for (auto& [name, row] : table_of(final_dir / "Exam.GLOBIN.names.tsv")) name_of[row["gene_id"]] = name;
  const std::string m0 = name_of[truth["members"][0]], m1 = name_of[truth["members"][1]],
                    m2 = name_of[truth["members"][2]];
  ASSERT_FALSE(m0.empty() || m1.empty() || m2.empty()) << slurp(final_dir / "Exam.GLOBIN.names.tsv");
  EXPECT_EQ(members[m0]["group"], "GA") << "its own copy is a GA reference";
  EXPECT_EQ(members[m1]["group"], "GA");
  EXPECT_EQ(members[m2]["group"], "GB") << "named through the group table";
  EXPECT_FALSE(members[m0]["seqid"].empty()) << "identify's columns are kept";
  for (auto& [gene, row] : members) {
    EXPECT_TRUE(row["group"] == "GA" || row["group"] == "GB" || row["group"] == "—") << gene << " " << row["group"];
    EXPECT_EQ(row["group"] == "—", !row["group_reason"].empty()) << gene << ": a reason exactly when unnamed";
  }
  auto sub = table_of(final_dir / "Exam.GLOBIN.subfamilies.tsv");
  EXPECT_EQ(sub[m2]["subfamily"], "GB");
  EXPECT_EQ(sub[m2]["nearest_reference"], "RefB1");
  const std::string svg = slurp(final_dir / "Exam.GLOBIN.tree_rooted.svg");
  EXPECT_NE(svg.find(">GA<"), std::string::npos) << "the tree's legend names the groups";
  EXPECT_NE(svg.find(">GB<"), std::string::npos);
}
