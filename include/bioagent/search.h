// Literature search behind one interface (seed 003's SearchTool protocol):
// PubMed, Europe PMC, ClinicalTrials.gov, arXiv and Semantic Scholar; the
// SearchHandler that runs several in parallel with a per-source time limit
// (one failing source never fails the search); the evidence store (SQLite +
// FTS5) that keeps what was found for later offline searches; and seed 000's
// multi_source_literature_search. Sources are thread-safe.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "bioagent/http.h"
#include "bioagent/literature.h"

namespace bioagent {

class SearchSource {
 public:
  virtual ~SearchSource() = default;
  virtual std::string name() const = 0;  // "pubmed", "europepmc", ...
  // Errors carry details {source, error_type: "search_error" | "rate_limit_error"}.
  virtual Result<std::vector<Evidence>> search(const std::string& query, int max_results,
                                               std::chrono::steady_clock::time_point deadline) = 0;
};

struct LiteratureConfig {
  std::map<std::string, std::string> base_urls;  // per source name; defaults are the public APIs
  std::string ncbi_api_key;                      // NCBI: 10 requests/s instead of 3
  std::string semantic_scholar_api_key;
  std::string default_base_url(const std::string& source) const;
};

// The five sources by name; nullptr for an unknown name.
std::unique_ptr<SearchSource> make_source(const std::string& name, HttpClient& http, const LiteratureConfig& config);
const std::vector<std::string>& source_names();

// Persistent evidence (SQLite, FTS5 over title and content), de-duplicated by DOI,
// else PMID, else URL, else normalised title.
class EvidenceStore : public SearchSource {
 public:
  static Result<std::unique_ptr<EvidenceStore>> open(const std::string& path);
  ~EvidenceStore() override;
  std::string name() const override { return "rag"; }
  Result<std::vector<Evidence>> search(const std::string& query, int max_results,
                                       std::chrono::steady_clock::time_point deadline) override;
  // Adds records not yet stored; returns how many were new.
  Result<size_t> add(const std::vector<Evidence>& records, const std::string& query);
  size_t size();

 private:
  EvidenceStore() = default;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

struct SearchResultSet {
  std::string query;
  std::vector<Evidence> evidence;
  std::vector<std::string> sources_searched;
  size_t total_found = 0;
  std::vector<std::string> errors;  // "pubmed: timeout after 30000 ms", ...
  size_t ingested = 0;
  Json to_json() const;
};

class SearchHandler {
 public:
  SearchHandler(std::vector<SearchSource*> sources, std::chrono::milliseconds timeout, EvidenceStore* store = nullptr);
  // Every source at once; each has `timeout`. include_rag also searches the
  // store; auto_ingest adds what the other sources found to it.
  SearchResultSet execute(const std::string& query, int max_results_per_source, bool include_rag = false,
                          bool auto_ingest = false);

 private:
  std::vector<SearchSource*> sources_;
  std::chrono::milliseconds timeout_;
  EvidenceStore* store_;
};

// Registers the literature tools' types (the sources, the search handler, the evidence store,
// the multi-source search, fetching text from URLs) with `registry`.
class ToolRegistry;
void register_literature_tool_types(ToolRegistry& registry);

}  // namespace bioagent
