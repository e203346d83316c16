// Inside src/server: the httplib types, JSON replies and errors, the route
// table (one row per route; the OpenAPI document and the 405 answers are
// generated from it), the request guard and the web UI's fixed asset set.
#pragma once

#include <httplib.h>

#include <atomic>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "bioagent/api_server.h"
#include "bioagent/assistant.h"
#include "bioagent/registry.h"
#include "bioagent/workspace.h"

namespace bioagent::server {

// One route. `path` is the documented form ("/api/agent/status/{task_id}");
// each {name} matches one path segment unless `pattern` (a regex) is given.
// A route with a request_schema takes a JSON object body, validated against
// the schema (unknown fields refused) before its handler runs.
struct RouteDoc {
  RouteDoc(std::string m, std::string p, std::string s, Json schema, std::string re = "")
      : method(std::move(m)),
        path(std::move(p)),
        summary(std::move(s)),
        request_schema(std::move(schema)),
        pattern(std::move(re)) {}
  std::string method, path, summary;
  Json request_schema;  // null: no JSON body
  std::string pattern;  // empty: derived from path
  std::string regex() const;
};

// The checks made before routing (request_guard.cpp): allowed Host names,
// allowed Origins, the token, body limits. Immutable after start.
struct GuardConfig {
  std::string token;
  std::vector<std::string> hosts, origins;
  bool any_host = false;
  size_t max_body_bytes = 0, max_upload_bytes = 0;
  static GuardConfig from(const ApiServerOptions& o);
  bool host_allowed(const std::string& name) const;
};
struct Refusal {
  int http_status;
  Status status;
};
// Why `req` is refused before its body is read, or nothing. `port`: the bound port.
std::optional<Refusal> guard_request(const httplib::Request& req, const GuardConfig& g, int port);

// The web UI's built files, read once at start; lookups by exact name only.
class WebAssets {
 public:
  struct Asset {
    std::string body, mime;
  };
  static Result<WebAssets> load(const fs::path& dir);
  const Asset* find(const std::string& name) const;  // "" is index.html
  bool empty() const { return files_.empty(); }

 private:
  std::map<std::string, Asset> files_;
};

struct Context {
  Assistant* assistant;
  const ToolRegistry* registry;
  const Workspace* workspace;
  McpOptions mcp;
  ApiServerOptions options;
  std::vector<RouteDoc> docs;
  std::atomic<int> open_streams{0};  // SSE responses in progress (each holds a worker thread)
};

// Body of a JSON route (validated object) or null for routes without one.
using Handler = std::function<void(const httplib::Request&, httplib::Response&, const Json& body)>;
// Adds `route` to the table and to httplib.
void add_route(httplib::Server& svr, Context& ctx, RouteDoc route, Handler handler);
// The methods of the table's routes matching `path` (for 405 and Allow).
std::vector<std::string> methods_for(const Context& ctx, const std::string& path);

// HTTP status for an error code (400 bad input, 404, 403, 413, 503, 500).
int http_status_for(ErrorCode code);
void reply_json(httplib::Response& res, const Json& body, int status = 200);
void reply_error(httplib::Response& res, const Status& s);
// The session id from the X-Session-Id header, the body, or the query.
std::string session_of(const httplib::Request& req, const Json& body);
// Takes a slot for an SSE response, or answers 503 and returns false; the
// returned guard's release runs when the stream ends.
bool acquire_stream(Context& ctx, httplib::Response& res);
void release_stream(Context& ctx);

void add_agent_routes(httplib::Server& svr, Context& ctx);
void add_upload_route(httplib::Server& svr, Context& ctx);
void add_tool_and_mcp_routes(httplib::Server& svr, Context& ctx);
Json openapi_document(const Context& ctx);

}  // namespace bioagent::server
