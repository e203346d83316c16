// The HTTP server: httplib set-up, authentication, the exception firewall,
// JSON helpers, /healthz, the OpenAPI document and the web UI's static files.
#include <arpa/inet.h>

#include <atomic>
#include <fstream>

#include "bioagent/json_text.h"
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

bool parse_body(const httplib::Request& req, httplib::Response& res, Json& out) {
  out = Json::parse(req.body, nullptr, false);
  if (req.body.empty()) out = Json::object();
  if (out.is_discarded() || !out.is_object()) {
    reply_error(res, parse_error("the request body must be a JSON object"));
    return false;
  }
  return true;
}

std::string session_of(const httplib::Request& req, const Json& body) {
  if (req.has_header("X-Session-Id")) return req.get_header_value("X-Session-Id");
  if (body.is_object() && body.contains("session_id") && body["session_id"].is_string()) return body["session_id"];
  return req.has_param("session_id") ? req.get_param_value("session_id") : "";
}

bool body_string(const Json& body, const char* field, httplib::Response& res, std::string& out, bool required) {
  if (!body.contains(field) || body[field].is_null()) {
    if (!required) return true;
    reply_error(res, Status(ErrorCode::kInvalidArgument, std::string("missing required field '") + field + "'")
                         .with("field", field));
    return false;
  }
  if (!body[field].is_string()) {
    reply_error(res, Status(ErrorCode::kInvalidArgument, std::string("field '") + field + "' must be a string")
                         .with("field", field));
    return false;
  }
  out = body[field];
  return true;
}

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
  int port = 0;
};

ApiServer::ApiServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ApiServer::~ApiServer() { stop(); }

namespace {

bool token_ok(const std::string& given, const std::string& want) {
  // Constant time in the token's length.
  if (given.size() != want.size()) return false;
  unsigned char d = 0;
  for (size_t i = 0; i < want.size(); ++i) d |= static_cast<unsigned char>(given[i] ^ want[i]);
  return d == 0;
}

std::string mime_of(const fs::path& p) {
  static const std::map<std::string, std::string> m = {{".html", "text/html; charset=utf-8"},
                                                       {".js", "text/javascript"},
                                                       {".css", "text/css"},
                                                       {".svg", "image/svg+xml"},
                                                       {".png", "image/png"},
                                                       {".json", "application/json"},
                                                       {".ico", "image/x-icon"},
                                                       {".woff2", "font/woff2"}};
  auto it = m.find(p.extension().string());
  return it == m.end() ? "application/octet-stream" : it->second;
}

}  // namespace

Result<std::unique_ptr<ApiServer>> ApiServer::create(Assistant& assistant, const ToolRegistry& registry,
                                                     const Workspace& workspace, McpOptions mcp,
                                                     ApiServerOptions options) {
  if (!is_loopback_host(options.host) && options.token.empty())
    return invalid_argument("listening on " + options.host +
                            " (beyond loopback) needs a bearer token: --token or BIOAGENT_API_TOKEN");
  auto impl = std::make_unique<Impl>();
  impl->ctx = {&assistant, &registry, &workspace, std::move(mcp), options, {}};
  auto& svr = impl->svr;
  int threads = std::max(4, options.threads);
  svr.new_task_queue = [threads] { return new httplib::ThreadPool(size_t(threads)); };
  svr.set_payload_max_length(options.max_upload_bytes + (1u << 20));
  svr.set_read_timeout(60, 0);
  svr.set_keep_alive_max_count(100);
  // Exception firewall: a handler that throws answers 500 with a JSON body.
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
  // httplib's own refusals (no Content-Length, body too large, bad request line) get a JSON body too.
  svr.set_error_handler([](const httplib::Request&, httplib::Response& res) {
    if (!res.body.empty()) return;
    std::string m = res.status == 413   ? "the request body is larger than the server accepts"
                    : res.status == 404 ? "no such endpoint"
                    : res.status == 400 ? "malformed request (a POST needs a Content-Length, even 0)"
                                        : "request refused";
    ErrorCode code = res.status == 413   ? ErrorCode::kResourceExhausted
                     : res.status == 404 ? ErrorCode::kNotFound
                     : res.status < 500  ? ErrorCode::kInvalidArgument
                                         : ErrorCode::kInternal;
    int status = res.status;
    server::reply_json(res, error_envelope(Status(code, m)), status);
  });
  std::string token = options.token;
  svr.set_pre_routing_handler([token](const httplib::Request& req, httplib::Response& res) {
    bool guarded = req.path.rfind("/api/", 0) == 0 || req.path == "/mcp";
    if (!guarded || token.empty()) return httplib::Server::HandlerResponse::Unhandled;
    std::string h = req.get_header_value("Authorization");
    std::string given = h.rfind("Bearer ", 0) == 0 ? h.substr(7) : req.get_param_value("access_token");
    if (token_ok(given, token)) return httplib::Server::HandlerResponse::Unhandled;
    res.set_header("WWW-Authenticate", "Bearer");
    server::reply_json(res, error_envelope(permission_denied("missing or wrong bearer token")), 401);
    return httplib::Server::HandlerResponse::Handled;
  });
  auto* ctx = &impl->ctx;
  svr.Get("/healthz", [ctx](const httplib::Request&, httplib::Response& res) {
    server::reply_json(res, {{"status", "ok"}, {"version", kVersion}, {"tools", ctx->registry->size()}});
  });
  server::add_agent_routes(svr, impl->ctx);
  server::add_tool_and_mcp_routes(svr, impl->ctx);
  impl->ctx.docs.push_back({"GET", "/api/openapi.json", "this document", nullptr});
  impl->ctx.docs.push_back({"GET", "/healthz", "liveness: version and tool count", nullptr});
  svr.Get("/api/openapi.json", [ctx](const httplib::Request&, httplib::Response& res) {
    server::reply_json(res, server::openapi_document(*ctx));
  });
  // The web UI: built assets when present, else a one-page pointer to the API.
  fs::path web = options.web_dir;
  svr.Get(R"(/(.*))", [web](const httplib::Request& req, httplib::Response& res) {
    std::string rel = req.matches[1];
    if (rel.empty()) rel = "index.html";
    std::error_code ec;
    if (!web.empty() && rel.find("..") == std::string::npos && fs::is_regular_file(web / rel, ec)) {
      std::ifstream in(web / rel, std::ios::binary);
      res.set_content(std::string(std::istreambuf_iterator<char>(in), {}), mime_of(web / rel));
      return;
    }
    if (rel == "index.html") {
      res.set_content(
          "<!doctype html><meta charset=utf-8><title>bioagent</title><h1>bioagent</h1><p>The API is at "
          "<a href=/api/openapi.json>/api/openapi.json</a>; the web UI is not built "
          "(scripts/build-web.sh).</p>",
          "text/html; charset=utf-8");
      return;
    }
    server::reply_error(res, not_found("no such page: /" + rel.substr(0, 200)));
  });
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
