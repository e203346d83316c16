// Asking the client of the current call: a tool or agent running on the server
// asks the program that called it (an MCP host) for a completion from the
// host's model (sampling), for a form filled in by its user (elicitation), or
// for its roots. One interface, whatever carries the question:
//
//  * MCP 2025-11-25 and earlier (a session): a JSON-RPC request to the client
//    on the call's own stream (the tools/call SSE stream over HTTP, stdout over
//    stdio); ask() blocks until the client's response arrives, the call is
//    cancelled or its deadline passes.
//  * MCP 2026-07-28, a plain call (stateless): a multi round-trip request. The
//    first ask() without an answer ends the call: it returns kCancelled with
//    is_input_required(), the server answers InputRequiredResult (the question
//    as an inputRequest, the answers so far sealed in requestState), and the
//    client calls again with the answer. The call then runs again from its
//    start, and each ask() in the same order gets its recorded answer at once.
//    So a tool does its side effects after its questions (or runs as a task).
//  * MCP 2026-07-28, a call running as a task (io.modelcontextprotocol/tasks):
//    ask() parks the task in input_required with the question as its
//    inputRequest and blocks until tasks/update brings the answer.
//
// Callers never learn which: they get the client's answer (the MCP result
// object: CreateMessageResult, ElicitResult, ListRootsResult) or a Status that
// says why not. A call without a client (the CLI, the web UI) has no channel.
#pragma once

#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "bioagent/status.h"

namespace bioagent {

class ToolContext;

// What may be asked; each needs the client capability of the same name.
enum class ClientAsk { kSampling, kElicitation, kRoots };

// "sampling/createMessage", "elicitation/create", "roots/list".
std::string_view client_ask_method(ClientAsk ask);
// The client capability the question needs: "sampling", "elicitation", "roots".
std::string_view client_ask_capability(ClientAsk ask);

struct ClientQuestion {
  ClientAsk ask = ClientAsk::kElicitation;
  // The request's params as the MCP specification types them: CreateMessageRequest's
  // {messages, maxTokens, systemPrompt?, ...}, ElicitRequest's {message, requestedSchema}, {} for roots.
  Json params = Json::object();
  // A name for the question, unique within the call ("" numbers it: "input-1", "input-2", ...);
  // a 2026-07-28 client sees it as the inputRequests key.
  std::string key;
  // The longest the asker waits for this answer (0: until the call's deadline). A question whose
  // time passes is kTimeout; a late answer is ignored. A round trip never waits (see replays()).
  std::chrono::milliseconds wait{0};
};

class ClientChannel {
 public:
  virtual ~ClientChannel() = default;
  // Whether the client declared the capability `ask` needs (for this request, at 2026-07-28).
  virtual bool supports(ClientAsk ask) const = 0;
  // The capability object the client declared for `ask` (e.g. sampling's {"tools": {}} when its
  // model can call tools), null when it declared none.
  virtual Json capability(ClientAsk ask) const { return supports(ask) ? Json::object() : Json(); }
  // True when an unanswered question ends the call and the call runs again from its start with
  // the answer (a 2026-07-28 round trip); false when ask() waits for the answer. A caller with side
  // effects asks before them when this is true.
  virtual bool replays() const { return false; }
  // Asks every question in one round and returns the answers in the same order. Each is the
  // client's result object, or:
  //   kUnsupported   the client did not declare the capability (details: client_capability);
  //                  nothing was sent. A tool that cannot go on without it may return this
  //                  status: a 2026-07-28 call then fails with MissingRequiredClientCapability.
  //   kCancelled     the call was cancelled while waiting, or is_input_required(): stop and
  //                  return; the client answers in the call's next round (see above).
  //   kTimeout       the call's deadline passed while waiting.
  //   kUnavailable   the client answered with a JSON-RPC error (details: rpc_code) or with
  //                  something that is not a result object.
  virtual std::vector<Result<Json>> ask_all(const std::vector<ClientQuestion>& questions) = 0;
  // One question.
  Result<Json> ask(ClientAsk ask, Json params, std::string key = "");
};

// The Status a channel returns when the client lacks the capability `ask` needs.
Status client_unsupported(ClientAsk ask);
// True for the kCancelled a 2026-07-28 round trip returns: the answer comes in the call's next round.
bool is_input_required(const Status& s);
Status input_required_status();

// The conveniences tools and agents use; a context without a channel is kUnsupported.
Result<Json> ask_client(const ToolContext& ctx, ClientAsk ask, Json params, std::string key = "");
// sampling/createMessage with one user message: the text of the client model's answer.
Result<std::string> client_completion(const ToolContext& ctx, const std::string& system_prompt,
                                      const std::string& user_text, int max_tokens);
// elicitation/create (form mode): the ElicitResult, {action: accept|decline|cancel, content?}.
// `requested_schema` is a flat object schema of primitive properties, as the specification allows.
// `wait`: the longest to wait for the user (0: the call's deadline), then kTimeout.
Result<Json> client_form(const ToolContext& ctx, const std::string& message, const Json& requested_schema,
                         std::string key = "", std::chrono::milliseconds wait = {});

}  // namespace bioagent
