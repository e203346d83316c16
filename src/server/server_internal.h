// Inside src/server: the httplib types, JSON replies and errors, the route
// table that the OpenAPI document is generated from.
#pragma once

#include <httplib.h>

#include <functional>
#include <string>
#include <vector>

#include "bioagent/api_server.h"
#include "bioagent/assistant.h"
#include "bioagent/registry.h"
#include "bioagent/workspace.h"

namespace bioagent::server {

// One documented route (the OpenAPI document lists these).
struct RouteDoc {
  std::string method, path, summary;
  Json request_schema;  // null: no JSON body
};

struct Context {
  Assistant* assistant;
  const ToolRegistry* registry;
  const Workspace* workspace;
  McpOptions mcp;
  ApiServerOptions options;
  std::vector<RouteDoc> docs;
};

// HTTP status for an error code (400 bad input, 404, 403, 413, 503, 500).
int http_status_for(ErrorCode code);
void reply_json(httplib::Response& res, const Json& body, int status = 200);
void reply_error(httplib::Response& res, const Status& s);
// The request's JSON object body, or a 400 reply (returns false).
bool parse_body(const httplib::Request& req, httplib::Response& res, Json& out);
// The session id from the X-Session-Id header, the body, or the query.
std::string session_of(const httplib::Request& req, const Json& body);
// A string field of the body; missing or wrong type -> 400 naming the field.
bool body_string(const Json& body, const char* field, httplib::Response& res, std::string& out, bool required = true);

void add_agent_routes(httplib::Server& svr, Context& ctx);
void add_tool_and_mcp_routes(httplib::Server& svr, Context& ctx);
Json openapi_document(const Context& ctx);

}  // namespace bioagent::server
