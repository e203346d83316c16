// Opening an SQLite store the way every store here does: create the parent
// folder, open read-write (serialised connection), set a busy timeout, run the
// schema (PRAGMAs and CREATE ... IF NOT EXISTS). On failure the handle is
// closed and the message says which step failed.
#pragma once

#include <string>

#include "bioagent/status.h"

struct sqlite3;

namespace bioagent {

Result<sqlite3*> open_sqlite(const std::string& path, const char* schema, int busy_timeout_ms);

}  // namespace bioagent
