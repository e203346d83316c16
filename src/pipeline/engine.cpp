// Pipeline: planning, stage keys, attempts with repairs, and the DAG scheduler.
#include <signal.h>
#include <unistd.h>
#include <algorithm>
#include <cmath>
#include <condition_variable>
#include <fstream>
#include <mutex>
#include <set>
#include <thread>

#include <cerrno>

#include "bioagent/digest.h"
#include "bioagent/json_text.h"
#include "bioagent/pipeline.h"
#include "bioagent/schema.h"
#include "bioagent/version.h"
#include "figures/svg.h"
#include "pipeline/program_versions.h"
#include "pipeline/run_store.h"
#include "pipeline/stage_attempt.h"
#include "pipeline/stage_reasons.h"
#include "pipeline/subprocess.h"

namespace bioagent {

Json StageStatus::to_json() const {
  Json c = Json::array();
  for (auto& x : checks) c.push_back(x.to_json());
  Json j = {{"stage", stage},     {"state", to_string(state)}, {"key", key},        {"folder", folder},
            {"message", message}, {"seconds", seconds},        {"summary", summary}};
  if (failure != FailureClass::kNone) j["failure"] = to_string(failure);
  if (reason.is_object()) j["reason"] = reason;
  if (!checks.empty()) j["checks"] = c;
  if (repair.is_object()) {
    j["repaired"] = true;
    j["repair"] = repair;
  }
  return j;
}

fs::path StageContext::data(const std::string& key) const {
  return fs::path(run.value("files", Json::object()).value(key, std::string()));
}

Pipeline::Pipeline(std::vector<StageSpec> stages) : stages_(std::move(stages)) {}

const StageSpec* Pipeline::find(const std::string& name) const {
  for (auto& s : stages_)
    if (s.name == name) return &s;
  return nullptr;
}

Result<std::vector<std::string>> Pipeline::plan(const std::vector<std::string>& wanted) const {
  std::set<std::string> need;
  std::function<Status(const std::string&, int)> add = [&](const std::string& n, int depth) -> Status {
    if (depth > 64) return invalid_argument("the stage table has a cycle at '" + n + "'");
    const StageSpec* s = find(n);
    if (!s) {
      std::string list;
      for (auto& st : stages_) list += (list.empty() ? "" : ", ") + st.name;
      return not_found("no stage named '" + n + "'; the stages are: " + list);
    }
    if (!need.insert(n).second) return Status::ok();
    // What a stage needs comes with it; what it only reads when it finished (`uses`) does not.
    for (auto& up : s->after) BIOAGENT_RETURN_IF_ERROR(add(up, depth + 1));
    return Status::ok();
  };
  if (wanted.empty())
    for (auto& s : stages_) BIOAGENT_RETURN_IF_ERROR(add(s.name, 0));
  for (auto& w : wanted) BIOAGENT_RETURN_IF_ERROR(add(w, 0));
  std::vector<std::string> out;  // table order is a valid order when every stage follows its upstreams
  for (auto& s : stages_)
    if (need.count(s.name)) {
      for (const auto* ups : {&s.after, &s.uses})
        for (auto& up : *ups)
          if (need.count(up) && std::find(out.begin(), out.end(), up) == out.end())
            return invalid_argument("stage '" + s.name + "' is listed before its upstream '" + up + "'");
      out.push_back(s.name);
    }
  return out;
}

namespace {

using engine::Shared;

// The DAG scheduler of one run: starts every ready stage (small ones first) in
// its own thread while CPUs are free, concludes the stages that cannot run,
// and announces each stage's final state once. Its members are guarded by sh.mu
// (held in `lock`) except where a step unlocks it around slow work.
class Scheduler {
 public:
  Scheduler(const Pipeline& pipeline, const Json& run, Runner& runner, const PipelineOptions& o, RunStore& store,
            const std::vector<std::string>& order)
      : p_(pipeline), run_(run), runner_(runner), o_(o), store_(store), order_(order), total_(int(order.size())) {
    sh_.free_cpus = std::max(1, o.cpus);
    for (auto& n : order) sh_.status[n].stage = n;
  }
  std::vector<StageStatus> run();

