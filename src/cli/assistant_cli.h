// The assistant as the terminal commands open it (ask, chat): the server's
// state folder and data folder by the same rules as `serve`, one session.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "bioagent/assistant.h"
#include "bioagent/bitext.h"
#include "cli/commands.h"

namespace CLI {
class App;
}

namespace bioagent::cli {

struct AssistantCliOptions {
  std::string state_dir, data_dir, session, model, pipeline_params, runner = "local", slurm_partition;
  int confirm_timeout = 30, cpus = 0, stage_time_limit_minutes = 0;
  int64_t slurm_mem_cap_mb = 0, stage_memory_mb = 0, run_disk_mb = int64_t(64) << 10;
  std::vector<std::string> stages;        // empty: every stage
  std::vector<std::string> data_roots;    // --root: server-side species folders, read in place (as serve's)
  std::vector<std::string> input_limits;  // --input-limit KEY=N: over the readers' defaults, for every run
};

// --state-dir, --data-dir, --root, --session, --confirm-timeout, --cpus, --stages, --pipeline-params and the
// run budgets (--stage-memory-mb, --run-disk-mb) on `cmd`.
void add_assistant_options(CLI::App* cmd, AssistantCliOptions& o);
// Only the run budgets (--stage-memory-mb, --run-disk-mb, --input-limit): for serve and genefamily run.
void add_budget_options(CLI::App* cmd, AssistantCliOptions& o);

// The state folder: `given`, else $BIOAGENT_HOME/state (beside the example bundle), as `serve` uses.
fs::path assistant_state_dir(const std::string& given);
// The shared species folders: `given`, else the example genome in the state folder (written once).
Result<fs::path> assistant_data_dir(const fs::path& state, const std::string& given);
// The run service as every command opens it from these options (serve, chat, ask, mcp, genefamily
// run, learning): the state and data folders, the data roots, CPUs, runner, dialog timeout,
// stages and the stage parameters (checked against the stage schemas; errors name the field).
Result<RunServiceOptions> run_service_options(const AssistantCliOptions& o, bool resume_tasks);

struct CliAssistant {
  Session session;  // the registry and workspace the assistant refers to (declared first: destroyed last)
  std::unique_ptr<Assistant> assistant;
  std::string session_id;
  std::string chat_model;  // ChatOptions.model of each turn
};
// Opens the assistant on the server's store without resuming the server's tasks, and a session
// (the one named, which must exist, else a new one).
Result<CliAssistant> open_cli_assistant(const GlobalOptions& g, const AssistantCliOptions& o);

// Prints a task's events (stages, the dialog, the outcome) until it ends; with `interactive`
// the parameter dialog asks on the terminal (else the task keeps its defaults at the deadline).
void follow_task(Assistant& a, const std::string& session_id, const std::string& task_id, bool interactive, Lang lang);

// A reply's sources as numbered lines ("" when none, or when the tool agent's answer lists them).
std::string render_sources(const Json& reply);

}  // namespace bioagent::cli
