#include "bioagent/mcp_server.h"

#include "bioagent/json_text.h"

#include <atomic>
#include <condition_variable>
#include <map>
#include <mutex>
#include <thread>

#include "bioagent/registry.h"
#include "bioagent/version.h"
#include "bioagent/workspace.h"
#include "mcp/mcp_internal.h"

namespace bioagent {

namespace {

// JSON-RPC 2.0 error codes.
constexpr int kParseError = -32700;
constexpr int kInvalidRequest = -32600;
constexpr int kMethodNotFound = -32601;
constexpr int kInvalidParams = -32602;
constexpr int kInternalError = -32603;
constexpr int kServerBusy = -32000;
constexpr int kResourceNotFound = -32002;

// RFC 5424 severities as MCP names them, least severe first.
const std::vector<std::string> kLogLevels = {"debug", "info",     "notice", "warning",
                                             "error", "critical", "alert",  "emergency"};
int log_rank(const std::string& level) {
  for (size_t i = 0; i < kLogLevels.size(); ++i)
    if (kLogLevels[i] == level) return int(i);
  return -1;
}

Json rpc_error(const Json& id, int code, const std::string& message, Json data = nullptr) {
  Json err = {{"code", code}, {"message", message}};
  if (!data.is_null()) err["data"] = std::move(data);
  return {{"jsonrpc", "2.0"}, {"id", id}, {"error", std::move(err)}};
}

Json rpc_result(const Json& id, Json result) { return {{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}}; }

std::string id_key(const Json& id) { return json_text(id); }

int rpc_code_for(const Status& s) {
  return s.code() == ErrorCode::kNotFound          ? kResourceNotFound
         : s.code() == ErrorCode::kInvalidArgument ? kInvalidParams
                                                   : kInternalError;
}

}  // namespace

const std::vector<std::string>& mcp_supported_versions() {
  static const std::vector<std::string> kVersions = {"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"};
  return kVersions;
}

struct McpSession::Impl {
  const ToolRegistry& registry;
  const Workspace& workspace;
  McpOptions options;
  RoutedSink sink;
  std::unique_ptr<mcp::RunBridge> runs;     // null without an assistant
  std::unique_ptr<mcp::ToolSearch> search;  // compact mode only
  std::atomic<int> min_log_rank{1};         // info and above until logging/setLevel

  std::mutex send_mu;
  std::mutex calls_mu;
  std::condition_variable calls_cv;
  std::map<std::string, std::shared_ptr<std::atomic<bool>>> inflight;  // id → cancel flag, until answered
  int running_calls = 0;  // worker threads not yet finished (drain waits for 0)
  struct Worker {
    std::thread thread;
    std::shared_ptr<std::atomic<bool>> done;
  };
  std::vector<Worker> workers;  // touched only by the thread calling handle()
  std::string negotiated_version;

  // Subscriptions: uri → the version last seen; a watcher thread polls them.
  std::mutex sub_mu;
  std::condition_variable sub_cv;
  std::map<std::string, std::string> subscriptions;
  // Tasks created by task-augmented calls: their last Task, followed for status notifications.
  struct WatchedTask {
    Json task;
    Json progress_token;
    int changes = 0;
  };
  std::map<std::string, WatchedTask> watched_tasks;
  bool stopping = false;
  std::thread watcher;
  mcp::ToolTasks tool_tasks;  // last: its calls end before the rest goes

  Impl(const ToolRegistry& r, const Workspace& w, McpOptions o, RoutedSink s)
      : registry(r), workspace(w), options(std::move(o)), sink(std::move(s)) {
    if (options.assistant)
      runs = std::make_unique<mcp::RunBridge>(*options.assistant, options.tool_options, options.assistant_session);
    if (runs) runs->set_call_limit(options.tool_timeout);
    if (options.compact) search = std::make_unique<mcp::ToolSearch>(registry);
  }
  ~Impl() {
    {
      std::lock_guard lock(sub_mu);
      stopping = true;
    }
    sub_cv.notify_all();
    if (watcher.joinable()) watcher.join();
  }

