// The specification's tasks (MCP 2025-11-25) over the assistant's task store:
// genefamily_run called with a `task` parameter answers at once with a
// CreateTaskResult whose taskId is the assistant's task id (the task the web UI
// and the HTTP API show, which survives a restart); tasks/get, tasks/list,
// tasks/result (blocks until the run ends) and tasks/cancel read and act on
// that store. Without a `task` parameter genefamily_run waits for the run.
#include <chrono>
#include <ctime>
#include <thread>

#include "bioagent/assistant.h"
#include "bioagent/json_text.h"
#include "mcp/mcp_internal.h"

namespace bioagent::mcp {
namespace {

constexpr int kPollIntervalMs = 2000;

// The store's local "YYYY-MM-DDTHH:MM:SS" as UTC ISO 8601 ("...Z"); other text unchanged.
std::string iso_utc(const std::string& local) {
  std::tm tm{};
  if (local.size() != 19 || !strptime(local.c_str(), "%Y-%m-%dT%H:%M:%S", &tm)) return local;
  tm.tm_isdst = -1;
  std::time_t t = std::mktime(&tm);
  std::tm utc{};
  gmtime_r(&t, &utc);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return buf;
}

std::string related_task_key() { return "io.modelcontextprotocol/related-task"; }

}  // namespace

std::string spec_task_status(const std::string& state) {
  if (state == "done") return "completed";
  if (state == "failed") return "failed";
  if (state == "cancelled") return "cancelled";
  return "working";  // queued, checking, repairing, awaiting_confirmation (auto-confirmed), running, validating
}

Json spec_task(const Json& assistant_task) {
  std::string state = assistant_task.value("state", "");
  std::string message = assistant_task.value("message", "");
  Json t = {{"taskId", assistant_task.value("task_id", "")},
            {"status", spec_task_status(state)},
            {"statusMessage", message.empty() ? state : state + ": " + message},
            {"createdAt", iso_utc(assistant_task.value("created", ""))},
            {"lastUpdatedAt", iso_utc(assistant_task.value("updated", ""))},
            {"ttl", nullptr},  // the store keeps every task
            {"pollInterval", kPollIntervalMs}};
  if (assistant_task.contains("progress") && assistant_task["progress"].is_object() &&
      assistant_task["progress"].value("total", 0) > 0) {
    const Json& p = assistant_task["progress"];
    t["statusMessage"] = t["statusMessage"].get<std::string>() + " (" + std::to_string(p.value("done", 0)) + "/" +
                         std::to_string(p.value("total", 0)) + " stages)";
  }
  return t;
}

Json linked_call_result(const LinkedResult& r, bool is_error) {
  Json content = Json::array({{{"type", "text"}, {"text", json_text(r.data, 2)}}});
  for (auto& l : r.links) {
    Json link = l;
    link["type"] = "resource_link";
    content.push_back(link);
  }
  return {{"content", content}, {"structuredContent", r.data}, {"isError", is_error}};
}

Result<Json> tools_page(const Json& all, const Json& cursor, size_t page_size) {
  size_t offset = 0;
  if (!cursor.is_null()) {
    std::string s = cursor.is_string() ? cursor.get<std::string>() : "";
    if (s.rfind("offset:", 0) != 0 || s.size() > 20 || s.find_first_not_of("0123456789", 7) != std::string::npos ||
        s.size() == 7)
      return invalid_argument("unknown cursor");
    offset = std::stoul(s.substr(7));
  }
  if (offset > all.size()) return invalid_argument("cursor past the end");
  Json tools = Json::array();
  size_t end = std::min(all.size(), offset + std::max<size_t>(1, page_size));
  for (size_t i = offset; i < end; ++i) tools.push_back(all[i]);
  Json result = {{"tools", tools}};
  if (end < all.size()) result["nextCursor"] = "offset:" + std::to_string(end);
  return result;
}

Json tool_call_result(const ToolRegistry& registry, const std::string& name, const Result<Json>& r) {
  if (!r.is_ok()) {
    const Status& s = r.status();
    std::string text = "Error (" + std::string(error_code_name(s.code())) + "): " + s.message();
    if (!s.details().empty()) text += "\nDetails: " + json_text(s.details());
    return {{"content", Json::array({{{"type", "text"}, {"text", text}}})}, {"isError", true}};
  }
  const ToolSpec* spec = registry.find(name);
  Json structured = r.value();
  // A registry tool's result is wrapped unless its schema says object; a meta-tool's object is kept.
  bool object = spec ? spec->return_schema.value("type", Json()) == "object" : true;
  if (!object || !structured.is_object()) structured = {{"result", r.value()}};
  return {{"content", Json::array({{{"type", "text"}, {"text", json_text(r.value(), 2)}}})},
          {"structuredContent", structured},
          {"isError", false}};
}

Json RunBridge::run_tool() const {
  Json schema = tools()[0]["inputSchema"];  // genefamily_task_start's arguments
  return {{"name", "genefamily_run"},
          {"description",
           "Run a gene-family analysis of a species' genome and return its results (report, figures, tables as "
           "resource links). Runs take minutes to hours: call it as a task (the task parameter of tools/call) to "
           "get the task at once and fetch the result with tasks/result; called plainly it waits for the run, "
           "sending progress notifications."},
          {"inputSchema", schema},
          {"execution", {{"taskSupport", "optional"}}}};
}

Result<LinkedResult> RunBridge::run_and_wait(const Json& args, const std::atomic<bool>& cancelled,
                                             const ToolContext::ProgressFn& progress, ClientChannel* client) {
  auto started = start(args, client);
  if (!started) return started.status();
  if (!started->data.contains("task_id")) return started;  // the parameter form was declined: nothing runs
  const std::string id = started->data.value("task_id", ""), sid = started->data.value("session_id", "");
  const auto deadline = std::chrono::steady_clock::now() + call_limit_;
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::seconds>(deadline - std::chrono::steady_clock::now());
    Json wait = {{"task_id", id}, {"session_id", sid}, {"wait_seconds", std::max<int64_t>(0, left.count())}};
    auto r = result(wait, cancelled, progress);
    if (!r && r.status().code() == ErrorCode::kCancelled) {  // the caller gave up: the run stops too
      (void)cancel(wait);
      return r.status();
    }
    if (!r || terminal_state(r->data.value("state", ""))) return r;
    if (left.count() <= 0) {  // the call's time is up; the run is not
      r->data["session_id"] = sid;
      r->data["note"] =
          "the run goes on past the tool time limit: follow it with tasks/get or "
          "genefamily_task_status / genefamily_task_result (task_id, session_id)";
      return r;
    }
  }
}

