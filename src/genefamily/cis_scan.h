// Promoter scanning: a built-in library of well-known plant cis-regulatory
// elements (IUPAC consensus, category, function, source) matched on both
// strands, and position weight matrices from MEME-format files scored by
// log-odds with exact p-values (the score distribution by dynamic programming).
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
};
// Every match of the library in a promoter (both strands).
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

// Matches of `m` scoring at or above the score whose p-value is `p_threshold`.
std::vector<CisHit> scan_pwm(const Pwm& m, const std::array<double, 4>& background, std::string_view seq,
                             double p_threshold);

}  // namespace bioagent
