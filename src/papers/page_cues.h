// What the paper database says about where a question's answer is, page by page: the chunks of
// each paper's front matter, the pages that define the term or spell out the acronym asked about,
// and a leading paper's pages ranked among themselves. ClassicRetrieve adds these to its votes.
#pragma once

#include <map>
#include <set>
#include <string>
#include <utility>

namespace bioagent {

class DuckDb;

using PageKey = std::pair<std::string, int>;  // paper id, page number

// The chunk ids of every paper's front matter: the chunks of its first page before the body's first
// heading (see front_matter_chunks). Empty for a library without chunks.
std::set<std::string> front_matter_chunk_ids(DuckDb& db);

// Pages that define the term a "what is X" question asks about (see defines_term), with the weight
// each gains: definition_weight, or acronym_weight where the page spells out the acronym asked about
// ("long form (ACRONYM)" or "ACRONYM (long form)", acronym_long_form): where it is introduced.
std::map<PageKey, double> defining_pages(DuckDb& db, const std::string& query, double definition_weight,
                                         double acronym_weight);

// One paper's pages ranked by BM25 among that paper's chunks alone (bm25_among): a page's best chunk,
// relative to the paper's best, in (0, 1]; pages no query word reaches are left out. Within a paper
// the words that name it ("in the heart enhancer SNV study") are on most pages and count little, so
// the words that set the asked page apart decide. The query gains the acronyms the paper introduces for
// long forms it spells out (defined_acronyms), as the paper writes them thereafter.
std::map<int, double> pages_ranked_within(DuckDb& db, const std::string& paper_id, const std::string& lexical_query);

}  // namespace bioagent
