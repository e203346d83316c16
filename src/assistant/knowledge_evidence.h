// The knowledge agent's evidence (src/assistant): numbered sources with the
// text the citation checker compares against, the searches that ran or
// failed, and the model-written answer checked against the sources.
#pragma once

#include "assistant/agents.h"
#include "bioagent/bitext.h"

namespace bioagent {

struct EvidenceItem {
  std::string title, source, locator;
  std::string text;  // what the source says (the checker's reference)
};

struct EvidenceSet {
  std::vector<EvidenceItem> items;            // item i is cited as [i + 1]
  std::vector<std::string> searched, failed;  // "paper library"; "pubmed: Couldn't resolve host name"
  int add(EvidenceItem item);                 // the item's number (an item already held keeps its number)
  Json sources_json(size_t limit) const;
  std::map<int, std::string> texts() const;
};

// Runs a tool; {"error": message} when it fails.
Json call_knowledge_tool(const AgentEnv& env, const std::string& name, const Json& args);
// The knowledge-base entry as one readable text (the checker's reference for [1]).
std::string family_evidence_text(const Json& family);
// Every term that names a species or family entry (Latin, English and Chinese names; symbol and aliases).
std::vector<std::string> entry_terms(const Json* entry, bool species);
// Whether `text` names one of `terms` (empty terms: yes).
bool names_any(const std::string& text, const std::vector<std::string>& terms);
// Local hits (evidence store and paper library) for `queries` that name every term set of `must`.
void add_local_hits(const AgentEnv& env, const std::vector<std::string>& queries,
                    const std::vector<std::vector<std::string>>& must, EvidenceSet& ev, size_t limit);
// An excerpt cut at a word boundary at most `max` bytes long.
std::string excerpt(const std::string& text, size_t max);

// What was searched and what could not be, in the answer's language (the first lines of a literature answer).
std::string searches_text(const EvidenceSet& ev, bool offline, Lang lang);

struct WrittenAnswer {
  std::string text;  // empty: the model failed or nothing survived the check
  Json check;        // the citation checker's verdicts
  std::string error;
};
// The model writes the answer from the evidence alone, each claim marked [n]; the checker then runs on it
// and the trajectory (tool option trajectory_dir) records every verdict.
WrittenAnswer write_from_evidence(const AgentEnv& env, LlmClient& llm, const std::string& question,
                                  const EvidenceSet& ev, const std::string& task, Lang lang);

}  // namespace bioagent
