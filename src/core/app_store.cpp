// The application's SQLite store and its id and time helpers.
#include "core/app_store.h"

#include <sqlite3.h>

#include <cstdio>
#include <ctime>
#include <random>

#include "bioagent/json_text.h"
#include "core/sqlite_open.h"

namespace bioagent {

std::string random_id(const std::string& prefix) {
  static std::mutex mu;
  static std::random_device rd;
  std::lock_guard lock(mu);
  static const char* hex = "0123456789abcdef";
  std::string id = prefix;
  for (int i = 0; i < 4; ++i) {
    uint32_t v = rd();
    for (int k = 0; k < 8; ++k) id += hex[(v >> (4 * k)) & 15];
  }
  return id;
}

std::string now_iso() {
  std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", std::localtime(&t));
  return buf;
}

AppStore::~AppStore() {
  if (db_) sqlite3_close(db_);
}

Result<std::unique_ptr<AppStore>> AppStore::open(const std::filesystem::path& file, const std::string& schema,
                                                 const std::string& what) {
  auto s = std::unique_ptr<AppStore>(new AppStore());
  s->what_ = what;
  const std::string sql = "PRAGMA journal_mode=WAL;" + schema;
  auto db = open_sqlite(file.string(), sql.c_str(), 10000);
  if (!db) return Status(ErrorCode::kInternal, what + ": " + db.status().message());
  s->db_ = *db;
  return s;
}

Result<Json> AppStore::query(const std::string& sql, const std::vector<Json>& binds) {
  std::lock_guard lock(mu_);
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &st, nullptr) != SQLITE_OK)
    return Status(ErrorCode::kInternal, what_ + ": " + sqlite3_errmsg(db_));
  for (size_t i = 0; i < binds.size(); ++i) {
    const Json& b = binds[i];
    int k = int(i + 1);
    if (b.is_null())
      sqlite3_bind_null(st, k);
    else if (b.is_number_integer())
      sqlite3_bind_int64(st, k, b.get<int64_t>());
    else if (b.is_number())
      sqlite3_bind_double(st, k, b.get<double>());
    else {
      std::string v = b.is_string() ? b.get<std::string>() : json_text(b);
      sqlite3_bind_text(st, k, v.c_str(), int(v.size()), SQLITE_TRANSIENT);
    }
  }
  Json rows = Json::array();
  int rc;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    Json row = Json::object();
    for (int c = 0; c < sqlite3_column_count(st); ++c) {
      const char* name = sqlite3_column_name(st, c);
      switch (sqlite3_column_type(st, c)) {
        case SQLITE_INTEGER:
          row[name] = sqlite3_column_int64(st, c);
          break;
        case SQLITE_FLOAT:
          row[name] = sqlite3_column_double(st, c);
          break;
        case SQLITE_NULL:
          row[name] = nullptr;
          break;
        default:
          row[name] = std::string(reinterpret_cast<const char*>(sqlite3_column_text(st, c)));
      }
    }
    rows.push_back(std::move(row));
  }
  sqlite3_finalize(st);
  if (rc != SQLITE_DONE) return Status(ErrorCode::kInternal, what_ + ": " + sqlite3_errmsg(db_));
  return rows;
}

Status AppStore::exec(const std::string& sql, const std::vector<Json>& binds) {
  auto r = query(sql, binds);
  return r ? Status::ok() : r.status();
}

void AppStore::record(const std::string& sql, const std::vector<Json>& binds) {
  if (Status s = exec(sql, binds); !s.is_ok())
    std::fprintf(stderr, "bioagent: could not record in the app store (%s): %s\n", sql.substr(0, 40).c_str(),
                 s.message().c_str());
}

}  // namespace bioagent
