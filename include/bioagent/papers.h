// The paper library: PDFs ingested into a DuckDB file with the NeuSym-RAG
// reference schema (metadata, pages, images, chunks, tables, sections,
// equations, reference; ids, ref_paper_id, ref_page_id, bounding_box,
// ordinal), and read-only SQL over it for the RetrieveFromDatabase action.
// A paper's id is derived from its content hash, so re-adding a file is a
// no-op; a paper's rows are written in one transaction whose commit comes
// after its search-collection entries (collections.h), so a killed ingestion
// leaves no half paper and `papers add` again completes it. One PaperLibrary
// per process writes; readers open read-only.
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "bioagent/collections.h"
#include "bioagent/status.h"

namespace bioagent {

class DuckDb;
struct PreparedPaper;

struct IngestReport {
  std::string paper_id, title, pdf_path;
  int num_pages = 0;
  size_t chunks = 0, images = 0, tables = 0, sections = 0, references = 0, equations = 0;
  size_t indexed_entries = 0;  // cells written to the search collections
  bool already_present = false;
  std::vector<std::string> warnings;  // e.g. no text layer
  Json to_json() const;
};

class PaperLibrary {
 public:
  // `dense`: the embedders of the dense collections (default: the hash one).
  static Result<std::unique_ptr<PaperLibrary>> open(const std::string& db_path,
                                                    std::vector<std::shared_ptr<Embedder>> dense = {
                                                        make_hash_embedder()});
  ~PaperLibrary();

  Result<IngestReport> add(const std::filesystem::path& pdf);
  // Extracts on `workers` threads (0: one per core), writes on this one;
  // done(index into files, result) is called as each paper is written.
  // Returns the number that failed.
  size_t add_many(const std::vector<std::filesystem::path>& files, unsigned workers,
                  const std::function<void(size_t, const Result<IngestReport>&)>& done);
  Result<Json> list();
  Result<Json> info(const std::string& paper_id);
  Status remove(const std::string& paper_id);
  // Records where a paper was downloaded from (metadata.download_url).
  Status set_download_url(const std::string& paper_id, const std::string& url);
  Result<std::set<std::string>> visible_papers();
  Collections& collections() { return *collections_; }

 private:
  PaperLibrary() = default;
  Result<IngestReport> commit(PreparedPaper& p);
  // Several papers in one transaction and one index write; on a failure, one by one.
  std::vector<Result<IngestReport>> commit_batch(const std::vector<PreparedPaper*>& papers);
  std::unique_ptr<DuckDb> db_;
  std::unique_ptr<Collections> collections_;
};

struct SqlLimits {
  size_t max_rows = 200;
  size_t max_chars = 20000;
  int timeout_ms = 30000;
};

// RetrieveFromDatabase: one read-only statement (SELECT, WITH, DESCRIBE, SHOW)
// on a read-only connection with external access disabled. Writes, ATTACH,
// COPY, INSTALL/LOAD, PRAGMA, SET and file-reading functions are refused with
// a reason. Returns {columns, rows, row_count, truncated, note?}.
Result<Json> retrieve_from_database(const std::string& db_path, const std::string& sql, const SqlLimits& limits = {});

// ViewImage: page `page_number` (from 1) of a paper, or the clip
// [x_min, y_min, delta_x, delta_y] of it, as PNG at `dpi`; returned as
// {paper_id, page_number, bounding_box, mime_type, width, height, size_bytes,
// image_base64}. A page out of range or a box outside the page is an error.
Result<Json> view_image(const std::string& db_path, const std::string& paper_id, int page_number,
                        const std::vector<double>& bounding_box, double dpi = 144);

// An SVG document rendered to PNG: `scale` pixels per SVG unit, the longer side
// at most `max_side` pixels (scaled down to fit). A text that is not SVG is a parse error.
struct SvgPng {
  std::string png;
  int width = 0, height = 0;
};
Result<SvgPng> svg_to_png(const std::string& svg_text, double scale = 2, int max_side = 4096);

// Tables, columns (with types and descriptions) and which columns are encodable.
Json paper_database_schema();

// Sets the text of each search hit from the paper database (the indexes keep
// none): one query per table and column among the hits. A hit whose row is
// gone keeps empty text; a table or column outside the schema is an error.
Status fill_entry_texts(DuckDb& db, std::vector<SearchHit>& hits);

// Registers the paper library's tool types (SQL, schema, page images, vector and classic
// retrieval, the answer action, the collections' list) with `registry`.
class ToolRegistry;
void register_paper_tool_types(ToolRegistry& registry);

}  // namespace bioagent
