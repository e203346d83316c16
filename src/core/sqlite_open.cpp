#include "core/sqlite_open.h"

#include <sqlite3.h>

#include <filesystem>

namespace bioagent {

Result<sqlite3*> open_sqlite(const std::string& path, const char* schema, int busy_timeout_ms) {
  std::error_code ec;
  auto parent = std::filesystem::path(path).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent, ec);
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX, nullptr) !=
      SQLITE_OK) {
    std::string why = db ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close(db);
    return internal_error("cannot open " + path + ": " + why);
  }
  sqlite3_busy_timeout(db, busy_timeout_ms);
  if (Status s = sqlite_exec(db, schema, path); !s.is_ok()) {
    sqlite3_close(db);
    return internal_error("cannot set up " + s.message());
  }
  return db;
}

Status sqlite_exec(sqlite3* db, const char* sql, std::string_view what) {
  char* err = nullptr;
  if (sqlite3_exec(db, sql, nullptr, nullptr, &err) == SQLITE_OK) return Status::ok();
  std::string why = err ? err : sqlite3_errmsg(db);
  sqlite3_free(err);
  return internal_error(std::string(what) + ": " + why);
}

Result<SqliteStatement> SqliteStatement::prepare(sqlite3* db, const char* sql, std::string_view what) {
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(db, sql, -1, &st, nullptr) != SQLITE_OK) {
    sqlite3_finalize(st);
    return internal_error(std::string(what) + ": cannot prepare a statement: " + sqlite3_errmsg(db));
  }
  return SqliteStatement(db, st, std::string(what));
}

SqliteStatement::SqliteStatement(SqliteStatement&& o) noexcept : db_(o.db_), st_(o.st_), what_(std::move(o.what_)) {
  o.st_ = nullptr;
}

SqliteStatement& SqliteStatement::operator=(SqliteStatement&& o) noexcept {
  if (this != &o) {
    sqlite3_finalize(st_);
    db_ = o.db_;
    st_ = o.st_;
    what_ = std::move(o.what_);
    o.st_ = nullptr;
  }
  return *this;
}

SqliteStatement::~SqliteStatement() { sqlite3_finalize(st_); }

SqliteStatement& SqliteStatement::bind(int i, std::string_view text) {
  sqlite3_bind_text(st_, i, text.data(), int(text.size()), SQLITE_TRANSIENT);
  return *this;
}
SqliteStatement& SqliteStatement::bind(int i, int64_t v) {
  sqlite3_bind_int64(st_, i, v);
  return *this;
}
SqliteStatement& SqliteStatement::bind(int i, double v) {
  sqlite3_bind_double(st_, i, v);
  return *this;
}
SqliteStatement& SqliteStatement::bind_blob(int i, std::string_view bytes) {
  sqlite3_bind_blob(st_, i, bytes.data(), int(bytes.size()), SQLITE_TRANSIENT);
  return *this;
}
SqliteStatement& SqliteStatement::bind_null(int i) {
  sqlite3_bind_null(st_, i);
  return *this;
}

Status SqliteStatement::error(const char* doing) const {
  return internal_error(what_ + ": " + doing + " failed: " + sqlite3_errmsg(db_));
}

Status SqliteStatement::step_done() {
  int rc = sqlite3_step(st_);
  if (rc == SQLITE_DONE) return Status::ok();
  return error(rc == SQLITE_ROW ? "a write that returned a row" : "a write");
}

Result<bool> SqliteStatement::step_row() {
  int rc = sqlite3_step(st_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  return error("a query");
}

void SqliteStatement::reset() { sqlite3_reset(st_); }

std::string SqliteStatement::column_text(int c) const {
  const unsigned char* t = sqlite3_column_text(st_, c);
  return t ? std::string(reinterpret_cast<const char*>(t), size_t(sqlite3_column_bytes(st_, c))) : std::string();
}
int64_t SqliteStatement::column_int64(int c) const { return sqlite3_column_int64(st_, c); }
double SqliteStatement::column_double(int c) const { return sqlite3_column_double(st_, c); }

}  // namespace bioagent
