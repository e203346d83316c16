// SHA-256 digests (hex) of bytes and of files, streamed.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "bioagent/status.h"

namespace bioagent {

std::string sha256_hex(std::string_view data);
Result<std::string> file_sha256(const std::filesystem::path& path);

}  // namespace bioagent
