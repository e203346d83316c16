// Assistant::Impl, shared by assistant.cpp (sessions, chat, plans, uploads,
// learning) and task_runner.cpp (execution agent, diagnosis, events).
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <optional>
#include <thread>

#include "assistant/agents.h"
#include "bioagent/pipeline.h"

namespace bioagent {

class LlmClient;

// The parameter dialog's values (cpu, evalue, max_target_seqs, method; the
// display fields stage/species/family/prefix) merged over `base`, each checked;
// cpu from 1 to `max_cpus` (the error names the limit).
Result<Json> confirm_params(Json base, const Json& given, int max_cpus);

// The CPUs a task may ask for: the configured budget, and on the local runner
// no more than the machine's cores.
int runner_cpu_limit(const AssistantOptions& o);

// Whether a plan's run can start: the protein file is there (or a rename will make it).
bool plan_executable(const Json& plan);
// The chat text reporting a finished run (links: [{kind, name, url}] added).
std::string run_outcome_text(const fs::path& run_dir, const std::string& task_id, const std::string& state,
                             const std::string& message, Lang lang, Json* links);

// The server's CPU budget shared by all runs: a run takes its CPUs before its
// pipeline starts and gives them back after; runs wait in arrival order.
class CpuBudget {
 public:
  void set_total(int cpus) { free_ = total_ = std::max(1, cpus); }
  int total() const { return total_; }
  // Blocks until `cpus` are free and `task_id` is first in line; `on_position(n)`
  // is told the 1-based queue position whenever it changes. False when `give_up`
  // became true while waiting (cancelled, shutting down).
  bool acquire(const std::string& task_id, int cpus, const std::function<bool()>& give_up,
               const std::function<void(size_t)>& on_position);
  void release(int cpus);
  size_t queued() const;

 private:
  mutable std::mutex mu_;
  std::condition_variable cv_;
  int total_ = 1, free_ = 1;
  std::deque<std::string> line_;
};

// Runs whose parameter dialog may wait at once per session, and runs under way
// or waiting in the server: each holds a thread, so more executes are refused.
inline constexpr size_t kMaxWaitingDialogsPerSession = 4;
inline constexpr size_t kMaxWaitingDialogs = 32;  // server-wide, every unfinished run

struct TaskContext;  // what the steps of one task share (task_runner.cpp)

// One task running in this process: its confirmation state and cancel flag.
struct TaskRuntime {
  std::string id, session;
  std::mutex mu;
  std::condition_variable cv;
  std::string decision;  // "", confirm, modify, cancel
  bool editing = false;  // the user is editing the parameters: the countdown stopped
  Json params;           // the confirmed (or modified) dialog parameters
  std::shared_ptr<std::atomic<bool>> cancel = std::make_shared<std::atomic<bool>>(false);
  std::thread thread;
  std::string store_error;  // set (under Impl::mu) when a state or event could not be saved: the task is stopped
};

struct Assistant::Impl {
  AssistantOptions o;
  AgentEnv env;
  std::unique_ptr<AppStore> store;
  std::unique_ptr<LlmClient> llm;  // null: offline agents
  std::string model_name = "none";
  std::mutex mu;  // tasks map and event generation
  std::condition_variable events_cv;
  uint64_t event_generation = 0;
  std::map<std::string, std::shared_ptr<TaskRuntime>> tasks;
  std::atomic<bool> stopping{false};
  CpuBudget cpu_budget;  // total: runner_cpu_limit(o), set at open
  // Answers to the parameter dialog (confirm, edit, modify, cancel) given in another process
  // on the same store (a terminal chat, the server) wait in task_requests; this thread hands
  // those for tasks running here to them, every kRequestPoll.
  std::thread request_watcher;
  static constexpr std::chrono::milliseconds kRequestPoll{400};
  void watch_requests();
  // Gives a decision to a task running here: cancel at any time, the others while its dialog waits.
  static void hand_decision(TaskRuntime& rt, const std::string& action, const Json& params);

