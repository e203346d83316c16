// Motif discovery in the manner of MEME's ZOOPS model (our implementation):
// each sequence holds zero or one site of a motif of width W; the position
// weight matrix and the prior of a sequence having a site are fitted by
// expectation-maximisation from many starting points (substrings of the
// input), the best by log-likelihood ratio is refined, its sites are masked,
// and the search repeats for the next motif.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "bioagent/seqio.h"

namespace bioagent {

struct MotifSite {
  size_t sequence = 0;  // index into the input
  size_t start = 0;     // 0-based
  double probability = 0;
};

struct Motif {
  std::string consensus;
  size_t width = 0;
  std::vector<std::vector<double>> pwm;  // width x alphabet
  std::vector<MotifSite> sites;          // at most one per sequence
  double llr = 0;                        // log-likelihood ratio of the sites against the background (bits)
  // E-value-like, not MEME's number: exp(score - best score of 3 searches on
  // shuffled copies of the input), where score = log p-value of the site
  // columns (G-tests) + log of the ways to place the sites. Below 1: better
  // than every shuffled control; motifs that are not are not reported.
  double evalue = 0;
};

struct MotifOptions {
  int motifs = 10;
  int min_width = 6, max_width = 50;
  int starts = 24;              // starting substrings tried per width
  int em_iterations = 40;       // for the refined start
  double site_threshold = 0.5;  // posterior for a sequence's best position to count as a site
  unsigned seed = 1;
};

// alphabet: "ACDEFGHIKLMNPQRSTVWY" for proteins or "ACGT" for DNA.
std::vector<Motif> discover_motifs(const std::vector<FastaRecord>& seqs, const std::string& alphabet,
                                   const MotifOptions& options = {});

// MEME-format text (version 4 minimal format) that other tools read.
std::string motifs_to_meme(const std::vector<Motif>& motifs, const std::string& alphabet,
                           const std::vector<double>& background);
std::vector<double> background_frequencies(const std::vector<FastaRecord>& seqs, const std::string& alphabet);

}  // namespace bioagent
