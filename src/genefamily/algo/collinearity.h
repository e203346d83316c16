// Collinear blocks on gene order, in the way MCScanX describes its method
// (Wang et al. 2012; our implementation): genes ranked along each chromosome,
// homologous pairs as anchors, a gene's hits to a run of tandem genes
// collapsed to the run's first, dynamic-programming chaining per chromosome
// pair in both orientations (match score 50, gap penalty -1 per skipped gene,
// at most 25 genes between anchors, at least 5 anchors' worth of score): one
// chaining pass gives every chain end, taken best first while none of them
// runs into an anchor a better chain took (else the pass is made again
// without the taken anchors); a chain on one chromosome whose sides overlap
// refused, each block's E-value as Wang et al. (2006) and a block kept below
// the E-value cut; and the duplicate classes of MCScanX's classifier
// (singleton, dispersed, proximal, tandem, segmental/WGD) with collinear genes
// counted from the blocks kept.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "bioagent/status.h"

namespace bioagent {

struct GenePos {
  std::string id, chr;
  int64_t start = 0, end = 0;
};

struct HomologHit {
  std::string a, b;
  double evalue = 1;
};

// MCScanX's parameters with its defaults (-k, -g, -s, -m, -w, -e, -n).
struct CollinearityParams {
  int match_score = 50, gap_penalty = -1, match_size = 5, max_gaps = 25, overlap_window = 5;
  double evalue = 1e-5;           // a block's E-value must be below it
  int proximal_distance = 10;     // genes: proximal duplicates lie fewer genes apart than this but are not adjacent
  double max_hit_evalue = 1e300;  // hits above it are left out (MCScanX reads every hit it is given)
};

struct Anchor {
  std::string a, b;
  double evalue = 0;
};

struct Block {
  std::string chr_a, chr_b;
  bool plus = true;
  double score = 0, evalue = 1;
  std::vector<Anchor> anchors;
};

struct CollinearityResult {
  std::vector<Block> blocks;
  std::map<std::string, std::string> duplicate_class;  // gene -> singleton|dispersed|proximal|tandem|segmental
  size_t genes = 0, collinear_genes = 0;
};

// Reads MCScanX inputs: "chr gene start end" lines and BLAST -m 8 tables.
Result<std::vector<GenePos>> parse_mcscanx_gff(std::string_view text);
Result<std::vector<HomologHit>> parse_blast_m8(std::string_view text);

CollinearityResult find_collinearity(const std::vector<GenePos>& genes, const std::vector<HomologHit>& hits,
                                     const CollinearityParams& p = {});

// The .collinearity layout MCScanX writes (and its plotters read).
std::string collinearity_text(const CollinearityResult& r, const CollinearityParams& p);

}  // namespace bioagent
