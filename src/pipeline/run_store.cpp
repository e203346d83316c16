// The run's SQLite record: every stage attempt and step (argv, tool versions,
// times, exit code, resource use, log path, outcome), and a cache of data-file
// digests keyed by path, size and modification time.
#include "pipeline/run_store.h"

#include "core/sqlite_open.h"

#include <sqlite3.h>

#include <nlohmann/json.hpp>
#include "bioagent/json_text.h"

namespace bioagent {

RunStore::~RunStore() {
  if (db_) sqlite3_close(db_);
}

Result<std::unique_ptr<RunStore>> RunStore::open(const fs::path& run_dir) {
  auto s = std::unique_ptr<RunStore>(new RunStore());
  auto db = open_sqlite(
      (run_dir / "run.sqlite").string(),
      "PRAGMA journal_mode=WAL;"
      "PRAGMA synchronous=NORMAL;"  // WAL keeps it consistent; a record lost to a power cut is re-made
      "CREATE TABLE IF NOT EXISTS attempts (id INTEGER PRIMARY KEY, at TEXT DEFAULT CURRENT_TIMESTAMP, stage TEXT,"
      " key TEXT, step INTEGER, argv TEXT, versions TEXT, runner TEXT, job_id TEXT, seconds REAL, user_seconds REAL,"
      " system_seconds REAL, max_rss_kb INTEGER, exit_code INTEGER, state TEXT, message TEXT, log TEXT);"
      "CREATE TABLE IF NOT EXISTS digests (path TEXT PRIMARY KEY, size INTEGER, mtime INTEGER, sha256 TEXT);",
      10000);
  if (!db) return Status(ErrorCode::kInternal, "the run record: " + db.status().message());
  s->db_ = *db;
  return s;
}

Status RunStore::record(const Json& a) {
  std::lock_guard lock(mu_);
  auto st = SqliteStatement::prepare(db_,
                                     "INSERT INTO attempts (stage, key, step, argv, versions, runner, job_id, seconds,"
                                     " user_seconds, system_seconds, max_rss_kb, exit_code, state, message, log) VALUES"
                                     " (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                                     "the run record");
  if (!st) return st.status();
  auto text = [&](int i, const char* k) {
    st->bind(i, a.contains(k) ? (a[k].is_string() ? a[k].get<std::string>() : json_text(a[k])) : std::string());
  };
  text(1, "stage");
  text(2, "key");
  st->bind(3, int64_t(a.value("step", 0)));
  text(4, "argv");
  text(5, "versions");
  text(6, "runner");
  text(7, "job_id");
  st->bind(8, a.value("seconds", 0.0));
  st->bind(9, a.value("user_seconds", 0.0));
  st->bind(10, a.value("system_seconds", 0.0));
  st->bind(11, a.value("max_rss_kb", int64_t(0)));
  st->bind(12, int64_t(a.value("exit_code", 0)));
  text(13, "state");
  text(14, "message");
  text(15, "log");
  return st->step_done();
}

std::string RunStore::cached_digest(const std::string& path, int64_t size, int64_t mtime) {
  std::lock_guard lock(mu_);
  auto st = SqliteStatement::prepare(db_, "SELECT sha256 FROM digests WHERE path = ? AND size = ? AND mtime = ?",
                                     "the run record");
  if (!st) return {};
  st->bind(1, path).bind(2, size).bind(3, mtime);
  auto row = st->step_row();
  return row && *row ? st->column_text(0) : std::string();  // a failed read is a cache miss: the file is re-hashed
}

Status RunStore::put_digest(const std::string& path, int64_t size, int64_t mtime, const std::string& sha) {
  std::lock_guard lock(mu_);
  auto st = SqliteStatement::prepare(db_, "INSERT OR REPLACE INTO digests VALUES (?, ?, ?, ?)", "the run record");
  if (!st) return st.status();
  st->bind(1, path).bind(2, size).bind(3, mtime).bind(4, sha);
  return st->step_done();
}

Json RunStore::history() {
  std::lock_guard lock(mu_);
  Json out = Json::array();
  sqlite3_stmt* st = nullptr;
  sqlite3_prepare_v2(db_,
                     "SELECT at, stage, key, step, argv, versions, runner, job_id, seconds, user_seconds,"
                     " system_seconds, max_rss_kb, exit_code, state, message, log FROM attempts ORDER BY id DESC",
                     -1, &st, nullptr);
  const char* names[] = {"at",        "stage",  "key",     "step",         "argv",           "versions",
                         "runner",    "job_id", "seconds", "user_seconds", "system_seconds", "max_rss_kb",
                         "exit_code", "state",  "message", "log"};
  while (sqlite3_step(st) == SQLITE_ROW) {
    Json row = Json::object();
    for (int i = 0; i < 16; ++i) {
      switch (sqlite3_column_type(st, i)) {
        case SQLITE_INTEGER:
          row[names[i]] = sqlite3_column_int64(st, i);
          break;
        case SQLITE_FLOAT:
          row[names[i]] = sqlite3_column_double(st, i);
          break;
        case SQLITE_NULL:
          row[names[i]] = nullptr;
          break;
        default: {
          std::string v = reinterpret_cast<const char*>(sqlite3_column_text(st, i));
          Json parsed = (names[i] == std::string("argv") || names[i] == std::string("versions"))
                            ? Json::parse(v, nullptr, false)
                            : Json(v);
          row[names[i]] = parsed.is_discarded() ? Json(v) : parsed;
        }
      }
    }
    out.push_back(row);
  }
  sqlite3_finalize(st);
  return out;
}

Result<Json> pipeline_history(const fs::path& run_dir) {
  std::error_code ec;
  if (!fs::exists(run_dir / "run.sqlite", ec)) return not_found("no run record in " + run_dir.string());
  auto s = RunStore::open(run_dir);
  if (!s) return s.status();
  return (*s)->history();
}

}  // namespace bioagent
