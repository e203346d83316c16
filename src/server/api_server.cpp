// The HTTP server: httplib set-up, the request guard, the exception firewall,
// JSON helpers, the route table's registration, /healthz, the OpenAPI document
// and the web UI's fixed asset set.
#include <arpa/inet.h>
#include <sys/socket.h>

#include <atomic>
#include <regex>

#include "bioagent/json_text.h"
#include "bioagent/schema.h"
#include "bioagent/version.h"
#include "server/server_internal.h"

namespace bioagent {
namespace server {

int http_status_for(ErrorCode code) {
  switch (code) {
    case ErrorCode::kInvalidArgument:
    case ErrorCode::kParseError:
    case ErrorCode::kUnsupported:
      return 400;
    case ErrorCode::kPermissionDenied:
      return 403;
    case ErrorCode::kNotFound:
      return 404;
    case ErrorCode::kResourceExhausted:
      return 413;
    case ErrorCode::kTimeout:
      return 504;
    case ErrorCode::kUnavailable:
      return 503;
    default:
      return 500;
  }
}

void reply_json(httplib::Response& res, const Json& body, int status) {
  res.status = status;
  res.set_content(body.dump(-1, ' ', false, Json::error_handler_t::replace), "application/json");
}

void reply_error(httplib::Response& res, const Status& s) {
  reply_json(res, error_envelope(s), http_status_for(s.code()));
}

std::string session_of(const httplib::Request& req, const Json& body) {
  if (req.has_header("X-Session-Id")) return req.get_header_value("X-Session-Id");
  if (body.is_object() && body.contains("session_id") && body["session_id"].is_string()) return body["session_id"];
  return req.has_param("session_id") ? req.get_param_value("session_id") : "";
}

std::string RouteDoc::regex() const {
  if (!pattern.empty()) return pattern;
  static const std::regex param(R"(\{[A-Za-z_]+\})");
  return std::regex_replace(path, param, "([^/]+)");
}

namespace {

// Parses and validates a JSON route's body; an empty body is {}.
bool json_body(const httplib::Request& req, httplib::Response& res, const Json& schema, Json& out) {
  out = req.body.empty() ? Json::object() : parse_json_bounded(req.body);
  if (out.is_discarded() || !out.is_object()) {
    reply_error(res, parse_error("the request body must be a JSON object nested at most " +
                                 std::to_string(kMaxJsonDepth) + " levels deep"));
    return false;
  }
  if (Status v = validate(schema, out, "body"); !v.is_ok()) {
    std::string field = v.details().value("field", "");  // "body.message" names the body's field "message"
    if (field.rfind("body.", 0) == 0) v.with("field", field.substr(5));
    reply_error(res, v);
    return false;
  }
  return true;
}

}  // namespace

void add_route(httplib::Server& svr, Context& ctx, RouteDoc route, Handler handler) {
  std::string re = route.regex();
  Json schema = route.request_schema;
  auto wrapped = [handler, schema](const httplib::Request& req, httplib::Response& res) {
    Json body;
    if (!schema.is_null() && !json_body(req, res, schema, body)) return;
    handler(req, res, body);
  };
  if (route.method == "GET")
    svr.Get(re, wrapped);
  else if (route.method == "POST")
    svr.Post(re, wrapped);
  else if (route.method == "DELETE")
    svr.Delete(re, wrapped);
  ctx.docs.push_back(std::move(route));
}

std::vector<std::string> methods_for(const Context& ctx, const std::string& path) {
  std::vector<std::string> out;
  for (auto& d : ctx.docs)
    if (std::regex_match(path, std::regex(d.regex())) && std::find(out.begin(), out.end(), d.method) == out.end())
      out.push_back(d.method);
  return out;
}

bool acquire_stream(Context& ctx, httplib::Response& res) {
  int limit = std::max(2, ctx.options.threads / 2);  // the other half stays for ordinary requests
  if (ctx.open_streams.fetch_add(1) >= limit) {
    ctx.open_streams.fetch_sub(1);
    res.set_header("Retry-After", "5");
    reply_json(res,
               error_envelope(Status(ErrorCode::kUnavailable,
                                     "refused: " + std::to_string(limit) + " event streams are open; retry later")),
               503);
    return false;
  }
  return true;
}

void release_stream(Context& ctx) { ctx.open_streams.fetch_sub(1); }

Json openapi_document(const Context& ctx) {
  Json paths = Json::object();
  for (auto& d : ctx.docs) {
    Json op = {{"summary", d.summary},
               {"responses",
                {{"200", {{"description", "success (JSON, or text/event-stream where noted)"}}},
                 {"400", {{"description", "bad input: {status: error, error: {code, message, details}}"}}},
                 {"401", {{"description", "missing or wrong bearer token"}}},
                 {"404", {{"description", "unknown session, plan, task or file"}}}}}};
    if (!d.request_schema.is_null())
      op["requestBody"] = {{"required", true}, {"content", {{"application/json", {{"schema", d.request_schema}}}}}};
    std::string method = d.method;
    for (auto& c : method) c = char(std::tolower(static_cast<unsigned char>(c)));
    paths[d.path][method] = op;
  }
  return {{"openapi", "3.1.0"},
          {"info", {{"title", "bioagent API"}, {"version", kVersion}}},
          {"components", {{"securitySchemes", {{"bearer", {{"type", "http"}, {"scheme", "bearer"}}}}}}},
          {"security", Json::array({{{"bearer", Json::array()}}})},
          {"paths", paths}};
}

}  // namespace server

bool is_loopback_host(const std::string& host) {
  if (host == "localhost" || host == "::1") return true;
  in_addr a{};
  return inet_pton(AF_INET, host.c_str(), &a) == 1 && (ntohl(a.s_addr) >> 24) == 127;
}

struct ApiServer::Impl {
  httplib::Server svr;
  server::Context ctx;
  server::GuardConfig guard;
  server::WebAssets web;
  int port = 0;
  int listen_fd = -1;  // the listening socket, to deepen httplib's listen queue after bind
};

ApiServer::ApiServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ApiServer::~ApiServer() { stop(); }

namespace {

constexpr int kListenBacklog = 1024;  // bursts of hundreds of connections wait here, not in SYN retries

// 405 with Allow when the table has `req.path` under other methods.
bool reply_method_not_allowed(const server::Context& ctx, const httplib::Request& req, httplib::Response& res) {
  auto methods = server::methods_for(ctx, req.path);
  if (methods.empty()) return false;
  std::string allow;
  for (auto& m : methods) allow += (allow.empty() ? "" : ", ") + m;
  res.set_header("Allow", allow);
  server::reply_json(
      res,
      error_envelope(Status(ErrorCode::kInvalidArgument,
                            req.method + " is not allowed on " + req.path.substr(0, 200) + "; allowed: " + allow)
                         .with("allow", allow)),
      405);
  return true;
}

// Exception firewall, httplib's own refusals with JSON bodies, 405 from the route table.
void install_error_handlers(httplib::Server& svr, server::Context* ctx) {
  svr.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr ep) {
    std::string what = "unexpected error";
    try {
      std::rethrow_exception(ep);
    } catch (const std::exception& e) {
      what = e.what();
    } catch (...) {
    }
    server::reply_error(res, internal_error("internal error: " + what));
  });
  svr.set_error_handler([ctx](const httplib::Request& req, httplib::Response& res) {
    if (!res.body.empty()) return;
    if (res.status == 404 && reply_method_not_allowed(*ctx, req, res)) return;
    std::string m = res.status == 413   ? "the request body is larger than the server accepts"
                    : res.status == 404 ? "no such endpoint"
                    : res.status == 400 ? "malformed request"
                                        : "request refused";
    ErrorCode code = res.status == 413   ? ErrorCode::kResourceExhausted
                     : res.status == 404 ? ErrorCode::kNotFound
                     : res.status < 500  ? ErrorCode::kInvalidArgument
                                         : ErrorCode::kInternal;
    int status = res.status;
    server::reply_json(res, error_envelope(Status(code, m)), status);
  });
}

