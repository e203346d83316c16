// What a user-written paper-library query (RetrieveFromDatabase) may do, decided
// from DuckDB's own parse of it (json_serialize_sql), never from its text: one
// SELECT statement (DESCRIBE of a library table is one too); every table it reads
// is a library table or one of its own CTEs, in the default schema; every function,
// table function and operator it calls is on an allow-list of pure functions.
// Catalog and settings functions (duckdb_databases(), current_setting(), ...),
// query()/query_table(), file readers (read_csv, glob, ...) and files named as
// tables are refused with kPermissionDenied; a syntax error is kInvalidArgument.
#pragma once

#include <set>
#include <string>

#include "bioagent/status.h"
#include "papers/duckdb_conn.h"

namespace bioagent {

Status check_library_query(DuckDb& db, const std::string& sql, const std::set<std::string>& library_tables);

}  // namespace bioagent
