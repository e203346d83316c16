// KnowledgeAgent's report sections: the run's own results (each finished
// stage's summary) as source [1], the knowledge-base entry as [2] and local
// literature that names the family as [3...]. With a model, the model writes
// the literature comparison and the biological significance from those
// sources alone and the citation checker removes every sentence they do not
// carry; without one (or when nothing survives), the sections say so and list
// the evidence that was found and the searches that failed.
#include "assistant/report_sections.h"

#include <cstdio>
#include <fstream>
#include <functional>

#include "bioagent/json_text.h"
#include "bioagent/llm.h"

namespace bioagent {
namespace {

// A summary value as short text: scalars as they are, objects of scalars as
// "k v, k v", arrays of scalars joined, anything larger by its size.
std::string value_text(const Json& v) {
  if (v.is_string()) return v.get<std::string>().substr(0, 300);
  if (v.is_number_float()) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3g", v.get<double>());
    return buf;
  }
  if (v.is_primitive()) return json_text(v);
  std::string out;
  size_t n = 0;
  for (auto it = v.begin(); it != v.end(); ++it, ++n) {
    if (n == 12 || it->is_structured()) return v.is_array() ? std::to_string(v.size()) + " entries" : out;
    std::string item = v.is_object() ? it.key() + " " + value_text(*it) : value_text(*it);
    out += (out.empty() ? "" : ", ") + item;
  }
  return out.empty() ? "none" : out;
}

std::string joined(const std::vector<std::string>& v, const std::string& sep) {
  std::string out;
  for (auto& x : v) out += (out.empty() ? "" : sep) + x;
  return out;
}

}  // namespace

std::string run_results_text(const RunSubject& subject, const std::vector<StageStatus>& finished) {
  std::string out = "This run: species " + subject.prefix + (subject.latin.empty() ? "" : " (" + subject.latin + ")") +
                    ", family " + subject.family + "\n";
  for (auto& s : finished) {
    out += s.stage + " (" + to_string(s.state) + "): ";
    if (!finished_with_outputs(s.state)) {
      out += s.message.substr(0, 200) + "\n";
      continue;
    }
    std::vector<std::string> parts;
    if (s.summary.is_object())
      for (auto it = s.summary.begin(); it != s.summary.end(); ++it) {
        std::string v = value_text(*it);
        if (!v.empty()) parts.push_back(it.key() + " " + v);
      }
    out += joined(parts, "; ") + "\n";
  }
  return out;
}

namespace {

// The section without a model: what was searched, the run beside the
// knowledge base's counts, and the evidence list (never a written comparison).
std::string extractive_literature(const RunSubject& subject, const EvidenceSet& ev, int members, bool offline,
                                  Lang lang) {
  const Json* fam = find_gene_family(subject.family);
  std::string out = searches_text(ev, offline, lang);
  // A Chinese text takes the count alone: the knowledge base's notes on it are English.
  auto count_zh = [&](const char* sp) {
    std::string c = (*fam)["members"].value(sp, "?");
    size_t digits = c.find_first_not_of("0123456789");
    return digits == 0 || c.empty() ? c : c.substr(0, digits);
  };
  if (fam)
    out += BiText{"Found here: " + std::to_string(members) + " " + subject.family +
                      " members [1]; knowledge base: " + "Arabidopsis " + (*fam)["members"].value("Ath", "?") +
                      ", rice " + (*fam)["members"].value("Osa", "?") + " [2].\n",
                  "本次鉴定到 " + std::to_string(members) + " 个 " + subject.family + " 成员 [1]；知识库：拟南芥 " +
                      count_zh("Ath") + " 个，水稻 " + count_zh("Osa") + " 个 [2]。\n"}
               .in(lang);
  else
    out += BiText{"The knowledge base has no entry for " + subject.family + ".\n",
                  "知识库中没有 " + subject.family + " 家族的条目。\n"}
               .in(lang);
  out += BiText{"Evidence found:\n", "证据列表：\n"}.in(lang);
  for (size_t i = 1; i < ev.items.size(); ++i) {  // the knowledge base's counts are in the line above
    bool kb = ev.items[i].source == "bioagent knowledge base";
    out += "[" + std::to_string(i + 1) + "] " + ev.items[i].title + (ev.items[i].locator.empty() ? "" : ", ") +
           ev.items[i].locator + (kb ? "" : ": " + excerpt(ev.items[i].text, 240)) + "\n";
  }
  if (ev.items.size() <= 2)
    out += BiText{"No local passage names this family.\n", "本地文献中没有提及该家族的段落。\n"}.in(lang);
  return out;
}

// The numbered sources as the section's reference list.
std::string sources_text(const EvidenceSet& ev, Lang lang) {
  std::string out = BiText{"Sources:\n", "来源：\n"}.in(lang);
  for (size_t i = 0; i < ev.items.size(); ++i)
    out += "[" + std::to_string(i + 1) + "] " + ev.items[i].title +
           (ev.items[i].locator.empty() ? "" : ", " + ev.items[i].locator) + "\n";
  return out;
}

std::string no_model_note(const std::string& why, Lang lang) {
  if (why.empty())
    return BiText{
        "No language model was used: this section lists the evidence found; it is not a written comparison.\n",
        "未使用语言模型：本节只列出检索到的证据，不是撰写的比较。\n"}
        .in(lang);
  return BiText{"The model's text was not used (", "模型撰写未采用（"}.in(lang) + why +
         BiText{
             "): this section lists the "
             "evidence found.\n",
             "）：本节只列出检索到的证据。\n"}
             .in(lang);
}

struct Written {
  std::string text, why_not;  // why_not: empty when text is the model's
  Json check;
};

Written write_section(const AgentEnv& env, LlmClient& llm, const std::string& question, const EvidenceSet& ev,
                      const std::string& task, Lang lang) {
  WrittenAnswer w = write_from_evidence(env, llm, question, ev, task, lang);
  Written out{w.text, "", w.check};
  if (!w.error.empty())
    out.why_not = BiText{"the model call failed: ", "模型调用失败："}.in(lang) + w.error.substr(0, 200);
  else if (w.text.empty())
    out.why_not =
        BiText{"no sentence of the model's text passed the citation check", "模型的文字没有一句通过引用检查"}.in(lang);
  return out;
}

}  // namespace

