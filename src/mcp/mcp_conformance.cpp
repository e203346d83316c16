// The official MCP conformance suite's fixtures (tools, resources, prompts it
// names), offered only when McpOptions::conformance_fixtures is set (a
// test-only flag of `serve`), so that every applicable scenario can run
// against the real protocol code. Each returns what the suite's scenario text
// asks for.
#include <chrono>
#include <thread>

#include "bioagent/json_text.h"
#include "mcp/mcp_internal.h"

namespace bioagent::mcp {
namespace {

// A 1x1 PNG and a 8-sample 8 kHz WAV, made for these fixtures.
constexpr const char* kPng =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC";
constexpr const char* kWav = "UklGRiwAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQgAAACAgICAgICAgA==";

Json no_args() { return {{"type", "object"}, {"properties", Json::object()}}; }

Json text(const std::string& t) { return {{"type", "text"}, {"text", t}}; }

Json schema_2020_12() {
  return {{"$schema", "https://json-schema.org/draft/2020-12/schema"},
          {"type", "object"},
          {"$defs",
           {{"address",
             {{"$anchor", "addressDef"},
              {"type", "object"},
              {"properties", {{"street", {{"type", "string"}}}, {"city", {{"type", "string"}}}}}}}}},
          {"properties",
           {{"name", {{"type", "string"}}},
            {"address", {{"$ref", "#/$defs/address"}}},
            {"contactMethod", {{"type", "string"}, {"enum", {"phone", "email"}}}},
            {"phone", {{"type", "string"}}},
            {"email", {{"type", "string"}}}}},
          {"allOf", {{{"anyOf", {{{"required", {"phone"}}}, {{"required", {"email"}}}}}}}},
          {"if", {{"properties", {{"contactMethod", {{"const", "phone"}}}}}, {"required", {"contactMethod"}}}},
          {"then", {{"required", {"phone"}}}},
          {"else", {{"required", {"email"}}}},
          {"additionalProperties", false}};
}

FixtureTool fixed(const char* name, Json result) {
  return fixture_tool(name, std::string("Conformance fixture ") + name, no_args(),
                      [result](const Json&, ToolContext&) -> Result<Json> { return result; });
}

Result<Json> with_logging(const Json&, ToolContext& ctx) {
  using namespace std::chrono_literals;
  ctx.log(LogLevel::kInfo, "Tool execution started");
  std::this_thread::sleep_for(50ms);
  ctx.log(LogLevel::kInfo, "Tool processing data");
  std::this_thread::sleep_for(50ms);
  ctx.log(LogLevel::kInfo, "Tool execution completed");
  return Json{{"content", {text("Tool with logging executed successfully")}}};
}

Result<Json> with_progress(const Json&, ToolContext& ctx) {
  using namespace std::chrono_literals;
  for (int p : {0, 50, 100}) {
    ctx.progress(p, 100, "");
    if (p < 100) std::this_thread::sleep_for(50ms);
  }
  return Json{{"content", {text("Tool with progress executed successfully")}}};
}

}  // namespace

std::vector<FixtureTool> content_fixture_tools() {
  std::vector<FixtureTool> out;
  out.push_back(fixed("test_simple_text", {{"content", {text("This is a simple text response for testing.")}}}));
  out.push_back(
      fixed("test_image_content", {{"content", {{{"type", "image"}, {"data", kPng}, {"mimeType", "image/png"}}}}}));
  out.push_back(
      fixed("test_audio_content", {{"content", {{{"type", "audio"}, {"data", kWav}, {"mimeType", "audio/wav"}}}}}));
  out.push_back(fixed("test_embedded_resource", {{"content",
                                                  {{{"type", "resource"},
                                                    {"resource",
                                                     {{"uri", "test://embedded-resource"},
                                                      {"mimeType", "text/plain"},
                                                      {"text", "This is an embedded resource content."}}}}}}}));
  out.push_back(fixed("test_multiple_content_types", {{"content",
                                                       {text("Multiple content types test:"),
                                                        {{"type", "image"}, {"data", kPng}, {"mimeType", "image/png"}},
                                                        {{"type", "resource"},
                                                         {"resource",
                                                          {{"uri", "test://mixed-content-resource"},
                                                           {"mimeType", "application/json"},
                                                           {"text", R"({"test":"data","value":123})"}}}}}}}));
  out.push_back(fixed("test_tool_with_logging", {}));
  out.back().call = with_logging;
  out.push_back(
      fixed("test_error_handling",
            {{"content", {text("This tool intentionally returns an error for testing")}}, {"isError", true}}));
  out.push_back(fixed("test_tool_with_progress", {}));
  out.back().call = with_progress;
  out.push_back(fixed("json_schema_2020_12_tool", {{"content", {text("JSON Schema 2020-12 tool called")}}}));
  out.back().definition["description"] = "Tool with JSON Schema 2020-12 features";
  out.back().definition["inputSchema"] = schema_2020_12();
  return out;
}

const std::vector<FixtureTool>& fixture_tool_table() {
  static const std::vector<FixtureTool> table = [] {
    std::vector<FixtureTool> all = content_fixture_tools();
    for (auto* more : {&client_fixture_tools, &task_fixture_tools})
      for (auto& t : more()) all.push_back(std::move(t));
    return all;
  }();
  return table;
}

const FixtureTool* find_fixture_tool(const std::string& name) {
  for (auto& t : fixture_tool_table())
    if (t.definition["name"] == name) return &t;
  return nullptr;
}

Json fixture_tools() {
  Json out = Json::array();
  for (auto& t : fixture_tool_table()) out.push_back(t.definition);
  return out;
}

bool is_fixture_tool(const std::string& name) { return find_fixture_tool(name) != nullptr; }

Json fixture_resources() {
  return Json::array({{{"uri", "test://static-text"},
                       {"name", "static-text"},
                       {"description", "Conformance fixture: a static text resource"},
                       {"mimeType", "text/plain"}},
                      {{"uri", "test://static-binary"},
                       {"name", "static-binary"},
                       {"description", "Conformance fixture: a static binary resource (PNG)"},
                       {"mimeType", "image/png"}},
                      {{"uri", "test://watched-resource"},
                       {"name", "watched-resource"},
                       {"description", "Conformance fixture: a resource to subscribe to"},
                       {"mimeType", "text/plain"}}});
}

Json fixture_templates() {
  return Json::array({{{"uriTemplate", "test://template/{id}/data"},
                       {"name", "template-data"},
                       {"description", "Conformance fixture: data for an id"},
                       {"mimeType", "application/json"}}});
}

std::optional<Json> read_fixture(const std::string& uri) {
  if (uri == "test://static-text")
    return Json{{"uri", uri}, {"mimeType", "text/plain"}, {"text", "This is the content of the static text resource."}};
  if (uri == "test://static-binary") return Json{{"uri", uri}, {"mimeType", "image/png"}, {"blob", kPng}};
  if (uri == "test://watched-resource")
    return Json{{"uri", uri}, {"mimeType", "text/plain"}, {"text", "Watched resource content."}};
  const std::string pre = "test://template/", post = "/data";
  if (uri.rfind(pre, 0) == 0 && uri.size() > pre.size() + post.size() &&
      uri.compare(uri.size() - post.size(), post.size(), post) == 0) {
    std::string id = uri.substr(pre.size(), uri.size() - pre.size() - post.size());
    Json body = {{"id", id}, {"templateTest", true}, {"data", "Data for ID: " + id}};
    return Json{{"uri", uri}, {"mimeType", "application/json"}, {"text", json_text(body)}};
  }
  return std::nullopt;
}

Json fixture_prompts() {
  auto arg = [](const char* n, const char* d) { return Json{{"name", n}, {"description", d}, {"required", true}}; };
  return Json::array(
      {{{"name", "test_simple_prompt"}, {"description", "Conformance fixture: a simple prompt"}},
       {{"name", "test_prompt_with_arguments"},
        {"description", "Conformance fixture: a prompt with arguments"},
        {"arguments", {arg("arg1", "First test argument"), arg("arg2", "Second test argument")}}},
       {{"name", "test_prompt_with_embedded_resource"},
        {"description", "Conformance fixture: a prompt with an embedded resource"},
        {"arguments", {arg("resourceUri", "URI of the resource to embed")}}},
       {{"name", "test_prompt_with_image"}, {"description", "Conformance fixture: a prompt with an image"}},
       {{"name", "test_input_required_result_prompt"},
        {"description", "Conformance fixture: a prompt that asks the client for context first"}}});
}

bool is_fixture_prompt(const std::string& name) {
  for (auto& p : fixture_prompts())
    if (p["name"] == name) return true;
  return false;
}

namespace {

// Asks the client for context (an elicitation), then builds the prompt from it.
Result<Json> prompt_with_context(ClientChannel* channel) {
  if (!channel) return client_unsupported(ClientAsk::kElicitation);
  auto r = channel->ask(
      ClientAsk::kElicitation,
      {{"message", "Provide context for the prompt"},
       {"requestedSchema",
        {{"type", "object"}, {"properties", {{"context", {{"type", "string"}}}}}, {"required", {"context"}}}}},
      "user_context");
  if (!r) return r.status();
  std::string context = r->value("content", Json::object()).value("context", "(none)");
  return Json{
      {"messages", {{{"role", "user"}, {"content", {{"type", "text"}, {"text", "Prompt with context: " + context}}}}}}};
}

}  // namespace

Result<Json> get_fixture_prompt(const std::string& name, const Json& args, ClientChannel* channel) {
  auto user = [](Json content) { return Json{{"role", "user"}, {"content", std::move(content)}}; };
  auto arg = [&](const char* k) { return args.is_object() ? args.value(k, "") : std::string(); };
  if (name == "test_simple_prompt") return Json{{"messages", {user(text("This is a simple prompt for testing."))}}};
  if (name == "test_prompt_with_arguments")
    return Json{
        {"messages", {user(text("Prompt with arguments: arg1='" + arg("arg1") + "', arg2='" + arg("arg2") + "'"))}}};
  if (name == "test_prompt_with_embedded_resource")
    return Json{{"messages",
                 {user({{"type", "resource"},
                        {"resource",
                         {{"uri", arg("resourceUri")},
                          {"mimeType", "text/plain"},
                          {"text", "Embedded resource content for testing."}}}}),
                  user(text("Please process the embedded resource above."))}}};
  if (name == "test_prompt_with_image")
    return Json{{"messages",
                 {user({{"type", "image"}, {"data", kPng}, {"mimeType", "image/png"}}),
                  user(text("Please analyze the image above."))}}};
  if (name == "test_input_required_result_prompt") return prompt_with_context(channel);
  return not_found("no fixture prompt named " + name);
}

}  // namespace bioagent::mcp
