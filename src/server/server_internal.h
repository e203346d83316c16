// Inside src/server: JSON replies and errors, the route table (one row per
// route; routing, the OpenAPI document and the 405 answers come from it), the
// request guard and the web UI's fixed asset set.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bioagent/api_server.h"
#include "bioagent/assistant.h"
#include "bioagent/registry.h"
#include "bioagent/workspace.h"
#include "core/client_shares.h"
#include "server/http_message.h"

namespace bioagent::server {

// One route. `path` is the documented form ("/api/agent/status/{task_id}");
// each {name} matches one non-empty path segment; with `rest_last` the last
// {name} takes the rest of the path, slashes included. A route with a
// request_schema takes a JSON object body, validated against the schema
// (unknown fields refused) before its handler runs.
struct RouteDoc {
  RouteDoc(std::string m, std::string p, std::string s, Json schema, bool rest = false)
      : method(std::move(m)),
        path(std::move(p)),
        summary(std::move(s)),
        request_schema(std::move(schema)),
        rest_last(rest) {}
  std::string method, path, summary;
  Json request_schema;  // null: no JSON body
  bool rest_last = false;
  // The captured segments ([0] the whole path) when `p` matches, else false.
  bool match(const std::string& p, std::vector<std::string>& captures) const;
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
std::optional<Refusal> guard_request(const Request& req, const GuardConfig& g, int port);

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

// Body of a JSON route (validated object) or null for routes without one.
using Handler = std::function<void(const Request&, Response&, const Json& body)>;
class BodyConsumer;
// A route whose body is streamed (uploads): returns the consumer of its body,
// or null with the response filled (refused before the body is read).
using StreamHandler = std::function<std::unique_ptr<BodyConsumer>(const Request&, Response&)>;

struct Route {
  RouteDoc doc;
  Handler handler;
  StreamHandler stream;  // set: the body is streamed, up to body_limit
  size_t body_limit = 0;
  bool run_inline = false;  // cheap and non-blocking (/healthz): runs on the I/O thread
};

struct Context {
  Assistant* assistant = nullptr;
  const ToolRegistry* registry = nullptr;
  const Workspace* workspace = nullptr;
  McpOptions mcp;
  ApiServerOptions options;
  std::vector<Route> routes;
  // SSE responses in progress (each holds a worker thread while it waits): half the threads in all, a
  // quarter of that per client; set from options when the server is made.
  std::unique_ptr<ClientShares> streams;
  std::atomic<bool> stopping{false};  // the server is shutting down: long waits end
};

// Adds `route` to the table (a whole JSON or empty body up to max_body_bytes).
void add_route(Context& ctx, RouteDoc route, Handler handler, bool run_inline = false);
// Adds a route whose handler reads the body itself (the documented schema is for OpenAPI only).
void add_raw_route(Context& ctx, RouteDoc route, Handler handler);
// Adds a route whose body is streamed to `handler`'s consumer, up to `body_limit` bytes.
void add_stream_route(Context& ctx, RouteDoc route, StreamHandler handler, size_t body_limit);
// The route for `method` and `path` (captures in `matches`), or null.
const Route* find_route(const Context& ctx, const std::string& method, const std::string& path,
                        std::vector<std::string>& matches);
// The methods of the table's routes matching `path` (for 405 and Allow).
std::vector<std::string> methods_for(const Context& ctx, const std::string& path);
// Parses and validates a JSON route's body against `schema` (an empty body is {}); false with `res` filled.
bool json_body(const Request& req, Response& res, const Json& schema, Json& out);

// HTTP status for an error code (400 bad input, 404, 403, 413, 503, 500).
int http_status_for(ErrorCode code);
void reply_json(Response& res, const Json& body, int status = 200);
void reply_error(Response& res, const Status& s);
// Rewrites a refusal's {status: error, error: {code, message, details}} body as a JSON-RPC error
// (code -32600, id absent, the details and the refusal's code in data), keeping the HTTP status:
// what an MCP client of /mcp reads.
void to_jsonrpc_error(Response& res);
// The session id from the X-Session-Id header, the body, or the query.
std::string session_of(const Request& req, const Json& body);
// Who sent `req`, for fair shares: its bearer token when it presents one, else its address.
std::string client_of(const Request& req);
// Takes a slot for an SSE response of `client`, or answers 503 naming the limit reached (the
// client's share or the server's total) and returns false; release_stream gives it back when the
// stream ends.
bool acquire_stream(Context& ctx, const std::string& client, Response& res);
void release_stream(Context& ctx, const std::string& client);

void add_agent_routes(Context& ctx);
void add_upload_route(Context& ctx);
void add_tool_and_mcp_routes(Context& ctx);  // the tool routes, then add_mcp_routes
void add_mcp_routes(Context& ctx);
// The folders a tool called for assistant session `sid` reads: the data folders named at start
// plus that session's own files; without a session (or an assistant) the data folders only.
Result<Workspace> workspace_for(const Context* c, const std::string& sid);
Json openapi_document(const Context& ctx);

}  // namespace bioagent::server
