// Fuzzes tool dispatch: the first byte picks one of the built-in tools, the rest
// is its JSON arguments (parsed with the depth bound every entry point uses),
// run offline in a temporary workspace. Any input must give a value or a clean
// Status; no tool may read outside the workspace.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include "bioagent/agent.h"
#include "bioagent/json_text.h"
#include "bioagent/registry.h"
#include "bioagent/workspace.h"

namespace {

struct Setup {
  bioagent::ToolRegistry registry;
  std::unique_ptr<bioagent::Workspace> workspace;
  std::vector<const bioagent::ToolSpec*> tools;
  std::filesystem::path dir;
  Setup() {
    bioagent::register_builtin_types(registry);
    if (!registry.load_builtin().is_ok()) __builtin_trap();
    dir = std::filesystem::temp_directory_path() / ("bioagent-fuzz-tools-" + std::to_string(getpid()));
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "t.csv") << "gene,value\nSPL1,1.5\nSPL2,\"a,b\"\n";
    std::ofstream(dir / "n.ipynb") << R"({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": []})";
    workspace = std::make_unique<bioagent::Workspace>(*bioagent::Workspace::create({dir.string()}));
    for (auto* t : registry.list()) tools.push_back(t);
    if (tools.empty()) __builtin_trap();
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static Setup s;
  if (size == 0 || size > 20000) return 0;
  const bioagent::ToolSpec* tool = s.tools[data[0] % s.tools.size()];
  bioagent::Json args =
      bioagent::parse_json_bounded(std::string_view(reinterpret_cast<const char*>(data) + 1, size - 1));
  if (!args.is_object()) return 0;
  bioagent::ToolContext ctx(s.workspace.get());
  ctx.set_option("offline", "1");
  ctx.set_option("cache_dir", (s.dir / "cache").string());
  ctx.set_option("papers_db", (s.dir / "none.duckdb").string());
  ctx.set_timeout(std::chrono::seconds(2));
  auto r = s.registry.call(tool->name, args, ctx);
  if (r.is_ok())
    (void)bioagent::json_text(*r);
  else
    (void)r.status().to_string();
  return 0;
}
