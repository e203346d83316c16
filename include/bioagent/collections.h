// Search collections over the paper library (seed 001's vector store), with the
// names, fields and semantics of NeuSym-RAG's vectorstore_schema.json:
//   text_bm25_en            Xapian, BM25 (English stemming)
//   text_hash_ngram_256     FAISS inner product over our feature-hashed word and
//                           character n-gram vectors (offline default; not a
//                           neural model, and named so)
//   <from the model>        FAISS over any OpenAI-compatible /v1/embeddings
//                           endpoint (all-MiniLM-L6-v2 →
//                           text_sentence_transformers_all_minilm_l6_v2)
// Every entry carries table_name, column_name, primary_key, pdf_id and
// page_number; a filter expression on those restricts the candidates before
// ranking. One Xapian database holds every entry (fields, BM25 terms); its
// document ids are the FAISS ids, so dense hits resolve through it. Hits carry
// no text: the paper database is where it lives (fill_entry_texts, papers.h).
// Crash safety: the paper database commit is the point where a paper becomes
// visible; indexes are written before it, and searches only return entries of
// visible papers, so leftovers of a killed ingestion are never seen and are
// replaced when the paper is added again.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "bioagent/status.h"

namespace bioagent {

struct IndexEntry {
  std::string table_name, column_name, primary_key, pdf_id;
  int page_number = -1;  // -1: not tied to one page
  std::string text;      // indexed; empty in search hits (see above)
};

class Embedder {
 public:
  virtual ~Embedder() = default;
  virtual std::string collection_name() const = 0;
  virtual std::string embed_type() const = 0;
  virtual std::string embed_model() const = 0;
  virtual int dim() const = 0;
  // True when embedding is local computation (no service): such vectors are
  // made on the extraction threads, ahead of the single writer.
  virtual bool local() const { return false; }
  // Unit-length vectors, one per text.
  virtual Result<std::vector<std::vector<float>>> embed(const std::vector<std::string>& texts) = 0;
};

// Feature hashing of lower-cased word unigrams, word bigrams and character
// 3-grams of words into `dim` signed buckets, log-scaled and L2-normalised.
std::shared_ptr<Embedder> make_hash_embedder(int dim = 256);

struct OpenAiEmbedderOptions {
  std::string base_url;                 // e.g. http://localhost:8000 (…/v1/embeddings is appended)
  std::string model;                    // e.g. all-MiniLM-L6-v2
  std::string api_key;                  // sent as a Bearer token when set; never logged
  bool allow_private_addresses = true;  // a local embedding server is the common case
  int batch = 64;
};
Result<std::shared_ptr<Embedder>> make_openai_embedder(const OpenAiEmbedderOptions& options);

// The embedders a configuration asks for: always hash; openai when
// options["embed_url"] and options["embed_model"] are set (key from the
// environment variable named by options["embed_key_env"], default
// BIOAGENT_EMBED_API_KEY).
Result<std::vector<std::shared_ptr<Embedder>>> embedders_from_options(
    const std::map<std::string, std::string>& options);

struct CollectionQuery {
  std::string query, collection_name, table_name, column_name, filter;
  int limit = 5;
};

// The part of indexing that reads no index: each entry's English terms and its
// vectors from the local embedders. Made on any thread (many papers at once),
// then handed to add_papers, which only writes. Opaque.
struct PreparedEntries;

struct PaperEntries {
  std::string pdf_id;
  const std::vector<IndexEntry>* entries = nullptr;
  std::shared_ptr<const PreparedEntries> prepared;  // null: prepared by add_papers
};

struct SearchHit {
  double score = 0;
  IndexEntry entry;
};

class Collections {
 public:
  // `dir` holds the indexes (created when writable). Read-only opens of a
  // library never indexed give empty collections, not an error. `searchable`
  // are the (table, column) pairs a search may name (the owner's schema says
  // which columns are encodable); empty: any pair the index holds.
  static Result<std::unique_ptr<Collections>> open(const std::string& dir, bool writable,
                                                   std::vector<std::shared_ptr<Embedder>> dense,
                                                   std::set<std::pair<std::string, std::string>> searchable = {});
  ~Collections();

  // Replaces whatever the indexes hold for this paper with `entries`.
  Status add_paper(const std::string& pdf_id, const std::vector<IndexEntry>& entries);
  // Several papers with one index commit and one write of each dense file.
  Status add_papers(const std::vector<PaperEntries>& papers);
  // Thread-safe (reads only the embedder list).
  std::shared_ptr<const PreparedEntries> prepare(const std::vector<IndexEntry>& entries) const;
  Status remove_paper(const std::string& pdf_id);
  std::set<std::string> indexed_papers() const;
  // Drops dense entries the entry store no longer has (after a killed run).
  Status repair();

  // `visible` are the papers committed to the paper database.
  Result<std::vector<SearchHit>> search(const CollectionQuery& q, const std::set<std::string>& visible) const;
  // Names, kinds, models, dimensions, entry counts and the filterable fields.
  Json describe() const;
  std::vector<std::string> names() const;
  // Whether every word of `text` (as index_terms reads it) occurs somewhere in the index.
  bool holds_words(const std::string& text) const;
  // "bm25", or the embedder's embed_type ("hash": not semantic; "openai": a
  // model); empty for an unknown name.
  std::string embed_type(const std::string& collection_name) const;

  // Fields a filter may name.
  static const std::set<std::string>& filter_fields();

 private:
  Collections();
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// English words for the names a query uses that papers write differently:
// Chinese and common species names (→ Latin names), Chinese gene-family names,
// and common Chinese scientific and clinical terms. Each expansion once, in
// the order found; empty when the query names none.
std::vector<std::string> name_expansions(const std::string& query);
// name_expansions, then the English glosses (CC-CEDICT) of the Chinese words
// no name covers: what a search of English text needs. The glosses are
// alternatives, several per word, so they suit ranking, not a count of how
// much of a message a source covers (the router uses name_expansions).
// `known`, when given, says whether a gloss's words are in the text searched
// (Collections::holds_words): a word's senses the library writes are chosen
// over the first ones ("融合": "fusion" in a library of gene editors, not
// "a mixture").
std::vector<std::string> query_expansions(const std::string& query,
                                          const std::function<bool(const std::string&)>& known = {});

// BM25 (k1 1.2, b 0.75) of `query` over `docs`, with the statistics of those documents
// alone: a word's IDF is how rare it is among them, the average length theirs. Within one
// paper, the words that name the paper (on most of its pages) then count little and the
// words that tell its pages apart count most. Words as text_bm25_en reads them (English
// stems, each CJK character a word). One score per document, 0 where no query word occurs.
std::vector<double> bm25_among(const std::string& query, const std::vector<std::string>& docs);

// The words of `text` as text_bm25_en indexes them: lower-cased runs of letters and digits, each
// reduced to its English (Snowball) stem, each CJK character a word of its own.
std::vector<std::string> index_terms(const std::string& text);

// The index folder of a paper database: "<db>.indexes".
std::string collections_dir_for(const std::string& papers_db);

}  // namespace bioagent
