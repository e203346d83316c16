// RunService::Impl and what the run service's files share: the task's
// runtime (confirmation, cancel flag, thread), the CPU queue, the request
// doorbell between processes, and the steps of one task (run_task.cpp).
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

#include "bioagent/runs.h"
#include "core/app_store.h"
#include "runs/diagnosis.h"

namespace bioagent {

// The CPU budget all runs share: a run takes its CPUs before its pipeline
// starts and gives them back after; runs wait in arrival order.
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

// Wakes the process that runs a task when another process on the same state
// folder left an answer for it (task_requests): the writer rings, the owner's
// watcher is woken by inotify on the bell file at once (no polling).
class RequestBell {
 public:
  explicit RequestBell(fs::path file);
  ~RequestBell();
  void ring() const;
  // Waits until rung, stop() is called, or `timeout` passes; true when rung.
  bool wait(std::chrono::milliseconds timeout);
  void stop();

 private:
  fs::path file_;
  int inotify_ = -1, watch_ = -1, stop_fd_ = -1;
};

// Runs whose parameter dialog may wait at once per owner, and runs under way
// or waiting in the service: each holds a thread, so more starts are refused.
inline constexpr size_t kMaxWaitingDialogsPerOwner = 4;
inline constexpr size_t kMaxRunsUnderWay = 32;
inline constexpr size_t kMaxRunsUnderWayPerClient = kMaxRunsUnderWay / 4;  // three clients leave room for a fourth

// One task running in this process: its confirmation state and cancel flag.
struct TaskRuntime {
  std::string id, owner;
  std::mutex mu;
  std::condition_variable cv;
  std::string decision;  // "", confirm, modify, cancel
  bool editing = false;  // the user is editing the parameters: the countdown stopped
  Json answer;           // the parameters a modify answer gave (parsed as RunParams when used)
  std::shared_ptr<std::atomic<bool>> cancel = std::make_shared<std::atomic<bool>>(false);
  std::thread thread;
  std::atomic<bool> finished{false};
  std::string store_error;  // set (under Impl::mu) when a state or event could not be saved: the task is stopped
};

// What the steps of one task share.
struct TaskContext {
  std::string id, owner, prefix, family, fam_file;
  Json row_params;  // the task row's params (language, run_params, confirmed, ...)
  Lang lang = Lang::kEn;
  fs::path folder;    // the species folder found (uploads, a root's, the shared one, the command's)
  fs::path data_dir;  // the run's view of it: links under the rule names
  fs::path run_dir;
  RunParams params;  // the run's own (the service's base under them at run time)
  // The naming repair made before the run, if any: its learning record (timestamp and changes, which
  // identify the row) and the data kinds it linked under their rule names (gff3, genome, ...).
  struct NamingRepair {
    std::string recorded_at, changes;
    std::set<std::string> kinds;
  };
  std::optional<NamingRepair> naming_repair;
};

// The inputs a client named, found: comparative species' folders (with the view plan of their files) and uploads.
struct NamedInputs {
  struct Species {
    std::string prefix;
    fs::path folder;
    Json plan;  // data_view_plan kept to the species' own files
  };
  struct Upload {
    std::string stage, key;
    fs::path file;
  };
  std::vector<Species> comparative;
  std::vector<Upload> uploads;
};

struct RunService::Impl {
  RunService* self = nullptr;  // the service's public side (data folders, place names)
  RunServiceOptions o;
  RunHooks hooks;
  Pipeline const* pipeline = nullptr;
  std::unique_ptr<AppStore> store;
  std::mutex mu;  // tasks map and event generation
  std::condition_variable events_cv;
  uint64_t event_generation = 0;
  std::map<std::string, std::shared_ptr<TaskRuntime>> tasks;
  std::atomic<bool> stopping{false};
  CpuBudget cpu_budget;
  std::unique_ptr<RequestBell> bell;
  std::thread request_watcher;
  std::thread reaper;  // joins finished task threads as they finish
  std::condition_variable reap_cv;

