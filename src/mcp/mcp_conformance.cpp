// The official MCP conformance suite's fixtures (tools, resources, prompts it
// names), offered only when McpOptions::conformance_fixtures is set (a
// test-only flag of `serve`), so that every applicable scenario can run
// against the real protocol code. Each returns what the suite's scenario text
// asks for.
#include <chrono>
#include <thread>

#include "mcp/mcp_internal.h"

namespace bioagent::mcp {
namespace {

// A 1x1 PNG and a 8-sample 8 kHz WAV, made for these fixtures.
constexpr const char* kPng =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC";
constexpr const char* kWav = "UklGRiwAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQgAAACAgICAgICAgA==";

Json no_args() { return {{"type", "object"}, {"properties", Json::object()}}; }

Json text(const std::string& t) { return {{"type", "text"}, {"text", t}}; }

}  // namespace

Json fixture_tools() {
  Json out = Json::array();
  for (const char* name :
       {"test_simple_text", "test_image_content", "test_audio_content", "test_embedded_resource",
        "test_multiple_content_types", "test_tool_with_logging", "test_error_handling", "test_tool_with_progress"})
    out.push_back(
        {{"name", name}, {"description", std::string("Conformance fixture ") + name}, {"inputSchema", no_args()}});
  out.push_back(
      {{"name", "json_schema_2020_12_tool"},
       {"description", "Tool with JSON Schema 2020-12 features"},
       {"inputSchema",
        {{"$schema", "https://json-schema.org/draft/2020-12/schema"},
         {"type", "object"},
         {"$defs",
          {{"address",
            {{"type", "object"}, {"properties", {{"street", {{"type", "string"}}}, {"city", {{"type", "string"}}}}}}}}},
         {"properties", {{"name", {{"type", "string"}}}, {"address", {{"$ref", "#/$defs/address"}}}}},
         {"additionalProperties", false}}}});
  return out;
}

bool is_fixture_tool(const std::string& name) {
  for (auto& t : fixture_tools())
    if (t["name"] == name) return true;
  return false;
}

Json call_fixture_tool(const std::string& name, const ToolContext::ProgressFn& progress, const FixtureLog& log) {
  using namespace std::chrono_literals;
  if (name == "test_simple_text") return {{"content", {text("This is a simple text response for testing.")}}};
  if (name == "test_image_content")
    return {{"content", {{{"type", "image"}, {"data", kPng}, {"mimeType", "image/png"}}}}};
  if (name == "test_audio_content")
    return {{"content", {{{"type", "audio"}, {"data", kWav}, {"mimeType", "audio/wav"}}}}};
  if (name == "test_embedded_resource")
    return {{"content",
             {{{"type", "resource"},
               {"resource",
                {{"uri", "test://embedded-resource"},
                 {"mimeType", "text/plain"},
                 {"text", "This is an embedded resource content."}}}}}}};
  if (name == "test_multiple_content_types")
    return {{"content",
             {text("Multiple content types test:"),
              {{"type", "image"}, {"data", kPng}, {"mimeType", "image/png"}},
              {{"type", "resource"},
               {"resource",
                {{"uri", "test://mixed-content-resource"},
                 {"mimeType", "application/json"},
                 {"text", R"({"test":"data","value":123})"}}}}}}};
  if (name == "test_tool_with_logging") {
    log("info", "Tool execution started");
    std::this_thread::sleep_for(50ms);
    log("info", "Tool processing data");
    std::this_thread::sleep_for(50ms);
    log("info", "Tool execution completed");
    return {{"content", {text("Tool with logging executed successfully")}}};
  }
  if (name == "test_error_handling")
    return {{"content", {text("This tool intentionally returns an error for testing")}}, {"isError", true}};
  if (name == "test_tool_with_progress") {
    for (int p : {0, 50, 100}) {
      if (progress) progress(p, 100, "");
      if (p < 100) std::this_thread::sleep_for(50ms);
    }
    return {{"content", {text("Tool with progress executed successfully")}}};
  }
  if (name == "json_schema_2020_12_tool") return {{"content", {text("JSON Schema 2020-12 tool called")}}};
  return {{"content", {text("no fixture tool named " + name)}}, {"isError", true}};
}

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
    return Json{{"uri", uri}, {"mimeType", "application/json"}, {"text", body.dump()}};
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
       {{"name", "test_prompt_with_image"}, {"description", "Conformance fixture: a prompt with an image"}}});
}

std::optional<Json> get_fixture_prompt(const std::string& name, const Json& args) {
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
  return std::nullopt;
}

}  // namespace bioagent::mcp
