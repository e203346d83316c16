// Identifiers a question names (gene and primer names, accession and assay ids, GO terms, genomic
// intervals: LGALS1, Hs00355202_m1, GO:0035370, chr5A:35277942-35282999, CiHAT1) and the pages that
// print them as written. A tokenizer splits such words into pieces common elsewhere ("GO", "0035370");
// the whole identifier on a page is the strongest sign that the page (often a table) holds the answer.
#pragma once

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace bioagent {

class DuckDb;

// The question's identifier-like words as written: four characters or more, and letters mixed with digits
// (LGALS1, Pp3c8_19720_int_F), or capitals inside a word (CsMURE, CiHAT1), or five or more capitals
// (JUND is four: a word in capitals is not enough). Trailing punctuation is not part of them. Pure.
std::vector<std::string> question_identifiers(const std::string& question);

// For each page of the visible papers that prints one or more of `ids` exactly: the share of the
// identifiers' weight it holds, each identifier weighted by how rare it is among pages (log(1 + N/df));
// identifiers no page prints are left out of the total. Empty when none is printed or on a read error.
std::map<std::pair<std::string, int>, double> identifier_pages(DuckDb& db, const std::set<std::string>& visible,
                                                               const std::vector<std::string>& ids);

}  // namespace bioagent
