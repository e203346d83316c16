// IQ-TREE's phase read from its log while it runs, and the expected time of
// the phylogeny stage's IQ-TREE call from the alignment's size.
#include <gtest/gtest.h>

#include <string>
#include <tuple>

#include "bioagent/genefamily.h"
#include "genefamily/algo/iqtree_log.h"

using namespace bioagent;

namespace {

// A log in IQ-TREE 2's layout, cut at successive points of a run.
const std::string kHead =
    "IQ-TREE multicore version 2.0.7 for Linux 64-bit\n"
    "Kernel:  AVX+FMA - 2 threads (2 CPU cores detected)\n\n"
    "Alignment has 12 sequences with 258 columns, 250 distinct patterns\n"
    "Perform fast likelihood tree search using LG+I+G model...\n";
const std::string kModels =
    "ModelFinder will test up to 44 protein models (sample size: 258) ...\n"
    " No. Model         -LnL         df  AIC          AICc         BIC\n"
    "  1  LG+G4         4923.333     22  9890.665     9894.972     9968.830\n"
    "  2  LG+I+G4       4923.341     23  9892.682     9897.400     9974.400\n"
    " 14  LG+F+R2       4899.988     42  9883.977     9900.777     10033.201\n";
const std::string kSearch =
    "Best-fit model: WAG+G4 chosen according to BIC\n"
    "Generating 1000 samples for ultrafast bootstrap (seed: 1)...\n"
    "Iteration 10 / LogL: -4921.997 / Time: 0h:0m:23s\n"
    "Iteration 30 / LogL: -4921.978 / Time: 0h:0m:58s (0h:2m:23s left)\n";

}  // namespace

TEST(IqtreeLog, PhaseFollowsTheRun) {
  EXPECT_EQ(iqtree_phase(""), "");
  EXPECT_EQ(iqtree_phase("IQ-TREE multicore version 2.0.7\n"), "");
  EXPECT_EQ(iqtree_phase(kHead), "initial tree");
  EXPECT_EQ(iqtree_phase(kHead + "ModelFinder will test up to 44 protein models (sample size: 258) ...\n"),
            "ModelFinder 0/44");
  EXPECT_EQ(iqtree_phase(kHead + kModels), "ModelFinder 14/44");
  EXPECT_EQ(iqtree_phase(kHead + kModels + kSearch), "UFBoot 30/≥100 ~2:23");
  EXPECT_EQ(iqtree_phase(kHead + kModels + kSearch +
                         "Iteration 120 / LogL: -15328.861 / Time: 0h:16m:28s (0h:11m:4s left)\n"),
            "UFBoot 120/≥100 ~11:04")
      << "past the minimum of 100 the search goes on until UFBoot converges; no total is claimed";
  EXPECT_EQ(iqtree_phase(kHead + kModels + kSearch + "TREE SEARCH COMPLETED AFTER 102 ITERATIONS\n"),
            "final optimisation");
  EXPECT_EQ(iqtree_phase(kHead + kModels + kSearch + "Computing bootstrap consensus tree...\n"), "UFBoot consensus");
  // The sequence table before ModelFinder (" 1  Scal01g001450  14.80% passed") is no model row.
  EXPECT_EQ(iqtree_phase(kHead + "   1  Scal01g001450   14.80%    passed     92.13%\n"), "initial tree");
  // A line cut while IQ-TREE writes it, and a log without line ends, are read without harm.
  EXPECT_EQ(iqtree_phase(kHead + kModels + "  15  LG+F"), "ModelFinder 15/44");
  EXPECT_EQ(iqtree_phase(std::string(100000, 'x')), "");
}

TEST(IqtreeLog, TimeLeftIsReEstimatedAsTheRunGoes) {
  // Within the expectation: what is left of it, in the "~m:ss" form the run service reads as the stage's time left.
  EXPECT_EQ(iqtree_progress_text("ModelFinder 3/44", 90, 20, 20, 237),
            "ModelFinder 3/44 · ~1:10 left (2 min expected for 20 × 237)");
  // Past it: the time so far and no "~" estimate, never the stale expectation.
  const std::string late = iqtree_progress_text("initial tree", 60, 900, 20, 237);
  EXPECT_EQ(late, "initial tree · 15:00 so far, past the 2 min expected for 20 × 237");
  EXPECT_EQ(late.find('~'), std::string::npos);
  // IQ-TREE's own measured estimate wins; no size, no expectation: the phase alone.
  EXPECT_EQ(iqtree_progress_text("UFBoot 30/≥100 ~2:23", 60, 900, 20, 237), "UFBoot 30/≥100 ~2:23");
  EXPECT_EQ(iqtree_progress_text("initial tree", -1, 5, 0, 0), "initial tree");
  EXPECT_EQ(iqtree_progress_text("", 60, 5, 20, 237), "");
}

TEST(IqtreeLog, ThreadsFromTheKernelLine) {
  EXPECT_EQ(iqtree_threads(kHead), 2);
  EXPECT_EQ(iqtree_threads("no kernel line\n"), 1);
  EXPECT_EQ(iqtree_threads("x\nKernel:  AVX - 1 threads\n"), 1);
}

TEST(IqtreeLog, ExpectedTimeGrowsWithTheAlignmentAndShrinksWithThreads) {
  EXPECT_LT(iqtree_expected_seconds(0, 200, 2), 0);  // unknown size: not estimated
  EXPECT_LT(iqtree_expected_seconds(20, 0, 2), 0);
  const double small = iqtree_expected_seconds(20, 200, 2), large = iqtree_expected_seconds(60, 400, 2);
  EXPECT_GT(small, 0);
  EXPECT_GT(large, 3 * small);
  EXPECT_LT(iqtree_expected_seconds(60, 400, 2), iqtree_expected_seconds(60, 400, 1));
  // Within 1.5x of the measured real families on one thread (CPU s).
  for (auto [seqs, cols, measured] : {std::tuple{94, 147, 442.0}, std::tuple{45, 154, 78.0}}) {
    const double said = iqtree_expected_seconds(seqs, cols, 1);
    EXPECT_GT(said, measured / 1.5) << seqs << " x " << cols;
    EXPECT_LT(said, measured * 1.5) << seqs << " x " << cols;
  }
}
