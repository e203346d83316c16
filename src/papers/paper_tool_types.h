// The paper library's tool types (seed 001), registered by register_paper_tool_types.
#pragma once

#include "bioagent/tool.h"

namespace bioagent::tools {

Result<Json> paper_sql_tool(const ToolSpec& spec, const Json& args, ToolContext& ctx);
Result<Json> paper_schema_tool(const ToolSpec& spec, const Json& args, ToolContext& ctx);
Result<Json> view_image_tool(const ToolSpec& spec, const Json& args, ToolContext& ctx);
Result<Json> vectorstore_tool(const ToolSpec& spec, const Json& args, ToolContext& ctx);
Result<Json> classic_retrieve_tool(const ToolSpec& spec, const Json& args, ToolContext& ctx);
Result<Json> generate_answer_tool(const ToolSpec& spec, const Json& args, ToolContext& ctx);
Result<Json> list_collections_tool(const ToolSpec& spec, const Json& args, ToolContext& ctx);
Result<Json> paper_ingest_tool(const ToolSpec& spec, const Json& args, ToolContext& ctx);

}  // namespace bioagent::tools
