// ExecutionAgent with DiagnosisAgent and LearningAgent: a task checks the file
// names (applying learned preventions first), repairs what the repair table
// allows, waits for the parameter confirmation (defaults after the timeout),
// runs the pipeline with progress events (the engine applies each stage's
// automatic repairs from the stage table), diagnoses what still failed,
// validates, and records what it learned.
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <optional>
#include <thread>

#include "assistant/assistant_impl.h"
#include "assistant/report_sections.h"
#include "bioagent/genefamily.h"
#include "pipeline/stage_reasons.h"

namespace bioagent {
namespace {

double epoch_seconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace

bool CpuBudget::acquire(const std::string& task_id, int cpus, const std::function<bool()>& give_up,
                        const std::function<void(size_t)>& on_position) {
  cpus = std::clamp(cpus, 1, total_);
  std::unique_lock lock(mu_);
  line_.push_back(task_id);
  size_t told = 0;
  for (;;) {
    size_t pos = static_cast<size_t>(std::find(line_.begin(), line_.end(), task_id) - line_.begin());
    if (pos == 0 && free_ >= cpus) {
      line_.pop_front();
      free_ -= cpus;
      cv_.notify_all();
      return true;
    }
    if (give_up()) {
      line_.erase(line_.begin() + static_cast<ptrdiff_t>(pos));
      cv_.notify_all();
      return false;
    }
    if (pos + 1 != told) {
      told = pos + 1;
      lock.unlock();
      on_position(told);
      lock.lock();
      continue;
    }
    cv_.wait_for(lock, std::chrono::milliseconds(500));
  }
}

void CpuBudget::release(int cpus) {
  std::lock_guard lock(mu_);
  free_ = std::min(total_, free_ + std::clamp(cpus, 1, total_));
  cv_.notify_all();
}

size_t CpuBudget::queued() const {
  std::lock_guard lock(mu_);
  return line_.size();
}

int runner_cpu_limit(const AssistantOptions& o) {
  int limit = std::max(1, o.cpus);
  if (o.runner != "slurm") limit = std::min(limit, int(std::max(1u, std::thread::hardware_concurrency())));
  return limit;
}

Result<Json> confirm_params(Json base, const Json& given, int max_cpus) {
  if (given.is_null()) return base;
  if (!given.is_object()) return invalid_argument("params must be an object");
  for (auto it = given.begin(); it != given.end(); ++it) {
    const std::string& k = it.key();
    const Json& v = it.value();
    if (k == "cpu") {  // the server's runner, not a stage, bounds it
      if (!v.is_number_integer() || v.get<int64_t>() < 1 || v.get<int64_t>() > max_cpus)
        return Status(ErrorCode::kInvalidArgument, "params.cpu must be an integer from 1 to " +
                                                       std::to_string(max_cpus) +
                                                       " (the CPUs this server's runner has)")
            .with("field", "cpu")
            .with("limit", max_cpus);
    } else if (k == "stage" || k == "species" || k == "family" || k == "prefix") {
      if (!v.is_string()) return invalid_argument("params." + k + " must be a string");
      continue;  // shown in the dialog, fixed by the plan
    } else {
      BIOAGENT_RETURN_IF_ERROR(genefamily_pipeline().check_dialog_value(k, v));  // the stage row's field and schema
    }
    base[k] = v;
  }
  return base;
}

namespace {

Json problems_of(const Result<Json>& check) {
  if (!check) return Json::array({{{"message", check.status().message()}, {"fixable", false}}});
  return check->value("problems", Json::array());
}

// Whether a stage prints pre-written sections (its parameters take "prewritten").
bool takes_prewritten(const std::string& stage) {
  const StageSpec* spec = genefamily_pipeline().find(stage);
  return spec && spec->params_schema.contains("properties") && spec->params_schema["properties"].contains("prewritten");
}

// The problems' messages; a Chinese session's in Chinese where the check gives one.
std::string problems_text(const Json& problems, Lang lang = Lang::kEn) {
  std::string s;
  const bool zh = lang == Lang::kZh;
  for (auto& p : problems)
    s += (s.empty() ? std::string() : BiText{"; ", "；"}.in(lang)) +
         (zh && p.contains("message_zh") ? p.value("message_zh", "") : p.value("message", p.value("file", "")));
  return s;
}

// A diagnosis as the page shows it: the root cause in the session's language.
std::string diagnosis_message(const Diagnosis& d, Lang lang) {
  return lang == Lang::kZh && !d.root_cause_zh.empty() ? d.root_cause_zh : d.root_cause;
}

}  // namespace

Result<Json> Assistant::Impl::task_row(const std::string& sid, const std::string& task_id) const {
  BIOAGENT_RETURN_IF_ERROR(require_session(sid));
  auto rows = store->query("SELECT * FROM tasks WHERE id = ? AND session = ?", {task_id, sid});
  if (!rows) return rows.status();
  if (rows->empty()) return not_found("no task '" + task_id.substr(0, 80) + "' in this session");
  Json r = (*rows)[0];
  r["params"] = Json::parse(r.value("params", "{}"), nullptr, false);
  return r;
}

void Assistant::Impl::emit(const std::string& task_id, Json event) {
  std::lock_guard lock(mu);
  auto last = store->query("SELECT COALESCE(MAX(seq), 0) AS n FROM task_events WHERE task = ?", {task_id});
  int64_t seq = last && !last->empty() ? (*last)[0]["n"].get<int64_t>() + 1 : 1;
  event["seq"] = seq;
  event["at"] = now_iso();
  Status w =
      last ? store->exec("INSERT INTO task_events (task, seq, event) VALUES (?,?,?)", {task_id, seq, event.dump()})
           : last.status();
  ++event_generation;
  events_cv.notify_all();
  if (!w.is_ok()) stop_on_store_error(task_id, w);
}

void Assistant::Impl::stop_on_store_error(const std::string& task_id, const Status& write) {
  std::fprintf(stderr, "bioagent: task %s stopped: its state could not be saved: %s\n", task_id.c_str(),
               write.message().c_str());
  std::shared_ptr<TaskRuntime> rt;
  {
    auto it = tasks.find(task_id);  // callers hold mu or run on the task's own thread
    if (it != tasks.end()) rt = it->second;
  }
  if (!rt) return;
  if (rt->store_error.empty()) rt->store_error = write.message();
  rt->cancel->store(true);
  rt->cv.notify_all();  // a task waiting in the parameter dialog wakes and sees the cancel
}

void Assistant::Impl::set_state(const std::string& task_id, TaskState state, const std::string& message) {
  if (Status w = store->exec("UPDATE tasks SET state = ?, message = ?, updated = ? WHERE id = ?",
                             {to_string(state), message, now_iso(), task_id});
      !w.is_ok()) {
    std::lock_guard lock(mu);
    stop_on_store_error(task_id, w);
  }
  announce_outcome(task_id, state, message);  // done, failed, cancelled: the chat hears how it ended
  emit(task_id,
       {{"type", "state"}, {"state", to_string(state)}, {"terminal", is_terminal(state)}, {"message", message}});
}

Json Assistant::Impl::learned_preventions() {
  auto rows = store->query(
      "SELECT id, timestamp, error_type, fix, future_prevention, origin FROM learning WHERE test_result = 'passed' "
      "AND fix != '' ORDER BY id");
  return rows ? *rows : Json::array();
}

void Assistant::Impl::record_learning(const Diagnosis& d, const DiagnosisRepair* repair, const Json& changes,
                                      const std::string& test_result) {
  store->record(
      "INSERT INTO learning (timestamp, error_type, pattern, error_message, root_cause, fix_strategy, changes, "
      "test_result, future_prevention, fix, origin) VALUES (?,?,?,?,?,?,?,?,?,?,'local')",
      {now_iso(), d.error_type, d.pattern, d.error_message, d.root_cause,
       repair ? repair->strategy : "no automatic fix: " + d.root_cause, changes.dump(), test_result,
       repair ? repair->prevention : "", repair ? repair->key : ""});
}

void Assistant::Impl::start_task(const std::string& task_id, const std::string& session, bool resumed) {
  auto rt = std::make_shared<TaskRuntime>();
  rt->id = task_id;
  rt->session = session;
  {
    std::lock_guard lock(mu);
    tasks[task_id] = rt;
  }
  rt->thread = std::thread([this, rt, resumed] { run_task(rt, resumed); });
}

bool Assistant::Impl::link_root_view(const std::string& id, const std::string& sid, Lang lang, fs::path& data_dir) {
  if (!root_holding(data_dir)) return true;  // uploads and the shared folder are used as they are
  fs::path view = session_dir(sid) / "runs" / id / "input_links";
  auto linked = link_root_folder(data_dir, view);
  if (!linked) {
    set_state(id, TaskState::kFailed, linked.status().message());
    return false;
  }
  emit(id, {{"type", "data"},
            {"folder", place_name(sid, data_dir)},
            {"read_in_place", (*linked)["read_in_place"]},
            {"not_read", (*linked)["not_read"]},
            {"message", BiText{"reading the files of " + place_name(sid, data_dir) +
                                   " in place on the server (not copied, not renamed)",
                               "就地读取服务器数据目录 " + place_name(sid, data_dir) + " 中的文件（未复制、未改名）"}
                            .in(lang)}});
  data_dir = view;
  return true;
}

// What the steps of one task share: the plan's species and family, the
// session's language, the task's stored params and the folders found on the way.
struct TaskContext {
  std::string id, session, prefix, family, fam_file;
  Json params;  // the task row's params: language, dialog, confirmed
  Lang lang = Lang::kEn;
  fs::path data_dir, run_dir;
  Json dialog;  // the parameter dialog's values (the confirmed ones once step 2 is over)
};

void Assistant::Impl::run_task(std::shared_ptr<TaskRuntime> rt, bool resumed) {
  TaskContext t;
  t.id = rt->id;
  t.session = rt->session;
  auto row = task_row(rt->session, t.id);
  if (!row) return;
  auto plan_rows = store->query("SELECT * FROM plans WHERE id = ?", {(*row)["plan_id"]});
  if (!plan_rows || plan_rows->empty()) {
    set_state(t.id, TaskState::kFailed, "the plan of this task no longer exists");
    return;
  }
  Json plan = (*plan_rows)[0];
  t.prefix = plan["species"];
  t.family = plan["family"];
  t.fam_file = family_file_name(t.family);
  t.params = (*row)["params"];
  t.lang = lang_or_en(t.params.value("language", "en"));
  if (resumed)
    emit(t.id,
         {{"type", "resumed"},
          {"message",
           BiText{"resumed after a restart; finished stages are reused", "服务重启后继续执行；已完成的阶段直接复用"}.in(
               t.lang)}});
  if (!check_task_names(t)) return;                                             // 1. naming check and repair
  if (!confirm_task_params(*rt, t)) return;                                     // 2. parameter confirmation
  std::optional<std::vector<StageStatus>> outcome = run_task_pipeline(*rt, t);  // 3. the pipeline
  if (!outcome) return;
  if (rt->cancel->load()) {
    set_state(t.id, TaskState::kCancelled, BiText{"cancelled by the user", "用户取消"}.in(t.lang));
    return;
  }
  diagnose_failed_stages(*outcome, t.id, t.lang);
  finish_task(t, *outcome);  // 4. validation
}

bool Assistant::Impl::find_task_data(TaskContext& t) {
  t.data_dir = find_species_folder(data_dirs(t.session), t.prefix);
  if (t.data_dir.empty()) {
    const std::string& p = t.prefix;
    Diagnosis d = classify_failure(
        "check", "no data files for " + p + " found",
        Json::array(
            {{{"file", p + ".genome.fasta"}, {"fixable", false}, {"message", "no " + p + ".* files uploaded"}}}));
    emit(t.id, {{"type", "diagnosis"}, {"diagnosis", d.to_json()}, {"message", diagnosis_message(d, t.lang)}});
    record_learning(d, find_repair(d.fix), Json::array(), "not applied");
    set_state(t.id, TaskState::kFailed,
              BiText{"missing data: upload ", "缺少数据文件：请上传 "}.in(t.lang) + p + ".genome.fasta, " + p +
                  ".gff3, " + p + ".cds.fasta, " + p + ".pep.fasta, " + t.fam_file + ".hmm");
    return false;
  }
  return link_root_view(t.id, t.session, t.lang, t.data_dir);
}

// The first learned prevention that renames extension variants, applied before the full check.
void Assistant::Impl::apply_learned_prevention(const TaskContext& t, const Json& problems) {
  for (auto& p : learned_preventions()) {
    if (p["fix"] != "rename_extension_variant") continue;
    bool any_fixable = false;
    for (auto& pr : problems) any_fixable |= pr.value("fixable", false);
    if (!any_fixable) return;
    auto changes = apply_naming_repair(t.data_dir, problems);
    if (!changes) return;
    store->record("UPDATE learning SET applied = applied + 1 WHERE id = ?", {p["id"]});
    const DiagnosisRepair* known = find_repair(p.value("fix", ""));
    emit(t.id,
         {{"type", "prevention"},
          {"learning_id", p["id"]},
          {"changes", *changes},
          {"message", BiText{"applied a learned prevention up front: ", "已提前应用学习到的预防措施："}.in(t.lang) +
                          (t.lang == Lang::kZh && known ? known->prevention_zh : p.value("future_prevention", "")) +
                          BiText{" (learned ", "（记录于 "}.in(t.lang) + p.value("timestamp", "") +
                          BiText{")", "）"}.in(t.lang)}});
    return;
  }
}

bool Assistant::Impl::check_task_names(TaskContext& t) {
  set_state(t.id, TaskState::kChecking, BiText{"checking the file names", "检查文件命名"}.in(t.lang));
  if (!find_task_data(t)) return false;
  apply_learned_prevention(t, problems_of(check_species_data(t.data_dir, t.prefix, t.fam_file, false)));
  auto full = check_species_data(t.data_dir, t.prefix, t.fam_file, true);
  Json problems = problems_of(full);
  if (full && !full->value("consistency", Json::object()).value("ok", true))
    problems.push_back({{"message", "consistency: " + (*full)["consistency"].dump()}, {"fixable", false}});
  if (problems.empty()) return true;
  Diagnosis d = classify_failure("check", problems_text(problems), problems);
  emit(t.id, {{"type", "diagnosis"}, {"diagnosis", d.to_json()}, {"message", diagnosis_message(d, t.lang)}});
  const DiagnosisRepair* repair = find_repair(d.fix);
  if (repair && repair->automatic)
    problems = repair_task_names(t, d, *repair, problems);
  else
    record_learning(d, repair, Json::array(), "not applied");
  if (problems.empty()) return true;
  set_state(t.id, TaskState::kFailed, problems_text(problems, t.lang));
  return false;
}

Json Assistant::Impl::repair_task_names(const TaskContext& t, const Diagnosis& d, const DiagnosisRepair& repair,
                                        const Json& problems) {
  set_state(t.id, TaskState::kRepairing,
            t.lang == Lang::kZh && !repair.strategy_zh.empty() ? repair.strategy_zh : repair.strategy);
  auto changes = apply_naming_repair(t.data_dir, problems);
  Json after = problems_of(check_species_data(t.data_dir, t.prefix, t.fam_file, true));
  std::string test = changes && after.empty() ? "passed" : "failed";
  record_learning(d, &repair, changes ? *changes : Json::array(), test);
  emit(t.id, {{"type", "repair"},
              {"fix", repair.key},
              {"strategy", repair.strategy},
              {"strategy_zh", repair.strategy_zh},
              {"message", t.lang == Lang::kZh && !repair.strategy_zh.empty() ? repair.strategy_zh : repair.strategy},
              {"changes", changes ? *changes : Json::array()},
              {"test_result", test}});
  emit(t.id, {{"type", "learning"},
              {"message",
               BiText{"learning recorded: " + repair.prevention,
                      "已记录学习条目：" + (repair.prevention_zh.empty() ? std::string("（预防措施的原文见学习记录）")
                                                                         : repair.prevention_zh)}
                   .in(t.lang)}});
  return after;
}

// Waits for the dialog's answer ("timeout" when none came; "" when the server stops).
std::string Assistant::Impl::await_decision(TaskRuntime& rt, const TaskContext& t, int timeout) {
  std::unique_lock lock(rt.mu);
  bool decided = rt.cv.wait_for(lock, std::chrono::seconds(timeout), [&] {
    return !rt.decision.empty() || rt.editing || rt.cancel->load() || stopping.load();
  });
  if (decided && rt.decision.empty() && rt.editing) {  // "modify" stopped the countdown: no default run
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
  if (rt.cancel->load() && decision.empty()) decision = "cancel";
  return decision;
}

// The parameter confirmation: the defaults after the timeout; false when the task ended there.
bool Assistant::Impl::confirm_task_params(TaskRuntime& rt, TaskContext& t) {
  t.dialog = t.params.value("dialog", Json::object());
  if (t.params.value("confirmed", false)) return true;
  int timeout = t.params.value("confirm_timeout_seconds", o.confirm_timeout_seconds);
  set_state(t.id, TaskState::kAwaitingConfirmation,
            BiText{"waiting for the parameter confirmation", "等待参数确认"}.in(t.lang));
  emit(t.id, {{"type", "confirm"},
              {"params", t.dialog},
              {"timeout_seconds", timeout},
              {"deadline", epoch_seconds() + timeout}});
  std::string decision = await_decision(rt, t, timeout);
  if (decision.empty()) return false;  // the server stops: resumes on the next start
  if (decision == "cancel") {
    set_state(t.id, TaskState::kCancelled, BiText{"cancelled by the user", "用户取消"}.in(t.lang));
    return false;
  }
  if (decision == "modify") {
    std::lock_guard lock(rt.mu);
    t.dialog = rt.params;
  }
  const std::string secs = std::to_string(timeout);
  emit(t.id, {{"type", "confirmed"},
              {"by", decision},
              {"params", t.dialog},
              {"message", decision == "timeout"
                              ? BiText{"no answer within " + secs + " seconds: running with the default parameters",
                                       "用户" + secs + "秒内未确认，使用默认参数"}
                                    .in(t.lang)
                              : BiText{"parameters confirmed", "参数已确认"}.in(t.lang)}});
  t.params["dialog"] = t.dialog;
  t.params["confirmed"] = true;
  store->record("UPDATE tasks SET params = ? WHERE id = ?", {t.params.dump(), t.id});
  return true;
}

Json Assistant::Impl::server_stage_params() const {
  auto it = o.tool_options.find("pipeline_params");
  Json stage_params = Json::parse(it != o.tool_options.end() ? it->second : "{}", nullptr, false);
  return stage_params.is_object() ? stage_params : Json::object();
}

// The stages' parameters: the server's pipeline_params with the dialog's values on top.
Json Assistant::Impl::task_stage_params(const Json& dialog) const {
  return genefamily_pipeline().apply_dialog(server_stage_params(), dialog);
}

// The CPU budget is the server's: the run waits its turn (queue position in its state and events).
// False when the task ended while waiting (cancelled, or the server stops).
bool Assistant::Impl::wait_for_cpus(TaskRuntime& rt, const TaskContext& t, int cpus) {
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

// A stage event as a task event, its message in the session's language: a Chinese
// session gets the typed reason rendered in Chinese.
void Assistant::Impl::emit_stage_event(const TaskContext& t, const PipelineEvent& e) {
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
void Assistant::Impl::learn_stage_repair(const PipelineEvent& e) {
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

// The pipeline options of a task's run: its folder, CPUs, stages, versions book and events.
PipelineOptions Assistant::Impl::task_pipeline_options(TaskRuntime& rt, const TaskContext& t) {
  PipelineOptions po;
  po.run_dir = t.run_dir;
  po.cpus = std::clamp(t.dialog.value("cpu", o.cpus), 1, runner_cpu_limit(o));
  po.cancel = rt.cancel;
  po.stages = o.stages;
  if (!o.tool_options.count("cache_dir") || !o.tool_options.at("cache_dir").empty())
    po.version_book =
        fs::path(o.tool_options.count("cache_dir") ? o.tool_options.at("cache_dir") : "") / "program_versions.json";
  po.on_event = [this, &t](const PipelineEvent& e) {
    emit_stage_event(t, e);
    if (e.state == StageState::kRepairing) learn_stage_repair(e);
  };
  return po;
}

// The pipeline; each stage's automatic repairs are the engine's (from the stage table).
// Null when the task ended (its state set) or the server stops.
std::optional<std::vector<StageStatus>> Assistant::Impl::run_task_pipeline(TaskRuntime& rt, TaskContext& t) {
  t.run_dir = session_dir(t.session) / "runs" / t.id;
  store->record("UPDATE tasks SET run_dir = ?, data_dir = ? WHERE id = ?",
                {t.run_dir.string(), t.data_dir.string(), t.id});
  auto cfg = genefamily_run_config(t.prefix, t.fam_file, t.data_dir, task_stage_params(t.dialog));
  if (!cfg) {
    set_state(t.id, TaskState::kFailed, cfg.status().message());
    return std::nullopt;
  }
  (*cfg)["lang"] = lang_name(t.lang);  // figure text; the report's language comes with its params
  (*cfg)["network"] = {{"offline", env.offline()},
                       {"cache_dir", o.tool_options.count("cache_dir") ? o.tool_options.at("cache_dir") : ""},
                       {"allow_private_urls",
                        o.tool_options.count("allow_private_urls") && o.tool_options.at("allow_private_urls") == "1"}};
  PipelineOptions po = task_pipeline_options(rt, t);
  if (!wait_for_cpus(rt, t, po.cpus)) return std::nullopt;
  struct Release {
    CpuBudget& budget;
    int cpus;
    ~Release() { budget.release(cpus); }
  } release{cpu_budget, po.cpus};
  set_state(t.id, TaskState::kRunning, BiText{"running the pipeline", "正在运行分析流程"}.in(t.lang));
  // The report's literature comparison and biological significance, written once every
  // stage it reads has finished (the gene-family report prints them).
  std::optional<Json> sections_patch;
  po.patch_params = [&](const std::string& stage, const std::vector<StageStatus>& finished) -> Json {
    if (!takes_prewritten(stage)) return nullptr;
    if (!sections_patch) {
      const Json* sp = find_species(t.prefix);
      sections_patch = report_sections_patch(env, llm.get(), {t.prefix, sp ? sp->value("latin", "") : "", t.family},
                                             finished, t.run_dir, t.lang, [&](Json ev) { emit(t.id, std::move(ev)); });
    }
    return *sections_patch;
  };
  auto runner = o.runner == "slurm" ? make_slurm_runner() : make_local_runner();
  auto r = run_genefamily(*cfg, *runner, po);
  if (stopping.load()) return std::nullopt;  // killed or shutting down: resume later
  if (!r) {
    set_state(t.id, TaskState::kFailed, r.status().message());
    return std::nullopt;
  }
  return *r;
}

// What still failed: the diagnosis and the repair it proposes, recorded as learned.
void Assistant::Impl::diagnose_failed_stages(const std::vector<StageStatus>& outcome, const std::string& task_id,
                                             Lang lang) {
  for (auto& s : outcome) {
    if (s.state != StageState::kFailed) continue;
    Diagnosis d = classify_failure(s.stage, s.message, Json::array(), s.failure);
    auto cls = failure_class_from_string(d.error_type);
    FailureClass c = cls ? *cls : FailureClass::kUnknown;
    RepairChoice choice = choose_repair(llm.get(), d, s.stage, s.message, allowed_repairs(s.stage, c, s.message));
    if (!choice.key.empty()) d.fix = choice.key;
    emit(task_id, {{"type", "diagnosis"},
                   {"stage", s.stage},
                   {"diagnosis", d.to_json()},
                   {"message", diagnosis_message(d, lang)},
                   {"repair_choice", choice.to_json()}});
    const DiagnosisRepair* repair = nullptr;
    for (auto& r : repair_table())
      if (!repair && r.key == d.fix && (r.stage.empty() || r.stage == s.stage)) repair = &r;
    // The engine tried the stage's automatic repairs for this class; one the model chose for another is proposed.
    bool tried = false;
    if (const StageSpec* spec = genefamily_pipeline().find(s.stage))
      for (auto& r : spec->repairs) tried |= r.key == d.fix && r.automatic && r.matches(c, s.message);
    record_learning(d, repair, Json::array(), tried ? "applied by the stage; it still failed" : "not applied");
  }
}

// Validation, durations for later estimates, and the task's final state.
void Assistant::Impl::finish_task(const TaskContext& t, const std::vector<StageStatus>& outcome) {
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
