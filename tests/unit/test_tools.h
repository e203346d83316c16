// Tool implementations that exist only for tests of the registry and MCP layers:
// they exercise exceptions, cancellation, deadlines and progress reporting.
#pragma once

#include <chrono>
#include <stdexcept>
#include <thread>

#include "bioagent/registry.h"

namespace bioagent::testing {

inline Result<Json> echo_tool(const ToolSpec&, const Json& args, ToolContext&) { return args; }

inline Result<Json> throwing_tool(const ToolSpec&, const Json&, ToolContext&) { throw std::runtime_error("boom"); }

// Waits (checking cancellation) until cancelled or `ms` elapsed, reporting progress.
inline Result<Json> slow_tool(const ToolSpec&, const Json& args, ToolContext& ctx) {
  int ms = args.value("ms", 2000);
  for (int i = 0; i < ms / 10; ++i) {
    BIOAGENT_RETURN_IF_ERROR(ctx.check());
    ctx.progress(i, ms / 10, "waiting");
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return Json{{"waited_ms", ms}};
}

inline const char* kTestToolsConfig = R"([
  {"name": "echo", "type": "EchoTool", "description": "Returns its arguments.",
   "parameter": {"type": "object", "properties": {
      "text": {"type": "string"}, "n": {"type": "integer", "minimum": 0, "maximum": 10, "default": 3}},
      "required": ["text"], "additionalProperties": false},
   "return_schema": {"type": "object"},
   "test_examples": [{"text": "hi"}]},
  {"name": "explode", "type": "ThrowingTool", "description": "Always throws.",
   "parameter": {"type": "object", "properties": {}, "required": [], "additionalProperties": false}},
  {"name": "slow", "type": "SlowTool", "description": "Waits, reporting progress.",
   "parameter": {"type": "object", "properties": {"ms": {"type": "integer", "minimum": 1, "maximum": 60000}},
      "required": [], "additionalProperties": false},
   "return_schema": {"type": "object", "properties": {"waited_ms": {"type": "integer"}}}}
])";

inline void add_test_types(ToolRegistry& r) {
  r.add_type("EchoTool", echo_tool);
  r.add_type("ThrowingTool", throwing_tool);
  r.add_type("SlowTool", slow_tool);
}

}  // namespace bioagent::testing