ReportSections write_report_sections(const AgentEnv& env, LlmClient* llm, const RunSubject& subject,
                                     const std::vector<StageStatus>& finished, Lang lang) {
  ReportSections out;
  EvidenceSet ev;
  ev.add({BiText{"this run's results", "本次分析的结果"}.in(lang), "run", "", run_results_text(subject, finished)});
  const Json* fam = find_gene_family(subject.family);
  if (fam) ev.add({fam->value("reference", ""), "bioagent knowledge base", "", family_evidence_text(*fam)});
  std::vector<std::string> fam_terms = fam ? entry_terms(fam, false) : std::vector<std::string>{subject.family};
  std::string fam_name = fam ? fam->value("name", subject.family) : subject.family;
  std::vector<std::string> queries = {fam_name + " gene family"};
  if (!subject.latin.empty()) queries.insert(queries.begin(), subject.latin + " " + fam_name + " gene family");
  add_local_hits(env, queries, {fam_terms}, ev, 8);
  out.searched = ev.searched;
  out.failed = ev.failed;
  out.sources = ev.sources_json(ev.items.size());
  int members = 0;
  for (auto& s : finished)
    if (finished_with_outputs(s.state) && s.summary.is_object() && s.summary.contains("members") &&
        s.summary["members"].is_number_integer())
      members = s.summary["members"].get<int>();
  std::string extractive = extractive_literature(subject, ev, members, env.offline(), lang);
  if (!llm) {
    out.literature = no_model_note("", lang) + extractive;
    out.significance =
        BiText{
            "No language model was used: no interpretation was written; the statements below come "
            "straight from this run's results.",
            "未使用语言模型：未撰写生物学意义的解读；以下为本次结果的直接陈述。"}
            .in(lang);
    return out;
  }
  out.model = llm->model().name;
  std::string subject_text = fam_name + " genes of " + (subject.latin.empty() ? subject.prefix : subject.latin);
  Written lit = write_section(
      env, *llm, "Compare this run's " + subject_text + " with the literature.", ev,
      "Write the report's section 'comparison with the literature': set this run's results [1] (member count, "
      "subfamilies, duplications, Ks peaks) beside what the other sources report for other species. Only the "
      "sources' facts; say where the sources do not cover something.",
      lang);
  Written sig = write_section(
      env, *llm, "What do this run's results mean biologically for the " + subject_text + "?", ev,
      "Write the report's section 'biological significance': what this run's results [1] suggest about the "
      "family's evolution and function, each interpretation tied to the source that supports it.",
      lang);
  out.checks = {{"literature", lit.check}, {"significance", sig.check}};
  out.literature = lit.why_not.empty()
                       ? lit.text + "\n\n" + sources_text(ev, lang) + searches_text(ev, env.offline(), lang)
                       : no_model_note(lit.why_not, lang) + extractive;
  out.significance =
      sig.why_not.empty()
          ? sig.text + "\n\n" + sources_text(ev, lang)
          : BiText{"The model's biological significance was not used (", "未采用模型撰写的生物学意义（"}.in(lang) +
                sig.why_not +
                BiText{
                    "); the statements below come "
                    "straight from this run's results.",
                    "）；以下为本次结果的直接陈述。"}
                    .in(lang);
  out.model_used = lit.why_not.empty() || sig.why_not.empty();
  return out;
}

Json ReportSections::removed_sentences() const {
  Json out = Json::array();
  for (auto& [section, check] : checks.items())
    for (auto& s : check.value("sentences", Json::array()))
      if (!s.value("kept", true))
        out.push_back({{"section", section}, {"sentence", s["sentence"]}, {"why", s["problems"]}});
  return out;
}

namespace {

// The sections as the run's final/literature_comparison.md (the results page shows it).
void write_sections_file(const fs::path& run_dir, const ReportSections& r, Lang lang) {
  std::string md =
      BiText{"# Comparison with the literature (KnowledgeAgent)\n\n", "# 文献对比（KnowledgeAgent）\n\n"}.in(lang) +
      r.literature + "\n\n" + BiText{"## Biological significance\n\n", "## 生物学意义\n\n"}.in(lang) + r.significance +
      "\n";
  std::error_code ec;
  fs::create_directories(run_dir / "final", ec);
  std::ofstream(run_dir / "final" / "literature_comparison.md") << md;
}

}  // namespace

Json report_sections_patch(const AgentEnv& env, LlmClient* llm, const RunSubject& subject,
                           const std::vector<StageStatus>& finished, const fs::path& run_dir, Lang lang,
                           const std::function<void(Json)>& record) {
  ReportSections r = write_report_sections(env, llm, subject, finished, lang);
  record({{"type", "report_sections"},
          {"model", r.model},
          {"model_used", r.model_used},
          {"searched", r.searched},
          {"failed", r.failed},
          {"sources", r.sources},
          {"citation_check", r.checks},
          {"removed", r.removed_sentences()}});
  write_sections_file(run_dir, r, lang);
  return Json{{"lang", lang_name(lang)},
              {"prewritten", {{"literature-comparison", r.literature}, {"meaning", r.significance}}}};
}

}  // namespace bioagent
