// The params of each MCP request a host may send, as the specification types
// them (2025-11-25 and 2026-07-28 schemas). A request is checked against its row before any
// handler reads it, so a field of the wrong type is "Invalid params" naming the
// field, never an exception inside a handler. Hosts add fields of their own
// (_meta and newer ones): unknown properties are allowed.
#include <map>
#include <string>

#include "bioagent/schema.h"
#include "mcp/mcp_internal.h"

namespace bioagent::mcp {
namespace {

// Shapes shared by several requests.
constexpr const char* kMeta = R"("_meta": {"type": "object", "properties": {
    "progressToken": {"type": ["string", "number"]}}})";
constexpr const char* kCursor = R"("cursor": {"type": "string"})";

std::string object_of(const std::string& properties, const std::string& required = "") {
  return R"({"type": "object", "properties": {)" + properties + (properties.empty() ? "" : ", ") + kMeta + "}" +
         (required.empty() ? "" : R"(, "required": [)" + required + "]") + "}";
}

const std::map<std::string, Json>& schemas() {
  static const std::map<std::string, Json> table = [] {
    const std::string paged = object_of(kCursor);
    const std::string uri = object_of(R"("uri": {"type": "string"})", R"("uri")");
    const std::string task_id = object_of(R"("taskId": {"type": "string"})", R"("taskId")");
    // A 2026-07-28 round's answers (multi round-trip requests).
    const std::string round = R"("inputResponses": {"type": "object"}, "requestState": {"type": "string"})";
    const std::pair<const char*, std::string> rows[] = {
        {"initialize", object_of(R"("protocolVersion": {"type": "string"}, "capabilities": {"type": "object"},
            "clientInfo": {"type": "object", "properties": {"name": {"type": "string"},
                                                           "version": {"type": "string"}}})")},
        {"ping", object_of("")},
        {"tools/list", paged},
        {"server/discover", object_of("")},
        {"tools/call", object_of(R"("name": {"type": "string"}, "arguments": {"type": "object"},
            "task": {"type": "object", "properties": {"ttl": {"type": ["number", "null"]}}}, )" +
                                     round,
                                 R"("name")")},
        {"logging/setLevel", object_of(R"("level": {"type": "string"})", R"("level")")},
        {"prompts/list", paged},
        {"prompts/get", object_of(R"("name": {"type": "string"},
            "arguments": {"type": "object", "additionalProperties": {"type": "string"}}, )" +
                                      round,
                                  R"("name")")},
        {"completion/complete", object_of(R"(
            "ref": {"type": "object", "required": ["type"], "properties": {"type": {"type": "string"},
                    "name": {"type": "string"}, "uri": {"type": "string"}}},
            "argument": {"type": "object", "required": ["name", "value"], "properties": {
                    "name": {"type": "string"}, "value": {"type": "string"}}},
            "context": {"type": "object", "properties": {"arguments": {"type": "object",
                    "additionalProperties": {"type": "string"}}}})",
                                          R"("ref", "argument")")},
        {"resources/list", paged},
        {"resources/templates/list", paged},
        {"resources/read", object_of(R"("uri": {"type": "string"}, )" + round, R"("uri")")},
        {"resources/subscribe", uri},
        {"resources/unsubscribe", uri},
        {"tasks/list", paged},
        {"tasks/get", task_id},
        {"tasks/result", task_id},
        {"tasks/cancel", task_id},
        {"tasks/update", object_of(R"("taskId": {"type": "string"}, "inputResponses": {"type": "object"})",
                                   R"("taskId", "inputResponses")")}};
    std::map<std::string, Json> out;
    for (auto& [method, schema] : rows) out[method] = Json::parse(schema);
    return out;
  }();
  return table;
}

}  // namespace

Status check_request_params(const std::string& method, const Json& params) {
  auto it = schemas().find(method);
  if (it == schemas().end()) return Status::ok();  // unknown methods are answered "Method not found"
  Status s = validate(it->second, params, "params");
  if (s.is_ok()) return s;
  return invalid_argument("Invalid params: " + s.message());
}

}  // namespace bioagent::mcp
