// How close together a question's words stand in a passage: the share of the
// question's content words found within one short window of the passage.
// (Quoted phrases are matched exactly, see quoted_phrases.) Words are compared lower-cased on their first five letters
// (a crude stem: "trials" meets "trial", "randomised" meets "randomized" only by luck), and common function words are
// ignored. Pure; thread-safe.
#pragma once

#include <string>
#include <vector>

namespace bioagent {

// In [0, 1]: 0 when fewer than two of the question's content words occur in
// the passage; otherwise (found - 1) / (asked - 1) scaled by how tightly the
// found words sit together (found / the shortest window holding them all,
// at most 1). The question's words beyond its first 16 are not considered.
double proximity(const std::string& question, const std::string& passage);

// True when `passage` holds a measured number (a percentage, a decimal, or a
// whole number that is not a year, a citation mark "[9]" or part of a name
// such as miR156) within `window` words of one of the question's content words.
bool number_near_question_words(const std::string& question, const std::string& passage, size_t window = 8);

// The phrases a question quotes ("...", “...” or 「...」) of two words or more,
// lower-cased, whitespace runs as one space; at most 8.
std::vector<std::string> quoted_phrases(const std::string& question);
// True when `passage`, lower-cased with whitespace runs as one space, holds `phrase`
// (as quoted_phrases gives it) as whole words.
bool holds_phrase(const std::string& passage, const std::string& phrase);

}  // namespace bioagent
