// RouterAgent: the intent of a message from its form (message_form.h: asks,
// orders, requests, refuses, assents, only greets; the acts it names) and
// from what the sources hold for it (route_sources.h: the knowledge base, the
// paper library, the evidence store, the data bundle, the session's plan and
// tasks). Where the answer is decides, not a list of phrases: a question the
// user's papers answer goes to the paper agent whatever its wording; a request
// to study a family gets a plan in any wording; the help text answers only
// messages that carry no content. The session decides what an order means:
// stopping is possible only while a task runs, continuing only after one
// stopped. Questions and refusals are never orders to run (the form says so,
// whoever routes).
#include "assistant/route_rules.h"

#include <algorithm>
#include <optional>

#include "assistant/intents.h"
#include "bioagent/assistant.h"
#include "bioagent/json_text.h"
#include "papers/question_cues.h"
#include "text/chinese_script.h"

namespace bioagent {

std::string to_string(Intent intent) { return intent_spec(intent).name; }

Result<Intent> intent_from_string(std::string_view name) {
  for (auto& spec : intent_table())
    if (name == spec.name) return spec.intent;
  return not_found("no intent '" + std::string(name.substr(0, 40)) + "'");
}

Json Route::to_json() const {
  bool knowledge = intent == Intent::kFaq || intent == Intent::kLiterature;
  Json j = {{"intent", to_string(intent)},
            {"mode", knowledge ? "FAQ" : to_string(intent)},
            {"confidence", confidence},
            {"species", species},
            {"species_name", species_name},
            {"family", family},
            {"language", language},
            {"decided_by", decided_by},
            {"matched", matched},
            {"question", question},
            {"negated", negated}};
  if (!form.is_null()) j["form"] = form;
  if (!evidence.is_null()) j["evidence"] = evidence;
  return j;
}

namespace {

// Thresholds on the sources' scores (0..1), chosen on the development cases (docs/evaluation.md).
constexpr double kDataStrong = 0.55;     // two of: a dataset or row name, a column word, a table named
constexpr double kLibraryStrong = 0.45;  // about half the content words on one page, two at least
constexpr double kStoreStrong = 0.6;
constexpr double kDataName = 0.45;  // one dataset or row name of the bundle

struct Decision {
  Intent intent;
  double confidence;
  std::string why;
};

bool session_running(const RouteEvidence& e) { return !e.session.running_task.empty(); }

// A named family, a species, or "gene family" / "my genome": what a study can be about.
bool has_subject(const RouteEvidence& e) {
  return (e.kb.named && !e.kb.family_name.empty()) || !e.kb.species.empty() || e.kb.generic_family;
}

// The session first: stop a running task, continue a stopped one, refuse a run.
std::optional<Decision> session_step(const MessageForm& f, const RouteEvidence& e) {
  const bool asks_politely = f.request || f.order;
  if (session_running(e) && f.has(Act::kStop) && (!f.question || asks_politely))
    return Decision{Intent::kStop, 0.95, "a task runs; the message stops it"};
  if (session_running(e) && f.refusal && !f.question)
    return Decision{Intent::kStop, 0.9, "a task runs; the message refuses running"};
  if (!e.session.resumable_task.empty() && f.has(Act::kResume) && !f.question && !f.refusal)
    return Decision{Intent::kResume, 0.9, "a task was stopped; the message continues it"};
  // "the plan says Ka/Ks is not run - why?": a question about what does not run refuses nothing.
  if ((f.refusal && (!f.question || f.content.empty())) || (f.has(Act::kStop) && !f.question))
    return Decision{Intent::kDecline, 0.9, "the message refuses running (nothing runs to stop)"};
  // "这个先放一放吧": putting the plan on the table off.
  if (e.session.has_plan && f.deferred && !f.question && !f.has(Act::kStudy))
    return Decision{Intent::kDecline, 0.75, "puts the plan on the table off"};
  return std::nullopt;
}

// No source holds any word of the message: no family, species or knowledge entry, no data, paper or plan word.
bool no_source_holds_it(const RouteEvidence& e) {
  return !e.kb.named && !e.kb.family && e.kb.species.empty() && !e.kb.generic_family && e.data.score == 0 &&
         e.library.score < 0.3 && e.plan.score == 0 && e.evidence_store.score < kStoreStrong;
}

// Small talk with a word or two of its own ("thanks, that was helpful", "who built you?", "好的 明白了"): said
// to the assistant, or greeting, thanking or assenting, and nothing any source holds.
bool small_talk(const MessageForm& f, const RouteEvidence& e) {
  // A greeting with one word of its own ("hello again") is small talk whatever common word a source holds.
  const bool greeting =
      f.phatic && f.content.size() <= 1 && !e.kb.named && e.kb.species.empty() && e.data.beyond_kb < kDataName;
  if (f.content.size() > 2 || (!no_source_holds_it(e) && !greeting)) return false;
  const bool acts = f.has(Act::kRun) || f.has(Act::kStop) || f.has(Act::kResume) || f.has(Act::kStudy) ||
                    f.has(Act::kPlan) || f.has(Act::kLiterature) || f.has(Act::kLibrary) || f.has(Act::kData);
  return !acts && !f.refusal && (f.phatic || f.assent || f.addressed);
}

// A remark that asks nothing ("thanks, that number was exactly what I needed", "哇，这个计划好详细", "hello
// again, I added a few PDFs"): thanks, a greeting or an interjection in a statement that neither asks nor
// orders, about nothing new (no family or species other than the plan's).
bool remark(const MessageForm& f, const RouteEvidence& e) {
  const bool new_subject = (e.kb.named && e.kb.family_name != e.session.plan_family) || !e.kb.species.empty();
  const bool acts = f.has(Act::kRun) || f.has(Act::kStop) || f.has(Act::kResume) || f.has(Act::kStudy) ||
                    f.has(Act::kLiterature) || f.has(Act::kData) || f.has(Act::kCompute) || f.has(Act::kSummarise);
  return f.phatic && !f.question && !f.order && !f.request && !f.how_to && !f.refusal && !acts && !new_subject;
}

// Nothing but greetings, thanks, assent or an order with no subject.
std::optional<Decision> no_content_step(const MessageForm& f, const RouteEvidence& e) {
  if (remark(f, e)) return Decision{Intent::kChitchat, 0.7, "a remark that asks nothing"};
  // "可以可以，就按这个来", "yep. 8 cpus.": agreeing to the plan on the table, with nothing new to ask about.
  if (e.session.has_plan && f.assent && !f.question && !f.refusal && !f.phatic && !e.kb.named && e.kb.species.empty() &&
      e.library.beyond_kb < kLibraryStrong && e.data.beyond_kb < kDataName)
    return Decision{Intent::kExecute, 0.7, "assents to the plan on the table"};
  const bool sources = e.kb.named || !e.kb.species.empty() || e.data.score >= kDataStrong ||
                       e.library.score >= kLibraryStrong || f.has(Act::kLibrary) || f.has(Act::kData);
  if (small_talk(f, e) && !(f.assent && e.session.has_plan))
    return Decision{Intent::kChitchat, 0.75, "small talk: nothing any source holds"};
  if (!f.content.empty() || sources) return std::nullopt;
  // An assent agrees to the plan on the table, and "go on" continues to it; with none, they only acknowledge.
  const bool agrees = (f.assent && !f.phatic) || f.has(Act::kResume);
  if (!f.question && (f.has(Act::kRun) || (agrees && e.session.has_plan)))
    return Decision{Intent::kExecute, 0.85, "an assent or an order to run, nothing else"};
  // "还要多久？", "how far is it?": a bare question while a task runs asks about that task.
  if (f.question && session_running(e) && !f.phatic)
    return Decision{Intent::kPlanQuestion, 0.7, "asks about the task under way"};
  if (f.question && (f.has(Act::kRun) || f.has(Act::kStudy)))
    return Decision{Intent::kPlanQuestion, 0.8, "asks about running, nothing else"};
  // With a plan on the table a bare question ("多少个？", "why?") asks about it.
  if (f.question && e.session.has_plan && !f.phatic) return Decision{Intent::kPlanQuestion, 0.7, "asks about the plan"};
  return Decision{Intent::kChitchat, 0.9, "no content: greetings, thanks or small talk"};
}

// The message speaks of a genome, proteome or assembly (the user's data to search).
bool mentions_a_genome(const MessageForm& f) {
  for (auto& c : f.content)
    for (const char* w : {"genome", "genomes", "proteome", "assembly", "基因组", "蛋白组"})
      if (c == w || (has_cjk(c) && c.find(w) != std::string::npos)) return true;
  return false;
}

// Whether it was studied or published: publications asked for, or "has anyone / already" with a study.
std::optional<Decision> literature_step(const MessageForm& f, const RouteEvidence& e) {
  // "has anyone done X", "有人做过X吗": whether something was done is asked of the literature (with no plan or
  // task under way, whose progress "has it already …" may ask about).
  const bool idle = !e.session.has_plan && !session_running(e);
  const bool asks_existence =
      f.existence && (f.has(Act::kStudy) || f.has(Act::kLiterature) || (f.question && has_subject(e) && idle));
  // The user's own papers named beside a search service ("my library lacks it, search PubMed") still search.
  const bool asks_publications = f.has(Act::kLiterature) && (!f.has(Act::kLibrary) || f.names_source);
  if (!asks_existence && !asks_publications) return std::nullopt;
  // A search named outright (a source such as PubMed, or the newest publications) is a search whatever the
  // user's papers hold.
  const bool names_search = f.names_source || f.recency;
  // "Mdom.pep.fasta 已经传上去了", "没人系统做过 … 我手上有基因组，想做全基因组鉴定": files already given, or a study
  // of the user's own genome asked for, with what was done before only said in passing.
  const bool own_data = f.names_sequence_file || (mentions_a_genome(f) && (f.request || f.order) && f.has(Act::kStudy));
  if (!names_search && !f.has(Act::kLiterature) && own_data) return std::nullopt;
  // "帮我规划下分析 … 想发篇文章": a plan asked for, publishing its goal, not a search.
  if (!asks_existence && !names_search && f.has(Act::kPlan) && (f.request || f.order)) return std::nullopt;
  // A content question the user's papers answer ("which databases did the review search?") is theirs.
  if (!asks_existence && !names_search && e.library.beyond_kb >= kLibraryStrong && !e.kb.named) return std::nullopt;
  return Decision{Intent::kLiterature, has_subject(e) ? 0.9 : 0.75, "asks whether it was studied or published"};
}

// The family the plan on the table is about, named with the plan's own words ("which HMM for the globins?").
bool about_the_plans_family(const RouteEvidence& e) {
  return e.session.has_plan && e.kb.named && e.kb.family_name == e.session.plan_family &&
         (e.kb.species.empty() || e.kb.species == e.session.plan_species) && !e.plan.matched.empty();
}

// A request to study a family (in a species): a plan, however it is worded.
std::optional<Decision> analysis_step(const MessageForm& f, const RouteEvidence& e) {
  if (!has_subject(e)) return std::nullopt;
  const bool names_family = e.kb.named && !e.kb.family_name.empty();
  const bool study = f.has(Act::kStudy) || f.has(Act::kPlan);
  // Asked as the user's own undertaking: ordered ("please do"), requested, "how should I", "can I", or said
  // outright.
  const bool own = !f.question || f.request || f.order || f.how_to || f.first_person;
  // "how many NLR genes are in my rice assembly? files are in /data/genomes/Osat", "pull every bHLH out of
  // it and tell me how they cluster": the answer is in the user's own sequences, which only an analysis reads.
  if (names_family && f.names_sequence_file && !f.refusal && !f.has(Act::kLiterature) && !f.has(Act::kData) &&
      !about_the_plans_family(e))
    return Decision{Intent::kAnalysis, 0.7, "asks about a family in the user's own sequence files"};
  if (f.has(Act::kSummarise) && !f.has(Act::kStudy)) return std::nullopt;
  if (f.has(Act::kRun) && !f.question && names_family) {
    const bool same_plan = e.session.has_plan && e.session.plan_family == e.kb.family_name &&
                           (e.kb.species.empty() || e.kb.species == e.session.plan_species);
    return same_plan ? Decision{Intent::kExecute, 0.9, "orders the run of the plan it names"}
                     : Decision{Intent::kAnalysis, 0.9, "orders a run of a family with no plan for it yet"};
  }
  if (study && own) return Decision{Intent::kAnalysis, 0.9, "asks to study a family"};
  // "能不能帮我把高粱的NAC家族整理出来", "I have the pepper genome, can you find all NLR genes": a request about a
  // family in a species or in the user's genome, with no question word about it.
  // One species: a family compared across two ("比较拟南芥和水稻的NAC家族") is the knowledge base's question.
  // A file or folder of the user's sequences named: whatever species it is compared with, it is the genome.
  const bool in_a_genome =
      ((!e.kb.species.empty() || mentions_a_genome(f)) && e.kb.species_named < 2) || f.names_sequence_file;
  if ((f.request || f.order) && names_family && in_a_genome && !about_the_plans_family(e) && !f.has(Act::kLiterature) &&
      !f.has(Act::kSummarise) && !f.has(Act::kData) && e.data.beyond_kb < kDataStrong &&
      e.library.beyond_kb < kLibraryStrong)
    return Decision{Intent::kAnalysis, 0.75, "a request about a family in a species"};
  // A bare phrase naming a pipeline step on a family in a species ("GO enrichment of GRF members in
  // Brassica napus"): neither asked nor ordered, it can only be wanted.
  if (!f.question && !f.refusal && names_family && in_a_genome && (!e.kb.species.empty() || f.names_sequence_file) &&
      !e.plan.matched.empty() && !f.has(Act::kLiterature) && !f.has(Act::kData) && !about_the_plans_family(e))
    return Decision{Intent::kAnalysis, 0.6, "names a step of the analysis on a family in a species"};
  return std::nullopt;
}

// A figure or table named by its number (the paper library's own cue: "Table 3", "Fig. 2", "表3") or a caption.
bool names_a_paper_part(std::string_view message) {
  const std::string text(utf8_prefix(message, 4000));
  return asked_caption_label(text).has_value() || lower_ascii(text).find("caption") != std::string::npos ||
         text.find("图注") != std::string::npos || text.find("表注") != std::string::npos;
}

// Where the answer is: the data bundle, the user's papers, the knowledge base, the plan, the evidence store.
std::optional<Decision> sources_step(std::string_view message, const MessageForm& f, const RouteEvidence& e) {
  const bool named_family = e.kb.named && !e.kb.family_name.empty();
  if (f.has(Act::kLibrary)) return Decision{Intent::kPaper, 0.9, "names the user's papers"};
  // The bundle holds the family's name as a row (MYB the transcription factor) and another of its names beside it.
  const bool data_beside_family = e.data.score >= kDataStrong && e.data.beyond_kb >= kDataName;
  if ((e.data.beyond_kb >= kDataStrong || data_beside_family) && e.data.beyond_kb >= e.library.beyond_kb)
    return Decision{Intent::kData, std::min(0.98, 0.6 + e.data.beyond_kb / 2), "the data bundle holds it"};
  // "the caption under table 3", "图2说明了什么": a numbered table or figure, or a caption, is a paper's part.
  if (e.library.available && names_a_paper_part(message))
    return Decision{Intent::kPaper, 0.75, "names a numbered table, figure or caption of a paper"};
  if (f.has(Act::kData) && e.library.beyond_kb < kLibraryStrong) return Decision{Intent::kData, 0.8, "names a table"};
  // One name the bundle's tables hold as written (TEXprog, BATF), and no other source holding anything.
  if (e.data.beyond_kb >= kDataName && e.library.beyond_kb < 0.3 && !e.kb.family &&
      (!e.session.has_plan || e.plan.matched.empty()))
    return Decision{Intent::kData, 0.7, "a name the data bundle holds"};
  // "不用查我的文献", "don't look in my papers": the papers are not where the user wants the answer from.
  const bool papers_refused = f.negated_acts.count(Act::kLibrary) || f.negated_acts.count(Act::kLiterature);
  if (e.library.beyond_kb >= kLibraryStrong && !papers_refused)
    return Decision{Intent::kPaper, std::min(0.98, 0.5 + e.library.beyond_kb / 2), "the user's papers hold it"};
  const bool asks = f.question || f.request || f.how_to;
  if (asks && about_the_plans_family(e)) return Decision{Intent::kPlanQuestion, 0.75, "asks about the plan's family"};
  if (named_family) return Decision{Intent::kFaq, 0.9, "the knowledge base holds the family"};
  if (e.session.has_plan && asks) return Decision{Intent::kPlanQuestion, 0.75, "asks about the plan on the table"};
  if (e.kb.family) return Decision{Intent::kFaq, 0.7, "the knowledge base's entry holds it"};
  if (e.evidence_store.score >= kStoreStrong) return Decision{Intent::kLiterature, 0.7, "the evidence store holds it"};
  if (f.has(Act::kCompute) && e.data.score > 0) return Decision{Intent::kData, 0.7, "a computation on the data"};
  return std::nullopt;
}

// Orders and questions about running with no subject of their own.
std::optional<Decision> order_step(const MessageForm& f, const RouteEvidence& e) {
  if (f.has(Act::kRun) && !f.question) return Decision{Intent::kExecute, 0.85, "orders the run"};
  if (f.has(Act::kResume) && !f.question && e.session.has_plan)
    return Decision{Intent::kExecute, 0.75, "orders the plan to go on"};
  const bool asks = f.question || f.request || f.how_to;
  const bool names_act = f.has(Act::kRun) || f.has(Act::kStudy) || f.has(Act::kPlan);
  // With no plan and no task yet, asking to run something about a subject (a species, "my genome") asks
  // for a plan.
  const bool plan_or_task = e.session.has_plan || session_running(e) || !e.session.resumable_task.empty();
  if (asks && names_act && !plan_or_task && has_subject(e) && !f.has(Act::kData))
    return Decision{Intent::kAnalysis, 0.6, "asks to run a study of its subject; no plan yet"};
  if (asks && names_act) return Decision{Intent::kPlanQuestion, 0.7, "asks about running the analysis"};
  // Only words shared with the plan's vocabulary: a guess the model overrules when one is configured.
  // With no plan yet, the message must be mostly the plan's words ("which files should I prepare?").
  if (asks && e.plan.score >= (plan_or_task ? 0.35 : 0.6))
    return Decision{Intent::kPlanQuestion, 0.6, "shares words with the plan"};
  return std::nullopt;
}

}  // namespace

Route decide_route(std::string_view message, const MessageForm& f, const RouteEvidence& e) {
  Route r;
  r.language = has_cjk(message) ? "zh" : "en";
  r.question = f.question;
  r.negated = f.refusal;
  r.species = e.kb.species;
  r.species_name = e.kb.species_name;
  r.family = e.kb.family_name;
  std::optional<Decision> d = session_step(f, e);
  for (auto step : {no_content_step, literature_step, analysis_step})
    if (!d) d = step(f, e);
  if (!d) d = sources_step(message, f, e);
  if (!d) d = order_step(f, e);
  if (!d) d = Decision{Intent::kFaq, 0.5, "content no source holds: the tool agent looks"};
  r.intent = d->intent;
  r.confidence = d->confidence;
  r.matched = f.cues;
  r.matched.push_back("because: " + d->why);
  // A family only inferred from its entry's words names nothing outside a knowledge question; a family
  // name the data bundle holds as a row (MYB the transcription factor) is no family in a data question.
  const bool inferred = !e.kb.named;
  if (inferred && r.intent != Intent::kFaq) r.family.clear();
  if (r.intent == Intent::kData &&
      std::find(e.data.matched.begin(), e.data.matched.end(), e.kb.family_term) != e.data.matched.end())
    r.family.clear();
  r.form = f.to_json();
  r.evidence = e.to_json();
  return r;
}

std::string inadmissible(Intent intent, const MessageForm& f, const RouteEvidence& e) {
  if (intent == Intent::kExecute && (f.question || f.refusal))
    return f.refusal ? "the message refuses running" : "a question is never an order to run";
  if (intent == Intent::kStop && !session_running(e)) return "no task is under way";
  if (intent == Intent::kResume && e.session.resumable_task.empty()) return "no stopped task to continue";
  return "";
}

Route route_by_rules(std::string_view written) {
  const std::string message = to_simplified(written);
  MessageForm f = read_form(message);
  RouteEvidence e;
  e.kb = match_knowledge_base(message, f);
  e.plan = match_plan(Json(), message, f);
  return decide_route(message, f, e);
}

}  // namespace bioagent
