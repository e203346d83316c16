// RunService: opening the store, starting, answering, cancelling and resuming
// tasks, the task threads' lifetimes, events and states.
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <thread>

#include "bioagent/genefamily.h"
#include "bioagent/json_text.h"
#include "runs/run_clients.h"
#include "runs/runs_internal.h"

namespace bioagent {
namespace {

constexpr const char* kSchema =
    "CREATE TABLE IF NOT EXISTS tasks (id TEXT PRIMARY KEY, session TEXT, plan_id TEXT, state TEXT, params TEXT,"
    " run_dir TEXT, data_dir TEXT, message TEXT, created TEXT, updated TEXT, attempts INTEGER DEFAULT 0);"
    "CREATE TABLE IF NOT EXISTS task_events (task TEXT, seq INTEGER, event TEXT, PRIMARY KEY (task, seq));"
    "CREATE TABLE IF NOT EXISTS learning (id INTEGER PRIMARY KEY, timestamp TEXT, error_type TEXT, pattern TEXT,"
    " error_message TEXT, root_cause TEXT, fix_strategy TEXT, changes TEXT, test_result TEXT,"
    " future_prevention TEXT, fix TEXT, origin TEXT, applied INTEGER DEFAULT 0);"
    "CREATE TABLE IF NOT EXISTS stage_durations (stage TEXT, seconds REAL, genes INTEGER, at TEXT);"
    "CREATE TABLE IF NOT EXISTS task_requests (id INTEGER PRIMARY KEY, task TEXT, action TEXT, params TEXT,"
    " at TEXT);";

constexpr const char* kUnderWay = "'checking', 'awaiting_confirmation', 'queued', 'running', 'repairing', 'validating'";

}  // namespace

RunService::RunService(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

RunService::~RunService() { shutdown(); }

int RunService::Impl::cpu_limit() const {
  int limit = std::max(1, o.cpus);
  if (o.runner != "slurm") limit = std::min(limit, int(std::max(1u, std::thread::hardware_concurrency())));
  return limit;
}

int RunService::cpu_limit() const { return impl_->cpu_limit(); }
int RunService::confirm_timeout_seconds() const { return impl_->o.confirm_timeout_seconds; }
const RunParams& RunService::base_params() const { return impl_->o.base_params; }
const fs::path& RunService::state_dir() const { return impl_->o.state_dir; }
const fs::path& RunService::shared_data_dir() const { return impl_->o.data_dir; }

Result<std::unique_ptr<RunService>> RunService::open(RunServiceOptions options, RunHooks hooks) {
  auto impl = std::make_unique<Impl>();
  impl->o = std::move(options);
  impl->hooks = std::move(hooks);
  impl->pipeline = &genefamily_pipeline();
  impl->cpu_budget.set_total(impl->cpu_limit());
  auto store = AppStore::open(impl->o.state_dir / "app.sqlite", kSchema, "the run service's store");
  if (!store) return store.status();
  impl->store = std::move(*store);
  impl->bell = std::make_unique<RequestBell>(impl->o.state_dir / "requests.bell");
  std::unique_ptr<RunService> s(new RunService(std::move(impl)));
  Impl* i = s->impl_.get();
  i->self = s.get();
  i->request_watcher = std::thread([i] { i->watch_requests(); });
  i->reaper = std::thread([i] { i->reap_finished(); });
  if (!i->o.resume_tasks) return s;
  // Tasks under way when the last process stopped resume now, unless they keep stopping it.
  auto rows = i->store->query("SELECT id, session, params, attempts FROM tasks WHERE state IN (" +
                              std::string(kUnderWay) + ") ORDER BY created");
  for (auto& r : rows ? *rows : Json::array()) {
    Json params = Json::parse(r.value("params", "{}"), nullptr, false);
    if (params.is_object() && !params.value("resumable_by_server", true)) continue;  // a command's own run
    if (r.value("attempts", 0) > i->o.max_resumes) {
      const Lang lang = lang_or_en(params.is_object() ? params.value("language", "en") : "en");
      i->set_state(r["id"], TaskState::kFailed,
                   BiText{"not resumed: the service stopped " + std::to_string(r.value("attempts", 0)) +
                              " times while this task was under way; see its events and logs, then resume it",
                          "未自动恢复：该任务运行期间服务已停止 " + std::to_string(r.value("attempts", 0)) +
                              " 次；请查看其事件与日志后手动恢复"}
                       .in(lang));
      continue;
    }
    i->start_thread(r["id"], r["session"], true);
  }
  return s;
}

void RunService::shutdown() {
  if (!impl_ || impl_->stopping.exchange(true)) return;
  {
    std::lock_guard lock(impl_->mu);
    for (auto& [id, rt] : impl_->tasks) {
      rt->cancel->store(true);
      rt->cv.notify_all();
    }
    impl_->reap_cv.notify_all();
    impl_->events_cv.notify_all();
  }
  // The reaper joins the threads it took before it stops; the rest are joined here (one joiner each).
  if (impl_->reaper.joinable()) impl_->reaper.join();
  std::map<std::string, std::shared_ptr<TaskRuntime>> tasks;
  {
    std::lock_guard lock(impl_->mu);
    tasks.swap(impl_->tasks);
  }
  for (auto& [id, rt] : tasks)
    if (rt->thread.joinable()) rt->thread.join();
  impl_->bell->stop();
  if (impl_->request_watcher.joinable()) impl_->request_watcher.join();
}

Result<Json> RunService::Impl::task_row(const std::string& owner, const std::string& task_id) const {
  auto rows = store->query("SELECT * FROM tasks WHERE id = ? AND session = ?", {task_id, owner});
  if (!rows) return rows.status();
  if (rows->empty()) return not_found("no task '" + task_id.substr(0, 80) + "' here");
  Json r = (*rows)[0];
  r["params"] = Json::parse(r.value("params", "{}"), nullptr, false);
  if (!r["params"].is_object()) r["params"] = Json::object();
  return r;
}

void RunService::Impl::emit(const std::string& task_id, Json event) {
  std::lock_guard lock(mu);
  auto last = store->query("SELECT COALESCE(MAX(seq), 0) AS n FROM task_events WHERE task = ?", {task_id});
  int64_t seq = last && !last->empty() ? (*last)[0]["n"].get<int64_t>() + 1 : 1;
  event["seq"] = seq;
  event["at"] = now_iso();
  Status w =
      last ? store->exec("INSERT INTO task_events (task, seq, event) VALUES (?,?,?)", {task_id, seq, json_text(event)})
           : last.status();
  ++event_generation;
  events_cv.notify_all();
  if (!w.is_ok()) stop_on_store_error(task_id, w);
}

void RunService::Impl::stop_on_store_error(const std::string& task_id, const Status& write) {
  std::fprintf(stderr, "bioagent: task %s stopped: its state could not be saved: %s\n", task_id.c_str(),
               write.message().c_str());
  std::shared_ptr<TaskRuntime> rt;
  {
    auto it = tasks.find(task_id);  // callers hold mu or run on the task's own thread
    if (it != tasks.end()) rt = it->second;
  }
  if (!rt) return;
  if (rt->store_error.empty()) rt->store_error = write.message();
  rt->cancel->store(true);
  rt->cv.notify_all();  // a task waiting in the parameter dialog wakes and sees the cancel
}

void RunService::Impl::set_state(const std::string& task_id, TaskState state, const std::string& message) {
  if (Status w = store->exec("UPDATE tasks SET state = ?, message = ?, updated = ? WHERE id = ?",
                             {to_string(state), message, now_iso(), task_id});
      !w.is_ok()) {
    std::lock_guard lock(mu);
    stop_on_store_error(task_id, w);
  }
  announce(task_id, state, message);  // done, failed, cancelled: the owner hears how it ended
  emit(task_id,
       {{"type", "state"}, {"state", to_string(state)}, {"terminal", is_terminal(state)}, {"message", message}});
}

void RunService::Impl::announce(const std::string& task_id, TaskState state, const std::string& message) {
  if (!is_terminal(state)) return;
  auto rows = store->query("SELECT session, run_dir, params FROM tasks WHERE id = ?", {task_id});
  if (!rows || rows->empty()) return;
  Json row = (*rows)[0];
  Json params = Json::parse(row.value("params", "{}"), nullptr, false);
  const Lang lang = params.is_object() ? lang_or_en(params.value("language", "en")) : Lang::kEn;
  Json links = Json::array();
  std::string run_dir = row["run_dir"].is_string() ? row["run_dir"].get<std::string>() : "";
  std::string text = run_outcome_text(run_dir, task_id, to_string(state), message, lang, &links);
  if (hooks.on_outcome) hooks.on_outcome(row.value("session", ""), task_id, state, text, links);
  emit(task_id, {{"type", "outcome"}, {"ended", to_string(state)}, {"text", text}, {"links", links}});
}

void RunService::Impl::start_thread(const std::string& task_id, const std::string& owner, bool resumed) {
  auto rt = std::make_shared<TaskRuntime>();
  rt->id = task_id;
  rt->owner = owner;
  store->record("UPDATE tasks SET attempts = attempts + 1 WHERE id = ?", {task_id});
  std::lock_guard lock(mu);
  tasks[task_id] = rt;
  rt->thread = std::thread([this, rt, resumed] {
    try {
      run_task(rt, resumed);
    } catch (const std::exception& e) {  // the firewall of a task's thread: the task fails, the process goes on
      set_state(rt->id, TaskState::kFailed, std::string("internal error: ") + e.what());
    }
    rt->finished = true;
    std::lock_guard l(mu);
    reap_cv.notify_all();
  });
}

// A finished task's thread is joined when it finishes, not when the process stops.
void RunService::Impl::reap_finished() {
  std::unique_lock lock(mu);
  for (;;) {
    auto any_finished = [&] {
      return std::any_of(tasks.begin(), tasks.end(), [](auto& t) { return t.second->finished.load(); });
    };
    reap_cv.wait(lock, [&] { return stopping.load() || any_finished(); });
    std::vector<std::shared_ptr<TaskRuntime>> done;
    for (auto it = tasks.begin(); it != tasks.end();)
      if (it->second->finished.load()) {
        done.push_back(it->second);
        it = tasks.erase(it);
      } else {
        ++it;
      }
    lock.unlock();
    for (auto& rt : done)
      if (rt->thread.joinable()) rt->thread.join();
    lock.lock();
    if (stopping.load()) return;
  }
}

Status RunService::Impl::check_limits(const std::string& owner) const {
  auto waiting = store->query(
      "SELECT count(*) AS n FROM tasks WHERE session = ? AND state IN ('checking', 'awaiting_confirmation')", {owner});
  if (!waiting) return waiting.status();
  if ((*waiting)[0]["n"].get<int64_t>() >= static_cast<int64_t>(kMaxWaitingDialogsPerOwner))
    return resource_exhausted(std::to_string(kMaxWaitingDialogsPerOwner) +
                              " runs of this session are already waiting for their parameters; confirm or "
                              "cancel one first")
        .with("limit", kMaxWaitingDialogsPerOwner);
  auto by_owner = store->query("SELECT session, count(*) AS n FROM tasks WHERE state IN (" + std::string(kUnderWay) +
                               ") GROUP BY session");
  if (!by_owner) return by_owner.status();
  int64_t n = 0, mine = 0;
  const std::string client = run_client_of(owner);
  for (auto& row : *by_owner) {
    const int64_t count = row["n"].get<int64_t>();
    n += count;
    if (!client.empty() && row["session"].is_string() && run_client_of(row["session"].get<std::string>()) == client)
      mine += count;
  }
  if (mine >= static_cast<int64_t>(kMaxRunsUnderWayPerClient))
    return resource_exhausted("this client already has " + std::to_string(mine) +
                              " runs under way or waiting, its share (at most " +
                              std::to_string(kMaxRunsUnderWayPerClient) +
                              " per client); cancel one or try again when one has finished")
        .with("limit", kMaxRunsUnderWayPerClient)
        .with("scope", "client");
  if (n >= static_cast<int64_t>(kMaxRunsUnderWay))
    return resource_exhausted("the server already has " + std::to_string(n) +
                              " runs under way or waiting; try again when one has finished")
        .with("limit", kMaxRunsUnderWay)
        .with("scope", "server");
  return {};
}

namespace {
std::mutex run_clients_mu;
std::map<std::string, std::string> run_clients;  // owner -> client
}  // namespace

void note_run_client(const std::string& owner, const std::string& client) {
  if (owner.empty() || client.empty()) return;
  std::lock_guard lock(run_clients_mu);
  run_clients[owner] = client;
}

std::string run_client_of(const std::string& owner) {
  std::lock_guard lock(run_clients_mu);
  auto it = run_clients.find(owner);
  return it == run_clients.end() ? "" : it->second;
}

// An owner names a folder of the state folder: one plain part, never a path.
Status check_owner(const std::string& owner) {
  if (owner.empty() || owner.size() > 100 ||
      owner.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") != std::string::npos)
    return invalid_argument("a run needs an owner (a session id of letters, digits, '_' and '-')");
  return Status::ok();
}

Result<Json> RunService::start(RunRequest rq) {
  BIOAGENT_RETURN_IF_ERROR(check_owner(rq.owner));
  if (rq.species.empty() || rq.family.empty()) return invalid_argument("a run needs a species and a family");
  auto pipeline_stages = impl_->pipeline->plan(rq.stages.empty() ? impl_->o.stages : rq.stages);
  if (!pipeline_stages) return pipeline_stages.status();
  BIOAGENT_RETURN_IF_ERROR(impl_->check_limits(rq.owner));
  const int timeout = rq.confirm_timeout_seconds > 0 ? rq.confirm_timeout_seconds : impl_->o.confirm_timeout_seconds;
  const RunParams effective = merge_run_params(impl_->o.base_params, rq.params);
  std::string id = random_id("t_");
  Json tp = {{"language", lang_name(rq.lang)},
             {"species", rq.species},
             {"species_name", rq.species_name.empty() ? rq.species : rq.species_name},
             {"family", rq.family},
             {"run_params", rq.params.to_json()},
             {"confirmed", rq.confirmed},
             {"confirm_timeout_seconds", timeout},
             {"stages", rq.stages},
             {"folder", rq.data_dir.string()},
             {"resumable_by_server", rq.resumable_by_server}};
  BIOAGENT_RETURN_IF_ERROR(impl_->store->exec(
      "INSERT INTO tasks (id, session, plan_id, state, params, run_dir, data_dir, message, created, updated) VALUES "
      "(?,?,?,?,?,?,?,?,?,?)",
      {id, rq.owner, rq.plan_id, to_string(TaskState::kChecking), json_text(tp), rq.run_dir.string(), "", "", now_iso(),
       now_iso()}));
  impl_->start_thread(id, rq.owner, false);
  return Json{{"task_id", id},
              {"plan_id", rq.plan_id},
              {"state", to_string(TaskState::kChecking)},
              {"params", dialog_shown(tp, effective, *impl_->pipeline, impl_->cpu_limit())},
              {"run_params", rq.params.to_json()},
              {"confirm_timeout_seconds", timeout},
              {"auto_confirm", rq.confirmed}};
}

Result<Json> RunService::answer(const std::string& owner, const std::string& task_id, const std::string& action,
                                const Json& params) {
  auto row = impl_->task_row(owner, task_id);
  if (!row) return row.status();
  if (action != "confirm" && action != "edit" && action != "modify" && action != "cancel")
    return Status(ErrorCode::kInvalidArgument, "action must be confirm, edit, modify or cancel")
        .with("field", "action");
  std::shared_ptr<TaskRuntime> rt;
  {
    std::lock_guard lock(impl_->mu);
    auto it = impl_->tasks.find(task_id);
    if (it != impl_->tasks.end() && !it->second->finished.load()) rt = it->second;
  }
  const std::string state = (*row)["state"];
  auto ts = task_state_from_string(state);
  if (!rt && (!ts || is_terminal(*ts)))
    return invalid_argument("task " + task_id + " is " + state + "; nothing to " + action);
  Json out = {{"task_id", task_id}, {"action", action}};
  Json given = Json::object();
  if (action != "cancel") {
    if (*ts != TaskState::kAwaitingConfirmation && *ts != TaskState::kChecking && *ts != TaskState::kRepairing)
      return invalid_argument("task " + task_id + " is " + state + ", not waiting for confirmation");
    if (action == "modify") {
      auto p = parse_run_params(params, *impl_->pipeline, impl_->cpu_limit());  // refused here, not in the task
      if (!p) return p.status();
      // Named inputs (comparative species, uploads) the server does not have are refused here, with the name.
      const Json& tp = (*row)["params"];
      if (auto named = impl_->find_named_inputs(owner, tp.value("species", ""), lang_or_en(tp.value("language", "en")),
                                                p->stages);
          !named)
        return named.status();
      given = params;
      RunParams own = RunParams{};
      if (auto mine = parse_run_params((*row)["params"].value("run_params", Json::object()).value("stages", Json()),
                                       *impl_->pipeline, impl_->cpu_limit()))
        own = *mine;
      out["params"] = dialog_view(merge_run_params(merge_run_params(impl_->o.base_params, own), *p), *impl_->pipeline,
                                  impl_->cpu_limit());
    }
  }
  if (rt) {
    Impl::hand_decision(*rt, action, given);
    return out;
  }
  // The task runs in another process on this store (a terminal chat, the server): it takes the answer there.
  BIOAGENT_RETURN_IF_ERROR(
      impl_->store->exec("INSERT INTO task_requests (task, action, params, at) VALUES (?, ?, ?, ?)",
                         {task_id, action, json_text(given), now_iso()}));
  impl_->bell->ring();
  out["forwarded"] = true;
  out["message"] = "the task runs in another process on this store; it takes the answer at once";
  return out;
}

Result<Json> RunService::cancel(const std::string& owner, const std::string& task_id) {
  auto r = answer(owner, task_id, "cancel", Json::object());
  if (!r) return r;
  // The pipeline stops at its next check (a running program is stopped); wait briefly to report the outcome.
  auto st = wait(owner, task_id, std::chrono::seconds(10));
  if (st) (*r)["state"] = (*st)["state"], (*r)["message"] = (*st)["message"];
  return r;
}

Result<Json> RunService::resume(const std::string& owner, const std::string& task_id) {
  auto row = impl_->task_row(owner, task_id);
  if (!row) return row.status();
  const std::string state = (*row)["state"];
  if (state != to_string(TaskState::kCancelled) && state != to_string(TaskState::kFailed))
    return invalid_argument("task " + task_id + " is " + state + "; only a cancelled or failed task is resumed");
  // A task that just ended may still be leaving its thread: it is given a moment.
  for (int i = 0;; ++i) {
    std::unique_lock lock(impl_->mu);
    auto it = impl_->tasks.find(task_id);
    if (it == impl_->tasks.end() || it->second->finished.load()) break;
    if (i == 250) return invalid_argument("task " + task_id + " is still stopping; resume it in a moment");
    lock.unlock();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  BIOAGENT_RETURN_IF_ERROR(impl_->check_limits(owner));
  BIOAGENT_RETURN_IF_ERROR(impl_->store->exec("UPDATE tasks SET state = ?, attempts = 0, updated = ? WHERE id = ?",
                                              {to_string(TaskState::kChecking), now_iso(), task_id}));
  impl_->start_thread(task_id, owner, true);
  return Json{{"task_id", task_id}, {"state", to_string(TaskState::kChecking)}, {"resumed", true}};
}

void RunService::Impl::hand_decision(TaskRuntime& rt, const std::string& action, const Json& params) {
  std::lock_guard lock(rt.mu);
  if (action == "cancel") {
    rt.decision = "cancel";
    rt.cancel->store(true);
  } else if (action == "edit") {  // the countdown stops until the edited parameters (or a cancel) arrive
    rt.editing = true;
  } else {
    rt.decision = action;
    rt.answer = params;
  }
  rt.cv.notify_all();
}

// Answers left by another process for tasks running here, handed over when the bell rings.
void RunService::Impl::watch_requests() {
  while (!stopping.load()) {
    bell->wait(std::chrono::seconds(30));  // rung at once; the timeout only re-reads what a lost ring left
    if (stopping.load()) return;
    std::map<std::string, std::shared_ptr<TaskRuntime>> here;
    {
      std::lock_guard lock(mu);
      here = tasks;
    }
    if (here.empty()) continue;
    auto rows = store->query("SELECT id, task, action, params FROM task_requests ORDER BY id");
    for (auto& r : rows ? *rows : Json::array()) {
      auto it = here.find(r["task"].get<std::string>());
      if (it == here.end()) continue;  // another process's task
      hand_decision(*it->second, r["action"], Json::parse(r["params"].get<std::string>(), nullptr, false));
      store->record("DELETE FROM task_requests WHERE id = ?", {r["id"]});
    }
  }
}

}  // namespace bioagent
