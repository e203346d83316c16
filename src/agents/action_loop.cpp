// Agent loop B: seed 001's action loop. The prompt describes the six actions
// from their registry specs (description, parameters, use cases), the paper
// database schema and the vector collections; each turn the model writes one
// action, we run it and answer with an observation; GenerateAnswer ends it.
#include <deque>
#include <nlohmann/json.hpp>

#include "agents/agent_internal.h"
#include "bioagent/agent.h"
#include "bioagent/json_text.h"

namespace bioagent {
namespace {

std::string describe_action(const ToolRegistry& registry, const ToolSpec& t) {
  std::string out = "## " + t.name + "\n" + t.description + "\n";
  const Json& props = t.parameters.value("properties", Json::object());
  Json required = t.parameters.value("required", Json::array());
  if (!props.empty()) out += "Parameters:\n";
  for (auto& [name, p] : props.items()) {
    bool req = std::find(required.begin(), required.end(), Json(name)) != required.end();
    out += "- " + name + " (" + (p.contains("type") ? json_text(p["type"]) : std::string("any")) + ", " +
           (req ? "required" : "optional, default " + json_text(p.value("default", Json()))) +
           "): " + p.value("description", "") + "\n";
  }
  Json cases = t.settings.value("use_cases", Json::array());
  if (!cases.empty()) out += "Use cases:\n";
  for (auto& c : cases)
    out += "- " + json_text(Json{{"action_type", t.name}, {"parameters", c.value("example", Json::object())}}) +
           "\n  " + c.value("explanation", "") + "\n";
  return out;
}

std::string observation(const std::string& action, const Json& r, size_t max_chars) {
  std::string out;
  if (action == "RetrieveFromDatabase" && r.contains("columns")) {
    out += "| ";
    for (auto& c : r["columns"]) out += c.get<std::string>() + " | ";
    out += "\n|";
    for (size_t i = 0; i < r["columns"].size(); ++i) out += " --- |";
    out += "\n";
    for (auto& row : r["rows"]) {
      out += "| ";
      for (auto& v : row) out += (v.is_string() ? v.get<std::string>() : json_text(v)) + " | ";
      out += "\n";
    }
    if (r.value("truncated", false)) out += r.value("note", "(truncated)") + "\n";
    if (r["rows"].empty()) out += "(no rows)\n";
  } else if (r.contains("results") && r["results"].is_array()) {
    int i = 0;
    for (auto& h : r["results"])
      out += "[" + std::to_string(++i) + "] " +
             json_text(Json{{"pdf_id", h.value("pdf_id", "")},
                            {"page_number", h.value("page_number", -1)},
                            {"table_name", h.value("table_name", "")},
                            {"column_name", h.value("column_name", "")},
                            {"primary_key", h.value("primary_key", "")},
                            {"score", h.value("score", 0.0)}}) +
             "\n" + h.value("text", "") + "\n";
    if (r["results"].empty()) out += "(no entries) " + r.value("message", "") + "\n";
  } else {
    out = json_text(r, -1);
  }
  if (out.size() > max_chars) out = out.substr(0, max_chars) + "\n... (observation truncated)";
  return out;
}

// The answer in the asked format, or why it is not.
Result<Json> check_format(const Json& answer, const std::string& format) {
  std::string f;
  for (char c : format) f += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (f.empty()) return answer;
  auto as_number = [&](bool integer) -> Result<Json> {
    if (integer ? answer.is_number_integer() : answer.is_number()) return answer;
    if (answer.is_string()) {
      try {
        size_t used = 0;
        std::string s = answer;
        if (integer) {
          long long v = std::stoll(s, &used);
          if (used == s.size()) return Json(v);
        } else {
          double v = std::stod(s, &used);
          if (used == s.size()) return Json(v);
        }
      } catch (...) {
      }
    }
    if (integer && answer.is_number_float() && answer.get<double>() == std::floor(answer.get<double>()))
      return Json(static_cast<long long>(answer.get<double>()));
    return invalid_argument("the answer must be " + std::string(integer ? "an integer" : "a number") + ", got " +
                            json_text(answer));
  };
  if (f == "int" || f == "integer") return as_number(true);
  if (f == "float" || f == "number") return as_number(false);
  if (f == "bool" || f == "boolean") {
    if (answer.is_boolean()) return answer;
    if (answer == "true" || answer == "True") return Json(true);
    if (answer == "false" || answer == "False") return Json(false);
    return invalid_argument("the answer must be true or false, got " + json_text(answer));
  }
  if (f == "str" || f == "string") return answer.is_string() ? answer : Json(json_text(answer));
  if (f.rfind("list", 0) == 0 || f == "array") {
    if (answer.is_array()) return answer;
    return invalid_argument("the answer must be a list (JSON array), got " + json_text(answer));
  }
  return answer;
}

// The system prompt: how to answer in actions, each action described, the paper
// database and vector collections as they are now.
std::string action_prompt(const ToolRegistry& registry, const std::vector<const ToolSpec*>& actions, ToolContext& ctx) {
  std::string prompt =
      "You are an agent that answers questions about research papers stored in a DuckDB database and a vector "
      "store. Work in turns: in each turn output exactly one action as a JSON object {\"action_type\": "
      "\"<action>\", \"parameters\": {...}}; we run it and reply with its observation. When the observations "
      "suffice, use GenerateAnswer.\n\n# Actions\n";
  for (auto* a : actions) prompt += describe_action(registry, *a) + "\n";
  for (const char* info : {"describe_paper_database", "list_vector_collections"})
    if (registry.find(info))
      if (auto r = registry.call(info, Json::object(), ctx))
        prompt += "# " + std::string(info) + "\n" + json_text(*r, -1) + "\n\n";
  return prompt;
}

// One action run as a tool and its observation for the model: an error, a page
// image (attached when the model has vision), or the result with its sources.
ChatMessage run_action(AgentRun& run, const ToolRegistry& registry, const std::vector<const ToolSpec*>& actions,
                       ToolContext& ctx, const LlmClient& llm, const std::string& name, const Json& parameters,
                       SourceBook& book, const AgentOptions& options) {
  Json raw;
  std::string content = run.call_tool(registry, actions, ctx, name, json_text(parameters), book, false, &raw);
  if (content.rfind("error:", 0) == 0) return ChatMessage::user("[Error]: " + content.substr(7));
  if (name == "ViewImage" && raw.contains("image_base64")) {
    std::string text = "[Observation]: the image of page " + json_text(raw["page_number"]) + " (" +
                       json_text(raw["width"]) + "x" + json_text(raw["height"]) + " px)";
    return llm.model().vision ? ChatMessage::user_with_image(text + " is attached.", raw["image_base64"])
                              : ChatMessage::user(text +
                                                  " was rendered, but the configured model cannot view "
                                                  "images (vision is off); use the text actions instead.");
  }
  std::string cite = content.find("Sources in this result") != std::string::npos
                         ? content.substr(content.find("\n\nSources in this result"))
                         : "";
  return ChatMessage::user("[Observation]:\n" + observation(name, raw, options.max_tool_result_chars) + cite);
}

}  // namespace

Result<AgentResult> run_action_loop(const std::string& question, const ToolRegistry& registry, ToolContext& ctx,
                                    LlmClient& llm, Budget& budget, const AgentOptions& options) {
  auto actions = agent_tool_subset(registry, options.tools, seed001_actions());
  if (!actions) return actions.status();
  std::vector<std::string> names;
  for (auto* a : *actions) names.push_back(a->name);
  if (std::find(names.begin(), names.end(), "GenerateAnswer") == names.end())
    return invalid_argument("the action loop needs GenerateAnswer among its actions");
  auto traj = Trajectory::open(options.trajectory_dir, "actions");
  if (!traj) return traj.status();
  AgentRun run(*traj, options, "actions", llm.model().name);
  SourceBook book;
  book.paper_title = paper_title_resolver(ctx);

  const std::string prompt = action_prompt(registry, *actions, ctx);
  std::string user = "Question: " + question;
  if (!options.answer_format.empty()) user += "\nAnswer format: " + options.answer_format;

  run.event({{"type", "start"}, {"question", question}, {"model", llm.model().name}, {"actions", names}});
  AgentResult result = run.result();
  std::deque<std::pair<ChatMessage, ChatMessage>> history;  // (action, observation)
  for (int turn = 1; turn <= options.max_turns && result.stop_reason == StopReason::kNone; ++turn) {
    if (Status s = budget.check(); !s.is_ok()) {
      run.stop(result, StopReason::kBudget, s.message());
      break;
    }
    ChatRequest req;
    req.messages = {ChatMessage::system(prompt), ChatMessage::user(user)};
    for (auto& [a, o] : history) {
      req.messages.push_back(a);
      req.messages.push_back(o);
    }
    auto resp = run.model_turn(llm, req, budget, turn);
    if (!resp) return resp.status();
    ChatMessage said{"assistant", resp->message.text(), {}, ""};
    ChatMessage obs;
    auto action = parse_action(said.text(), names);
    if (!action) {
      obs = ChatMessage::user("[Error]: " + action.status().message());
      run.event({{"type", "parse_error"}, {"turn", turn}, {"message", action.status().message()}});
    } else if (action->name == "GenerateAnswer") {
      Json value = action->parameters.value("answer", Json());
      auto checked = check_format(value, options.answer_format);
      if (!checked) {
        obs = ChatMessage::user("[Error]: " + checked.status().message() + ". Answer again in the asked format.");
      } else {
        result.answer_value = *checked;
        result.answer = checked->is_string() ? checked->get<std::string>() : checked->dump();
        result.stop_reason = StopReason::kAnswer;
        break;
      }
    } else {
      budget.add_tool_call();
      run.event({{"type", "action"}, {"turn", turn}, {"form", action->form}, {"repaired", action->repaired}});
      obs = run_action(run, registry, *actions, ctx, llm, action->name, action->parameters, book, options);
    }
    history.emplace_back(said, obs);
    while (history.size() > size_t(std::max(1, options.history_window))) history.pop_front();
  }
  if (result.stop_reason == StopReason::kNone)
    run.stop(result, StopReason::kMaxTurns,
             "no GenerateAnswer within " + std::to_string(options.max_turns) + " turns (max_turn)");
  result.sources = book.cited_in(result.answer);
  run.finish(result, budget);
  return result;
}

}  // namespace bioagent
