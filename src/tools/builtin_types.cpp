// The table of C++ tool implementations. A config entry's "type" picks one.
#include "bioagent/registry.h"
#include "tools/builtin_tools.h"

namespace bioagent {

void register_builtin_types(ToolRegistry& registry) {
  static constexpr struct {
    const char* type;
    ToolFn fn;
  } kTypes[] = {
      {"CalculatorTool", tools::calculator_tool},
      {"ExecutedNotebookTool", tools::executed_notebook_tool},
  };
  for (const auto& t : kTypes) registry.add_type(t.type, t.fn);
}

}  // namespace bioagent
