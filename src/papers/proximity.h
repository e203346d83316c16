// How close together a question's words stand in a passage: the share of the
// question's content words found within one short window of the passage.
// Words are compared lower-cased on their first five letters (a crude stem:
// "trials" meets "trial", "randomised" meets "randomized" only by luck), and
// common function words are ignored. Pure; thread-safe.
#pragma once

#include <string>

namespace bioagent {

// In [0, 1]: 0 when fewer than two of the question's content words occur in
// the passage; otherwise (found - 1) / (asked - 1) scaled by how tightly the
// found words sit together (found / the shortest window holding them all,
// at most 1). The question's words beyond its first 16 are not considered.
double proximity(const std::string& question, const std::string& passage);

}  // namespace bioagent
