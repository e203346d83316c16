// Reading executed Jupyter notebooks (nbformat 4) for the read_executed_notebook
// tool (seed 002): discovery in a folder, per-cell source and outputs as text,
// term or regex search, truncation. Parsing uses simdjson because the
// files are often tens of megabytes of embedded images: simdjson On-Demand
// skips image payloads without decoding them. Pure; thread-safe.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "bioagent/status.h"
#include "bioagent/tool.h"
#include "bioagent/workspace.h"

namespace bioagent {

struct NotebookQuery {
  std::string search;  // comma-separated terms, or a regex when `regex`
  bool regex = false;
  size_t max_output_chars = 400;  // per cell source and per cell output, in characters
  bool include_source = true;
  size_t max_file_bytes = 512u << 20;
  // Large pretty-printed notebooks are parsed in pieces, one thread per core
  // (`threads` 0), when bigger than `parallel_min_bytes`. Tests lower both.
  unsigned threads = 0;
  size_t parallel_min_bytes = 2u << 20;
};

// Picks the notebook in `folder` (recursive, hidden folders skipped):
// *_executed.ipynb preferred, then sorted order. `others` receives the rest.
// With a workspace, folders it excludes (the server's state) are not entered.
Result<std::filesystem::path> discover_notebook(const std::filesystem::path& folder,
                                                std::vector<std::filesystem::path>* others = nullptr,
                                                const Workspace* workspace = nullptr);

// Reads and extracts. The result has the tool's shape:
// {notebook_path, nbformat, total_cells, cells:[{idx,type,source?,output}],
//  search, regex, matching_cells:[...], n_matches}
Result<Json> read_notebook(const std::filesystem::path& path, const NotebookQuery& query);

// Same, from an in-memory document (fuzzing, tests). `label` names it in errors.
Result<Json> read_notebook_text(std::string_view text, const std::string& label, const NotebookQuery& query);

// Removes ANSI terminal escape sequences (CSI, OSC and two-byte escapes).
std::string strip_ansi(std::string_view s);

// Registers the executed-notebook reader's tool type (ExecutedNotebookTool) with `registry`.
class ToolRegistry;
void register_notebook_tool_types(ToolRegistry& registry);

}  // namespace bioagent
