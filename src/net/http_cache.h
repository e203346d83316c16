// Persistent HTTP response cache in SQLite (WAL). Keyed by method + URL +
// body; entries expire after their TTL. Only successful answers are stored.
#pragma once

#include <chrono>
#include <mutex>
#include <optional>
#include <string>

#include "bioagent/http.h"

struct sqlite3;

namespace bioagent {

class HttpCache {
 public:
  static Result<std::unique_ptr<HttpCache>> open(const std::string& path);
  ~HttpCache();

  // A fresh entry, or nothing. `allow_stale` serves expired entries (offline mode).
  std::optional<HttpResponse> get(const std::string& key, bool allow_stale);
  void put(const std::string& key, const HttpResponse& response, std::chrono::seconds ttl);

  static std::string key(const HttpRequest& r) { return r.method + " " + r.url + "\n" + r.body; }

 private:
  HttpCache() = default;
  sqlite3* db_ = nullptr;
  std::mutex mu_;
};

}  // namespace bioagent
