// A zip archive written from files on disk (libzip, deflated): a run's result
// folder as one download.
#pragma once

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "bioagent/status.h"

namespace bioagent {

// Writes `out` holding each file under its name in the archive (a relative path, '/' separated); the archive
// replaces any file of that name. A file that cannot be read fails the whole archive (none is left behind).
Status write_zip(const std::filesystem::path& out,
                 const std::vector<std::pair<std::string, std::filesystem::path>>& files);

}  // namespace bioagent
