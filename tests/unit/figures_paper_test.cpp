// The paper figures: rooting, renaming, label spreading, Ks peaks, and the SVGs
// (written to $BIOAGENT_FIGURE_DIR when set, for a look in a browser).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <set>

#include "genefamily/figures/figures_paper.h"

namespace fs = std::filesystem;
using namespace bioagent;
using namespace bioagent::figures;

namespace {

std::set<std::string> leaves_under(const NewickTree& t, int n) {
  std::set<std::string> out;
  std::function<void(int)> go = [&](int k) {
    if (t.nodes[size_t(k)].children.empty()) out.insert(t.nodes[size_t(k)].name);
    for (int c : t.nodes[size_t(k)].children) go(c);
  };
  go(n);
  return out;
}

double root_distance(const NewickTree& t, const std::string& leaf) {
  for (size_t i = 0; i < t.nodes.size(); ++i)
    if (t.nodes[i].name == leaf && t.nodes[i].children.empty()) {
      double d = 0;
      for (int k = int(i); t.nodes[size_t(k)].parent >= 0; k = t.nodes[size_t(k)].parent)
        d += t.nodes[size_t(k)].length;
      return d;
    }
  return -1;
}

void keep(const std::string& name, const std::string& svg) {
  const char* dir = std::getenv("BIOAGENT_FIGURE_DIR");
  if (!dir) return;
  fs::create_directories(dir);
  std::ofstream(fs::path(dir) / name) << svg;
}

}  // namespace

TEST(FiguresPaper, MidpointRootHalvesTheLongestPath) {
  auto t = parse_newick("((A:1,B:1)90:1,(C:1,D:5)80:1);");
  ASSERT_TRUE(t);
  auto r = midpoint_rooted(*t);
  EXPECT_NEAR(root_distance(r, "D"), 4.0, 1e-9);
  EXPECT_NEAR(root_distance(r, "A"), 4.0, 1e-9);
  EXPECT_EQ(r.leaves().size(), 4u);
  EXPECT_EQ(r.nodes[0].children.size(), 2u);
  std::string text = newick_text(r);
  EXPECT_NE(text.find("90"), std::string::npos) << text;  // supports stay on their branches
}

TEST(FiguresPaper, OutgroupRootAndItsErrors) {
  auto t = parse_newick("((A:1,B:1):1,((C:1,D:1):2,E:1):1);");
  ASSERT_TRUE(t);
  auto r = outgroup_rooted(*t, {"C", "D"});
  ASSERT_TRUE(r) << r.status().to_string();
  bool clade = false;
  for (int c : r->nodes[0].children) clade |= leaves_under(*r, c) == std::set<std::string>{"C", "D"};
  EXPECT_TRUE(clade) << newick_text(*r);
  EXPECT_FALSE(outgroup_rooted(*t, {"A", "C"}));  // not one clade
  EXPECT_FALSE(outgroup_rooted(*t, {"Z"}));
}

// Pruning the reference leaves keeps the members' tree: one-child nodes are joined, branch lengths added.
TEST(FiguresPaper, PrunedTreeKeepsTheMembersAndTheirDistances) {
  auto t = parse_newick("((A:1,REF_x:1)90:1,(B:1,(C:1,REF_y:2)80:1)70:1);");
  ASSERT_TRUE(t);
  auto p = pruned_to(*t, {"A", "B", "C"});
  std::set<std::string> leaves;
  for (int l : p.leaves()) leaves.insert(p.nodes[size_t(l)].name);
  EXPECT_EQ(leaves, (std::set<std::string>{"A", "B", "C"}));
  EXPECT_NEAR(root_distance(p, "A"), root_distance(*t, "A"), 1e-9);
  EXPECT_NEAR(root_distance(p, "C"), root_distance(*t, "C"), 1e-9);
}

TEST(FiguresPaper, LabelsNeverOverlap) {
  auto y = spread_labels({100, 101, 102, 300, 99}, 10, 0, 1000);
  std::vector<double> s = y;
  std::sort(s.begin(), s.end());
  for (size_t i = 1; i < s.size(); ++i) EXPECT_GE(s[i] - s[i - 1], 10 - 1e-9);
  auto crowded = spread_labels({95, 96, 97}, 10, 0, 100);  // pushed up from the bottom edge
  for (double v : crowded) EXPECT_LE(v, 100 + 1e-9);
}

