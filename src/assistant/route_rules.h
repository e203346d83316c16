// The router's decision (router.cpp) and the model's routing with the same
// evidence (route_turn.cpp).
#pragma once

#include "assistant/route_sources.h"
#include "bioagent/assistant.h"

namespace bioagent {

// The rules: the intent from the message's form and the sources' evidence.
Route decide_route(std::string_view message, const MessageForm& form, const RouteEvidence& evidence);

// Whether `intent` can be what the message asks, whoever routes: an order to run is never a question or a
// refusal; stopping needs a task under way, continuing a stopped one. Empty when it can; else why not.
std::string inadmissible(Intent intent, const MessageForm& form, const RouteEvidence& evidence);

}  // namespace bioagent
