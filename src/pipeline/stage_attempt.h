// One stage of a run in its own thread: its attempts in a temporary folder,
// the automatic repairs its table row has, and the state the scheduler reads.
// Internal to the pipeline engine (engine.cpp schedules, stage_attempt.cpp runs).
#pragma once

#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <string>

#include "bioagent/pipeline.h"
#include "pipeline/run_store.h"

namespace bioagent::engine {

// A running stage's place: when it started, its step, where it works.
struct Progress {
  std::chrono::steady_clock::time_point started, reported;
  int step = 0, steps = 0;
  std::string what;
  fs::path work;
};

// What the scheduler and the stage threads share, under mu.
struct Shared {
  std::mutex mu;
  std::condition_variable cv;
  std::map<std::string, StageStatus> status;
  std::map<std::string, Progress> progress;  // running stages
  int free_cpus = 0;
  int running = 0;
  int background = 0;  // large stages running in the background lane (at most one)
};

// A long stage (resource "large") runs in the background lane: it starts as soon as it is
// ready with the whole budget at a lower priority (Resources::nice) and holds no CPUs
// against the other stages, which run beside it at normal priority; so it gets what they
// do not need, and the figures that do not need it come while it runs. One at a time.
inline bool in_background_lane(const StageSpec& spec) { return spec.resource == "large"; }

// Copies what the stage put in its final/ folder into the run's final/ folder.
void publish(const fs::path& folder, const fs::path& run_dir);

// The final state of a finished stage from its summary and checks: skipped
// when the summary says nothing applied, warn when a check did not pass.
void settle(const StageSpec& spec, const StageContext& ctx, StageStatus& st);

// Why `spec` cannot run, typed: a data file it needs is absent
// (missing_data_file) or an upstream whose outputs it needs was skipped or did
// not finish (upstream_skipped, upstream_not_finished). Null: it can run.
Json missing_input(const StageSpec& spec, const Json& run, const std::map<std::string, StageStatus>& status);

// A running stage's progress as the events carry it.
Json progress_json(const StageSpec& spec, const Progress& p);

// A stage's attempts in its own thread: the first, then each automatic repair
// its table entry has for the failure's class, once each, in order. Its
// outcome goes into sh.status; its CPUs are given back to sh.free_cpus.
void run_stage(const StageSpec& spec, StageContext ctx, const std::string& key, const fs::path& folder, Runner& runner,
               RunStore& store, const PipelineOptions& o, const Json& versions, Shared& sh, int total);

// What a step reports as it starts: its number, the count, its program ("in-process"), the work folder.
using StepFn = std::function<void(int step, int steps, const std::string& what, const fs::path& work)>;

// The steps of one attempt in ctx.work: the stage's check, its list of steps, each command
// through `runner` and each in-process step here, every outcome recorded in `store`.
Status run_steps(const StageSpec& spec, StageContext& ctx, const std::string& key, Runner& runner, RunStore& store,
                 const PipelineOptions& o, const Json& versions, const StepFn& on_step);

// run_steps in a process of its own, `o.isolation.helper stage-step <request>`, with the run's
// budgets; its progress in ctx.work/.progress.json (stage_step.cpp).
Status run_in_helper(const StageSpec& spec, const StageContext& ctx, const std::string& key, const Runner& runner,
                     const PipelineOptions& o, const Json& versions);
// The progress a helper reported in `work` ({step, steps, what}), null when none.
Json read_progress(const fs::path& work);

}  // namespace bioagent::engine