TEST(FiguresPaper, KsPeaksFindBothDuplications) {
  std::mt19937 rng(3);
  std::normal_distribution<double> young(0.3, 0.05), old(1.6, 0.15);
  std::vector<double> ks;
  for (int i = 0; i < 200; ++i) ks.push_back(young(rng));
  for (int i = 0; i < 150; ++i) ks.push_back(old(rng));
  ks.push_back(99);  // yn00's "not estimated"
  auto peaks = ks_peaks(ks);
  ASSERT_GE(peaks.size(), 2u);
  bool near_young = false, near_old = false;
  for (auto& p : peaks) near_young |= std::fabs(p.ks - 0.3) < 0.1, near_old |= std::fabs(p.ks - 1.6) < 0.2;
  EXPECT_TRUE(near_young);
  EXPECT_TRUE(near_old);
  std::string svg =
      ks_distribution(Lang::kEn, ks, "Ks of segmental duplicates, a title long enough to need the room it asks for");
  EXPECT_NE(svg.find("peak of the kernel density"), std::string::npos) << "the peaks' legend";
  EXPECT_NE(svg.find("data-claim=\"peaks\""), std::string::npos) << "the peaks drawn";
  EXPECT_NE(svg.find("1 not estimated"), std::string::npos);
  keep("ks.svg", svg);
}

TEST(FiguresPaper, PanelsDrawEveryRowAndFitTheirTitles) {
  auto t = parse_newick("(((G1:0.1,G2:0.2):0.3,G3:0.4):0.2,(G4:0.3,G5:0.1):0.5);");
  ASSERT_TRUE(t);
  auto rooted = midpoint_rooted(*t);
  std::map<std::string, PanelRow> rows;
  for (int i = 1; i <= 5; ++i) {
    PanelRow r;
    r.protein_length = 300 + 40 * i;
    r.gene_length = 2000 + 300 * i;
    r.motifs = {{20, 40, "motif 1"}, {100, 120, "motif 2"}, {200, 215, "motif 3"}};
    r.domains = {{60, 140, "SBP"}};
    r.cds = {{1, 400, ""}, {900, 1300, ""}, {1800, 2000, ""}};
    rows["G" + std::to_string(i)] = r;
  }
  std::map<std::string, std::string> sub = {{"G1", "I"}, {"G2", "I"}, {"G3", "II"}, {"G4", "III"}, {"G5", "III"}};
  std::string title = "Phylogeny, conserved motifs, domain architecture and gene structure of the SPL family";
  std::string panel = combined_panel(Lang::kEn, rooted, sub, rows, title);
  for (int i = 1; i <= 5; ++i) EXPECT_NE(panel.find(">G" + std::to_string(i) + "<"), std::string::npos);
  for (const char* claim : {"data-claim=\"subgroups\"", "data-legend="})
    EXPECT_NE(panel.find(claim), std::string::npos) << claim;
  keep("combined.svg", panel);
  std::vector<Placed> genes;
  for (int i = 0; i < 12; ++i)
    genes.push_back({"AtSPL" + std::to_string(i + 1), i < 9 ? "Chr1" : "Chr2", 1000 + 30 * i, i < 3 ? 0 : -1});
  keep("chromosomes.svg", chromosome_map(Lang::kEn, {{"Chr1", 30000000}, {"Chr2", 20000000}}, genes,
                                         "Chromosomal locations of the SPL genes"));
  Genome a{"Arabidopsis thaliana", {{"Chr1", 30000000}, {"Chr2", 20000000}, {"Chr3", 23000000}}};
  Genome b{"Brassica rapa", {{"A01", 28000000}, {"A02", 27000000}, {"A03", 31000000}, {"A04", 19000000}}};
  std::vector<SyntenyPair> links;
  for (int i = 0; i < 60; ++i)
    links.push_back(
        {"Chr" + std::to_string(1 + i % 3), 300000 * i, "A0" + std::to_string(1 + i % 4), 250000 * i, i % 9 == 0});
  std::string dual = dual_synteny(Lang::kEn, a, b, links, "Collinear gene pairs between Arabidopsis and Brassica rapa");
  EXPECT_NE(dual.find("#D55E00"), std::string::npos);
  keep("dual_synteny.svg", dual);
  keep("rooted_tree.svg", tree(Lang::kEn, rooted, TreeStyle{false, sub, "UFBoot"},
                               "SPL family tree, midpoint-rooted, subfamilies coloured"));
}
