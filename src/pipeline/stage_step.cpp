// A stage attempt in a process of its own (PipelineOptions::isolation): the
// parent writes the attempt's request and runs `helper stage-step <request>`
// through the local runner with the run's budgets; the child rebuilds the
// stage context and the runner, runs the attempt's steps (its check, the
// steps' list, each in-process step and each program) recording them in the
// run's store, reports its progress in a file and writes its Status. A crash,
// an abort or a budget hit ends the child, never the parent.
#include <csignal>
#include <cstring>
#include <fstream>

#include "bioagent/json_text.h"
#include "core/isolated_call.h"
#include "pipeline/stage_attempt.h"

namespace bioagent {
namespace engine {
namespace {

constexpr const char* kProgressFile = ".progress.json";

Json context_json(const StageContext& ctx) {
  Json input = Json::object();
  for (auto& [k, v] : ctx.input) input[k] = v.string();
  return {{"run", ctx.run}, {"params", ctx.params}, {"work", ctx.work.string()}, {"input", input}, {"cpus", ctx.cpus}};
}

StageContext context_of(const Json& c, const Pipeline& pipeline) {
  StageContext ctx;
  ctx.run = c.value("run", Json::object());
  ctx.params = c.value("params", Json::object());
  ctx.work = c.value("work", "");
  const Json input = c.value("input", Json::object());
  for (auto& [k, v] : input.items())
    if (v.is_string()) ctx.input[k] = v.get<std::string>();
  ctx.cpus = c.value("cpus", 1);
  ctx.pipeline = &pipeline;
  return ctx;
}

// Bytes under `dir` (regular files; links are not followed).
int64_t bytes_under(const fs::path& dir) {
  int64_t n = 0;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end;
       !ec && it != end; it.increment(ec))
    if (!it->is_symlink(ec) && it->is_regular_file(ec)) n += int64_t(it->file_size(ec));
  return n;
}

// Why the helper ended without a result: a budget it hit or a crash, named for people.
Status helper_end(const StageSpec& spec, const ProcessResult& r, const PipelineOptions::Isolation& iso,
                  int64_t memory_mb) {
  const std::string who = "the " + spec.name + " stage";
  const int sig = r.exit_code > 128 ? r.exit_code - 128 : 0;
  if (sig == SIGXFSZ)
    return resource_exhausted(who + " wrote more than the run's disk budget of " + std::to_string(iso.disk_mb) +
                              " MiB and was stopped (raise the run's disk budget: --run-disk-mb)")
        .with(kFailureDetail, to_string(FailureClass::kOutOfMemory));
  if (sig == SIGKILL || r.log_tail.find("std::bad_alloc") != std::string::npos)
    return resource_exhausted(who + " ran out of its memory budget of " + std::to_string(memory_mb) +
                              " MiB and was stopped (raise it: --stage-memory-mb)")
        .with(kFailureDetail, to_string(FailureClass::kOutOfMemory));
  if (sig)  // under an address-space limit a stack that cannot grow is a segmentation fault too
    return Status(ErrorCode::kInternal,
                  who + " crashed (signal " + std::to_string(sig) + ", " + strsignal(sig) +
                      (sig == SIGSEGV && memory_mb > 0 ? ": a fault in it, or its memory budget of " +
                                                             std::to_string(memory_mb) + " MiB was reached"
                                                       : "") +
                      "); nothing it wrote is used" +
                      (r.log_tail.empty() ? "" : ". Its log: " + r.log_tail.substr(0, 500)))
        .with(kFailureDetail, to_string(FailureClass::kToolError));
  return Status(ErrorCode::kInternal, who + " ended without a result (exit " + std::to_string(r.exit_code) +
                                          "): " + r.log_tail.substr(0, 500));
}

}  // namespace

Status run_in_helper(const StageSpec& spec, const StageContext& ctx, const std::string& key, const Runner& runner,
                     const PipelineOptions& o, const Json& versions) {
  const auto& iso = o.isolation;
  const fs::path request = ctx.work / ".attempt.json", result = ctx.work / ".attempt.json.result.json";
  {
    std::ofstream out(request);
    out << json_text(Json{{"stage", spec.name},
                          {"key", key},
                          {"ctx", context_json(ctx)},
                          {"versions", versions},
                          {"runner", runner.describe()},
                          {"run_dir", fs::absolute(o.run_dir).string()},
                          {"stage_time_limit_minutes", o.stage_time_limit_minutes}});
    if (!out) return Status(ErrorCode::kInternal, "cannot write the attempt's request in the stage's folder");
  }
  Resources res = resources_for(spec.resource, ctx.cpus);
  if (o.stage_time_limit_minutes > 0) res.time_minutes = o.stage_time_limit_minutes;
  res.time_minutes += 5;  // the attempt's own programs stop at the limit first
  Command cmd{{iso.helper, "stage-step", request.string()}};
  const int64_t memory_mb = isolation_limits_memory() ? (iso.memory_mb > 0 ? iso.memory_mb : res.mem_mb) : 0;
  cmd.memory_mb = memory_mb;
  if (iso.disk_mb > 0) {
    const int64_t left = (iso.disk_mb << 20) - bytes_under(o.run_dir);
    if (left <= 0)
      return resource_exhausted("the run has written its disk budget of " + std::to_string(iso.disk_mb) +
                                " MiB; raise it (--run-disk-mb) or free space")
          .with(kFailureDetail, to_string(FailureClass::kOutOfMemory));
    cmd.file_bytes = left;
  }
  static const std::atomic<bool> kNever{false};
  auto local = make_local_runner();  // the helper runs where the pipeline runs; its programs go to `runner`
  ProcessResult r = local->run(cmd, ctx.work, ctx.work / "stage.log", res, o.cancel ? *o.cancel : kNever);
  std::error_code ec;
  fs::remove(request, ec);
  Json got = Json::parse(std::ifstream(result), nullptr, false);
  fs::remove(result, ec);
  if (r.cancelled) return Status(ErrorCode::kCancelled, spec.name + ": cancelled");
  if (r.timed_out)
    return Status(ErrorCode::kTimeout, "the " + spec.name + " stage ran longer than " +
                                           std::to_string(res.time_minutes) + " min and was stopped")
        .with(kFailureDetail, to_string(FailureClass::kTimeout));
  if (!got.is_object() || r.exit_code != 0) return helper_end(spec, r, iso, memory_mb);
  return got.contains("error") ? Status::from_json(got["error"]) : Status::ok();
}

Json read_progress(const fs::path& work) {
  Json p = Json::parse(std::ifstream(work / kProgressFile), nullptr, false);
  return p.is_object() ? p : Json();
}

}  // namespace engine