  void send(const Json& msg, const std::string& key = "") {
    std::string line = json_text(msg);
    std::lock_guard<std::mutex> lock(send_mu);
    sink(line, key);
  }
  void reply(const Json& id, Json result) {
    release_own_call(id);
    send(rpc_result(id, std::move(result)), id_key(id));
  }
  void fail(const Json& id, int code, const std::string& message) {
    release_own_call(id);
    send(rpc_error(id, code, message), id.is_null() ? "" : id_key(id));
  }

  // The key of the call the current worker thread answers (empty elsewhere).
  static std::string& answering_key() {
    thread_local std::string key;
    return key;
  }
  // A worker frees its request id before the answer is written: a client may reuse an
  // id as soon as it has the answer, so the id must not still look in flight then.
  void release_own_call(const Json& id) {
    if (id.is_null() || answering_key().empty() || answering_key() != id_key(id)) return;
    std::lock_guard<std::mutex> lock(calls_mu);
    inflight.erase(answering_key());
  }

  // notifications/message when `level` is at or above the level the client set.
  void log(const std::string& level, const std::string& logger, const Json& data, const std::string& key = "") {
    if (log_rank(level) < min_log_rank.load()) return;
    send({{"jsonrpc", "2.0"},
          {"method", "notifications/message"},
          {"params", {{"level", level}, {"logger", logger}, {"data", data}}}},
         key);
  }

  void handle(const std::string& text) {
    if (text.size() > options.max_message_bytes) {
      fail(nullptr, kInvalidRequest, "message larger than " + std::to_string(options.max_message_bytes) + " bytes");
      return;
    }
    Json msg = parse_json_bounded(text);
    if (msg.is_discarded())
      return fail(nullptr, kParseError,
                  "Parse error: the message is not valid JSON (or nests deeper than " + std::to_string(kMaxJsonDepth) +
                      " levels)");
    if (msg.is_array()) return fail(nullptr, kInvalidRequest, "Invalid Request: JSON-RPC batches are not supported");
    if (!msg.is_object()) return fail(nullptr, kInvalidRequest, "Invalid Request: a message must be a JSON object");
    const bool has_id = msg.contains("id");
    Json id = has_id ? msg["id"] : Json(nullptr);
    if (has_id && !(id.is_string() || id.is_number_integer()))
      return fail(nullptr, kInvalidRequest, "Invalid Request: id must be a string or an integer");
    if (msg.value("jsonrpc", Json()) != "2.0") {
      if (has_id) fail(id, kInvalidRequest, "Invalid Request: jsonrpc must be \"2.0\"");
      return;
    }
    if (!msg.contains("method")) return;  // a response to us: we send no requests, ignore
    if (!msg["method"].is_string()) {
      if (has_id) fail(id, kInvalidRequest, "Invalid Request: method must be a string");
      return;
    }
    const std::string method = msg["method"];
    const Json params = msg.value("params", Json::object());
    if (!params.is_object()) {
      if (has_id) fail(id, kInvalidParams, "Invalid params: params must be an object");
      return;
    }
    if (!has_id) return notification(method, params);
    if (Status s = mcp::check_request_params(method, params); !s) return fail(id, kInvalidParams, s.message());
    try {
      dispatch(id, method, params);
    } catch (const std::exception& ex) {  // firewall: never let a bug kill the session
      fail(id, kInternalError, std::string("Internal error: ") + ex.what());
    }
  }

