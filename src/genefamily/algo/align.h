// Pairwise protein alignment and codon alignment (see align.cpp).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "bioagent/status.h"

namespace bioagent {

struct ProteinAlignment {
  std::string a, b;  // with '-' gaps, equal lengths
  int score = 0;
  double identity = 0;  // identical aligned residues / the longer sequence
};
ProteinAlignment align_proteins(std::string_view a, std::string_view b, int gap_open = 11, int gap_extend = 1);

// The CDS laid onto an aligned protein (gaps become '---'); the CDS must hold
// at least one codon per residue.
Result<std::string> codon_align(std::string_view aligned_protein, std::string_view cds);

}  // namespace bioagent