Status run_stage_step(const Pipeline& pipeline, const fs::path& request) {
  Json rq = Json::parse(std::ifstream(request), nullptr, false);
  if (!rq.is_object() || !rq.contains("ctx") || !rq["ctx"].is_object())
    return invalid_argument("not a stage-step request: " + request.filename().string());
  const StageSpec* spec = pipeline.find(rq.value("stage", ""));
  if (!spec) return not_found("no stage named '" + rq.value("stage", "") + "' in this program's stage table");
  StageContext ctx = engine::context_of(rq["ctx"], pipeline);
  auto runner = make_runner(rq.value("runner", Json::object()));
  if (!runner) return runner.status();
  PipelineOptions o;  // the attempt's own: no helper (this is it), killed by the parent to cancel
  o.run_dir = rq.value("run_dir", "");
  o.stage_time_limit_minutes = rq.value("stage_time_limit_minutes", 0);
  Status s = Status::ok();
  auto store = RunStore::open(o.run_dir);
  if (!store) {
    s = store.status();
  } else {
    const fs::path progress = ctx.work / engine::kProgressFile;
    auto on_step = [&](int step, int steps, const std::string& what, const fs::path&) {
      std::ofstream(progress) << json_text(Json{{"step", step}, {"steps", steps}, {"what", what}});
    };
    s = engine::run_steps(*spec, ctx, rq.value("key", ""), **runner, **store, o, rq.value("versions", Json::object()),
                          on_step);
    std::error_code ec;
    fs::remove(progress, ec);
  }
  std::ofstream out(request.string() + ".result.json");
  out << json_text(s.is_ok() ? Json{{"ok", true}} : Json{{"error", s.to_json()}});
  return out ? Status::ok() : Status(ErrorCode::kInternal, "cannot write the attempt's result");
}

}  // namespace bioagent
