// How a message is put, apart from what it is about: whether it asks, orders,
// requests, refuses, assents or only greets, and which acts it names (run,
// stop, continue, study, plan, summarise, look for publications), in Chinese
// and English. Read by a small grammar of the form — interrogative words,
// particles and marks, clause-initial verbs, modal requests ("can I", 我想,
// 帮我), negation scoped to its clause, A-not-A questions (能不能) — and a
// lexicon of verbs and particles, never of topics. The router decides from
// this form together with what the sources hold (route_sources.h).
#pragma once

#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "bioagent/status.h"

namespace bioagent {

// What a message asks to be done. kLibrary and kData name a source explicitly
// ("this paper", "my library", "the table", "这张表"); kCompute asks for a computation (sum, sort, 平均).
enum class Act { kRun, kStop, kResume, kStudy, kPlan, kSummarise, kLiterature, kLibrary, kData, kCompute };
const char* act_name(Act act);

struct MessageForm {
  bool question = false;      // interrogative: a mark, a wh-word, a particle, an auxiliary first, A-not-A
  bool order = false;         // an imperative clause, "please", 请/帮我/吧
  bool request = false;       // modal: I want to, can you, can I, is it possible, 我想, 能不能帮
  bool how_to = false;        // asks how the user should do something ("how should I", 怎么做, 如何分析)
  bool first_person = false;  // I, we, my, 我, 我们
  bool refusal = false;       // refuses to run: a negated run act, a bare no, a deferral
  bool deferred = false;      // later, not yet, 以后, 晚点
  bool assent = false;        // yes, ok, 好的, 可以
  bool phatic = false;        // greetings, thanks, farewells, laughter, fillers
  bool existence = false;     // asks whether it was done already (has anyone, 有人做过, already published)
  bool recency = false;       // asks for what is new (recent, latest, 最近)
  bool names_source = false;  // names a literature source (PubMed, bioRxiv, 知网): a search of it
  bool addressed = false;     // speaks to the assistant (you, 你, 您)
  // Names a file or folder of sequences or annotation (Sbic.pep.fasta, genes.gff3, /data/genomes/Osat):
  // the user's own data, what an analysis runs on.
  bool names_sequence_file = false;
  std::set<Act> acts;          // acts named without negation
  std::set<Act> negated_acts;  // acts named under a negation ("don't run", 别跑)
  // The words that carry the message's subject: lower-case ASCII words and CJK runs that are
  // neither lexicon words nor function words. Empty: the message carries no content.
  std::vector<std::string> content;
  std::vector<std::string> cues;  // what the reading rests on ("question:?", "act:run:kick off", ...)
  bool has(Act a) const { return acts.count(a) > 0; }
  Json to_json() const;
};

MessageForm read_form(std::string_view message);

// Lower-case ASCII words of a text (apostrophes dropped: "don't" -> "dont"), each at most 64 bytes.
std::vector<std::string> ascii_words(std::string_view text);

}  // namespace bioagent
