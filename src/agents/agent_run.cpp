// AgentRun and the tool-subset helpers (see agent_internal.h).
#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "agents/agent_internal.h"
#include "bioagent/json_text.h"
#include "bioagent/papers.h"

namespace bioagent {

const std::vector<std::string>& default_function_tools() {
  static const std::vector<std::string> kTools = {
      "ClassicRetrieve",         "RetrieveFromVectorstore", "RetrieveFromDatabase", "describe_paper_database",
      "list_vector_collections", "search_evidence_store",   "search_literature",    "multi_source_literature_search",
      "fetch_text_from_urls",    "calculate_expr"};
  return kTools;
}

const std::vector<std::string>& seed001_actions() {
  static const std::vector<std::string> kActions = {
      "RetrieveFromDatabase", "RetrieveFromVectorstore", "ClassicRetrieve", "CalculateExpr", "ViewImage",
      "GenerateAnswer"};
  return kActions;
}

Result<std::vector<const ToolSpec*>> agent_tool_subset(const ToolRegistry& registry,
                                                       const std::vector<std::string>& names,
                                                       const std::vector<std::string>& defaults) {
  std::vector<const ToolSpec*> out;
  for (auto& n : names.empty() ? defaults : names) {
    const ToolSpec* t = registry.find(n);
    if (!t) {
      if (names.empty()) continue;  // a default this build lacks
      return not_found("no tool named '" + n + "' (bioagent tools list shows them)");
    }
    out.push_back(t);
  }
  if (out.empty()) return invalid_argument("the agent has no tools to use");
  return out;
}

Json tool_names(const std::vector<const ToolSpec*>& tools) {
  Json out = Json::array();
  for (auto* t : tools) out.push_back(t->name);
  return out;
}

std::function<std::string(const std::string&)> paper_title_resolver(const ToolContext& ctx) {
  std::string db = ctx.option("papers_db");
  std::error_code ec;
  if (db.empty() || !std::filesystem::exists(db, ec)) return nullptr;
  return [db](const std::string& id) -> std::string {
    if (id.empty() || id.find_first_not_of("0123456789abcdef-") != std::string::npos) return "";
    auto r = retrieve_from_database(db, "SELECT title FROM metadata WHERE paper_id = '" + id + "'");
    if (!r || (*r)["rows"].empty() || !(*r)["rows"][0][0].is_string()) return "";
    return (*r)["rows"][0][0].get<std::string>();
  };
}

AgentRun::AgentRun(Trajectory& trajectory, const AgentOptions& options, std::string loop, std::string model)
    : trajectory_(trajectory), options_(options), loop_(std::move(loop)), model_(std::move(model)) {}

AgentResult AgentRun::result() const {
  AgentResult r;
  r.loop = loop_;
  r.model = model_;
  r.trajectory_path = trajectory_.path();
  return r;
}

void AgentRun::event(const Json& e) {
  trajectory_.write(e);
  if (options_.on_event) options_.on_event(e);
}

void AgentRun::llm_event(int turn, const ChatResponse& r) {
  Json calls = Json::array();
  for (auto& c : r.message.tool_calls) calls.push_back({{"id", c.id}, {"name", c.name}, {"arguments", c.arguments}});
  event({{"type", "llm"},
         {"turn", turn},
         {"content", r.message.content},
         {"tool_calls", calls},
         {"finish_reason", r.finish_reason},
         {"usage", {{"prompt_tokens", r.usage.prompt_tokens}, {"completion_tokens", r.usage.completion_tokens}}}});
}

Result<ChatResponse> AgentRun::model_turn(LlmClient& llm, const ChatRequest& req, Budget& budget, int turn,
                                          const std::function<void(const StreamDelta&)>& on_delta) {
  auto resp = llm.chat(req, on_delta);
  if (!resp) {
    event({{"type", "error"}, {"turn", turn}, {"error", resp.status().to_json()}});
    return resp.status();
  }
  budget.add_usage(llm.model(), resp->usage);
  llm_event(turn, *resp);
  return resp;
}

std::string AgentRun::call_tool(const ToolRegistry& registry, const std::vector<const ToolSpec*>& allowed,
                                ToolContext& ctx, const std::string& name, const std::string& arguments,
                                SourceBook& book, bool wrap_intermediate, Json* result_out) {
  auto t0 = std::chrono::steady_clock::now();
  event({{"type", "tool_call"}, {"name", name}, {"arguments", arguments}});
  auto done = [&](bool ok, const std::string& content, size_t full_chars, size_t sources) {
    event({{"type", "tool_result"},
           {"name", name},
           {"ok", ok},
           {"seconds", std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()},
           {"chars", full_chars},
           {"sources", sources},
           {"content", content}});
    return content;
  };
  if (std::none_of(allowed.begin(), allowed.end(), [&](const ToolSpec* t) { return t->name == name; }))
    return done(false,
                "error: there is no tool named '" + name + "' here; the tools are: " + json_text(tool_names(allowed)),
                0, 0);
  Json args =
      arguments.find_first_not_of(" \t\r\n") == std::string::npos ? Json::object() : parse_json_bounded(arguments);
  if (!args.is_object())
    return done(false,
                "error: the arguments of " + name + " are not a valid JSON object (" + arguments.substr(0, 200) +
                    "); call it again with a JSON object that matches its parameters",
                0, 0);
  auto r = registry.call(name, args, ctx);
  if (!r) {
    std::string msg = "error: " + r.status().to_string();
    if (!r.status().details().empty()) msg += " " + json_text(r.status().details());
    return done(false, msg, msg.size(), 0);
  }
  if (result_out) *result_out = *r;
  Json shown = wrap_intermediate ? Json{{"intermediate_data_for_llm", *r}} : *r;
  std::string text = json_text(shown, -1);
  size_t full = text.size();
  if (text.size() > options_.max_tool_result_chars) {
    size_t cut = options_.max_tool_result_chars;
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;  // keep UTF-8 whole
    text = text.substr(0, cut) + "\n[truncated: showing " + std::to_string(cut) + " of " + std::to_string(full) +
           " characters; narrow the query or lower the limit for more]";
  }
  size_t before = book.all().size();
  std::string lines = book.add_from(name, *r);
  if (!lines.empty()) text += "\n\nSources in this result (cite as [n]):\n" + lines;
  return done(true, text, full, book.all().size() - before);
}

void AgentRun::stop(AgentResult& r, StopReason reason, const std::string& message) {
  r.stop_reason = reason;
  if (r.answer.empty()) r.answer = "Stopped before a final answer: " + message;
  r.note = message;
  event({{"type", "stop"}, {"reason", to_string(reason)}, {"message", message}});
}

void AgentRun::finish(AgentResult& r, const Budget& budget) {
  r.budget = budget.summary();
  r.budget_line = budget.line();
  event({{"type", "answer"},
         {"answer", r.answer},
         {"answer_value", r.answer_value},
         {"stop_reason", to_string(r.stop_reason)},
         {"sources", r.to_json()["sources"]},
         {"usage", r.budget},
         {"usage_line", r.budget_line}});
}

}  // namespace bioagent
