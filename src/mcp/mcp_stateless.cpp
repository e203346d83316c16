// The stateless revision (MCP 2026-07-28) of a session's dispatch: one
// request, its own _meta (client capabilities, log level), server/discover,
// resultType and cache hints on results, -32601 for the methods the revision
// removed, calls that ask the client as multi round-trip requests, and the
// tasks extension (io.modelcontextprotocol/tasks) over the server's shared
// store. The envelope (headers against body, _meta) was checked before.
#include <set>

#include "bioagent/json_text.h"
#include "bioagent/version.h"
#include "mcp/mcp_session.h"

namespace bioagent {

using namespace mcp;  // the error codes

namespace {

constexpr int64_t kListTtlMs = 5 * 60 * 1000;  // tools, prompts, templates and fixtures change with the binary only

const std::vector<std::string> kLogLevels = {"debug", "info",     "notice", "warning",
                                             "error", "critical", "alert",  "emergency"};

// The methods 2026-07-28 removed, with what replaced each.
std::string removed_hint(const std::string& method) {
  if (method == "initialize" || method == "notifications/initialized")
    return " (2026-07-28 has no initialize: send _meta with every request; server/discover describes the server)";
  if (method == "ping") return " (2026-07-28 has no ping)";
  if (method == "logging/setLevel") return " (2026-07-28: _meta io.modelcontextprotocol/logLevel per request)";
  if (method == "resources/subscribe" || method == "resources/unsubscribe")
    return " (not offered at 2026-07-28: resources are read on demand)";
  if (method == "tasks/result" || method == "tasks/list")
    return " (the tasks extension has tasks/get, tasks/update and tasks/cancel)";
  return "";
}

Json server_info() { return {{"name", "bioagent"}, {"title", "bioagent research assistant"}, {"version", kVersion}}; }

}  // namespace

bool McpSession::Impl::serves_stateless(const std::string& method) {
  static const std::set<std::string> kServed = {
      "server/discover", "tools/list",          "tools/call",     "prompts/list",
      "prompts/get",     "completion/complete", "resources/list", "resources/templates/list",
      "resources/read",  "tasks/get",           "tasks/update",   "tasks/cancel"};
  return kServed.count(method) > 0;
}

void McpSession::Impl::handle_stateless(const Json& id, const std::string& method, const Json& params) {
  const Json meta = params.value("_meta", Json::object());
  {
    std::lock_guard lock(caps_mu);
    client_caps = meta.value(kMetaClientCapabilities, Json::object());
  }
  // No notifications/message at all unless the request names a level.
  int rank = 1000;
  const Json level = meta.value(kMetaLogLevel, Json());
  for (size_t i = 0; level.is_string() && i < kLogLevels.size(); ++i)
    if (kLogLevels[i] == level.get<std::string>()) rank = int(i);
  min_log_rank.store(rank);
  dispatch_stateless(id, method, params);
}

void McpSession::Impl::dispatch_stateless(const Json& id, const std::string& method, const Json& params) {
  if (method == "server/discover") return reply(id, discover());
  if (method == "tools/list") return tools_list(id, params);
  if (method == "tools/call") return stateless_call(id, params);
  if (method == "prompts/list")
    return reply(id,
                 stateless_result({{"prompts", with_fixtures(mcp::prompt_list(), mcp::fixture_prompts())}}, "public"));
  if (method == "prompts/get") return stateless_prompt(id, params);
  if (method == "completion/complete") return complete(id, params);
  if (method == "resources/list")
    return reply(
        id, stateless_result(
                {{"resources", with_fixtures(runs ? runs->list_resources() : Json::array(), mcp::fixture_resources())}},
                runs ? "private" : "public"));
  if (method == "resources/templates/list")
    return reply(
        id, stateless_result({{"resourceTemplates", with_fixtures(runs ? runs->resource_templates() : Json::array(),
                                                                  mcp::fixture_templates())}},
                             "public"));
  if (method == "resources/read") return resources_read(id, params);
  if (method == "tasks/get" || method == "tasks/update" || method == "tasks/cancel")
    return ext_tasks_request(id, method, params);
  fail(id, kMethodNotFound, "Method not found: " + method.substr(0, 100) + removed_hint(method));
}

Json McpSession::Impl::discover() const {
  Json caps = {{"tools", Json::object()},     {"prompts", Json::object()},
               {"resources", Json::object()}, {"completions", Json::object()},
               {"logging", Json::object()},   {"extensions", {{kTasksExtension, Json::object()}}}};
  return stateless_result(
      {{"supportedVersions", mcp_supported_versions()}, {"capabilities", caps}, {"instructions", instructions()}},
      "public");
}

Json McpSession::Impl::stateless_result(Json result, const char* cache_scope) const {
  if (era != McpEra::kStateless || !result.is_object()) return result;
  if (!result.contains("resultType")) result["resultType"] = "complete";
  if (!result.contains("_meta") || !result["_meta"].is_object()) result["_meta"] = Json::object();
  result["_meta"][kMetaServerInfo] = server_info();
  if (cache_scope && result["resultType"] == "complete") {
    const bool is_public = std::string(cache_scope) == "public";
    result["ttlMs"] = is_public ? kListTtlMs : 0;  // a run's files and status change while it runs
    result["cacheScope"] = cache_scope;
  }
  return result;
}

Result<std::map<std::string, Json>> McpSession::Impl::round_answers(const std::string& method, const std::string& name,
                                                                    const Json& params) {
  std::map<std::string, Json> answers;
  if (params.contains("requestState")) {
    auto opened = open_request_state(shared->state_key(), method, name, params["requestState"].get<std::string>());
    if (!opened) return opened.status();
    for (auto& [k, v] : opened->items()) answers[k] = v;
  }
  if (params.contains("inputResponses")) {
    for (auto& [k, v] : params["inputResponses"].items()) {
      if (!v.is_object())
        return invalid_argument("Invalid params: inputResponses." + k.substr(0, 80) +
                                " must be an object (the client's result)");
      answers[k] = v;
    }
  }
  return answers;
}

bool McpSession::Impl::ended_round(const Json& id, const std::string& method, const std::string& name,
                                   const RoundTripChannel& channel, const Status& outcome) {
  Json pending = channel.pending();
  if (!pending.empty()) {
    reply(id, {{"resultType", "input_required"},
               {"inputRequests", pending},
               {"requestState", seal_request_state(shared->state_key(), method, name, channel.used_answers())}});
    return true;
  }
  const std::string cap = outcome.details().value("client_capability", "");
  if (outcome.code() == ErrorCode::kUnsupported && !cap.empty()) {
    fail(id, kMissingClientCapability, "This request needs the client's " + cap + " capability",
         {{"requiredCapabilities", {{cap, Json::object()}}}});
    return true;
  }
  return false;
}

namespace {

// The input schema of a tool by name, for its Mcp-Param-* headers (null when unknown).
Json input_schema_of(const ToolRegistry& registry, bool fixtures, const std::string& name) {
  if (fixtures)
    if (const auto* f = mcp::find_fixture_tool(name)) return f->definition.value("inputSchema", Json());
  if (const ToolSpec* spec = registry.find(name)) return registry.mcp_tool(*spec).value("inputSchema", Json());
  return nullptr;
}

}  // namespace

void McpSession::Impl::stateless_call(const Json& id, const Json& params) {
  const std::string name = params.value("name", "");
  if (!known_tool(name)) return fail(id, kInvalidParams, "Unknown tool: " + name.substr(0, 100));
  Json args = params.value("arguments", Json::object());
  if (args.is_null()) args = Json::object();
  if (auto e = check_param_headers(headers, input_schema_of(registry, options.conformance_fixtures, name), args))
    return fail(id, (*e)["code"], (*e)["message"]);
  const auto* fixture = options.conformance_fixtures ? mcp::find_fixture_tool(name) : nullptr;
  const bool capable =
      (runs && name == "genefamily_run") || (mcp::ToolTasks::task_capable(name) && registry.find(name));
  const TaskSupport tasks = fixture ? fixture->tasks : capable ? TaskSupport::kOptional : TaskSupport::kNever;
  const bool extension = declares_tasks_extension(client_capabilities());
  if (tasks == TaskSupport::kRequired && !extension)
    return fail(id, kMissingClientCapability,
                "Tool '" + name + "' runs only as a task: declare the " + kTasksExtension + " extension",
                {{"requiredCapabilities", {{"extensions", {{kTasksExtension, Json::object()}}}}}});
  auto answers = round_answers("tools/call", name, params);
  if (!answers) return fail(id, kInvalidParams, answers.status().message());
  if (tasks != TaskSupport::kNever && extension) return start_ext_task(id, name, args, *answers);
  const Json progress_token = params.value("_meta", Json::object()).value("progressToken", Json());
  auto channel = std::make_shared<RoundTripChannel>(client_capabilities(), std::move(*answers));
  spawn(id, [this, id, name, args, progress_token, channel](const CancelFlag& flag) {
    const std::string key = McpSession::request_key(id);
    ToolContext ctx = call_context(name, key, progress_token, flag);
    ctx.set_client(channel);
    Result<Json> r = execute_tool(name, args, ctx, flag, key);
    if (flag->load() || ended_round(id, "tools/call", name, *channel, r ? Status::ok() : r.status())) return;
    reply(id, r ? *r : call_result(name, Result<Json>(r.status())));
  });
}

void McpSession::Impl::stateless_prompt(const Json& id, const Json& params) {
  const std::string name = params.value("name", "");
  if (!options.conformance_fixtures || !mcp::is_fixture_prompt(name)) return prompts_get(id, params);
  auto answers = round_answers("prompts/get", name, params);
  if (!answers) return fail(id, kInvalidParams, answers.status().message());
  RoundTripChannel channel(client_capabilities(), std::move(*answers));
  auto r = mcp::get_fixture_prompt(name, params.value("arguments", Json::object()), &channel);
  if (ended_round(id, "prompts/get", name, channel, r ? Status::ok() : r.status())) return;
  if (!r) return fail(id, kInvalidParams, r.status().message());
  reply(id, *r);
}

void McpSession::Impl::start_ext_task(const Json& id, const std::string& name, const Json& args,
                                      std::map<std::string, Json> answers) {
  const auto* fixture = options.conformance_fixtures ? mcp::find_fixture_tool(name) : nullptr;
  Json task_args = args;
  if (fixture && fixture->before_task) {  // questions asked before the task exists: a round trip
    RoundTripChannel channel(client_capabilities(), std::move(answers));
    auto prepared = fixture->before_task(args, channel);
    if (ended_round(id, "tools/call", name, channel, prepared ? Status::ok() : prepared.status())) return;
    if (!prepared) return fail(id, kInvalidParams, prepared.status().message());
    task_args = *prepared;
  }
  // The task outlives this request: its work holds copies, never the session. A run's task asks
  // and waits through the store's channel, and is kept while the server runs (runs take hours).
  const ToolRegistry* reg = &registry;
  const bool run = runs && name == "genefamily_run" && !fixture;
  auto work = [reg, ws = workspace, tool_options = options.tool_options, fixture, name, task_args, run,
               assistant = options.assistant, session = options.assistant_session, client = options.client,
               store = &shared->tasks](ToolContext& ctx) -> Result<Json> {
    ctx.set_workspace(&ws);
    ctx.set_options(tool_options);
    if (fixture) return fixture->call(task_args, ctx);
    if (run)
      return mcp::RunBridge(*assistant, tool_options, session, client).run_as_ext_task(task_args, ctx, [store] {
        return store->stopping();
      });
    return mcp::tool_call_result(*reg, name, reg->call(name, task_args, ctx));
  };
  auto created = shared->tasks.create(
      std::move(work), client_capabilities(), options.tool_timeout, options.client,
      run ? std::optional<std::chrono::milliseconds>() : std::optional<std::chrono::milliseconds>(ExtTaskStore::kTtl));
  if (!created) return fail(id, kServerBusy, created.status().message());
  reply(id, *created);
}

void McpSession::Impl::ext_tasks_request(const Json& id, const std::string& method, const Json& params) {
  if (!declares_tasks_extension(client_capabilities()))
    return fail(id, kMissingClientCapability, method + " needs the " + kTasksExtension + " extension",
                {{"requiredCapabilities", {{"extensions", {{kTasksExtension, Json::object()}}}}}});
  const Json task_id = params.value("taskId", Json());
  if (!task_id.is_string()) return fail(id, kInvalidParams, "Invalid params: taskId is needed");
  if (method == "tasks/get") {
    auto r = shared->tasks.get(task_id);
    if (!r) return fail(id, kInvalidParams, r.status().message());
    return reply(id, *r);
  }
  Status s = method == "tasks/cancel" ? shared->tasks.cancel(task_id)
                                      : shared->tasks.update(task_id, params.value("inputResponses", Json()));
  if (!s) return fail(id, kInvalidParams, s.message());
  reply(id, Json::object());
}

}  // namespace bioagent
