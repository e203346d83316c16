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

#include "bioagent/bitext.h"
#include "bioagent/status.h"

namespace bioagent {

namespace fs = std::filesystem;

struct Resources {
  int cpus = 1;
  int64_t mem_mb = 2048;
  int time_minutes = 60;
  int nice = 0;  // the programs' scheduling priority (a long stage in the background lane runs at 10)
};
// "small" (1 cpu, 2 GB, 30 min), "medium" (budget cpus, 8 GB, 4 h), "large" (budget cpus, 32 GB, 24 h;
// run in the background lane: at nice 10 beside the others, so that it takes what they do not need).
Resources resources_for(const std::string& label, int cpu_budget);

struct Command {
  std::vector<std::string> argv;
  std::string stdout_file;  // relative to the work folder; empty: the stage log
  std::string stdin_file;
  int64_t memory_mb = 0;   // the local runner's address-space limit for it (0: none)
  int64_t file_bytes = 0;  // the largest file it may write (0: the runner's cap)
};

struct ProcessResult {
  int exit_code = -1;  // -1: did not start; 128+n: killed by signal n
  double seconds = 0, user_seconds = 0, system_seconds = 0;
  int64_t max_rss_kb = 0;  // the program's own peak resident set (local: sampled VmHWM; 0: not measured)
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
  // What make_runner() needs to make the same runner in another process: {"kind": "local"} or
  // {"kind": "slurm", "partition", "poll_ms", "max_mem_mb"}.
  virtual Json describe() const = 0;
};
std::unique_ptr<Runner> make_local_runner();
// Slurm through sbatch/squeue/sacct/scancel (`partition` may be empty);
// memory requests are capped at `max_mem_mb` when it is set (small clusters).
std::unique_ptr<Runner> make_slurm_runner(std::string partition = "", int poll_ms = 1000, int64_t max_mem_mb = 0);
// The runner a describe() gave; an unknown kind is an error naming it.
Result<std::unique_ptr<Runner>> make_runner(const Json& described);

// A stage's state. Final: done (it produced what it promises), cached (done
// by an earlier run with the same key), warn (it ran, a check of its results
// failed), skipped (an input is absent or nothing applies; the message says
// which), failed, cancelled. Transient: pending, running, repairing.
enum class StageState { kPending, kRunning, kRepairing, kDone, kCached, kWarn, kSkipped, kFailed, kCancelled };
std::string to_string(StageState s);
Result<StageState> stage_state_from_string(const std::string& s);
// The state as the interfaces show it ("done with a warning" / "完成（有警告）").
BiText label_of(StageState s);
// Every stage state, in the table's order (for clients that show them).
const std::vector<StageState>& all_stage_states();
// done, cached or warn: its folder is complete and downstream stages may read it.
bool finished_with_outputs(StageState s);
bool is_final(StageState s);

// Why a stage failed, from the exit status, the signal, the resource use and
// the tool's own output (or the Status a stage's own code returned). The
// strings are the learning records' error types.
enum class FailureClass {
  kNone,
  kMissingProgram,   // "tool_missing"
  kMissingInput,     // "missing_file"
  kMalformedInput,   // "bad_format"
  kTimeout,          // "time_limit"
  kOutOfMemory,      // "out_of_memory"
  kEmptyResult,      // "empty_result"
  kCountOutOfRange,  // "gene_count_out_of_bounds"
  kToolError,        // "tool_error": a program exited non-zero for another reason
  kUnknown,          // "unknown"
};
std::string to_string(FailureClass c);
Result<FailureClass> failure_class_from_string(const std::string& s);
// A free-text failure message (a log tail, an error a user pasted) read by the
// same rules the engine applies to a process: kUnknown when none matches.
FailureClass classify_failure_text(const std::string& message);
// A finished process: timeout, signal 9 / allocation failures, exit 126/127 or
// "command not found", else kToolError (kNone when it succeeded).
FailureClass classify_process(const ProcessResult& r);
// The detail key a stage's Status carries its class under ("failure"), so a
// stage function can say "empty result" rather than leave it to the text.
inline constexpr const char* kFailureDetail = "failure";
Status with_failure(Status s, FailureClass c);
// The detail key a stage's Status carries a typed reason under ("reason":
// {"kind": "duplicate_id", "file": ..., ...}; kinds in src/pipeline/stage_reasons.cpp),
// kept in the failed stage's StageStatus::reason.
inline constexpr const char* kReasonDetail = "reason";
// From the one table of failure classes: the class's name for people ("bad
// format"/"输入文件格式错误") and its usual root cause, in English or Chinese.
std::string failure_class_name(FailureClass c, Lang lang);
std::string failure_cause(FailureClass c, Lang lang);

class Pipeline;

struct StageContext {
  Json run;                               // the run's configuration (species, family, data folder, ...)
  Json params;                            // this stage's parameters, defaults applied
  fs::path work;                          // where this attempt writes its outputs
  std::map<std::string, fs::path> input;  // upstream stage name -> its finished folder
  int cpus = 1;
  const Pipeline* pipeline = nullptr;           // the table being run (a report reads its rows); null outside a run
  fs::path data(const std::string& key) const;  // a data file named by run["files"][key]
};

using StageFn = std::function<Status(const StageContext&)>;
using Step = std::variant<Command, StageFn>;

// A repair: for a failure of class `on` (and, when `when` is set, a message
// containing it), the parameter patch that is retried. The key, root cause and
// prevention are what the diagnosis shows and the learning records keep;
// automatic repairs are applied by the engine, the others only proposed.
struct Repair {
  FailureClass on = FailureClass::kUnknown;
  std::string when;                   // optional substring of the failure message or log tail
  std::string key;                    // stable name ("relax_evalue")
  std::string description;            // what the repair does (recorded and shown)
  std::string root_cause;             // why the failure happens
  std::string prevention;             // what to do up front next time
  Json param_patch = Json::object();  // merged into the stage's parameters before retrying
  bool automatic = true;
  std::string description_zh, prevention_zh;  // the same in Chinese (same placeholders)
  std::string root_cause_zh;                  // the root cause in Chinese
  bool matches(FailureClass c, const std::string& message) const;
  // `text` (the description or prevention) with "{asked}" and "{used}" replaced
  // by the patched parameters' values before and after the patch ("1e-200",
  // "0.001"; "k=v, k=v" when the patch sets several), so what is shown and
  // learned names the values of this run, never a default.
  std::string render(const std::string& text, const Json& asked, const Json& used) const;
  // The record of this repair applied to `params`: key, description and
  // prevention rendered (and their _zh), root cause, and the patched keys' values as asked
  // and as used ({"asked": {"evalue": 1e-200}, "used": {"evalue": 0.001}}).
  Json applied(const Json& params) const;
};

// One check of a stage's results: pass, warn (the stage state becomes warn)
// or fail; `value` and `threshold` are what was compared.
struct StageCheck {
  std::string check, status, detail;
  Json value, threshold;
  Json to_json() const;
};

// A report section: a title, paragraphs, an optional table, figures (file
// names under final/). A stage's report function builds its own section from
// its outputs (the report stage adds the state line and any pre-written text).
struct ReportSection {
  std::string id, title;
  std::vector<std::string> paragraphs;
  std::vector<std::string> table_header;
  std::vector<std::vector<std::string>> table;
  std::string table_caption;  // the numbered table's caption (the section title when empty)
  std::vector<std::string> figures;
};
struct ReportContext {
  const StageContext& ctx;                  // the report stage's context (run configuration, language)
  StageState state = StageState::kPending;  // the stage's own state
  std::string message;                      // its reason when skipped, error when failed, checks when warn
  fs::path folder;                          // its finished folder; empty when it did not finish
  Lang lang = Lang::kEn;                    // the report's language
};

// A stage parameter the parameter dialog shows and the user may change
// before a run: its default and its range come from the stage's schema.
struct DialogParam {
  std::string key;  // a property of the stage's params_schema; unique across the pipeline
  BiText label;     // as the dialog names it
};

struct StageSpec {
  std::string name, description;
  std::string label, label_zh;     // short names in plans, in English and Chinese
  std::vector<std::string> after;  // upstream stages whose outputs it needs (not finished: this one is skipped)
  std::vector<std::string> uses;   // upstream stages it reads when they finished (waited for, never required)
  std::vector<std::string> needs;  // run["files"] keys it cannot run without (absent: skipped with the reason)
  Json params_schema = Json{{"type", "object"}, {"properties", Json::object()}};
  std::vector<DialogParam> dialog;  // the parameters the dialog offers (keys of params_schema)
  std::string resource = "small";
  std::vector<std::string> programs;    // static requirements
  std::vector<std::string> data_files;  // run["files"] keys whose content keys the stage
  // A typed reason ({"kind", "subject"}) when the stage has nothing to do with
  // this run configuration and its parameters (defaults applied), null
  // otherwise: the engine skips by it before keying the stage, and a plan
  // lists the stage as skipped by the same rule.
  std::function<Json(const Json& run, const Json& params)> skip_when;
  StageFn check;  // dynamic requirements, before any step
  std::function<Result<std::vector<Step>>(const StageContext&)> steps;
  std::vector<std::string> outputs;  // files (relative) that mark the stage complete
                                     // (whatever it writes under final/ is copied to the run's final/)
  std::function<Result<Json>(const StageContext&)> parse;  // artifact summary, from the finished folder
                                                           // {"skipped": true, "reason": ...} in it: nothing
                                                           // applied, the state is skipped with that reason
  std::vector<Repair> repairs;
  // Checks of the finished stage's results (thresholds of their own kind); a
  // warn or fail makes the state warn, with the checks in the status.
  std::function<std::vector<StageCheck>(const StageContext&, const Json& summary)> checks;
  // The phase of a long step read from the stage's work folder (its stage.log:
  // IQ-TREE's "ModelFinder", "tree search", "bootstrap" ...); empty when it
  // cannot tell. Shown in the progress events; null: none.
  std::function<std::string(const fs::path& work)> phase;
  // Its report section, from its own outputs; empty: the stage has none.
  std::function<ReportSection(const ReportContext&)> report;
  int revision = 1;  // part of the key: bump when the stage's own code changes what it writes
};

struct StageStatus {
  std::string stage;
  StageState state = StageState::kPending;
  std::string key, folder, message;  // message: the reason when skipped, the error when failed
  double seconds = 0;
  Json summary;
  FailureClass failure = FailureClass::kNone;
  std::vector<StageCheck> checks;
  // Why it is in its state, typed: {"kind": ..., "subject": ...} (kinds in
  // src/pipeline/stage_reasons.cpp, which renders them in either language);
  // null when it simply finished. `message` is its English rendering or the
  // error's own text.
  Json reason;
  // The automatic repair that made it finish (Repair::applied), null when the
  // first attempt did; to_json() then adds "repaired": true and "repair".
  Json repair;
  Json to_json() const;
};

struct PipelineEvent {
  std::string stage;
  StageState state = StageState::kPending;
  std::string message;
  int done = 0, total = 0;
  Json repair;  // kRepairing, and the final event of a repaired stage: Repair::applied
  Json reason;  // the typed reason of a final state (StageStatus::reason)
  // A running stage's progress (done is -1 then): {"elapsed_seconds", "step",
  // "steps", "what" (the step's program, or "in-process"), "phase" (from the
  // stage's own log, when its row reads one)}; null on state changes.
  Json progress;
};

struct PipelineOptions {
  fs::path run_dir;
  int cpus = 0;  // 1 to the runner's max_cpus() (more is refused, the limit in the error); 0: all it has
  std::vector<std::string> stages;  // empty: all
  std::function<void(const PipelineEvent&)> on_event;
  std::shared_ptr<std::atomic<bool>> cancel;
  int stage_time_limit_minutes = 0;  // 0: the resource label's
  // How often a running stage reports its progress (elapsed, step, phase) in
  // on_event, besides at each step; 0: only at each step.
  int progress_seconds = 15;
  fs::path version_book;  // JSON file remembering program versions across runs; empty: none
  // Called (without the engine's lock) when a stage is about to be keyed, with
  // every stage that has reached a final state; a JSON object it returns is
  // merged into that stage's parameters (and so into its key), null leaves them.
  // Lets a caller write a stage's input from upstream results (a report's
  // pre-written sections) without running the pipeline twice.
  std::function<Json(const std::string& stage, const std::vector<StageStatus>& finished)> patch_params;
  // Each attempt of a stage (its check, its steps' list, its in-process steps,
  // which parse the user's files, and the programs it starts) runs in a process
  // of its own, `helper stage-step <request>` (this program; see
  // run_stage_step), with these budgets, so that a crash, an abort or a budget
  // hit fails that stage with the reason, never the process running the
  // pipeline. helper empty: in this process (tests of the engine itself).
  // memory_mb 0: the stage's resource label's (the stage's own code; the
  // programs it starts are bound by their own); disk_mb: what the whole run may
  // write (0: no limit).
  struct Isolation {
    std::string helper;
    int64_t memory_mb = 0, disk_mb = 0;
  } isolation;
};

// Versions of programs, asked once per process ("hmmsearch" -> "HMMER 3.3.2").
std::string program_version(const std::string& program);

// Why `spec` cannot run with the run configuration `run`: the first data file
// it needs that run["files"] lacks, as a typed reason ({"kind":
// "missing_data_file", "subject": key}); null when it has them all. The
// engine skips by it and a plan predicts by it.
Json missing_data_file(const StageSpec& spec, const Json& run);

class Pipeline {
 public:
  explicit Pipeline(std::vector<StageSpec> stages);
  const std::vector<StageSpec>& stages() const { return stages_; }
  const StageSpec* find(const std::string& name) const;
  // The stages to run for `wanted` with everything upstream, in a valid order.
  Result<std::vector<std::string>> plan(const std::vector<std::string>& wanted) const;
  // The parameter dialog's fields in stage order: {key, stage, label,
  // label_zh, schema} (schema: the property's own, with its default and range).
  Json dialog_fields() const;
  // Each field's starting value: stage_params[stage][key] when given (the
  // server's pipeline parameters), else the schema's default.
  Json dialog_defaults(const Json& stage_params) const;
  // Ok when `key` is a dialog field and `value` fits its schema; otherwise an
  // error naming the field (details: field) and, for an unknown key, the fields.
  Status check_dialog_value(const std::string& key, const Json& value) const;
  // `stage_params` with every dialog field present in `dialog` set on its stage.
  Json apply_dialog(Json stage_params, const Json& dialog) const;
  // Runs (or resumes) the DAG for `run`.
  Result<std::vector<StageStatus>> run(const Json& run, Runner& runner, const PipelineOptions& options) const;

 private:
  std::vector<StageSpec> stages_;
};

// The child side of PipelineOptions::isolation: runs the attempt a request file
// describes (the stage of `pipeline`, its context, key, program versions, the
// runner and the run folder whose record it writes) and writes its Status to
// <request>.result.json and its progress to <work>/.progress.json. Non-ok only
// when the request cannot be read.
Status run_stage_step(const Pipeline& pipeline, const fs::path& request);

// Attempts recorded in <run_dir>/run.sqlite, newest first.
Result<Json> pipeline_history(const fs::path& run_dir);

}  // namespace bioagent
