// Collinear blocks as MCScanX finds them: a gene's hits to neighbouring genes
// keep the run's first hit, and a block's E-value follows Wang et al. (2006).
#include <gtest/gtest.h>

#include <cmath>

#include "genefamily/algo/collinearity.h"

using namespace bioagent;

namespace {
std::vector<GenePos> two_chromosomes(int n) {
  std::vector<GenePos> g;
  for (int i = 0; i < n; ++i) {
    g.push_back({"a" + std::to_string(i), "chrA", 1000 * (i + 1), 1000 * (i + 1) + 500});
    g.push_back({"b" + std::to_string(i), "chrB", 2000 * (i + 1), 2000 * (i + 1) + 500});
  }
  return g;
}
}  // namespace

TEST(CollinearityMcscanx, TandemRunKeepsItsFirstHit) {
  auto genes = two_chromosomes(12);
  std::vector<HomologHit> hits;
  for (int i = 0; i < 10; ++i) hits.push_back({"a" + std::to_string(i), "b" + std::to_string(i), 1e-10});
  hits.push_back({"a5", "b7", 1e-90});  // a better hit two genes away from a5's collinear partner
  auto r = find_collinearity(genes, hits);
  ASSERT_EQ(r.blocks.size(), 1u);
  bool a5_b5 = false, a5_b7 = false;
  for (auto& an : r.blocks[0].anchors) {
    a5_b5 |= an.a == "a5" && an.b == "b5";
    a5_b7 |= an.a == "a5" && an.b == "b7";
  }
  EXPECT_TRUE(a5_b5);
  EXPECT_FALSE(a5_b7);
  EXPECT_EQ(r.blocks[0].anchors.size(), 10u);
}

TEST(CollinearityMcscanx, BlockEvalueFollowsWang2006) {
  auto genes = two_chromosomes(12);
  std::vector<HomologHit> hits;
  for (int i = 0; i < 10; ++i) hits.push_back({"a" + std::to_string(i), "b" + std::to_string(i), 1e-10});
  auto r = find_collinearity(genes, hits);
  ASSERT_EQ(r.blocks.size(), 1u);
  // N = m = 10 pairs in the region, l1 = 1000, l2 = 2000 bases, L1 = 9000, L2 = 18000:
  // E = 2 * 10! * (1000 * 2000 / (9000 * 18000))^9.
  double expected = 2 * 3628800.0 * std::pow(1000.0 * 2000 / (9000.0 * 18000), 9);
  EXPECT_NEAR(r.blocks[0].evalue / expected, 1.0, 1e-6);
}
