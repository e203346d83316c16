// The HTTP server: the request plan (guard, route table, 405 answers, the web
// UI's fixed asset set), /healthz and the OpenAPI document, on the
// event-driven transport of http_transport.cpp.
#include <arpa/inet.h>
#include <sys/resource.h>

#include "bioagent/version.h"
#include "server/http_transport.h"
#include "server/path_scrub.h"
#include "server/server_internal.h"

namespace bioagent {

bool is_loopback_host(const std::string& host) {
  if (host == "localhost" || host == "::1") return true;
  in_addr a{};
  return inet_pton(AF_INET, host.c_str(), &a) == 1 && (ntohl(a.s_addr) >> 24) == 127;
}

struct ApiServer::Impl {
  server::Context ctx;
  server::GuardConfig guard;
  server::WebAssets web;
  std::unique_ptr<server::HttpTransport> transport;
  int port = 0;
};

ApiServer::ApiServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ApiServer::~ApiServer() { stop(); }

namespace {

using server::Request;
using server::Response;

// 405 with Allow when the table has `req.path` under other methods.
bool reply_method_not_allowed(const server::Context& ctx, const Request& req, Response& res) {
  auto methods = server::methods_for(ctx, req.path);
  if (methods.empty()) return false;
  std::string allow;
  for (auto& m : methods) allow += (allow.empty() ? "" : ", ") + m;
  res.set_header("Allow", allow);
  server::reply_json(
      res,
      error_envelope(Status(ErrorCode::kInvalidArgument, req.method.substr(0, 20) + " is not allowed on " +
                                                             req.path.substr(0, 200) + "; allowed: " + allow)
                         .with("allow", allow)),
      405);
  return true;
}

// The web UI: exactly the files read at start; anything else is a JSON 404 (or 405).
void answer_web(const server::Context& ctx, const server::WebAssets& web, const Request& req, Response& res) {
  std::string name = req.path.size() > 1 ? req.path.substr(1) : "";
  if (req.method == "GET") {
    if (const auto* a = web.find(name)) {
      res.set_header("X-Content-Type-Options", "nosniff");
      res.set_content(a->body, a->mime);
      return;
    }
    if (req.path == "/") {
      res.set_content(
          "<!doctype html><meta charset=utf-8><title>bioagent</title><h1>bioagent</h1><p>The API is at "
          "<a href=/api/openapi.json>/api/openapi.json</a>; the web UI is not built "
          "(scripts/build.sh builds it).</p>",
          "text/html; charset=utf-8");
      return;
    }
  }
  if (reply_method_not_allowed(ctx, req, res)) return;
  server::reply_error(res, not_found(req.method == "GET" ? "no such page" : "no such endpoint"));
}

// What to do with a request, decided from its head: refused by the guard,
// answered at once (web assets, 404, 405), or routed with its body limit.
server::RequestPlan plan_request(const server::Context& ctx, const server::GuardConfig& guard,
                                 const server::WebAssets& web, int port, Request& req) {
  server::RequestPlan plan;
  if (auto refusal = server::guard_request(req, guard, port)) {
    plan.refused = true;
    if (refusal->http_status == 401) plan.refusal.set_header("WWW-Authenticate", "Bearer");
    server::reply_json(plan.refusal, error_envelope(refusal->status), refusal->http_status);
    if (req.path == "/mcp") server::to_jsonrpc_error(plan.refusal);
    return plan;
  }
  std::vector<std::string> matches;
  const server::Route* route = server::find_route(ctx, req.method, req.path, matches);
  if (!route) {
    plan.refused = true;
    answer_web(ctx, web, req, plan.refusal);
    if (req.path == "/mcp") server::to_jsonrpc_error(plan.refusal);
    return plan;
  }
  req.matches = std::move(matches);
  plan.body_limit = route->body_limit;
  plan.run_inline = route->run_inline;
  if (route->stream)
    plan.begin_stream = [route](Request& rq, Response& rs) { return route->stream(rq, rs); };
  else
    plan.handle = [route](Request& rq, Response& rs) { route->handler(rq, rs, Json()); };
  return plan;
}

// Connections the process may hold: the option, within the open-file limit.
size_t connection_limit(size_t wanted) {
  rlimit rl{};
  if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY) return wanted;
  size_t room = rl.rlim_cur > 512 ? size_t(rl.rlim_cur) - 256 : size_t(rl.rlim_cur) / 2;  // files, pipes, tools
  return std::max<size_t>(16, std::min(wanted, room));
}

server::TransportLimits transport_limits(const ApiServerOptions& o) {
  server::TransportLimits l;
  int read = std::max(1, o.read_timeout_seconds);
  l.header_timeout = std::chrono::seconds(std::min(read, std::max(1, o.header_timeout_seconds)));
  l.read_timeout = std::chrono::seconds(read);
  l.write_timeout = std::chrono::seconds(std::max(10, read));
  l.max_connections = connection_limit(o.max_connections);
  l.workers = std::max(4, o.threads);
  return l;
}

}  // namespace

