// Program versions and data digests for stage keys (src/pipeline internal).
#pragma once

#include <filesystem>
#include <string>

#include "bioagent/pipeline.h"
#include "pipeline/run_store.h"

namespace bioagent {

// A data file's SHA-256, cached in the run store by path, size and time.
Result<std::string> data_digest(RunStore& store, const fs::path& p);
// A program's version, remembered in the run record and in `book_file` (JSON,
// by the binary's path, size and time; empty: none) so neither a warm re-run
// nor a new run starts helper processes to ask.
std::string cached_version(RunStore& store, const fs::path& book_file, const std::string& program);

}  // namespace bioagent
