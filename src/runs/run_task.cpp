// ExecutionAgent with DiagnosisAgent and LearningAgent, the steps of one task:
// the species folder is found and read through the run's own view of links
// under the rule names (a misnamed file is diagnosed, read under its rule name
// and the repair learned; a learned prevention applies it up front), the
// parameters are confirmed (the defaults after the timeout), the run waits for
// its CPUs, runs the stage table with progress events (the engine applies each
// stage's automatic repairs), has what still failed diagnosed, is validated,
// and its outcome announced.
#include <algorithm>
#include <fstream>
#include <optional>

#include "bioagent/genefamily.h"
#include "bioagent/input_limits.h"
#include "bioagent/json_text.h"
#include "pipeline/stage_reasons.h"
#include "runs/runs_internal.h"

namespace bioagent {
namespace {

double epoch_seconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

Json problems_of(const Result<Json>& check) {
  if (!check) return Json::array({{{"message", check.status().message()}, {"fixable", false}}});
  return check->value("problems", Json::array());
}

// The problems' messages; a Chinese run's in Chinese where the check gives one.
std::string problems_text(const Json& problems, Lang lang) {
  std::string s;
  for (auto& p : problems)
    s += (s.empty() ? std::string() : BiText{"; ", "；"}.in(lang)) + (lang == Lang::kZh && p.contains("message_zh")
                                                                          ? p.value("message_zh", "")
                                                                          : p.value("message", p.value("file", "")));
  return s;
}

Json fixable_only(const Json& problems) {
  Json out = Json::array();
  for (auto& p : problems)
    if (p.value("fixable", false)) out.push_back(p);
  return out;
}

// A diagnosis as the page shows it: the root cause in the run's language.
std::string diagnosis_message(const Diagnosis& d, Lang lang) {
  return lang == Lang::kZh && !d.root_cause_zh.empty() ? d.root_cause_zh : d.root_cause;
}

// Whether a stage prints pre-written sections (its parameters take "prewritten").
bool takes_prewritten(const Pipeline& p, const std::string& stage) {
  const StageSpec* spec = p.find(stage);
  return spec && spec->params_schema.contains("properties") && spec->params_schema["properties"].contains("prewritten");
}

}  // namespace

void RunService::Impl::run_task(std::shared_ptr<TaskRuntime> rt, bool resumed) {
  TaskContext t;
  t.id = rt->id;
  t.owner = rt->owner;
  if (!load_task(t)) return;
  if (resumed)
    emit(t.id,
         {{"type", "resumed"},
          {"message", BiText{"resumed; finished stages are reused", "继续执行；已完成的阶段直接复用"}.in(t.lang)}});
  if (!prepare_data(t)) return;                                            // 1. the data and its names
  if (!confirm_params(*rt, t)) return;                                     // 2. parameter confirmation
  std::optional<std::vector<StageStatus>> outcome = run_pipeline(*rt, t);  // 3. the pipeline
  if (!outcome) return;
  if (rt->cancel->load()) {
    set_state(t.id, TaskState::kCancelled,
              BiText{"cancelled by the user; finished stages are kept and reused when it is resumed",
                     "用户取消；已完成的阶段已保留，恢复执行时直接复用"}
                  .in(t.lang));
    return;
  }
  diagnose_failed_stages(*outcome, t);
  check_repair_delivered(t, *outcome);
  finish(t, *outcome);  // 4. validation
}

bool RunService::Impl::load_task(TaskContext& t) {
  auto row = task_row(t.owner, t.id);
  if (!row) return false;
  t.row_params = (*row)["params"];
  t.prefix = t.row_params.value("species", "");
  t.family = t.row_params.value("family", "");
  t.fam_file = family_file_name(t.family);
  t.lang = lang_or_en(t.row_params.value("language", "en"));
  t.folder = t.row_params.value("folder", "");
  std::string run_dir = (*row).value("run_dir", "");
  t.run_dir = run_dir.empty() ? owner_dir(t.owner) / "runs" / t.id : fs::path(run_dir);
  auto p = parse_run_params(t.row_params.value("run_params", Json::object()).value("stages", Json::object()), *pipeline,
                            cpu_limit());
  if (!p) {
    set_state(t.id, TaskState::kFailed, p.status().message());
    return false;
  }
  t.params = *p;
  t.params.cpus = t.row_params.value("run_params", Json::object()).value("cpus", 0);
  if (auto l = t.row_params.value("run_params", Json::object()).value("input_limits", Json::object());
      InputLimits{}.with(l).is_ok())
    t.params.input_limits = l;
  return true;
}

// The species folder, read through the run's view (links under the rule names): for
// uploads, a data root's folder and a command's folder alike, nothing of the user's is
// renamed, copied or written. Misnamed files are diagnosed and read under their rule name.
bool RunService::Impl::prepare_data(TaskContext& t) {
  set_state(t.id, TaskState::kChecking, BiText{"checking the file names", "检查文件命名"}.in(t.lang));
  if (t.folder.empty()) t.folder = find_species_folder(self->data_dirs(t.owner), t.prefix);
  if (t.folder.empty()) {
    const std::string& p = t.prefix;
    Diagnosis d = classify_failure(
        "check", "no data files for " + p + " found",
        Json::array({{{"file", p + ".pep.fasta"}, {"fixable", false}, {"message", "no " + p + ".* files found"}}}));
    emit(t.id, {{"type", "diagnosis"}, {"diagnosis", d.to_json()}, {"message", diagnosis_message(d, t.lang)}});
    record_learning(d, find_repair(d.fix), Json::array(), "not applied");
    set_state(t.id, TaskState::kFailed,
              BiText{"missing data: upload ", "缺少数据文件：请上传 "}.in(t.lang) + p + ".genome.fasta, " + p +
                  ".gff3, " + p + ".cds.fasta, " + p + ".pep.fasta, " + t.fam_file + ".hmm");
    return false;
  }
  const DataRoot* root = root_holding(t.folder);
  const Json plan = data_view_plan(t.folder, t.prefix, [&](const fs::path& real) {
    if (!root) return true;
    auto rel = real.lexically_relative(root->path);
    return !rel.empty() && *rel.begin() != "..";
  });
  Json names = problems_of(check_species_data(t.folder, t.prefix, t.fam_file, false));
  t.data_dir = t.run_dir / "input_links";
  if (Status linked = link_data_view(t.folder, plan, t.data_dir); !linked.is_ok()) {
    set_state(t.id, TaskState::kFailed, linked.message());
    return false;
  }
  store->record("UPDATE tasks SET run_dir = ?, data_dir = ? WHERE id = ?",
                {t.run_dir.string(), t.folder.string(), t.id});
  Json read = Json::array();
  const std::string place = self->place_name(t.owner, t.folder);
  for (auto& f : plan["read"])
    read.push_back({{"file", place + "/" + f["name"].get<std::string>()},
                    {"kind", f["kind"]},
                    {"bytes", f["bytes"]},
                    {"read_as", f.value("read_as", f["name"].get<std::string>())}});
  emit(t.id, {{"type", "data"},
              {"folder", place},
              {"read_in_place", read},
              {"not_read", plan["not_read"]},
              {"message", BiText{"reading the files of " + place +
                                     " in place (links in the run's folder; nothing "
                                     "renamed or copied)",
                                 "就地读取 " + place + " 中的文件（运行目录中的链接；不改名、不复制）"}
                              .in(t.lang)}});
  if (!fixable_only(names).empty() && !repair_names(t, names)) return false;
  Json after = problems_of(check_species_data(t.data_dir, t.prefix, t.fam_file, false));
  if (after.empty()) return true;
  Diagnosis d = classify_failure("check", problems_text(after, Lang::kEn), after);
  emit(t.id, {{"type", "diagnosis"}, {"diagnosis", d.to_json()}, {"message", diagnosis_message(d, t.lang)}});
  record_learning(d, find_repair(d.fix), Json::array(), "not applied");
  set_state(t.id, TaskState::kFailed, problems_text(after, t.lang));
  return false;
}

// Files whose names vary from their rules are read under the rule names (the view does it);
// the first time it is diagnosed and learned, later runs apply the learned prevention up front.
bool RunService::Impl::repair_names(TaskContext& t, const Json& problems) {
  const Json fixable = fixable_only(problems);
  Json changes = Json::array();
  for (auto& p : fixable)
    changes.push_back({{"read", p.value("file", "")}, {"to", p.value("fix", "")}, {"how", "link"}});
  for (auto& p : learned_preventions()) {
    if (p["fix"] != kReadUnderRuleName) continue;
    store->record("UPDATE learning SET applied = applied + 1 WHERE id = ?", {p["id"]});
    const DiagnosisRepair* known = find_repair(p.value("fix", ""));
    emit(t.id,
         {{"type", "prevention"},
          {"learning_id", p["id"]},
          {"changes", changes},
          {"message", BiText{"applied a learned prevention up front: ", "已提前应用学习到的预防措施："}.in(t.lang) +
                          (t.lang == Lang::kZh && known ? known->prevention_zh : p.value("future_prevention", "")) +
                          BiText{" (learned ", "（记录于 "}.in(t.lang) + p.value("timestamp", "") +
                          BiText{")", "）"}.in(t.lang)}});
    return true;
  }
  Diagnosis d = classify_failure("check", problems_text(fixable, Lang::kEn), fixable);
  emit(t.id, {{"type", "diagnosis"}, {"diagnosis", d.to_json()}, {"message", diagnosis_message(d, t.lang)}});
  const DiagnosisRepair* repair = find_repair(kReadUnderRuleName);
  set_state(t.id, TaskState::kRepairing, t.lang == Lang::kZh ? repair->strategy_zh : repair->strategy);
  Json after = fixable_only(problems_of(check_species_data(t.data_dir, t.prefix, t.fam_file, false)));
  const std::string test = after.empty() ? "passed" : "failed";
  TaskContext::NamingRepair made{record_learning(d, repair, changes, test), json_text(changes), {}};
  for (auto& p : fixable) made.kinds.insert(p.value("kind", std::string()));
  t.naming_repair = std::move(made);
  emit(t.id, {{"type", "repair"},
              {"fix", repair->key},
              {"strategy", repair->strategy},
              {"strategy_zh", repair->strategy_zh},
              {"message", t.lang == Lang::kZh ? repair->strategy_zh : repair->strategy},
              {"changes", changes},
              {"test_result", test}});
  emit(t.id,
       {{"type", "learning"},
        {"message",
         BiText{"learning recorded: " + repair->prevention, "已记录学习条目：" + repair->prevention_zh}.in(t.lang)}});
  return true;
}

// Waits for the dialog's answer ("timeout" when none came; "" when the service stops).
std::string RunService::Impl::await_decision(TaskRuntime& rt, const TaskContext& t, int timeout) {
  std::unique_lock lock(rt.mu);
  bool decided = rt.cv.wait_for(lock, std::chrono::seconds(timeout), [&] {
    return !rt.decision.empty() || rt.editing || rt.cancel->load() || stopping.load();
  });
  if (decided && rt.decision.empty() && rt.editing) {  // "edit" stopped the countdown: no default run
    lock.unlock();
    emit(t.id, {{"type", "confirm_paused"},
                {"message",
                 BiText{"countdown stopped: waiting for the edited parameters", "倒计时已停止，等待修改后的参数"}.in(
                     t.lang)}});
    lock.lock();
    rt.cv.wait(lock, [&] { return !rt.decision.empty() || rt.cancel->load() || stopping.load(); });
  }
  if (stopping.load()) return "";
  std::string decision = decided ? rt.decision : "timeout";
  if (rt.cancel->load() && (decision.empty() || decision == "timeout")) decision = "cancel";
  return decision;
}

// The parameter confirmation: the defaults after the timeout; false when the task ended there.
bool RunService::Impl::confirm_params(TaskRuntime& rt, TaskContext& t) {
  if (t.row_params.value("confirmed", false)) return true;
  const int timeout = t.row_params.value("confirm_timeout_seconds", o.confirm_timeout_seconds);
  set_state(t.id, TaskState::kAwaitingConfirmation,
            BiText{"waiting for the parameter confirmation", "等待参数确认"}.in(t.lang));
  const RunParams shown = merge_run_params(o.base_params, t.params);
  emit(t.id, {{"type", "confirm"},
              {"params", dialog_shown(t.row_params, shown, *pipeline, cpu_limit())},
              {"fields", pipeline->dialog_fields()},
              {"timeout_seconds", timeout},
              {"deadline", epoch_seconds() + timeout}});
  const std::string decision = await_decision(rt, t, timeout);
  if (decision.empty()) return false;  // the service stops: resumes on the next start
  if (decision == "cancel") {
    set_state(t.id, TaskState::kCancelled, BiText{"cancelled by the user", "用户取消"}.in(t.lang));
    return false;
  }
  if (decision == "modify") {
    Json answer;
    {
      std::lock_guard lock(rt.mu);
      answer = rt.answer;
    }
    auto given = parse_run_params(answer, *pipeline, cpu_limit());  // checked when given; read again here
    if (given) t.params = merge_run_params(t.params, *given);
  }
  const std::string secs = std::to_string(timeout);
  const Json view = dialog_shown(t.row_params, merge_run_params(o.base_params, t.params), *pipeline, cpu_limit());
  emit(t.id, {{"type", "confirmed"},
              {"by", decision},
              {"params", view},
              {"message", decision == "timeout"
                              ? BiText{"no answer within " + secs + " seconds: running with the default parameters",
                                       "用户" + secs + "秒内未确认，使用默认参数"}
                                    .in(t.lang)
                              : BiText{"parameters confirmed", "参数已确认"}.in(t.lang)}});
  t.row_params["run_params"] = t.params.to_json();
  t.row_params["confirmed"] = true;
  store->record("UPDATE tasks SET params = ? WHERE id = ?", {json_text(t.row_params), t.id});
  return true;
}

// The CPU budget is the service's: the run waits its turn (queue position in its state and events).
// False when the task ended while waiting (cancelled, or the service stops).
bool RunService::Impl::wait_for_cpus(TaskRuntime& rt, const TaskContext& t, int cpus) {
  bool got = cpu_budget.acquire(
      t.id, cpus, [&] { return rt.cancel->load() || stopping.load(); },
      [&](size_t position) {
        set_state(t.id, TaskState::kQueued,
                  BiText{"queued for CPUs: position " + std::to_string(position),
                         "排队等待 CPU：第 " + std::to_string(position) + " 位"}
                      .in(t.lang));
        emit(t.id, {{"type", "queue"}, {"position", position}, {"cpus", cpus}});
      });
  if (got) return true;
  if (stopping.load()) return false;  // resumes on the next start
  set_state(t.id, TaskState::kCancelled, BiText{"cancelled by the user", "用户取消"}.in(t.lang));
  return false;
}

// A stage event as a task event, its message in the run's language: a Chinese
// run gets the typed reason rendered in Chinese.
void RunService::Impl::emit_stage_event(const TaskContext& t, const PipelineEvent& e) {
  std::string message = e.message;
  if (t.lang == Lang::kZh && !message.empty()) {
    std::string r = e.repair.is_object() ? repair_text(e.repair, Lang::kZh) : render_reason(e.reason, Lang::kZh);
    message = r.empty() ? "详情见 status.json" : r;
  }
  Json ev = {{"type", "stage"}, {"stage", e.stage}, {"state", to_string(e.state)}, {"message", message.substr(0, 2000)},
             {"done", e.done},  {"total", e.total}};
  if (e.repair.is_object()) ev["repair"] = e.repair, ev["repaired"] = e.state != StageState::kRepairing;
  if (e.reason.is_object()) ev["reason"] = e.reason;
  if (e.progress.is_object()) ev["progress"] = e.progress;
  emit(t.id, std::move(ev));
}

// The engine applied the stage's own repair: it is remembered as learned.
void RunService::Impl::learn_stage_repair(const PipelineEvent& e) {
  std::optional<DiagnosisRepair> applied;  // the table's row, its texts with this run's values
  const std::string key = e.repair.is_object() ? e.repair.value("key", "") : "";
  for (auto& r : repair_table())
    if (r.stage == e.stage && r.key == key) applied = r;
  Diagnosis d = classify_failure(e.stage, e.message, Json::array());
  if (applied) {
    applied->strategy = e.message;
    applied->prevention = e.repair.value("prevention", applied->prevention);
    d.error_type = applied->error_type;
    d.fix = applied->key;
    if (!applied->root_cause.empty()) d.root_cause = applied->root_cause;
  }
  Json change = {{"stage", e.stage}, {"repair", e.message}};
  if (e.repair.is_object()) change["asked"] = e.repair["asked"], change["used"] = e.repair["used"];
  record_learning(d, applied ? &*applied : nullptr, Json::array({change}), "applied by the stage");
}

PipelineOptions RunService::Impl::pipeline_options(TaskRuntime& rt, const TaskContext& t, int cpus) {
  PipelineOptions po;
  po.run_dir = t.run_dir;
  po.cpus = cpus;
  po.cancel = rt.cancel;
  auto stages = t.row_params.value("stages", Json::array());
  for (auto& s : stages)
    if (s.is_string()) po.stages.push_back(s);
  if (po.stages.empty()) po.stages = o.stages;
  po.version_book = o.version_book;
  po.stage_time_limit_minutes = o.stage_time_limit_minutes;
  po.isolation = {o.stage_helper, o.stage_memory_mb, o.run_disk_mb};
  po.on_event = [this, &t](const PipelineEvent& e) {
    emit_stage_event(t, e);
    if (e.state == StageState::kRepairing) learn_stage_repair(e);
  };
  return po;
}

// The pipeline; each stage's automatic repairs are the engine's (from the stage table).
// Null when the task ended (its state set) or the service stops.
std::optional<std::vector<StageStatus>> RunService::Impl::run_pipeline(TaskRuntime& rt, TaskContext& t) {
  const RunParams effective = merge_run_params(o.base_params, t.params);
  auto cfg = genefamily_run_config(t.prefix, t.fam_file, t.data_dir, effective.stages);
  if (!cfg) {
    set_state(t.id, TaskState::kFailed, cfg.status().message());
    return std::nullopt;
  }
  set_run_language(*cfg, t.lang);
  if (Status named = resolve_named_inputs(t, *cfg); !named.is_ok()) {
    set_state(t.id, TaskState::kFailed, named.message());
    return std::nullopt;
  }
  if (!effective.input_limits.empty()) (*cfg)["input_limits"] = effective.input_limits;
  (*cfg)["network"] = o.network;
  const int cpus = std::clamp(effective.cpus > 0 ? effective.cpus : cpu_limit(), 1, cpu_limit());
  PipelineOptions po = pipeline_options(rt, t, cpus);
  if (!wait_for_cpus(rt, t, po.cpus)) return std::nullopt;
  struct Release {
    CpuBudget& budget;
    int cpus;
    ~Release() { budget.release(cpus); }
  } release{cpu_budget, po.cpus};
  set_state(t.id, TaskState::kRunning, BiText{"running the pipeline", "正在运行分析流程"}.in(t.lang));
  // The report's literature comparison and biological significance, written once every
  // stage it reads has finished (the report prints them).
  std::optional<Json> sections_patch;
  po.patch_params = [&](const std::string& stage, const std::vector<StageStatus>& finished) -> Json {
    if (!hooks.report_sections || !takes_prewritten(*pipeline, stage)) return nullptr;
    if (!sections_patch)
      sections_patch = hooks.report_sections({{"prefix", t.prefix}, {"family", t.family}}, finished, t.run_dir, t.lang,
                                             [&](Json ev) { emit(t.id, std::move(ev)); });
    return *sections_patch;
  };
  auto runner =
      o.runner == "slurm" ? make_slurm_runner(o.slurm_partition, 1000, o.slurm_mem_cap_mb) : make_local_runner();
  auto r = run_genefamily(*cfg, *runner, po);
  if (stopping.load()) return std::nullopt;  // killed or shutting down: resume later
  if (!r) {
    set_state(t.id, TaskState::kFailed, r.status().message());
    return std::nullopt;
  }
  return *r;
}

// What still failed: the diagnosis and the repair it proposes, recorded as learned.
void RunService::Impl::diagnose_failed_stages(const std::vector<StageStatus>& outcome, const TaskContext& t) {
  for (auto& s : outcome) {
    if (s.state != StageState::kFailed) continue;
    Diagnosis d = classify_failure(s.stage, s.message, Json::array(), s.failure);
    auto cls = failure_class_from_string(d.error_type);
    FailureClass c = cls ? *cls : FailureClass::kUnknown;
    RepairChoice choice = choose_repair(hooks.llm, d, s.stage, s.message, allowed_repairs(s.stage, c, s.message));
    if (!choice.key.empty()) d.fix = choice.key;
    emit(t.id, {{"type", "diagnosis"},
                {"stage", s.stage},
                {"diagnosis", d.to_json()},
                {"message", diagnosis_message(d, t.lang)},
                {"repair_choice", choice.to_json()}});
    const DiagnosisRepair* repair = nullptr;
    for (auto& r : repair_table())
      if (!repair && r.key == d.fix && (r.stage.empty() || r.stage == s.stage)) repair = &r;
    // The engine tried the stage's automatic repairs for this class; one the model chose for another is proposed.
    bool tried = false;
    if (const StageSpec* spec = pipeline->find(s.stage))
      for (auto& r : spec->repairs) tried |= r.key == d.fix && r.automatic && r.matches(c, s.message);
    record_learning(d, repair, Json::array(), tried ? "applied by the stage; it still failed" : "not applied");
  }
}

// Validation, durations for later estimates, and the task's final state.
void RunService::Impl::finish(const TaskContext& t, const std::vector<StageStatus>& outcome) {
  const Lang lang = t.lang;
  set_state(t.id, TaskState::kValidating, BiText{"validating the results", "验证结果"}.in(lang));
  bool all_ok = true;
  for (auto& s : outcome) {
    all_ok &= s.state != StageState::kFailed && s.state != StageState::kCancelled;  // skipped says why
    if ((s.state == StageState::kDone || s.state == StageState::kWarn) && s.seconds > 0)
      store->record("INSERT INTO stage_durations (stage, seconds, genes, at) VALUES (?,?,?,?)",
                    {s.stage, s.seconds, 0, now_iso()});
  }
  auto v = validate_run(t.run_dir);
  if (v) emit(t.id, {{"type", "validation"}, {"validation", *v}});
  std::string verdict =
      v ? v->value("status", "") : BiText{"not validated: " + v.status().message(), "未验证"}.in(lang);
  if (lang == Lang::kZh && v) verdict = verdict == "pass" ? "通过" : verdict == "warn" ? "有警告" : "未通过";
  set_state(t.id, all_ok ? TaskState::kDone : TaskState::kFailed,
            (all_ok ? BiText{"finished; validation: ", "完成；验证："}.in(lang)
                    : BiText{"some stages failed; validation: ", "部分阶段失败；验证："}.in(lang)) +
                verdict);
}

}  // namespace bioagent
