// Inside src/mcp: the parts of an MCP session other than the JSON-RPC core —
// prompts, completion values, the compact tool mode's search, the registry
// tools run as the specification's tasks, and the bridge from MCP to the
// assistant's gene-family tasks (the task tools, the specification's tasks and
// the run resources).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "bioagent/bitext.h"
#include "bioagent/client_channel.h"
#include "bioagent/mcp_server.h"
#include "bioagent/registry.h"
#include "bioagent/tool.h"
#include "core/client_shares.h"

namespace bioagent::mcp {

// ---- Request params (mcp_params.cpp) -----------------------------------------

// OK when `params` has the shape the specification gives `method`'s params (or
// the method is not one of the table's); else kInvalidArgument "Invalid params:
// params.<field> ..." naming the field and the type expected. Thread-safe.
Status check_request_params(const std::string& method, const Json& params);

// ---- Prompts (mcp_prompts.cpp) -----------------------------------------------

// prompts/list's entries: the seed's scenarios, each with its arguments.
Json prompt_list();
// prompts/get: the scenario's message in the asked language (en or zh).
Result<Json> prompt_get(const std::string& name, const Json& arguments);
// Values for a prompt argument that start with `prefix` (case-insensitive):
// gene families and species from the knowledge base, languages.
std::vector<std::string> complete_prompt_argument(const std::string& argument, const std::string& prefix);

class RunBridge;
// completion/complete's result: prompt arguments, run ids and run files (`runs` may be null),
// the conformance fixtures' values when `fixtures`.
Result<Json> complete_request(const Json& params, RunBridge* runs, bool fixtures);

// ---- Compact tool mode (mcp_compact.cpp) -------------------------------------

// BM25 over each tool's name, description, family and parameters (names and
// descriptions), English words and Chinese characters (unigrams and bigrams),
// with Chinese keywords for the tool families.
class ToolSearch {
 public:
  explicit ToolSearch(const ToolRegistry& registry);
  // Best first; at most `limit`; only tools with a positive score.
  std::vector<std::pair<const ToolSpec*, double>> search(const std::string& query, size_t limit) const;

 private:
  struct Doc {
    const ToolSpec* spec;
    std::map<std::string, int> tf;
    size_t length = 0;
  };
  std::vector<Doc> docs_;
  std::map<std::string, int> df_;
  double avg_length_ = 1;
};

std::vector<std::string> search_terms(const std::string& text);
bool is_compact_tool(const std::string& name);
// Runs a meta-tool; call_tool calls the named registry tool with `ctx`.
Result<Json> call_compact_tool(const ToolRegistry& registry, const ToolSearch& search, const std::string& name,
                               const Json& arguments, ToolContext& ctx);

// ---- The conformance suite's fixtures (mcp_conformance*.cpp; test-only) ------

// How a tool may run as a task of the tasks extension (2026-07-28).
enum class TaskSupport { kNever, kOptional, kRequired };

struct FixtureTool {
  using Call = std::function<Result<Json>(const Json& args, ToolContext& ctx)>;
  Json definition;  // {name, description, inputSchema}
  // The CallToolResult, or a Status the call fails with (a protocol error; a missing client
  // capability). ctx carries progress, log, cancellation and the client channel.
  Call call;
  TaskSupport tasks = TaskSupport::kNever;
  // Asked synchronously before the task is created (a multi round-trip): the arguments the task
  // runs with, or the channel's status. Null: none.
  std::function<Result<Json>(const Json& args, ClientChannel& channel)> before_task;
  // The server ends the call's SSE stream before the call runs, so that the client resumes it
  // with Last-Event-ID (SEP-1699).
  bool ends_stream_first = false;
};

inline FixtureTool fixture_tool(const std::string& name, const std::string& description, Json input_schema,
                                FixtureTool::Call call, TaskSupport tasks = TaskSupport::kNever) {
  FixtureTool t;
  t.definition = {{"name", name}, {"description", description}, {"inputSchema", std::move(input_schema)}};
  t.call = std::move(call);
  t.tasks = tasks;
  return t;
}

// Every fixture tool, in tools/list order (listed before the registry's tools).
const std::vector<FixtureTool>& fixture_tool_table();
const FixtureTool* find_fixture_tool(const std::string& name);
Json fixture_tools();  // the definitions
bool is_fixture_tool(const std::string& name);
// The tables of mcp_conformance.cpp (content), mcp_fixtures_client.cpp (questions to the
// client) and mcp_fixtures_tasks.cpp (tasks, headers, streams).
std::vector<FixtureTool> content_fixture_tools();
std::vector<FixtureTool> client_fixture_tools();
std::vector<FixtureTool> task_fixture_tools();
Json fixture_resources();
Json fixture_templates();
std::optional<Json> read_fixture(const std::string& uri);  // one contents entry
Json fixture_prompts();
bool is_fixture_prompt(const std::string& name);
// A fixture prompt's GetPromptResult; `channel` answers the questions of the one that asks the
// client (test_input_required_result_prompt), its status when it cannot.
Result<Json> get_fixture_prompt(const std::string& name, const Json& args, ClientChannel* channel);

// ---- Registry tools as the specification's tasks (mcp_tool_tasks.cpp) -------

// The MCP tasks running at once in this process, both revisions' (64 in all, 16 per client): a
// task holds a thread until its call ends.
ClientShares& mcp_task_shares();

// Tasks of task-capable registry tools (the literature fan-out), held in memory by
// one MCP session for `ttl` after they end: the call runs on its own thread; its
// CallToolResult is what tasks/result returns. Ids start with "tool_".
class ToolTasks {
 public:
  using Work = std::function<Json(const std::shared_ptr<std::atomic<bool>>& cancelled)>;
  explicit ToolTasks(std::chrono::milliseconds ttl = std::chrono::hours(1)) : ttl_(ttl) {}
  ~ToolTasks();  // cancels the running calls and waits for them
  static bool task_capable(const std::string& tool);
  static bool is_tool_task(const std::string& task_id);
  // Starts `work` on a share of `client`'s (mcp_task_shares); the new Task (working), or the refusal
  // naming the limit reached. The call's thread is joined as soon as the call ends.
  Result<Json> create(Work work, const std::string& client);
  Result<Json> get(const std::string& task_id);
  Json list();
  // Blocks until the call ends (or `cancelled`); its CallToolResult with the related-task _meta.
  Result<Json> payload(const std::string& task_id, const std::atomic<bool>& cancelled);
  Result<Json> cancel(const std::string& task_id);

