// The run service's queries: a task's status, results, files, events and
// diagnosis; the task state table.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <thread>

#include "bioagent/genefamily.h"
#include "core/state_table.h"
#include "runs/runs_internal.h"

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

namespace {

// Seconds from the "~m:ss" or "~h:mm:ss" a tool's phase carries (IQ-TREE's own estimate of its time left); -1 when
// none.
double seconds_in_phase(const std::string& phase) {
  size_t at = phase.find('~');
  if (at == std::string::npos) return -1;
  double total = 0;
  int parts = 0;
  for (size_t i = at + 1; i <= phase.size(); ++i) {
    size_t j = i;
    while (j < phase.size() && std::isdigit(static_cast<unsigned char>(phase[j]))) ++j;
    if (j == i) return -1;
    total = total * 60 + std::stod(phase.substr(i, j - i));
    ++parts;
    if (j >= phase.size() || phase[j] != ':') break;
    i = j;
  }
  return parts >= 2 ? total : -1;
}

// The run's time left, re-estimated from what ran: a running stage's own estimate (IQ-TREE's, from its log) or
// its median past duration less its elapsed time; each pending stage's median past duration; the work spread
// over the run's CPUs, never less than the longest single stage left. {seconds, by_stage}; seconds is null
// ("not estimated") when a stage left has no basis.
Json time_left(const Json& stages, const Json& running, const Json& medians, int cpus) {
  Json by_stage = Json::object();
  double sum = 0, longest = 0;
  bool known = true;
  for (auto& [name, state] : stages.items()) {
    const std::string st = state.get<std::string>();
    if (st != "pending" && st != "running" && st != "repairing") continue;
    double left = -1;
    const double median = medians.contains(name) ? medians[name].get<double>() : -1;
    if (running.contains(name)) {
      const Json& p = running[name];
      left = seconds_in_phase(p.value("phase", std::string()));
      const double elapsed = p.value("elapsed_seconds", 0.0);
      if (left < 0 && median >= 0 && elapsed < median) left = median - elapsed;
    } else {
      left = median;
    }
    by_stage[name] = left >= 0 ? Json(std::round(left)) : Json(nullptr);
    if (left < 0) known = false;
    sum += std::max(0.0, left);
    longest = std::max(longest, left);
  }
  return {{"seconds", known ? Json(std::round(std::max(longest, sum / std::max(1, cpus)))) : Json(nullptr)},
          {"by_stage", by_stage}};
}

}  // namespace