// The web UI: exactly the files read at start; anything else is a JSON 404.
void add_web_routes(httplib::Server& svr, const server::Context* ctx, const server::WebAssets* web) {
  svr.Get(R"(/(.*))", [ctx, web](const httplib::Request& req, httplib::Response& res) {
    std::string name = req.path.size() > 1 ? req.path.substr(1) : "";
    if (const auto* a = web->find(name)) {
      res.set_header("X-Content-Type-Options", "nosniff");
      res.set_content(a->body, a->mime);
      return;
    }
    if (name.empty()) {
      res.set_content(
          "<!doctype html><meta charset=utf-8><title>bioagent</title><h1>bioagent</h1><p>The API is at "
          "<a href=/api/openapi.json>/api/openapi.json</a>; the web UI is not built "
          "(scripts/build.sh builds it).</p>",
          "text/html; charset=utf-8");
      return;
    }
    if (!reply_method_not_allowed(*ctx, req, res)) server::reply_error(res, not_found("no such page"));
  });
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
  auto& svr = impl->svr;
  int threads = std::max(4, options.threads);
  svr.new_task_queue = [threads] { return new httplib::ThreadPool(size_t(threads)); };
  svr.set_payload_max_length(std::max(options.max_upload_bytes + (1u << 20), options.max_body_bytes));
  svr.set_read_timeout(std::max(1, options.read_timeout_seconds), 0);
  svr.set_write_timeout(std::max(1, options.read_timeout_seconds), 0);
  svr.set_keep_alive_max_count(100);
  svr.set_keep_alive_timeout(2);  // an idle keep-alive connection must not hold a worker for long
  Impl* raw = impl.get();
  svr.set_socket_options([raw](int sock) {
    httplib::default_socket_options(sock);
    raw->listen_fd = sock;
  });
  auto* ctx = &impl->ctx;
  install_error_handlers(svr, ctx);
  svr.set_pre_routing_handler([raw](const httplib::Request& req, httplib::Response& res) {
    auto refusal = server::guard_request(req, raw->guard, raw->port);
    if (!refusal) return httplib::Server::HandlerResponse::Unhandled;
    if (refusal->http_status == 401) res.set_header("WWW-Authenticate", "Bearer");
    // The body (if any) is not read: the connection cannot carry another request.
    if (req.method == "POST" || req.method == "PUT" || req.method == "PATCH") res.set_header("Connection", "close");
    server::reply_json(res, error_envelope(refusal->status), refusal->http_status);
    return httplib::Server::HandlerResponse::Handled;
  });
  server::add_route(
      svr, *ctx, {"GET", "/healthz", "liveness: version and tool count", nullptr},
      [ctx](const httplib::Request&, httplib::Response& res, const Json&) {
        server::reply_json(res, {{"status", "ok"}, {"version", kVersion}, {"tools", ctx->registry->size()}});
      });
  server::add_route(svr, *ctx, {"GET", "/api/openapi.json", "this document", nullptr},
                    [ctx](const httplib::Request&, httplib::Response& res, const Json&) {
                      server::reply_json(res, server::openapi_document(*ctx));
                    });
  server::add_agent_routes(svr, *ctx);
  server::add_upload_route(svr, *ctx);
  server::add_tool_and_mcp_routes(svr, *ctx);
  add_web_routes(svr, ctx, &impl->web);
  return std::unique_ptr<ApiServer>(new ApiServer(std::move(impl)));
}

