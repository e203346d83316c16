// SHA-256 digests (hex) of bytes and of files, streamed; HMAC-SHA-256 and
// random keys for values the server signs (MCP requestState).
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "bioagent/status.h"

namespace bioagent {

std::string sha256_hex(std::string_view data);
Result<std::string> file_sha256(const std::filesystem::path& path);
// HMAC-SHA-256 of `data` under `key`, as hex.
std::string hmac_sha256_hex(std::string_view key, std::string_view data);
// `n` bytes from the operating system's random source (OpenSSL's CSPRNG), as hex (2n characters).
std::string random_hex(size_t n);

}  // namespace bioagent
