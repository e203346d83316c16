// Every built-in tool type: each module registers its own (a new implementation
// type is one row in its module's registration function).
#include "bioagent/agent.h"
#include "bioagent/bundle.h"
#include "bioagent/calc.h"
#include "bioagent/notebook.h"
#include "bioagent/papers.h"
#include "bioagent/search.h"

namespace bioagent {

void register_builtin_types(ToolRegistry& registry) {
  register_calc_tool_types(registry);
  register_notebook_tool_types(registry);
  register_data_tool_types(registry);
  register_literature_tool_types(registry);
  register_paper_tool_types(registry);
}

}  // namespace bioagent