 private:
  void emit(const std::string& stage, StageState state, const std::string& msg);
  void conclude(StageStatus& st, StageState state, const std::string& msg);
  std::vector<std::string> small_first() const;
  bool consider(const std::string& name);
  Json stage_params(const std::string& name);
  std::string stage_key(const StageSpec& spec, const Json& params, const Json& versions);
  StageContext stage_context(const StageSpec& spec, const Json& params);
  void conclude_cached(const StageSpec& spec, StageStatus& st, StageContext ctx, const fs::path& folder);
  void wait_and_report();
  // An upstream stage's status in this run; null when the run does not include it.
  const StageStatus* upstream(const std::string& name) const {
    auto it = sh_.status.find(name);
    return it == sh_.status.end() ? nullptr : &it->second;
  }

  const Pipeline& p_;
  const Json& run_;
  Runner& runner_;
  const PipelineOptions& o_;
  RunStore& store_;
  const std::vector<std::string>& order_;
  const int total_;
  Shared sh_;
  std::unique_lock<std::mutex> lock_{sh_.mu, std::defer_lock};
  std::map<std::string, std::string> keys_;
  std::vector<std::thread> threads_;
  std::set<std::string> announced_;  // stages in a final state, announced once
  int finished_ = 0;
};

void Scheduler::emit(const std::string& stage, StageState state, const std::string& msg) {
  if (is_final(state)) {
    announced_.insert(stage);
    finished_ = int(announced_.size());
  }
  if (o_.on_event)
    o_.on_event({stage, state, msg, finished_, total_, sh_.status[stage].repair, sh_.status[stage].reason});
}

void Scheduler::conclude(StageStatus& st, StageState state, const std::string& msg) {
  st.state = state;
  st.message = msg;
  emit(st.stage, state, msg);
}

// Ready stages start small first, so quick stages are not held behind a stage that takes every CPU.
std::vector<std::string> Scheduler::small_first() const {
  std::vector<std::string> by_size = order_;
  auto weight = [&](const std::string& n) {
    const std::string& r = p_.find(n)->resource;
    return r == "small" ? 0 : r == "medium" ? 1 : 2;
  };
  std::stable_sort(by_size.begin(), by_size.end(), [&](auto& a, auto& b) { return weight(a) < weight(b); });
  return by_size;
}

std::vector<StageStatus> Scheduler::run() {
  const std::vector<std::string> by_size = small_first();
  lock_.lock();
  if (o_.on_event)  // the queue: every stage of the run, pending, in table order
    for (auto& n : order_) o_.on_event({n, StageState::kPending, "", 0, total_});
  while (finished_ < total_) {
    bool started = false;
    for (auto& name : by_size) started |= consider(name);
    if (finished_ >= total_) break;
    if (!started) wait_and_report();
    for (auto& [n, st] : sh_.status)
      if (is_final(st.state) && !announced_.count(n)) emit(n, st.state, st.message);
  }
  lock_.unlock();
  for (auto& t : threads_) t.join();
  std::vector<StageStatus> out;
  for (auto& n : order_) out.push_back(sh_.status[n]);
  return out;
}

// The stage's parameters: the run's, the patch the options give once upstreams finished, its schema's defaults.
Json Scheduler::stage_params(const std::string& name) {
  Json given = run_.value("params", Json::object()).value(name, Json::object());
  if (o_.patch_params) {
    std::vector<StageStatus> finished_so_far;
    for (auto& [n, u] : sh_.status)
      if (is_final(u.state)) finished_so_far.push_back(u);
    lock_.unlock();
    Json patch = o_.patch_params(name, finished_so_far);
    lock_.lock();
    if (patch.is_object()) given.merge_patch(patch);
  }
  return apply_defaults(p_.find(name)->params_schema, given);
}

// Key: parameters, data digests, upstream keys, tool versions.
std::string Scheduler::stage_key(const StageSpec& spec, const Json& params, const Json& versions) {
  Json key_doc = {{"stage", spec.name},
                  {"params", params},
                  {"versions", versions},
                  {"data", Json::object()},
                  {"upstream", Json::object()}};
  lock_.unlock();
  for (auto& f : spec.data_files) {
    auto d = data_digest(store_, run_.value("files", Json::object()).value(f, std::string()));
    key_doc["data"][f] = d ? *d : "missing";
  }
  lock_.lock();
  for (const auto* ups : {&spec.after, &spec.uses})
    for (auto& up : *ups) {
      const StageStatus* u = upstream(up);
      key_doc["upstream"][up] = u && finished_with_outputs(u->state) ? keys_[up] : "absent";
    }
  if (spec.revision != 1) key_doc["revision"] = spec.revision;
  return sha256_hex(json_text(key_doc)).substr(0, 16);
}

StageContext Scheduler::stage_context(const StageSpec& spec, const Json& params) {
  StageContext ctx;
  ctx.run = run_;
  ctx.run["run_dir"] = fs::absolute(o_.run_dir).string();  // for stages that read the run record (not keyed)
  ctx.run["stage_states"] = Json::object();                // every upstream's state and message, for the report
  for (auto& [n, u] : sh_.status)
    if (is_final(u.state)) ctx.run["stage_states"][n] = u.to_json();
  ctx.params = params;
  ctx.pipeline = &p_;
  for (const auto* ups : {&spec.after, &spec.uses})
    for (auto& up : *ups)
      if (const StageStatus* u = upstream(up); u && finished_with_outputs(u->state)) ctx.input[up] = u->folder;
  return ctx;
}

// A stage finished by an earlier run: its summary and checks read from its folder.
void Scheduler::conclude_cached(const StageSpec& spec, StageStatus& st, StageContext ctx, const fs::path& folder) {
  st.state = StageState::kCached;
  st.reason = {{"kind", "cached"}, {"subject", ""}};
  st.message = render_reason(st.reason, Lang::kEn);
  ctx.work = folder;
  if (spec.parse)
    if (auto sum = spec.parse(ctx)) st.summary = *sum;
  engine::settle(spec, ctx, st);
  engine::publish(folder, o_.run_dir);
  emit(spec.name, st.state, st.message);
}

// One pending stage: concluded when it cannot run or was cached, started when
// CPUs are free. True when its state changed.
bool Scheduler::consider(const std::string& name) {
  StageStatus& st = sh_.status[name];
  if (st.state != StageState::kPending) return false;
  const StageSpec& spec = *p_.find(name);
  bool blocked = false;
  for (const auto* ups : {&spec.after, &spec.uses})
    for (auto& up : *ups) {
      const StageStatus* u = upstream(up);  // a stage it only uses, not in this run, is not waited for
      blocked |= u && !is_final(u->state);
    }
  if (o_.cancel && o_.cancel->load()) {
    st.reason = {{"kind", "cancelled"}, {"subject", ""}};
    conclude(st, StageState::kCancelled, "cancelled");
    return true;
  }
  if (blocked) return false;
  if (Json why = engine::missing_input(spec, run_, sh_.status); why.is_object()) {
    st.reason = why;
    conclude(st, StageState::kSkipped, render_reason(why, Lang::kEn));
    return true;
  }
  Json params = stage_params(name);
  if (Status v = validate(spec.params_schema, params, name); !v.is_ok()) {
    st.failure = FailureClass::kMalformedInput;
    conclude(st, StageState::kFailed, v.message());
    return true;
  }
  if (spec.skip_when)
    if (Json why = spec.skip_when(run_, params); why.is_object()) {
      st.reason = why;
      conclude(st, StageState::kSkipped, render_reason(why, Lang::kEn));
      return true;
    }
  Json versions = Json::object();
  for (auto& p : spec.programs) versions[p] = cached_version(store_, o_.version_book, p);
  std::string missing;
  for (auto& p : spec.programs)
    if (versions[p] == "not installed") missing += (missing.empty() ? "" : ", ") + p;
  std::string key = stage_key(spec, params, versions);
  keys_[name] = key;
  fs::path folder = o_.run_dir / "stages" / (name + "-" + key);
  st.key = key;
  st.folder = folder.string();
  StageContext ctx = stage_context(spec, params);
  if (!missing.empty()) {
    st.failure = FailureClass::kMissingProgram;
    st.reason = {{"kind", "program_missing"}, {"subject", missing}};
    conclude(st, StageState::kFailed, render_reason(st.reason, Lang::kEn));
    return true;
  }
  std::error_code ec;
  if (fs::exists(folder / ".complete", ec)) {
    conclude_cached(spec, st, ctx, folder);
    return true;
  }
  Resources res = resources_for(spec.resource, o_.cpus);
  int want = std::min(res.cpus, std::max(1, o_.cpus));
  if (engine::in_background_lane(spec)) {
    if (sh_.background > 0) return false;  // one long stage at a time
    ctx.cpus = want;
    ++sh_.background;
  } else {
    if (sh_.free_cpus < want && sh_.running > sh_.background) return false;  // wait for CPUs
    ctx.cpus = std::max(1, std::min(want, sh_.free_cpus));
    sh_.free_cpus -= ctx.cpus;
  }
  ++sh_.running;
  st.state = StageState::kRunning;
  sh_.progress[name].started = sh_.progress[name].reported = std::chrono::steady_clock::now();
  emit(name, StageState::kRunning, "");
  threads_.emplace_back([this, name, ctx, key, folder, versions]() mutable {
    engine::run_stage(*p_.find(name), ctx, key, folder, runner_, store_, o_, versions, sh_, total_);
  });
  return true;
}

// Nothing could start: waits for a stage to finish, waking to report the running stages' elapsed time and phase.
void Scheduler::wait_and_report() {
  if (o_.progress_seconds <= 0) {
    sh_.cv.wait(lock_);
    return;
  }
  sh_.cv.wait_for(lock_, std::chrono::seconds(o_.progress_seconds));
  auto now = std::chrono::steady_clock::now();
  for (auto& [n, p] : sh_.progress)
    if (o_.on_event && now - p.reported >= std::chrono::seconds(o_.progress_seconds)) {
      p.reported = now;
      o_.on_event({n, StageState::kRunning, "", -1, total_, nullptr, nullptr, engine::progress_json(*p_.find(n), p)});
    }
}

}  // namespace

Result<std::vector<StageStatus>> Pipeline::run(const Json& run, Runner& runner, const PipelineOptions& given) const {
  auto order = plan(given.stages);
  if (!order) return order.status();
  PipelineOptions o = given;
  const int most = runner.max_cpus();
  if (o.cpus <= 0) o.cpus = most > 0 ? most : 2;
  if (most > 0 && o.cpus > most)
    return Status(ErrorCode::kInvalidArgument, "a CPU budget of " + std::to_string(o.cpus) + " is more than the " +
                                                   std::to_string(most) + " CPUs the " + runner.name() +
                                                   " runner has (allowed: 1 to " + std::to_string(most) + ")")
        .with("field", "cpus");
  auto store = RunStore::open(o.run_dir);
  if (!store) return store.status();
  std::error_code ec;
  fs::create_directories(o.run_dir / "stages", ec);
  Scheduler scheduler(*this, run, runner, o, **store, *order);
  return scheduler.run();
}

}  // namespace bioagent
