// The knowledge agent's evidence: numbered sources, local searches that
// record what ran and what failed, and the model-written answer that the
// citation checker vets before anyone sees it.
#include "assistant/knowledge_evidence.h"

#include <algorithm>

#include "bioagent/agent.h"
#include "bioagent/json_text.h"
#include "bioagent/llm.h"
#include "bioagent/registry.h"

namespace bioagent {

int EvidenceSet::add(EvidenceItem item) {
  for (size_t i = 0; i < items.size(); ++i)
    if (items[i].title == item.title && items[i].locator == item.locator) return int(i) + 1;
  items.push_back(std::move(item));
  return int(items.size());
}

Json EvidenceSet::sources_json(size_t limit) const {
  Json out = Json::array();
  for (size_t i = 0; i < items.size() && i < limit; ++i)
    out.push_back(
        {{"n", int(i) + 1}, {"title", items[i].title}, {"source", items[i].source}, {"locator", items[i].locator}});
  return out;
}

std::map<int, std::string> EvidenceSet::texts() const {
  std::map<int, std::string> m;
  for (size_t i = 0; i < items.size(); ++i) m[int(i) + 1] = items[i].title + "\n" + items[i].text;
  return m;
}

Json call_knowledge_tool(const AgentEnv& env, const std::string& name, const Json& args) {
  ToolContext ctx(env.workspace);
  ctx.set_options(env.tool_options);
  ctx.set_timeout(std::chrono::seconds(60));
  auto r = env.registry->call(name, args, ctx);
  return r ? *r : Json{{"error", r.status().message()}};
}

std::string family_evidence_text(const Json& f) {
  auto join = [](const Json& a) {
    std::string s;
    for (auto& x : a)
      if (x.is_string()) s += (s.empty() ? "" : "; ") + x.get<std::string>();
    return s;
  };
  std::string pfam;
  for (auto& d : f.value("pfam", Json::array())) pfam += d.value("name", "") + " (" + d.value("acc", "") + ") ";
  return f.value("name", "") + " = " + f.value("full_name", "") + " (" + f.value("chinese", "") + ")\n" +
         "domains: " + pfam + "\n" + "members: Arabidopsis thaliana (拟南芥) " + f["members"].value("Ath", "?") +
         "; Oryza sativa (rice, 水稻) " + f["members"].value("Osa", "?") + "\n" +
         "functions: " + join(f.value("functions", Json::array())) + "; " +
         join(f.value("functions_zh", Json::array())) + "\n" +
         "regulators: " + join(f.value("regulators", Json::array())) + "; " +
         join(f.value("regulators_zh", Json::array())) + "\n" + "reference: " + f.value("reference", "");
}

std::vector<std::string> entry_terms(const Json* entry, bool species) {
  std::vector<std::string> t;
  if (!entry) return t;
  auto add_all = [&](const char* key) {
    for (auto& e : entry->value(key, Json::array()))
      if (e.is_string()) t.push_back(e.get<std::string>());
  };
  if (species) {
    t.push_back(entry->value("latin", ""));
    add_all("english");
    add_all("chinese");
  } else {
    t.push_back(entry->value("name", ""));
    t.push_back(entry->value("full_name", ""));
    t.push_back(entry->value("chinese", ""));
    add_all("aliases");
  }
  t.erase(std::remove(t.begin(), t.end(), ""), t.end());
  return t;
}

bool names_any(const std::string& text, const std::vector<std::string>& terms) {
  for (auto& t : terms)
    if (text_mentions(text, t)) return true;
  return terms.empty();
}

std::string excerpt(const std::string& text, size_t max) {
  if (text.size() <= max) return text;
  size_t cut = text.rfind(' ', max);
  if (cut == std::string::npos || cut < max / 2) {
    cut = max;
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;  // not inside a UTF-8 letter
  }
  return text.substr(0, cut) + "…";
}

void add_local_hits(const AgentEnv& env, const std::vector<std::string>& queries,
                    const std::vector<std::vector<std::string>>& must, EvidenceSet& ev, size_t limit) {
  bool store_ok = true, library_ok = true;
  auto relevant = [&](const std::string& text) {
    for (auto& m : must)
      if (!names_any(text, m)) return false;
    return true;
  };
  for (auto& q : queries) {
    Json es = call_knowledge_tool(env, "search_evidence_store", {{"query", q}, {"limit", 10}});
    if (es.contains("error") && store_ok) {
      store_ok = false;
      ev.failed.push_back("evidence store: " + es["error"].get<std::string>());
    }
    for (auto& e : es.value("evidence", Json::array())) {
      const Json& c = e.value("citation", Json::object());
      std::string text = e.value("content", "");
      if (ev.items.size() >= limit || !relevant(text + " " + c.value("title", ""))) continue;
      std::string year =
          c.contains("year") && !c["year"].is_null()
              ? " (" + (c["year"].is_string() ? c["year"].get<std::string>() : json_text(c["year"])) + ")"
              : "";
      std::string loc;
      for (const char* k : {"url", "doi", "pmid"})
        if (loc.empty() && c.contains(k) && c[k].is_string()) loc = c[k].get<std::string>();
      ev.add({c.value("title", "") + year, "evidence store", loc, excerpt(text, 600)});
    }
    Json pr = call_knowledge_tool(env, "ClassicRetrieve", {{"query", q}, {"limit", 5}});
    if (pr.contains("error") && library_ok) {
      library_ok = false;
      ev.failed.push_back("paper library: " + pr["error"].get<std::string>());
    }
    for (auto& r : pr.value("results", Json::array())) {
      std::string text = r.value("text", "");
      if (ev.items.size() >= limit || !relevant(text)) continue;
      ev.add({"paper " + r.value("pdf_id", ""), "paper library", "page " + std::to_string(r.value("page_number", 0)),
              excerpt(text, 600)});
    }
  }
  if (store_ok) ev.searched.push_back("evidence store");
  if (library_ok) ev.searched.push_back("paper library");
}

namespace {

std::string joined(const std::vector<std::string>& v, const std::string& sep) {
  std::string out;
  for (auto& x : v) out += (out.empty() ? "" : sep) + x;
  return out;
}

// A search's name as the answer's language writes it.
std::string shown(const std::string& name, Lang lang) {
  if (lang != Lang::kZh) return name;
  if (name == "evidence store") return "本地证据库";
  if (name == "paper library") return "本地论文库";
  return name;
}

// A failure as the answer's language writes it: "pubmed: Couldn't resolve host" -> "pubmed（无法连接）".
std::string shown_failure(const std::string& failure, Lang lang) {
  if (lang != Lang::kZh) return failure;
  size_t colon = failure.find(':');
  std::string src = shown(failure.substr(0, colon), Lang::kZh), low = lower_ascii(failure);
  bool network = low.find("resolve") != std::string::npos || low.find("connect") != std::string::npos ||
                 low.find("timed out") != std::string::npos || low.find("timeout") != std::string::npos ||
                 low.find("offline") != std::string::npos;
  return src + (network ? "（无法连接）" : "（出错）");
}

}  // namespace

std::string searches_text(const EvidenceSet& ev, bool offline, Lang lang) {
  std::vector<std::string> searched, failed;
  for (auto& x : ev.searched) searched.push_back(shown(x, lang));
  for (auto& x : ev.failed) failed.push_back(shown_failure(x, lang));
  std::string out = BiText{"Searched: " + joined(searched, ", "), "已检索：" + joined(searched, "、")}.in(lang);
  if (offline)
    out += BiText{" (offline mode: no online database was searched)", "（离线模式：未检索在线数据库）"}.in(lang);
  out += BiText{".\n", "。\n"}.in(lang);
  if (!failed.empty())
    out += BiText{"Could not search: " + joined(failed, "; ") + "; only the sources above were used.\n",
                  "无法检索：" + joined(failed, "、") + "；只用了上面检索成功的来源。\n"}
               .in(lang);
  return out;
}

WrittenAnswer write_from_evidence(const AgentEnv& env, LlmClient& llm, const std::string& question,
                                  const EvidenceSet& ev, const std::string& task, Lang lang) {
  WrittenAnswer out;
  std::string context;
  for (size_t i = 0; i < ev.items.size(); ++i)
    context += "[" + std::to_string(i + 1) + "] " + ev.items[i].title + " (" + ev.items[i].source + ")\n" +
               ev.items[i].text + "\n\n";
  ChatRequest rq;
  rq.messages = {
      ChatMessage::system(
          "You answer a plant biologist's question from the numbered evidence below and nothing else. Mark every "
          "claim with the number of the evidence that states it, as [n]. Copy numbers, gene names and quoted words "
          "exactly as the evidence writes them. When the evidence does not answer part of the question (for example "
          "a species it does not cover), say that this is unknown instead of using another species' facts. " +
          task + BiText{" Answer in English.", " Answer in Chinese (names and terms may stay in English)."}.in(lang) +
          "\n\nEvidence:\n" + context),
      ChatMessage::user(question)};
  rq.temperature = 0.0;
  auto resp = llm.chat(rq);
  Trajectory traj = [&] {
    auto it = env.tool_options.find("trajectory_dir");
    auto t = Trajectory::open(it == env.tool_options.end() ? "" : it->second, "knowledge");
    return t ? std::move(*t) : *Trajectory::open("", "knowledge");
  }();
  traj.write({{"type", "question"}, {"text", question}, {"sources", ev.items.size()}});
  if (!resp) {
    out.error = resp.status().message();
    traj.write({{"type", "error"}, {"message", out.error}});
    return out;
  }
  std::string written = resp->message.text();
  CitationCheck check = check_citations(written, ev.texts());
  out.check = check.to_json();
  traj.write({{"type", "llm"}, {"model", llm.answered_by()}, {"text", written}});
  for (auto& s : check.sentences)
    if (!s.kept) traj.write({{"type", "citation_removed"}, {"sentence", s.sentence}, {"why", s.problems}});
  traj.write({{"type", "citation_check"}, {"checked", check.sentences.size()}, {"removed", check.removed}});
  out.text = check.text;
  return out;
}

}  // namespace bioagent
