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
  char* err = nullptr;
  if (sqlite3_exec(db, schema, nullptr, nullptr, &err) != SQLITE_OK) {
    std::string why = err ? err : "?";
    sqlite3_free(err);
    sqlite3_close(db);
    return internal_error("cannot set up " + path + ": " + why);
  }
  return db;
}

}  // namespace bioagent
