// Fast JSON serialisation for everything bioagent prints or sends (CLI output,
// MCP messages). Same text as nlohmann's dump() for valid input, several times
// faster on large string-heavy results; invalid UTF-8 is replaced by U+FFFD
// instead of throwing. Pure; thread-safe.
#pragma once

#include <string>
#include <string_view>

#include "bioagent/status.h"

namespace bioagent {

// indent < 0: compact on one line; otherwise pretty-printed with that many spaces.
std::string json_text(const Json& value, int indent = -1);
void append_json_text(const Json& value, std::string& out, int indent = -1);

// Untrusted JSON (request bodies, MCP messages, tool arguments, model output) is
// at most this many arrays/objects deep; deeper text is refused before it is parsed,
// so no later copy, walk or print of a parsed value recurses further.
inline constexpr size_t kMaxJsonDepth = 256;

// True when no array/object in `text` nests deeper than max_depth (strings are
// skipped; the text need not be valid JSON). One pass, no recursion.
bool json_depth_within(std::string_view text, size_t max_depth = kMaxJsonDepth);

// Json::parse for untrusted text: a discarded value when the text is not JSON or
// nests deeper than max_depth. Never throws.
Json parse_json_bounded(std::string_view text, size_t max_depth = kMaxJsonDepth);

// The longest prefix of `text` of at most max_bytes that does not end inside a
// UTF-8 character: a cut of outside text that stays valid for JSON and display.
std::string_view utf8_prefix(std::string_view text, size_t max_bytes);
// The longest suffix of `text` of at most max_bytes that does not start inside a UTF-8 character.
std::string_view utf8_suffix(std::string_view text, size_t max_bytes);

}  // namespace bioagent
