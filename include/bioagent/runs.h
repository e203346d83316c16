// The run service: the one road of a gene-family run, whatever surface asked
// for it (the CLI's `genefamily run`, the HTTP API, MCP tools and tasks, the
// chat's execute and stop). A run is a task: its data folder is found and
// read as the naming rules name it (a misnamed file is diagnosed, repaired by
// reading it under its rule name, and the repair learned), its parameters are
// confirmed (the dialog, defaults after the timeout), it waits for CPUs, runs
// the stage table, has what still failed diagnosed, is validated and learned
// from, and its outcome is announced. Tasks can be cancelled and resumed;
// tasks under way when the process stopped resume when the service opens.
// Thread-safe: every method may be called from any thread.
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "bioagent/bitext.h"
#include "bioagent/pipeline.h"

namespace bioagent {

namespace fs = std::filesystem;
class LlmClient;

// ---- Task states ------------------------------------------------------------

// A task's state, beside the stages' StageState. done, failed and cancelled are
// terminal: no event follows them (terminal_task_states() is the one list;
// state events and the status carry `terminal` so clients need no copy). A
// cancelled task can be resumed: its finished stages are reused.
enum class TaskState {
  kQueued,
  kChecking,
  kRepairing,
  kAwaitingConfirmation,
  kRunning,
  kValidating,
  kDone,
  kFailed,
  kCancelled
};
std::string to_string(TaskState s);
// The state of its to_string name; not found for any other text.
Result<TaskState> task_state_from_string(std::string_view name);
// The state as the interfaces show it ("awaiting confirmation" / "等待确认").
BiText label_of(TaskState s);
// Every task state, in the table's order (for clients that show them).
const std::vector<TaskState>& all_task_states();
bool is_terminal(TaskState s);
const std::vector<TaskState>& terminal_task_states();

// ---- Parameters ---------------------------------------------------------------

// A run's parameters: one value, nested by stage, each stage's object checked
// against its stage's schema, and the CPUs the run may use. The parameter
// dialog is a view of it (dialog_view); a dialog answer is read back by
// parse_run_params.
struct RunParams {
  int cpus = 0;                        // 0: the service's budget
  Json stages = Json::object();        // {stage: {key: value}}: only what was given; defaults come from the schemas
  Json input_limits = Json::object();  // {limit: N} over the readers' defaults (bioagent/input_limits.h)
  Json to_json() const;                // {"cpus": n, "stages": {...}, "input_limits": {...} when given}
};
// A client's parameters: nested by stage ({"identify": {"evalue": 1e-10}}),
// the dialog's flat fields ({"evalue": 1e-10}, each set on its stage), "cpu" or
// "cpus" (1 to max_cpus), "input_limits" ({limit: N}), and the dialog's display fields (stage, species,
// family, prefix), which are read and ignored. Errors name the field and rule
// (details: field, limit).
Result<RunParams> parse_run_params(const Json& given, const Pipeline& pipeline, int max_cpus);
// `over` on `base`: stage objects merged key by key; cpus when `over` sets it.
RunParams merge_run_params(RunParams base, const RunParams& over);
// The dialog as a client shows it: {cpu, <each dialog field>: value} with the
// value from `params`, else the field's schema default.
Json dialog_view(const RunParams& params, const Pipeline& pipeline, int default_cpus);

// ---- Data roots ---------------------------------------------------------------

// A server-side folder of species data (a genome too large to upload), read in
// place: clients see it by `name` only, never by its path.
struct DataRoot {
  std::string name;  // shown to clients and in plans ("genomes")
  fs::path path;     // canonical, on the server
};
// Data roots named after their folders (a repeated name gets "-2", "-3"); paths
// that are not folders are an error naming the given text.
Result<std::vector<DataRoot>> name_data_roots(const std::vector<std::string>& paths);

// ---- The service --------------------------------------------------------------

// What the service's owner (the assistant) adds to a run, called on the task's thread.
struct RunHooks {
  // The report's pre-written sections (literature comparison, biological
  // significance) once every stage the report reads has finished: the report
  // stage's parameter patch, or null. `record` adds a task event.
  std::function<Json(const Json& subject, const std::vector<StageStatus>& finished, const fs::path& run_dir, Lang lang,
                     const std::function<void(Json)>& record)>
      report_sections;
  // A task reached a terminal state: `text` tells the outcome (links beside it).
  std::function<void(const std::string& owner, const std::string& task_id, TaskState state, const std::string& text,
                     const Json& links)>
      on_outcome;
  // The model that chooses among allowed repairs (null: the repair table decides). Must outlive the service.
  LlmClient* llm = nullptr;
};

struct RunServiceOptions {
  fs::path state_dir;  // app.sqlite (tasks, events, learning), sessions/<owner>/runs/<task>
  fs::path data_dir;   // shared species folders (read-only), e.g. the example genome
  std::vector<DataRoot> data_roots;
  RunParams base_params;             // the server's stage parameters (serve --pipeline-params), under every run's
  int cpus = 2;                      // the budget all runs share
  std::string runner = "local";      // local or slurm
  std::string slurm_partition;       // empty: the cluster's default
  int64_t slurm_mem_cap_mb = 0;      // caps every Slurm job's memory request (small clusters); 0: none
  int stage_time_limit_minutes = 0;  // 0: each stage's resource label's
  // Stages' own code (which parses the user's files) runs as `stage_helper stage-step` (this
  // program), never in the service's process; empty: in-process (tests of the service itself).
  std::string stage_helper;
  int64_t stage_memory_mb = 0;              // each stage's own code (0: its resource label's: 2, 8 or 32 GiB)
  int64_t run_disk_mb = int64_t(64) << 10;  // what one run may write (64 GiB; 0: no limit)
  int confirm_timeout_seconds = 30;
  std::vector<std::string> stages;  // every run's stages (with what they need); empty: all
  Json network = Json::object();    // {offline, cache_dir, allow_private_urls}: for stages that go online
  fs::path version_book;            // program versions across runs; empty: none
  bool resume_tasks = true;         // resume unfinished tasks at open (false: a terminal session, a reader)
  // A task that was under way this many times when its process stopped is not resumed again: it fails.
  int max_resumes = 2;
};

// What one run asks for.
struct RunRequest {
  std::string owner;  // the session (or the command) the task belongs to; every query names it
  std::string species, family;
  std::string species_name;  // as the dialog shows it (the Latin name); empty: the prefix
  fs::path data_dir;         // the species folder; empty: looked for in the owner's data folders by the prefix
  fs::path run_dir;          // empty: <state>/sessions/<owner>/runs/<task>
  RunParams params;          // over the service's base parameters
  Lang lang = Lang::kEn;
  bool confirmed = false;           // false: the dialog waits for an answer (the defaults after the timeout)
  int confirm_timeout_seconds = 0;  // 0: the service's
  std::vector<std::string> stages;  // empty: the service's
  std::string plan_id;              // the plan it runs (shown with the task)
  bool resumable_by_server = true;  // false: a command's own run, never resumed by another process
};

class RunService {
 public:
  static Result<std::unique_ptr<RunService>> open(RunServiceOptions options, RunHooks hooks = {});
  ~RunService();
  RunService(const RunService&) = delete;
  RunService& operator=(const RunService&) = delete;

