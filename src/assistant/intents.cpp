// The intent table (see intents.h): names, meanings, what each rests on, and handlers.
#include "assistant/intents.h"

#include "bioagent/agent.h"
#include "bioagent/llm.h"
#include "bioagent/workspace.h"

namespace bioagent {
namespace {

std::string help_text(Lang lang) {
  return BiText{
      "I can summarise plant gene families (\"Summarise the SPL gene family\"), check whether a family has "
      "been studied in a species, draft an analysis plan (\"Can I study the SPL family of litchi?\") and run "
      "the whole gene-family analysis once you confirm (\"stop the analysis\" stops a run, \"continue the analysis\" "
      "resumes it). Questions on your own papers and on the data bundle go to the paper and data tools.",
      "我可以：总结植物基因家族的知识（如“总结下SPL基因家族”）；检索某物种某家族是否已有文献；"
      "生成分析方案（如“如果我想开展荔枝的SPL基因家族研究，可以吗？”）；并在确认后执行完整的基因家族分析"
      "（说“停止分析”可中止运行，说“继续分析”可恢复）。关于您自己的文献和数据包的问题会交给文献与数据工具回答。"}
      .in(lang);
}

// The tool agent for data and paper questions (and questions that name no family): the function
// loop with a model, else the offline agent. The reply carries the agent's result (loop, note,
// budget, trajectory) with the rendered answer.
Result<Json> tool_agent_turn(Turn& t) {
  const AssistantOptions& o = t.impl.o;
  // The tools read the data folders and this session's own files, no other session's.
  Workspace ws = o.workspace->for_session(t.impl.data_dirs(t.session).front());
  ToolContext ctx(&ws);
  ctx.set_options(o.tool_options);
  ctx.set_timeout(std::chrono::minutes(5));
  AgentOptions ao;
  ao.trajectory_dir = o.tool_options.count("trajectory_dir") ? o.tool_options.at("trajectory_dir") : "";
  ao.on_event = [&](const Json& e) {
    if (e.value("type", "") == "delta") t.emit({{"type", "delta"}, {"text", e.value("text", "")}});
  };
  Result<AgentResult> r = internal_error("no agent ran");
  if (t.llm) {
    Budget budget(BudgetLimits{});
    ao.stream = true;
    r = run_function_loop(t.message, *o.registry, ctx, *t.llm, budget, ao);
  } else {
    r = run_offline_agent(t.message, *o.registry, ctx, ao);
  }
  if (!r && t.llm && t.llm->is_host_model() && r.status().code() == ErrorCode::kUnsupported) {
    // The host's model cannot call tools (no sampling.tools): the offline agent answers.
    ao.stream = false;
    r = run_offline_agent(t.message, *o.registry, ctx, ao);
  }
  if (!r) return r.status();
  Json reply = r->to_json();
  if (t.llm && reply.value("model", "") == t.llm->model().name) reply["model"] = t.llm->answered_by();
  reply["agent"] = "tools";
  reply["answer"] = r->render();
  return reply;
}

Result<Json> knowledge_turn(Turn& t) {
  if (t.route.family.empty()) return tool_agent_turn(t);  // nothing the knowledge base can hold
  return knowledge_answer(t.impl.env, t.route, t.message, t.llm);
}

Result<Json> literature_turn(Turn& t) {
  if (t.route.family.empty()) return tool_agent_turn(t);
  return literature_check(t.impl.env, t.route, t.message, t.llm);
}

Result<Json> analysis_turn(Turn& t) {
  auto r = t.impl.turn_analysis(t.session, t.route, t.lang, t.llm);
  if (!r) return r.status();
  if (r->contains("plan_id")) t.emit({{"type", "plan"}, {"plan_id", (*r)["plan_id"]}, {"plan", (*r)["plan"]}});
  return r;
}

// An order refers to the session's latest plan; it runs only when that plan's files are there.
// Without a plan, a named species and family are planned first (re-routed to analysis).
Result<Json> execute_turn(Turn& t) {
  auto r = t.impl.turn_execute(t.session, t.route, t.lang, [&](const std::string& plan_id) {
    return t.impl.start_ordered(t.session, plan_id, t.client, t.lang);
  });
  if (r && r->is_null()) t.route.intent = Intent::kAnalysis;
  return r;
}

Result<Json> plan_question_turn(Turn& t) { return t.impl.turn_plan_question(t.session, t.lang); }
Result<Json> decline_turn(Turn& t) { return t.impl.turn_decline(t.lang); }

// Stops the session's task under way through the run service: cancelled, resumable, its finished stages kept.
Result<Json> stop_turn(Turn& t) {
  auto r = t.impl.turn_stop(t.session, t.lang);
  if (r && r->contains("task")) t.emit({{"type", "task"}, {"task", (*r)["task"]}});
  return r;
}

// Continues the session's stopped task in its run folder (finished stages reused).
Result<Json> resume_turn(Turn& t) {
  auto r = t.impl.turn_resume(t.session, t.lang);
  if (r && r->contains("task")) t.emit({{"type", "task"}, {"task", (*r)["task"]}});
  return r;
}
Result<Json> chitchat_turn(Turn& t) { return Json{{"agent", "router"}, {"answer", help_text(t.lang)}}; }

}  // namespace

const std::vector<IntentSpec>& intent_table() {
  static const std::vector<IntentSpec> table = {
      {Intent::kFaq, "faq", "knowledge about a gene family (summary, members, domains, functions, regulators)",
       "a question or request the knowledge base answers: a family named, or the entry alone holding its words",
       knowledge_turn},
      {Intent::kLiterature, "literature", "whether papers exist on a family in a species",
       "asks for publications, or whether someone already studied it; or the evidence store holds it", literature_turn},
      {Intent::kAnalysis, "analysis", "asks for a research plan",
       "an order, request or how-to to study, identify or characterise a family (in a species), in any wording",
       analysis_turn},
      {Intent::kExecute, "execute", "orders the analysis to run (an order, never a question)",
       "an order to run or an assent; the session's plan (never a question or a refusal)", execute_turn},
      {Intent::kPlanQuestion, "plan_question", "asks about the plan's files, stages or time",
       "a question about running or about the plan (its stages, files, time, resources)", plan_question_turn},
      {Intent::kDecline, "decline", "does not want to run it",
       "a refusal or deferral of running, or a stop with nothing under way", decline_turn},
      {Intent::kStop, "stop", "stop the analysis that is running",
       "an order to stop, or a refusal of running, while a task of the session is under way", stop_turn},
      {Intent::kResume, "resume", "continue a stopped analysis",
       "an order to continue while the session's latest task was stopped (cancelled or failed)", resume_turn},
      {Intent::kData, "data", "tables and numbers (the tool agent)",
       "the data bundle holds its datasets, columns or row names, or a table is named", tool_agent_turn},
      {Intent::kPaper, "paper", "the local PDF library (the tool agent)",
       "the user's paper library holds its words on one page, or the library is named", tool_agent_turn},
      {Intent::kChitchat, "chitchat", "greetings, thanks and what the assistant can do",
       "no content: greetings, thanks, farewells, fillers", chitchat_turn},
  };
  return table;
}

const IntentSpec& intent_spec(Intent intent) {
  for (auto& s : intent_table())
    if (s.intent == intent) return s;
  return intent_table().back();  // unreachable: the guard test checks every enum value has a row
}

std::string routing_prompt() {
  std::string names, meanings;
  for (auto& s : intent_table()) {
    names += std::string(names.empty() ? "" : ", ") + s.name;
    meanings += std::string("\n- ") + s.name + ": " + s.description + " (chosen when: " + s.rests_on + ")";
  }
  return "Classify the user's message for a plant gene-family assistant. Answer JSON {\"intent\": one of " + names +
         ", \"confidence\": 0..1}. The user message gives the message, how it reads (form: question, order, "
         "request, refusal, the acts it names) and what each source holds for it (scores 0..1 with the words that "
         "matched: the gene-family knowledge base, the user's paper library, the literature evidence store, the "
         "data bundle, the plan) and the session (a plan shown, a task running, a task stopped), and the rules' "
         "choice. Decide where the answer is; the rules' choice is a suggestion." +
         meanings;
}

}  // namespace bioagent
