// The tasks extension (io.modelcontextprotocol/tasks, SEP-2663) for 2026-07-28
// clients: a tools/call the server decides to run as a task answers at once
// with a flat CreateTaskResult; the task runs on its own thread; tasks/get
// returns the DetailedTask (inputRequests while input_required, result once
// completed, error once failed), tasks/update brings answers to its
// inputRequests, tasks/cancel stops it. The store is shared by every request
// of the server (a stateless client polls from any connection).
#include <ctime>
#include <set>

#include "bioagent/digest.h"
#include "core/thread_reaper.h"
#include "mcp/mcp_internal.h"
#include "mcp/mcp_stateless.h"
#include "mcp/mcp_wire.h"

namespace bioagent::mcp {
namespace {

// ISO 8601 UTC with milliseconds.
std::string iso_now() {
  auto now = std::chrono::system_clock::now();
  std::time_t t = std::chrono::system_clock::to_time_t(now);
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm utc{};
  gmtime_r(&t, &utc);
  char buf[40];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &utc);
  char out[48];
  std::snprintf(out, sizeof out, "%s.%03dZ", buf, int(ms));
  return out;
}

bool terminal(const std::string& status) {
  return status == "completed" || status == "failed" || status == "cancelled";
}

int rpc_code_of(const Status& s) { return s.code() == ErrorCode::kInvalidArgument ? kInvalidParams : kInternalError; }

}  // namespace

struct ExtTaskStore::Entry {
  std::string id, status = "working", status_message = "the call is running";
  std::string created = iso_now(), updated = created;
  std::chrono::steady_clock::time_point born = std::chrono::steady_clock::now();
  std::optional<std::chrono::milliseconds> ttl = ExtTaskStore::kTtl;  // nullopt: kept while the server runs
  Json caps, result, error;
  Json asked = Json::object();          // key -> {ask, request}: questions waiting for an answer
  std::map<std::string, Json> answers;  // key -> the client's answer, until its asker takes it
  std::set<std::string> seen_keys;      // every key asked in the task's life (keys stay unique)
  std::shared_ptr<std::atomic<bool>> cancelled = std::make_shared<std::atomic<bool>>(false);
  std::thread thread;
  bool done = false;  // the work returned

  void touch(std::string s, std::string message) {
    status = std::move(s);
    status_message = std::move(message);
    updated = iso_now();
  }
};

// The channel a task's work asks through: the questions become the task's inputRequests and the
// work waits for tasks/update (or cancellation, or its deadline).
class ExtTaskStore::Channel : public ClientChannel {
 public:
  Channel(ExtTaskStore& store, std::shared_ptr<Entry> e, std::chrono::steady_clock::time_point deadline)
      : store_(store), e_(std::move(e)), deadline_(deadline) {}
  bool supports(ClientAsk ask) const override { return declares(e_->caps, ask); }
  Json capability(ClientAsk ask) const override { return declared(e_->caps, ask); }
  std::vector<Result<Json>> ask_all(const std::vector<ClientQuestion>& questions) override;

 private:
  ExtTaskStore& store_;
  std::shared_ptr<Entry> e_;
  std::chrono::steady_clock::time_point deadline_;
  int asked_ = 0;
};

