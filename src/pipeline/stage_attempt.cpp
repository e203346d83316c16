// A stage's attempts: its steps in a temporary folder (renamed into place on
// success, removed with its log kept on failure), the automatic repairs of its
// table row, and its final state for the scheduler (engine.cpp).
#include "pipeline/stage_attempt.h"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <fstream>

#include "bioagent/json_text.h"
#include "pipeline/stage_reasons.h"
#include "pipeline/subprocess.h"

namespace bioagent::engine {
namespace {

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

// A failed (or cancelled) attempt's folder is removed; its log is kept beside the stage
// folders as <stage>-<key>.failed.log (.cancelled.log), which the returned status names.
Status discard_attempt(Status s, const fs::path& tmp, const fs::path& folder) {
  std::error_code ec;
  fs::path kept = folder.string() + (s.code() == ErrorCode::kCancelled ? ".cancelled.log" : ".failed.log");
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

// A failed step of `spec`'s attempt, recorded in the run store with its class; the
// stage's typed reason travels with the returned failure.
Status record_failure(const StageSpec& spec, const std::string& key, const fs::path& log, RunStore& store,
                      const Status& s) {
  FailureClass c = class_of(s);
  const Json& d = s.details();
  Status w = store.record({{"stage", spec.name},
                           {"key", key},
                           {"state", "failed"},
                           {"failure", to_string(c)},
                           {"message", s.message()},
                           {"log", log.string()}});
  Status out = with_failure(Status(ErrorCode::kToolFailed, spec.name + ": " + s.message()), c);
  if (d.is_object() && d.contains(kReasonDetail)) out.with(kReasonDetail, d[kReasonDetail]);
  return with_record(out, w);
}

// What the steps of one attempt share.
struct AttemptEnv {
  const StageSpec& spec;
  const std::string& key;
  Runner& runner;
  RunStore& store;
  const Json& versions;
  fs::path log;
  Resources res;
  const std::atomic<bool>& cancel;
};

// One external command of an attempt in `tmp`, recorded in the run store; a
// failure is classed by how its process ended.
Status run_command(const AttemptEnv& a, const Command& cmd, size_t i, const fs::path& tmp) {
  ProcessResult r = a.runner.run(cmd, tmp, a.log, a.res, a.cancel);
  Json rec = {{"stage", a.spec.name},
              {"key", a.key},
              {"step", int(i)},
              {"argv", cmd.argv},
              {"versions", a.versions},
              {"runner", a.runner.name()},
              {"job_id", r.job_id},
              {"seconds", r.seconds},
              {"user_seconds", r.user_seconds},
              {"system_seconds", r.system_seconds},
              {"max_rss_kb", r.max_rss_kb},
              {"exit_code", r.exit_code},
              {"log", a.log.string()}};
  if (r.cancelled) {
    rec["state"] = "cancelled";
    return with_record(Status(ErrorCode::kCancelled, a.spec.name + ": cancelled"), a.store.record(rec));
  }
  if (r.timed_out || r.exit_code != 0) {
    FailureClass c = classify_process(r);
    std::string why = r.timed_out         ? "timed out after " + std::to_string(a.res.time_minutes) + " min"
                      : r.exit_code == -1 ? "could not be started"
                      : r.exit_code > 128 ? "was killed by signal " + std::to_string(r.exit_code - 128)
                                          : "exited with code " + std::to_string(r.exit_code);
    rec["state"] = "failed";
    rec["failure"] = to_string(c);
    rec["message"] = cmd.argv[0] + " " + why;
    return with_record(
        with_failure(Status(ErrorCode::kToolFailed, a.spec.name + ": " + cmd.argv[0] + " " + why + "\n" + r.log_tail),
                     c),
        a.store.record(rec));
  }
  rec["state"] = "ok";
  return a.store.record(rec);
}

}  // namespace

Status run_steps(const StageSpec& spec, StageContext& ctx, const std::string& key, Runner& runner, RunStore& store,
                 const PipelineOptions& o, const Json& versions, const StepFn& on_step) {
  const fs::path& tmp = ctx.work;
  std::error_code ec;
  fs::path log = tmp / "stage.log";
  auto fail = [&](const Status& s) { return record_failure(spec, key, log, store, s); };
  Resources res = resources_for(spec.resource, ctx.cpus);
  res.cpus = ctx.cpus;
  if (o.stage_time_limit_minutes > 0) res.time_minutes = o.stage_time_limit_minutes;
  static const std::atomic<bool> kNever{false};
  const std::atomic<bool>& cancel = o.cancel ? *o.cancel : kNever;
  if (spec.check)
    if (Status s = spec.check(ctx); !s.is_ok()) return fail(s);
  std::vector<Step> steps;
  if (spec.steps) {
    auto st = spec.steps(ctx);
    if (!st) return fail(st.status());
    steps = std::move(*st);
  }
  const AttemptEnv env{spec, key, runner, store, versions, log, res, cancel};
  for (size_t i = 0; i < steps.size(); ++i) {
    if (env.cancel.load()) return Status(ErrorCode::kCancelled, spec.name + ": cancelled");
    const auto* cmd = std::get_if<Command>(&steps[i]);
    if (on_step)
      on_step(int(i) + 1, int(steps.size()),
              cmd && !cmd->argv.empty() ? fs::path(cmd->argv[0]).filename().string() : "in-process", tmp);
    if (cmd) {
      BIOAGENT_RETURN_IF_ERROR(run_command(env, *cmd, i, tmp));
    } else if (Status s = std::get<StageFn>(steps[i])(ctx); !s.is_ok()) {
      return fail(s);
    }
  }
  for (auto& out : spec.outputs)
    if (!fs::exists(tmp / out, ec))
      return fail(with_failure(Status(ErrorCode::kToolFailed, "did not produce " + out), FailureClass::kEmptyResult));
  return Status::ok();
}

namespace {

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
  if (on_step && !o.isolation.helper.empty()) on_step(0, 0, "", tmp);  // where the helper reports its steps
  Status s = o.isolation.helper.empty() ? run_steps(spec, ctx, key, runner, store, o, versions, on_step)
                                        : run_in_helper(spec, ctx, key, runner, o, versions);
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

// The first attempt, then each automatic repair of the stage's row that matches
// the failure's class, once each, in order. `repaired` is the applied record of the
// repair that made it finish; ctx then carries the repaired parameters.
Status attempt_with_repairs(const StageSpec& spec, StageContext& ctx, const std::string& key, const fs::path& folder,
                            Runner& runner, RunStore& store, const PipelineOptions& o, const Json& versions,
                            const StepFn& on_step, int total, Json& repaired) {
  Status s = attempt(spec, ctx, key, folder, runner, store, o, versions, on_step);
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
  return s;
}

// A stage's outcome from its last attempt: parsed, settled and published when it
// finished; failed or cancelled with a typed reason when not.
StageStatus stage_result(const StageSpec& spec, StageContext& ctx, const fs::path& folder, const PipelineOptions& o,
                         const Status& s, const Json& repaired) {
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
    return result;
  }
  result.state = s.code() == ErrorCode::kCancelled ? StageState::kCancelled : StageState::kFailed;
  result.failure = s.code() == ErrorCode::kCancelled ? FailureClass::kNone : class_of(s);
  result.message = s.message();
  const Json& d = s.details();
  result.reason = d.is_object() && d.contains(kReasonDetail) ? d[kReasonDetail]
                  : s.code() == ErrorCode::kCancelled
                      ? Json{{"kind", "cancelled"}, {"subject", ""}}
                      : Json{{"kind", "failure"}, {"subject", to_string(result.failure)}};
  return result;
}

}  // namespace

// Copies what the stage put in its final/ folder into the run's final/ folder.
void publish(const fs::path& folder, const fs::path& run_dir) {
  std::error_code ec;
  if (!fs::is_directory(folder / "final", ec)) return;
  fs::create_directories(run_dir / "final", ec);
  for (auto& e : fs::directory_iterator(folder / "final", ec))
    if (e.is_regular_file())
      fs::copy_file(e.path(), run_dir / "final" / e.path().filename(), fs::copy_options::overwrite_existing, ec);
}

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

Json progress_json(const StageSpec& spec, const Progress& p) {
  const Json helper = p.step == 0 && !p.work.empty() ? read_progress(p.work) : Json();  // an attempt in its own process
  Json j = {{"elapsed_seconds",
             std::round(std::chrono::duration<double>(std::chrono::steady_clock::now() - p.started).count())},
            {"step", helper.is_object() ? helper.value("step", 0) : p.step},
            {"steps", helper.is_object() ? helper.value("steps", 0) : p.steps},
            {"what", helper.is_object() ? helper.value("what", std::string()) : p.what}};
  if (spec.phase && !p.work.empty()) {
    std::string phase = spec.phase(p.work);
    if (!phase.empty()) j["phase"] = phase;
  }
  return j;
}

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
  Json repaired;  // Repair::applied of the repair that made it finish
  Status s = attempt_with_repairs(spec, ctx, key, folder, runner, store, o, versions, on_step, total, repaired);
  StageStatus result = stage_result(spec, ctx, folder, o, s, repaired);
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
  if (in_background_lane(spec))
    --sh.background;
  else
    sh.free_cpus += ctx.cpus;
  --sh.running;
  sh.cv.notify_all();
}

}  // namespace bioagent::engine
