// `bioagent serve`: the HTTP API of seed 004 (agent chat/plan/execute/status/
// diagnose/results, uploads, the tool registry, Server-Sent Events, /healthz,
// an OpenAPI document) and MCP over Streamable HTTP at /mcp, with bearer-token
// authentication whenever the server listens beyond loopback. The HTTP
// transport (Boost.Beast, event-driven) stays behind this interface. listen()
// blocks; stop() may be called from any thread (not from a signal handler).
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "bioagent/mcp_server.h"
#include "bioagent/status.h"

namespace bioagent {

class Assistant;

struct ApiServerOptions {
  std::string host = "127.0.0.1";
  int port = 8080;                // 0: any free port (see port())
  std::string token;              // required unless host is loopback
  std::filesystem::path web_dir;  // the web UI's built assets (index.html), optional; read once at create()
  // Host names accepted besides the bound address (and, on loopback, 127.0.0.1,
  // localhost, ::1); a server bound to every interface accepts any Host unless names are given.
  std::vector<std::string> allowed_hosts;
  // Origins trusted for state-changing requests and /mcp besides the server's own
  // (exact "scheme://host[:port]").
  std::vector<std::string> allowed_origins;
  size_t max_upload_bytes = size_t(512) << 20;  // one upload request; streamed to disk
  size_t max_body_bytes = size_t(64) << 20;     // any other request body
  int read_timeout_seconds = 30;                // silence allowed while a body arrives (slow clients are dropped)
  int header_timeout_seconds = 10;              // request line + headers must arrive within this (at most read_timeout)
  int threads = 64;                             // handlers running at once (SSE streams hold one while they wait)
  size_t max_connections = 4096;                // open connections (within the open-file limit); beyond: 503
  int mcp_session_idle_seconds = 3600;          // an MCP session unused this long expires
  size_t max_mcp_sessions = 256;                // beyond: initialize is refused (503) until one ends or expires
};

// True for 127.0.0.0/8, ::1 and "localhost".
bool is_loopback_host(const std::string& host);

class ApiServer {
 public:
  static Result<std::unique_ptr<ApiServer>> create(Assistant& assistant, const ToolRegistry& registry,
                                                   const Workspace& workspace, McpOptions mcp,
                                                   ApiServerOptions options);
  ~ApiServer();
  // Binds (so port() is known), then serves until stop().
  Status bind();
  Status listen();
  void stop();
  int port() const;

 private:
  struct Impl;
  explicit ApiServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace bioagent
