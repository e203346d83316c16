// IQ-TREE 2 read while it runs: the phase its log (`<prefix>.log`) shows, for
// progress events (its expected time is iqtree_expected_seconds in
// bioagent/genefamily.h). Pure functions; thread-safe.
#pragma once

#include <string>
#include <string_view>

namespace bioagent {

// The phase IQ-TREE's log text shows, in IQ-TREE's own terms, language-neutral:
// "initial tree", "ModelFinder 12/44", "UFBoot 30/≥100 ~1:13" (tree-search
// iteration with IQ-TREE's own estimate of the time left; 100 is the minimum,
// IQ-TREE goes on until the bootstrap converges, so 120/≥100 is no overrun),
// "final optimisation",
// "UFBoot consensus"; "" before IQ-TREE has written anything it can tell.
std::string iqtree_phase(std::string_view log);

// The threads IQ-TREE runs with ("Kernel: AVX+FMA - 2 threads"), 1 when the log does not say.
int iqtree_threads(std::string_view log);

}  // namespace bioagent
