// The route of one message in its session: every source that could answer it
// is asked (route_sources.h), the rules decide (router.cpp), and with a model
// configured the model routes from the same evidence, its prompt carrying the
// sources' scores. The rules are then the fallback (no answer, an unknown
// intent) and never a veto: only what the message's form or the session rules
// out is not taken (a question or refusal as an order to run, stopping with
// nothing running, continuing with nothing stopped).
#include <chrono>

#include "assistant/assistant_impl.h"
#include "assistant/intents.h"
#include "assistant/route_rules.h"
#include "bioagent/json_text.h"
#include "bioagent/llm.h"
#include "text/chinese_script.h"

namespace bioagent {
namespace {

using Clock = std::chrono::steady_clock;

std::string option(const AssistantOptions& o, const char* key) {
  auto it = o.tool_options.find(key);
  return it == o.tool_options.end() ? "" : it->second;
}

// The session's plan and tasks as the router sees them; `plan` receives the latest plan.
SessionMatch session_match(AppStore& store, RunService& runs, const std::string& sid, Json& plan) {
  SessionMatch s;
  auto row = store.query(
      "SELECT species, family, plan FROM plans WHERE session = ? ORDER BY at DESC, rowid DESC LIMIT 1", {sid});
  if (row && !row->empty()) {
    s.has_plan = true;
    s.plan_family = (*row)[0].value("family", "");
    s.plan_species = (*row)[0].value("species", "");
    Json stored = Json::parse((*row)[0].value("plan", "{}"), nullptr, false);
    if (stored.is_object() && stored.contains("plan")) plan = stored["plan"];
  }
  s.running_task = runs.running_task(sid);
  auto tasks = runs.tasks(sid);
  if (tasks && !tasks->empty()) {
    const std::string state = tasks->back().value("state", "");
    if (state == to_string(TaskState::kCancelled) || state == to_string(TaskState::kFailed))
      s.resumable_task = tasks->back().value("task_id", "");
  }
  return s;
}

// The sources' evidence, compact, for the model's prompt.
Json evidence_for_model(const RouteEvidence& e) {
  auto source = [](const SourceMatch& s) {
    return Json{{"available", s.available},
                {"score", s.score},
                {"score_beyond_family_and_species", s.beyond_kb},
                {"matched", s.matched},
                {"best", s.best}};
  };
  return {{"gene_family_knowledge_base", e.kb.to_json()},
          {"paper_library", source(e.library)},
          {"literature_evidence_store", source(e.evidence_store)},
          {"data_bundle", source(e.data)},
          {"plan_vocabulary", source(e.plan)},
          {"session", e.session.to_json()}};
}

Route ask_model(LlmClient& llm, const std::string& message, const MessageForm& f, const RouteEvidence& e, Route r) {
  Json form = f.to_json();
  form.erase("cues");
  Json user = {{"message", message},
               {"form", form},
               {"sources", evidence_for_model(e)},
               {"rules_choice", {{"intent", to_string(r.intent)}, {"confidence", r.confidence}}}};
  ChatRequest rq;
  rq.messages = {ChatMessage::system(routing_prompt()), ChatMessage::user(json_text(user))};
  rq.json_mode = true;
  auto resp = llm.chat(rq);
  if (!resp) {
    r.matched.push_back("model unavailable: " + std::string(utf8_prefix(resp.status().message(), 120)));
    return r;
  }
  Json j = parse_json_bounded(resp->message.text());
  auto intent = j.is_object() && j.contains("intent") && j["intent"].is_string()
                    ? intent_from_string(j["intent"].get<std::string>())
                    : Result<Intent>(parse_error("no intent"));
  if (!intent) {
    r.matched.push_back("model answered no known intent: the rules' choice stands");
    return r;
  }
  if (std::string why = inadmissible(*intent, f, e); !why.empty()) {
    r.matched.push_back("model chose " + to_string(*intent) + ", which cannot be: " + why);
    return r;
  }
  if (*intent != r.intent && !e.kb.named &&
      (*intent == Intent::kFaq || *intent == Intent::kLiterature || *intent == Intent::kAnalysis))
    r.family = e.kb.family_name;  // the knowledge base's inferred family, which the rules kept for faq only
  r.intent = *intent;
  r.confidence = j.contains("confidence") && j["confidence"].is_number() ? j["confidence"].get<double>() : 0.7;
  r.decided_by = llm.answered_by();
  return r;
}

}  // namespace

Route Assistant::Impl::route_message(const std::string& sid, const std::string& written, LlmClient* llm) {
  const auto t0 = Clock::now();
  const std::string message = to_simplified(written);  // one reading of both Chinese scripts
  MessageForm f = read_form(message);
  RouteEvidence e;
  Json plan;
  e.session = session_match(*store, *runs, sid, plan);
  e.kb = match_knowledge_base(message, f, e.session.plan_family);
  e.plan = match_plan(plan, message, f);
  e.library = match_library(option(o, "papers_db"), message, f, e.kb);
  e.evidence_store = match_evidence_store(option(o, "cache_dir"), message, f, e.kb);
  e.data = match_data_bundle(option(o, "bundle_dir"), message, f, e.kb);
  e.ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  Route r = decide_route(message, f, e);
  if (llm) r = ask_model(*llm, written, f, e, r);
  return r;
}

Result<Route> Assistant::route(const std::string& sid, const std::string& message, const ChatOptions& co) {
  BIOAGENT_RETURN_IF_ERROR(impl_->require_session(sid));
  if (message.empty()) return invalid_argument("message is empty");
  if (message.size() > 20000) return invalid_argument("message is longer than 20000 bytes");
  LlmClient* llm = co.model == "none" ? nullptr : impl_->llm.get();
  return impl_->route_message(sid, message, llm);
}

}  // namespace bioagent
