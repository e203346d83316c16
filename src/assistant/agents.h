// The agents' free functions (src/assistant): what each agent produces from
// the route, the knowledge base, the tools and the data folders.
#pragma once

#include <set>

#include "assistant/assistant_internal.h"

namespace bioagent {

struct AgentEnv {
  const ToolRegistry* registry = nullptr;
  const Workspace* workspace = nullptr;
  std::map<std::string, std::string> tool_options;
  bool offline() const {
    auto it = tool_options.find("offline");
    return it != tool_options.end() && it->second == "1";
  }
};

class LlmClient;

// KnowledgeAgent: the family (and each species and comparison asked about)
// from the knowledge base plus local literature that mentions the subject.
// With a model, the model writes the answer from that evidence alone and the
// citation checker removes what the evidence does not carry; without one,
// the answer is extracted and says that no model was used.
Json knowledge_answer(const AgentEnv& env, const Route& route, const std::string& message, LlmClient* llm = nullptr);
// KnowledgeAgent: has the family been studied in the species? {answer, sources, found, research_gap, searched,
// failed, queries}. A research gap is claimed only when every search ran and found nothing.
Json literature_check(const AgentEnv& env, const Route& route, const std::string& message, LlmClient* llm = nullptr);

// PlanningAgent: the seed's analysis plan for (species prefix or name, family),
// with file status from the data folders (first match wins) and an estimate
// from past stage durations ({stage: median seconds}). {plan, yaml, defaults}.
Result<Json> make_plan(const AgentEnv& env, const std::string& species, const std::string& family,
                       const std::vector<fs::path>& data_dirs, const Json& stage_seconds, Lang lang, int cpus,
                       const Json& stage_params = Json::object());

// The plan's reasoning (why these stages, what the data allows):
// {text, written_by: model name or "template", removed: [{sentence, why}]}.
// A model writes it from the plan alone and every sentence that claims a
// file, stage, analysis or number the plan does not have is removed; without
// a model (or when nothing survives) it is the template, which says so.
Json plan_reasoning(const Json& analysis_plan, LlmClient* llm, Lang lang);
std::string plan_reasoning_template(const Json& analysis_plan, Lang lang);
// Why a sentence of the reasoning is not carried by the plan (empty: it is).
std::vector<std::string> plan_reasoning_problems(const std::string& sentence, const Json& analysis_plan);

// JSON to YAML text (yaml-cpp emitter).
std::string to_yaml(const Json& j);

// The leading whole number of a knowledge-base count ("105 (up to 117 ...)" -> 105), or -1.
int leading_count(const std::string& s);

}  // namespace bioagent
