// Promoter scans as a reviewer expects: one site per position for elements that
// are each other's reverse complement, FIMO-style q-values for PWM hits, and a
// library whose every element cites its source.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "bioagent/seqio.h"
#include "genefamily/algo/cis_scan.h"

using namespace bioagent;

TEST(CisScanSites, ReverseComplementElementsCountOnce) {
  // TGACG on + is CGTCA on -: one site, named after both elements.
  auto hits = scan_elements("AAAAATGACGAAAAA");
  int at_five = 0;
  std::string name;
  for (auto& h : hits)
    if (h.offset == 5 && h.match == "TGACG") ++at_five, name = h.element;
  EXPECT_EQ(at_five, 1);
  EXPECT_EQ(name, "TGACG-motif/CGTCA-motif");
  auto rc = scan_elements(reverse_complement("AAAAATGACGAAAAA"));
  int sites = 0;
  for (auto& h : rc) sites += h.element == "TGACG-motif/CGTCA-motif";
  EXPECT_EQ(sites, 1);
}

TEST(CisScanSites, LibraryIsLargeAndCited) {
  const auto& lib = plant_cis_elements();
  EXPECT_GE(lib.size(), 80u);
  std::set<std::string> names, consensus;
  for (auto& e : lib) {
    EXPECT_TRUE(names.insert(e.name).second) << "duplicate name " << e.name;
    EXPECT_TRUE(consensus.insert(e.consensus).second) << "duplicate consensus " << e.consensus;
    EXPECT_FALSE(e.source.empty()) << e.name;
    EXPECT_FALSE(e.category.empty()) << e.name;
    double bits = 0;  // 2 bits for a base, 1 for a two-base code, ~0.4 for three, 0 for N
    for (char c : e.consensus)
      bits += std::string("ACGT").find(c) != std::string::npos     ? 2.0
              : std::string("RYSWKM").find(c) != std::string::npos ? 1.0
              : c == 'N'                                           ? 0.0
                                                                   : 0.415;
    EXPECT_GT(bits, 8.0) << e.name << " " << e.consensus << " matches by chance every few hundred bases";
  }
}

TEST(CisScanQValues, BenjaminiHochbergMatchesTheDefinition) {
  // p = 0.01, 0.04, 0.03 among 5 tests: sorted 0.01 0.03 0.04 -> 0.05, 0.075, 0.0667 -> monotone 0.05 0.0667 0.0667.
  auto q = benjamini_hochberg({0.01, 0.04, 0.03}, 5);
  ASSERT_EQ(q.size(), 3u);
  EXPECT_NEAR(q[0], 0.05, 1e-12);
  EXPECT_NEAR(q[1], 0.04 * 5 / 3, 1e-12);
  EXPECT_NEAR(q[2], 0.04 * 5 / 3, 1e-12);
  EXPECT_DOUBLE_EQ(benjamini_hochberg({0.9}, 10)[0], 1.0);
}

TEST(CisScanQValues, PwmHitsCarryPAndQAndTheQFilterBites) {
  auto meme = parse_meme(
      "MEME version 4\n\nBackground letter frequencies\nA 0.25 C 0.25 G 0.25 T 0.25\n\nMOTIF M1 test\n"
      "letter-probability matrix: alength= 4 w= 8\n"
      "1 0 0 0\n0 1 0 0\n0 0 1 0\n0 0 0 1\n1 0 0 0\n0 1 0 0\n0 0 1 0\n0 0 0 1\n");
  ASSERT_TRUE(meme.is_ok());
  std::string seq(2000, 'A');
  uint32_t x = 12345;  // a fixed pseudo-random background sequence
  for (auto& c : seq) x = x * 1664525u + 1013904223u, c = "ACGT"[(x >> 16) & 3];
  seq.replace(1000, 8, "ACGTACGT");
  auto loose = scan_pwm(meme->motifs[0], meme->background, seq, 1e-2);
  ASSERT_FALSE(loose.empty());
  bool exact = false;
  for (auto& h : loose) {
    EXPECT_GT(h.p_value, 0);
    EXPECT_LE(h.p_value, 1e-2);
    EXPECT_GE(h.q_value, h.p_value);  // never below p
    if (h.offset == 1000) {
      exact = true;
      EXPECT_NEAR(h.p_value, 1.0 / 65536, 1e-9);
    }
  }
  EXPECT_TRUE(exact);
  // q of the exact site: p 1.5e-5 x ~3990 tests (both strands) / rank 1 = ~0.06.
  auto strict = scan_pwm(meme->motifs[0], meme->background, seq, 1e-2, 0.1);
  EXPECT_LT(strict.size(), loose.size()) << "the q-value cut removes the chance hits";
  bool kept = false;
  for (auto& h : strict) kept |= h.offset == 1000;
  EXPECT_TRUE(kept) << "the exact site survives the q-value cut";
}
