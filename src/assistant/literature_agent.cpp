// KnowledgeAgent, the literature check: has the family been studied in the
// species? Every source counted must name both; the answer says which
// searches ran and which failed, and calls the absence of papers a research
// gap only when every search ran.
#include "assistant/knowledge_evidence.h"
#include "bioagent/json_text.h"
#include "bioagent/llm.h"

#include <algorithm>

namespace bioagent {
namespace {

struct Subject {
  std::vector<std::string> species_terms, family_terms;
  std::string latin, zh_name, family, full_name;
};

Subject subject_of(const Route& route) {
  Subject s;
  const Json* sp = find_species(route.species);
  const Json* fam = find_gene_family(route.family);
  s.latin = sp ? sp->value("latin", "") : (route.species_name.empty() ? route.species : route.species_name);
  s.zh_name = sp && !(*sp)["chinese"].empty() ? (*sp)["chinese"][0].get<std::string>() : s.latin;
  s.family = fam ? fam->value("name", "") : route.family;
  s.full_name = fam ? fam->value("full_name", "") : route.family;
  s.species_terms = sp ? entry_terms(sp, true) : std::vector<std::string>{s.latin};
  s.family_terms = fam ? entry_terms(fam, false) : std::vector<std::string>{route.family};
  s.species_terms.erase(std::remove(s.species_terms.begin(), s.species_terms.end(), ""), s.species_terms.end());
  s.family_terms.erase(std::remove(s.family_terms.begin(), s.family_terms.end(), ""), s.family_terms.end());
  return s;
}

// The online search: what it found that names the subject, what ran, what failed.
void search_online(const AgentEnv& env, const Subject& s, EvidenceSet& ev) {
  Json r = call_knowledge_tool(env, "search_literature",
                               {{"query", s.latin + " " + s.family + " gene family"}, {"max_results_per_source", 10}});
  if (r.contains("error")) {
    ev.failed.push_back("search_literature: " + r["error"].get<std::string>());
    return;
  }
  std::set<std::string> failed_sources;
  for (auto& e : r.value("errors", Json::array())) {
    std::string msg = e.is_string() ? e.get<std::string>() : json_text(e);
    ev.failed.push_back(msg);
    failed_sources.insert(msg.substr(0, msg.find(':')));
  }
  for (auto& src : r.value("sources_searched", Json::array()))
    if (src.is_string() && !failed_sources.count(src.get<std::string>())) ev.searched.push_back(src.get<std::string>());
  for (auto& e : r.value("evidence", Json::array())) {
    const Json& c = e.value("citation", Json::object());
    std::string text = e.value("content", "") + " " + c.value("title", "");
    if (!names_any(text, s.species_terms) || !names_any(text, s.family_terms)) continue;
    std::string loc;
    for (const char* k : {"url", "doi", "pmid"})
      if (loc.empty() && c.contains(k) && c[k].is_string()) loc = c[k].get<std::string>();
    ev.add({c.value("title", ""), c.value("source", "literature search"), loc, excerpt(e.value("content", ""), 600)});
  }
}

}  // namespace

Json literature_check(const AgentEnv& env, const Route& route, const std::string& message, LlmClient* llm) {
  const Lang lang = lang_or_en(route.language);
  Subject s = subject_of(route);
  // The seed's query combinations.
  std::vector<std::string> queries = {s.latin + " " + s.family, s.zh_name + " " + s.family + "基因家族",
                                      s.latin + " " + s.full_name};
  if (s.family == "SPL") queries.push_back(s.zh_name + " 开花调控 SPL");
  EvidenceSet ev;
  add_local_hits(env, queries, {s.species_terms, s.family_terms}, ev, 20);
  bool offline = env.offline();
  if (!offline) search_online(env, s, ev);
  bool online_ran = !offline && std::any_of(ev.searched.begin(), ev.searched.end(), [](const std::string& x) {
    return x != "evidence store" && x != "paper library";
  });
  // A gap is claimed only when every search ran (online included) and none found the subject.
  bool every_search_ran = !offline && online_ran && ev.failed.empty();
  bool gap = ev.items.empty() && every_search_ran;
  std::string subject =
      BiText{"the " + s.family + " gene family of " + s.latin, s.zh_name + " " + s.family + " 基因家族"}.in(lang);
  std::string answer = searches_text(ev, offline, lang);
  if (ev.items.empty()) {
    if (gap)
      answer +=
          BiText{"No search found anything on " + subject + ": no dedicated study was found, a possible research gap.",
                 "所有检索都没有找到" + subject + "的文献。目前未发现专门研究，这是一个潜在的研究空白。"}
              .in(lang);
    else
      answer +=
          BiText{"Nothing on " + subject +
                     " was found in the sources searched. Since not every search ran, this "
                     "does not show a research gap; search again online (PubMed, Europe PMC and others) to confirm.",
                 "在已检索的来源中没有找到" + subject +
                     "的文献。由于部分检索未能进行，不能据此判断是否为研究空白；"
                     "联网后可再检索 PubMed、Europe PMC 等数据库确认。"}
              .in(lang);
  } else {
    answer += BiText{"Found " + std::to_string(ev.items.size()) + " record(s) naming " + subject + ":\n",
                     "找到 " + std::to_string(ev.items.size()) + " 篇提及" + subject + "的文献:\n"}
                  .in(lang);
    for (size_t i = 0; i < ev.items.size(); ++i)
      answer += "- " + ev.items[i].title + " [" + std::to_string(i + 1) + "]\n";
  }
  Json reply = {{"agent", "knowledge"}, {"sources", ev.sources_json(ev.items.size())},
                {"queries", queries},   {"searched", ev.searched},
                {"failed", ev.failed},  {"found", ev.items.size()},
                {"research_gap", gap},  {"every_search_ran", every_search_ran},
                {"question", message},  {"model", "none"}};
  reply["online"] = {{"searched", !offline}, {"errors", Json::array()}};
  for (auto& f : ev.failed) reply["online"]["errors"].push_back(f);
  if (llm && !ev.items.empty()) {
    WrittenAnswer w = write_from_evidence(env, *llm, message, ev,
                                          "Say what these records report on this family in this species.", lang);
    reply["citation_check"] = w.check;
    if (!w.text.empty()) {
      answer = searches_text(ev, offline, lang) + w.text;
      reply["model"] = llm->answered_by();
    }
  }
  bool model_tried = llm && !ev.items.empty();
  if (reply["model"] == "none")
    answer += model_tried ? BiText{"\n(The model's summary did not pass the citation check; these are the search "
                                  "results as found.)", "\n（模型的总结未通过引用检查；以上为检索结果的摘录。）"}.in(lang)
                          : BiText{"\nNo language model was used: these are the search results as found.", "\n未使用语言模型：以上为检索结果的摘录。"}.in(lang);
  reply["answer"] = answer;
  return reply;
}

}  // namespace bioagent
