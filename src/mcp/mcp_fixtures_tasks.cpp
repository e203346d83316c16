// The conformance suite's fixture tools for the tasks extension
// (io.modelcontextprotocol/tasks: greet, slow_compute, failing_job,
// protocol_error_job, confirm_delete, multi_input, test_tool_with_task), for
// the 2026-07-28 header and logging checks (test_custom_header,
// test_logging_tool) and for resuming a 2025-11-25 SSE stream
// (test_reconnection). Test-only, see mcp_conformance.cpp.
#include <chrono>
#include <thread>

#include "mcp/mcp_internal.h"

namespace bioagent::mcp {
namespace {

Json text_result(const std::string& t) { return {{"content", {{{"type", "text"}, {"text", t}}}}}; }
Json no_args() { return {{"type", "object"}, {"properties", Json::object()}}; }

Json object_schema(Json properties, Json required = Json::array()) {
  return {{"type", "object"}, {"properties", std::move(properties)}, {"required", std::move(required)}};
}

FixtureTool tool(const char* name, const char* description, Json schema, TaskSupport tasks,
                 std::function<Result<Json>(const Json&, ToolContext&)> call) {
  return fixture_tool(name, description, std::move(schema), std::move(call), tasks);
}

// Sleeps `seconds`, waking every 50 ms to honour cancellation.
Status sleep_for(double seconds, const ToolContext& ctx) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(int64_t(seconds * 1000));
  while (std::chrono::steady_clock::now() < until) {
    if (Status s = ctx.check(); !s) return s;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return Status::ok();
}

Json form(const std::string& message, Json schema) {
  return {{"message", message}, {"requestedSchema", std::move(schema)}};
}

bool accepted_true(const Json& answer, const char* field) {
  if (answer.value("action", "") != "accept") return false;
  const Json c = answer.value("content", Json::object());
  return c.contains(field) && c[field] == true;
}

Result<Json> slow_compute(const Json& args, ToolContext& ctx) {
  const double seconds = args.value("seconds", 0.0);
  if (Status s = sleep_for(std::min(seconds, 3600.0), ctx); !s) return s;
  return text_result("Computed '" + args.value("label", std::string("result")) + "' after " +
                     std::to_string(int(seconds)) + " s");
}

Result<Json> confirm_delete(const Json& args, ToolContext& ctx) {
  const std::string file = args.value("filename", std::string("the file"));
  auto r = ask_client(ctx, ClientAsk::kElicitation,
                      form("Delete " + file + "?", object_schema({{"confirm", {{"type", "boolean"}}}}, {"confirm"})),
                      "confirm");
  if (!r) return r.status();
  return text_result(accepted_true(*r, "confirm") ? "Deleted " + file : "Kept " + file);
}

Result<Json> multi_input(const Json&, ToolContext& ctx) {
  if (!ctx.client()) return client_unsupported(ClientAsk::kElicitation);
  auto answers = ctx.client()->ask_all(
      {{ClientAsk::kElicitation, form("Which environment?", object_schema({{"environment", {{"type", "string"}}}})),
        "environment"},
       {ClientAsk::kElicitation, form("Proceed?", object_schema({{"confirm", {{"type", "boolean"}}}})), "confirm"}});
  for (auto& a : answers)
    if (!a) return a.status();
  return text_result("Both answers arrived (" + answers[0]->value("action", "") + ", " +
                     answers[1]->value("action", "") + ")");
}

// test_tool_with_task: the name is asked before the task exists; the task then greets.
Result<Json> name_before_task(const Json& args, ClientChannel& channel) {
  auto r =
      channel.ask(ClientAsk::kElicitation,
                  form("What is your name?", object_schema({{"name", {{"type", "string"}}}}, {"name"})), "user_name");
  if (!r) return r.status();
  Json out = args.is_object() ? args : Json::object();
  out["name"] = r->value("content", Json::object()).value("name", std::string("(no name)"));
  return out;
}

void add_task_tools(std::vector<FixtureTool>& out) {
  out.push_back(tool("greet", "Greets by name (never a task)",
                     object_schema({{"name", {{"type", "string"}}}}, {"name"}), TaskSupport::kNever,
                     [](const Json& args, ToolContext&) -> Result<Json> {
                       return text_result("Hello, " + args.value("name", std::string("there")) + "!");
                     }));
  out.push_back(tool("slow_compute", "Sleeps for the given seconds (a task when the client takes tasks)",
                     object_schema({{"seconds", {{"type", "number"}}}, {"label", {{"type", "string"}}}}),
                     TaskSupport::kOptional, slow_compute));
  out.push_back(tool("failing_job", "A task whose tool reports an error after a second", no_args(),
                     TaskSupport::kRequired, [](const Json&, ToolContext& ctx) -> Result<Json> {
                       if (Status s = sleep_for(1.0, ctx); !s) return s;
                       Json r = text_result("the job failed: the input could not be processed");
                       r["isError"] = true;
                       return r;
                     }));
  out.push_back(tool("protocol_error_job", "A task that fails with a JSON-RPC error", no_args(), TaskSupport::kRequired,
                     [](const Json&, ToolContext& ctx) -> Result<Json> {
                       if (Status s = sleep_for(0.3, ctx); !s) return s;
                       return Status(ErrorCode::kInternal, "protocol_error_job failed with an internal error");
                     }));
  out.push_back(tool("confirm_delete", "Asks the client to confirm, then deletes (nothing, really)",
                     object_schema({{"filename", {{"type", "string"}}}}, {"filename"}), TaskSupport::kOptional,
                     confirm_delete));
  out.push_back(
      tool("multi_input", "Asks the client two questions at once", no_args(), TaskSupport::kOptional, multi_input));
  out.push_back(tool("test_tool_with_task", "Asks for a name, then greets from a task", no_args(),
                     TaskSupport::kRequired, [](const Json& args, ToolContext&) -> Result<Json> {
                       return text_result("Hello, " + args.value("name", std::string("(no name)")) + "! (from a task)");
                     }));
  out.back().before_task = name_before_task;
}

void add_wire_tools(std::vector<FixtureTool>& out) {
  out.push_back(tool("test_logging_tool", "Logs three messages (sent only at the request's log level)", no_args(),
                     TaskSupport::kNever, [](const Json&, ToolContext& ctx) -> Result<Json> {
                       for (const char* m : {"starting", "working", "done"}) ctx.log(LogLevel::kInfo, m);
                       return text_result("Logged three messages");
                     }));
  out.push_back(tool("test_custom_header", "Echoes a region sent also as the Mcp-Param-Region header",
                     object_schema({{"region", {{"type", "string"}, {"x-mcp-header", "Region"}}}}, {"region"}),
                     TaskSupport::kNever, [](const Json& args, ToolContext&) -> Result<Json> {
                       return text_result("Region: " + args.value("region", std::string()));
                     }));
  out.push_back(tool("test_reconnection", "Ends its SSE stream at once; the client resumes it with Last-Event-ID",
                     no_args(), TaskSupport::kNever, [](const Json&, ToolContext& ctx) -> Result<Json> {
                       if (Status s = sleep_for(0.1, ctx); !s) return s;
                       return text_result(
                           "Reconnection test completed successfully. The server ended the stream and the client "
                           "resumed it.");
                     }));
  out.back().ends_stream_first = true;
}

}  // namespace

std::vector<FixtureTool> task_fixture_tools() {
  std::vector<FixtureTool> out;
  add_task_tools(out);
  add_wire_tools(out);
  return out;
}

}  // namespace bioagent::mcp