Status ApiServer::bind() {
  if (impl_->ctx.options.port == 0) {
    impl_->port = impl_->svr.bind_to_any_port(impl_->ctx.options.host);
    if (impl_->port <= 0) return Status(ErrorCode::kUnavailable, "cannot listen on " + impl_->ctx.options.host);
  } else {
    if (!impl_->svr.bind_to_port(impl_->ctx.options.host, impl_->ctx.options.port))
      return Status(ErrorCode::kUnavailable, "cannot listen on " + impl_->ctx.options.host + ":" +
                                                 std::to_string(impl_->ctx.options.port) + " (in use?)");
    impl_->port = impl_->ctx.options.port;
  }
  // httplib listens with a queue of 5; a second listen() on the bound socket deepens it.
  if (impl_->listen_fd >= 0) ::listen(impl_->listen_fd, kListenBacklog);
  return Status::ok();
}

Status ApiServer::listen() {
  if (impl_->port == 0) BIOAGENT_RETURN_IF_ERROR(bind());
  if (!impl_->svr.listen_after_bind()) return internal_error("the server stopped with an error");
  return Status::ok();
}

void ApiServer::stop() {
  if (impl_) impl_->svr.stop();
}

int ApiServer::port() const { return impl_->port; }

}  // namespace bioagent
