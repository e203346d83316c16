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

// KnowledgeAgent: a family summary from the knowledge base plus local literature, cited.
Json knowledge_answer(const AgentEnv& env, const Route& route, const std::string& message);
// KnowledgeAgent: has the family been studied in the species? {answer, sources, found, research_gap, queries}.
Json literature_check(const AgentEnv& env, const Route& route, const std::string& message);

// PlanningAgent: the seed's analysis plan for (species prefix or name, family),
// with file status from the data folders (first match wins) and an estimate
// from past stage durations ({stage: median seconds}). {plan, yaml, defaults}.
Result<Json> make_plan(const AgentEnv& env, const std::string& species, const std::string& family,
                       const std::vector<fs::path>& data_dirs, const Json& stage_seconds, bool zh, int cpus);

// JSON to YAML text (yaml-cpp emitter).
std::string to_yaml(const Json& j);

// The data folder of `prefix` among `dirs` (a folder holding <prefix>.* files), or empty.
fs::path find_species_folder(const std::vector<fs::path>& dirs, const std::string& prefix);

}  // namespace bioagent
