#include <sqlite3.h>

#include "core/sqlite_open.h"

#include <filesystem>
#include <mutex>
#include <nlohmann/json.hpp>

#include "bioagent/json_text.h"
#include "bioagent/search.h"

namespace bioagent {

struct EvidenceStore::Impl {
  sqlite3* db = nullptr;
  std::mutex mu;
  ~Impl() {
    if (db) sqlite3_close(db);
  }
};

namespace {

// The identity of a record: DOI, else PMID, else URL, else normalised title.
std::string identity(const Evidence& e) {
  if (!normalize_doi(e.citation.doi).empty()) return "doi:" + normalize_doi(e.citation.doi);
  if (!e.citation.pmid.empty()) return "pmid:" + e.citation.pmid;
  if (!e.citation.url.empty()) return "url:" + e.citation.url;
  return "title:" + normalize_title(e.citation.title);
}

// A query as FTS5 terms: words quoted, joined by OR, so no user text is ever
// read as FTS5 syntax.
std::string fts_query(const std::string& q) {
  std::string out, word;
  auto flush = [&] {
    if (word.empty()) return;
    out += (out.empty() ? "" : " OR ") + std::string("\"") + word + "\"";
    word.clear();
  };
  for (unsigned char c : q) {
    if (std::isalnum(c) || c >= 0x80)
      word += static_cast<char>(c);
    else
      flush();
  }
  flush();
  return out;
}

}  // namespace

EvidenceStore::~EvidenceStore() = default;

Result<std::unique_ptr<EvidenceStore>> EvidenceStore::open(const std::string& path) {
  std::error_code ec;
  auto parent = std::filesystem::path(path).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent, ec);
  auto s = std::unique_ptr<EvidenceStore>(new EvidenceStore());
  s->impl_ = std::make_unique<Impl>();
  if (sqlite3_open_v2(path.c_str(), &s->impl_->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX,
                      nullptr) != SQLITE_OK)
    return Status(ErrorCode::kUnavailable, "cannot open the evidence store '" + path + "'");
  sqlite3_busy_timeout(s->impl_->db, 5000);
  char* err = nullptr;
  const char* schema =
      "PRAGMA journal_mode=WAL;"
      "CREATE TABLE IF NOT EXISTS evidence (id INTEGER PRIMARY KEY, identity TEXT UNIQUE, source TEXT, query TEXT,"
      " added_at INTEGER, record TEXT);"
      "CREATE VIRTUAL TABLE IF NOT EXISTS evidence_fts USING fts5(title, content);";  // rowid = evidence.id
  if (sqlite3_exec(s->impl_->db, schema, nullptr, nullptr, &err) != SQLITE_OK) {
    std::string why = err ? err : "?";
    sqlite3_free(err);
    return Status(ErrorCode::kUnavailable, "cannot prepare the evidence store '" + path + "': " + why);
  }
  return s;
}

Result<size_t> EvidenceStore::add(const std::vector<Evidence>& records, const std::string& query) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  sqlite3* db = impl_->db;
  const std::string_view what = "the evidence store";
  BIOAGENT_RETURN_IF_ERROR(sqlite_exec(db, "BEGIN", what));
  // Any failed write rolls the whole batch back, so the table and its full-text index never disagree.
  auto write_all = [&]() -> Result<size_t> {
    auto ins = SqliteStatement::prepare(db,
                                        "INSERT OR IGNORE INTO evidence (identity, source, query, added_at, record) "
                                        "VALUES (?,?,?,strftime('%s','now'),?)",
                                        what);
    if (!ins) return ins.status();
    auto fts = SqliteStatement::prepare(db, "INSERT INTO evidence_fts (rowid, title, content) VALUES (?,?,?)", what);
    if (!fts) return fts.status();
    size_t added = 0;
    for (auto& e : records) {
      ins->reset();
      ins->bind(1, identity(e)).bind(2, e.citation.source).bind(3, query).bind(4, json_text(e.to_json()));
      BIOAGENT_RETURN_IF_ERROR(ins->step_done());
      if (sqlite3_changes(db) == 0) continue;  // already stored
      fts->reset();
      fts->bind(1, int64_t(sqlite3_last_insert_rowid(db))).bind(2, e.citation.title).bind(3, e.content);
      BIOAGENT_RETURN_IF_ERROR(fts->step_done());
      ++added;
    }
    return added;
  };
  auto added = write_all();
  if (!added) {
    (void)sqlite_exec(db, "ROLLBACK", what);  // the write's own error is the one reported
    return Status(ErrorCode::kUnavailable, "evidence store write failed: " + added.status().message());
  }
  BIOAGENT_RETURN_IF_ERROR(sqlite_exec(db, "COMMIT", what));
  return *added;
}

Result<std::vector<Evidence>> EvidenceStore::search(const std::string& query, int max_results,
                                                    std::chrono::steady_clock::time_point deadline) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  // The statement is interrupted at the caller's deadline, or 10 s from now when
  // that has passed already (SQLite checks every 1,000 steps).
  auto now = std::chrono::steady_clock::now();
  if (deadline <= now) deadline = now + std::chrono::seconds(10);
  struct Watch {
    sqlite3* db;
    std::chrono::steady_clock::time_point deadline;
    ~Watch() { sqlite3_progress_handler(db, 0, nullptr, nullptr); }
  } watch{impl_->db, deadline};
  sqlite3_progress_handler(
      impl_->db, 1000,
      [](void* w) { return std::chrono::steady_clock::now() > static_cast<Watch*>(w)->deadline ? 1 : 0; }, &watch);
  std::string match = fts_query(query);
  std::vector<Evidence> out;
  if (match.empty()) return out;
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(
          impl_->db,
          "SELECT e.record, bm25(evidence_fts) FROM evidence_fts JOIN evidence e ON e.id = evidence_fts.rowid"
          " WHERE evidence_fts MATCH ? ORDER BY bm25(evidence_fts) LIMIT ?",
          -1, &st, nullptr) != SQLITE_OK)
    return Status(ErrorCode::kUnavailable, std::string("evidence store search failed: ") + sqlite3_errmsg(impl_->db));
  sqlite3_bind_text(st, 1, match.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_int(st, 2, max_results);
  int rc;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    Json j = Json::parse(reinterpret_cast<const char*>(sqlite3_column_text(st, 0)), nullptr, false);
    if (j.is_discarded()) continue;
    Evidence e = Evidence::from_json(j);
    e.extra["from_rag"] = true;
    e.relevance = 1.0 - 0.5 * static_cast<double>(out.size()) / std::max(1, max_results);  // by BM25 rank
    out.push_back(std::move(e));
  }
  sqlite3_finalize(st);
  if (rc == SQLITE_INTERRUPT) return Status(ErrorCode::kTimeout, "the evidence store search ran past its time limit");
  return out;
}

size_t EvidenceStore::size() {
  std::lock_guard<std::mutex> lock(impl_->mu);
  sqlite3_stmt* st = nullptr;
  sqlite3_prepare_v2(impl_->db, "SELECT count(*) FROM evidence", -1, &st, nullptr);
  size_t n = sqlite3_step(st) == SQLITE_ROW ? static_cast<size_t>(sqlite3_column_int64(st, 0)) : 0;
  sqlite3_finalize(st);
  return n;
}

}  // namespace bioagent
