// The conformance suite's fixture tools that ask the client (test-only, see
// mcp_conformance.cpp): sampling and elicitation as 2025-11-25 sends them (a
// request on the call's stream) and the multi round-trip tools of 2026-07-28
// (test_input_required_result_*). All of them go through the one client
// channel of their ToolContext, so the same tool works in either revision.
#include "bioagent/json_text.h"
#include "mcp/mcp_internal.h"

namespace bioagent::mcp {
namespace {

Json text(const std::string& t) { return {{"type", "text"}, {"text", t}}; }
Json text_result(const std::string& t) { return {{"content", {text(t)}}}; }
Json no_args() { return {{"type", "object"}, {"properties", Json::object()}}; }

Json object_schema(Json properties, Json required = Json::array()) {
  return {{"type", "object"}, {"properties", std::move(properties)}, {"required", std::move(required)}};
}

Json user_text(const std::string& t) { return {{"role", "user"}, {"content", text(t)}}; }

Json sampling_params(const std::string& prompt, int max_tokens) {
  return {{"messages", {user_text(prompt)}}, {"maxTokens", max_tokens}};
}

Json form(const std::string& message, Json schema) {
  return {{"message", message}, {"requestedSchema", std::move(schema)}};
}

// The text of a CreateMessageResult (one content block or an array of them).
std::string sampled_text(const Json& r) {
  const Json c = r.value("content", Json());
  for (const Json& block : c.is_array() ? c : Json::array({c}))
    if (block.is_object() && block.value("type", "") == "text") return block.value("text", "");
  return "";
}

FixtureTool tool(const char* name, const char* description, Json schema,
                 std::function<Result<Json>(const Json&, ToolContext&)> call) {
  return fixture_tool(name, description, std::move(schema), std::move(call));
}

// ---- 2025-11-25: requests on the call's stream ---------------------------------

Result<Json> sampling_tool(const Json& args, ToolContext& ctx) {
  auto r = ask_client(ctx, ClientAsk::kSampling, sampling_params(args.value("prompt", ""), 100));
  if (!r && (is_input_required(r.status()) || r.status().code() == ErrorCode::kUnsupported)) return r.status();
  if (!r) return text_result("Sampling failed: " + r.status().message());
  return text_result("LLM response: " + sampled_text(*r));
}

Result<Json> elicit_and_echo(ToolContext& ctx, const Json& params, const std::string& prefix) {
  auto r = ask_client(ctx, ClientAsk::kElicitation, params);
  if (!r && (is_input_required(r.status()) || r.status().code() == ErrorCode::kUnsupported)) return r.status();
  if (!r) return text_result("Elicitation failed: " + r.status().message());
  return text_result(prefix + ": action=" + r->value("action", "") +
                     ", content=" + json_text(r->value("content", Json::object())));
}

Json defaults_schema() {
  return object_schema(
      {{"name", {{"type", "string"}, {"description", "User name"}, {"default", "John Doe"}}},
       {"age", {{"type", "integer"}, {"description", "User age"}, {"default", 30}}},
       {"score", {{"type", "number"}, {"description", "User score"}, {"default", 95.5}}},
       {"status",
        {{"type", "string"},
         {"description", "User status"},
         {"enum", {"active", "inactive", "pending"}},
         {"default", "active"}}},
       {"verified", {{"type", "boolean"}, {"description", "Verification status"}, {"default", true}}}});
}

Json titled(const char* a, const char* ta, const char* b, const char* tb, const char* c, const char* tc) {
  return Json::array({{{"const", a}, {"title", ta}}, {{"const", b}, {"title", tb}}, {{"const", c}, {"title", tc}}});
}

Json enums_schema() {
  return object_schema(
      {{"untitledSingle",
        {{"type", "string"}, {"description", "Select one option"}, {"enum", {"option1", "option2", "option3"}}}},
       {"titledSingle",
        {{"type", "string"},
         {"description", "Select one option with titles"},
         {"oneOf", titled("value1", "First Option", "value2", "Second Option", "value3", "Third Option")}}},
       {"legacyEnum",
        {{"type", "string"},
         {"description", "Select one option (legacy)"},
         {"enum", {"opt1", "opt2", "opt3"}},
         {"enumNames", {"Option One", "Option Two", "Option Three"}}}},
       {"untitledMulti",
        {{"type", "array"},
         {"description", "Select multiple options"},
         {"minItems", 1},
         {"maxItems", 3},
         {"items", {{"type", "string"}, {"enum", {"option1", "option2", "option3"}}}}}},
       {"titledMulti",
        {{"type", "array"},
         {"description", "Select multiple options with titles"},
         {"minItems", 1},
         {"maxItems", 3},
         {"items",
          {{"anyOf", titled("value1", "First Choice", "value2", "Second Choice", "value3", "Third Choice")}}}}}});
}

void add_stream_tools(std::vector<FixtureTool>& out) {
  out.push_back(tool(
      "test_sampling", "Asks the client's model (sampling/createMessage) and returns its answer",
      object_schema({{"prompt", {{"type", "string"}, {"description", "The prompt to send to the LLM"}}}}, {"prompt"}),
      sampling_tool));
  out.push_back(
      tool("test_elicitation", "Asks the client's user for information (elicitation/create)",
           object_schema({{"message", {{"type", "string"}}}}, {"message"}), [](const Json& args, ToolContext& ctx) {
             return elicit_and_echo(
                 ctx,
                 form(args.value("message", ""),
                      object_schema({{"username", {{"type", "string"}, {"description", "User's response"}}},
                                     {"email", {{"type", "string"}, {"description", "User's email address"}}}},
                                    {"username", "email"})),
                 "User response");
           }));
  out.push_back(tool("test_elicitation_sep1034_defaults", "An elicitation whose fields have defaults (SEP-1034)",
                     no_args(), [](const Json&, ToolContext& ctx) {
                       return elicit_and_echo(
                           ctx, form("Please review and update the form fields with defaults", defaults_schema()),
                           "Elicitation completed");
                     }));
  out.push_back(tool("test_elicitation_sep1330_enums", "An elicitation with every enum form (SEP-1330)", no_args(),
                     [](const Json&, ToolContext& ctx) {
                       return elicit_and_echo(ctx, form("Please select options from the enum fields", enums_schema()),
                                              "Elicitation completed");
                     }));
  out.push_back(tool("test_missing_capability", "Needs the client's sampling capability (fails without it)", no_args(),
                     [](const Json&, ToolContext& ctx) {
                       auto r = ask_client(ctx, ClientAsk::kSampling, sampling_params("Say hello", 20));
                       if (!r) return Result<Json>(r.status());
                       return Result<Json>(text_result("The client's model said: " + sampled_text(*r)));
                     }));
  out.push_back(tool("test_streaming_elicitation", "Reports progress, then asks the client's user a question",
                     no_args(), [](const Json&, ToolContext& ctx) {
                       ctx.progress(0, 1, "asking the user");
                       return elicit_and_echo(ctx, form("Continue?", object_schema({{"ok", {{"type", "boolean"}}}})),
                                              "Elicitation completed");
                     }));
}

// ---- 2026-07-28: multi round-trip requests -------------------------------------

Json name_form(const std::string& message, const char* field) {
  return form(message, object_schema({{field, {{"type", "string"}}}}, {field}));
}

Json confirm_form(const std::string& message) {
  return form(message, object_schema({{"ok", {{"type", "boolean"}}}}, {"ok"}));
}

std::string accepted(const Json& answer, const char* field) {
  if (answer.value("action", "") != "accept") return "(" + answer.value("action", std::string("no answer")) + ")";
  const Json content = answer.value("content", Json::object());
  return content.contains(field)
             ? (content[field].is_string() ? content[field].get<std::string>() : json_text(content[field]))
             : "(none)";
}

Result<Json> ask_one(ToolContext& ctx, ClientAsk ask, Json params, const char* key,
                     const std::function<std::string(const Json&)>& done) {
  auto r = ask_client(ctx, ask, std::move(params), key);
  if (!r) return r.status();
  return text_result(done(*r));
}

Result<Json> multiple_inputs(ToolContext& ctx) {
  if (!ctx.client()) return client_unsupported(ClientAsk::kElicitation);
  auto answers = ctx.client()->ask_all({{ClientAsk::kElicitation, name_form("What is your name?", "name"), "user_name"},
                                        {ClientAsk::kSampling, sampling_params("Generate a greeting", 50), "greeting"},
                                        {ClientAsk::kRoots, Json::object(), "client_roots"}});
  for (auto& a : answers)
    if (!a) return a.status();
  return text_result("Name: " + accepted(*answers[0], "name") + "; greeting: " + sampled_text(*answers[1]) +
                     "; roots: " + std::to_string(answers[2]->value("roots", Json::array()).size()));
}

Result<Json> multi_round(ToolContext& ctx) {
  auto first = ask_client(ctx, ClientAsk::kElicitation, name_form("Step 1: What is your name?", "name"), "step1");
  if (!first) return first.status();
  auto second =
      ask_client(ctx, ClientAsk::kElicitation, name_form("Step 2: What is your favorite color?", "color"), "step2");
  if (!second) return second.status();
  return text_result("Multi-round complete for " + accepted(*first, "name") + " who likes " +
                     accepted(*second, "color"));
}

// Asks what the client can answer: elicitation and sampling, each only when declared.
Result<Json> capabilities_tool(ToolContext& ctx) {
  if (!ctx.client()) return text_result("No client to ask");
  auto answers = ctx.client()->ask_all(
      {{ClientAsk::kElicitation, name_form("What is your name?", "name"), "user_name"},
       {ClientAsk::kSampling, sampling_params("What is the capital of France?", 100), "sample_request"}});
  std::string said;
  for (auto& a : answers) {
    if (!a && a.status().code() == ErrorCode::kUnsupported) continue;
    if (!a) return a.status();
    said += (said.empty() ? "" : "; ") + (a->contains("action") ? accepted(*a, "name") : sampled_text(*a));
  }
  return text_result(said.empty() ? "The client declared neither elicitation nor sampling" : "Answers: " + said);
}

FixtureTool mrtr(const char* suffix, std::function<Result<Json>(ToolContext&)> call) {
  std::string name = std::string("test_input_required_result_") + suffix;
  return fixture_tool(name, "Conformance fixture " + name, no_args(),
                      [call](const Json&, ToolContext& ctx) { return call(ctx); });
}

void add_round_trip_tools(std::vector<FixtureTool>& out) {
  out.push_back(mrtr("elicitation", [](ToolContext& ctx) {
    return ask_one(ctx, ClientAsk::kElicitation, name_form("What is your name?", "name"), "user_name",
                   [](const Json& a) { return "Hello, " + accepted(a, "name") + "!"; });
  }));
  out.push_back(mrtr("sampling", [](ToolContext& ctx) {
    return ask_one(ctx, ClientAsk::kSampling, sampling_params("What is the capital of France?", 100), "sample_request",
                   [](const Json& a) { return "Sampling result: " + sampled_text(a); });
  }));
  out.push_back(mrtr("list_roots", [](ToolContext& ctx) {
    return ask_one(ctx, ClientAsk::kRoots, Json::object(), "roots_request", [](const Json& a) {
      return "Found " + std::to_string(a.value("roots", Json::array()).size()) + " root(s)";
    });
  }));
  out.push_back(mrtr("request_state", [](ToolContext& ctx) {
    return ask_one(ctx, ClientAsk::kElicitation, confirm_form("Please confirm"), "confirm",
                   [](const Json&) { return "state-ok: requestState validated"; });
  }));
  out.push_back(mrtr("multiple_inputs", multiple_inputs));
  out.push_back(mrtr("multi_round", multi_round));
  out.push_back(mrtr("tampered_state", [](ToolContext& ctx) {
    return ask_one(ctx, ClientAsk::kElicitation, confirm_form("Please confirm"), "confirm",
                   [](const Json&) { return "requestState verified"; });
  }));
  out.push_back(mrtr("capabilities", capabilities_tool));
}

}  // namespace

std::vector<FixtureTool> client_fixture_tools() {
  std::vector<FixtureTool> out;
  add_stream_tools(out);
  add_round_trip_tools(out);
  return out;
}

}  // namespace bioagent::mcp
