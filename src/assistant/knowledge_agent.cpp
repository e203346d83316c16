// KnowledgeAgent: answers from the knowledge base, the local paper library,
// the evidence store and (when online) the literature tools, with citations;
// a literature check that finds nothing says so and calls it a possible gap.
#include "assistant/agents.h"
#include "bioagent/registry.h"

namespace bioagent {
namespace {

Json call_tool(const AgentEnv& env, const std::string& name, const Json& args) {
  ToolContext ctx(env.workspace);
  ctx.set_options(env.tool_options);
  ctx.set_timeout(std::chrono::seconds(60));
  auto r = env.registry->call(name, args, ctx);
  return r ? *r : Json{{"error", r.status().message()}};
}

std::string citation_title(const Json& c) {
  std::string t = c.value("title", "");
  if (c.contains("year") && !c["year"].is_null())
    t += " (" + (c["year"].is_string() ? c["year"].get<std::string>() : c["year"].dump()) + ")";
  return t;
}

std::string citation_locator(const Json& c) {
  for (const char* k : {"url", "doi", "pmid"})
    if (c.contains(k) && c[k].is_string() && !c[k].get<std::string>().empty()) return c[k].get<std::string>();
  return "";
}

// Every term that names the species or the family (for relevance checks).
std::vector<std::string> terms_of(const Json* entry, bool species) {
  std::vector<std::string> t;
  if (!entry) return t;
  if (species) {
    t.push_back(entry->value("latin", ""));
    for (auto& e : (*entry)["english"]) t.push_back(e.get<std::string>());
    for (auto& c : (*entry)["chinese"]) t.push_back(c.get<std::string>());
  } else {
    t.push_back(entry->value("name", ""));
    t.push_back(entry->value("full_name", ""));
    for (auto& a : (*entry)["aliases"]) t.push_back(a.get<std::string>());
  }
  return t;
}

bool mentions_any(const std::string& text, const std::vector<std::string>& terms) {
  std::string low = lower_ascii(text);
  for (auto& t : terms)
    if (!t.empty() && low.find(lower_ascii(t)) != std::string::npos) return true;
  return terms.empty();
}

// Local hits (evidence store and paper library) that mention every given term set.
std::vector<Json> local_hits(const AgentEnv& env, const std::vector<std::string>& queries,
                             const std::vector<std::vector<std::string>>& must, std::vector<std::string>* searched) {
  std::vector<Json> hits;
  std::set<std::string> seen;
  for (auto& q : queries) {
    Json ev = call_tool(env, "search_evidence_store", {{"query", q}, {"limit", 10}});
    for (auto& e : ev.value("evidence", Json::array())) {
      std::string text = e.value("content", "") + " " + e["citation"].value("title", "");
      bool ok = true;
      for (auto& m : must) ok = ok && mentions_any(text, m);
      std::string key = e["citation"].value("title", "");
      if (ok && seen.insert(key).second)
        hits.push_back({{"title", citation_title(e["citation"])},
                        {"locator", citation_locator(e["citation"])},
                        {"source", "evidence store"},
                        {"excerpt", e.value("content", "").substr(0, 300)}});
    }
    Json pr = call_tool(env, "ClassicRetrieve", {{"query", q}, {"limit", 5}});
    for (auto& r : pr.value("results", Json::array())) {
      std::string text = r.value("text", "");
      bool ok = true;
      for (auto& m : must) ok = ok && mentions_any(text, m);
      std::string key = r.value("pdf_id", "") + "#" + std::to_string(r.value("page_number", 0));
      if (ok && seen.insert(key).second)
        hits.push_back({{"title", "paper " + r.value("pdf_id", "")},
                        {"locator", "page " + std::to_string(r.value("page_number", 0))},
                        {"source", "paper library"},
                        {"excerpt", text.substr(0, 300)}});
    }
  }
  if (searched) *searched = {"evidence store", "paper library"};
  return hits;
}

}  // namespace

Json knowledge_answer(const AgentEnv& env, const Route& route, const std::string& message) {
  bool zh = route.language == "zh";
  const Json* fam = find_gene_family(route.family);
  Json sources = Json::array();
  std::string answer;
  if (!fam) {
    answer = zh ? "知识库中没有" +
                      (route.family.empty() ? std::string("这个问题对应的基因家族") : route.family + " 家族") +
                      "的条目。知识库收录 " + std::to_string(gene_family_kb()["families"].size()) +
                      " 个主要植物基因家族（例如 SPL、MYB、WRKY、NAC）。"
                : "The knowledge base has no entry for " +
                      (route.family.empty() ? std::string("the family this question is about") : route.family) +
                      ". It holds " + std::to_string(gene_family_kb()["families"].size()) +
                      " major plant gene families (for example SPL, MYB, WRKY, NAC).";
  } else {
    answer = family_summary(*fam, zh);
    sources.push_back({{"n", 1}, {"title", fam->value("reference", "")}, {"source", "bioagent knowledge base"}});
  }
  // Local literature that mentions the family adds sources.
  if (fam) {
    auto hits =
        local_hits(env, {fam->value("name", "") + " " + fam->value("full_name", "")}, {terms_of(fam, false)}, nullptr);
    if (!hits.empty()) {
      answer += zh ? "\n本地文献:\n" : "\nIn your local literature:\n";
      for (auto& h : hits) {
        if (sources.size() >= 6) break;
        int n = int(sources.size()) + 1;
        answer += "- " + h.value("excerpt", "").substr(0, 160) + " [" + std::to_string(n) + "]\n";
        sources.push_back({{"n", n}, {"title", h["title"]}, {"source", h["source"]}, {"locator", h["locator"]}});
      }
    }
  }
  return {{"agent", "knowledge"}, {"answer", answer}, {"sources", sources}, {"question", message}};
}

Json literature_check(const AgentEnv& env, const Route& route, const std::string& message) {
  bool zh = route.language == "zh";
  const Json* sp = find_species(route.species);
  const Json* fam = find_gene_family(route.family);
  std::string sp_latin = sp ? sp->value("latin", "") : route.species;
  std::string sp_zh = sp && !(*sp)["chinese"].empty() ? (*sp)["chinese"][0].get<std::string>() : sp_latin;
  std::string fam_name = fam ? fam->value("name", "") : route.family;
  std::string fam_full = fam ? fam->value("full_name", "") : route.family;
  // The seed's query combinations.
  std::vector<std::string> queries = {sp_latin + " " + fam_name, sp_zh + " " + fam_name + "基因家族",
                                      sp_latin + " " + fam_full};
  if (fam_name == "SPL") queries.push_back(sp_zh + " 开花调控 SPL");
  std::vector<std::vector<std::string>> must;
  if (sp) must.push_back(terms_of(sp, true));
  if (fam) must.push_back(terms_of(fam, false));
  std::vector<std::string> searched;
  auto hits = local_hits(env, queries, must, &searched);
  Json online = Json::object();
  bool offline = env.tool_options.count("offline") && env.tool_options.at("offline") == "1";
  if (!offline) {
    // Online: the literature tools, with the species and family both required in what counts.
    Json r = call_tool(env, "search_literature",
                       {{"query", sp_latin + " " + fam_name + " gene family"}, {"max_results_per_source", 10}});
    online = {{"sources_searched", r.value("sources_searched", Json::array())},
              {"errors", r.value("errors", Json::array())}};
    for (auto& e : r.value("evidence", Json::array())) {
      std::string text = e.value("content", "") + " " + e["citation"].value("title", "");
      bool ok = true;
      for (auto& m : must) ok = ok && mentions_any(text, m);
      if (ok)
        hits.push_back({{"title", citation_title(e["citation"])},
                        {"locator", citation_locator(e["citation"])},
                        {"source", e["citation"].value("source", "literature search")}});
    }
    for (auto& s : online["sources_searched"]) searched.push_back(s.get<std::string>());
  }
  Json sources = Json::array();
  std::string answer;
  std::string where =
      zh ? (offline ? "本地文献库（证据库与论文库；离线模式，未检索在线数据库）" : "本地文献库与在线数据库")
         : (offline ? "the local literature (evidence store and paper library; offline, so no online "
                      "database was searched)"
                    : "the local literature and the online databases");
  if (hits.empty()) {
    answer = zh ? "在" + where + "中没有找到" + sp_zh + fam_name + "基因家族的文献。目前未发现" + sp_zh + fam_name +
                      "基因家族的专门研究文献，这是一个潜在的研究空白。"
                : "Nothing found in " + where + " on the " + fam_name + " gene family of " + sp_latin +
                      ". No dedicated study of this family in this species was found: a possible research gap.";
    if (offline)
      answer += zh ? "（联网后可再检索 PubMed、Europe PMC 等数据库确认。）"
                   : " (Search again online — PubMed, Europe PMC and others — to confirm.)";
  } else {
    answer = zh ? "已发现 " + std::to_string(hits.size()) + " 篇相关文献:\n"
                : "Found " + std::to_string(hits.size()) + " related record(s):\n";
    for (auto& h : hits) {
      int n = int(sources.size()) + 1;
      answer += "- " + h.value("title", "") + " [" + std::to_string(n) + "]\n";
      sources.push_back({{"n", n}, {"title", h["title"]}, {"source", h["source"]}, {"locator", h["locator"]}});
    }
  }
  return {{"agent", "knowledge"},         {"answer", answer},     {"sources", sources},
          {"queries", queries},           {"searched", searched}, {"found", hits.size()},
          {"research_gap", hits.empty()}, {"online", online},     {"question", message}};
}

}  // namespace bioagent
