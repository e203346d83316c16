// The task side of Assistant's interface: execute, confirm, status, results,
// result files, diagnose, events.
#include <algorithm>
#include <fstream>
#include <map>

#include "assistant/assistant_impl.h"
#include "bioagent/genefamily.h"
#include "core/state_table.h"

namespace bioagent {

namespace {

struct TaskStateText {
  TaskState state;
  const char* name;
  BiText label;  // as people read it beside the task
};
// The one table of task states: record name and the label the interfaces show.
constexpr TaskStateText kTaskStates[] = {
    {TaskState::kQueued, "queued", {"queued", "排队中"}},
    {TaskState::kChecking, "checking", {"checking the files", "检查文件"}},
    {TaskState::kRepairing, "repairing", {"repairing", "修复中"}},
    {TaskState::kAwaitingConfirmation, "awaiting_confirmation", {"awaiting confirmation", "等待确认"}},
    {TaskState::kRunning, "running", {"running", "运行中"}},
    {TaskState::kValidating, "validating", {"validating", "验证中"}},
    {TaskState::kDone, "done", {"done", "完成"}},
    {TaskState::kFailed, "failed", {"failed", "失败"}},
    {TaskState::kCancelled, "cancelled", {"cancelled", "已取消"}},
};

}  // namespace

std::string to_string(TaskState s) { return std::string(state_table::name_of(kTaskStates, s)); }

BiText label_of(TaskState s) { return state_table::label_of(kTaskStates, s); }

const std::vector<TaskState>& all_task_states() {
  static const std::vector<TaskState> kAll = state_table::all_of(kTaskStates);
  return kAll;
}

Result<TaskState> task_state_from_string(std::string_view name) {
  for (auto& k : kTaskStates)
    if (name == k.name) return k.state;
  return not_found("no task state '" + std::string(name.substr(0, 40)) + "'");
}

const std::vector<TaskState>& terminal_task_states() {
  static const std::vector<TaskState> kTerminal = {TaskState::kDone, TaskState::kFailed, TaskState::kCancelled};
  return kTerminal;
}

bool is_terminal(TaskState s) {
  const auto& t = terminal_task_states();
  return std::find(t.begin(), t.end(), s) != t.end();
}

Result<Json> Assistant::execute(const std::string& sid, const std::string& plan_id, const Json& params,
                                bool auto_confirm) {
  BIOAGENT_RETURN_IF_ERROR(impl_->require_session(sid));
  auto rows = impl_->store->query("SELECT * FROM plans WHERE id = ? AND session = ?", {plan_id, sid});
  if (!rows) return rows.status();
  if (rows->empty()) return not_found("no plan '" + plan_id.substr(0, 80) + "' in this session");
  Json plan = Json::parse((*rows)[0]["plan"].get<std::string>(), nullptr, false);
  Json dialog = plan.value("defaults", Json::object());
  Json given = params.is_null() ? Json::object() : params;
  if (!given.is_object()) return invalid_argument("params must be an object");
  auto confirmed = confirm_params(dialog, given, runner_cpu_limit(impl_->o));
  if (!confirmed) return confirmed.status();
  BIOAGENT_RETURN_IF_ERROR(impl_->check_task_limits(sid));
  std::string id = random_id("t_");
  const Lang lang = has_cjk(plan["plan"]["analysis_plan"].value("next_action", "")) ? Lang::kZh : Lang::kEn;
  Json tp = {{"dialog", *confirmed},
             {"confirmed", auto_confirm || !given.empty()},
             {"language", BiText{"en", "zh"}.in(lang)},
             {"confirm_timeout_seconds", impl_->o.confirm_timeout_seconds}};
  BIOAGENT_RETURN_IF_ERROR(impl_->store->exec(
      "INSERT INTO tasks (id, session, plan_id, state, params, run_dir, data_dir, message, created, updated) VALUES "
      "(?,?,?,?,?,?,?,?,?,?)",
      {id, sid, plan_id, to_string(TaskState::kChecking), tp.dump(), "", "", "", now_iso(), now_iso()}));
  impl_->start_task(id, sid, false);
  return Json{{"task_id", id},
              {"plan_id", plan_id},
              {"state", to_string(TaskState::kChecking)},
              {"params", *confirmed},
              {"confirm_timeout_seconds", impl_->o.confirm_timeout_seconds},
              {"auto_confirm", bool(tp["confirmed"])}};
}

Status Assistant::Impl::check_task_limits(const std::string& sid) const {
  auto waiting = store->query(
      "SELECT count(*) AS n FROM tasks WHERE session = ? AND state IN ('checking', 'awaiting_confirmation')", {sid});
  if (!waiting) return waiting.status();
  if ((*waiting)[0]["n"].get<int64_t>() >= static_cast<int64_t>(kMaxWaitingDialogsPerSession)) {
    Status s = resource_exhausted(std::to_string(kMaxWaitingDialogsPerSession) +
                                  " runs of this session are already waiting for their parameters; confirm or "
                                  "cancel one first");
    s.with("limit", kMaxWaitingDialogsPerSession);
    return s;
  }
  auto active = store->query(
      "SELECT count(*) AS n FROM tasks WHERE state IN ('checking', 'awaiting_confirmation', 'queued', 'running', "
      "'repairing', 'validating')");
  if (!active) return active.status();
  const int64_t n = (*active)[0]["n"].get<int64_t>();
  if (n >= static_cast<int64_t>(kMaxWaitingDialogs)) {
    Status s = resource_exhausted("the server already has " + std::to_string(n) +
                                  " runs under way or waiting; try again when one has finished");
    s.with("limit", kMaxWaitingDialogs);
    return s;
  }
  return {};
}

Result<Json> Assistant::confirm(const std::string& sid, const std::string& task_id, const std::string& action,
                                const Json& params) {
  auto row = impl_->task_row(sid, task_id);
  if (!row) return row.status();
  if (action != "confirm" && action != "edit" && action != "modify" && action != "cancel")
    return Status(ErrorCode::kInvalidArgument, "action must be confirm, edit, modify or cancel")
        .with("field", "action");
  std::shared_ptr<TaskRuntime> rt;
  {
    std::lock_guard lock(impl_->mu);
    auto it = impl_->tasks.find(task_id);
    if (it != impl_->tasks.end()) rt = it->second;
  }
  std::string state = (*row)["state"];
  auto ts = task_state_from_string(state);
  if (!rt && (!ts || is_terminal(*ts)))  // (a run of this process takes a late cancel harmlessly)
    return invalid_argument("task " + task_id + " is " + state + "; nothing to confirm");
  Json out = {{"task_id", task_id}, {"action", action}};
  Json merged = Json::object();
  if (action != "cancel") {
    if (*ts != TaskState::kAwaitingConfirmation && *ts != TaskState::kChecking)
      return invalid_argument("task " + task_id + " is " + state + ", not waiting for confirmation");
    if (action != "edit") {
      Json dialog = (*row)["params"].value("dialog", Json::object());
      auto m = confirm_params(dialog, action == "modify" ? params : Json::object(), runner_cpu_limit(impl_->o));
      if (!m) return m.status();
      merged = *m;
      out["params"] = merged;
    }
  }
  if (rt) {
    Impl::hand_decision(*rt, action, merged);
    return out;
  }
  // The task runs in another process on this store (a terminal chat, the server): it reads the answer there.
  BIOAGENT_RETURN_IF_ERROR(
      impl_->store->exec("INSERT INTO task_requests (task, action, params, at) VALUES (?, ?, ?, ?)",
                         {task_id, action, merged.dump(), now_iso()}));
  out["forwarded"] = true;
  out["message"] = "the task runs in another process on this store; it takes the answer within a second";
  return out;
}

void Assistant::Impl::hand_decision(TaskRuntime& rt, const std::string& action, const Json& params) {
  std::lock_guard lock(rt.mu);
  if (action == "cancel") {
    rt.decision = "cancel";
    rt.cancel->store(true);
  } else if (action == "edit") {  // the countdown stops until the edited parameters (or a cancel) arrive
    rt.editing = true;
  } else {
    rt.decision = action;
    rt.params = params;
  }
  rt.cv.notify_all();
}

void Assistant::Impl::watch_requests() {
  while (!stopping.load()) {
    std::map<std::string, std::shared_ptr<TaskRuntime>> here;
    {
      std::unique_lock lock(mu);
      events_cv.wait_for(lock, kRequestPoll, [&] { return stopping.load(); });
      here = tasks;
    }
    if (stopping.load()) return;
    if (here.empty()) continue;
    auto rows = store->query("SELECT id, task, action, params FROM task_requests ORDER BY id");
    if (!rows) continue;
    for (auto& r : *rows) {
      auto it = here.find(r["task"].get<std::string>());
      if (it == here.end()) continue;  // another process's task
      hand_decision(*it->second, r["action"], Json::parse(r["params"].get<std::string>(), nullptr, false));
      store->record("DELETE FROM task_requests WHERE id = ?", {r["id"]});
    }
  }
}

Result<Json> Assistant::status(const std::string& sid, const std::string& task_id) const {
  auto row = impl_->task_row(sid, task_id);
  if (!row) return row.status();
  auto ts = task_state_from_string((*row)["state"].get<std::string>());
  Json out = {{"task_id", task_id},
              {"state", (*row)["state"]},
              {"terminal", ts && is_terminal(*ts)},
              {"message", (*row)["message"]},
              {"params", (*row)["params"].value("dialog", Json::object())},
              {"created", (*row)["created"]},
              {"updated", (*row)["updated"]}};
  // Each stage's latest state from the events.
  {
    std::lock_guard lock(impl_->mu);
    auto it = impl_->tasks.find(task_id);
    if (it != impl_->tasks.end() && !it->second->store_error.empty())
      return Status(ErrorCode::kInternal,
                    "this task was stopped because its state could not be saved: " + it->second->store_error);
  }
  auto ev = impl_->store->query("SELECT event FROM task_events WHERE task = ? ORDER BY seq", {task_id});
  if (!ev) return Status(ev.status().code(), "the task's stage events could not be read: " + ev.status().message());
  Json stages = Json::object(), running = Json::object();
  int done = 0, total = 0;
  for (auto& r : *ev) {
    Json e = Json::parse(r["event"].get<std::string>(), nullptr, false);
    if (e.value("type", "") != "stage") continue;
    stages[e.value("stage", "")] = e.value("state", "");
    if (e.value("done", -1) >= 0) done = e.value("done", done);  // -1: a progress or repair note
    total = e.value("total", total);
    if (e.contains("progress")) running[e.value("stage", "")] = e["progress"];
    if (e.value("state", "") != "running") running.erase(e.value("stage", ""));
  }
  out["stages"] = stages;
  out["running"] = running;  // each running stage's last progress: elapsed seconds, step, phase
  out["progress"] = {{"done", done}, {"total", total}};
  out["events"] = ev->size();
  return out;
}

namespace {

// A stage's log from its status.json entry: its folder's stage.log, else the
// failed attempt's log kept beside it; only inside the run's stages/ folder.
fs::path stage_log_path(const fs::path& run_dir, const Json& stage_status) {
  std::string folder = stage_status.value("folder", "");
  if (folder.empty()) return {};
  std::error_code ec;
  const fs::path stages = fs::weakly_canonical(run_dir / "stages", ec);
  for (fs::path p : {fs::path(folder) / "stage.log", fs::path(folder + ".failed.log")}) {
    fs::path c = fs::weakly_canonical(p, ec);
    if (ec || !fs::is_regular_file(c, ec) || fs::is_symlink(p, ec)) continue;
    auto rel = c.lexically_relative(stages);
    if (!rel.empty() && *rel.begin() != "..") return c;
  }
  return {};
}

}  // namespace

Result<Json> Assistant::session_state(const std::string& sid) const {
  auto m = messages(sid);
  if (!m) return m.status();
  Json out = {{"session_id", sid}, {"messages", (*m)["messages"]}, {"files", Json::array()}};
  std::error_code ec;
  std::vector<fs::path> uploaded;
  for (auto& e : fs::directory_iterator(impl_->session_dir(sid) / "data", ec))
    if (e.is_regular_file(ec) && e.path().filename().string()[0] != '.') uploaded.push_back(e.path());
  std::sort(uploaded.begin(), uploaded.end());
  for (auto& p : uploaded)
    out["files"].push_back({{"name", p.filename().string()},
                            {"bytes", fs::file_size(p, ec)},
                            {"naming", check_file_name(p.filename().string())}});
  auto tasks = impl_->store->query(
      "SELECT id AS task_id, state, message, created, updated FROM tasks WHERE session = ? ORDER BY created, id",
      {sid});
  if (!tasks) return tasks.status();
  out["tasks"] = *tasks;
  return out;
}

Result<Json> Assistant::results(const std::string& sid, const std::string& task_id) const {
  auto row = impl_->task_row(sid, task_id);
  if (!row) return row.status();
  std::string state = (*row)["state"];
  fs::path run_dir = (*row).value("run_dir", "");
  Json out = {{"task_id", task_id}, {"state", state}, {"message", (*row)["message"]}};
  std::error_code ec;
  if (run_dir.empty() || !fs::is_directory(run_dir / "final", ec)) {
    out["files"] = Json::array();
    out["note"] = "no results yet: the task is " + state;
    return out;
  }
  Json files = Json::array();
  for (auto& e : fs::directory_iterator(run_dir / "final", ec))
    if (e.is_regular_file(ec))
      files.push_back({{"name", e.path().filename().string()},
                       {"bytes", e.file_size(ec)},
                       {"url", result_file_url(task_id, e.path().filename().string())}});
  std::sort(files.begin(), files.end(), [](const Json& a, const Json& b) { return a["name"] < b["name"]; });
  // Each figure's numbered caption in the run's language, as the report gives it (figure_captions.json).
  const auto caption = figure_captions(run_dir / "final");
  for (auto& f : files)
    if (auto it = caption.find(f["name"].get<std::string>()); it != caption.end())
      f["caption"] = it->second.value("caption", std::string()), f["figure"] = it->second.value("number", 0);
  for (const char* f : {"validation.json", "status.json"}) {
    std::ifstream in(run_dir / f);
    Json j = Json::parse(in, nullptr, false);
    if (j.is_discarded()) continue;
    out[fs::path(f).stem().string()] = j;
    files.push_back({{"name", f}, {"bytes", fs::file_size(run_dir / f, ec)}, {"url", result_file_url(task_id, f)}});
  }
  out["files"] = files;
  Json logs = Json::array();  // each stage's log (stage.log, or the failed attempt's)
  if (out.contains("status"))
    for (auto& st : out["status"].value("stages", Json::array()))
      if (!stage_log_path(run_dir, st).empty()) {
        std::string name = "logs/" + st.value("stage", "") + ".log";
        logs.push_back({{"stage", st.value("stage", "")}, {"name", name}, {"url", result_file_url(task_id, name)}});
      }
  out["logs"] = logs;
  std::ifstream lit(run_dir / "final" / "literature_comparison.md");
  out["literature_comparison"] = std::string(std::istreambuf_iterator<char>(lit), {});
  return out;
}

Result<fs::path> Assistant::result_file(const std::string& sid, const std::string& task_id,
                                        const std::string& relative) const {
  auto row = impl_->task_row(sid, task_id);
  if (!row) return row.status();
  fs::path run_dir = (*row).value("run_dir", "");
  if (run_dir.empty()) return not_found("the task has no results yet");
  // A named lookup: the name must be one of the regular files listed under the
  // run's final/ folder (symlinks and hidden entries are not listed); the
  // request's text is never joined onto a path.
  std::error_code ec;
  if (relative == "status.json" || relative == "validation.json") {
    if (fs::is_regular_file(run_dir / relative, ec)) return run_dir / relative;
    return not_found(relative + " is not written yet (the run has not finished)");
  }
  if (relative.rfind("logs/", 0) == 0) {  // logs/<stage>.log: a stage named in status.json
    Json status = Json::parse(std::ifstream(run_dir / "status.json"), nullptr, false);
    if (status.is_object())
      for (auto& st : status.value("stages", Json::array()))
        if ("logs/" + st.value("stage", "") + ".log" == relative) {
          fs::path log = stage_log_path(run_dir, st);
          if (!log.empty()) return log;
        }
    return not_found("no log named '" + relative.substr(0, 200) + "' (see the task's results for its logs)");
  }
  fs::path base = run_dir / "final";
  for (fs::recursive_directory_iterator it(base, ec), end; !ec && it != end; it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (!name.empty() && name[0] == '.') {
      if (it->is_directory(ec)) it.disable_recursion_pending();
      continue;
    }
    if (it->is_symlink(ec) || !it->is_regular_file(ec)) continue;
    if (fs::relative(it->path(), base, ec).generic_string() == relative) return it->path();
  }
  return not_found("no file named '" + relative.substr(0, 200) + "' in the task's results (see its file list)");
}

Result<Json> Assistant::diagnose(const std::string& sid, const std::string& task_id, const std::string& error_log) {
  BIOAGENT_RETURN_IF_ERROR(impl_->require_session(sid));
  Json problems = Json::array();
  std::string stage = "unknown", text = error_log;
  if (!task_id.empty()) {
    auto row = impl_->task_row(sid, task_id);
    if (!row) return row.status();
    if (text.empty()) text = (*row).value("message", "");
    fs::path data = (*row).value("data_dir", "");
    if (!data.empty())
      if (auto c = check_species_data(data, "", "", false)) problems = c->value("problems", Json::array());
  }
  if (text.empty()) return invalid_argument("give error_log or a task_id whose task failed");
  if (text.size() > 100000) text = text.substr(text.size() - 100000);  // the tail holds the error
  // Naming problems only count when the log is about them.
  if (text.find("rule") == std::string::npos && text.find("not found") == std::string::npos) problems = Json::array();
  Diagnosis d = classify_failure(stage, text, problems);
  const DiagnosisRepair* r = find_repair(d.fix);
  Json out = d.to_json();
  out["error_message"] = text.substr(0, 2000);
  if (r)
    out["repair"] = {
        {"key", r->key}, {"strategy", r->strategy}, {"automatic", r->automatic}, {"future_prevention", r->prevention}};
  // What earlier runs learned about this kind of failure.
  auto learned = impl_->store->query(
      "SELECT timestamp, fix_strategy, test_result, origin FROM learning WHERE error_type = ? ORDER BY id DESC LIMIT 5",
      {d.error_type});
  out["learned"] = learned ? *learned : Json::array();
  return out;
}

Json Assistant::events(const std::string& sid, const std::string& task_id, int64_t after,
                       std::chrono::milliseconds wait) const {
  if (!impl_->task_row(sid, task_id)) return Json::array();
  auto deadline = std::chrono::steady_clock::now() + wait;
  for (;;) {
    uint64_t gen;
    {
      std::lock_guard lock(impl_->mu);
      gen = impl_->event_generation;
    }
    auto rows = impl_->store->query("SELECT event FROM task_events WHERE task = ? AND seq > ? ORDER BY seq LIMIT 500",
                                    {task_id, after});
    Json out = Json::array();
    if (rows)
      for (auto& r : *rows) out.push_back(Json::parse(r["event"].get<std::string>(), nullptr, false));
    if (!out.empty() || std::chrono::steady_clock::now() >= deadline || impl_->stopping.load()) return out;
    std::unique_lock lock(impl_->mu);
    impl_->events_cv.wait_until(lock, deadline, [&] { return impl_->event_generation != gen || impl_->stopping; });
  }
}

}  // namespace bioagent
