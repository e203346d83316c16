#include "net/http_cache.h"

#include "core/sqlite_open.h"

#include <sqlite3.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "bioagent/json_text.h"

namespace bioagent {
namespace {

int64_t now_seconds() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace

Result<std::unique_ptr<HttpCache>> HttpCache::open(const std::string& path) {
  auto c = std::unique_ptr<HttpCache>(new HttpCache());
  auto db = open_sqlite(path,
                        "PRAGMA journal_mode=WAL;"
                        "CREATE TABLE IF NOT EXISTS http_cache (key TEXT PRIMARY KEY, url TEXT, status INTEGER,"
                        " headers TEXT, body BLOB, stored_at INTEGER, expires_at INTEGER);",
                        5000);
  if (!db) return Status(ErrorCode::kUnavailable, "the HTTP cache: " + db.status().message());
  c->db_ = *db;
  return c;
}

HttpCache::~HttpCache() {
  if (db_) sqlite3_close(db_);
}

std::optional<HttpResponse> HttpCache::get(const std::string& key, bool allow_stale) {
  std::lock_guard<std::mutex> lock(mu_);
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(db_, "SELECT url, status, headers, body, expires_at FROM http_cache WHERE key = ?", -1, &st,
                         nullptr) != SQLITE_OK)
    return std::nullopt;
  sqlite3_bind_text(st, 1, key.data(), static_cast<int>(key.size()), SQLITE_TRANSIENT);
  std::optional<HttpResponse> out;
  if (sqlite3_step(st) == SQLITE_ROW && (allow_stale || sqlite3_column_int64(st, 4) > now_seconds())) {
    HttpResponse r;
    r.url = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
    r.status = sqlite3_column_int(st, 1);
    Json h = Json::parse(reinterpret_cast<const char*>(sqlite3_column_text(st, 2)), nullptr, false);
    if (h.is_object()) {
      for (auto& [k, v] : h.items()) {
        if (v.is_string()) r.headers[k] = v.get<std::string>();
      }
    }
    const void* body = sqlite3_column_blob(st, 3);
    r.body.assign(static_cast<const char*>(body), static_cast<size_t>(sqlite3_column_bytes(st, 3)));
    r.from_cache = true;
    out = std::move(r);
  }
  sqlite3_finalize(st);
  return out;
}

void HttpCache::put(const std::string& key, const HttpResponse& r, std::chrono::seconds ttl) {
  std::lock_guard<std::mutex> lock(mu_);
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(db_,
                         "INSERT OR REPLACE INTO http_cache (key, url, status, headers, body, stored_at, expires_at)"
                         " VALUES (?, ?, ?, ?, ?, ?, ?)",
                         -1, &st, nullptr) != SQLITE_OK)
    return;
  Json h = Json::object();
  for (auto& [k, v] : r.headers) h[k] = v;
  std::string headers = json_text(h);
  int64_t now = now_seconds();
  sqlite3_bind_text(st, 1, key.data(), static_cast<int>(key.size()), SQLITE_TRANSIENT);
  sqlite3_bind_text(st, 2, r.url.data(), static_cast<int>(r.url.size()), SQLITE_TRANSIENT);
  sqlite3_bind_int(st, 3, static_cast<int>(r.status));
  sqlite3_bind_text(st, 4, headers.data(), static_cast<int>(headers.size()), SQLITE_TRANSIENT);
  sqlite3_bind_blob(st, 5, r.body.data(), static_cast<int>(r.body.size()), SQLITE_TRANSIENT);
  sqlite3_bind_int64(st, 6, now);
  sqlite3_bind_int64(st, 7, now + ttl.count());
  sqlite3_step(st);
  sqlite3_finalize(st);
}

}  // namespace bioagent
