// Paper-library actions of seed 001 that exist so far: RetrieveFromDatabase and
// describe_paper_database. The database path comes from the "papers_db" option.
#include <nlohmann/json.hpp>

#include "bioagent/papers.h"
#include "tools/builtin_tools.h"

namespace bioagent::tools {

Result<Json> paper_sql_tool(const ToolSpec& spec, const Json& args, ToolContext& ctx) {
  std::string db = ctx.option("papers_db");
  if (db.empty()) return unsupported("no paper library is configured (BIOAGENT_PAPERS_DB or --papers-db)");
  SqlLimits limits;
  limits.max_rows = spec.settings.value("max_rows", limits.max_rows);
  limits.max_chars = spec.settings.value("max_chars", limits.max_chars);
  limits.timeout_ms = spec.settings.value("timeout_ms", limits.timeout_ms);
  return retrieve_from_database(db, args.at("sql").get<std::string>(), limits);
}

Result<Json> view_image_tool(const ToolSpec& spec, const Json& args, ToolContext& ctx) {
  std::string db = ctx.option("papers_db");
  if (db.empty()) return unsupported("no paper library is configured (BIOAGENT_PAPERS_DB or --papers-db)");
  std::vector<double> box;
  for (auto& v : args.value("bounding_box", Json::array())) box.push_back(v.get<double>());
  return view_image(db, args.at("paper_id").get<std::string>(), args.at("page_number").get<int>(), box,
                    spec.settings.value("dpi", 144.0));
}

Result<Json> paper_schema_tool(const ToolSpec&, const Json&, ToolContext&) { return paper_database_schema(); }

}  // namespace bioagent::tools
