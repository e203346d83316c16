// A small RAII layer over DuckDB's C API: open (read-write, or read-only with
// external access disabled), execute, parameterised statements, and queries
// returned as JSON with row and character caps and a time limit.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "bioagent/status.h"

namespace bioagent {

using SqlParam = std::variant<std::nullptr_t, int64_t, double, std::string>;

struct QueryLimits {
  size_t max_rows = 1000;
  size_t max_chars = 200000;  // of the rendered result
  std::chrono::milliseconds timeout{30000};
};

struct QueryResult {
  std::vector<std::string> columns;
  Json rows = Json::array();  // arrays of values
  size_t total_rows = 0;
  bool truncated = false;
};

class DuckDb {
 public:
  // read_only: the database file is opened read-only, external access (files,
  // URLs, extensions) is disabled and the configuration is locked.
  static Result<std::unique_ptr<DuckDb>> open(const std::string& path, bool read_only);
  ~DuckDb();
  DuckDb(const DuckDb&) = delete;
  DuckDb& operator=(const DuckDb&) = delete;

  Status exec(const std::string& sql);
  Status run(const std::string& sql, const std::vector<SqlParam>& params);
  // An `INSERT ... VALUES (tuple)` statement run for many parameter rows (through
  // DuckDB's appender; as multi-row inserts of up to `rows_per_statement` tuples
  // when a parameter position mixes value types).
  Status insert_batch(const std::string& sql, const std::vector<const std::vector<SqlParam>*>& rows,
                      size_t rows_per_statement = 256);
  Result<QueryResult> query(const std::string& sql, const QueryLimits& limits = {},
                            const std::vector<SqlParam>& params = {});

 private:
  DuckDb() = default;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace bioagent