  void dispatch(const Json& id, const std::string& method, const Json& params) {
    if (method == "initialize") return reply(id, initialize(params));
    if (method == "ping") return reply(id, Json::object());
    if (method == "tools/list") return tools_list(id, params);
    if (method == "tools/call") return tools_call(id, params);
    if (method == "logging/setLevel") return set_level(id, params);
    if (method == "prompts/list")
      return reply(id, {{"prompts", with_fixtures(mcp::prompt_list(), mcp::fixture_prompts())}});
    if (method == "prompts/get") {
      if (options.conformance_fixtures) {
        auto f = mcp::get_fixture_prompt(params.value("name", ""), params.value("arguments", Json::object()));
        if (f) return reply(id, *f);
      }
      auto r = mcp::prompt_get(params.value("name", ""), params.value("arguments", Json::object()));
      if (!r) return fail(id, kInvalidParams, r.status().message());
      return reply(id, *r);
    }
    if (method == "completion/complete") return complete(id, params);
    if (method == "resources/list")
      return reply(
          id, {{"resources", with_fixtures(runs ? runs->list_resources() : Json::array(), mcp::fixture_resources())}});
    if (method == "resources/templates/list")
      return reply(id, {{"resourceTemplates",
                         with_fixtures(runs ? runs->resource_templates() : Json::array(), mcp::fixture_templates())}});
    if (method == "resources/read") return resources_read(id, params);
    if (method == "resources/subscribe" || method == "resources/unsubscribe")
      return subscribe(id, params, method == "resources/subscribe");
    if (method.rfind("tasks/", 0) == 0 && tasks_offered()) return tasks_request(id, method, params);
    fail(id, kMethodNotFound, "Method not found: " + method);
  }

  // `list` plus the conformance fixtures when they are on.
  Json with_fixtures(Json list, const Json& fixtures) const {
    if (options.conformance_fixtures)
      for (auto& f : fixtures) list.push_back(f);
    return list;
  }

  void notification(const std::string& method, const Json& params) {
    if (method == "notifications/cancelled" && params.contains("requestId")) {
      std::lock_guard<std::mutex> lock(calls_mu);
      auto it = inflight.find(id_key(params["requestId"]));
      if (it != inflight.end()) it->second->store(true);
    }
    // notifications/initialized and unknown notifications need no answer.
  }

  Json initialize(const Json& params) {
    std::string requested = params.value("protocolVersion", "");
    const auto& versions = mcp_supported_versions();
    negotiated_version = versions.front();
    for (auto& v : versions) {
      if (v == requested) negotiated_version = v;
    }
    Json caps = {
        {"tools", {{"listChanged", false}}},
        {"logging", Json::object()},
        {"prompts", {{"listChanged", false}}},
        {"completions", Json::object()},
        {"resources", {{"subscribe", runs != nullptr || options.conformance_fixtures}, {"listChanged", false}}}};
    if (tasks_offered())
      caps["tasks"] = {
          {"list", Json::object()}, {"cancel", Json::object()}, {"requests", {{"tools", {{"call", Json::object()}}}}}};
    return {{"protocolVersion", negotiated_version},
            {"capabilities", caps},
            {"serverInfo", {{"name", "bioagent"}, {"title", "bioagent research assistant"}, {"version", kVersion}}},
            {"instructions",
             std::string("bioagent exposes scientific tools (literature, papers, data, calculator, notebooks") +
                 (runs ? ", and gene-family runs as tasks: genefamily_task_start/status/result/cancel, on server-side "
                         "genome folders listed by genefamily_data_roots"
                       : "") +
                 "). Tool results carry structuredContent; tool failures come back with isError=true and a "
                 "message that names the problem." +
                 (options.compact ? " Compact mode: find tools with search_tools, read one with describe_tool, "
                                    "run it with call_tool."
                                  : "")}};
  }

  // The specification's tasks: with an assistant, to a client that negotiated 2025-11-25 or later.
  bool tasks_offered() const { return negotiated_version >= "2025-11-25"; }

  // A task of either kind: a registry tool's call (in memory) or an assistant task.
  Result<Json> task_get(const std::string& task_id) {
    if (mcp::ToolTasks::is_tool_task(task_id) || !runs) return tool_tasks.get(task_id);
    return runs->task_get(task_id);
  }
  Result<Json> task_list(const std::string& cursor) {
    Json tools = cursor.empty() ? tool_tasks.list() : Json::array();  // the tool calls come on the first page
    if (!runs) return cursor.empty() ? Result<Json>(Json{{"tasks", tools}}) : invalid_argument("unknown cursor");
    auto r = runs->task_list(cursor, options.page_size);
    if (!r) return r;
    for (auto& t : tools) (*r)["tasks"].push_back(t);
    return r;
  }

