// The pipeline engine. Stages live in one table; each entry holds everything
// about its stage (seed 004's 2026-05-26 addendum: requirements, artifact
// parsing, completion and repairs scattered over planner, diagnosis and parser
// drift apart): upstream stages, a parameter schema with defaults, a resource
// label, the programs it needs (static requirements), a check of its inputs
// (dynamic requirements), its steps (external commands, spawned without a
// shell, or in-process work), the files that mark it complete, a parser that
// summarises its artifacts, and repair strategies tried on failure.
// A run is a DAG executed within a CPU budget; a stage's work is keyed by a
// hash of its inputs' digests, parameters and tool versions, done in a
// temporary folder and renamed into place, so a re-run skips finished stages
// and a killed run resumes; every attempt (argv, versions, times, exit codes,
// resource use, log) is recorded in SQLite.
#pragma once

#include <atomic>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "bioagent/status.h"

namespace bioagent {

namespace fs = std::filesystem;

struct Resources {
  int cpus = 1;
  int64_t mem_mb = 2048;
  int time_minutes = 60;
};
// "small" (1 cpu, 2 GB, 30 min), "medium" (budget cpus, 8 GB, 4 h), "large" (budget cpus, 32 GB, 24 h).
Resources resources_for(const std::string& label, int cpu_budget);

struct Command {
  std::vector<std::string> argv;
  std::string stdout_file;  // relative to the work folder; empty: the stage log
  std::string stdin_file;
};

struct ProcessResult {
  int exit_code = -1;  // -1: did not start; 128+n: killed by signal n
  double seconds = 0, user_seconds = 0, system_seconds = 0;
  int64_t max_rss_kb = 0;
  bool timed_out = false, cancelled = false;
  std::string log_tail;  // the last lines of stderr
  std::string job_id;    // Slurm
};

class Runner {
 public:
  virtual ~Runner() = default;
  virtual std::string name() const = 0;
  // The most CPUs one command can get from this runner (a local runner: the
  // machine's cores); 0 when the runner cannot tell. Pipeline::run refuses a
  // CPU budget above it.
  virtual int max_cpus() const = 0;
  // Runs `cmd` in `work`, stderr appended to `log`; blocks until done.
  virtual ProcessResult run(const Command& cmd, const fs::path& work, const fs::path& log, const Resources& res,
                            const std::atomic<bool>& cancel) = 0;
};
std::unique_ptr<Runner> make_local_runner();
// Slurm through sbatch/squeue/sacct/scancel (`partition` may be empty);
// memory requests are capped at `max_mem_mb` when it is set (small clusters).
std::unique_ptr<Runner> make_slurm_runner(std::string partition = "", int poll_ms = 1000, int64_t max_mem_mb = 0);

struct StageContext {
  Json run;                               // the run's configuration (species, family, data folder, ...)
  Json params;                            // this stage's parameters, defaults applied
  fs::path work;                          // where this attempt writes its outputs
  std::map<std::string, fs::path> input;  // upstream stage name -> its finished folder
  int cpus = 1;
  fs::path data(const std::string& key) const;  // a data file named by run["files"][key]
};

using StageFn = std::function<Status(const StageContext&)>;
using Step = std::variant<Command, StageFn>;

struct Repair {
  std::string when;         // a substring of the failure message or log tail
  std::string description;  // what the repair does (recorded and shown)
  Json param_patch;         // merged into the parameters before retrying
};

struct StageSpec {
  std::string name, description;
  std::vector<std::string> after;  // upstream stages
  Json params_schema = Json{{"type", "object"}, {"properties", Json::object()}};
  std::string resource = "small";
  std::vector<std::string> programs;    // static requirements
  std::vector<std::string> data_files;  // run["files"] keys whose content keys the stage
  StageFn check;                        // dynamic requirements, before any step
  std::function<Result<std::vector<Step>>(const StageContext&)> steps;
  std::vector<std::string> outputs;  // files (relative) that mark the stage complete
                                     // (whatever it writes under final/ is copied to the run's final/)
  std::function<Result<Json>(const StageContext&)> parse;  // artifact summary, from the finished folder
  std::vector<Repair> repairs;
  int revision = 1;  // part of the key: bump when the stage's own code changes what it writes
};

struct StageStatus {
  std::string stage, state;  // pending, skipped, running, done, cached, failed, cancelled
  std::string key, folder, message;
  double seconds = 0;
  Json summary;
  Json to_json() const;
};

struct PipelineEvent {
  std::string stage, state, message;
  int done = 0, total = 0;
};

struct PipelineOptions {
  fs::path run_dir;
  int cpus = 0;  // 1 to the runner's max_cpus() (more is refused, the limit in the error); 0: all it has
  std::vector<std::string> stages;  // empty: all
  std::function<void(const PipelineEvent&)> on_event;
  std::shared_ptr<std::atomic<bool>> cancel;
  int stage_time_limit_minutes = 0;  // 0: the resource label's
  fs::path version_book;             // JSON file remembering program versions across runs; empty: none
};

// Versions of programs, asked once per process ("hmmsearch" -> "HMMER 3.3.2").
std::string program_version(const std::string& program);

class Pipeline {
 public:
  explicit Pipeline(std::vector<StageSpec> stages);
  const std::vector<StageSpec>& stages() const { return stages_; }
  const StageSpec* find(const std::string& name) const;
  // The stages to run for `wanted` with everything upstream, in a valid order.
  Result<std::vector<std::string>> plan(const std::vector<std::string>& wanted) const;
  // Runs (or resumes) the DAG for `run`.
  Result<std::vector<StageStatus>> run(const Json& run, Runner& runner, const PipelineOptions& options) const;

 private:
  std::vector<StageSpec> stages_;
};

// Attempts recorded in <run_dir>/run.sqlite, newest first.
Result<Json> pipeline_history(const fs::path& run_dir);

}  // namespace bioagent
