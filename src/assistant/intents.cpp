// The intent table (see intents.h): names, meanings, cues and handlers.
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
      "the whole gene-family analysis once you confirm.",
      "我可以：总结植物基因家族的知识（如“总结下SPL基因家族”）；检索某物种某家族是否已有文献；"
      "生成分析方案（如“如果我想开展荔枝的SPL基因家族研究，可以吗？”）；并在确认后执行完整的基因家族分析。"}
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
Result<Json> chitchat_turn(Turn& t) { return Json{{"agent", "router"}, {"answer", help_text(t.lang)}}; }

}  // namespace

const std::vector<IntentSpec>& intent_table() {
  static const std::vector<IntentSpec> table = {
      {Intent::kFaq,
       "faq",
       "knowledge about a gene family (summary, members, domains, functions, regulators)",
       {{"总结", 0.8},
        {"介绍", 0.7},
        {"什么是", 0.8},
        {"是什么", 0.7},
        {"功能", 0.4},
        {"summar", 0.8},
        {"what is", 0.7},
        {"what are", 0.6},
        {"tell me about", 0.7},
        {"overview", 0.7},
        {"explain", 0.6},
        {"how many", 0.5},
        {"多少个", 0.5}},
       knowledge_turn},
      {Intent::kLiterature,
       "literature",
       "whether papers exist on a family in a species",
       {{"文章", 0.7},
        {"文献", 0.7},
        {"发表", 0.6},
        {"论文", 0.5},
        {"研究现状", 0.6},
        {"published", 0.7},
        {"publication", 0.7},
        {"literature", 0.7},
        {"articles", 0.6},
        {"papers on", 0.6},
        {"any paper", 0.6}},
       literature_turn},
      {Intent::kAnalysis,
       "analysis",
       "asks for a research plan",
       {{"如果我想", 0.6},
        {"开展", 0.5},
        {"可以吗", 0.4},
        {"方案", 0.6},
        {"可行", 0.6},
        {"规划", 0.5},
        {"怎么分析", 0.7},
        {"如何分析", 0.7},
        {"plan", 0.7},
        {"feasib", 0.7},
        {"i want to study", 0.7},
        {"i want to", 0.4},
        {"can i ", 0.3},
        {"how should i analy", 0.7},
        {"carry out", 0.4},
        {"research on", 0.3}},
       analysis_turn},
      {Intent::kExecute,
       "execute",
       "orders the analysis to run (an order, never a question)",
       {{"执行分析", 1.0},
        {"开始分析", 1.0},
        {"执行", 0.8},
        {"开始运行", 0.9},
        {"立即执行", 1.0},
        {"run the analysis", 1.0},
        {"execute", 0.9},
        {"start the analysis", 1.0},
        {"go ahead", 0.7},
        {"run the pipeline", 1.0}},
       execute_turn},
      {Intent::kPlanQuestion,
       "plan_question",
       "asks about the plan's files, stages or time",
       {{"需要准备", 0.9},
        {"准备哪些", 0.9},
        {"哪些文件", 0.9},
        {"什么文件", 0.9},
        {"需要哪些", 0.7},
        {"多长时间", 0.7},
        {"多久", 0.7},
        {"what files", 0.9},
        {"which files", 0.9},
        {"what do i need", 0.8},
        {"need to prepare", 0.9},
        {"how long", 0.7}},
       plan_question_turn},
      // Refusals are read by the router's negation rule (weight 0), which also stops an order.
      {Intent::kDecline,
       "decline",
       "does not want to run it",
       {{"不想", 0},   {"不要", 0},    {"不用", 0},   {"别执行", 0},     {"别运行", 0},  {"暂不", 0},      {"先不", 0},
        {"不执行", 0}, {"不运行", 0},  {"不需要", 0}, {"取消", 0},       {"算了", 0},    {"don't", 0},     {"dont ", 0},
        {"do not", 0}, {"not now", 0}, {"cancel", 0}, {"never mind", 0}, {"not yet", 0}, {"rather not", 0}},
       decline_turn},
      {Intent::kData,
       "data",
       "tables and numbers (the tool agent)",
       {{"table", 0.5},
        {"dataset", 0.6},
        {"excel", 0.8},
        {"csv", 0.7},
        {"column", 0.6},
        {"表格", 0.7},
        {"数据集", 0.6},
        {"calculate", 0.5},
        {"计算", 0.5}},
       tool_agent_turn},
      {Intent::kPaper,
       "paper",
       "the local PDF library (the tool agent)",
       {{"my library", 0.9}, {"this paper", 0.8}, {"the paper", 0.5}, {"文库", 0.6}, {"这篇", 0.7}, {"pdf", 0.6}},
       tool_agent_turn},
      {Intent::kChitchat,
       "chitchat",
       "greetings, thanks and what the assistant can do",
       {{"hello", 0.5},
        {"你好", 0.5},
        {"thank", 0.5},
        {"谢谢", 0.5},
        {"good morning", 0.5},
        {"what can you do", 0.6},
        {"你能做什么", 0.6}},
       chitchat_turn},
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
    meanings += std::string(" ") + s.name + ": " + s.description + ";";
  }
  return "Classify the user's message for a plant gene-family assistant. Answer JSON {\"intent\": one of " + names +
         ", \"confidence\": 0..1}." + meanings;
}

}  // namespace bioagent
