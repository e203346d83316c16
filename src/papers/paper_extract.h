// What ingestion shares between its steps: extraction (paper_extract.cpp, no
// database access, so it runs on many papers in parallel) produces the rows of
// one paper; the library writes them in one transaction (paper_library.cpp);
// the schema (paper_schema.cpp) gives the DDL and reads back the encodable text
// the search collections index.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "bioagent/collections.h"
#include "bioagent/digest.h"
#include "bioagent/papers.h"
#include "papers/duckdb_conn.h"
#include "papers/pdf_layout.h"

namespace bioagent {

struct Row {
  std::string sql;
  std::vector<SqlParam> params;
};

struct PreparedPaper {
  IngestReport report;
  std::vector<Row> rows;  // metadata last
  // What the search collections index: every non-empty encodable cell of the
  // rows, made beside them (on the extraction thread) instead of read back
  // from the database; a test checks it equals encodable_entries().
  std::vector<IndexEntry> entries;
  // Their terms and local embeddings, made on the extraction thread too.
  std::shared_ptr<const PreparedEntries> prepared;
};

Result<PreparedPaper> prepare_paper(const std::filesystem::path& pdf);
Result<PreparedPaper> prepare_paper(const PdfFile& pdf);
// The rows and entries of a layout already read (`pdf`: where it came from).
PreparedPaper prepare_paper(const PdfDoc& doc, const std::filesystem::path& pdf);
std::string paper_id_for_sha256(const std::string& sha256);

std::string paper_schema_ddl();
// Every non-empty encodable cell of one paper as stored, with its page (-1 when
// the row is not on one page), ordered by table, column and key.
Result<std::vector<IndexEntry>> encodable_entries(DuckDb& db, const std::string& paper_id);

}  // namespace bioagent
