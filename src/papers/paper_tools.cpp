// Paper-library actions of seed 001 that exist so far: RetrieveFromDatabase and
// describe_paper_database. The database path comes from the "papers_db" option.
#include <nlohmann/json.hpp>

#include "bioagent/papers.h"
#include "bioagent/registry.h"
#include "papers/paper_tool_types.h"

namespace bioagent::tools {

namespace {

// True when some JOIN of `sql` has no ON/USING of its own before the next JOIN
// or the end of the FROM clause (seed 001's "a JOIN b JOIN c ON x AND y", which
// DuckDB cannot parse). CROSS, NATURAL and POSITIONAL joins need none. Words
// inside quotes are skipped.
bool join_without_on(const std::string& sql) {
  std::vector<std::string> words;
  std::string w;
  char quote = 0;
  for (char c : sql + " ") {
    if (quote) {
      if (c == quote) quote = 0;
      continue;
    }
    if (c == '\'' || c == '"') {
      quote = c;
      continue;
    }
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '_') {
      w += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    } else if (!w.empty()) {
      words.push_back(std::move(w));
      w.clear();
    }
  }
  bool pending = false;
  for (size_t i = 0; i < words.size(); ++i) {
    const std::string& x = words[i];
    if (x == "JOIN") {
      if (pending) return true;
      const std::string prev = i ? words[i - 1] : "";
      pending = prev != "CROSS" && prev != "NATURAL" && prev != "POSITIONAL";
    } else if (x == "ON" || x == "USING") {
      pending = false;
    } else if (pending && (x == "WHERE" || x == "GROUP" || x == "ORDER" || x == "LIMIT" || x == "HAVING")) {
      return true;
    }
  }
  return pending;
}

}  // namespace

Result<Json> paper_sql_tool(const ToolSpec& spec, const Json& args, ToolContext& ctx) {
  std::string db = ctx.option("papers_db");
  if (db.empty()) return unsupported("no paper library is configured (BIOAGENT_PAPERS_DB or --papers-db)");
  SqlLimits limits;
  limits.max_rows = spec.settings.value("max_rows", limits.max_rows);
  limits.max_chars = spec.settings.value("max_chars", limits.max_chars);
  limits.timeout_ms = spec.settings.value("timeout_ms", limits.timeout_ms);
  const std::string sql = args.at("sql").get<std::string>();
  auto r = retrieve_from_database(db, sql, limits);
  if (!r && r.status().code() == ErrorCode::kInvalidArgument && join_without_on(sql)) {
    const std::string hint =
        "each JOIN needs its own ON, e.g. SELECT pages.page_number FROM images JOIN pages ON images.ref_page_id = "
        "pages.page_id JOIN metadata ON pages.ref_paper_id = metadata.paper_id WHERE ...";
    Status s(r.status().code(), r.status().message() + " (" + hint + ")");
    for (auto& [k, v] : r.status().details().items()) s.with(k, v);
    s.with("hint", hint);
    return s;
  }
  return r;
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

namespace bioagent {

void register_paper_tool_types(ToolRegistry& registry) {
  registry.add_type("PaperSqlTool", tools::paper_sql_tool);
  registry.add_type("PaperSchemaTool", tools::paper_schema_tool);
  registry.add_type("ViewImageTool", tools::view_image_tool);
  registry.add_type("VectorstoreTool", tools::vectorstore_tool);
  registry.add_type("ClassicRetrieveTool", tools::classic_retrieve_tool);
  registry.add_type("GenerateAnswerTool", tools::generate_answer_tool);
  registry.add_type("ListCollectionsTool", tools::list_collections_tool);
  registry.add_type("PaperIngestTool", tools::paper_ingest_tool);
}

}  // namespace bioagent
