// KnowledgeAgent, the knowledge question: the family from the knowledge base,
// each species asked about answered from sources that name it or marked
// unknown (never another species' numbers in its place), comparisons laid
// side by side, and local literature only when it names the subject.
#include <re2/re2.h>

#include "assistant/knowledge_evidence.h"
#include "bioagent/llm.h"

namespace bioagent {
namespace {

struct AskedSpecies {
  const Json* entry = nullptr;  // null: a Latin name outside the list
  std::string prefix, latin, label;
};

std::vector<AskedSpecies> asked_species(const Route& route, const std::string& message, Lang lang) {
  std::vector<AskedSpecies> out;
  for (const Json* e : species_mentioned(message)) {
    std::string common = lang == Lang::kZh && !(*e)["chinese"].empty() ? (*e)["chinese"][0].get<std::string>()
                         : (*e)["english"].empty()                     ? e->value("latin", "")
                                                                       : (*e)["english"][0].get<std::string>();
    out.push_back({e, e->value("prefix", ""), e->value("latin", ""), common + " (" + e->value("latin", "") + ")"});
  }
  if (out.empty() && !route.species_name.empty())
    out.push_back({nullptr, route.species, route.species_name, route.species_name});
  return out;
}

bool asks_comparison(const std::string& message) {
  std::string low = lower_ascii(message);
  for (const char* c : {"比较", "对比", "区别", "差异", "异同", "compare", "comparison", "versus", " vs", "differ"})
    if (low.find(c) != std::string::npos) return true;
  return false;
}

// One line per species: its member count where a source gives it, else "unknown" with what was looked at.
std::string species_lines(const Json& fam, const std::vector<AskedSpecies>& asked, EvidenceSet& ev, const AgentEnv& env,
                          Lang lang) {
  std::string fam_name = fam.value("name", "");
  std::string out;
  for (auto& s : asked) {
    std::string count = fam["members"].value(s.prefix, "");
    if (!count.empty()) {
      out += BiText{"- " + s.label + ": " + count + " " + fam_name + " members [1]\n",
                    "- " + s.label + "：" + fam_name + " 成员 " + count + " 个 [1]\n"}
                 .in(lang);
      continue;
    }
    // Not in the knowledge base: only passages naming this species and this family count.
    size_t before = ev.items.size();
    std::vector<std::string> sp_terms = s.entry ? entry_terms(s.entry, true) : std::vector<std::string>{s.latin};
    add_local_hits(env, {s.latin + " " + fam_name, s.latin + " " + fam_name + " gene family"},
                   {sp_terms, entry_terms(&fam, false)}, ev, 8);
    out +=
        BiText{"- " + s.label + ": the knowledge base has no " + fam_name + " member count for this species (unknown)",
               "- " + s.label + "：知识库中没有该物种的 " + fam_name + " 成员数（未知）"}
            .in(lang);
    if (ev.items.size() > before) {
      out +=
          BiText{"; local literature that names this species and family:\n", "；提及该物种与该家族的本地文献：\n"}.in(
              lang);
      for (size_t i = before; i < ev.items.size(); ++i)
        out += "  - " + excerpt(ev.items[i].text, 200) + " [" + std::to_string(i + 1) + "]\n";
    } else {
      out += BiText{"; no local passage names this species' " + fam_name + " family either.\n",
                    "；本地文献中也没有提及该物种 " + fam_name + " 家族的段落。\n"}
                 .in(lang);
    }
  }
  return out;
}

// Counts side by side and their difference where both are known.
std::string comparison_lines(const Json& fam, const std::vector<AskedSpecies>& asked, Lang lang) {
  std::vector<std::pair<std::string, int>> known;
  for (auto& s : asked) {
    int n = leading_count(fam["members"].value(s.prefix, ""));
    if (n >= 0) known.push_back({s.label, n});
  }
  if (known.size() < 2)
    return BiText{"Comparison: only one species has a member count, so the counts cannot be compared; see above.\n",
                  "比较：只有一个物种有成员数，无法比较数量；未知的物种见上。\n"}
        .in(lang);
  std::string out = BiText{"Comparison (knowledge-base counts):\n", "比较（按知识库的数字）：\n"}.in(lang);
  for (size_t i = 1; i < known.size(); ++i) {
    auto& [a, na] = known[0];
    auto& [b, nb] = known[i];
    int diff = nb - na;
    std::string more = diff > 0 ? b : a;
    out += BiText{"- " + b + " has " + std::to_string(nb) + ", " + a + " has " + std::to_string(na) + ": " +
                      (diff == 0 ? std::string("the same number")
                                 : more + " has " + std::to_string(std::abs(diff)) + " more") +
                      " [1]\n",
                  "- " + b + " 有 " + std::to_string(nb) + " 个，" + a + " 有 " + std::to_string(na) + " 个：" +
                      (diff == 0 ? std::string("数量相同") : more + " 多 " + std::to_string(std::abs(diff)) + " 个") +
                      " [1]\n"}
               .in(lang);
  }
  return out;
}

std::string no_family_text(const Route& route, Lang lang) {
  size_t n = gene_family_kb()["families"].size();
  return BiText{"The knowledge base has no entry for " +
                    (route.family.empty() ? std::string("the family this question is about") : route.family) +
                    ". It holds " + std::to_string(n) + " major plant gene families (for example SPL, MYB, WRKY, NAC).",
                "知识库中没有" +
                    (route.family.empty() ? std::string("这个问题对应的基因家族") : route.family + " 家族") +
                    "的条目。知识库收录 " + std::to_string(n) + " 个主要植物基因家族（例如 SPL、MYB、WRKY、NAC）。"}
      .in(lang);
}

}  // namespace

Json knowledge_answer(const AgentEnv& env, const Route& route, const std::string& message, LlmClient* llm) {
  const Lang lang = lang_or_en(route.language);
  const Json* fam = find_gene_family(route.family);
  if (!fam)
    return {{"agent", "knowledge"},
            {"answer", no_family_text(route, lang)},
            {"sources", Json::array()},
            {"question", message},
            {"model", "none"}};
  EvidenceSet ev;
  ev.add({fam->value("reference", ""), "bioagent knowledge base", "", family_evidence_text(*fam)});
  std::vector<AskedSpecies> asked = asked_species(route, message, lang);
  std::string answer;
  if (!asked.empty()) answer += species_lines(*fam, asked, ev, env, lang);
  if (asks_comparison(message) && asked.size() >= 2) answer += comparison_lines(*fam, asked, lang);
  if (!asked.empty())
    answer += BiText{"\nThe family in general (knowledge base; counts are Arabidopsis and rice):\n",
                     "\n该家族的一般知识（知识库；成员数为拟南芥与水稻）：\n"}
                  .in(lang);
  answer += family_summary(*fam, lang);
  // Local literature that names the family (and the species asked about) adds sources.
  std::vector<std::vector<std::string>> must = {entry_terms(fam, false)};
  size_t before = ev.items.size();
  add_local_hits(env, {fam->value("name", "") + " " + fam->value("full_name", "")}, must, ev, 6);
  if (ev.items.size() > before) {
    answer += BiText{"\nIn your local literature:\n", "\n本地文献:\n"}.in(lang);
    for (size_t i = before; i < ev.items.size(); ++i)
      answer += "- " + excerpt(ev.items[i].text, 160) + " [" + std::to_string(i + 1) + "]\n";
  }
  if (!ev.failed.empty()) answer += "\n" + searches_text(ev, env.offline(), lang);
  Json reply = {{"agent", "knowledge"}, {"question", message}, {"searched", ev.searched}, {"failed", ev.failed}};
  if (llm) {
    std::string task = asked.empty() ? "Summarise the gene family: domains, member counts, functions, regulators."
                                     : "Answer for the species asked about; compare them when asked.";
    WrittenAnswer w = write_from_evidence(env, *llm, message, ev, task, lang);
    reply["citation_check"] = w.check;
    if (!w.text.empty()) {
      reply["answer"] = w.text;
      reply["model"] = llm->answered_by();
      reply["sources"] = ev.sources_json(ev.items.size());
      return reply;
    }
    std::string why = w.error.empty() ? BiText{"no sentence of the model's answer passed the citation check",
                                               "模型的回答没有一句通过引用检查"}
                                            .in(lang)
                                      : BiText{"the model call failed: " + w.error, "模型调用失败"}.in(lang);
    answer += BiText{"\n(" + why + "; the answer above is extracted from the knowledge base and local literature.)",
                     "\n（" + why + "；以上为摘自知识库与本地文献的抽取式回答。）"}
                  .in(lang);
  } else {
    answer +=
        BiText{"\nNo language model was used: the answer is extracted from the knowledge base and local literature.",
               "\n未使用语言模型：以上内容摘自知识库与本地文献。"}
            .in(lang);
  }
  reply["answer"] = answer;
  reply["model"] = "none";
  reply["sources"] = ev.sources_json(ev.items.size());
  return reply;
}

int leading_count(const std::string& s) {
  static const RE2 n(R"(^\s*(\d+))");
  int count = -1;
  return RE2::PartialMatch(s, n, &count) ? count : -1;
}

}  // namespace bioagent
