// The engine's reasons for a stage's state in Chinese (src/pipeline): what a
// Chinese report or chat shows instead of the English message.
#pragma once

#include <string>

namespace bioagent {

// A failure class's record name ("tool_missing") in Chinese.
std::string failure_class_zh(const std::string& failure);
// A stage's reason in Chinese: the engine's own reasons (an absent data file, an
// upstream that did not finish, a program not installed, cached, cancelled,
// repaired) translated; a failure by its class when `failure` is given; empty
// for any other text (the caller points to where the original is).
std::string stage_reason_zh(const std::string& message, const std::string& failure = "");

}  // namespace bioagent
