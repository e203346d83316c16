// Inside src/mcp: the state of one McpSession and its parts, shared by the
// files that implement it — mcp_server.cpp (the JSON-RPC core and the session
// revision's dispatch), mcp_session_calls.cpp (tools/list, tools/call, the
// client channel of a session), mcp_session_tasks.cpp (the specification's
// 2025-11-25 tasks and resource subscriptions) and mcp_stateless.cpp (the
// 2026-07-28 dispatch: server/discover, result decoration, multi round-trip
// calls and the tasks extension).
#pragma once

#include <atomic>
#include <condition_variable>
#include <map>
#include <mutex>
#include <optional>
#include <thread>

#include "bioagent/mcp_server.h"
#include "bioagent/registry.h"
#include "bioagent/workspace.h"
#include "mcp/mcp_internal.h"
#include "mcp/mcp_stateless.h"
#include "mcp/mcp_wire.h"

namespace bioagent {

struct McpSession::Impl {
  using CancelFlag = std::shared_ptr<std::atomic<bool>>;

  const ToolRegistry& registry;
  const Workspace& workspace;
  McpOptions options;
  RoutedSink sink;
  McpEra era = McpEra::kSession;
  McpRequestHeaders headers;                // stateless: the HTTP request's MCP headers
  std::shared_ptr<McpShared> shared;        // the tasks extension's store, the requestState key
  std::unique_ptr<mcp::RunBridge> runs;     // null without an assistant
  std::unique_ptr<mcp::ToolSearch> search;  // compact mode only
  // notifications/message at or above this rank: info until logging/setLevel (a session); the
  // request's _meta logLevel, or none at all without one (stateless).
  std::atomic<int> min_log_rank{1};

  std::mutex send_mu;
  std::mutex calls_mu;
  std::condition_variable calls_cv;
  std::map<std::string, CancelFlag> inflight;  // id → cancel flag, until answered
  int running_calls = 0;                       // worker threads not yet finished (drain waits for 0)
  struct Worker {
    std::thread thread;
    std::shared_ptr<std::atomic<bool>> done;
  };
  std::vector<Worker> workers;  // touched only by the thread calling handle()
  std::string negotiated_version;

  // The client's capabilities: initialize's (a session) or the request's _meta (stateless).
  mutable std::mutex caps_mu;
  Json client_caps = Json::object();

  // Requests this session sent to the client, by id, until the client's response arrives.
  std::mutex asks_mu;
  std::condition_variable asks_cv;
  std::map<std::string, std::optional<Json>> awaiting;
  std::atomic<int> next_ask{0};

  // Subscriptions: uri → the version last seen; a watcher thread polls them.
  std::mutex sub_mu;
  std::condition_variable sub_cv;
  std::map<std::string, std::string> subscriptions;
  // Tasks created by task-augmented calls: their last Task, followed for status notifications.
  struct WatchedTask {
    Json task;
    Json progress_token;
    int changes = 0;
  };
  std::map<std::string, WatchedTask> watched_tasks;
  bool stopping = false;
  std::thread watcher;
  mcp::ToolTasks tool_tasks;  // last: its calls end before the rest goes

  Impl(const ToolRegistry& r, const Workspace& w, McpOptions o, RoutedSink s);
  ~Impl();

  // ---- The JSON-RPC core (mcp_server.cpp) ----
  void send(const Json& msg, const std::string& key = "");
  // Asks the transport to end request `key`'s stream now (the client resumes it; see RoutedSink).
  void send_stream_end(const std::string& key);
  void reply(const Json& id, Json result);
  void fail(const Json& id, int code, const std::string& message, Json data = nullptr);
  static std::string& answering_key();
  void release_own_call(const Json& id);
  void log(const std::string& level, const std::string& logger, const Json& data, const std::string& key = "");
  void handle(const std::string& text);
  void handle_request(const Json& id, const std::string& method, const Json& params);
  void dispatch(const Json& id, const std::string& method, const Json& params);
  Json with_fixtures(Json list, const Json& fixtures) const;
  void notification(const std::string& method, const Json& params);
  Json initialize(const Json& params);
  std::string instructions() const;
  void set_level(const Json& id, const Json& params);
  void complete(const Json& id, const Json& params);
  void prompts_get(const Json& id, const Json& params);
  void resources_read(const Json& id, const Json& params);
  void spawn(const Json& id, std::function<void(const CancelFlag&)> work);
  void reap_finished();
  void drain();
  void cancel_all();
  Json client_capabilities() const;

  // ---- Tools and the client channel (mcp_session_calls.cpp) ----
  Json listed_tools() const;
  void tools_list(const Json& id, const Json& params);
  bool known_tool(const std::string& name) const;
  void tools_call(const Json& id, const Json& params);
  // A call's context: workspace, options, deadline, cancellation, progress (with a token), log
  // messages, and the client channel of a session (a stateless call sets its own).
  ToolContext call_context(const std::string& name, const std::string& key, const Json& progress_token,
                           const CancelFlag& flag);
  // Runs the tool `name`: its CallToolResult, or a Status the call fails with (a fixture's).
  Result<Json> execute_tool(const std::string& name, const Json& args, ToolContext& ctx, const CancelFlag& flag,
                            const std::string& key);
  void run_tool(const Json& id, const std::string& name, const Json& args, const Json& progress_token,
                const CancelFlag& flag);
  Json call_result(const std::string& name, const Result<Json>& r) const;
  // A JSON-RPC response to a request this session sent: handed to the ask waiting for it.
  void deliver_client_response(const Json& msg);
  std::shared_ptr<ClientChannel> session_channel(const std::string& key, const CancelFlag& flag);

  // ---- The specification's tasks and subscriptions (mcp_session_tasks.cpp) ----
  bool tasks_offered() const;
  Result<Json> task_get(const std::string& task_id);
  Result<Json> task_list(const std::string& cursor);
  void tasks_request(const Json& id, const std::string& method, const Json& params);
  void create_task(const Json& id, const std::string& name, const Json& args, const Json& progress_token);
  void subscribe(const Json& id, const Json& params, bool on);
  void start_watcher_locked();
  Result<std::string> resource_version(const std::string& uri);
  void watch_subscriptions();
  void watch_tasks();

  // ---- The stateless revision (mcp_stateless.cpp) ----
  static bool serves_stateless(const std::string& method);
  void handle_stateless(const Json& id, const std::string& method, const Json& params);
  void dispatch_stateless(const Json& id, const std::string& method, const Json& params);
  Json discover() const;
  // resultType "complete" unless set, the server's identity in _meta; with a cache scope, ttlMs
  // and cacheScope (the six cacheable results).
  Json stateless_result(Json result, const char* cache_scope = nullptr) const;
  void stateless_call(const Json& id, const Json& params);
  void stateless_prompt(const Json& id, const Json& params);
  // The answers a round carries (requestState's, then inputResponses); error when either is bad.
  Result<std::map<std::string, Json>> round_answers(const std::string& method, const std::string& name,
                                                    const Json& params);
  // True when the round ends here: with an InputRequiredResult when `channel` has unanswered
  // questions, or -32021 when `outcome` is a client channel's missing capability.
  bool ended_round(const Json& id, const std::string& method, const std::string& name,
                   const mcp::RoundTripChannel& channel, const Status& outcome);
  // The call as a task of the tasks extension (after its before_task questions, if any).
  void start_ext_task(const Json& id, const std::string& name, const Json& args, std::map<std::string, Json> answers);
  void ext_tasks_request(const Json& id, const std::string& method, const Json& params);
};

}  // namespace bioagent
