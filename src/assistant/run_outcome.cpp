// The chat message that reports a finished run: the members found, the
// stages that did not finish and why, the validation warnings explained, the
// key figures and the report by name (their URLs travel as links beside the text).
#include <re2/re2.h>
#include <algorithm>
#include <fstream>

#include "assistant/assistant_impl.h"
#include "bioagent/genefamily.h"
#include "pipeline/stage_reasons.h"

namespace bioagent {
namespace {

Json read_json(const fs::path& p) {
  std::ifstream in(p);
  return in ? Json::parse(in, nullptr, false) : Json();
}

// What a validation check's warning means for the biologist, in the session's language.
std::string explain_check(const std::string& check, bool zh) {
  if (check == "gene count")
    return zh ? "成员数超出该家族的常见范围：可能有冗余基因模型、E 值过宽，或该物种确有扩张/收缩"
              : "the member count is outside the family's usual range: redundant gene models, a loose E-value, or a "
                "real expansion or loss in this species";
  if (check == "median bootstrap")
    return zh ? "系统发育树的支持度偏低：分支关系需谨慎解读"
              : "the tree's support is low: read its branching with care";
  if (check == "domain coverage")
    return zh ? "结构域覆盖度偏低：部分成员可能是片段或假基因"
              : "the domain coverage is low: some members may be fragments or pseudogenes";
  if (check.rfind("file ", 0) == 0 || check.rfind("stage ", 0) == 0)
    return zh ? "必需的结果缺失：对应阶段未完成" : "a required result is missing: its stage did not finish";
  return "";
}

// The stage's name as the table labels it in Chinese (the name itself when the table lacks it).
std::string stage_label_zh(const std::string& stage) {
  const StageSpec* spec = genefamily_pipeline().find(stage);
  return spec && !spec->label_zh.empty() ? spec->label_zh + "（" + stage + "）" : stage;
}

int count_lines(const fs::path& p) {
  std::ifstream in(p);
  int n = 0;
  for (std::string l; std::getline(in, l);) n += !l.empty();
  return n;
}

}  // namespace

namespace {

// An English reason in a Chinese answer: translated when it is the engine's,
// else the files it names and where the original is.
std::string zh_or_pointer(const std::string& message) {
  std::string zh = stage_reason_zh(message, "");
  if (!zh.empty()) return zh;
  static const RE2 file(R"(([A-Za-z0-9_]+(?:\.[A-Za-z0-9_]+)*\.(?:fasta|fa|faa|fas|gff3|gff|hmm|tsv|csv|txt)))");
  std::string files, f;
  re2::StringPiece in(message);
  while (RE2::FindAndConsume(&in, file, &f))
    if (files.find(f) == std::string::npos) files += (files.empty() ? "" : "、") + f;
  return (files.empty() ? "" : "涉及文件：" + files + "；") + "原因的原文见任务事件";
}

}  // namespace

std::string run_outcome_text(const fs::path& run_dir, const std::string& task_id, const std::string& state,
                             const std::string& message, bool zh, Json* links) {
  std::string text;
  if (state == "cancelled") return zh ? "分析已取消。" : "The run was cancelled.";
  text = state == "done" ? (zh ? "分析已完成。" : "The run finished.")
                         : (zh ? "分析未能完成：" + (has_cjk(message) ? message : zh_or_pointer(message))
                               : "The run did not finish: " + message);
  if (run_dir.empty()) return text;  // stopped before its run folder existed
  Json run = read_json(run_dir / "run.json");
  std::string base = run.is_object() ? run.value("species", "") + "." + run.value("family", "") : "";
  std::error_code ec;
  fs::path ids = run_dir / "final" / (base + ".geneID.txt");
  if (!base.empty() && fs::exists(ids, ec))
    text += zh ? "\n- 鉴定到 " + std::to_string(count_lines(ids)) + " 个家族成员（" + base + ".geneID.txt）"
               : "\n- " + std::to_string(count_lines(ids)) + " family members found (" + base + ".geneID.txt)";
  Json status = read_json(run_dir / "status.json");
  if (status.is_object())
    for (auto& s : status.value("stages", Json::array())) {
      std::string st = s.value("state", "");
      if (st != "failed" && st != "skipped") continue;
      std::string why =
          zh ? stage_reason_zh(s.value("message", ""), st == "failed" ? s.value("failure", "unknown") : "")
             : s.value("message", "");
      if (zh && why.empty() && !s.value("message", "").empty()) why = "原因的原文见 status.json";
      text += zh ? "\n- " + stage_label_zh(s.value("stage", "")) + (st == "failed" ? "：失败" : "：跳过") +
                       (why.empty() ? "" : "（" + why + "）")
                 : "\n- " + s.value("stage", "") + ": " + st + (why.empty() ? "" : " (" + why + ")");
    }
  Json v = read_json(run_dir / "validation.json");
  if (v.is_object())
    for (auto& c : v.value("checks", Json::array())) {
      if (c.value("status", "") == "pass") continue;
      std::string why = explain_check(c.value("check", ""), zh);
      if (zh)  // the check's own detail is English: the explanation, or the values compared
        text +=
            "\n- 验证提示（" + c.value("check", "") + "）：" +
            (why.empty() ? "数值 " + c.value("value", Json()).dump() + "，阈值 " + c.value("threshold", Json()).dump()
                         : why);
      else
        text +=
            "\n- validation " + c.value("check", "") + ": " + c.value("detail", "") + (why.empty() ? "" : " — " + why);
    }
  std::vector<std::string> figures, reports;
  for (auto& e : fs::directory_iterator(run_dir / "final", ec)) {
    std::string n = e.path().filename().string();
    if (n.size() > 5 && n.compare(n.size() - 5, 5, ".html") == 0) reports.push_back(n);
    if (n.size() > 4 && (n.compare(n.size() - 4, 4, ".svg") == 0 || n.compare(n.size() - 4, 4, ".png") == 0))
      figures.push_back(n);
  }
  std::sort(figures.begin(), figures.end());
  std::sort(reports.begin(), reports.end());
  for (auto& r : reports) {
    text += "\n- " + std::string(zh ? "报告：" : "report: ") + r;
    if (links) links->push_back({{"kind", "report"}, {"name", r}, {"url", result_file_url(task_id, r)}});
  }
  for (size_t i = 0; i < figures.size() && i < 4; ++i) {
    text += "\n- " + std::string(zh ? "图：" : "figure: ") + figures[i];
    if (links)
      links->push_back({{"kind", "figure"}, {"name", figures[i]}, {"url", result_file_url(task_id, figures[i])}});
  }
  return text;
}

void Assistant::Impl::announce_outcome(const std::string& task_id, TaskState task_state, const std::string& message) {
  if (!is_terminal(task_state)) return;
  const std::string state = to_string(task_state);
  auto rows = store->query("SELECT session, run_dir, params FROM tasks WHERE id = ?", {task_id});
  if (!rows || rows->empty()) return;
  Json row = (*rows)[0];
  Json params = Json::parse(row.value("params", "{}"), nullptr, false);
  bool zh = params.is_object() && params.value("language", "en") == "zh";
  Json links = Json::array();
  std::string run_dir = row["run_dir"].is_string() ? row["run_dir"].get<std::string>() : "";
  std::string text = run_outcome_text(run_dir, task_id, state, message, zh, &links);
  Json meta = {{"agent", "execution"}, {"task_id", task_id}, {"state", state}, {"links", links}};
  store->record("INSERT INTO messages (session, role, content, meta, at) VALUES (?,?,?,?,?)",
                {row["session"], "assistant", text, meta.dump(), now_iso()});
  emit(task_id, {{"type", "outcome"}, {"ended", state}, {"text", text}, {"links", links}});
}

}  // namespace bioagent
