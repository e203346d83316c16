// The tool registry: one table of tools loaded from JSON config files
// (ToolUniverse style: each entry's "type" names a C++ implementation). It
// validates arguments, applies defaults, dispatches, wraps results in the
// {status, data} / {status, error} envelope, and exports the same table as plain
// JSON Schema, OpenAI function-calling specs and MCP tools/list entries.
// Loading is not thread-safe; after loading, call() may run concurrently.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "bioagent/tool.h"

namespace bioagent {

class ToolRegistry {
 public:
  ToolRegistry();

  // Register a C++ implementation under a type name ("CalculatorTool").
  void add_type(const std::string& type, ToolFn fn);

  // Load every tool config that is compiled into the binary.
  Status load_builtin();
  // Load a config document: an array of tool entries, or {"tools": [...]}.
  // `family` names the source in listings. Each entry is checked: known type,
  // well-formed strict schema, examples valid. Fails without partial changes.
  Status load_config(const std::string& json_text, const std::string& family);
  // Load every *.json file in a directory (user extension tools).
  Status load_config_dir(const std::string& dir);

  const ToolSpec* find(const std::string& name) const;
  std::vector<const ToolSpec*> list() const;  // sorted by name
  size_t size() const { return specs_.size(); }

  // Validate + default + run. Never throws: an exception inside a tool becomes
  // an internal error Status. The returned Json is the tool's `data`.
  Result<Json> call(const std::string& name, const Json& args, ToolContext& ctx) const;
  // Same, wrapped: {"status":"success","data":...} or {"status":"error","error":{...}}.
  Json call_envelope(const std::string& name, const Json& args, ToolContext& ctx) const;

  // Exports, all from the same table.
  Json spec_json(const ToolSpec& spec) const;        // full description
  Json openai_function(const ToolSpec& spec) const;  // {"type":"function","function":{...}}
  Json mcp_tool(const ToolSpec& spec) const;         // {"name","description","inputSchema",...}

 private:
  std::map<std::string, ToolFn> types_;
  std::map<std::string, ToolSpec> specs_;
};

// Envelope helpers shared by CLI, HTTP and MCP.
Json success_envelope(Json data);
Json error_envelope(const Status& status);

// The built-in implementations are registered by register_builtin_types (bioagent/agent.h),
// each module's by its own register_<module>_tool_types.

}  // namespace bioagent
