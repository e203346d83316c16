// The tool registry over HTTP: GET /api/tools (as JSON, OpenAI functions or MCP
// tools) and POST /api/tools[/{name}] (call a tool, with a session's files when
// X-Session-Id names one). MCP over Streamable HTTP at /mcp is in mcp_routes.cpp.
#include <algorithm>

#include "server/server_internal.h"

namespace bioagent::server {

// The folders a tool called for session `sid` reads: the data folders named at
// start plus that session's own files; without a session the data folders only.
Result<Workspace> workspace_for(const Context* c, const std::string& sid) {
  if (sid.empty() || !c->assistant) return *c->workspace;
  // The session's files sit in its data folder, beside the staging folder of its uploads.
  auto staging = c->assistant->upload_staging_dir(sid);  // not_found for an unknown session
  if (!staging) return staging.status();
  return c->workspace->for_session(staging->parent_path() / "data");
}

namespace {

bool is_tool_name(const std::string& name) {
  return !name.empty() && name.size() <= 200 && std::all_of(name.begin(), name.end(), [](char ch) {
    return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '.' || ch == '-';
  });
}

}  // namespace

void add_tool_and_mcp_routes(Context& ctx) {
  Context* c = &ctx;
  using Req = const Request&;
  using Res = Response&;
  add_route(ctx, {"GET", "/api/tools", "the tool registry (format=json|openai|mcp)", nullptr},
            [c](Req req, Res res, const Json&) {
              std::string format = req.has_param("format") ? req.get_param_value("format") : "json";
              if (format != "json" && format != "openai" && format != "mcp")
                return reply_error(
                    res,
                    Status(ErrorCode::kInvalidArgument, "format must be json, openai or mcp").with("field", "format"));
              Json tools = Json::array();
              for (auto* s : c->registry->list())
                tools.push_back(format == "openai" ? c->registry->openai_function(*s)
                                : format == "mcp"  ? c->registry->mcp_tool(*s)
                                                   : c->registry->spec_json(*s));
              reply_json(res, {{"count", tools.size()}, {"tools", tools}});
            });
  // A call with X-Session-Id (or ?session_id=) reads that session's files too.
  auto call = [c](const Request& req, const std::string& name, const Json& args, Response& res) {
    if (!is_tool_name(name)) return reply_error(res, not_found("no such endpoint"));
    auto ws = workspace_for(c, session_of(req, Json()));
    if (!ws) return reply_error(res, ws.status());
    ToolContext tc(&*ws);
    tc.set_options(c->mcp.tool_options);
    tc.set_timeout(std::chrono::duration_cast<std::chrono::milliseconds>(c->mcp.tool_timeout));
    auto r = c->registry->call(name, args, tc);
    if (!r) return reply_error(res, r.status());
    reply_json(res, {{"status", "success"}, {"data", *r}});
  };
  add_route(ctx,
            {"POST",
             "/api/tools",
             "call a tool: {name, arguments} -> {status: success, data} or an error",
             {{"type", "object"},
              {"properties", {{"name", {{"type", "string"}, {"maxLength", 200}}}, {"arguments", {{"type", "object"}}}}},
              {"required", {"name"}},
              {"additionalProperties", false}}},
            [call](Req req, Res res, const Json& body) {
              call(req, body["name"], body.value("arguments", Json::object()), res);
            });
  add_route(ctx, {"POST", "/api/tools/{name}", "call a tool with the body as its arguments", {{"type", "object"}}},
            [call](Req req, Res res, const Json& body) { call(req, req.matches[1], body, res); });

  add_mcp_routes(ctx);
}

}  // namespace bioagent::server
