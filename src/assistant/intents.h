// The intent table: one row per router intent with its name, what it means
// and what it rests on (the message's form, the sources, the session; the
// model's routing prompt is made from these) and the handler that answers a
// turn routed to it. A new intent is one enum value (bioagent/assistant.h) and
// one row here; the rules that choose it are in router.cpp.
#pragma once

#include <functional>
#include <utility>
#include <vector>

#include "assistant/assistant_impl.h"

namespace bioagent {

// One chat turn as the handlers see it.
struct Turn {
  Assistant& assistant;
  Assistant::Impl& impl;
  const std::string& session;
  const std::string& message;
  Route& route;
  LlmClient* llm;  // null: offline agents
  const std::function<void(Json)>& emit;
  Lang lang;
  ClientChannel* client;  // the MCP call's client (ChatOptions::client), or null
};

// The reply, or null when the handler re-routed the turn (route.intent changed) for the next handler.
using TurnHandler = Result<Json> (*)(Turn& turn);

struct IntentSpec {
  Intent intent;
  const char* name;         // to_string(intent); the model answers with it
  const char* description;  // what it means, for the model's routing prompt
  const char* rests_on;     // the form, sources and session state that choose it
  TurnHandler handler;
};

// Every intent, in the enum's order of declaration (the table says which row is which; nothing reads it by position).
const std::vector<IntentSpec>& intent_table();
const IntentSpec& intent_spec(Intent intent);
// The system prompt of the model's routing call, made from the table.
std::string routing_prompt();

}  // namespace bioagent
