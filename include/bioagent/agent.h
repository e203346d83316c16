// The agent loops that answer questions with the tools:
//   function loop  LLM function calling until a final answer or max_turns;
//                  optionally under TaijiChat's two-phase protocol (seed 000:
//                  AWAITING_DATA with tool calls, results returned as
//                  intermediate_data_for_llm, then CODE_COMPLETE);
//   action loop    seed 001's NeuSym-RAG loop: the six actions described in
//                  the prompt, the model's action parsed from JSON, fenced or
//                  XML-ish text, observations fed back, GenerateAnswer ends it;
//   offline agent  no model: rules pick the tools, the answer is extractive
//                  and says that no language model was used.
// Every run writes a JSONL trajectory and ends with a token/cost line; sources
// found by the tools are numbered so answers cite [n].
#pragma once

#include <chrono>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "bioagent/budget.h"
#include "bioagent/llm.h"
#include "bioagent/registry.h"

namespace bioagent {

struct AnswerSource {
  int n = 0;
  std::string title, source, locator;  // locator: "page 3", a URL or a DOI
  std::string key;                     // what makes two sources the same
  Json to_json() const;
};

struct AgentOptions {
  std::vector<std::string> tools;  // the tool subset (empty: the loop's default set)
  int max_turns = 10;              // model calls (the action loop's max_turn defaults to 20)
  size_t max_tool_result_chars = 6000;
  int history_window = 10;          // action loop: turns of history kept in the prompt
  bool taijichat_protocol = false;  // function loop: seed 000's two-phase protocol
  bool stream = false;              // stream the final text through on_event
  std::string trajectory_dir;       // JSONL trajectories go here (empty: not written)
  std::string answer_format;        // action loop: the format the question asks for, if any
  // Each step as it happens: {"type": "llm"|"tool_call"|"tool_result"|"delta"|"answer"|"stop", ...}.
  std::function<void(const Json&)> on_event;
};

// Why a loop stopped: none yet, a final answer, out of turns, out of budget, an error.
enum class StopReason { kNone, kAnswer, kMaxTurns, kBudget, kError };
std::string to_string(StopReason reason);  // "", answer, max_turns, budget, error
// The reason of its to_string name; not found for any other text.
Result<StopReason> stop_reason_from_string(std::string_view name);

struct AgentResult {
  std::string answer;  // the text shown to the user
  Json answer_value;   // the action loop's GenerateAnswer value (else the text)
  std::vector<AnswerSource> sources;
  StopReason stop_reason = StopReason::kNone;
  std::string loop;   // function, actions, offline
  std::string model;  // the model's name, or "none"
  std::string trajectory_path;
  Json budget;
  std::string budget_line;
  std::string note;  // e.g. "No language model was used."
  Json to_json() const;
  // The answer with its numbered sources and the token/cost line.
  std::string render() const;
};

// Numbers the sources that tool results carry (literature evidence, paper
// chunks and pages, evidence-store hits), one number per distinct source.
class SourceBook {
 public:
  // Sources found in one tool result; returns their numbers' lines for the model ("[1] Title — PubMed ...").
  std::string add_from(const std::string& tool, const Json& result);
  // The numbers of the sources in `result` (added when new), in order of appearance.
  std::vector<int> number(const Json& result);
  const std::vector<AnswerSource>& all() const { return sources_; }
  // Names papers of the library by id (else they show as "paper <id>").
  std::function<std::string(const std::string& paper_id)> paper_title;
  // Only the sources the answer cites ([n]); all of them when it cites none.
  std::vector<AnswerSource> cited_in(const std::string& answer) const;

 private:
  std::vector<AnswerSource> sources_;
};

// JSONL trajectory: one object per line, each with "t" (seconds since start).
class Trajectory {
 public:
  // dir empty: events are only counted, not written.
  static Result<Trajectory> open(const std::string& dir, const std::string& loop);
  void write(Json event);
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::shared_ptr<std::ofstream> out_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

Result<AgentResult> run_function_loop(const std::string& question, const ToolRegistry& registry, ToolContext& ctx,
                                      LlmClient& llm, Budget& budget, const AgentOptions& options);
Result<AgentResult> run_action_loop(const std::string& question, const ToolRegistry& registry, ToolContext& ctx,
                                    LlmClient& llm, Budget& budget, const AgentOptions& options);
Result<AgentResult> run_offline_agent(const std::string& question, const ToolRegistry& registry, ToolContext& ctx,
                                      const AgentOptions& options);

// The citation checker, run on every written answer. Each sentence's [n]
// marks must name sources given here (number -> the source's text), and each
// number, gene-like name (SPL9, miR156, WRKY) and quoted phrase in a citing
// sentence must occur in one of the sources it cites; a sentence with such
// facts and no mark fails too. Failing sentences are left out of `text`, and
// each verdict says why.
struct CitationVerdict {
  std::string sentence;
  bool kept = true;
  std::vector<int> cited;
  std::vector<std::string> problems;
};
struct CitationCheck {
  std::string text;  // the answer without the failing sentences
  std::vector<CitationVerdict> sentences;
  int removed = 0;
  Json to_json() const;
};
CitationCheck check_citations(const std::string& answer, const std::map<int, std::string>& sources);

// The action loop's parser: one action from the model's text, in JSON
// ({"action_type": ..., "parameters": {...}} or {"action": ...}), a ```json
// fence, or XML-ish (<action>Name</action><parameters>{...}</parameters> or
// Name(key=value, ...)); near-misses (trailing commas, single quotes, an
// unknown-case action name) are repaired. Errors say what was expected.
struct ParsedAction {
  std::string name;
  Json parameters = Json::object();
  std::string form;  // json, fenced, xml, call
  bool repaired = false;
};
Result<ParsedAction> parse_action(const std::string& text, const std::vector<std::string>& action_names);

// Registers every built-in tool type (each module's own) with `registry`.
void register_builtin_types(ToolRegistry& registry);

}  // namespace bioagent
