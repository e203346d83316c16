// The application's SQLite store (WAL): rows in, rows out as JSON objects.
// Each module that keeps records in it (the assistant's sessions and plans,
// the run service's tasks, events and learning) opens its own connection on
// the same file and creates its own tables. One connection behind a mutex;
// thread-safe.
#pragma once

#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bioagent/status.h"

struct sqlite3;

namespace bioagent {

// A random id: prefix + 32 hex digits (128 bits from the OS).
std::string random_id(const std::string& prefix);
// The local time as 2026-12-06T23:46:08.
std::string now_iso();

class AppStore {
 public:
  // Opens (creating) `file` and runs `schema` (CREATE ... IF NOT EXISTS; WAL is set here).
  // `what` names the store in errors ("the assistant's store").
  static Result<std::unique_ptr<AppStore>> open(const std::filesystem::path& file, const std::string& schema,
                                                const std::string& what);
  ~AppStore();
  AppStore(const AppStore&) = delete;
  AppStore& operator=(const AppStore&) = delete;
  // Runs one statement with positional bindings (strings, numbers, null, or JSON dumped); rows as objects.
  Result<Json> query(const std::string& sql, const std::vector<Json>& binds = {});
  Status exec(const std::string& sql, const std::vector<Json>& binds = {});
  // For records whose loss must not stop the work that produced them (task events,
  // stage timings, learning counters): a failure is reported on stderr, not dropped.
  void record(const std::string& sql, const std::vector<Json>& binds = {});

 private:
  AppStore() = default;
  sqlite3* db_ = nullptr;
  std::string what_;
  std::mutex mu_;
};

}  // namespace bioagent
