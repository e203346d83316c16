// The chat message that reports a finished run: the members found, the
// stages that did not finish and why, the validation warnings explained, the
// key figures and the report by name (their URLs travel as links beside the text).
#include <re2/re2.h>
#include <algorithm>
#include <cctype>
#include <fstream>
#include <iterator>
#include <map>

#include "bioagent/genefamily.h"
#include "bioagent/json_text.h"
#include "pipeline/stage_reasons.h"
#include "runs/runs_internal.h"

namespace bioagent {
namespace {

Json read_json(const fs::path& p) {
  std::ifstream in(p);
  return in ? Json::parse(in, nullptr, false) : Json();
}

// What a validation check's warning means for the biologist, in the session's
// language; the checks of stage states and required files are told with the
// stages, not here.
std::string explain_check(const std::string& check, Lang lang) {
  auto is = [&](const char* name) { return check.find(name) != std::string::npos; };
  if (is("gene count"))
    return BiText{
        "the member count is outside the family's usual range: redundant gene models, a loose E-value, or a "
        "real expansion or loss in this species",
        "成员数超出该家族的常见范围：可能有冗余基因模型、E 值过宽，或该物种确有扩张/收缩"}
        .in(lang);
  if (is("support") || is("bootstrap"))
    return BiText{"the tree's support is low: read its branching with care",
                  "系统发育树的支持度偏低：分支关系需谨慎解读"}
        .in(lang);
  if (is("domain coverage"))
    return BiText{"the domain coverage is low: some members may be fragments or pseudogenes",
                  "结构域覆盖度偏低：部分成员可能是片段或假基因"}
        .in(lang);
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

// The task's own message (free text, English) in a Chinese answer: the files
// it names and where the original is.
std::string zh_pointer(const std::string& message) {
  static const RE2 file(R"(([A-Za-z0-9_]+(?:\.[A-Za-z0-9_]+)*\.(?:fasta|fa|faa|fas|gff3|gff|hmm|tsv|csv|txt)))");
  std::string files, f;
  re2::StringPiece in(message);
  while (RE2::FindAndConsume(&in, file, &f))
    if (files.find(f) == std::string::npos) files += (files.empty() ? "" : "、") + f;
  return (files.empty() ? "" : "涉及文件：" + files + "；") + "原因的原文见任务事件";
}

// A stage's name in the session's language: "系统发育分析（phylogeny）" or "phylogeny".
std::string stage_shown(const std::string& stage, Lang lang) { return BiText{stage, stage_label_zh(stage)}.in(lang); }

// The stages' lines: repaired, with a warning, failed (reason, fix, log) and
// skipped; the stages skipped only because an upstream did not finish are
// listed once under that upstream instead of a line each.
std::string stage_lines(const Json& status, Lang lang, const std::string& task_id, Json* links) {
  std::string text;
  std::map<std::string, std::vector<std::string>> waiting_on;  // upstream -> stages skipped for it
  std::vector<std::string> order;
  for (auto& s : status.value("stages", Json::array())) {
    const std::string name = s.value("stage", ""), st = s.value("state", "");
    const Json reason = s.value("reason", Json());
    const std::string label = stage_shown(name, lang);
    if (s.contains("repair")) {
      text += BiText{"\n- " + name + ": done, repaired (" + repair_text(s["repair"], Lang::kEn) + "; " +
                         repair_params_text(s["repair"], Lang::kEn) + ")",
                     "\n- " + label + "：已自动修复后完成（" + repair_text(s["repair"], Lang::kZh) + "；" +
                         repair_params_text(s["repair"], Lang::kZh) + "）"}
                  .in(lang);
    }
    if (st == "warn")
      text += BiText{"\n- " + name + ": finished with a warning (see the validation notes below)",
                     "\n- " + label + "：已完成，但有警告（见下方验证提示）"}
                  .in(lang);
    if (st == "skipped" && is_upstream_reason(reason)) {
      std::string up = reason.value("subject", "");
      if (!waiting_on.count(up)) order.push_back(up);
      waiting_on[up].push_back(label);
      continue;
    }
    if (st != "failed" && st != "skipped") continue;
    std::string why = render_reason(reason, lang);
    if (why.empty() || (lang != Lang::kZh && st == "failed"))
      why = BiText{s.value("message", ""), "原因的原文见 status.json"}.in(lang);
    std::string fix = reason_fix(reason, lang);
    text += BiText{"\n- " + name + ": " + st + " (" + why + ")" + (fix.empty() ? "" : ". Suggested fix: " + fix),
                   "\n- " + label + (st == "failed" ? "：失败（" : "：跳过（") + why + "）" +
                       (fix.empty() ? "" : "。建议：" + fix)}
                .in(lang);
    if (st == "failed" && links && !s.value("folder", "").empty()) {
      std::string log = "logs/" + name + ".log";
      text += BiText{" (log: " + log + ")", "（日志：" + log + "）"}.in(lang);
      links->push_back({{"kind", "log"}, {"name", log}, {"url", result_file_url(task_id, log)}});
    }
  }
  for (auto& up : order) {
    std::string list;
    for (auto& n : waiting_on[up]) list += (list.empty() ? "" : BiText{", ", "、"}.in(lang)) + n;
    text += BiText{"\n- not run because " + up + " did not finish (" + std::to_string(waiting_on[up].size()) +
                       " stages): " + list,
                   "\n- 因 " + stage_shown(up, Lang::kZh) + " 未完成而未运行的阶段（" +
                       std::to_string(waiting_on[up].size()) + " 个）：" + list}
                .in(lang);
  }
  return text;
}

// The validation's warnings explained; the required files that are missing in one line.
std::string validation_lines(const Json& v, Lang lang) {
  std::string text, missing;
  for (auto& c : v.value("checks", Json::array())) {
    const std::string check = c.value("check", "");
    if (c.value("status", "") == "pass" || check.rfind("stage ", 0) == 0) continue;
    if (check.rfind("file ", 0) == 0) {
      missing += (missing.empty() ? "" : BiText{", ", "、"}.in(lang)) + check.substr(5);
      continue;
    }
    std::string why = explain_check(check, lang);
    if (lang == Lang::kZh)  // the check's own detail is English: the explanation, or the values compared
      text += "\n- 验证提示：" + (why.empty() ? "检查未通过，数值 " + json_text(c.value("value", Json())) + "，阈值 " +
                                                    json_text(c.value("threshold", Json()))
                                              : why);
    else
      text += "\n- validation " + check + ": " + c.value("detail", "") + (why.empty() ? "" : " — " + why);
  }
  if (!missing.empty())
    text +=
        BiText{"\n- required results missing: " + missing + " (the stage that writes them did not finish, see above)",
               "\n- 必需的结果缺失：" + missing + "（写出它们的阶段未完成，见上）"}
            .in(lang);
  return text;
}

// A caption's first sentence (through "。" or ". "), else the whole caption.
std::string first_sentence(const std::string& caption) {
  size_t zh = caption.find("。"), en = caption.find(". ");
  size_t end =
      std::min(zh == std::string::npos ? zh : zh + std::string("。").size(), en == std::string::npos ? en : en + 1);
  return end == std::string::npos ? caption : caption.substr(0, end);
}

// A figure's caption without its number ("Figure 3. " or "图3 "): the "text" the report stores, else the
// caption after its numbering.
std::string caption_text(const Json& figure) {
  if (figure.contains("text")) return figure.value("text", std::string());
  const std::string caption = figure.value("caption", std::string());
  for (const std::string prefix : {"Figure ", "图"}) {
    if (!caption.starts_with(prefix)) continue;
    size_t at = prefix.size();
    while (at < caption.size() && std::isdigit(static_cast<unsigned char>(caption[at]))) ++at;
    if (at < caption.size() && caption[at] == '.') ++at;
    while (at < caption.size() && caption[at] == ' ') ++at;
    return caption.substr(at);
  }
  return caption;
}

}  // namespace

std::string run_outcome_text(const fs::path& run_dir, const std::string& task_id, const std::string& state,
                             const std::string& message, Lang lang, Json* links) {
  std::string text;
  if (state == "cancelled") return BiText{"The run was cancelled.", "分析已取消。"}.in(lang);
  text = state == "done" ? BiText{"The run finished.", "分析已完成。"}.in(lang)
                         : BiText{"The run did not finish: " + message,
                                  "分析未能完成：" + (has_cjk(message) ? message : zh_pointer(message))}
                               .in(lang);
  if (run_dir.empty()) return text;  // stopped before its run folder existed
  Json run = read_json(run_dir / "run.json");
  std::string base = run.is_object() ? run.value("species", "") + "." + run.value("family", "") : "";
  std::error_code ec;
  fs::path ids = run_dir / "final" / (base + ".geneID.txt");
  if (!base.empty() && fs::exists(ids, ec))
    text += BiText{"\n- " + std::to_string(count_lines(ids)) + " family members found (" + base + ".geneID.txt)",
                   "\n- 鉴定到 " + std::to_string(count_lines(ids)) + " 个家族成员（" + base + ".geneID.txt）"}
                .in(lang);
  Json status = read_json(run_dir / "status.json");
  if (status.is_object()) text += stage_lines(status, lang, task_id, links);
  Json v = read_json(run_dir / "validation.json");
  if (v.is_object()) text += validation_lines(v, lang);
  std::vector<std::string> figures, reports;
  for (auto& e : fs::directory_iterator(run_dir / "final", ec)) {
    std::string n = e.path().filename().string();
    if (n.size() > 5 && n.compare(n.size() - 5, 5, ".html") == 0) reports.push_back(n);
    if (n.ends_with(".svg")) figures.push_back(n);
  }
  // A figure exported as PDF or PNG too is listed once, under its SVG; a PNG-only figure under its PNG.
  for (auto& e : fs::directory_iterator(run_dir / "final", ec)) {
    const std::string n = e.path().filename().string();
    if (n.ends_with(".png") && !fs::exists(run_dir / "final" / (n.substr(0, n.size() - 4) + ".svg"), ec))
      figures.push_back(n);
  }
  // Key figures by what a paper shows first (the combined panel, the rooted tree, the chromosome map, the
  // duplications), then the others by name.
  static const char* kImportance[] = {"combined_panel.svg", "tree_rooted.svg",    "chromosome_map.svg",
                                      "synteny_circle.svg", "kaks.svg",           "expression_heatmap.svg",
                                      "motif_logos.svg",    "gene_structure.svg", "promoter_heatmap.svg"};
  auto rank = [](const std::string& n) {
    for (size_t i = 0; i < std::size(kImportance); ++i) {
      const std::string suffix = std::string(".") + kImportance[i];
      if (n.size() >= suffix.size() && n.compare(n.size() - suffix.size(), suffix.size(), suffix) == 0) return i;
    }
    return std::size(kImportance);
  };
  std::sort(figures.begin(), figures.end(),
            [&](const std::string& a, const std::string& b) { return std::pair(rank(a), a) < std::pair(rank(b), b); });
  std::sort(reports.begin(), reports.end());
  for (auto& r : reports) {
    text += "\n- " + std::string(BiText{"report: ", "报告："}.in(lang)) + r;
    if (links) links->push_back({{"kind", "report"}, {"name", r}, {"url", result_file_url(task_id, r)}});
  }
  const auto captions = figure_captions(run_dir / "final");
  for (size_t i = 0; i < figures.size() && i < 4; ++i) {
    auto c = captions.find(figures[i]);
    if (c == captions.end()) {
      text += "\n- " + std::string(BiText{"figure: ", "图："}.in(lang)) + figures[i];
    } else {  // "图6 家族成员的系统发育…（Lchi.SPL.combined_panel.svg）", numbered once, as the report numbers it
      text += "\n- " + std::string(BiText{"Figure ", "图"}.in(lang)) + std::to_string(c->second.value("number", 0)) +
              BiText{". ", " "}.in(lang) + first_sentence(caption_text(c->second)) + BiText{" (", "（"}.in(lang) +
              figures[i] + BiText{")", "）"}.in(lang);
    }
    if (links)
      links->push_back({{"kind", "figure"}, {"name", figures[i]}, {"url", result_file_url(task_id, figures[i])}});
  }
  return text;
}

}  // namespace bioagent