 private:
  struct Entry;
  std::shared_ptr<Entry> find(const std::string& task_id);
  void expire_locked();
  std::chrono::milliseconds ttl_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::map<std::string, std::shared_ptr<Entry>> tasks_;
  bool closing_ = false;  // the destructor joins the threads still running; none hands itself over
};

// ---- Gene-family runs as tasks and resources (mcp_runs.cpp) ------------------

// A tool result: the data, and resource links shown as resource_link blocks.
struct LinkedResult {
  Json data;
  Json links = Json::array();  // [{uri, name, mimeType, description?}]
};

// One MCP session's view of the assistant: the assistant session it created
// (lazily) and those a client attached by passing session_id; tasks are found
// only within those sessions, as the HTTP routes require the session id.
class RunBridge {
 public:
  // own_session: the assistant session this MCP session uses (empty: one is created when first needed).
  // client: whose share of the runs its starts take (McpOptions::client).
  RunBridge(Assistant& assistant, std::map<std::string, std::string> tool_options, std::string own_session = "",
            std::string client = "");

  Json tools() const;  // MCP definitions of the task tool set (start, data roots, status, result, cancel)
  bool owns(const std::string& tool) const;
  // progress(done, total, message) is called while genefamily_task_result waits. `client`: the
  // call's client (null: none); a run it starts asks its parameter dialog as an elicitation form
  // when the client offers elicitation, and is confirmed at once otherwise.
  Result<LinkedResult> call(const std::string& tool, const Json& args, const std::atomic<bool>& cancelled,
                            const ToolContext::ProgressFn& progress, ClientChannel* client = nullptr);

  Json resource_templates() const;
  Json list_resources();
  Result<Json> read(const std::string& uri);
  // A value that changes whenever the resource's run records an event; error when unknown.
  Result<std::string> version(const std::string& uri);
  // Known run ids starting with `prefix`, and the files of a run.
  std::vector<std::string> run_ids(const std::string& prefix);
  std::vector<std::string> run_files(const std::string& run, const std::string& prefix);

