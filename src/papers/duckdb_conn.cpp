#include "papers/duckdb_conn.h"

#include <duckdb.h>

#include <atomic>
#include <cctype>
#include <charconv>
#include <condition_variable>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <thread>

namespace bioagent {

struct DuckDb::Impl {
  duckdb_database db = nullptr;
  duckdb_connection con = nullptr;
  ~Impl() {
    if (con) duckdb_disconnect(&con);
    if (db) duckdb_close(&db);
  }
};

Result<std::unique_ptr<DuckDb>> DuckDb::open(const std::string& path, bool read_only) {
  auto d = std::unique_ptr<DuckDb>(new DuckDb());
  d->impl_ = std::make_unique<Impl>();
  duckdb_config config;
  if (duckdb_create_config(&config) != DuckDBSuccess) return internal_error("cannot configure DuckDB");
  if (read_only) {
    duckdb_set_config(config, "access_mode", "READ_ONLY");
    duckdb_set_config(config, "enable_external_access", "false");
    duckdb_set_config(config, "autoload_known_extensions", "false");
    duckdb_set_config(config, "autoinstall_known_extensions", "false");
    // Queries come from users and models: bounded memory, no spilling, one thread.
    duckdb_set_config(config, "memory_limit", "512MB");
    duckdb_set_config(config, "max_temp_directory_size", "0KB");
    duckdb_set_config(config, "temp_directory", "");
    duckdb_set_config(config, "lock_configuration", "true");
  }
  // The read-write connection is the ingestion writer: small appends, while
  // the extraction threads have the cores (a second DuckDB thread only contended).
  duckdb_set_config(config, "threads", "1");
  char* err = nullptr;
  duckdb_state st = duckdb_open_ext(path.empty() ? nullptr : path.c_str(), &d->impl_->db, config, &err);
  duckdb_destroy_config(&config);
  if (st != DuckDBSuccess) {
    std::string why = err ? err : "unknown error";
    if (err) duckdb_free(err);
    Status s(ErrorCode::kUnavailable, "cannot open the paper database '" + path + "': " + why);
    s.with("path", path);
    return s;
  }
  if (duckdb_connect(d->impl_->db, &d->impl_->con) != DuckDBSuccess) return internal_error("cannot connect to DuckDB");
  return d;
}

DuckDb::~DuckDb() = default;

namespace {

// DuckDB's message for a failed statement, without the stack trace it appends to internal errors
// (the server's own paths), and with what to do when the stored text is the cause.
Status sql_error(const std::string& duckdb_message) {
  std::string m = duckdb_message.substr(0, duckdb_message.find("\n\nStack Trace:"));
  if (m.find("invalid UTF-8") != std::string::npos)
    m += " (the library holds text that is not UTF-8, stored by an earlier bioagent: remove those papers and add "
         "them again)";
  return Status(ErrorCode::kInvalidArgument, "SQL error: " + m);
}

}  // namespace

Status DuckDb::exec(const std::string& sql) {
  duckdb_result r;
  duckdb_state st = duckdb_query(impl_->con, sql.c_str(), &r);
  std::string err = st == DuckDBSuccess ? "" : duckdb_result_error(&r);
  duckdb_destroy_result(&r);
  if (st != DuckDBSuccess) return sql_error(err);
  return {};
}

namespace {

// DuckDB stores invalid UTF-8 as given, and lower(), LIKE and ILIKE on it then fail inside DuckDB: every
// text goes in valid (copied only when it is not).
template <typename Put>
duckdb_state with_valid_utf8(const std::string& text, Put&& put) {
  return invalid_utf8_at(text) == std::string_view::npos ? put(text) : put(valid_utf8(text));
}

Status bind_all(duckdb_prepared_statement stmt, const std::vector<SqlParam>& params) {
  for (size_t i = 0; i < params.size(); ++i) {
    idx_t at = i + 1;
    duckdb_state st;
    if (std::holds_alternative<std::nullptr_t>(params[i]))
      st = duckdb_bind_null(stmt, at);
    else if (auto* v = std::get_if<int64_t>(&params[i]))
      st = duckdb_bind_int64(stmt, at, *v);
    else if (auto* d = std::get_if<double>(&params[i]))
      st = duckdb_bind_double(stmt, at, *d);
    else
      st = with_valid_utf8(std::get<std::string>(params[i]), [&](const std::string& text) {
        return duckdb_bind_varchar_length(stmt, at, text.data(), text.size());
      });
    if (st != DuckDBSuccess) return internal_error("cannot bind SQL parameter " + std::to_string(at));
  }
  return {};
}

// Results are read as text (every column cast to VARCHAR: DuckDB's value API
// does not read types such as UUID), then typed back from the column's type.
Json cell_json(duckdb_result* r, idx_t col, idx_t row, duckdb_type type) {
  if (duckdb_value_is_null(r, col, row)) return nullptr;
  char* s = duckdb_value_varchar(r, col, row);
  std::string text = s ? s : "";
  if (s) duckdb_free(s);
  switch (type) {
    case DUCKDB_TYPE_BOOLEAN:
      return text == "true";
    case DUCKDB_TYPE_TINYINT:
    case DUCKDB_TYPE_SMALLINT:
    case DUCKDB_TYPE_INTEGER:
    case DUCKDB_TYPE_BIGINT:
    case DUCKDB_TYPE_UTINYINT:
    case DUCKDB_TYPE_USMALLINT:
    case DUCKDB_TYPE_UINTEGER: {
      int64_t v = 0;
      auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
      return ec == std::errc() ? Json(v) : Json(text);
    }
    case DUCKDB_TYPE_FLOAT:
    case DUCKDB_TYPE_DOUBLE:
    case DUCKDB_TYPE_DECIMAL: {
      double v = 0;
      auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
      return ec == std::errc() ? Json(v) : Json(text);
    }
    default:
      return text;
  }
}

}  // namespace

Status DuckDb::run(const std::string& sql, const std::vector<SqlParam>& params) {
  duckdb_prepared_statement stmt = nullptr;
  if (duckdb_prepare(impl_->con, sql.c_str(), &stmt) != DuckDBSuccess) {
    std::string err = duckdb_prepare_error(stmt) ? duckdb_prepare_error(stmt) : "?";
    duckdb_destroy_prepare(&stmt);
    return sql_error(err);
  }
  Status b = bind_all(stmt, params);
  if (!b.is_ok()) {
    duckdb_destroy_prepare(&stmt);
    return b;
  }
  duckdb_result r;
  duckdb_state st = duckdb_execute_prepared(stmt, &r);
  std::string err = st == DuckDBSuccess ? "" : duckdb_result_error(&r);
  duckdb_destroy_result(&r);
  duckdb_destroy_prepare(&stmt);
  if (st != DuckDBSuccess) return sql_error(err);
  return {};
}

namespace {

// The column type a parameter position takes: that of its first non-null
// value; nothing when the rows disagree.
std::optional<duckdb_type> column_type(const std::vector<const std::vector<SqlParam>*>& rows, size_t k) {
  std::optional<duckdb_type> t;
  for (auto* row : rows) {
    const SqlParam& v = (*row)[k];
    duckdb_type here = std::holds_alternative<int64_t>(v)       ? DUCKDB_TYPE_BIGINT
                       : std::holds_alternative<double>(v)      ? DUCKDB_TYPE_DOUBLE
                       : std::holds_alternative<std::string>(v) ? DUCKDB_TYPE_VARCHAR
                                                                : DUCKDB_TYPE_INVALID;
    if (here == DUCKDB_TYPE_INVALID) continue;
    if (t && *t != here) return std::nullopt;
    t = here;
  }
  return t ? t : DUCKDB_TYPE_VARCHAR;
}

}  // namespace

Status DuckDb::insert_batch(const std::string& sql, const std::vector<const std::vector<SqlParam>*>& rows,
                            size_t rows_per_statement) {
  if (rows.empty()) return Status::ok();
  size_t at = sql.rfind(" VALUES (");
  if (at == std::string::npos || sql.back() != ')')
    return internal_error("insert_batch needs an INSERT ... VALUES (...) statement");
  const std::string head = sql.substr(0, at), tuple = sql.substr(at + 8);
  // The rows go through DuckDB's appender into "INSERT ... SELECT <the tuple's
  // expressions, each ? a column> FROM appended_data": no SQL text per row to
  // parse and bind (multi-row VALUES statements were most of the write time).
  std::string select;
  size_t n = 0;
  for (char c : tuple.substr(1, tuple.size() - 2)) {
    if (c == '?')
      select += "col" + std::to_string(++n);
    else
      select += c;
  }
  std::vector<duckdb_logical_type> types;
  bool uniform = true;
  for (auto* row : rows) uniform = uniform && row->size() == n;
  for (size_t k = 0; uniform && k < n; ++k) {
    auto t = column_type(rows, k);
    if (t)
      types.push_back(duckdb_create_logical_type(*t));
    else
      uniform = false;
  }
  auto drop_types = [&] {
    for (auto& t : types) duckdb_destroy_logical_type(&t);
  };
  if (!uniform || n == 0) {
    drop_types();
    // Mixed value types in one position: multi-row VALUES statements.
    for (size_t i = 0; i < rows.size(); i += rows_per_statement) {
      size_t m = std::min(rows_per_statement, rows.size() - i);
      std::string many = head + " VALUES ";
      std::vector<SqlParam> params;
      for (size_t k = 0; k < m; ++k) {
        many += (k ? ", " : "") + tuple;
        params.insert(params.end(), rows[i + k]->begin(), rows[i + k]->end());
      }
      BIOAGENT_RETURN_IF_ERROR(run(many, params));
    }
    return Status::ok();
  }
  const std::string query = head + " SELECT " + select + " FROM appended_data";
  duckdb_appender app = nullptr;
  duckdb_state st = duckdb_appender_create_query(impl_->con, query.c_str(), n, types.data(), nullptr, nullptr, &app);
  drop_types();
  auto failed = [&](const std::string& what) {
    const char* e = app ? duckdb_appender_error(app) : nullptr;
    std::string why = e ? e : "unknown error";
    duckdb_appender_destroy(&app);
    return Status(ErrorCode::kInvalidArgument, "SQL error (" + what + "): " + why);
  };
  if (st != DuckDBSuccess) return failed("preparing the insert");
  for (auto* row : rows) {
    for (const SqlParam& v : *row) {
      if (auto* i = std::get_if<int64_t>(&v))
        st = duckdb_append_int64(app, *i);
      else if (auto* d = std::get_if<double>(&v))
        st = duckdb_append_double(app, *d);
      else if (auto* given = std::get_if<std::string>(&v))
        st = with_valid_utf8(*given, [&](const std::string& text) {
          return duckdb_append_varchar_length(app, text.data(), text.size());
        });
      else
        st = duckdb_append_null(app);
      if (st != DuckDBSuccess) return failed("appending a value");
    }
    if (duckdb_appender_end_row(app) != DuckDBSuccess) return failed("ending a row");
  }
  if (duckdb_appender_flush(app) != DuckDBSuccess) return failed("inserting the rows");
  duckdb_appender_destroy(&app);
  return Status::ok();
}

namespace {

// Interrupts the connection's query when the time limit passes before stop().
class QueryWatchdog {
 public:
  QueryWatchdog(duckdb_connection con, std::chrono::milliseconds timeout)
      : thread_([this, con, timeout] {
          std::unique_lock<std::mutex> lock(mu_);
          if (!cv_.wait_for(lock, timeout, [&] { return done_; })) {
            interrupted_ = true;
            duckdb_interrupt(con);
          }
        }) {}
  ~QueryWatchdog() { stop(); }
  void stop() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      done_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
  }
  bool interrupted() const { return interrupted_; }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool done_ = false;
  std::atomic<bool> interrupted_{false};
  std::thread thread_;  // last: started once the members it reads exist
};

// The statement's own column names and types (before its columns are cast to VARCHAR).
Status probe_columns(duckdb_connection con, const std::string& sql, std::vector<duckdb_type>& types,
                     std::vector<std::string>& names) {
  duckdb_prepared_statement probe = nullptr;
  if (duckdb_prepare(con, sql.c_str(), &probe) != DuckDBSuccess) {
    std::string err = duckdb_prepare_error(probe) ? duckdb_prepare_error(probe) : "?";
    duckdb_destroy_prepare(&probe);
    return sql_error(err);
  }
  for (idx_t c = 0; c < duckdb_prepared_statement_column_count(probe); ++c) {
    types.push_back(duckdb_prepared_statement_column_type(probe, c));
    const char* n = duckdb_prepared_statement_column_name(probe, c);  // ours to free
    names.push_back(n ? n : "");
    if (n) duckdb_free(const_cast<char*>(n));
  }
  duckdb_destroy_prepare(&probe);
  return {};
}

// The result's rows as JSON, cut at the row and character limits (truncated then set).
QueryResult collect_rows(duckdb_result* r, const std::vector<std::string>& names, const std::vector<duckdb_type>& types,
                         const QueryLimits& limits) {
  QueryResult out;
  idx_t cols = duckdb_column_count(r), rows = duckdb_row_count(r);
  for (idx_t c = 0; c < cols; ++c) out.columns.push_back(c < names.size() ? names[c] : duckdb_column_name(r, c));
  out.total_rows = rows;
  size_t chars = 0;
  for (idx_t row = 0; row < rows; ++row) {
    if (out.rows.size() >= limits.max_rows || chars >= limits.max_chars) {
      out.truncated = true;
      break;
    }
    Json j = Json::array();
    for (idx_t c = 0; c < cols; ++c) {
      Json v = cell_json(r, c, row, c < types.size() ? types[c] : DUCKDB_TYPE_VARCHAR);
      if (v.is_string()) {
        std::string& s = v.get_ref<std::string&>();
        if (chars + s.size() > limits.max_chars) {
          s = s.substr(0, limits.max_chars > chars ? limits.max_chars - chars : 0) + "...";
          out.truncated = true;
        }
        chars += s.size();
      } else {
        chars += 8;
      }
      j.push_back(std::move(v));
    }
    out.rows.push_back(std::move(j));
  }
  return out;
}

}  // namespace