  fs::path session_dir(const std::string& sid) const { return o.state_dir / "sessions" / sid; }
  Status require_session(const std::string& sid) const;
  // The task row if it belongs to the session (else not found: other sessions' tasks do not exist).
  Result<Json> task_row(const std::string& sid, const std::string& task_id) const;
  // Both save to the store; a failed write stops the task (resuming depends on
  // these rows) and status() then reports the store's error instead of a stale state.
  void emit(const std::string& task_id, Json event);
  void stop_on_store_error(const std::string& task_id, const Status& write);
  void set_state(const std::string& task_id, TaskState state, const std::string& message);
  void start_task(const std::string& task_id, const std::string& session, bool resumed);
  // Refuses a new run when the session has kMaxWaitingDialogsPerSession dialogs
  // waiting or the server kMaxWaitingDialogs runs under way (each holds a thread).
  Status check_task_limits(const std::string& sid) const;
  void run_task(std::shared_ptr<TaskRuntime> rt, bool resumed);
  // The steps of run_task; those returning bool or an optional are false/null when the task ended there.
  bool find_task_data(TaskContext& t);
  bool check_task_names(TaskContext& t);
  void apply_learned_prevention(const TaskContext& t, const Json& problems);
  Json repair_task_names(const TaskContext& t, const Diagnosis& d, const DiagnosisRepair& repair,
                         const Json& problems);  // the problems left after the repair
  std::string await_decision(TaskRuntime& rt, const TaskContext& t, int timeout);
  bool confirm_task_params(TaskRuntime& rt, TaskContext& t);
  Json task_stage_params(const Json& dialog) const;
  // The server's stage parameters (tool option pipeline_params), {} when none or not an object.
  Json server_stage_params() const;
  bool wait_for_cpus(TaskRuntime& rt, const TaskContext& t, int cpus);
  void emit_stage_event(const TaskContext& t, const PipelineEvent& e);
  void learn_stage_repair(const PipelineEvent& e);
  PipelineOptions task_pipeline_options(TaskRuntime& rt, const TaskContext& t);
  std::optional<std::vector<StageStatus>> run_task_pipeline(TaskRuntime& rt, TaskContext& t);
  void diagnose_failed_stages(const std::vector<StageStatus>& outcome, const std::string& task_id, Lang lang);
  void finish_task(const TaskContext& t, const std::vector<StageStatus>& outcome);
  Json learned_preventions();
  void record_learning(const Diagnosis& d, const DiagnosisRepair* repair, const Json& changes,
                       const std::string& test_result);
  Json stage_seconds();
  // Chat turns about plans (chat_turns.cpp): each returns the reply, or null to fall through.
  Result<Json> latest_plan(const std::string& sid, Lang lang);  // null when the session has none
  Result<Json> store_plan(const std::string& sid, const std::string& species, const std::string& family, Lang lang);
  Result<Json> turn_analysis(const std::string& sid, Route& route, Lang lang);
  Result<Json> turn_execute(const std::string& sid, Route& route, Lang lang,
                            const std::function<Result<Json>(const std::string& plan_id)>& start);
  Json turn_plan_question(const std::string& sid, Lang lang);
  Json turn_decline(Lang lang);
  // Posts a finished run's outcome to its session's chat and as an "outcome" event (terminal states only).
  void announce_outcome(const std::string& task_id, TaskState state, const std::string& message);
  // Where the session's species folders are looked for, first match wins: its
  // uploads, its chosen root folder, the data roots (two levels), the shared folder.
  std::vector<fs::path> data_dirs(const std::string& sid) const;
  // A data root's folder from its name and a validated relative name (data_roots.cpp).
  Result<fs::path> resolve_data_folder(const std::string& root, const std::string& folder) const;
  // The species prefix of the session's chosen root folder, or "" (none chosen, or no longer there).
  std::string selected_prefix(const std::string& sid) const;
  // The data root holding `path`, or null (never for a path inside the state folder).
  const DataRoot* root_holding(const fs::path& path) const;
  // How answers name a folder or file: "<root>:<relative>", "uploads:…" or "shared data:…", never a server path.
  std::string place_name(const std::string& sid, const fs::path& path) const;
  // Links the files of a root's species folder into `view` (under the names the
  // pipeline expects) and returns {read_in_place: [{file, kind, bytes, read_as}], not_read: [names]}.
  Result<Json> link_root_folder(const fs::path& folder, const fs::path& view) const;
  // make_plan's answer as a client sees it: the folder by place_name, the files it
  // will read listed the same way, no server path (its data_dir removed).
  void name_plan_places(const std::string& sid, Json& plan_answer) const;
  // A root folder becomes the run's view of links (task_runner.cpp), announced as a "data" event;
  // false when it could not be made (the task failed with the reason).
  bool link_root_view(const std::string& task_id, const std::string& sid, Lang lang, fs::path& data_dir);
};

}  // namespace bioagent
