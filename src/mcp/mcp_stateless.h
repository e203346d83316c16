// Inside src/mcp: what the stateless revision (2026-07-28) needs beyond one
// request — the tasks extension's task store (io.modelcontextprotocol/tasks),
// shared by every request of a server; the multi round-trip client channel
// and the sealed requestState that carries its answers between rounds.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "bioagent/client_channel.h"
#include "bioagent/mcp_server.h"
#include "bioagent/tool.h"

namespace bioagent::mcp {

// A ClientCapabilities object declares `ask`'s capability (sampling, elicitation, roots).
bool declares(const Json& client_capabilities, ClientAsk ask);
// The capability object it declares for `ask`, null when none.
Json declared(const Json& client_capabilities, ClientAsk ask);
// It declares the tasks extension (extensions["io.modelcontextprotocol/tasks"]).
bool declares_tasks_extension(const Json& client_capabilities);
// A client's answer to `ask` has the shape of its result: an object with action (elicitation),
// content (sampling) or a roots array (roots). Invalid argument naming what is wrong otherwise.
Status check_client_answer(ClientAsk ask, const Json& answer);
// Each question as an InputRequest {method, params} (no jsonrpc, no id).
Json input_request(const ClientQuestion& q);

// ---- The tasks extension (mcp_ext_tasks.cpp) -----------------------------------

// Tasks of io.modelcontextprotocol/tasks: created by a tools/call of a client that declared the
// extension, run on their own thread, read and acted on by any later request (tasks/get,
// tasks/update, tasks/cancel). Ids are 128 random bits: knowing one is the right to it. A task
// is kept for kTtl after its creation; at most kMaxRunning run at once.
class ExtTaskStore {
 public:
  static constexpr size_t kMaxRunning = 32;
  static constexpr size_t kMaxStored = 1024;  // beyond: the oldest finished task is dropped early
  static constexpr std::chrono::milliseconds kTtl{60 * 60 * 1000};
  static constexpr int kPollIntervalMs = 500;
  // The task's work: ctx carries the cancel flag, the deadline and the task's client channel
  // (an ask parks the task in input_required until tasks/update answers). Its CallToolResult
  // completes the task (isError included); a Status fails it with that JSON-RPC error.
  using Work = std::function<Result<Json>(ToolContext& ctx)>;

  ExtTaskStore() = default;
  ~ExtTaskStore();  // cancels the running tasks and waits for them
  ExtTaskStore(const ExtTaskStore&) = delete;
  ExtTaskStore& operator=(const ExtTaskStore&) = delete;

  // Starts `work`; the CreateTaskResult (resultType "task", the flat Task) once tasks/get sees it.
  // Resource exhausted when kMaxRunning tasks run, or `client` holds its share of mcp_task_shares.
  // The task's thread is joined as soon as its work ends. `ttl`: how long the task is kept after
  // its creation (nullopt: while the server runs, ttlMs null; a gene-family run takes hours).
  Result<Json> create(Work work, const Json& client_capabilities, std::chrono::milliseconds time_limit,
                      const std::string& client, std::optional<std::chrono::milliseconds> ttl = kTtl);
  // True once the store is being destroyed (the server stops): a cancelled work then leaves what
  // outlives it (a run) to resume.
  bool stopping();
  // tasks/get: the DetailedTask (resultType "complete"); invalid argument for an unknown id.
  Result<Json> get(const std::string& task_id);
  // tasks/update: answers to the task's pending inputRequests; unknown and answered keys are ignored.
  Status update(const std::string& task_id, const Json& input_responses);
  // tasks/cancel: a task still running becomes cancelled (its work is told to stop); a finished
  // one is left as it is. Invalid argument for an unknown id.
  Status cancel(const std::string& task_id);

 private:
  struct Entry;
  class Channel;
  std::shared_ptr<Entry> find_locked(const std::string& task_id);
  void expire_locked();
  void finish(const std::shared_ptr<Entry>& e, Result<Json> outcome);
  std::mutex mu_;
  std::condition_variable cv_;  // a task's answers arrived or it was cancelled
  std::map<std::string, std::shared_ptr<Entry>> tasks_;
  bool stopping_ = false;
};

// ---- Multi round-trip requests (mcp_round_trip.cpp) ----------------------------

// A 2026-07-28 call's channel: a question already answered (by this round's inputResponses or by
// the answers requestState brought back) gets its answer; any other question is recorded and
// answered input_required_status(), so the call ends and the server returns the recorded
// questions as inputRequests. Thread-safe.
class RoundTripChannel : public ClientChannel {
 public:
  RoundTripChannel(Json client_capabilities, std::map<std::string, Json> answers);
  bool supports(ClientAsk ask) const override;
  Json capability(ClientAsk ask) const override { return declared(caps_, ask); }
  bool replays() const override { return true; }
  std::vector<Result<Json>> ask_all(const std::vector<ClientQuestion>& questions) override;
  // The unanswered questions as InputRequests ({key: {method, params}}); an empty object when none.
  Json pending() const;
  // The answers the call used (carried to the next round in requestState).
  Json used_answers() const;

 private:
  Json caps_;
  std::map<std::string, Json> answers_;
  mutable std::mutex mu_;
  Json pending_ = Json::object();
  Json used_ = Json::object();
  int asked_ = 0;
};

// requestState: the answers so far, bound to the request (method and tool or prompt name) and to a
// ten-minute expiry, sealed with HMAC-SHA-256 under the server's key: base64(payload) "." hex MAC.
std::string seal_request_state(const std::string& key, const std::string& method, const std::string& name,
                               const Json& answers);
// The answers of a sealed state; invalid argument "requestState integrity check failed" for a state
// this server did not seal for this request, or one past its expiry.
Result<Json> open_request_state(const std::string& key, const std::string& method, const std::string& name,
                                const std::string& sealed);

}  // namespace bioagent::mcp

namespace bioagent {

class McpShared {
 public:
  McpShared();
  mcp::ExtTaskStore tasks;
  const std::string& state_key() const { return state_key_; }

 private:
  std::string state_key_;  // 32 random bytes (hex) for this process's requestState seals
};

}  // namespace bioagent
