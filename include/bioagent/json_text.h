// Fast JSON serialisation for everything bioagent prints or sends (CLI output,
// MCP messages). Same text as nlohmann's dump() for valid input, several times
// faster on large string-heavy results; invalid UTF-8 is replaced by U+FFFD
// instead of throwing. Pure; thread-safe.
#pragma once

#include <string>

#include "bioagent/status.h"

namespace bioagent {

// indent < 0: compact on one line; otherwise pretty-printed with that many spaces.
std::string json_text(const Json& value, int indent = -1);
void append_json_text(const Json& value, std::string& out, int indent = -1);

}  // namespace bioagent
