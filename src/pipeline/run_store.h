// The run's SQLite record (see run_store.cpp). Thread-safe.
#pragma once

#include <mutex>
#include <string>

#include "bioagent/pipeline.h"

struct sqlite3;

namespace bioagent {

class RunStore {
 public:
  static Result<std::unique_ptr<RunStore>> open(const fs::path& run_dir);
  ~RunStore();
  // Writes fail loudly: a run whose record cannot be written stops with this Status.
  [[nodiscard]] Status record(const Json& attempt);
  std::string cached_digest(const std::string& path, int64_t size, int64_t mtime);
  [[nodiscard]] Status put_digest(const std::string& path, int64_t size, int64_t mtime, const std::string& sha);
  Json history();

 private:
  RunStore() = default;
  sqlite3* db_ = nullptr;
  std::mutex mu_;
};

}  // namespace bioagent
