// The literature module's tool types (seeds 000 and 003), registered by register_literature_tool_types.
#pragma once

#include "bioagent/tool.h"

namespace bioagent::tools {

Result<Json> literature_source_tool(const ToolSpec& spec, const Json& args, ToolContext& ctx);
Result<Json> search_handler_tool(const ToolSpec& spec, const Json& args, ToolContext& ctx);
Result<Json> evidence_store_tool(const ToolSpec& spec, const Json& args, ToolContext& ctx);
Result<Json> multi_source_tool(const ToolSpec& spec, const Json& args, ToolContext& ctx);
Result<Json> fetch_text_tool(const ToolSpec& spec, const Json& args, ToolContext& ctx);

}  // namespace bioagent::tools
