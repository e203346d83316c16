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
    for (auto& up : s->after) BIOAGENT_RETURN_IF_ERROR(add(up, depth + 1));
    for (auto& up : s->uses) BIOAGENT_RETURN_IF_ERROR(add(up, depth + 1));
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
          if (std::find(out.begin(), out.end(), up) == out.end())
            return invalid_argument("stage '" + s.name + "' is listed before its upstream '" + up + "'");
      out.push_back(s.name);
    }
  return out;
}

namespace {

// A running stage's place: when it started, its step, where it works.
struct Progress {
  std::chrono::steady_clock::time_point started, reported;
  int step = 0, steps = 0;
  std::string what;
  fs::path work;
};

struct Shared {
  std::mutex mu;
  std::condition_variable cv;
  std::map<std::string, StageStatus> status;
  std::map<std::string, Progress> progress;  // running stages
  int free_cpus = 0;
  int running = 0;
};

// Copies what the stage put in its final/ folder into the run's final/ folder.
void publish(const fs::path& folder, const fs::path& run_dir) {
  std::error_code ec;
  if (!fs::is_directory(folder / "final", ec)) return;
  fs::create_directories(run_dir / "final", ec);
  for (auto& e : fs::directory_iterator(folder / "final", ec))
    if (e.is_regular_file())
      fs::copy_file(e.path(), run_dir / "final" / e.path().filename(), fs::copy_options::overwrite_existing, ec);
}

// The class a stage function's failure belongs to: its own word when it gave
// one, else its error code, else the rules for free text.
FailureClass class_of(const Status& s) {
  const Json& d = s.details();
  if (d.is_object() && d.contains(kFailureDetail))
    if (auto c = failure_class_from_string(d[kFailureDetail].get<std::string>())) return *c;
  switch (s.code()) {
    case ErrorCode::kNotFound:
      return classify_failure_text(s.message()) == FailureClass::kMissingProgram ? FailureClass::kMissingProgram
                                                                                 : FailureClass::kMissingInput;
    case ErrorCode::kParseError:
      return FailureClass::kMalformedInput;
    case ErrorCode::kTimeout:
      return FailureClass::kTimeout;
    default: {
      FailureClass c = classify_failure_text(s.message());
      return c == FailureClass::kUnknown ? FailureClass::kToolError : c;
    }
  }
}

// A failed attempt's folder is removed; its log is kept beside the stage
// folders as <stage>-<key>.failed.log, which the returned status names.
Status discard_attempt(Status s, const fs::path& tmp, const fs::path& folder) {
  std::error_code ec;
  fs::path kept = folder.string() + ".failed.log";
  fs::rename(tmp / "stage.log", kept, ec);
  fs::remove_all(tmp, ec);
  if (fs::exists(kept, ec)) s.with("log", kept.string());
  return s;
}

// A stage outcome whose record could not be written fails with both reasons:
// resuming a run depends on its record.
Status with_record(Status outcome, const Status& write) {
  if (write.is_ok()) return outcome;
  return Status(ErrorCode::kInternal, (outcome.is_ok() ? std::string() : outcome.message() + "; ") +
                                          "the run record could not be written: " + write.message());
}

// Runs the steps of one attempt in `tmp` (the stage's work folder).
using StepFn = std::function<void(int step, int steps, const std::string& what, const fs::path& work)>;

Status run_steps(const StageSpec& spec, StageContext& ctx, const std::string& key, Runner& runner, RunStore& store,
                 const PipelineOptions& o, const Json& versions, const StepFn& on_step) {
  const fs::path& tmp = ctx.work;
  std::error_code ec;
  fs::path log = tmp / "stage.log";
  // Figures drawn by the stage's own code (on this thread) speak the run's language.
  svg::FigureLanguage figure_language(ctx.run.value("lang", std::string()) == "zh");
  auto fail = [&](const Status& s) {
    FailureClass c = class_of(s);
    const Json& d = s.details();
    auto keep_reason = [&](Status out) {  // a stage's typed reason travels with its failure
      if (d.is_object() && d.contains(kReasonDetail)) out.with(kReasonDetail, d[kReasonDetail]);
      return out;
    };
    Status w = store.record({{"stage", spec.name},
                             {"key", key},
                             {"state", "failed"},
                             {"failure", to_string(c)},
                             {"message", s.message()},
                             {"log", log.string()}});
    return with_record(keep_reason(with_failure(Status(ErrorCode::kToolFailed, spec.name + ": " + s.message()), c)), w);
  };
  if (spec.check)
    if (Status s = spec.check(ctx); !s.is_ok()) return fail(s);
  std::vector<Step> steps;
  if (spec.steps) {
    auto st = spec.steps(ctx);
    if (!st) return fail(st.status());
    steps = std::move(*st);
  }
  Resources res = resources_for(spec.resource, ctx.cpus);
  res.cpus = ctx.cpus;
  if (o.stage_time_limit_minutes > 0) res.time_minutes = o.stage_time_limit_minutes;
  static const std::atomic<bool> kNever{false};
  const std::atomic<bool>& cancel = o.cancel ? *o.cancel : kNever;
  for (size_t i = 0; i < steps.size(); ++i) {
    if (cancel.load()) return Status(ErrorCode::kCancelled, spec.name + ": cancelled");
    const auto* step_cmd = std::get_if<Command>(&steps[i]);
    if (on_step)
      on_step(int(i) + 1, int(steps.size()),
              step_cmd && !step_cmd->argv.empty() ? fs::path(step_cmd->argv[0]).filename().string() : "in-process",
              tmp);
    if (auto* cmd = std::get_if<Command>(&steps[i])) {
      ProcessResult r = runner.run(*cmd, tmp, log, res, cancel);
      Json rec = {{"stage", spec.name},
                  {"key", key},
                  {"step", int(i)},
                  {"argv", cmd->argv},
                  {"versions", versions},
                  {"runner", runner.name()},
                  {"job_id", r.job_id},
                  {"seconds", r.seconds},
                  {"user_seconds", r.user_seconds},
                  {"system_seconds", r.system_seconds},
                  {"max_rss_kb", r.max_rss_kb},
                  {"exit_code", r.exit_code},
                  {"log", log.string()}};
      if (r.cancelled) {
        rec["state"] = "cancelled";
        return with_record(Status(ErrorCode::kCancelled, spec.name + ": cancelled"), store.record(rec));
      }
      if (r.timed_out || r.exit_code != 0) {
        FailureClass c = classify_process(r);
        std::string why = r.timed_out         ? "timed out after " + std::to_string(res.time_minutes) + " min"
                          : r.exit_code == -1 ? "could not be started"
                          : r.exit_code > 128 ? "was killed by signal " + std::to_string(r.exit_code - 128)
                                              : "exited with code " + std::to_string(r.exit_code);
        rec["state"] = "failed";
        rec["failure"] = to_string(c);
        rec["message"] = cmd->argv[0] + " " + why;
        return with_record(
            with_failure(
                Status(ErrorCode::kToolFailed, spec.name + ": " + cmd->argv[0] + " " + why + "\n" + r.log_tail), c),
            store.record(rec));
      }
      rec["state"] = "ok";
      BIOAGENT_RETURN_IF_ERROR(store.record(rec));
    } else {
      Status s = std::get<StageFn>(steps[i])(ctx);
      if (!s.is_ok()) return fail(s);
    }
  }
  for (auto& out : spec.outputs)
    if (!fs::exists(tmp / out, ec))
      return fail(with_failure(Status(ErrorCode::kToolFailed, "did not produce " + out), FailureClass::kEmptyResult));
  return Status::ok();
}

// One attempt of a stage in a temporary folder; renamed into place on
// success, removed (its log kept) on failure.
Status attempt(const StageSpec& spec, StageContext ctx, const std::string& key, const fs::path& folder, Runner& runner,
               RunStore& store, const PipelineOptions& o, const Json& versions, const StepFn& on_step) {
  std::error_code ec;
  const std::string tmp_prefix = "." + folder.filename().string() + ".tmp-";
  fs::path tmp = folder.parent_path() / (tmp_prefix + std::to_string(::getpid()));
  for (auto& e : fs::directory_iterator(folder.parent_path(), ec)) {  // leftovers of killed runs
    std::string n = e.path().filename().string();
    if (n.rfind(tmp_prefix, 0) != 0) continue;
    pid_t owner = pid_t(std::atol(n.c_str() + tmp_prefix.size()));
    if (owner != ::getpid() && ::kill(owner, 0) != 0 && errno == ESRCH) fs::remove_all(e.path(), ec);
  }
  fs::remove_all(tmp, ec);
  fs::create_directories(tmp, ec);
  ctx.work = tmp;
  Status s = run_steps(spec, ctx, key, runner, store, o, versions, on_step);
  if (!s.is_ok()) return discard_attempt(s, tmp, folder);
  std::ofstream(tmp / ".complete") << json_text(
      Json{{"stage", spec.name}, {"key", key}, {"params", ctx.params}, {"versions", versions}}, 2);
  fs::remove_all(folder, ec);  // an incomplete leftover of a killed run
  fs::rename(tmp, folder, ec);
  if (ec)
    return discard_attempt(
        Status(ErrorCode::kToolFailed, spec.name + ": could not move the finished folder into place: " + ec.message()),
        tmp, folder);
  return with_record(Status::ok(),
                     store.record({{"stage", spec.name}, {"key", key}, {"state", "done"}, {"runner", runner.name()}}));
}

// The final state of a finished stage from its summary and checks: skipped
// when the summary says nothing applied, warn when a check did not pass.
void settle(const StageSpec& spec, const StageContext& ctx, StageStatus& st) {
  if (st.summary.is_object() && st.summary.value("skipped", false)) {
    st.state = StageState::kSkipped;
    st.message = st.summary.value("reason", std::string("nothing applied"));
    st.reason = {{"kind", st.summary.value("reason_kind", std::string("nothing_applied"))},
                 {"subject", st.summary.value("reason_subject", std::string())}};
    return;
  }
  if (!spec.checks) return;
  st.checks = spec.checks(ctx, st.summary);
  std::string failed, names;
  for (auto& c : st.checks)
    if (c.status != "pass") {
      failed += (failed.empty() ? "" : "; ") + c.check + ": " + c.detail;
      names += (names.empty() ? "" : ", ") + c.check;
    }
  if (!failed.empty()) {
    st.state = StageState::kWarn;
    if (!st.reason.is_object()) st.reason = {{"kind", "checks_warn"}, {"subject", names}};
    st.message = (st.message.empty() ? "" : st.message + "; ") + failed;
  }
}

// Why `spec` cannot run, typed: a data file it needs is absent
// (missing_data_file) or an upstream whose outputs it needs was skipped or did
// not finish (upstream_skipped, upstream_not_finished). Null: it can run.
Json missing_input(const StageSpec& spec, const Json& run, const std::map<std::string, StageStatus>& status) {
  if (Json why = missing_data_file(spec, run); why.is_object()) return why;
  for (auto& up : spec.after) {
    const StageStatus& u = status.at(up);
    if (!finished_with_outputs(u.state))
      return u.state == StageState::kSkipped
                 ? Json{{"kind", "upstream_skipped"}, {"subject", up}, {"detail", u.message.substr(0, 200)}}
                 : Json{{"kind", "upstream_not_finished"}, {"subject", up}, {"detail", to_string(u.state)}};
  }
  return nullptr;
}

// A running stage's progress as the events carry it.
Json progress_json(const StageSpec& spec, const Progress& p) {
  Json j = {{"elapsed_seconds",
             std::round(std::chrono::duration<double>(std::chrono::steady_clock::now() - p.started).count())},
            {"step", p.step},
            {"steps", p.steps},
            {"what", p.what}};
  if (spec.phase && !p.work.empty()) {
    std::string phase = spec.phase(p.work);
    if (!phase.empty()) j["phase"] = phase;
  }
  return j;
}

// A stage's attempts in its own thread: the first, then each automatic repair
// its table entry has for the failure's class, once each, in order.
void run_stage(const StageSpec& spec, StageContext ctx, const std::string& key, const fs::path& folder, Runner& runner,
               RunStore& store, const PipelineOptions& o, const Json& versions, Shared& sh, int total) {
  auto t0 = std::chrono::steady_clock::now();
  StepFn on_step = [&](int step, int steps, const std::string& what, const fs::path& work) {
    std::lock_guard g(sh.mu);
    Progress& p = sh.progress[spec.name];
    p.step = step, p.steps = steps, p.what = what, p.work = work;
    p.reported = std::chrono::steady_clock::now();
    if (o.on_event)
      o.on_event({spec.name, StageState::kRunning, "", -1, total, nullptr, nullptr, progress_json(spec, p)});
  };
  Status s = attempt(spec, ctx, key, folder, runner, store, o, versions, on_step);
  Json repaired;  // Repair::applied of the repair that made it finish
  for (auto& rep : spec.repairs) {
    if (s.is_ok() || s.code() == ErrorCode::kCancelled) break;
    if (!rep.automatic || !rep.matches(class_of(s), s.message())) continue;
    StageContext patched = ctx;
    patched.params.merge_patch(rep.param_patch);
    Json applied = rep.applied(ctx.params);
    const std::string what = applied["description"].get<std::string>();
    if (Status w = store.record({{"stage", spec.name},
                                 {"key", key},
                                 {"state", "repair"},
                                 {"repair", rep.key},
                                 {"message", what},
                                 {"asked", applied["asked"]},
                                 {"used", applied["used"]}});
        !w.is_ok()) {
      s = with_record(s, w);
      break;
    }
    if (o.on_event) o.on_event({spec.name, StageState::kRepairing, what, -1, total, applied});
    s = attempt(spec, patched, key, folder, runner, store, o, versions, on_step);
    if (s.is_ok()) {
      repaired = applied;
      ctx = patched;
    }
  }
  StageStatus result;
  if (s.is_ok()) {
    ctx.work = folder;
    if (spec.parse) {
      auto sum = spec.parse(ctx);
      result.summary = sum ? *sum : Json{{"parse_error", sum.status().message()}};
    }
    result.state = StageState::kDone;
    result.repair = repaired;
    if (repaired.is_object()) result.reason = {{"kind", "repaired"}, {"subject", repaired["key"]}};
    result.message = repaired.is_object() ? "repaired: " + repaired["description"].get<std::string>() : "";
    settle(spec, ctx, result);
    publish(folder, o.run_dir);
  } else {
    result.state = s.code() == ErrorCode::kCancelled ? StageState::kCancelled : StageState::kFailed;
    result.failure = s.code() == ErrorCode::kCancelled ? FailureClass::kNone : class_of(s);
    result.message = s.message();
    const Json& d = s.details();
    result.reason = d.is_object() && d.contains(kReasonDetail) ? d[kReasonDetail]
                    : s.code() == ErrorCode::kCancelled
                        ? Json{{"kind", "cancelled"}, {"subject", ""}}
                        : Json{{"kind", "failure"}, {"subject", to_string(result.failure)}};
  }
  std::lock_guard g(sh.mu);
  StageStatus& st = sh.status[spec.name];
  st.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  st.summary = result.summary;
  st.state = result.state;
  st.message = result.message;
  st.failure = result.failure;
  st.checks = result.checks;
  st.repair = result.repair;
  st.reason = result.reason;
  sh.progress.erase(spec.name);
  sh.free_cpus += ctx.cpus;
  --sh.running;
  sh.cv.notify_all();
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
  Shared sh;
  sh.free_cpus = std::max(1, o.cpus);
  for (auto& n : *order) sh.status[n].stage = n;
  std::map<std::string, std::string> keys;
  std::vector<std::thread> threads;
  std::set<std::string> announced;  // stages in a final state, announced once
  int finished = 0;
  const int total = int(order->size());
  auto emit = [&](const std::string& stage, StageState state, const std::string& msg) {
    if (is_final(state)) {
      announced.insert(stage);
      finished = int(announced.size());
    }
    if (o.on_event) o.on_event({stage, state, msg, finished, total, sh.status[stage].repair, sh.status[stage].reason});
  };
  auto conclude = [&](StageStatus& st, StageState state, const std::string& msg) {
    st.state = state;
    st.message = msg;
    emit(st.stage, state, msg);
  };
  // Ready stages start small first, so quick stages are not held behind a
  // stage that takes every CPU.
  std::vector<std::string> by_size = *order;
  auto weight = [&](const std::string& n) {
    const std::string& r = find(n)->resource;
    return r == "small" ? 0 : r == "medium" ? 1 : 2;
  };
  std::stable_sort(by_size.begin(), by_size.end(), [&](auto& a, auto& b) { return weight(a) < weight(b); });
  std::unique_lock lock(sh.mu);
  if (o.on_event)  // the queue: every stage of the run, pending, in table order
    for (auto& n : *order) o.on_event({n, StageState::kPending, "", 0, total});
  while (finished < total) {
    bool started = false;
    for (auto& name : by_size) {
      StageStatus& st = sh.status[name];
      if (st.state != StageState::kPending) continue;
      const StageSpec& spec = *find(name);
      bool blocked = false;
      for (const auto* ups : {&spec.after, &spec.uses})
        for (auto& up : *ups) blocked |= !is_final(sh.status[up].state);
      if (o.cancel && o.cancel->load()) {
        st.reason = {{"kind", "cancelled"}, {"subject", ""}};
        conclude(st, StageState::kCancelled, "cancelled");
        started = true;
        continue;
      }
      if (blocked) continue;
      if (Json why = missing_input(spec, run, sh.status); why.is_object()) {
        st.reason = why;
        conclude(st, StageState::kSkipped, render_reason(why, false));
        started = true;
        continue;
      }
      // Key: parameters, data digests, upstream keys, tool versions.
      Json given = run.value("params", Json::object()).value(name, Json::object());
      if (o.patch_params) {
        std::vector<StageStatus> finished_so_far;
        for (auto& [n, u] : sh.status)
          if (is_final(u.state)) finished_so_far.push_back(u);
        lock.unlock();
        Json patch = o.patch_params(name, finished_so_far);
        lock.lock();
        if (patch.is_object()) given.merge_patch(patch);
      }
      Json params = apply_defaults(spec.params_schema, given);
      if (Status v = validate(spec.params_schema, params, name); !v.is_ok()) {
        st.failure = FailureClass::kMalformedInput;
        conclude(st, StageState::kFailed, v.message());
        started = true;
        continue;
      }
      if (spec.skip_when)
        if (Json why = spec.skip_when(run, params); why.is_object()) {
          st.reason = why;
          conclude(st, StageState::kSkipped, render_reason(why, false));
          started = true;
          continue;
        }
      Json versions = Json::object();
      for (auto& p : spec.programs) versions[p] = cached_version(**store, o.version_book, p);
      Json key_doc = {{"stage", name},
                      {"params", params},
                      {"versions", versions},
                      {"data", Json::object()},
                      {"upstream", Json::object()}};
      std::string missing;
      for (auto& p : spec.programs)
        if (versions[p] == "not installed") missing += (missing.empty() ? "" : ", ") + p;
      lock.unlock();
      for (auto& f : spec.data_files) {
        auto d = data_digest(**store, run.value("files", Json::object()).value(f, std::string()));
        key_doc["data"][f] = d ? *d : "missing";
      }
      lock.lock();
      for (const auto* ups : {&spec.after, &spec.uses})
        for (auto& up : *ups)
          key_doc["upstream"][up] = finished_with_outputs(sh.status[up].state) ? keys[up] : "absent";
      if (spec.revision != 1) key_doc["revision"] = spec.revision;
      std::string key = sha256_hex(key_doc.dump()).substr(0, 16);
      keys[name] = key;
      fs::path folder = o.run_dir / "stages" / (name + "-" + key);
      st.key = key;
      st.folder = folder.string();
      StageContext ctx;
      ctx.run = run;
      ctx.run["run_dir"] = fs::absolute(o.run_dir).string();  // for stages that read the run record (not keyed)
      ctx.run["stage_states"] = Json::object();               // every upstream's state and message, for the report
      for (auto& [n, u] : sh.status)
        if (is_final(u.state)) ctx.run["stage_states"][n] = u.to_json();
      ctx.params = params;
      for (const auto* ups : {&spec.after, &spec.uses})
        for (auto& up : *ups)
          if (finished_with_outputs(sh.status[up].state)) ctx.input[up] = sh.status[up].folder;
      if (!missing.empty()) {
        st.failure = FailureClass::kMissingProgram;
        st.reason = {{"kind", "program_missing"}, {"subject", missing}};
        conclude(st, StageState::kFailed, render_reason(st.reason, false));
        started = true;
        continue;
      }
      if (fs::exists(folder / ".complete", ec)) {  // finished by an earlier run
        st.state = StageState::kCached;
        st.reason = {{"kind", "cached"}, {"subject", ""}};
        st.message = render_reason(st.reason, false);
        ctx.work = folder;
        if (spec.parse)
          if (auto sum = spec.parse(ctx)) st.summary = *sum;
        settle(spec, ctx, st);
        publish(folder, o.run_dir);
        emit(name, st.state, st.message);
        started = true;
        continue;
      }
      Resources res = resources_for(spec.resource, o.cpus);
      int want = std::min(res.cpus, std::max(1, o.cpus));
      if (sh.free_cpus < want && sh.running > 0) continue;  // wait for CPUs
      ctx.cpus = std::max(1, std::min(want, sh.free_cpus));
      sh.free_cpus -= ctx.cpus;
      ++sh.running;
      st.state = StageState::kRunning;
      sh.progress[name].started = sh.progress[name].reported = std::chrono::steady_clock::now();
      emit(name, StageState::kRunning, "");
      started = true;
      threads.emplace_back([&, name, ctx, key, folder, versions]() mutable {
        run_stage(*find(name), ctx, key, folder, runner, **store, o, versions, sh, total);
      });
    }
    if (finished >= total) break;
    if (!started) {
      if (o.progress_seconds <= 0) {
        sh.cv.wait(lock);
      } else {  // wakes to report the running stages' elapsed time and phase
        sh.cv.wait_for(lock, std::chrono::seconds(o.progress_seconds));
        auto now = std::chrono::steady_clock::now();
        for (auto& [n, p] : sh.progress)
          if (o.on_event && now - p.reported >= std::chrono::seconds(o.progress_seconds)) {
            p.reported = now;
            o.on_event({n, StageState::kRunning, "", -1, total, nullptr, nullptr, progress_json(*find(n), p)});
          }
      }
    }
    for (auto& [n, st] : sh.status)
      if (is_final(st.state) && !announced.count(n)) emit(n, st.state, st.message);
  }
  lock.unlock();
  for (auto& t : threads) t.join();
  std::vector<StageStatus> out;
  for (auto& n : *order) out.push_back(sh.status[n]);
  return out;
}

}  // namespace bioagent
