// The Xapian database behind every collection: one document per encodable
// cell (table_name, column_name, primary_key, pdf_id, page_number packed in
// one value, paper and table/column as boolean terms; English-stemmed BM25
// terms, no positions). Its document ids are the ids
// of the dense (FAISS) collections too. It keeps no text: the paper database
// holds every indexed cell, and storing it again cost Xapian a zlib pass per
// entry (~14% of one-core ingestion); entries come back with empty text.
#pragma once

#include <xapian.h>

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "bioagent/collections.h"
#include "bioagent/filter_expr.h"

namespace bioagent {

// See collections.h. One Xapian document per entry (none for an entry with
// no text), and per local embedder one vector per entry with text.
struct PreparedEntries {
  std::vector<Xapian::Document> docs;
  std::vector<char> has_text;
  std::map<std::string, std::vector<std::vector<float>>> vectors;
};

class EntryStore {
 public:
  // The documents for `entries` (fields, terms); any thread.
  static void make_documents(const std::vector<IndexEntry>& entries, PreparedEntries& out);
  // A writable open sets XAPIAN_FLUSH_THRESHOLD to this (documents added
  // between Xapian's in-memory flushes) unless the environment already has it.
  static constexpr const char* kDefaultFlushThreshold = "2000";
  static Result<std::unique_ptr<EntryStore>> open(const std::string& path, bool writable);
  ~EntryStore();

  // Deletes the paper's documents, adds `entries`, commits; returns the new
  // document ids in the order of `entries` (0 for an entry with no text).
  // commit = false: the change waits for commit() (several papers, one durable write).
  Result<std::vector<int64_t>> replace_paper(const std::string& pdf_id, const PreparedEntries& prepared,
                                             bool commit = true);
  Status commit();
  Status remove_paper(const std::string& pdf_id);
  std::set<int64_t> all_ids() const;
  std::set<int64_t> ids_of_paper(const std::string& pdf_id) const;
  std::set<std::string> papers() const;
  size_t size() const;
  // How many documents hold `term` (a term as the analyser writes it: an English stem, a CJK character).
  size_t term_frequency(const std::string& term) const;

  // BM25 top `limit` among documents of table/column whose paper is visible
  // and which pass the filter (the filter runs inside the match, before ranking).
  Result<std::vector<SearchHit>> bm25(const std::string& query, const std::string& table, const std::string& column,
                                      const FilterExpr& filter, const std::set<std::string>& visible,
                                      size_t limit) const;
  // Every document id that the same restriction lets through.
  Result<std::vector<int64_t>> allowed(const std::string& table, const std::string& column, const FilterExpr& filter,
                                       const std::set<std::string>& visible) const;
  Result<IndexEntry> entry(int64_t id) const;
  // Distinct (table, column) pairs present, with counts.
  std::vector<std::pair<std::string, size_t>> table_columns() const;

 private:
  EntryStore();
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace bioagent