  // Starts a task: {task_id, state, params (the dialog's view), run_params, confirm_timeout_seconds, confirmed}.
  // Refused when the owner has too many dialogs waiting or the service too many runs under way.
  Result<Json> start(RunRequest request);
  // The dialog's answer: confirm | edit (the countdown stops) | modify (with params) | cancel
  // (any time before the end). A task running in another process on the same store takes it there.
  Result<Json> answer(const std::string& owner, const std::string& task_id, const std::string& action,
                      const Json& params);
  Result<Json> cancel(const std::string& owner, const std::string& task_id);
  // Runs a cancelled or failed task again in its run folder: finished stages are reused.
  Result<Json> resume(const std::string& owner, const std::string& task_id);
  // {task_id, state, terminal, message, params, run_params, stages, running, progress, expected_seconds_left, ...}
  Result<Json> status(const std::string& owner, const std::string& task_id) const;
  // The owner's tasks, oldest first: [{task_id, state, message, created, updated}].
  Result<Json> tasks(const std::string& owner) const;
  // The owner's task that is under way (not terminal), newest first; "" when none.
  std::string running_task(const std::string& owner) const;
  Result<Json> results(const std::string& owner, const std::string& task_id) const;
  // A file of a task's results by its listed name (final/…, status.json, validation.json, logs/<stage>.log).
  Result<fs::path> result_file(const std::string& owner, const std::string& task_id, const std::string& relative) const;
  // Events with seq > after, waiting up to `wait` for the first.
  Json events(const std::string& owner, const std::string& task_id, int64_t after,
              std::chrono::milliseconds wait) const;
  // Waits until the task is terminal or `wait` passes; each new event goes to on_event. The final status.
  Result<Json> wait(const std::string& owner, const std::string& task_id, std::chrono::milliseconds wait,
                    const std::function<void(const Json&)>& on_event = {}) const;
  Result<Json> diagnose(const std::string& owner, const std::string& task_id, const std::string& error_log);

  // Where an owner's species folders are looked for, first match wins: its uploads, its chosen
  // root folder, the data roots (two levels), the shared folder.
  std::vector<fs::path> data_dirs(const std::string& owner) const;
  fs::path uploads_dir(const std::string& owner) const;
  // {roots: [{name, folders: [{folder, prefix, family, files}]}], selected}.
  Result<Json> data_roots(const std::string& owner) const;
  // Uses a root's folder for the owner's runs (relative, checked; empty root clears the choice).
  Result<Json> select_data_folder(const std::string& owner, const std::string& root, const std::string& folder);
  // The species prefix of the owner's chosen root folder, or "".
  std::string selected_prefix(const std::string& owner) const;
  // How answers name a folder or file: "<root>:<relative>", "uploads:…" or "shared data:…", never a server path.
  std::string place_name(const std::string& owner, const fs::path& path) const;
  const std::vector<DataRoot>& roots() const;
  const fs::path& state_dir() const;
  const fs::path& shared_data_dir() const;

  // The median past seconds of each stage ({stage: seconds}), for plans' estimates.
  Json stage_seconds() const;
  const RunParams& base_params() const;
  // The most CPUs a run may ask for (the budget, and the machine's cores on the local runner).
  int cpu_limit() const;
  int confirm_timeout_seconds() const;

  // Error patterns only (no paths, names or data of the user).
  Result<Json> export_learning() const;
  Result<Json> import_learning(const Json& records);

  // Stops the task threads; tasks under way stay so in the store and resume on the next open().
  void shutdown();

  struct Impl;

 private:
  explicit RunService(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace bioagent
