// Implementations of the built-in tool types, registered by register_builtin_types().
#pragma once

#include "bioagent/tool.h"

namespace bioagent::tools {

Result<Json> calculator_tool(const ToolSpec& spec, const Json& args, ToolContext& ctx);
Result<Json> executed_notebook_tool(const ToolSpec& spec, const Json& args, ToolContext& ctx);

// Data bundle tools (seed 000), src/data/data_tools.cpp.
Result<Json> raw_excel_tool(const ToolSpec& spec, const Json& args, ToolContext& ctx);
Result<Json> processed_tf_tool(const ToolSpec& spec, const Json& args, ToolContext& ctx);
Result<Json> filter_columns_tool(const ToolSpec& spec, const Json& args, ToolContext& ctx);
Result<Json> wave_search_tool(const ToolSpec& spec, const Json& args, ToolContext& ctx);
Result<Json> correlation_data_tool(const ToolSpec& spec, const Json& args, ToolContext& ctx);
Result<Json> correlation_image_tool(const ToolSpec& spec, const Json& args, ToolContext& ctx);
Result<Json> correlation_tfs_tool(const ToolSpec& spec, const Json& args, ToolContext& ctx);
Result<Json> community_tool(const ToolSpec& spec, const Json& args, ToolContext& ctx);
Result<Json> static_image_tool(const ToolSpec& spec, const Json& args, ToolContext& ctx);
Result<Json> ui_text_tool(const ToolSpec& spec, const Json& args, ToolContext& ctx);
Result<Json> catalog_list_tool(const ToolSpec& spec, const Json& args, ToolContext& ctx);
Result<Json> bubble_list_tool(const ToolSpec& spec, const Json& args, ToolContext& ctx);
Result<Json> wave_assets_tool(const ToolSpec& spec, const Json& args, ToolContext& ctx);
Result<Json> navigation_tool(const ToolSpec& spec, const Json& args, ToolContext& ctx);
Result<Json> paper_url_tool(const ToolSpec& spec, const Json& args, ToolContext& ctx);
Result<Json> list_files_tool(const ToolSpec& spec, const Json& args, ToolContext& ctx);

// Literature tools (seeds 000 and 003), src/literature/.
Result<Json> literature_source_tool(const ToolSpec& spec, const Json& args, ToolContext& ctx);
Result<Json> search_handler_tool(const ToolSpec& spec, const Json& args, ToolContext& ctx);
Result<Json> evidence_store_tool(const ToolSpec& spec, const Json& args, ToolContext& ctx);
Result<Json> multi_source_tool(const ToolSpec& spec, const Json& args, ToolContext& ctx);
Result<Json> fetch_text_tool(const ToolSpec& spec, const Json& args, ToolContext& ctx);

// Paper library (seed 001), src/papers/.
Result<Json> paper_sql_tool(const ToolSpec& spec, const Json& args, ToolContext& ctx);
Result<Json> paper_schema_tool(const ToolSpec& spec, const Json& args, ToolContext& ctx);
Result<Json> view_image_tool(const ToolSpec& spec, const Json& args, ToolContext& ctx);
Result<Json> vectorstore_tool(const ToolSpec& spec, const Json& args, ToolContext& ctx);
Result<Json> classic_retrieve_tool(const ToolSpec& spec, const Json& args, ToolContext& ctx);
Result<Json> generate_answer_tool(const ToolSpec& spec, const Json& args, ToolContext& ctx);
Result<Json> list_collections_tool(const ToolSpec& spec, const Json& args, ToolContext& ctx);

}  // namespace bioagent::tools
