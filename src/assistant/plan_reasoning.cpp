// PlanningAgent's reasoning: why the plan runs its stages and what the data
// allows. With a model, the model writes it from the plan alone and a checker
// removes every sentence that claims a file the plan does not list, a missing
// file as present, a skipped stage as run, an analysis no stage does, or a
// number the plan does not hold; without a model the text is the template and
// says so.
#include <re2/re2.h>

#include "assistant/agents.h"
#include "bioagent/genefamily.h"
#include "bioagent/json_text.h"
#include "bioagent/llm.h"

namespace bioagent {
namespace {

std::vector<std::string> sentences_of(const std::string& text) {
  std::vector<std::string> out;
  std::string cur;
  for (size_t i = 0; i < text.size(); ++i) {
    cur += text[i];
    bool cjk = text.compare(i, 3, "。") == 0 || text.compare(i, 3, "；") == 0;
    if (cjk) cur += text.substr(i + 1, 2), i += 2;
    bool ascii =
        (text[i] == '.' || text[i] == ';') && (i + 1 == text.size() || text[i + 1] == ' ' || text[i + 1] == '\n');
    if (cjk || ascii || text[i] == '\n') {
      if (cur.find_first_not_of(" \n") != std::string::npos) out.push_back(cur);
      cur.clear();
    }
  }
  if (cur.find_first_not_of(" \n") != std::string::npos) out.push_back(cur);
  return out;
}

bool says_absent(const std::string& sentence) {
  std::string low = lower_ascii(sentence);
  for (const char* w : {"skip", "missing", "absent", "without", "no ", "not ", "lack", "upload", "缺少", "跳过", "没有",
                        "未", "无", "上传"})
    if (low.find(w) != std::string::npos) return true;
  return false;
}

// Analyses a biologist may expect that no stage of the table performs.
const std::vector<std::string>& analyses_not_in_the_table() {
  static const std::vector<std::string> v = {
      "GO enrichment",  "KEGG",         "qRT-PCR",      "qPCR",   "subcellular localization",
      "homology model", "3D structure", "miRNA target", "CRISPR", "yeast two-hybrid",
      "GO 富集",        "亚细胞定位",   "三维结构"};
  return v;
}

}  // namespace

std::vector<std::string> plan_reasoning_problems(const std::string& sentence, const Json& plan) {
  std::vector<std::string> problems;
  const Json& ref = plan.value("reference_genome", Json::object());
  std::map<std::string, bool> files;  // name -> available
  for (auto& [k, v] : ref.items())
    if (v.is_string() && ref.contains(k + "_status")) files[v.get<std::string>()] = ref[k + "_status"] == "available";
  for (auto& f : plan.value("transcriptome_data", Json::object()).value("files", Json::array()))
    if (f.is_string()) files[f.get<std::string>()] = true;
  static const RE2 file_re(
      R"(([A-Za-z0-9_]+(?:\.[A-Za-z0-9_]+)*\.(?:fasta|fa|faa|fas|gff3|gff|hmm|tsv|csv|fastq|fq|xlsx)))");
  re2::StringPiece in(sentence);
  std::string f;
  while (RE2::FindAndConsume(&in, file_re, &f)) {
    if (!files.count(f))
      problems.push_back("names the file " + f + ", which the plan does not list");
    else if (!files[f] && !says_absent(sentence))
      problems.push_back("speaks of " + f + " as present; the plan has it missing");
  }
  std::map<std::string, bool> stage_skipped;
  for (auto& entry : plan.value("analysis_stages", Json::array()))
    for (auto& [name, label] : entry.items())
      stage_skipped[name] = label.is_string() && label.get<std::string>().find("skipped") != std::string::npos;
  for (auto& entry : plan.value("analysis_stages", Json::array()))
    for (auto& [name, label] : entry.items())
      if (label.is_string() && label.get<std::string>().find("跳过") != std::string::npos) stage_skipped[name] = true;
  for (auto& spec : genefamily_pipeline().stages()) {
    bool named = text_mentions(sentence, spec.name) || (!spec.label.empty() && text_mentions(sentence, spec.label)) ||
                 (!spec.label_zh.empty() && sentence.find(spec.label_zh) != std::string::npos);
    if (named && stage_skipped[spec.name] && !says_absent(sentence))
      problems.push_back("speaks of the " + spec.name + " stage as run; the plan skips it");
  }
  std::string low = lower_ascii(sentence);
  for (auto& a : analyses_not_in_the_table())
    if (low.find(lower_ascii(a)) != std::string::npos && !says_absent(sentence))
      problems.push_back("claims an analysis (" + a + ") that no stage of the plan performs");
  std::string plan_text = json_text(plan);
  static const RE2 number(R"((?:^|[^A-Za-z0-9.])(\d+(?:\.\d+)?))");
  auto in_plan = [&](const std::string& n) {  // n with no digit glued on either side
    auto digit = [](char c) { return c >= '0' && c <= '9'; };
    for (size_t p = plan_text.find(n); p != std::string::npos; p = plan_text.find(n, p + 1))
      if ((p == 0 || !digit(plan_text[p - 1])) && (p + n.size() >= plan_text.size() || !digit(plan_text[p + n.size()])))
        return true;
    return false;
  };
  in = re2::StringPiece(sentence);
  std::string n;
  while (RE2::FindAndConsume(&in, number, &n))
    if (!in_plan(n)) problems.push_back("number " + n + " is not in the plan");
  return problems;
}

std::string plan_reasoning_template(const Json& plan, Lang lang) {
  std::string run, skipped;
  for (auto& entry : plan.value("analysis_stages", Json::array()))
    for (auto& [name, label] : entry.items()) {
      std::string l = label.is_string() ? label.get<std::string>() : name;
      bool skip = l.find("skipped") != std::string::npos || l.find("跳过") != std::string::npos;
      (skip ? skipped : run) += ((skip ? skipped : run).empty() ? "" : BiText{", ", "、"}.in(lang)) + l;
    }
  std::string status = plan.value("reference_genome", Json::object()).value("status", "");
  std::string out = BiText{"Stages to run: " + run + ".", "将运行的阶段：" + run + "。"}.in(lang);
  if (!skipped.empty())
    out += BiText{" Skipped for want of a file: " + skipped + ".", "因缺少文件而跳过：" + skipped + "。"}.in(lang);
  out += BiText{" Data: " + status + " (only the proteins are required).",
                "数据状态：" + status + "（只有蛋白序列是必需的）。"}
             .in(lang);
  out += BiText{" (Template: no language model was used.)", "（模板说明：未使用语言模型。）"}.in(lang);
  return out;
}

Json plan_reasoning(const Json& plan, LlmClient* llm, Lang lang) {
  if (!llm) return {{"text", plan_reasoning_template(plan, lang)}, {"written_by", "template"}};
  ChatRequest rq;
  rq.messages = {ChatMessage::system(
                     "Explain to a plant biologist, in 3 to 5 sentences, why this gene-family analysis plan runs its "
                     "stages and what the uploaded data allows. Use only the plan below: name only its stages and "
                     "files, call a skipped stage skipped and a missing file missing, and add no number the plan "
                     "does not hold." +
                     std::string(BiText{" Answer in English.", " Answer in Chinese."}.in(lang))),
                 ChatMessage::user(json_text(plan, 1))};
  rq.temperature = 0.0;
  auto resp = llm->chat(rq);
  if (!resp)
    return {{"text", plan_reasoning_template(plan, lang)},
            {"written_by", "template"},
            {"model_error", resp.status().message().substr(0, 300)}};
  std::string kept;
  Json removed = Json::array();
  for (auto& s : sentences_of(resp->message.text())) {
    auto problems = plan_reasoning_problems(s, plan);
    if (problems.empty())
      kept += s;
    else
      removed.push_back({{"sentence", s}, {"why", problems}});
  }
  if (kept.find_first_not_of(" \n") == std::string::npos)
    return {{"text", plan_reasoning_template(plan, lang)}, {"written_by", "template"}, {"removed", removed}};
  return {{"text", kept}, {"written_by", llm->answered_by()}, {"removed", removed}};
}

}  // namespace bioagent