Result<Json> RunBridge::create_task(const Json& args) {
  auto started = start(args, nullptr);
  if (!started) return started.status();
  std::string id = started->data.value("task_id", "");
  auto st = assistant_.runs().status(started->data.value("session_id", ""), id);
  if (!st) return st.status();
  Json task = spec_task(*st);
  return Json{{"task", task},
              {"_meta",
               {{"bioagent/session_id", started->data.value("session_id", "")},
                {"io.modelcontextprotocol/model-immediate-response",
                 "The gene-family run " + id +
                     " has started; its result comes with tasks/result (report, figures "
                     "and tables as resources under bioagent://runs/" +
                     id + "/)."}}}};
}

Status RunBridge::attach(const std::string& session_id) {
  if (session_id.empty() || !assistant_.has_session(session_id))
    return not_found("no assistant session '" + session_id.substr(0, 100) + "'");
  std::lock_guard lock(mu_);
  sessions_.insert(session_id);
  return Status::ok();
}

Result<Json> RunBridge::task_get(const std::string& task_id) {
  auto sid = session_for(task_id, Json::object());
  if (!sid) return invalid_argument("Failed to retrieve task: " + sid.status().message());
  auto st = assistant_.runs().status(*sid, task_id);
  if (!st) return invalid_argument("Failed to retrieve task: " + st.status().message());
  return spec_task(*st);
}

Result<Json> RunBridge::task_list(const std::string& cursor, size_t page) {
  size_t offset = 0;
  if (!cursor.empty()) {
    if (cursor.rfind("tasks:", 0) != 0 || cursor.size() > 20 || cursor.size() == 6 ||
        cursor.find_first_not_of("0123456789", 6) != std::string::npos)
      return invalid_argument("unknown cursor");
    offset = std::stoul(cursor.substr(6));
  }
  std::set<std::string> sessions;
  {
    std::lock_guard lock(mu_);
    sessions = sessions_;
  }
  Json all = Json::array();
  for (auto& sid : sessions) {
    auto state = assistant_.session_state(sid);
    if (!state) continue;
    for (auto& t : (*state)["tasks"]) {
      all.push_back(spec_task(t));
      std::lock_guard lock(mu_);
      task_sid_[t.value("task_id", "")] = sid;
    }
  }
  if (offset > all.size()) return invalid_argument("cursor past the end");
  Json tasks = Json::array();
  size_t end = std::min(all.size(), offset + std::max<size_t>(1, page));
  for (size_t i = offset; i < end; ++i) tasks.push_back(all[i]);
  Json out = {{"tasks", tasks}};
  if (end < all.size()) out["nextCursor"] = "tasks:" + std::to_string(end);
  return out;
}

Result<Json> RunBridge::task_payload(const std::string& task_id, const std::atomic<bool>& cancelled) {
  auto sid = session_for(task_id, Json::object());
  if (!sid) return invalid_argument("Failed to retrieve task: " + sid.status().message());
  auto call = finished_call_result(task_id, *sid, cancelled);
  if (!call) return call.status();
  (*call)["_meta"] = {{related_task_key(), {{"taskId", task_id}}}};
  return call;
}

Result<Json> RunBridge::finished_call_result(const std::string& task_id, const std::string& sid,
                                             const std::atomic<bool>& cancelled) {
  Json wait = {{"task_id", task_id}, {"session_id", sid}, {"wait_seconds", 3600}};
  for (;;) {
    auto r = result(wait, cancelled, nullptr);
    if (!r) return r.status();
    std::string state = r->data.value("state", "");
    if (!terminal_state(state)) continue;
    r->data["session_id"] = sid;
    Json call = linked_call_result(*r, state != "done");
    if (state != "done") {
      std::string why = r->data.value("message", "");
      if (why.empty()) why = r->data.value("status", Json::object()).value("message", "");
      Json why_text = {{"type", "text"}, {"text", "The run ended " + state + (why.empty() ? "" : ": " + why)}};
      call["content"].insert(call["content"].begin(), why_text);
    }
    return call;
  }
}

Result<Json> RunBridge::task_cancel(const std::string& task_id) {
  auto sid = session_for(task_id, Json::object());
  if (!sid) return invalid_argument("Failed to retrieve task: " + sid.status().message());
  auto st = assistant_.runs().status(*sid, task_id);
  if (!st) return invalid_argument("Failed to retrieve task: " + st.status().message());
  if (terminal_state((*st).value("state", "")))
    return invalid_argument("Cannot cancel task: it is already " + spec_task_status((*st).value("state", "")));
  auto r = cancel({{"task_id", task_id}, {"session_id", *sid}});
  if (!r) return r.status();
  if (r->data.value("state", "") != "cancelled")
    return Status(ErrorCode::kInternal, "the run did not stop in time (state " + r->data.value("state", "") + ")");
  return spec_task(r->data);
}

}  // namespace bioagent::mcp