std::vector<Result<Json>> ExtTaskStore::Channel::ask_all(const std::vector<ClientQuestion>& questions) {
  std::vector<Result<Json>> out(questions.size(), Result<Json>(Status(ErrorCode::kInternal, "not asked")));
  std::vector<std::pair<size_t, std::string>> waiting;  // question index, key
  auto until = deadline_;
  for (const auto& q : questions)
    if (q.wait.count() > 0) until = std::min(until, std::chrono::steady_clock::now() + q.wait);
  std::unique_lock lock(store_.mu_);
  for (size_t i = 0; i < questions.size(); ++i) {
    const auto& q = questions[i];
    if (!supports(q.ask)) {
      out[i] = client_unsupported(q.ask);
      continue;
    }
    std::string key = q.key.empty() ? "input-" + std::to_string(++asked_) : q.key;
    while (e_->seen_keys.count(key)) key += "'";  // unique over the task's life
    e_->seen_keys.insert(key);
    e_->asked[key] = {{"ask", int(q.ask)}, {"request", input_request(q)}};
    waiting.emplace_back(i, key);
  }
  if (waiting.empty()) return out;
  if (!terminal(e_->status)) e_->touch("input_required", "waiting for the client's answer");
  auto all_answered = [&] {
    for (auto& [i, key] : waiting)
      if (!e_->answers.count(key)) return false;
    return true;
  };
  while (!all_answered() && !e_->cancelled->load() && !store_.stopping_ && std::chrono::steady_clock::now() < until)
    store_.cv_.wait_for(lock, std::chrono::milliseconds(200));
  for (auto& [i, key] : waiting) {
    e_->asked.erase(key);
    auto it = e_->answers.find(key);
    if (it != e_->answers.end()) {
      out[i] = it->second;
      e_->answers.erase(it);
    } else {
      out[i] = e_->cancelled->load() || store_.stopping_ ? Status(ErrorCode::kCancelled, "the task was cancelled")
                                                         : Status(ErrorCode::kTimeout, "no answer in time");
    }
  }
  if (e_->asked.empty() && e_->status == "input_required") e_->touch("working", "the call is running");
  return out;
}

ExtTaskStore::~ExtTaskStore() {
  std::map<std::string, std::shared_ptr<Entry>> all;
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
    all = tasks_;
  }
  cv_.notify_all();
  for (auto& [id, e] : all) e->cancelled->store(true);
  for (auto& [id, e] : all)
    if (e->thread.joinable()) e->thread.join();
}

void ExtTaskStore::expire_locked() {
  const auto now = std::chrono::steady_clock::now();
  for (auto it = tasks_.begin(); it != tasks_.end();) {
    auto& e = it->second;
    if (e->done && e->ttl && now - e->born > *e->ttl) {
      if (e->thread.joinable()) e->thread.join();  // done: it has returned
      it = tasks_.erase(it);
    } else {
      ++it;
    }
  }
}

std::shared_ptr<ExtTaskStore::Entry> ExtTaskStore::find_locked(const std::string& task_id) {
  expire_locked();
  auto it = tasks_.find(task_id);
  return it == tasks_.end() ? nullptr : it->second;
}

// Called by the task's own thread as its last act: the thread is handed to the reaper, which joins
// it as it returns (the destructor joins it instead once stopping).
void ExtTaskStore::finish(const std::shared_ptr<Entry>& e, Result<Json> outcome) {
  std::lock_guard lock(mu_);
  e->done = true;
  if (!stopping_) join_when_finished(std::move(e->thread));
  if (terminal(e->status)) return;  // cancelled meanwhile: it stays cancelled
  if (outcome) {
    e->result = std::move(*outcome);
    e->touch("completed", e->result.value("isError", false) ? "the tool reported an error" : "the call finished");
  } else if (outcome.status().code() == ErrorCode::kCancelled && e->cancelled->load()) {
    e->touch("cancelled", "cancelled by the client");
  } else {
    e->error = {{"code", rpc_code_of(outcome.status())}, {"message", outcome.status().message()}};
    e->touch("failed", outcome.status().message());
  }
  e->asked = Json::object();
}

bool ExtTaskStore::stopping() {
  std::lock_guard lock(mu_);
  return stopping_;
}

