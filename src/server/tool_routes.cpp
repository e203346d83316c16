// The tool registry over HTTP (GET/POST /api/tools) and MCP over Streamable
// HTTP at /mcp: POST carries one JSON-RPC message, requests are answered with
// application/json, notifications with 202; sessions by Mcp-Session-Id.
#include <condition_variable>

#include "server/server_internal.h"

namespace bioagent::server {
namespace {

std::string new_session_id() {
  static std::mutex mu;
  static std::random_device rd;
  std::lock_guard lock(mu);
  std::string id;
  for (int i = 0; i < 4; ++i) {
    char buf[9];
    std::snprintf(buf, sizeof buf, "%08x", rd());
    id += buf;
  }
  return id;
}

// One MCP session: the transport-neutral McpSession plus the responses waited for by id.
struct McpHttpSession {
  std::mutex mu;  // serialises handle_message
  std::mutex rmu;
  std::condition_variable cv;
  std::map<std::string, std::string> responses;  // JSON-RPC id (dumped) -> message text
  std::unique_ptr<McpSession> session;
};

struct McpSessions {
  std::mutex mu;
  std::map<std::string, std::shared_ptr<McpHttpSession>> by_id;
};

}  // namespace

void add_tool_and_mcp_routes(httplib::Server& svr, Context& ctx) {
  Context* c = &ctx;
  ctx.docs.push_back({"GET", "/api/tools", "the tool registry (format=json|openai|mcp)", nullptr});
  svr.Get("/api/tools", [c](const httplib::Request& req, httplib::Response& res) {
    std::string format = req.has_param("format") ? req.get_param_value("format") : "json";
    if (format != "json" && format != "openai" && format != "mcp")
      return reply_error(
          res, Status(ErrorCode::kInvalidArgument, "format must be json, openai or mcp").with("field", "format"));
    Json tools = Json::array();
    for (auto* s : c->registry->list())
      tools.push_back(format == "openai" ? c->registry->openai_function(*s)
                      : format == "mcp"  ? c->registry->mcp_tool(*s)
                                         : c->registry->spec_json(*s));
    reply_json(res, {{"count", tools.size()}, {"tools", tools}});
  });
  ctx.docs.push_back({"POST",
                      "/api/tools",
                      "call a tool: {name, arguments} -> {status: success, data} or an error",
                      {{"type", "object"},
                       {"properties", {{"name", {{"type", "string"}}}, {"arguments", {{"type", "object"}}}}},
                       {"required", {"name"}}}});
  auto call = [c](const std::string& name, const Json& args, httplib::Response& res) {
    ToolContext tc(c->workspace);
    tc.set_options(c->mcp.tool_options);
    tc.set_timeout(std::chrono::duration_cast<std::chrono::milliseconds>(c->mcp.tool_timeout));
    auto r = c->registry->call(name, args, tc);
    if (!r) return reply_error(res, r.status());
    reply_json(res, {{"status", "success"}, {"data", *r}});
  };
  svr.Post("/api/tools", [call](const httplib::Request& req, httplib::Response& res) {
    Json body;
    std::string name;
    if (!parse_body(req, res, body) || !body_string(body, "name", res, name)) return;
    call(name, body.value("arguments", Json::object()), res);
  });
  ctx.docs.push_back({"POST", "/api/tools/{name}", "call a tool with the body as its arguments", nullptr});
  svr.Post(R"(/api/tools/([A-Za-z0-9_.-]+))", [call](const httplib::Request& req, httplib::Response& res) {
    Json body;
    if (!parse_body(req, res, body)) return;
    call(req.matches[1], body, res);
  });

  auto sessions = std::make_shared<McpSessions>();
  ctx.docs.push_back({"POST",
                      "/mcp",
                      "MCP over Streamable HTTP (JSON-RPC 2.0; Mcp-Session-Id after initialize)",
                      {{"type", "object"}}});
  svr.Post("/mcp", [c, sessions](const httplib::Request& req, httplib::Response& res) {
    Json msg = Json::parse(req.body, nullptr, false);
    auto rpc_error = [&](int http, int code, const std::string& m) {
      reply_json(res, {{"jsonrpc", "2.0"}, {"id", nullptr}, {"error", {{"code", code}, {"message", m}}}}, http);
    };
    if (msg.is_discarded() || !msg.is_object()) return rpc_error(400, -32700, "parse error: one JSON-RPC object");
    std::string method = msg.contains("method") && msg["method"].is_string() ? msg["method"].get<std::string>() : "";
    std::shared_ptr<McpHttpSession> s;
    std::string sid = req.get_header_value("Mcp-Session-Id");
    if (method == "initialize") {
      s = std::make_shared<McpHttpSession>();
      McpHttpSession* raw = s.get();
      s->session = std::make_unique<McpSession>(*c->registry, *c->workspace, c->mcp, [raw](const std::string& line) {
        Json m = Json::parse(line, nullptr, false);
        if (!m.is_object() || !m.contains("id") || m.contains("method")) return;  // notifications are dropped
        std::lock_guard lock(raw->rmu);
        raw->responses[m["id"].dump()] = line;
        raw->cv.notify_all();
      });
      sid = new_session_id();
      std::lock_guard lock(sessions->mu);
      sessions->by_id[sid] = s;
    } else {
      if (sid.empty()) return rpc_error(400, -32600, "missing Mcp-Session-Id header (initialize first)");
      std::lock_guard lock(sessions->mu);
      auto it = sessions->by_id.find(sid);
      if (it == sessions->by_id.end()) return rpc_error(404, -32001, "unknown or expired MCP session");
      s = it->second;
    }
    res.set_header("Mcp-Session-Id", sid);
    bool is_request = !method.empty() && msg.contains("id") && !msg["id"].is_null();
    {
      std::lock_guard lock(s->mu);
      s->session->handle_message(req.body);
    }
    if (!is_request) {
      res.status = 202;
      return;
    }
    std::string key = msg["id"].dump();
    std::unique_lock lock(s->rmu);
    bool ok = s->cv.wait_for(lock, c->mcp.tool_timeout + std::chrono::seconds(5),
                             [&] { return s->responses.count(key) > 0; });
    if (!ok) return rpc_error(504, -32000, "no answer within the tool time limit");
    std::string body = std::move(s->responses[key]);
    s->responses.erase(key);
    res.status = 200;
    res.set_content(body, "application/json");
  });
  svr.Get("/mcp", [](const httplib::Request&, httplib::Response& res) {
    res.status = 405;
    res.set_header("Allow", "POST, DELETE");
    res.set_content("", "text/plain");
  });
  svr.Delete("/mcp", [sessions](const httplib::Request& req, httplib::Response& res) {
    std::lock_guard lock(sessions->mu);
    res.status = sessions->by_id.erase(req.get_header_value("Mcp-Session-Id")) ? 200 : 404;
  });
}

}  // namespace bioagent::server