Result<std::unique_ptr<ApiServer>> ApiServer::create(Assistant& assistant, const ToolRegistry& registry,
                                                     const Workspace& workspace, McpOptions mcp,
                                                     ApiServerOptions options) {
  if (!is_loopback_host(options.host) && options.token.empty())
    return invalid_argument("listening on " + options.host +
                            " (beyond loopback) needs a bearer token: --token or BIOAGENT_API_TOKEN");
  auto impl = std::make_unique<Impl>();
  auto web = server::WebAssets::load(options.web_dir);
  if (!web) return web.status();
  impl->web = std::move(*web);
  impl->guard = server::GuardConfig::from(options);
  impl->ctx.assistant = &assistant;
  impl->ctx.registry = &registry;
  impl->ctx.workspace = &workspace;
  impl->ctx.mcp = std::move(mcp);
  impl->ctx.options = options;
  {
    const size_t streams = size_t(std::max(2, options.threads / 2));  // the other half stays for ordinary requests
    impl->ctx.streams = std::make_unique<ClientShares>("open event streams", streams, streams - quarter_share(streams));
  }
  auto* ctx = &impl->ctx;
  server::add_route(
      *ctx, {"GET", "/healthz", "liveness: version and tool count", nullptr},
      [ctx](const Request&, Response& res, const Json&) {
        server::reply_json(res, {{"status", "ok"}, {"version", kVersion}, {"tools", ctx->registry->size()}});
      },
      true);
  server::add_route(
      *ctx, {"GET", "/api/openapi.json", "this document", nullptr},
      [ctx](const Request&, Response& res, const Json&) { server::reply_json(res, server::openapi_document(*ctx)); });
  server::add_agent_routes(*ctx);
  server::add_upload_route(*ctx);
  server::add_tool_and_mcp_routes(*ctx);
  Impl* raw = impl.get();
  impl->transport = std::make_unique<server::HttpTransport>(transport_limits(options), [raw](Request& req) {
    return plan_request(raw->ctx, raw->guard, raw->web, raw->port, req);
  });
  std::vector<std::pair<std::filesystem::path, std::string>> folders = {
      {assistant.runs().shared_data_dir(), "shared data:"}};
  for (auto& r : assistant.runs().roots()) folders.push_back({r.path, r.name + ":"});
  for (auto& w : workspace.roots()) folders.push_back({w, ""});
  auto scrubber = std::make_shared<server::PathScrubber>(assistant.runs().state_dir(), std::move(folders));
  impl->transport->set_body_filter([scrubber](const std::string& type, std::string& body) {
    if (server::PathScrubber::applies_to(type)) scrubber->scrub(body);
  });
  return std::unique_ptr<ApiServer>(new ApiServer(std::move(impl)));
}

Status ApiServer::bind() {
  BIOAGENT_RETURN_IF_ERROR(impl_->transport->bind(impl_->ctx.options.host, impl_->ctx.options.port));
  impl_->port = impl_->transport->port();
  return Status::ok();
}

Status ApiServer::listen() {
  if (impl_->port == 0) BIOAGENT_RETURN_IF_ERROR(bind());
  return impl_->transport->run();
}

void ApiServer::stop() {
  if (!impl_ || !impl_->transport) return;
  impl_->ctx.stopping = true;
  impl_->transport->stop();
}

int ApiServer::port() const { return impl_->port; }

}  // namespace bioagent
