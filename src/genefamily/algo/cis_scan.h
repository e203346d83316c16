// Promoter scanning: a built-in library of well-known plant cis-regulatory
// elements (IUPAC consensus, category, function, source; PlantCARE and PLACE,
// each consensus carrying more than 8 bits so a 2-kb promoter is not flooded
// by chance matches) matched on both strands, and position weight matrices
// from MEME-format files scored by log-odds with exact p-values (the score
// distribution by dynamic programming) and FIMO-style q-values.
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "bioagent/status.h"

namespace bioagent {

struct CisElement {
  std::string name, consensus, category, function, source;
};
const std::vector<CisElement>& plant_cis_elements();

struct CisHit {
  std::string element, category;
  char strand = '+';
  int64_t offset = 0;  // position of the match's first base in the promoter (0-based, 5'->3')
  std::string match;
  double p_value = -1, q_value = -1;  // PWM hits only (-1: not a PWM hit)
};
// Every match of the library in a promoter (both strands). An element whose
// consensus is another's reverse complement (TGACG-motif / CGTCA-motif) is one
// site: it is reported once, under both names ("TGACG-motif/CGTCA-motif").
std::vector<CisHit> scan_elements(std::string_view promoter);

struct Pwm {
  std::string id, name;
  std::vector<std::array<double, 4>> probs;  // A C G T per position
};
struct MemeFile {
  std::array<double, 4> background{0.25, 0.25, 0.25, 0.25};
  std::vector<Pwm> motifs;
};
Result<MemeFile> parse_meme(std::string_view text, const std::string& name = "input");

// Matches of `m` whose p-value (exact, from the score distribution) is at most
// `p_threshold` and whose q-value is at most `q_threshold`. q-values follow
// FIMO: Benjamini-Hochberg over every scanned position and strand of `seq`.
// A position matching on both strands is one hit (the better strand).
std::vector<CisHit> scan_pwm(const Pwm& m, const std::array<double, 4>& background, std::string_view seq,
                             double p_threshold, double q_threshold = 1.0);

// Benjamini-Hochberg q-values of `p` (any order) among `tests` tests in all
// (tests >= p.size(); the untested rest count as p-values above these).
std::vector<double> benjamini_hochberg(const std::vector<double>& p, size_t tests);

}  // namespace bioagent
