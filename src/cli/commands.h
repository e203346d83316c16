// The CLI's command table: each add_*_command registers one subcommand with CLI11.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "bioagent/registry.h"
#include "bioagent/workspace.h"

namespace CLI {
class App;
}

namespace bioagent::cli {

struct GlobalOptions {
  std::vector<std::string> roots;
  std::string bundle;  // --bundle, else BIOAGENT_BUNDLE, else the example bundle
  std::vector<std::string> tool_dirs;
  double timeout_seconds = 600;
  bool offline = false;
  std::string papers_db;
  int exit_code = 0;  // set by the command that ran
};

// Registry + workspace as configured by the global options.
struct Session {
  std::unique_ptr<ToolRegistry> registry;
  std::unique_ptr<Workspace> workspace;
  std::map<std::string, std::string> tool_options;  // given to every ToolContext
  static Result<Session> open(const GlobalOptions& g);
  ToolContext context(const GlobalOptions& g, bool show_progress) const;
};

int print_error(const Status& status);
Result<Json> parse_args_option(const std::string& text);

void add_version_command(CLI::App& app, GlobalOptions& g);
void add_tools_commands(CLI::App& app, GlobalOptions& g);
void add_mcp_command(CLI::App& app, GlobalOptions& g);
void add_demo_command(CLI::App& app, GlobalOptions& g);
void add_data_commands(CLI::App& app, GlobalOptions& g);
void add_papers_commands(CLI::App& app, GlobalOptions& g);
void add_ask_command(CLI::App& app, GlobalOptions& g);
void add_chat_command(CLI::App& app, GlobalOptions& g);
void add_route_command(CLI::App& app, GlobalOptions& g);
void add_genefamily_commands(CLI::App& app, GlobalOptions& g);
void add_serve_commands(CLI::App& app, GlobalOptions& g);

}  // namespace bioagent::cli