Result<QueryResult> DuckDb::query(const std::string& sql, const QueryLimits& limits,
                                  const std::vector<SqlParam>& params) {
  QueryWatchdog watchdog(impl_->con, limits.timeout);  // interrupts the query at the time limit
  // The statement's own column names and types, then the same statement with
  // every column cast to VARCHAR.
  std::vector<duckdb_type> types;
  std::vector<std::string> names;
  if (Status probed = probe_columns(impl_->con, sql, types, names); !probed.is_ok()) {
    watchdog.stop();
    return probed;
  }
  std::string body = sql;
  while (!body.empty() && (body.back() == ';' || std::isspace(static_cast<unsigned char>(body.back()))))
    body.pop_back();
  const std::string text_sql = types.empty() ? body : "SELECT COLUMNS(*)::VARCHAR FROM (" + body + "\n) AS bioagent_q";
  duckdb_prepared_statement stmt = nullptr;
  duckdb_result r;
  if (duckdb_prepare(impl_->con, text_sql.c_str(), &stmt) != DuckDBSuccess) {
    std::string err = duckdb_prepare_error(stmt) ? duckdb_prepare_error(stmt) : "?";
    duckdb_destroy_prepare(&stmt);
    watchdog.stop();
    return sql_error(err);
  }
  Status b = bind_all(stmt, params);
  duckdb_state st = b.is_ok() ? duckdb_execute_prepared(stmt, &r) : DuckDBError;
  watchdog.stop();
  if (!b.is_ok()) {
    duckdb_destroy_prepare(&stmt);
    return b;
  }
  if (st != DuckDBSuccess) {
    std::string err = duckdb_result_error(&r);
    duckdb_destroy_result(&r);
    duckdb_destroy_prepare(&stmt);
    if (watchdog.interrupted())
      return Status(ErrorCode::kTimeout,
                    "the query ran longer than " + std::to_string(limits.timeout.count()) + " ms and was stopped");
    return sql_error(err);
  }
  QueryResult out = collect_rows(&r, names, types, limits);
  duckdb_destroy_result(&r);
  duckdb_destroy_prepare(&stmt);
  return out;
}

}  // namespace bioagent