  int cpu_limit() const;
  fs::path owner_dir(const std::string& owner) const { return o.state_dir / "sessions" / owner; }
  // The task row if it belongs to the owner (else not found: other owners' tasks do not exist).
  Result<Json> task_row(const std::string& owner, const std::string& task_id) const;
  // Both save to the store; a failed write stops the task (resuming depends on
  // these rows) and status() then reports the store's error instead of a stale state.
  void emit(const std::string& task_id, Json event);
  void stop_on_store_error(const std::string& task_id, const Status& write);
  void set_state(const std::string& task_id, TaskState state, const std::string& message);
  void start_thread(const std::string& task_id, const std::string& owner, bool resumed);
  Status check_limits(const std::string& owner) const;
  void watch_requests();
  void reap_finished();
  static void hand_decision(TaskRuntime& rt, const std::string& action, const Json& params);

  // The steps of one task (run_task.cpp); those returning bool are false when the task ended there.
  void run_task(std::shared_ptr<TaskRuntime> rt, bool resumed);
  bool load_task(TaskContext& t);
  bool prepare_data(TaskContext& t);
  bool repair_names(TaskContext& t, const Json& problems);
  std::string await_decision(TaskRuntime& rt, const TaskContext& t, int timeout);
  bool confirm_params(TaskRuntime& rt, TaskContext& t);
  bool wait_for_cpus(TaskRuntime& rt, const TaskContext& t, int cpus);
  void emit_stage_event(const TaskContext& t, const PipelineEvent& e);
  void learn_stage_repair(const PipelineEvent& e);
  PipelineOptions pipeline_options(TaskRuntime& rt, const TaskContext& t, int cpus);
  std::optional<std::vector<StageStatus>> run_pipeline(TaskRuntime& rt, TaskContext& t);
  // The inputs a client names rather than gives as paths (run_inputs.cpp), found or refused with the name:
  // synteny.comparative_species (species prefixes among the owner's data folders), expression.matrix and
  // phylogeny.references given as a bare file name (the owner's upload of that name). `stages`: by stage.
  Result<NamedInputs> find_named_inputs(const std::string& owner, const std::string& own_prefix, Lang lang,
                                        const Json& stages) const;
  // Them in the run's configuration: run["comparative"] (prefix -> the run's view of that species'
  // files, links as for its own species) and each upload's path in its stage's parameter.
  Status resolve_named_inputs(const TaskContext& t, Json& run_config);
  void diagnose_failed_stages(const std::vector<StageStatus>& outcome, const TaskContext& t);
  void finish(const TaskContext& t, const std::vector<StageStatus>& outcome);
  void announce(const std::string& task_id, TaskState state, const std::string& message);

  // Learning (learning.cpp).
  Json learned_preventions();
  // Returns the record's timestamp.
  std::string record_learning(const Diagnosis& d, const DiagnosisRepair* repair, const Json& changes,
                              const std::string& test_result);
  void check_repair_delivered(const TaskContext& t, const std::vector<StageStatus>& outcome);

  // Data folders (data_folders.cpp).
  Result<fs::path> resolve_data_folder(const std::string& root, const std::string& folder) const;
  const DataRoot* root_holding(const fs::path& path) const;
};

// The dialog as a client shows it: its display fields from the task's row params (the stage it
// opens with, the species by name, the family, the output prefix) and dialog_view of `params`.
Json dialog_shown(const Json& row_params, const RunParams& params, const Pipeline& pipeline, int default_cpus);
// Ok when `owner` can name a folder of the state folder (one plain part).
Status check_owner(const std::string& owner);
// The text reporting a finished run (links: [{kind, name, url}] added) (run_outcome.cpp).
std::string run_outcome_text(const fs::path& run_dir, const std::string& task_id, const std::string& state,
                             const std::string& message, Lang lang, Json* links);
// The one URL of a result file of a task (the route GET /api/agent/results/{task}/files/{name}).
std::string result_file_url(const std::string& task_id, const std::string& name);
// A run's figures by file name -> {file, number, caption} in the run's language, from the
// report's <prefix>.<family>.figure_captions.json in `final_dir` (empty before the report).
std::map<std::string, Json> figure_captions(const fs::path& final_dir);
// The species folder of `prefix` among `dirs` (a folder holding <prefix>.* files), or empty.
fs::path find_species_folder(const std::vector<fs::path>& dirs, const std::string& prefix);
// The family as a file-name stem for <Family>.hmm (AP2/ERF -> AP2_ERF).
std::string family_file_name(std::string family);

}  // namespace bioagent
