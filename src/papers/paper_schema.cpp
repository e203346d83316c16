// The paper database schema (table and column names follow NeuSym-RAG's
// reference schema; descriptions are ours), its DDL, and the read-only SQL
// entry point with its statement guard.
#include <algorithm>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "bioagent/papers.h"
#include "core/isolated_call.h"
#include "papers/paper_extract.h"
#include "papers/sql_guard.h"

namespace bioagent {
namespace {

struct Column {
  const char* name;
  const char* type;
  const char* description;
  bool encodable;
};
struct Table {
  const char* name;
  const char* description;
  std::vector<Column> columns;
};

const std::vector<Table>& tables() {
  static const std::vector<Table> kTables = {
      {"metadata",
       "One row per paper: bibliographic data and where the PDF came from.",
       {{"paper_id", "UUID", "Identifier of the paper (derived from the file's SHA-256).", false},
        {"title", "VARCHAR", "Title, from the PDF's metadata or its first page.", true},
        {"abstract", "VARCHAR", "Abstract as printed in the paper.", true},
        {"num_pages", "INTEGER", "Number of pages.", false},
        {"conference_full", "VARCHAR", "Full venue name when known.", false},
        {"conference_abbreviation", "VARCHAR", "Venue abbreviation when known.", false},
        {"pub_year", "INTEGER", "Publication year when found.", false},
        {"volume", "VARCHAR", "Volume when known.", false},
        {"download_url", "VARCHAR", "Where the PDF was downloaded from, if it was.", false},
        {"bibtex", "VARCHAR", "BibTeX entry when known.", true},
        {"authors", "VARCHAR[]", "Author names.", false},
        {"pdf_path", "VARCHAR", "Path of the ingested PDF.", false},
        {"tldr", "VARCHAR", "One-sentence summary (empty unless a language model is configured).", true},
        {"tags", "VARCHAR[]", "Keywords.", false},
        {"doi", "VARCHAR", "DOI found in the paper.", false}}},
      {"pages",
       "One row per page.",
       {{"page_id", "UUID", "Identifier of the page.", false},
        {"page_number", "INTEGER", "Page number, from 1.", false},
        {"page_width", "INTEGER", "Width in points of the rendered page (the PDF's CropBox).", false},
        {"page_height", "INTEGER", "Height in points of the rendered page (the PDF's CropBox).", false},
        {"page_content", "VARCHAR", "All text on the page.", true},
        {"page_summary", "VARCHAR", "Summary (empty unless a language model is configured).", true},
        {"ref_paper_id", "UUID", "The paper (metadata.paper_id).", false}}},
      {"images",
       "Figures and images: caption and position on the page.",
       {{"image_id", "UUID", "Identifier of the image.", false},
        {"image_caption", "VARCHAR", "Caption ('Figure 3: ...'), empty when none was found.", true},
        {"image_summary", "VARCHAR", "Summary (empty unless a language model is configured).", true},
        {"bounding_box", "INTEGER[4]",
         "[x_min, y_min, delta_x, delta_y] in points from the rendered page's top-left corner (the CropBox's; y down), "
         "as ViewImage takes it.",
         false},
        {"ordinal", "INTEGER", "Order of the image in the paper, from 0.", false},
        {"ref_paper_id", "UUID", "The paper.", false},
        {"ref_page_id", "UUID", "The page (pages.page_id).", false}}},
      {"chunks",
       "Paragraph-aware text chunks with overlap, each within one page.",
       {{"chunk_id", "UUID", "Identifier of the chunk.", false},
        {"text_content", "VARCHAR", "Text of the chunk.", true},
        {"ordinal", "INTEGER", "Order in the paper, from 0.", false},
        {"ref_paper_id", "UUID", "The paper.", false},
        {"ref_page_id", "UUID", "The page.", false}}},
      {"tables",
       "Tables found by their captions ('Table 2: ...').",
       {{"table_id", "UUID", "Identifier of the table.", false},
        {"table_caption", "VARCHAR", "Caption.", true},
        {"table_content", "VARCHAR", "Text of the table region.", true},
        {"table_summary", "VARCHAR", "Summary (empty unless a language model is configured).", true},
        {"bounding_box", "INTEGER[4]",
         "[x_min, y_min, delta_x, delta_y] in points from the rendered page's top-left corner (the CropBox's; y down), "
         "as ViewImage takes it.",
         false},
        {"ordinal", "INTEGER", "Order in the paper, from 0.", false},
        {"ref_paper_id", "UUID", "The paper.", false},
        {"ref_page_id", "UUID", "The page.", false}}},
      {"sections",
       "Sections by their headings.",
       {{"section_id", "UUID", "Identifier of the section.", false},
        {"section_title", "VARCHAR", "Heading.", true},
        {"section_content", "VARCHAR", "Text until the next heading.", true},
        {"section_summary", "VARCHAR", "Summary (empty unless a language model is configured).", true},
        {"ordinal", "INTEGER", "Order in the paper, from 0.", false},
        {"page_numbers", "INTEGER[]", "Pages the section spans.", false},
        {"ref_paper_id", "UUID", "The paper.", false}}},
      {"equations",
       "Display equations: short blocks with a relation sign that end in an equation number, as printed text.",
       {{"equation_id", "UUID", "Identifier of the equation.", false},
        {"equation_content", "VARCHAR", "The equation as text.", true},
        {"ordinal", "INTEGER", "Order in the paper.", false},
        {"ref_paper_id", "UUID", "The paper.", false},
        {"ref_page_id", "UUID", "The page.", false}}},
      {"reference",
       "Entries of the reference list.",
       {{"reference_id", "UUID", "Identifier of the entry.", false},
        {"reference_content", "VARCHAR", "The entry's text.", true},
        {"ordinal", "INTEGER", "Order in the list, from 0.", false},
        {"ref_paper_id", "UUID", "The paper.", false},
        {"ref_page_id", "UUID", "The page it is printed on.", false}}}};
  return kTables;
}

}  // namespace

std::string paper_schema_ddl() {
  std::string ddl;
  for (auto& t : tables()) {
    ddl += "CREATE TABLE IF NOT EXISTS " + std::string(t.name) + " (";
    for (size_t i = 0; i < t.columns.size(); ++i) {
      ddl += (i ? ", " : "") + std::string(t.columns[i].name) + " " + t.columns[i].type;
      if (i == 0) ddl += " PRIMARY KEY";
    }
    if (std::string(t.name) == "metadata") ddl += ", sha256 VARCHAR, added_at TIMESTAMP DEFAULT current_timestamp";
    ddl += ");\n";
  }
  return ddl;
}

Result<std::vector<IndexEntry>> encodable_entries(DuckDb& db, const std::string& paper_id) {
  // One UNION ALL over every encodable column: one plan instead of one per column.
  std::string sql;
  std::vector<SqlParam> params;
  for (auto& t : tables()) {
    auto has = [&](const char* name) {
      for (auto& c : t.columns)
        if (std::string(c.name) == name) return true;
      return false;
    };
    std::string table = t.name, pk = t.columns[0].name;
    std::string paper_col = has("ref_paper_id") ? "ref_paper_id" : pk;
    std::string page = has("ref_page_id")    ? "(SELECT p.page_number FROM pages p WHERE p.page_id = x.ref_page_id)"
                       : has("page_number")  ? "x.page_number"
                       : has("page_numbers") ? "x.page_numbers[1]"
                                             : "NULL";
    for (auto& c : t.columns) {
      if (!c.encodable) continue;
      std::string col = c.name;
      sql += std::string(sql.empty() ? "" : " UNION ALL ") + "SELECT '" + table + "', '" + col + "', x." + pk +
             "::VARCHAR, x." + col + "::VARCHAR, COALESCE(" + page + ", -1)::INTEGER FROM " + table + " x WHERE x." +
             paper_col + "::VARCHAR = ? AND length(trim(coalesce(x." + col + ", ''))) > 0";
      params.push_back(paper_id);
    }
  }
  auto r = db.query(sql + " ORDER BY 1, 2, 3", {.max_rows = SIZE_MAX, .max_chars = SIZE_MAX}, params);
  if (!r) return r.status();
  std::vector<IndexEntry> out;
  out.reserve(r->rows.size());
  for (auto& row : r->rows)
    out.push_back({row[0].get<std::string>(), row[1].get<std::string>(), row[2].get<std::string>(), paper_id,
                   row[4].get<int>(), row[3].get<std::string>()});
  return out;
}

Status fill_entry_texts(DuckDb& db, std::vector<SearchHit>& hits) {
  std::map<std::pair<std::string, std::string>, std::vector<IndexEntry*>> groups;
  for (auto& h : hits) groups[{h.entry.table_name, h.entry.column_name}].push_back(&h.entry);
  for (auto& [where, entries] : groups) {
    const Column* column = nullptr;
    const Table* table = nullptr;
    for (auto& t : tables())
      if (t.name == where.first)
        for (auto& c : t.columns)
          if (c.encodable && c.name == where.second) column = &c, table = &t;
    // Names come from our own index, but only schema names ever reach the SQL.
    if (!column)
      return internal_error("the index names " + where.first + "." + where.second + ", which is not encodable");
    std::string pk = table->columns[0].name, marks;
    std::vector<SqlParam> keys;
    for (auto* e : entries) {
      marks += std::string(marks.empty() ? "" : ", ") + "TRY_CAST(? AS " + table->columns[0].type + ")";
      keys.push_back(e->primary_key);
    }
    auto r = db.query("SELECT " + pk + "::VARCHAR, " + column->name + "::VARCHAR FROM " + table->name + " WHERE " + pk +
                          " IN (" + marks + ")",
                      {.max_rows = SIZE_MAX, .max_chars = SIZE_MAX}, keys);
    if (!r) return r.status();
    std::map<std::string, std::string> text;
    for (auto& row : r->rows)
      if (row[1].is_string()) text[row[0].get<std::string>()] = row[1].get<std::string>();
    for (auto* e : entries)
      if (auto it = text.find(e->primary_key); it != text.end()) e->text = it->second;
  }
  return {};
}

Json paper_database_schema() {
  Json out = Json::array();
  for (auto& t : tables()) {
    Json cols = Json::array();
    for (auto& c : t.columns) {
      Json col = {{"column_name", c.name}, {"column_type", c.type}, {"description", c.description}};
      if (c.encodable) col["encodable"] = "text";
      cols.push_back(col);
    }
    out.push_back({{"table_name", t.name}, {"description", t.description}, {"columns", cols}});
  }
  return {{"database", "papers"},
          {"tables", out},
          {"joins",
           "pages.ref_paper_id = metadata.paper_id; images/chunks/tables/equations/reference.ref_page_id = "
           "pages.page_id and .ref_paper_id = metadata.paper_id; sections.ref_paper_id = metadata.paper_id"},
          // Each JOIN with its own ON: DuckDB cannot parse "a JOIN b JOIN c ON x AND y".
          {"join_example",
           "SELECT pages.page_number FROM images JOIN pages ON images.ref_page_id = pages.page_id JOIN metadata ON "
           "pages.ref_paper_id = metadata.paper_id WHERE metadata.paper_id = '12345678' AND images.image_caption LIKE "
           "'%Figure 3%'"}};
}

namespace {

// The server folders a library's values can name: the library's own and each
// folder its PDFs were added from (pdf_path), longest first.
std::vector<std::string> library_folders(DuckDb& db, const std::string& db_path) {
  std::set<std::string> dirs;
  const std::string own = std::filesystem::absolute(db_path).parent_path().string();
  if (own.size() > 1) dirs.insert(own);
  QueryLimits q;
  q.max_rows = 100000;
  q.max_chars = size_t(64) << 20;
  if (auto r = db.query("SELECT DISTINCT pdf_path FROM metadata", q))
    for (auto& row : r->rows)
      if (!row.empty() && row[0].is_string()) {
        const std::string d = std::filesystem::path(row[0].get<std::string>()).parent_path().string();
        if (d.size() > 1) dirs.insert(d);
      }
  std::vector<std::string> out(dirs.begin(), dirs.end());
  std::sort(out.begin(), out.end(), [](auto& a, auto& b) { return a.size() > b.size(); });
  return out;
}

// `text` with "<folder>/" of each folder removed: file names, never server paths.
std::string strip_folders(std::string text, const std::vector<std::string>& folders) {
  for (auto& f : folders)
    for (size_t at = text.find(f + "/"); at != std::string::npos; at = text.find(f + "/", at))
      text.erase(at, f.size() + 1);
  return text;
}

void scrub_folders(Json& v, const std::vector<std::string>& folders) {
  if (v.is_string()) {
    v = strip_folders(v.get<std::string>(), folders);
  } else if (v.is_array() || v.is_object()) {
    for (auto& x : v) scrub_folders(x, folders);
  }
}

std::string without_folders(const std::string& message, DuckDb& db, const std::string& db_path) {
  std::string m = strip_folders(message, library_folders(db, db_path));
  for (size_t at = m.find(db_path); !db_path.empty() && at != std::string::npos; at = m.find(db_path, at))
    m.replace(at, db_path.size(), std::filesystem::path(db_path).filename().string());
  return m;
}

}  // namespace

Result<Json> retrieve_from_database(const std::string& db_path, const std::string& sql, const SqlLimits& limits) {
  std::set<std::string> library_tables;
  for (auto& t : tables()) library_tables.insert(t.name);
  // The statement is checked and run in a child process: DuckDB's memory_limit
  // does not bound every allocation (string vectors), so the address space is
  // limited too, and the child is killed one second after the time limit
  // whatever it is doing. The check parses with DuckDB (an in-memory instance
  // when the library does not exist yet, so that a refusal comes first).
  IsolationLimits iso;
  iso.memory_bytes = size_t(768) << 20;
  iso.deadline = std::chrono::milliseconds(limits.timeout_ms + 1000);
  iso.what = "the query";
  auto result = run_isolated(
      [&]() -> Result<Json> {
        std::error_code ec;
        const bool exists = std::filesystem::exists(db_path, ec);
        auto db = exists ? DuckDb::open(db_path, /*read_only=*/true) : DuckDb::open("", /*read_only=*/false);
        if (!db) return db.status();
        BIOAGENT_RETURN_IF_ERROR(check_library_query(**db, sql, library_tables));
        if (!exists)
          return not_found("the paper library does not exist yet; add papers with `bioagent papers add FILE`");
        QueryLimits q;
        q.max_rows = limits.max_rows;
        q.max_chars = limits.max_chars;
        q.timeout = std::chrono::milliseconds(limits.timeout_ms);
        auto r = (*db)->query(sql, q);
        if (!r) return Status(r.status().code(), without_folders(r.status().message(), **db, db_path));
        Json rows = std::move(r->rows);
        scrub_folders(rows, library_folders(**db, db_path));
        return Json{{"columns", r->columns},
                    {"rows", std::move(rows)},
                    {"row_count", r->total_rows},
                    {"truncated", r->truncated}};
      },
      iso);
  if (!result) {
    const std::string& m = result.status().message();
    if (m.find("Out of Memory") != std::string::npos || m.find("out of memory") != std::string::npos)
      return resource_exhausted(
          "the query needed more memory than its limit and was stopped; narrow it (WHERE, "
          "LIMIT, fewer or shorter values)");
    return result.status();
  }
  Json out = std::move(*result);
  if (out.value("truncated", false))
    out["note"] = "the result was truncated to " + std::to_string(limits.max_rows) + " rows / " +
                  std::to_string(limits.max_chars) + " characters; narrow the query (WHERE, LIMIT) to see the rest";
  else if (out.value("row_count", 0) == 0)
    out["note"] = "the query returned no rows";
  return out;
}

}  // namespace bioagent
