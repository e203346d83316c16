// MCP server (Model Context Protocol, JSON-RPC 2.0), both revisions on one
// endpoint (docs/mcp.md):
//  * 2025-11-25 and earlier, with a session: initialize with version
//    negotiation, ping, logging/setLevel, resources/subscribe, the
//    specification's tasks (tools/call with a task, tasks/get, tasks/list,
//    tasks/result, tasks/cancel, notifications/tasks/status), and requests to
//    the client (sampling, elicitation, roots) on the call's stream.
//  * 2026-07-28, stateless: every request carries its protocol version and
//    client capabilities in _meta; server/discover; resultType and cache hints
//    on results; requests to the client as multi round-trip results
//    (InputRequiredResult with an HMAC-sealed requestState); the tasks
//    extension io.modelcontextprotocol/tasks over a store shared by requests.
// Both: tools/list with cursor pagination, tools/call with content blocks +
// structuredContent (isError for tool failures), progress notifications,
// prompts (the seed's scenarios in en and zh), completion/complete, resources
// (gene-family runs' files and status, paper pages), gene-family runs as tasks
// over the assistant's task store (and for hosts without tasks a
// start/status/result/cancel tool set), and a compact tool mode (four
// meta-tools instead of the registry). Transport-neutral core (McpSession)
// plus a stdio loop; the HTTP transport reuses McpSession. A session's
// handle_message() may be called from one thread; tool calls run on worker
// threads and send() is serialised internally, so the sink is never called
// concurrently. Tools reach the client through ToolContext::client()
// (bioagent/client_channel.h).
#pragma once

#include <chrono>
#include <functional>
#include <iosfwd>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bioagent/tool.h"

namespace bioagent {

class Assistant;
class ToolRegistry;
class Workspace;
// State the stateless (2026-07-28) requests of one server share: the tasks extension's task
// store and the key that seals requestState. Defined in src/mcp.
class McpShared;
std::shared_ptr<McpShared> make_mcp_shared();

struct McpOptions {
  size_t page_size = 50;                 // tools per tools/list page
  size_t max_message_bytes = 64u << 20;  // larger messages are rejected
  size_t max_inflight_calls = 16;
  std::chrono::milliseconds tool_timeout{10 * 60 * 1000};
  std::map<std::string, std::string> tool_options;  // copied into every call's ToolContext
  // tools/list offers list_tool_categories, search_tools, describe_tool and
  // call_tool instead of the registry (every tool stays callable by name).
  bool compact = false;
  // Gene-family runs as tasks and resources; null: those tools and resources are not offered.
  Assistant* assistant = nullptr;
  // The assistant session runs started here belong to (empty: each MCP session creates its own).
  std::string assistant_session;
  std::chrono::milliseconds subscription_poll{1000};  // how often subscribed runs are checked
  // Test only: the official conformance suite's fixture tools, resources and prompts are offered too
  // (listed first).
  bool conformance_fixtures = false;
  // Shared by the stateless requests of one server (null: each session makes its own).
  std::shared_ptr<McpShared> shared;
  // Who the session serves, for fair shares of tasks and runs (a key from client_key: a token digest
  // or an address; empty: the local user of stdio MCP).
  std::string client;
};

// The compact mode's meta-tools as MCP tool definitions, and as OpenAI functions.
Json mcp_compact_tools();
Json openai_compact_functions();

// The revision served per request, without a session.
inline constexpr const char* kMcpStatelessVersion = "2026-07-28";
// Protocol versions this server speaks, newest first: 2026-07-28, then the session versions.
const std::vector<std::string>& mcp_supported_versions();
// The versions initialize negotiates, newest first (2025-11-25 ... 2024-11-05).
const std::vector<std::string>& mcp_session_versions();

// Which revision serves a message: a session (2025-11-25 and earlier: initialize, then
// Mcp-Session-Id) or a stateless request (2026-07-28: per-request _meta).
enum class McpEra { kSession, kStateless };

// The MCP headers of one HTTP request (names matched case-insensitively by the transport,
// values as sent).
struct McpRequestHeaders {
  bool session_id = false;                      // Mcp-Session-Id was sent
  std::optional<std::string> protocol_version;  // MCP-Protocol-Version
  std::optional<std::string> method;            // Mcp-Method
  std::optional<std::string> name;              // Mcp-Name
  std::map<std::string, std::string> params;    // Mcp-Param-<Name>: lowercased Name -> value
};

// A session when an Mcp-Session-Id was sent, or for an initialize without _meta protocolVersion,
// or when neither _meta nor the MCP-Protocol-Version header names a version other than a session
// version; stateless otherwise (an unknown header version included: it is answered -32022).
McpEra mcp_era_of(const McpRequestHeaders& headers, const Json& message);
// The HTTP status of a JSON-RPC answer: 200 for results; 400 for parse, invalid request, invalid
// params, header mismatch (-32020), missing client capability (-32021) and unsupported version
// (-32022); 404 for method not found; 500 for internal errors; 503 when busy; 200 otherwise.
int mcp_http_status(const Json& response);

class McpSession {
 public:
  using Sink = std::function<void(const std::string& line)>;
  // A sink told which request a message belongs to: the JSON text of the
  // request's id for its response and for the progress and log notifications
  // sent while it runs; empty for messages of no request (resource updates).
  // An empty line asks the transport to end that request's stream now, without ending the
  // request: the client resumes the stream with Last-Event-ID (a session's SSE only).
  using RoutedSink = std::function<void(const std::string& line, const std::string& request_key)>;

  McpSession(const ToolRegistry& registry, const Workspace& workspace, McpOptions options, Sink sink);
  McpSession(const ToolRegistry& registry, const Workspace& workspace, McpOptions options, RoutedSink sink);
  // A stateless (2026-07-28) session for one HTTP request: it checks the request against
  // `headers` (MCP-Protocol-Version, Mcp-Method, Mcp-Name, Mcp-Param-*) and its _meta, answers it
  // with the request's own client capabilities and log level, and keeps nothing for the next
  // request (the tasks extension's tasks live in options.shared).
  static std::unique_ptr<McpSession> stateless(const ToolRegistry& registry, const Workspace& workspace,
                                               McpOptions options, RoutedSink sink, McpRequestHeaders headers);
  ~McpSession();  // waits for running tool calls
  McpSession(const McpSession&) = delete;
  McpSession& operator=(const McpSession&) = delete;

  // One incoming message (a JSON text). Responses go to the sink, possibly later
  // (tool calls answer from a worker thread).
  void handle_message(const std::string& text);
  // Answers a message that was too large to read (stdio reader's guard).
  void reject_oversized();
  // Blocks until every running tool call has answered.
  void drain();
  // The key a RoutedSink is given for request id `id` (its JSON text).
  static std::string request_key(const Json& id);

  struct Impl;  // opaque: defined inside src/mcp

 private:
  std::unique_ptr<Impl> impl_;
};

// Reads newline-delimited messages from `in` until EOF, answering on `out`.
// Returns the process exit code.
int run_mcp_stdio(const ToolRegistry& registry, const Workspace& workspace, const McpOptions& options, std::istream& in,
                  std::ostream& out);

}  // namespace bioagent
