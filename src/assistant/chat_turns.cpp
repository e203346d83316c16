// The chat turns about a plan: making one, answering questions about it,
// declining it, and running it only on a clear order when its files are
// there; and the message that reports a run's outcome in the chat.
#include <re2/re2.h>
#include <array>
#include <fstream>

#include "assistant/assistant_impl.h"
#include "bioagent/genefamily.h"
#include "bioagent/json_text.h"
#include "bioagent/llm.h"
#include "runs/dialog_form.h"

namespace bioagent {
namespace {

// The files of a plan's reference genome: {kind, name, status} in the order shown.
std::vector<std::array<std::string, 3>> plan_files(const Json& plan) {
  const Json& ref = plan["analysis_plan"]["reference_genome"];
  std::vector<std::array<std::string, 3>> out;
  for (const char* kind : {"genome_fasta", "gff3", "cds", "pep", "hmm"})
    if (ref.contains(kind)) out.push_back({kind, ref.value(kind, ""), ref.value(std::string(kind) + "_status", "")});
  return out;
}

// A fixable naming problem that will produce `name` (the run renames the file first).
bool repairable_to(const Json& plan, const std::string& name) {
  for (auto& p : plan["analysis_plan"]["reference_genome"].value("naming_problems", Json::array()))
    if (p.value("fixable", false) && p.value("fix", "") == name) return true;
  return false;
}

std::string joined(const std::vector<std::string>& v, const std::string& sep) {
  std::string s;
  for (auto& x : v) s += (s.empty() ? "" : sep) + x;
  return s;
}

// The files a plan still lacks (neither present nor repairable by renaming).
std::vector<std::string> missing_files(const Json& plan) {
  std::vector<std::string> out;
  for (auto& [kind, name, status] : plan_files(plan))
    if (status != "available" && !repairable_to(plan, name)) out.push_back(name);
  return out;
}

// The name of the first species prefix among uploaded files, when all uploads share one.
std::string only_uploaded_prefix(const fs::path& dir) {
  static const RE2 rule("([A-Z][a-z]{3})\\..+");
  std::set<std::string> prefixes;
  std::error_code ec;
  for (auto& e : fs::directory_iterator(dir, ec)) {
    std::string n = e.path().filename().string(), prefix;
    if (RE2::FullMatch(n, rule, &prefix)) prefixes.insert(prefix);
  }
  return prefixes.size() == 1 ? *prefixes.begin() : "";
}

}  // namespace

bool plan_executable(const Json& plan) {
  const Json& ref = plan["analysis_plan"]["reference_genome"];
  std::string pep = ref.value("pep", "");
  return !pep.empty() && (ref.value("pep_status", "") == "available" || repairable_to(plan, pep));
}

Result<Json> Assistant::Impl::latest_plan(const std::string& sid, Lang lang) {
  auto last = store->query(
      "SELECT id, species, family, plan FROM plans WHERE session = ? ORDER BY at DESC, rowid DESC LIMIT 1", {sid});
  if (!last) return last.status();
  if (last->empty()) return Json(nullptr);
  Json row = (*last)[0];
  // The files may have changed since: the plan's file status is looked at again.
  Json stored = Json::parse(row.value("plan", "{}"), nullptr, false);
  std::string species = stored.is_object() ? stored["plan"]["analysis_plan"].value("species_prefix", "") : "";
  auto fresh = make_plan(env, species.empty() ? row["species"].get<std::string>() : species, row["family"],
                         data_dirs(sid), runs->stage_seconds(), lang, runs->cpu_limit(), runs->base_params().stages);
  if (fresh) name_plan_places(sid, *fresh);
  Json out = fresh ? *fresh : stored;
  if (fresh && stored.is_object() && stored["plan"]["analysis_plan"].contains("reasoning"))
    out["plan"]["analysis_plan"]["reasoning"] = stored["plan"]["analysis_plan"]["reasoning"];
  out["plan_id"] = row["id"];
  return out;
}

Result<Json> Assistant::Impl::store_plan(const std::string& sid, const std::string& species, const std::string& family,
                                         Lang lang, LlmClient* model) {
  auto p = make_plan(env, species, family, data_dirs(sid), runs->stage_seconds(), lang, runs->cpu_limit(),
                     runs->base_params().stages);
  if (!p) return p.status();
  name_plan_places(sid, *p);
  Json& analysis = (*p)["plan"]["analysis_plan"];
  analysis["reasoning"] = plan_reasoning(analysis, model, lang);
  if (model) BIOAGENT_RETURN_IF_ERROR(model->interrupted());  // the turn runs again with the host's answer
  (*p)["yaml"] = to_yaml((*p)["plan"]);
  std::string id = random_id("p_");
  BIOAGENT_RETURN_IF_ERROR(
      store->exec("INSERT INTO plans (id, session, species, family, yaml, plan, at) VALUES (?,?,?,?,?,?,?)",
                  {id, sid, (*p)["plan"]["analysis_plan"]["species_prefix"],
                   (*p)["plan"]["analysis_plan"]["gene_family"], (*p)["yaml"], p->dump(), now_iso()}));
  (*p)["plan_id"] = id;
  (*p)["executable"] = plan_executable((*p)["plan"]);
  return *p;
}

Result<Json> Assistant::Impl::turn_analysis(const std::string& sid, Route& route, Lang lang, LlmClient* model) {
  if (route.species.empty()) {
    // A species outside the list, named only by the files the user uploaded or the server folder chosen.
    route.species = only_uploaded_prefix(runs->uploads_dir(sid));
    if (route.species.empty()) route.species = runs->selected_prefix(sid);  // the server folder the user chose
  }
  if (route.species.empty() || route.family.empty())
    return Json{
        {"agent", "planning"},
        {"answer", BiText{"Which species and which gene family? (e.g. the SPL family of litchi, Lchi; a species "
                          "outside the list by its Latin name, e.g. Camellia sinensis, or by uploading its "
                          "Csin.* files)",
                          "请说明要研究的物种和基因家族（例如：荔枝 Lchi 的 SPL 家族；不在物种列表中的物种请写拉丁名，"
                          "如 Camellia sinensis，或先上传 Csin.* 文件）。"}
                       .in(lang)}};
  std::string species = route.species_name.empty() ? route.species : route.species_name;
  auto p = store_plan(sid, species, route.family, lang, model);
  if (!p) return p.status();
  std::vector<std::string> missing = missing_files((*p)["plan"]);
  bool can_run = (*p)["executable"].get<bool>();
  std::string ask;
  if (can_run)
    ask = BiText{"The analysis plan is ready. Run it now? [Execute] / [Modify parameters] / [Cancel]",
                 "分析方案已生成，是否立即执行？ [执行分析] / [修改参数] / [取消]"}
              .in(lang);
  else
    ask = BiText{"The analysis plan is ready, but files are missing: " + joined(missing, ", ") +
                     ". Upload them (see the naming rules), then say \"run the analysis\".",
                 "分析方案已生成，但还缺少文件：" + joined(missing, "、") + "。请按命名规范上传后再说“执行分析”。"}
              .in(lang);
  Json actions = can_run ? Json::array({"execute", "modify", "cancel"}) : Json::array({"upload", "cancel"});
  return Json{{"agent", "planning"},          {"answer", (*p)["yaml"].get<std::string>() + "\n" + ask},
              {"plan_id", (*p)["plan_id"]},   {"plan", (*p)["plan"]},
              {"defaults", (*p)["defaults"]}, {"actions", actions},
              {"executable", can_run},        {"missing_files", missing}};
}

Result<Json> Assistant::Impl::turn_execute(const std::string& sid, Route& route, Lang lang,
                                           const std::function<Result<Json>(const std::string&)>& start) {
  auto last = latest_plan(sid, lang);
  if (!last) return last.status();
  if (last->is_null()) {
    if (!route.species.empty() && !route.family.empty()) return Json(nullptr);  // plan first, then ask
    return Json{
        {"agent", "execution"},
        {"answer", BiText{"There is no plan yet. Name the species and family first, e.g. \"Can I study the "
                          "SPL family of litchi?\"",
                          "还没有分析方案。请先说明物种和基因家族，例如“如果我想开展荔枝的SPL基因家族研究，可以吗？”"}
                       .in(lang)}};
  }
  if (!plan_executable((*last)["plan"])) {
    std::string missing = joined(missing_files((*last)["plan"]), BiText{", ", "、"}.in(lang));
    return Json{{"agent", "execution"},
                {"answer",
                 BiText{"Not started: files are missing (" + missing + "). Upload them, then say \"run the analysis\".",
                        "还不能执行：缺少文件 " + missing + "。请按命名规范上传后再说“执行分析”。"}
                     .in(lang)},
                {"plan_id", (*last)["plan_id"]}};
  }
  auto t = start((*last)["plan_id"]);
  if (!t) return t.status();
  if (t->contains("dialog")) {  // the client's form answered the dialog
    const Json dialog = (*t)["dialog"];
    std::string said = dialog_outcome_text(dialog, lang);
    if (!t->contains("task_id"))
      return Json{{"agent", "execution"}, {"answer", said}, {"dialog", dialog}, {"plan_id", (*last)["plan_id"]}};
    if (dialog.value("action", "") != "cancel") said = BiText{"Started. ", "已开始执行。"}.in(lang) + said;
    return Json{{"agent", "execution"}, {"answer", said}, {"dialog", dialog}, {"task", *t}};
  }
  std::string secs = std::to_string(runs->confirm_timeout_seconds());
  return Json{{"agent", "execution"},
              {"answer", BiText{"Started: the file names are checked first, then confirm the parameters (the defaults "
                                "are used if you do not answer within " +
                                    secs + " seconds).",
                                "已开始执行：先检查文件命名，然后请确认参数（" + secs + " 秒内未确认将使用默认参数）。"}
                             .in(lang)},
              {"task", *t}};
}

Json Assistant::Impl::turn_plan_question(const std::string& sid, Lang lang) {
  auto last = latest_plan(sid, lang);
  std::string answer;
  if (!last || last->is_null()) {
    answer =
        BiText{
            "A run needs five files named by the rules (<prefix> is the species code, e.g. Lchi): "
            "<prefix>.genome.fasta, <prefix>.gff3, <prefix>.cds.fasta, <prefix>.pep.fasta and <Family>.hmm "
            "(optional: downloaded from InterPro when online). Name the species and family to get a plan.",
            "执行分析需要按命名规范准备五个文件（<前缀> 为物种缩写，如 Lchi）：<前缀>.genome.fasta（基因组）、"
            "<前缀>.gff3（注释）、<前缀>.cds.fasta（CDS）、<前缀>.pep.fasta（蛋白）、<家族>.hmm（结构域 HMM，"
            "可选：联网时可从 InterPro 下载）。请先说明物种和基因家族以生成方案。"}
            .in(lang);
    return {{"agent", "planning"}, {"answer", answer}};
  }
  answer = BiText{"The current plan needs these files:\n", "当前方案需要以下文件：\n"}.in(lang);
  for (auto& [kind, name, status] : plan_files((*last)["plan"])) {
    std::string state = status == "available" ? BiText{"present", "已就绪"}.in(lang)
                        : repairable_to((*last)["plan"], name)
                            ? BiText{"misnamed; renamed when the run starts", "命名不规范，执行时自动更正"}.in(lang)
                            : BiText{"missing", "缺少"}.in(lang);
    answer += "- " + name + BiText{": ", "："}.in(lang) + state + "\n";
  }
  answer += std::string(BiText{"Estimated time: ", "预计耗时："}.in(lang)) +
            (*last)["plan"]["analysis_plan"].value("estimated_time", "") + "\n";
  answer += plan_executable((*last)["plan"])
                ? BiText{"Ready: say \"run the analysis\" or press [Execute].",
                         "文件已齐备；确认后说“执行分析”或点击 [执行分析]。"}
                      .in(lang)
                : BiText{"Upload the missing files to run it.", "上传缺少的文件后即可执行。"}.in(lang);
  return {{"agent", "planning"}, {"answer", answer}, {"plan_id", (*last)["plan_id"]}};
}

void Assistant::Impl::name_plan_places(const std::string& sid, Json& p) const {
  const fs::path folder = p.value("data_dir", std::string());
  p.erase("data_dir");  // a server path: answers name places, not paths
  if (folder.empty() || !p.contains("plan")) return;
  Json& ref = p["plan"]["analysis_plan"]["reference_genome"];
  const std::string place = runs->place_name(sid, folder);
  ref["local_path"] = place;
  Json read = Json::array();
  const Json view = data_view_plan(folder, p["plan"]["analysis_plan"].value("species_prefix", ""));
  for (auto& f : view["read"]) {
    std::string line = place + "/" + f["name"].get<std::string>();
    if (f.contains("read_as")) line += " (read as " + f["read_as"].get<std::string>() + ")";
    read.push_back(line);
  }
  ref["files_read"] = read;
  const Lang lang = has_cjk(p["plan"]["analysis_plan"].value("next_action", "")) ? Lang::kZh : Lang::kEn;
  ref["read_in_place"] =
      BiText{"the run reads these files where they are (links in its own folder; nothing copied or renamed)",
             "运行时就地读取这些文件（在运行目录中建立链接；不复制、不改名）"}
          .in(lang);
  // Messages of the naming check may quote the folder: they name the place instead.
  std::string text = json_text(p["plan"]);
  for (const std::string path : {fs::absolute(folder).string(), folder.string()})
    for (size_t at; !path.empty() && (at = text.find(path)) != std::string::npos;) text.replace(at, path.size(), place);
  Json named = Json::parse(text, nullptr, false);
  if (!named.is_discarded()) p["plan"] = named;
  p["yaml"] = to_yaml(p["plan"]);
}

Json Assistant::Impl::turn_decline(Lang lang) {
  return {
      {"agent", "planning"},
      {"answer", BiText{"All right, nothing will run. The plan is kept; say \"run the analysis\" or press [Execute] "
                        "when you want it.",
                        "好的，不执行分析。方案已保留；需要时说“执行分析”或点击 [执行分析]。"}
                     .in(lang)}};
}

Result<Json> Assistant::Impl::turn_stop(const std::string& sid, Lang lang) {
  const std::string task = runs->running_task(sid);
  if (task.empty())
    return Json{{"agent", "execution"},
                {"answer", BiText{"Nothing is running in this session.", "当前会话没有正在运行的分析。"}.in(lang)}};
  auto r = runs->cancel(sid, task);
  if (!r) return r.status();
  const std::string state = r->value("state", "");
  const bool stopped = state == to_string(TaskState::kCancelled);
  std::string answer =
      stopped ? BiText{"Stopped: task " + task +
                           " is cancelled. Finished stages are kept and the stage that was running is not marked "
                           "done; say \"continue the analysis\" (or press [Resume]) to go on from there.",
                       "已停止：任务 " + task +
                           " 已取消。已完成的步骤会保留，正在运行的步骤不会被标记为完成；说“继续分析”（或点击 "
                           "[继续]）即可从中断处继续。"}
                    .in(lang)
              : BiText{"Stopping task " + task + ": it ends at its next check (now " + state + ").",
                       "正在停止任务 " + task + "：它会在下一个检查点结束（当前状态：" + state + "）。"}
                    .in(lang);
  return Json{{"agent", "execution"}, {"answer", answer}, {"task", *r}, {"stopped", stopped}};
}

Result<Json> Assistant::Impl::turn_resume(const std::string& sid, Lang lang) {
  auto tasks = runs->tasks(sid);
  if (!tasks) return tasks.status();
  std::string task, state;
  if (!tasks->empty()) task = tasks->back().value("task_id", ""), state = tasks->back().value("state", "");
  if (task.empty() || (state != to_string(TaskState::kCancelled) && state != to_string(TaskState::kFailed)))
    return Json{
        {"agent", "execution"},
        {"answer",
         BiText{"There is no stopped task to continue in this session.", "当前会话没有可以继续的已停止任务。"}.in(
             lang)}};
  auto r = runs->resume(sid, task);
  if (!r) return r.status();
  return Json{{"agent", "execution"},
              {"answer", BiText{"Continuing task " + task + ": finished stages are reused.",
                                "继续任务 " + task + "：已完成的步骤将直接复用。"}
                             .in(lang)},
              {"task", *r}};
}

}  // namespace bioagent
