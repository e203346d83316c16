// `bioagent ask "question"`: one turn of the assistant the web chat talks to
// (router, knowledge base, literature check, planner, tool agent), in a
// session of the server's store; with --loop, --tools, --answer-format or
// --taijichat, one run of that agent loop alone. Printed with numbered
// citations (the loops add a token/cost line and the trajectory's path).
#include <CLI/CLI.hpp>

#include <iostream>

#include "bioagent/agent.h"
#include "bioagent/json_text.h"
#include "cli/assistant_cli.h"
#include "cli/commands.h"

namespace bioagent::cli {
namespace {

struct AskOptions {
  std::string question, model, loop = "auto", answer_format;
  std::vector<std::string> tools;
  int max_turns = 0;
  bool json = false, trace = false, stream = false, taijichat = false;
  BudgetLimits limits;
  AssistantCliOptions assistant;
};

void print_trace(const Json& e) {
  std::string type = e.value("type", "");
  if (type == "delta") {
    std::cerr << e.value("text", "") << std::flush;
    return;
  }
  std::string line = "· " + type;
  if (type == "llm") {
    line += " turn " + json_text(e["turn"]) + ": " + std::to_string(e["tool_calls"].size()) + " tool call(s), " +
            json_text(e["usage"]["prompt_tokens"]) + "+" + json_text(e["usage"]["completion_tokens"]) + " tokens";
    if (e["content"].is_string() && !e["content"].get<std::string>().empty())
      line += "\n    " + e["content"].get<std::string>().substr(0, 300);
  } else if (type == "tool_call") {
    line += " " + e.value("name", "") + " " + e.value("arguments", "").substr(0, 300);
  } else if (type == "tool_result") {
    line += " " + e.value("name", "") + (e.value("ok", false) ? " ok, " : " FAILED, ") + json_text(e["chars"]) +
            " chars, " + json_text(e["sources"]) + " new source(s)";
    if (!e.value("ok", false)) line += "\n    " + e.value("content", "").substr(0, 300);
  } else if (type == "stop" || type == "parse_error") {
    line += ": " + e.value("message", e.value("reason", ""));
  } else if (type == "answer" || type == "start") {
    return;
  }
  std::cerr << line << "\n";
}

// The assistant's turn: printed (or its JSON), a started run followed to its end.
int ask_assistant(const GlobalOptions& g, AskOptions& o) {
  o.assistant.model = o.model;
  auto c = open_cli_assistant(g, o.assistant);
  if (!c) return print_error(c.status());
  std::cerr << "bioagent: session " << c->session_id << " (continue it with chat --session)\n";
  EventFn on_event;
  if (o.stream)
    on_event = [](const Json& e) {
      if (e.value("type", "") == "delta") std::cerr << e.value("text", "") << std::flush;
    };
  auto r = c->assistant->chat(c->session_id, o.question, on_event, ChatOptions{"rag", o.model});
  if (o.stream) std::cerr << "\n";
  if (!r) return print_error(r.status());
  if (o.json)
    std::cout << json_text(*r, 2) << std::endl;
  else
    std::cout << r->value("answer", "") << render_sources(*r) << std::endl;
  const Lang lang = lang_or_en(r->value("route", Json::object()).value("language", ""));
  if (r->contains("task") && (*r)["task"].contains("task_id"))
    follow_task(*c->assistant, c->session_id, (*r)["task"]["task_id"].get<std::string>(), false, lang);
  c->assistant->shutdown();
  bool stopped_early = r->value("agent", "") == "tools" && r->value("stop_reason", "answer") != "answer";
  return stopped_early ? 3 : 0;
}

// The model of a loop that needs one (null for the offline loop); `loop` becomes
// "offline" (auto without a model) or "function" (auto with one).
Result<std::unique_ptr<LlmClient>> loop_model(const GlobalOptions& g, const AskOptions& o, std::string& loop) {
  if (loop == "offline") return std::unique_ptr<LlmClient>();
  auto catalog = load_model_catalog();
  if (!catalog) return catalog.status();
  if (g.offline || catalog->empty()) {
    if (loop != "auto")  // the user asked for a model loop: say why it cannot run
      return g.offline ? Status(ErrorCode::kUnavailable, "--offline: the " + loop + " loop needs a language model")
                       : catalog->get("").status();
    loop = "offline";
    return std::unique_ptr<LlmClient>();
  }
  auto model = catalog->get(o.model);
  if (!model) return model.status();
  auto client = LlmClient::create(*model);
  if (!client) return client.status();
  if (loop == "auto") loop = "function";
  return std::move(*client);
}

// One agent loop alone (function, actions or offline); 0 when it answered, 3 when it stopped otherwise.
int ask_one_loop(const GlobalOptions& g, const AskOptions& o) {
  auto s = Session::open(g);
  if (!s) return print_error(s.status());
  ToolContext ctx = s->context(g, false);
  AgentOptions ao;
  ao.tools = o.tools;
  ao.stream = o.stream;
  ao.taijichat_protocol = o.taijichat;
  ao.answer_format = o.answer_format;
  ao.trajectory_dir = s->tool_options["trajectory_dir"];
  if (o.trace || o.stream) ao.on_event = [](const Json& e) { print_trace(e); };
  std::string loop = o.loop;
  auto llm = loop_model(g, o, loop);
  if (!llm) return print_error(llm.status());
  Budget budget(o.limits);
  Result<AgentResult> r = internal_error("no loop ran");
  if (loop == "offline") {
    ao.max_turns = o.max_turns ? o.max_turns : 10;
    r = run_offline_agent(o.question, *s->registry, ctx, ao);
  } else if (loop == "actions") {
    ao.max_turns = o.max_turns ? o.max_turns : 20;
    r = run_action_loop(o.question, *s->registry, ctx, **llm, budget, ao);
  } else {
    ao.max_turns = o.max_turns ? o.max_turns : 10;
    r = run_function_loop(o.question, *s->registry, ctx, **llm, budget, ao);
  }
  if (o.stream) std::cerr << "\n";
  if (!r) return print_error(r.status());
  if (o.json)
    std::cout << json_text(r->to_json(), 2) << std::endl;
  else
    std::cout << r->render() << std::endl;
  return r->stop_reason == StopReason::kAnswer ? 0 : 3;
}

}  // namespace

void add_ask_command(CLI::App& app, GlobalOptions& g) {
  static AskOptions o;
  auto* ask = app.add_subcommand("ask", "Answer a question with the tools, citing sources (offline without a model)");
  ask->add_option("question", o.question, "The question")->required();
  ask->add_option("--model", o.model, "Model name from the model configuration (default: its default)");
  ask->add_option("--tools", o.tools, "Tool subset, comma-separated")->delimiter(',');
  ask->add_option("--loop", o.loop,
                  "auto (the assistant: router and agents, as the web chat), or one agent loop alone: function, "
                  "actions (seed 001), offline")
      ->check(CLI::IsMember({"auto", "function", "actions", "offline"}));
  ask->add_option("--max-turns", o.max_turns, "Model turns before stopping (default 10; actions 20)");
  ask->add_option("--answer-format", o.answer_format,
                  "actions loop: the answer's format (int, float, str, list, bool)");
  ask->add_flag("--json", o.json, "Print the result as JSON");
  ask->add_flag("--trace", o.trace, "Print each step as it happens (stderr)");
  ask->add_flag("--stream", o.stream, "Stream the model's text as it is written (stderr)");
  ask->add_flag("--taijichat", o.taijichat, "function loop: seed 000's AWAITING_DATA / CODE_COMPLETE protocol");
  ask->add_option("--max-tokens", o.limits.max_tokens, "Budget: token cap for this run");
  ask->add_option("--max-cost", o.limits.max_cost_usd, "Budget: cost cap in USD for this run");
  ask->add_option("--max-tool-calls", o.limits.max_tool_calls, "Budget: tool-call cap for this run");
  ask->add_option("--max-seconds", o.limits.max_seconds, "Budget: wall-time cap for this run");
  add_assistant_options(ask, o.assistant);
  ask->callback([&g] {
    if (o.loop == "auto" && o.tools.empty() && o.answer_format.empty() && !o.taijichat)
      g.exit_code = ask_assistant(g, o);
    else
      g.exit_code = ask_one_loop(g, o);
  });
}

}  // namespace bioagent::cli
