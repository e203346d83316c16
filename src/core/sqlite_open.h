// Opening an SQLite store the way every store here does, and one checked
// statement type for writing to it.
//
// open_sqlite: create the parent folder, open read-write (serialised
// connection), set a busy timeout, run the schema (PRAGMAs and CREATE ... IF
// NOT EXISTS). On failure the handle is closed and the message says which step
// failed.
//
// SqliteStatement: a prepared statement that finalises itself. Every write
// goes through step_done(), whose Status carries SQLite's own message, so no
// write can fail unseen. A statement is used by one thread at a time (the
// stores hold their own mutex around it).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "bioagent/status.h"

struct sqlite3;
struct sqlite3_stmt;

namespace bioagent {

Result<sqlite3*> open_sqlite(const std::string& path, const char* schema, int busy_timeout_ms);

// Runs one or more statements without results (BEGIN, COMMIT, DDL); the Status
// names `what` and SQLite's message.
[[nodiscard]] Status sqlite_exec(sqlite3* db, const char* sql, std::string_view what);

class SqliteStatement {
 public:
  // Prepares `sql`; `what` names the store in error messages.
  static Result<SqliteStatement> prepare(sqlite3* db, const char* sql, std::string_view what);
  SqliteStatement(SqliteStatement&& o) noexcept;
  SqliteStatement& operator=(SqliteStatement&& o) noexcept;
  SqliteStatement(const SqliteStatement&) = delete;
  SqliteStatement& operator=(const SqliteStatement&) = delete;
  ~SqliteStatement();

  // Parameters are 1-based, as in SQLite. Text is copied.
  SqliteStatement& bind(int i, std::string_view text);
  SqliteStatement& bind(int i, int64_t v);
  SqliteStatement& bind(int i, double v);
  SqliteStatement& bind_blob(int i, std::string_view bytes);
  SqliteStatement& bind_null(int i);

  // A statement that returns no row: ok when SQLite says DONE, else the error.
  [[nodiscard]] Status step_done();
  // A query: true with a row, false at the end, or the error.
  [[nodiscard]] Result<bool> step_row();
  // Clears the bindings' use for the next execution (bindings are kept).
  void reset();

  std::string column_text(int c) const;
  int64_t column_int64(int c) const;
  double column_double(int c) const;
  sqlite3_stmt* raw() const { return st_; }

 private:
  SqliteStatement(sqlite3* db, sqlite3_stmt* st, std::string what) : db_(db), st_(st), what_(std::move(what)) {}
  Status error(const char* doing) const;
  sqlite3* db_ = nullptr;
  sqlite3_stmt* st_ = nullptr;
  std::string what_;
};

}  // namespace bioagent
