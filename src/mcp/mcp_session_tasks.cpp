// The specification's tasks of 2025-11-25 in a session (tools/call with a
// task, tasks/get, tasks/list, tasks/result, tasks/cancel and
// notifications/tasks/status) over the session's registry-tool tasks and the
// assistant's gene-family runs, and resource subscriptions
// (notifications/resources/updated), both followed by one watcher thread.
#include "bioagent/json_text.h"
#include "mcp/mcp_session.h"

namespace bioagent {

using namespace mcp;  // the error codes

namespace {

int rpc_code_for(const Status& s) {
  return s.code() == ErrorCode::kNotFound          ? kResourceNotFound
         : s.code() == ErrorCode::kInvalidArgument ? kInvalidParams
                                                   : kInternalError;
}

}  // namespace

// The specification's tasks: with an assistant, to a client that negotiated 2025-11-25 or later.
bool McpSession::Impl::tasks_offered() const { return negotiated_version >= "2025-11-25"; }

// A task of either kind: a registry tool's call (in memory) or an assistant task.
Result<Json> McpSession::Impl::task_get(const std::string& task_id) {
  if (mcp::ToolTasks::is_tool_task(task_id) || !runs) return tool_tasks.get(task_id);
  return runs->task_get(task_id);
}
Result<Json> McpSession::Impl::task_list(const std::string& cursor) {
  Json tools = cursor.empty() ? tool_tasks.list() : Json::array();  // the tool calls come on the first page
  if (!runs) return cursor.empty() ? Result<Json>(Json{{"tasks", tools}}) : invalid_argument("unknown cursor");
  auto r = runs->task_list(cursor, options.page_size);
  if (!r) return r;
  for (auto& t : tools) (*r)["tasks"].push_back(t);
  return r;
}

// tasks/get and tasks/list answer at once; tasks/result (blocks until the run ends) and
// tasks/cancel (waits for the run to stop) answer from a worker.
void McpSession::Impl::tasks_request(const Json& id, const std::string& method, const Json& params) {
  std::string task_id =
      params.contains("taskId") && params["taskId"].is_string() ? params["taskId"].get<std::string>() : "";
  if (method != "tasks/list" && task_id.empty()) return fail(id, kInvalidParams, "Invalid params: taskId is needed");
  // A client may attach an assistant session (as CreateTaskResult named it), e.g. after a restart.
  const Json meta = params.value("_meta", Json::object());
  if (runs && meta.is_object() && meta.contains("bioagent/session_id") && meta["bioagent/session_id"].is_string())
    if (Status a = runs->attach(meta["bioagent/session_id"]); !a.is_ok()) return fail(id, kInvalidParams, a.message());
  auto answer = [this, id](const Result<Json>& r) {
    if (!r)
      return fail(id, rpc_code_for(r.status()) == kResourceNotFound ? kInvalidParams : rpc_code_for(r.status()),
                  r.status().message());
    reply(id, *r);
  };
  if (method == "tasks/get") return answer(task_get(task_id));
  if (method == "tasks/list") {
    const Json& c = params.value("cursor", Json());
    return answer(task_list(c.is_string() ? c.get<std::string>() : ""));
  }
  if (method != "tasks/result" && method != "tasks/cancel")
    return fail(id, kMethodNotFound, "Method not found: " + method);
  spawn(id, [this, id, method, task_id, answer](const CancelFlag& flag) {
    bool tool = mcp::ToolTasks::is_tool_task(task_id) || !runs;
    auto r = method == "tasks/result" ? (tool ? tool_tasks.payload(task_id, *flag) : runs->task_payload(task_id, *flag))
                                      : (tool ? tool_tasks.cancel(task_id) : runs->task_cancel(task_id));
    if (!flag->load()) answer(r);
  });
}

void McpSession::Impl::subscribe(const Json& id, const Json& params, bool on) {
  std::string uri = params.value("uri", "");
  if (uri.empty()) return fail(id, kInvalidParams, "Invalid params: a uri is needed");
  std::string version;
  if (on) {
    auto v = resource_version(uri);
    if (!v) return fail(id, rpc_code_for(v.status()), v.status().message());
    version = *v;
  }
  {
    std::lock_guard lock(sub_mu);
    if (on)
      subscriptions[uri] = version;
    else
      subscriptions.erase(uri);
    if (on) start_watcher_locked();
  }
  reply(id, Json::object());
}

void McpSession::Impl::start_watcher_locked() {
  if (!watcher.joinable()) watcher = std::thread([this] { watch_subscriptions(); });
}

// What changes when the resource changes: a run's state and event count.
Result<std::string> McpSession::Impl::resource_version(const std::string& uri) {
  if (options.conformance_fixtures && mcp::read_fixture(uri)) return std::string("fixture");
  if (!runs) return not_found("no resource '" + uri.substr(0, 200) + "' (this server has no runs)");
  return runs->version(uri);
}

// Sends notifications/resources/updated for each subscribed run resource whose run recorded an event.
void McpSession::Impl::watch_subscriptions() {
  std::unique_lock lock(sub_mu);
  while (!stopping) {
    sub_cv.wait_for(lock, options.subscription_poll, [this] { return stopping; });
    if (stopping) break;
    auto current = subscriptions;
    lock.unlock();
    for (auto& [uri, seen] : current) {
      auto v = resource_version(uri);
      if (!v || *v == seen) continue;
      {
        std::lock_guard relock(sub_mu);
        auto it = subscriptions.find(uri);
        if (it != subscriptions.end()) it->second = *v;
      }
      send({{"jsonrpc", "2.0"}, {"method", "notifications/resources/updated"}, {"params", {{"uri", uri}}}});
    }
    watch_tasks();
    lock.lock();
  }
}

// notifications/tasks/status when a watched task's status or message changed, with a progress
// notification for the call's progressToken (which stays valid for the task's life).
void McpSession::Impl::watch_tasks() {
  std::map<std::string, WatchedTask> current;
  {
    std::lock_guard lock(sub_mu);
    current = watched_tasks;
  }
  for (auto& [id, w] : current) {
    auto t = task_get(id);
    if (!t) continue;
    const Json& now = *t;
    if (now["status"] == w.task["status"] && now["statusMessage"] == w.task["statusMessage"]) continue;
    bool ended = now["status"] != "working";
    {
      std::lock_guard lock(sub_mu);
      if (ended)
        watched_tasks.erase(id);
      else
        watched_tasks[id] = {now, w.progress_token, w.changes + 1};
    }
    send({{"jsonrpc", "2.0"}, {"method", "notifications/tasks/status"}, {"params", now}});
    if (w.progress_token.is_null()) continue;
    Json related = {{"io.modelcontextprotocol/related-task", {{"taskId", id}}}};
    Json p = {{"progressToken", w.progress_token},
              {"progress", w.changes + 1},
              {"message", now.value("statusMessage", "")},
              {"_meta", related}};
    send({{"jsonrpc", "2.0"}, {"method", "notifications/progress"}, {"params", p}});
  }
}

// tools/call with a task: genefamily_run starts a run, a task-capable registry tool starts its call;
// the CreateTaskResult answers. Other tools are -32601.
void McpSession::Impl::create_task(const Json& id, const std::string& name, const Json& args,
                                   const Json& progress_token) {
  if (tasks_offered() && mcp::ToolTasks::task_capable(name) && registry.find(name)) {
    auto created = tool_tasks.create(
        [this, name, args](const CancelFlag& flag) {
          ToolContext ctx(&workspace);
          ctx.set_cancel_flag(flag);
          ctx.set_options(options.tool_options);
          ctx.set_timeout(options.tool_timeout);
          return call_result(name, registry.call(name, args, ctx));
        },
        options.client);
    if (!created) return fail(id, rpc_code_for(created.status()), created.status().message());
    const Json task = *created;
    {
      std::lock_guard lock(sub_mu);
      watched_tasks[task["taskId"]] = {task, progress_token, 0};
      start_watcher_locked();
    }
    return reply(id, {{"task", task}});
  }
  if (!tasks_offered() || name != "genefamily_run" || !runs)
    return fail(id, kMethodNotFound, "Method not found: tool '" + name + "' does not support task-augmented calls");
  spawn(id, [this, id, args, progress_token](const CancelFlag&) {
    auto r = runs->create_task(args);
    if (!r) return fail(id, rpc_code_for(r.status()), r.status().message());
    {
      std::lock_guard lock(sub_mu);
      watched_tasks[(*r)["task"].value("taskId", "")] = {(*r)["task"], progress_token, 0};
      start_watcher_locked();
    }
    reply(id, *r);
  });
}

}  // namespace bioagent
