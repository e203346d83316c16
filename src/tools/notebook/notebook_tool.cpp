#include "bioagent/notebook.h"
#include "bioagent/registry.h"
#include "bioagent/workspace.h"
#include "tools/builtin_tools.h"

namespace bioagent::tools {

Result<Json> executed_notebook_tool(const ToolSpec& spec, const Json& args, ToolContext& ctx) {
  auto str_or_empty = [&](const char* key) {
    return args.contains(key) && args[key].is_string() ? args[key].get<std::string>() : std::string();
  };
  const std::string folder = str_or_empty("data_folder");
  const std::string path = str_or_empty("notebook_path");
  if (folder.empty() && path.empty())
    return invalid_argument("give either data_folder (a folder to search for a notebook) or notebook_path");

  NotebookQuery q;
  q.search = str_or_empty("search");
  q.regex = args.value("regex", false);
  q.max_output_chars = args.value("max_output_chars", 400);
  q.include_source = args.value("include_source", true);
  q.max_file_bytes = spec.settings.value("max_file_bytes", q.max_file_bytes);

  std::vector<std::filesystem::path> others;
  std::filesystem::path nb;
  if (!path.empty()) {
    auto r = ctx.workspace().resolve_existing(path);
    if (!r) return r.status();
    nb = *r;
  } else {
    auto dir = ctx.workspace().resolve_existing(folder);
    if (!dir) return dir.status();
    auto found = discover_notebook(*dir, &others, &ctx.workspace());
    if (!found) return found.status();
    // A symlinked notebook inside the folder may point outside the roots.
    auto safe = ctx.workspace().resolve_existing(found->string());
    if (!safe) return safe.status();
    nb = *found;
  }
  BIOAGENT_RETURN_IF_ERROR(ctx.check());
  auto result = read_notebook(nb, q);
  if (!result) return result;
  Json out = std::move(*result);
  std::vector<std::string> notes;
  if (!path.empty() && !folder.empty())
    notes.push_back("both notebook_path and data_folder were given; notebook_path was used");
  out["notebook_path"] = ctx.workspace().display(nb);
  std::vector<std::string> readable;
  for (auto& o : others)
    if (auto r = ctx.workspace().resolve_existing(o.string())) readable.push_back(ctx.workspace().display(*r));
  if (!readable.empty()) {
    Json list = Json::array();
    for (auto& o : readable) list.push_back(o);
    out["other_notebooks"] = list;
    notes.push_back(std::to_string(readable.size()) +
                    " other notebook(s) were found in data_folder; pass notebook_path to read one of them");
  }
  if (out.contains("note")) notes.insert(notes.begin(), out["note"].get<std::string>());
  if (!notes.empty()) {
    std::string joined;
    for (auto& n : notes) joined += (joined.empty() ? "" : "; ") + n;
    out["note"] = joined;
  }
  return out;
}

}  // namespace bioagent::tools

namespace bioagent {

void register_notebook_tool_types(ToolRegistry& registry) {
  registry.add_type("ExecutedNotebookTool", tools::executed_notebook_tool);
}

}  // namespace bioagent
