// Agent loop A: LLM function calling over a tool subset, with TaijiChat's
// two-phase protocol (seed 000) as an option.
#include <nlohmann/json.hpp>

#include "agents/agent_internal.h"
#include "bioagent/agent.h"
#include "bioagent/json_text.h"

namespace bioagent {
namespace {

const char* kSystem =
    "You are bioagent, a research assistant for biologists. Answer the user's question using the tools when they "
    "help: the local paper library, the literature search tools and the calculator. Tool results list their sources "
    "as [n]; cite them in your answer with those numbers. Say plainly when the tools found nothing. Do not invent "
    "references.";

const char* kTaijiChat =
    "\n\nProtocol: while you still need data, call tools (status AWAITING_DATA); each result comes back as "
    "{\"intermediate_data_for_llm\": ...}. When you are done, reply with only a JSON object "
    "{\"status\": \"CODE_COMPLETE\", \"explanation\": \"...\"} whose explanation is the answer for the user. "
    "Literature search results are leads: present their titles, authors and URLs as potential literature leads and "
    "do not claim to have read or summarised the papers unless you fetched their text with fetch_text_from_urls.";

// The final JSON of the TaijiChat protocol, if the text holds one.
std::optional<Json> protocol_reply(const std::string& text) {
  auto start = text.find('{'), end = text.rfind('}');
  if (start == std::string::npos || end == std::string::npos || end < start) return std::nullopt;
  Json j = parse_json_bounded(text.substr(start, end - start + 1));
  if (!j.is_object() || !j.contains("status")) return std::nullopt;
  return j;
}

}  // namespace

namespace {

// The citation check on a tool-backed answer: a sentence that cites no source
// of this run, or states a number or name its cited results do not hold, is
// marked (not removed: tool answers also hold computed values) and recorded.
void mark_unsupported(AgentResult& result, const std::map<int, std::string>& sources, AgentRun& run) {
  CitationCheck check = check_citations(result.answer, sources);
  run.event({{"type", "citation_check"}, {"result", check.to_json()}});
  if (check.removed == 0) return;
  std::string marked;
  for (auto& v : check.sentences)
    marked += v.sentence + (v.kept ? "" : " [unverified: " + v.problems.front() + "]") + "\n";
  result.answer = marked;
  result.note += (result.note.empty() ? "" : " ") + std::to_string(check.removed) +
                 " sentence(s) marked [unverified]: the cited sources do not support them.";
}

// The reply's tool calls (parallel calls: every one answered, in order; those over
// the budget answered "not run"), each result noted under its source numbers.
void answer_tool_calls(AgentRun& run, const ToolRegistry& registry, const std::vector<const ToolSpec*>& tools,
                       ToolContext& ctx, const ChatMessage& reply, Budget& budget, SourceBook& book,
                       const AgentOptions& options, std::map<int, std::string>& source_texts,
                       std::vector<ChatMessage>& messages) {
  for (auto& call : reply.tool_calls) {
    if (Status s = budget.check(); !s.is_ok()) {
      messages.push_back(ChatMessage::tool(call.id, "not run: " + s.message()));
      continue;
    }
    budget.add_tool_call();
    Json result_json;
    std::string content =
        run.call_tool(registry, tools, ctx, call.name, call.arguments, book, options.taijichat_protocol, &result_json);
    // What each numbered source's result said, for the citation check of the answer.
    if (!result_json.is_null())
      for (int n : book.number(result_json)) source_texts[n] += json_text(result_json, -1) + "\n";
    messages.push_back(ChatMessage::tool(call.id, content));
  }
}

}  // namespace

Result<AgentResult> run_function_loop(const std::string& question, const ToolRegistry& registry, ToolContext& ctx,
                                      LlmClient& llm, Budget& budget, const AgentOptions& options) {
  auto tools = agent_tool_subset(registry, options.tools, default_function_tools());
  if (!tools) return tools.status();
  Json specs = Json::array();
  for (auto* t : *tools) specs.push_back(registry.openai_function(*t));
  auto traj = Trajectory::open(options.trajectory_dir, "function");
  if (!traj) return traj.status();
  AgentRun run(*traj, options, "function", llm.model().name);
  SourceBook book;
  book.paper_title = paper_title_resolver(ctx);
  std::map<int, std::string> source_texts;

  std::vector<ChatMessage> messages = {
      ChatMessage::system(std::string(kSystem) + (options.taijichat_protocol ? kTaijiChat : "")),
      ChatMessage::user(question)};
  run.event({{"type", "start"}, {"question", question}, {"model", llm.model().name}, {"tools", tool_names(*tools)}});
  AgentResult result = run.result();
  bool answered = false;
  for (int turn = 1; turn <= options.max_turns && !answered; ++turn) {
    if (Status s = budget.check(); !s.is_ok()) {
      run.stop(result, StopReason::kBudget, s.message());
      break;
    }
    ChatRequest req;
    req.messages = messages;
    req.tools = specs;
    req.tool_choice = "auto";
    std::function<void(const StreamDelta&)> on_delta;
    if (options.stream && options.on_event)
      on_delta = [&](const StreamDelta& d) {
        if (!d.content.empty()) options.on_event({{"type", "delta"}, {"text", d.content}});
      };
    auto resp = run.model_turn(llm, req, budget, turn, on_delta);
    if (!resp) return resp.status();
    ChatMessage reply = resp->message;
    for (size_t i = 0; i < reply.tool_calls.size(); ++i)
      if (reply.tool_calls[i].id.empty())
        reply.tool_calls[i].id = "call_" + std::to_string(turn) + "_" + std::to_string(i);
    messages.push_back(reply);
    if (!reply.tool_calls.empty()) {
      answer_tool_calls(run, registry, *tools, ctx, reply, budget, book, options, source_texts, messages);
      continue;
    }
    std::string text = reply.text();
    if (options.taijichat_protocol) {
      auto j = protocol_reply(text);
      if (j && (*j)["status"] == "AWAITING_DATA") {
        messages.push_back(ChatMessage::user(
            "You replied AWAITING_DATA without calling a tool. Call the tools you need now, or finish with "
            "{\"status\": \"CODE_COMPLETE\", \"explanation\": ...}."));
        continue;
      }
      if (j && j->contains("explanation") && (*j)["explanation"].is_string()) text = (*j)["explanation"];
    }
    result.answer = text;
    result.answer_value = text;
    result.stop_reason = StopReason::kAnswer;
    answered = true;
  }
  if (result.stop_reason == StopReason::kNone)
    run.stop(result, StopReason::kMaxTurns,
             "no final answer within " + std::to_string(options.max_turns) + " model turns (max_turns)");
  if (answered && !source_texts.empty()) mark_unsupported(result, source_texts, run);
  result.sources = book.cited_in(result.answer);
  run.finish(result, budget);
  return result;
}

}  // namespace bioagent
