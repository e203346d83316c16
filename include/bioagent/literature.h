// Literature records: the Evidence shape of seed 003 (content, citation,
// relevance) and parsers for the responses of PubMed E-utilities, Europe PMC,
// ClinicalTrials.gov API v2, arXiv (Atom) and the Semantic Scholar Graph API,
// plus the de-duplication rules of seed 000's multi_source_literature_search.
// Parsers are pure functions over response bodies; thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "bioagent/status.h"

namespace bioagent {

struct Citation {
  std::string source;  // "pubmed", "europepmc", "clinicaltrials", "arxiv", "semantic_scholar"
  std::string title;
  std::string url;
  std::string date;  // as precise as the source gives it: "2024", "2024-03", "2024-03-01"
  std::vector<std::string> authors;
  std::string doi, pmid, venue;
};

struct Evidence {
  std::string content;  // abstract or summary text
  Citation citation;
  double relevance = 0;         // 0..1, from the rank in the source's answer
  Json extra = Json::object();  // source-specific fields (MeSH terms, phase, ...)

  Json to_json() const;
  static Evidence from_json(const Json& j);
};

// PubMed E-utilities: ESearch gives ids (and the total count), EFetch the articles.
struct EsearchResult {
  std::vector<std::string> ids;
  size_t count = 0;
};
Result<EsearchResult> parse_esearch(std::string_view xml);
Result<std::vector<Evidence>> parse_pubmed_efetch(std::string_view xml);

// Europe PMC REST search (JSON, resultType=core or lite).
Result<std::vector<Evidence>> parse_europepmc(std::string_view json);

// ClinicalTrials.gov API v2 /studies. Only interventional studies whose status
// is COMPLETED, ACTIVE_NOT_RECRUITING, RECRUITING or ENROLLING_BY_INVITATION are kept.
Result<std::vector<Evidence>> parse_ctgov(std::string_view json);

// arXiv API Atom feed (an error feed becomes an error).
Result<std::vector<Evidence>> parse_arxiv(std::string_view xml);

// Semantic Scholar Graph API: a search or match answer ({"data": [...]}), a
// batch (an array) or one paper object.
Result<std::vector<Evidence>> parse_semantic_scholar(std::string_view json);

// De-duplication keys: DOI lower-cased without "https://doi.org/", "doi:"
// prefixes; title lower-cased to letters and digits; first author's surname.
std::string normalize_doi(std::string_view doi);
std::string normalize_title(std::string_view title);
std::string first_author_surname(const std::vector<std::string>& authors);

// Merges records the same paper produced: same normalised DOI, else same
// normalised title and first author's surname. The first record wins; empty
// fields are filled from the later ones.
std::vector<Evidence> deduplicate(std::vector<Evidence> records);

}  // namespace bioagent