  // tasks/get and tasks/list answer at once; tasks/result (blocks until the run ends) and
  // tasks/cancel (waits for the run to stop) answer from a worker.
  void tasks_request(const Json& id, const std::string& method, const Json& params) {
    std::string task_id =
        params.contains("taskId") && params["taskId"].is_string() ? params["taskId"].get<std::string>() : "";
    if (method != "tasks/list" && task_id.empty()) return fail(id, kInvalidParams, "Invalid params: taskId is needed");
    // A client may attach an assistant session (as CreateTaskResult named it), e.g. after a restart.
    const Json meta = params.value("_meta", Json::object());
    if (runs && meta.is_object() && meta.contains("bioagent/session_id") && meta["bioagent/session_id"].is_string())
      if (Status a = runs->attach(meta["bioagent/session_id"]); !a.is_ok())
        return fail(id, kInvalidParams, a.message());
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
    spawn(id, [this, id, method, task_id, answer](const std::shared_ptr<std::atomic<bool>>& flag) {
      bool tool = mcp::ToolTasks::is_tool_task(task_id) || !runs;
      auto r = method == "tasks/result"
                   ? (tool ? tool_tasks.payload(task_id, *flag) : runs->task_payload(task_id, *flag))
                   : (tool ? tool_tasks.cancel(task_id) : runs->task_cancel(task_id));
      if (!flag->load()) answer(r);
    });
  }

  void set_level(const Json& id, const Json& params) {
    int rank = log_rank(params.value("level", ""));
    if (rank < 0) return fail(id, kInvalidParams, "Invalid params: level must be one of debug .. emergency");
    min_log_rank.store(rank);
    reply(id, Json::object());
  }

  void complete(const Json& id, const Json& params) {
    auto r = mcp::complete_request(params, runs.get(), options.conformance_fixtures);
    if (!r) return fail(id, kInvalidParams, r.status().message());
    reply(id, *r);
  }

  void resources_read(const Json& id, const Json& params) {
    std::string uri = params.value("uri", "");
    if (uri.empty()) return fail(id, kInvalidParams, "Invalid params: resources/read needs a uri");
    if (options.conformance_fixtures) {
      auto f = mcp::read_fixture(uri);
      if (f) return reply(id, {{"contents", Json::array({*f})}});
    }
    if (!runs) return fail(id, kResourceNotFound, "Resource not found: " + uri.substr(0, 200));
    auto r = runs->read(uri);
    if (!r) return fail(id, rpc_code_for(r.status()), r.status().message());
    reply(id, {{"contents", Json::array({*r})}});
  }