  // ---- The specification's tasks (mcp_tasks.cpp) ----
  // genefamily_run: execution.taskSupport "optional".
  Json run_tool() const;
  // How long a plain genefamily_run call waits (the tool time limit).
  void set_call_limit(std::chrono::milliseconds limit) { call_limit_ = limit; }
  // genefamily_run called plainly: starts the run and waits for it, at most the call limit (then
  // the run goes on and the answer says so); a cancelled call cancels the run.
  Result<LinkedResult> run_and_wait(const Json& args, const std::atomic<bool>& cancelled,
                                    const ToolContext::ProgressFn& progress, ClientChannel* client = nullptr);
  // genefamily_run as a task of the tasks extension (2026-07-28): starts the run (its dialog a form
  // through the task's channel when the client offers elicitation) and waits for it to end; the
  // CallToolResult of tasks/result (isError for a run that failed or was cancelled).
  // A cancelled task cancels its run unless `server_stopping()` (then the run resumes with the server).
  Result<Json> run_as_ext_task(const Json& args, ToolContext& ctx, const std::function<bool()>& server_stopping);
  // genefamily_run called with a task: starts the run; the CreateTaskResult.
  Result<Json> create_task(const Json& args);
  // Adds an assistant session to those this MCP session holds (not found when the store has none).
  Status attach(const std::string& session_id);
  // The Task of an assistant task in this session's assistant sessions (invalid argument when unknown).
  Result<Json> task_get(const std::string& task_id);
  // Every task of this session's assistant sessions, `page` at a time ({tasks, nextCursor?}).
  Result<Json> task_list(const std::string& cursor, size_t page);
  // Blocks until the task ends (or `cancelled`); the CallToolResult with the related-task _meta.
  Result<Json> task_payload(const std::string& task_id, const std::atomic<bool>& cancelled);
  // Cancels a running task; the Task (cancelled). A finished task is an invalid argument.
  Result<Json> task_cancel(const std::string& task_id);

 private:
  Result<std::string> session_for(const std::string& task_id, const Json& args);
  Result<std::string> own_session();
  Result<std::string> named_or_own_session(const Json& args);
  // The session a call names (session_id), attached to this MCP session; "" when it names none.
  Result<std::string> attach_named_session(const Json& args);
  Result<LinkedResult> start(const Json& args, ClientChannel* client);
  // The parameter form asked before anything is stored (a client whose calls replay): the params
  // the run starts confirmed with, and {dialog} (with no params when the user declined).
  Result<Json> ask_form_first(const Json& args, ClientChannel& client);
  // The CallToolResult of a finished run (its files as resource links; isError unless done).
  Result<Json> finished_call_result(const std::string& task_id, const std::string& sid,
                                    const std::atomic<bool>& cancelled);
  Result<LinkedResult> data_roots(const Json& args);
  Result<LinkedResult> status(const Json& args);
  Result<LinkedResult> result(const Json& args, const std::atomic<bool>& cancelled,
                              const ToolContext::ProgressFn& progress);
  Result<LinkedResult> cancel(const Json& args);
  Json links_of(const std::string& task_id, const std::string& sid);
  static bool is_rendered_png(const std::string& name);
  Result<Json> read_rendered_png(const std::string& uri, const std::string& sid, const std::string& run,
                                 const std::string& name);

  Assistant& assistant_;
  std::map<std::string, std::string> tool_options_;
  std::mutex mu_;
  std::string own_session_;
  const std::string client_;
  std::set<std::string> sessions_;               // attached (own included once created)
  std::map<std::string, std::string> task_sid_;  // task id -> its session
  std::chrono::milliseconds call_limit_{10 * 60 * 1000};
};

// The language a run tool's parameter form speaks: its `language` argument, else Chinese when the
// species or family is written in Chinese.
Lang form_language(const Json& args);

// "bioagent://runs/t_x/final/report.md" -> {run, path} ("status.json" or "final/<file>").
struct RunUri {
  std::string run, path;
};
bool parse_run_uri(const std::string& uri, RunUri& out);
std::string mime_of(const std::string& file);

// done, failed and cancelled (the assistant's one list of terminal states).
bool terminal_state(const std::string& state);
// The specification's status of an assistant task state: completed, failed, cancelled or working.
std::string spec_task_status(const std::string& state);
// The specification's Task of an assistant task's status (or session_state's task row).
Json spec_task(const Json& assistant_task);
// One page of tools/list ({tools, nextCursor?}); the cursor is "offset:N" (invalid argument otherwise).
Result<Json> tools_page(const Json& all, const Json& cursor, size_t page_size);
// A registry tool's (or meta-tool's) CallToolResult: text and structuredContent, or isError with the message.
Json tool_call_result(const ToolRegistry& registry, const std::string& name, const Result<Json>& r);
// A CallToolResult: the data as text and structuredContent, the links as resource_link blocks.
Json linked_call_result(const LinkedResult& r, bool is_error);

}  // namespace bioagent::mcp
