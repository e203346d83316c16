// Registry tools as the specification's tasks: a task-capable tool (the
// literature fan-out over several sources, which can take minutes) called with
// a `task` parameter runs on its own thread; the task and its CallToolResult
// live in the MCP session's memory until `ttl` after the call ends.
#include <ctime>
#include <random>
#include <thread>

#include "core/thread_reaper.h"
#include "mcp/mcp_internal.h"

namespace bioagent::mcp {
namespace {

std::string utc_now() {
  std::time_t t = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&t, &utc);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return buf;
}

std::string new_task_id() {
  static std::mutex mu;
  static std::random_device rd;
  std::lock_guard lock(mu);
  char buf[40];
  std::snprintf(buf, sizeof buf, "tool_%08x%08x%08x", rd(), rd(), rd());
  return buf;
}

}  // namespace

struct ToolTasks::Entry {
  Json task;    // the Task (status, statusMessage, times)
  Json result;  // the CallToolResult once the call ended
  bool ended = false;
  std::chrono::steady_clock::time_point ended_at;
  std::shared_ptr<std::atomic<bool>> cancelled = std::make_shared<std::atomic<bool>>(false);
  std::thread thread;
};

ClientShares& mcp_task_shares() {
  static ClientShares shares("MCP tasks running", 64, quarter_share(64));
  return shares;
}

// The registry tools that can take minutes: the literature fan-out and the paper library's ingest.
bool ToolTasks::task_capable(const std::string& tool) {
  return tool == "multi_source_literature_search" || tool == "add_papers_to_library";
}
bool ToolTasks::is_tool_task(const std::string& task_id) { return task_id.rfind("tool_", 0) == 0; }

ToolTasks::~ToolTasks() {
  std::map<std::string, std::shared_ptr<Entry>> all;
  {
    std::lock_guard lock(mu_);
    closing_ = true;
    all = tasks_;
  }
  for (auto& [id, e] : all) e->cancelled->store(true);
  for (auto& [id, e] : all)
    if (e->thread.joinable()) e->thread.join();
}

Result<Json> ToolTasks::create(Work work, const std::string& client) {
  BIOAGENT_RETURN_IF_ERROR(mcp_task_shares().take(client));
  auto e = std::make_shared<Entry>();
  std::string now = utc_now();
  e->task = {{"taskId", new_task_id()}, {"status", "working"},  {"statusMessage", "the call is running"},
             {"createdAt", now},        {"lastUpdatedAt", now}, {"ttl", ttl_.count()},
             {"pollInterval", 1000}};
  Json task = e->task;
  std::lock_guard lock(mu_);
  expire_locked();
  tasks_[task["taskId"]] = e;
  e->thread = std::thread([this, e, client, work = std::move(work)]() mutable {
    Json result;
    try {
      result = work(e->cancelled);
    } catch (const std::exception& ex) {  // firewall: a call's bug fails its task, not the server
      result = {{"isError", true}, {"content", Json::array({{{"type", "text"}, {"text", valid_utf8(ex.what())}}})}};
    }
    work = nullptr;  // what the call held goes with it
    mcp_task_shares().give_back(client);
    std::lock_guard lock(mu_);
    e->ended = true;
    e->ended_at = std::chrono::steady_clock::now();
    e->task["lastUpdatedAt"] = utc_now();
    if (e->task["status"] == "working") {  // a cancelled task stays cancelled
      bool error = result.value("isError", false);
      e->task["status"] = error ? "failed" : "completed";
      e->task["statusMessage"] = error ? "the call failed" : "the call finished";
    }
    e->result = std::move(result);
    if (!closing_) join_when_finished(std::move(e->thread));  // its last act: nothing of `this` after the unlock
    cv_.notify_all();
  });
  return task;
}

// Ended tasks older than the ttl are dropped (their threads have finished).
void ToolTasks::expire_locked() {
  auto now = std::chrono::steady_clock::now();
  for (auto it = tasks_.begin(); it != tasks_.end();) {
    if (it->second->ended && now - it->second->ended_at > ttl_) {
      if (it->second->thread.joinable()) it->second->thread.detach();  // ended: nothing left to run
      it = tasks_.erase(it);
    } else {
      ++it;
    }
  }
}

std::shared_ptr<ToolTasks::Entry> ToolTasks::find(const std::string& task_id) {
  expire_locked();
  auto it = tasks_.find(task_id);
  return it == tasks_.end() ? nullptr : it->second;
}

Result<Json> ToolTasks::get(const std::string& task_id) {
  std::lock_guard lock(mu_);
  auto e = find(task_id);
  if (!e) return invalid_argument("Failed to retrieve task: no task '" + task_id.substr(0, 100) + "' (or it expired)");
  return e->task;
}

Json ToolTasks::list() {
  std::lock_guard lock(mu_);
  expire_locked();
  Json out = Json::array();
  for (auto& [id, e] : tasks_) out.push_back(e->task);
  return out;
}

Result<Json> ToolTasks::payload(const std::string& task_id, const std::atomic<bool>& cancelled) {
  std::unique_lock lock(mu_);
  auto e = find(task_id);
  if (!e) return invalid_argument("Failed to retrieve task: no task '" + task_id.substr(0, 100) + "' (or it expired)");
  while (!e->ended) {
    if (cancelled.load()) return Status(ErrorCode::kCancelled, "the wait was cancelled (the task goes on)");
    cv_.wait_for(lock, std::chrono::milliseconds(200));
  }
  Json result = e->result;
  if (e->task["status"] == "cancelled")
    result = {{"content", Json::array({{{"type", "text"}, {"text", "The call was cancelled."}}})}, {"isError", true}};
  result["_meta"] = {{"io.modelcontextprotocol/related-task", {{"taskId", task_id}}}};
  return result;
}

Result<Json> ToolTasks::cancel(const std::string& task_id) {
  std::lock_guard lock(mu_);
  auto e = find(task_id);
  if (!e) return invalid_argument("Failed to retrieve task: no task '" + task_id.substr(0, 100) + "' (or it expired)");
  if (e->task["status"] != "working")
    return invalid_argument("Cannot cancel task: it is already " + e->task["status"].get<std::string>());
  e->cancelled->store(true);  // the tool stops at its next check
  e->task["status"] = "cancelled";
  e->task["statusMessage"] = "cancelled by the client";
  e->task["lastUpdatedAt"] = utc_now();
  return e->task;
}

}  // namespace bioagent::mcp
