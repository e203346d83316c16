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

// The progress line shown for a running IQ-TREE: its phase, then the time left.
// A phase with IQ-TREE's own estimate ("~m:ss", measured by IQ-TREE from its
// iterations) is kept as it is. Otherwise, while the run is within the time
// expected from the alignment (expected_seconds; < 0 when there is none), the
// time left of that expectation as "~m:ss left"; past it, the elapsed time and
// no estimate ("not estimated" until IQ-TREE gives its own), so an expectation
// that proved wrong is never shown again.
std::string iqtree_progress_text(const std::string& phase, double expected_seconds, double elapsed_seconds,
                                 int sequences, int columns);

}  // namespace bioagent
