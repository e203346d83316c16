// Implementations of the built-in tool types, registered by register_builtin_types().
#pragma once

#include "bioagent/tool.h"

namespace bioagent::tools {

Result<Json> calculator_tool(const ToolSpec& spec, const Json& args, ToolContext& ctx);
Result<Json> executed_notebook_tool(const ToolSpec& spec, const Json& args, ToolContext& ctx);

}  // namespace bioagent::tools