Result<Json> RunService::status(const std::string& owner, const std::string& task_id) const {
  auto row = impl_->task_row(owner, task_id);
  if (!row) return row.status();
  auto ts = task_state_from_string((*row)["state"].get<std::string>());
  Json out = {{"task_id", task_id},
              {"state", (*row)["state"]},
              {"terminal", ts && is_terminal(*ts)},
              {"message", (*row)["message"]},
              {"params", Json::object()},
              {"run_params", (*row)["params"].value("run_params", Json::object())},
              {"created", (*row)["created"]},
              {"updated", (*row)["updated"]}};
  const Json rp = out["run_params"];
  if (auto mine = parse_run_params(rp.value("stages", Json::object()), *impl_->pipeline, impl_->cpu_limit())) {
    mine->cpus = rp.value("cpus", 0);
    out["params"] = dialog_shown((*row)["params"], merge_run_params(impl_->o.base_params, *mine), *impl_->pipeline,
                                 impl_->cpu_limit());
  }
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
  Json stages = Json::object(), running = Json::object(), failed = Json::object();
  int done = 0, total = 0;
  for (auto& r : *ev) {
    Json e = Json::parse(r["event"].get<std::string>(), nullptr, false);
    if (e.value("type", "") != "stage") continue;
    stages[e.value("stage", "")] = e.value("state", "");
    if (e.value("done", -1) >= 0) done = e.value("done", done);  // -1: a progress or repair note
    total = e.value("total", total);
    if (e.contains("progress")) running[e.value("stage", "")] = e["progress"];
    if (e.value("state", "") != "running") running.erase(e.value("stage", ""));
    if (e.value("state", "") == "failed")
      failed[e.value("stage", "")] = e.value("message", "");
    else if (e.value("done", -1) >= 0)
      failed.erase(e.value("stage", ""));  // a later attempt settled it
  }
  // Why each failed stage failed, in the stage's own words (a check's or a program's message).
  out["failed_stages"] = Json::array();
  for (auto& [stage, why] : failed.items()) out["failed_stages"].push_back({{"stage", stage}, {"error_message", why}});
  out["stages"] = stages;
  out["running"] = running;  // each running stage's last progress: elapsed seconds, step, phase
  out["progress"] = {{"done", done}, {"total", total}};
  out["events"] = ev->size();
  if (!out["terminal"].get<bool>()) {
    Json left = time_left(stages, running, stage_seconds(), out["params"].value("cpu", impl_->cpu_limit()));
    out["expected_seconds_left"] = left["seconds"];
    out["expected_by_stage"] = left["by_stage"];
  }
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
  for (fs::path p :
       {fs::path(folder) / "stage.log", fs::path(folder + ".failed.log"), fs::path(folder + ".cancelled.log")}) {
    fs::path c = fs::weakly_canonical(p, ec);
    if (ec || !fs::is_regular_file(c, ec) || fs::is_symlink(p, ec)) continue;
    auto rel = c.lexically_relative(stages);
    if (!rel.empty() && *rel.begin() != "..") return c;
  }
  return {};
}

}  // namespace

Result<Json> RunService::results(const std::string& owner, const std::string& task_id) const {
  auto row = impl_->task_row(owner, task_id);
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

Result<fs::path> RunService::result_file(const std::string& owner, const std::string& task_id,
                                         const std::string& relative) const {
  auto row = impl_->task_row(owner, task_id);
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

Result<Json> RunService::diagnose(const std::string& owner, const std::string& task_id, const std::string& error_log) {
  Json problems = Json::array();
  std::string stage = "unknown", text = error_log;
  if (!task_id.empty()) {
    auto row = impl_->task_row(owner, task_id);
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

Result<Json> RunService::tasks(const std::string& owner) const {
  return impl_->store->query(
      "SELECT id AS task_id, state, message, created, updated FROM tasks WHERE session = ? ORDER BY created, id",
      {owner});
}

std::string RunService::running_task(const std::string& owner) const {
  auto rows =
      impl_->store->query("SELECT id, state FROM tasks WHERE session = ? ORDER BY created DESC, id DESC", {owner});
  for (auto& r : rows ? *rows : Json::array()) {
    auto ts = task_state_from_string(r.value("state", ""));
    if (ts && !is_terminal(*ts)) return r["id"];
  }
  return "";
}

Result<Json> RunService::wait(const std::string& owner, const std::string& task_id, std::chrono::milliseconds wait,
                              const std::function<void(const Json&)>& on_event) const {
  const auto deadline = std::chrono::steady_clock::now() + wait;
  int64_t after = 0;
  for (;;) {
    auto st = status(owner, task_id);
    if (!st) return st;
    const auto now = std::chrono::steady_clock::now();
    if ((*st).value("terminal", false) || now >= deadline) {
      if (on_event)  // the events that led to the end
        for (auto& e : events(owner, task_id, after, std::chrono::milliseconds(0))) on_event(e);
      return st;
    }
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now);
    for (auto& e : events(owner, task_id, after, std::min(left, std::chrono::milliseconds(1000)))) {
      after = std::max<int64_t>(after, e.value("seq", after));
      if (on_event) on_event(e);
    }
  }
}

Json RunService::events(const std::string& owner, const std::string& task_id, int64_t after,
                        std::chrono::milliseconds wait) const {
  if (!impl_->task_row(owner, task_id)) return Json::array();
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