  void subscribe(const Json& id, const Json& params, bool on) {
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

  void start_watcher_locked() {
    if (!watcher.joinable()) watcher = std::thread([this] { watch_subscriptions(); });
  }

  // What changes when the resource changes: a run's state and event count.
  Result<std::string> resource_version(const std::string& uri) {
    if (options.conformance_fixtures && mcp::read_fixture(uri)) return std::string("fixture");
    if (!runs) return not_found("no resource '" + uri.substr(0, 200) + "' (this server has no runs)");
    return runs->version(uri);
  }

  // Sends notifications/resources/updated for each subscribed run resource whose run recorded an event.
  void watch_subscriptions() {
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
  void watch_tasks() {
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
  void create_task(const Json& id, const std::string& name, const Json& args, const Json& progress_token) {
    if (tasks_offered() && mcp::ToolTasks::task_capable(name) && registry.find(name)) {
      Json task = tool_tasks.create([this, name, args](const std::shared_ptr<std::atomic<bool>>& flag) {
        ToolContext ctx(&workspace);
        ctx.set_cancel_flag(flag);
        ctx.set_options(options.tool_options);
        ctx.set_timeout(options.tool_timeout);
        return call_result(name, registry.call(name, args, ctx));
      });
      {
        std::lock_guard lock(sub_mu);
        watched_tasks[task["taskId"]] = {task, progress_token, 0};
        start_watcher_locked();
      }
      return reply(id, {{"task", task}});
    }
    if (!tasks_offered() || name != "genefamily_run" || !runs)
      return fail(id, kMethodNotFound, "Method not found: tool '" + name + "' does not support task-augmented calls");
    spawn(id, [this, id, args, progress_token](const std::shared_ptr<std::atomic<bool>>&) {
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

  Json listed_tools() const {
    if (options.compact) return mcp_compact_tools();
    Json all = Json::array();
    for (auto* spec : registry.list()) {
      all.push_back(registry.mcp_tool(*spec));
      if (tasks_offered() && mcp::ToolTasks::task_capable(spec->name))
        all.back()["execution"] = {{"taskSupport", "optional"}};
    }
    if (runs) {
      for (auto& t : runs->tools()) all.push_back(t);
      Json run = runs->run_tool();
      if (!tasks_offered()) run.erase("execution");
      all.push_back(run);
    }
    return with_fixtures(all, mcp::fixture_tools());
  }

  void tools_list(const Json& id, const Json& params) {
    auto page = mcp::tools_page(listed_tools(), params.value("cursor", Json()), options.page_size);
    if (!page) return fail(id, kInvalidParams, "Invalid params: " + page.status().message());
    reply(id, *page);
  }

  bool known_tool(const std::string& name) const {
    return registry.find(name) || (runs && runs->owns(name)) || (options.compact && mcp::is_compact_tool(name)) ||
           (options.conformance_fixtures && mcp::is_fixture_tool(name));
  }

  void tools_call(const Json& id, const Json& params) {
    if (!params.contains("name") || !params["name"].is_string())
      return fail(id, kInvalidParams, "Invalid params: tools/call needs a string 'name'");
    const std::string name = params["name"];
    if (!known_tool(name)) return fail(id, kInvalidParams, "Unknown tool: " + name);
    Json args = params.value("arguments", Json::object());
    if (!args.is_object() && !args.is_null())
      return fail(id, kInvalidParams, "Invalid params: 'arguments' must be an object");
    Json progress_token;
    if (params.contains("_meta") && params["_meta"].is_object())
      progress_token = params["_meta"].value("progressToken", Json());

    if (params.contains("task") && params["task"].is_object())
      return create_task(id, name, args.is_null() ? Json::object() : args, progress_token);
    spawn(id, [this, id, name, args, progress_token](const std::shared_ptr<std::atomic<bool>>& flag) {
      run_tool(id, name, args.is_null() ? Json::object() : args, progress_token, flag);
    });
  }

  // Runs `work` for request `id` on a worker thread, with the request's cancel flag
  // (set by notifications/cancelled); at most max_inflight_calls at once.
  void spawn(const Json& id, std::function<void(const std::shared_ptr<std::atomic<bool>>&)> work) {
    auto flag = std::make_shared<std::atomic<bool>>(false);
    {
      std::lock_guard<std::mutex> lock(calls_mu);
      if (inflight.size() >= options.max_inflight_calls)
        return fail(id, kServerBusy, "Server busy: too many requests in flight");
      if (inflight.count(id_key(id))) return fail(id, kInvalidRequest, "Invalid Request: duplicate id in flight");
      inflight[id_key(id)] = flag;
      ++running_calls;
    }
    reap_finished();
    auto done = std::make_shared<std::atomic<bool>>(false);
    std::thread t([this, id, work = std::move(work), flag, done] {
      answering_key() = id_key(id);
      work(flag);
      release_own_call(id);  // a cancelled call sends no answer
      std::lock_guard<std::mutex> lock(calls_mu);
      --running_calls;
      done->store(true);
      calls_cv.notify_all();
    });
    workers.push_back({std::move(t), done});
  }

  // One tool call on its worker thread: progress and log notifications go with
  // the request's key; a cancelled request gets no answer.
  void run_tool(const Json& id, const std::string& name, const Json& args, const Json& progress_token,
                const std::shared_ptr<std::atomic<bool>>& flag) {
    const std::string key = id_key(id);
    ToolContext ctx(&workspace);
    ctx.set_cancel_flag(flag);
    ctx.set_options(options.tool_options);
    ctx.set_timeout(options.tool_timeout);
    ToolContext::ProgressFn progress;
    if (!progress_token.is_null()) {
      progress = [this, progress_token, key](double done, double total, const std::string& message) {
        Json p = {{"progressToken", progress_token}, {"progress", done}};
        if (total > 0) p["total"] = total;
        if (!message.empty()) p["message"] = message;
        send({{"jsonrpc", "2.0"}, {"method", "notifications/progress"}, {"params", p}}, key);
      };
      ctx.set_progress(progress);
    }
    ctx.set_log([this, name, key](LogLevel level, const std::string& message) {
      static const char* kNames[] = {"debug", "info", "warning", "error"};
      log(kNames[int(level)], name, message, key);
    });
    log("debug", name, "call started", key);
    Json result;
    if (options.conformance_fixtures && mcp::is_fixture_tool(name)) {
      result = mcp::call_fixture_tool(
          name, progress,
          [this, name, key](const std::string& level, const std::string& m) { log(level, name, m, key); });
    } else if (runs && runs->owns(name)) {
      auto r = runs->call(name, args, *flag, progress);
      result = r ? linked_result(*r) : call_result(name, Result<Json>(r.status()));
    } else if (options.compact && mcp::is_compact_tool(name)) {
      result = call_result(name, mcp::call_compact_tool(registry, *search, name, args, ctx));
    } else {
      result = call_result(name, registry.call(name, args, ctx));
    }
    if (result.value("isError", false)) log("error", name, result["content"][0].value("text", ""), key);
    if (!flag->load()) reply(id, result);
  }

  Json linked_result(const mcp::LinkedResult& r) { return mcp::linked_call_result(r, false); }

  void reap_finished() {
    for (auto it = workers.begin(); it != workers.end();) {
      if (it->done->load()) {
        it->thread.join();
        it = workers.erase(it);
      } else {
        ++it;
      }
    }
  }

  Json call_result(const std::string& name, const Result<Json>& r) { return mcp::tool_call_result(registry, name, r); }

  void drain() {
    std::unique_lock<std::mutex> lock(calls_mu);
    calls_cv.wait(lock, [this] { return running_calls == 0; });
  }
  void cancel_all() {
    std::lock_guard<std::mutex> lock(calls_mu);
    for (auto& [key, f] : inflight) f->store(true);
  }
};

McpSession::McpSession(const ToolRegistry& registry, const Workspace& workspace, McpOptions options, Sink sink)
    : impl_(std::make_unique<Impl>(
          registry, workspace, std::move(options),
          [sink = std::move(sink)](const std::string& line, const std::string&) { sink(line); })) {}

McpSession::McpSession(const ToolRegistry& registry, const Workspace& workspace, McpOptions options, RoutedSink sink)
    : impl_(std::make_unique<Impl>(registry, workspace, std::move(options), std::move(sink))) {}

McpSession::~McpSession() {
  impl_->cancel_all();  // a session that ends stops its calls (stdio drains before it ends)
  drain();
  for (auto& w : impl_->workers) {
    if (w.thread.joinable()) w.thread.join();
  }
}

std::string McpSession::request_key(const Json& id) { return id_key(id); }
void McpSession::handle_message(const std::string& text) { impl_->handle(text); }
void McpSession::drain() { impl_->drain(); }
void McpSession::reject_oversized() {
  impl_->fail(nullptr, kInvalidRequest,
              "Invalid Request: message larger than " + std::to_string(impl_->options.max_message_bytes) + " bytes");
}

}  // namespace bioagent
