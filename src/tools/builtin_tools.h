// The tool types of the tools module (calculator, executed notebooks), registered by
// register_calc_tool_types and register_notebook_tool_types.
#pragma once

#include "bioagent/tool.h"

namespace bioagent::tools {

Result<Json> calculator_tool(const ToolSpec& spec, const Json& args, ToolContext& ctx);
Result<Json> executed_notebook_tool(const ToolSpec& spec, const Json& args, ToolContext& ctx);

}  // namespace bioagent::tools
