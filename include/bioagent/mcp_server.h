// MCP server (Model Context Protocol, JSON-RPC 2.0): initialize with version
// negotiation, ping, tools/list with cursor pagination, tools/call with content
// blocks + structuredContent (isError for tool failures), notifications/cancelled
// and progress notifications. Transport-neutral core (McpSession) plus a stdio
// loop; the HTTP transport reuses McpSession. A session's handle_message() may be
// called from one thread; tool calls run on worker threads and send() is
// serialised internally, so the sink is never called concurrently.
#pragma once

#include <chrono>
#include <functional>
#include <iosfwd>
#include <map>
#include <memory>
#include <string>

#include "bioagent/tool.h"

namespace bioagent {

class ToolRegistry;
class Workspace;

struct McpOptions {
  size_t page_size = 50;                 // tools per tools/list page
  size_t max_message_bytes = 64u << 20;  // larger messages are rejected
  size_t max_inflight_calls = 16;
  std::chrono::milliseconds tool_timeout{10 * 60 * 1000};
  std::map<std::string, std::string> tool_options;  // copied into every call's ToolContext
};

// Protocol versions this server speaks, newest first.
const std::vector<std::string>& mcp_supported_versions();

class McpSession {
 public:
  using Sink = std::function<void(const std::string& line)>;

  McpSession(const ToolRegistry& registry, const Workspace& workspace, McpOptions options, Sink sink);
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

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Reads newline-delimited messages from `in` until EOF, answering on `out`.
// Returns the process exit code.
int run_mcp_stdio(const ToolRegistry& registry, const Workspace& workspace, const McpOptions& options, std::istream& in,
                  std::ostream& out);

}  // namespace bioagent
