// Helpers the agent loops share (not a public interface): tool subsets, one
// tool call turned into the text the model sees, events to the trajectory and
// the caller, and the end of a run.
#pragma once

#include <string>
#include <vector>

#include "bioagent/agent.h"

namespace bioagent {

const std::vector<std::string>& default_function_tools();
const std::vector<std::string>& seed001_actions();

// The named tools (or the defaults that are registered); unknown names are an error.
Result<std::vector<const ToolSpec*>> agent_tool_subset(const ToolRegistry& registry,
                                                       const std::vector<std::string>& names,
                                                       const std::vector<std::string>& defaults);
Json tool_names(const std::vector<const ToolSpec*>& tools);
std::function<std::string(const std::string&)> paper_title_resolver(const ToolContext& ctx);

class AgentRun {
 public:
  AgentRun(Trajectory& trajectory, const AgentOptions& options, std::string loop, std::string model);
  AgentResult result() const;
  void event(const Json& e);
  void llm_event(int turn, const ChatResponse& r);
  // One model call: the answer is counted in the budget and recorded; a
  // failure is recorded and returned.
  Result<ChatResponse> model_turn(LlmClient& llm, const ChatRequest& req, Budget& budget, int turn,
                                  const std::function<void(const StreamDelta&)>& on_delta = nullptr);
  // Runs one tool call (arguments as JSON text) and returns what the model is
  // shown: the result (truncated with a note), or the error to correct, plus
  // the numbered sources it holds.
  std::string call_tool(const ToolRegistry& registry, const std::vector<const ToolSpec*>& allowed, ToolContext& ctx,
                        const std::string& name, const std::string& arguments, SourceBook& book, bool wrap_intermediate,
                        Json* result_out = nullptr);
  void stop(AgentResult& r, StopReason reason, const std::string& message);
  void finish(AgentResult& r, const Budget& budget);

 private:
  Trajectory& trajectory_;
  const AgentOptions& options_;
  std::string loop_, model_;
};

}  // namespace bioagent