Result<Json> ExtTaskStore::create(Work work, const Json& client_capabilities, std::chrono::milliseconds time_limit,
                                  const std::string& client, std::optional<std::chrono::milliseconds> ttl) {
  auto e = std::make_shared<Entry>();
  e->id = random_hex(16);
  e->caps = client_capabilities;
  e->ttl = ttl;
  const auto deadline = std::chrono::steady_clock::now() + time_limit;
  std::lock_guard lock(mu_);
  expire_locked();
  size_t running = 0;
  std::shared_ptr<Entry> oldest_done;
  for (auto& [id, t] : tasks_) {
    running += t->done ? 0 : 1;
    if (t->done && (!oldest_done || t->born < oldest_done->born)) oldest_done = t;
  }
  if (tasks_.size() >= kMaxStored && oldest_done) {  // the store is full: the oldest finished task goes first
    if (oldest_done->thread.joinable()) oldest_done->thread.join();
    tasks_.erase(oldest_done->id);
  }
  if (running >= kMaxRunning)
    return Status(ErrorCode::kResourceExhausted,
                  "Server busy: " + std::to_string(kMaxRunning) + " tasks are running; retry when one ends");
  BIOAGENT_RETURN_IF_ERROR(mcp_task_shares().take(client));
  tasks_[e->id] = e;  // visible to tasks/get before the CreateTaskResult leaves
  e->thread = std::thread([this, e, deadline, client, work = std::move(work)]() mutable {
    ToolContext ctx;
    ctx.set_cancel_flag(e->cancelled);
    ctx.set_deadline(deadline);
    ctx.set_client(std::make_shared<Channel>(*this, e, deadline));
    Result<Json> outcome = Status(ErrorCode::kInternal, "the task's work did not return");
    try {
      outcome = work(ctx);
    } catch (const std::exception& ex) {  // firewall: a task's bug fails the task, not the server
      outcome = Status(ErrorCode::kInternal, std::string("Internal error: ") + ex.what());
    }
    work = nullptr;  // what the work held goes with it
    mcp_task_shares().give_back(client);
    finish(e, std::move(outcome));  // its last act: nothing of `this` after it
  });
  return Json{{"resultType", "task"},
              {"taskId", e->id},
              {"status", e->status},
              {"createdAt", e->created},
              {"lastUpdatedAt", e->updated},
              {"ttlMs", e->ttl ? Json(e->ttl->count()) : Json()},
              {"pollIntervalMs", kPollIntervalMs}};
}

Result<Json> ExtTaskStore::get(const std::string& task_id) {
  std::lock_guard lock(mu_);
  auto e = find_locked(task_id);
  if (!e) return invalid_argument("Unknown task: '" + task_id.substr(0, 100) + "' (or it expired)");
  Json t = {{"resultType", "complete"},
            {"taskId", e->id},
            {"status", e->status},
            {"statusMessage", e->status_message},
            {"createdAt", e->created},
            {"lastUpdatedAt", e->updated},
            {"ttlMs", e->ttl ? Json(e->ttl->count()) : Json()},
            {"pollIntervalMs", kPollIntervalMs}};
  if (e->status == "input_required") {
    Json requests = Json::object();
    for (auto& [key, q] : e->asked.items())
      if (!e->answers.count(key)) requests[key] = q["request"];  // answered ones are no longer asked
    t["inputRequests"] = requests;
  }
  if (e->status == "completed") t["result"] = e->result;
  if (e->status == "failed") t["error"] = e->error;
  return t;
}

Status ExtTaskStore::update(const std::string& task_id, const Json& input_responses) {
  if (!input_responses.is_object()) return invalid_argument("Invalid params: inputResponses must be an object");
  std::lock_guard lock(mu_);
  auto e = find_locked(task_id);
  if (!e) return invalid_argument("Unknown task: '" + task_id.substr(0, 100) + "' (or it expired)");
  for (auto& [key, answer] : input_responses.items()) {
    if (!e->asked.contains(key) || e->answers.count(key)) continue;  // unknown or answered: ignored
    if (!check_client_answer(ClientAsk(e->asked[key]["ask"].get<int>()), answer).is_ok()) continue;
    e->answers[key] = answer;
  }
  cv_.notify_all();
  return Status::ok();
}

Status ExtTaskStore::cancel(const std::string& task_id) {
  std::lock_guard lock(mu_);
  auto e = find_locked(task_id);
  if (!e) return invalid_argument("Unknown task: '" + task_id.substr(0, 100) + "' (or it expired)");
  if (terminal(e->status)) return Status::ok();
  e->cancelled->store(true);  // the work stops at its next check
  e->touch("cancelled", "cancelled by the client");
  e->asked = Json::object();
  cv_.notify_all();
  return Status::ok();
}

}  // namespace bioagent::mcp
