// MCP server (Model Context Protocol, JSON-RPC 2.0): initialize with version
// negotiation, ping, tools/list with cursor pagination, tools/call with content
// blocks + structuredContent (isError for tool failures), notifications/cancelled
// and progress notifications, logging/setLevel with notifications/message,
// prompts (the seed's scenarios in en and zh), completion/complete, resources
// (gene-family runs' files and status, paper pages) with templates and
// subscriptions, gene-family runs as tasks over the assistant's task store (the
// specification's tasks: tools/call with a task, tasks/get, tasks/list,
// tasks/result, tasks/cancel, notifications/tasks/status; and for hosts that do
// not negotiate them a start/status/result/cancel tool set), and a compact tool mode (four
// meta-tools instead of the registry). Transport-neutral core (McpSession) plus
// a stdio loop; the HTTP transport reuses McpSession. A session's
// handle_message() may be called from one thread; tool calls run on worker
// threads and send() is serialised internally, so the sink is never called
// concurrently.
#pragma once

#include <chrono>
#include <functional>
#include <iosfwd>
#include <map>
#include <memory>
#include <string>

#include "bioagent/tool.h"

namespace bioagent {

class Assistant;
class ToolRegistry;
class Workspace;

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
  // Test only: the official conformance suite's fixture tools, resources and prompts are offered too.
  bool conformance_fixtures = false;
};

// The compact mode's meta-tools as MCP tool definitions, and as OpenAI functions.
Json mcp_compact_tools();
Json openai_compact_functions();

// Protocol versions this server speaks, newest first.
const std::vector<std::string>& mcp_supported_versions();

class McpSession {
 public:
  using Sink = std::function<void(const std::string& line)>;
  // A sink told which request a message belongs to: the JSON text of the
  // request's id for its response and for the progress and log notifications
  // sent while it runs; empty for messages of no request (resource updates).
  using RoutedSink = std::function<void(const std::string& line, const std::string& request_key)>;

  McpSession(const ToolRegistry& registry, const Workspace& workspace, McpOptions options, Sink sink);
  McpSession(const ToolRegistry& registry, const Workspace& workspace, McpOptions options, RoutedSink sink);
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

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Reads newline-delimited messages from `in` until EOF, answering on `out`.
// Returns the process exit code.
int run_mcp_stdio(const ToolRegistry& registry, const Workspace& workspace, const McpOptions& options, std::istream& in,
                  std::ostream& out);

}  // namespace bioagent
