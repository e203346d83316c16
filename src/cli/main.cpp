// bioagent command line. Every command goes through the tool registry; the CLI
// only parses options and prints. Nothing here throws past main(): errors are
// printed as JSON ({"status":"error",...}) with a non-zero exit code.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

#include "bioagent/json_text.h"
#include "bioagent/mcp_server.h"
#include "bioagent/registry.h"
#include "bioagent/version.h"
#include "bioagent/workspace.h"
#include "cli/commands.h"

namespace bioagent::cli {

Result<Session> Session::open(const GlobalOptions& g) {
  Session s;
  s.registry = std::make_unique<ToolRegistry>();
  register_builtin_types(*s.registry);
  BIOAGENT_RETURN_IF_ERROR(s.registry->load_builtin());
  for (auto& dir : g.tool_dirs) BIOAGENT_RETURN_IF_ERROR(s.registry->load_config_dir(dir));
  auto ws = Workspace::from_environment(g.roots);
  if (!ws) return ws.status();
  s.workspace = std::make_unique<Workspace>(std::move(*ws));
  return s;
}

int print_error(const Status& status) {
  std::cout << json_text(error_envelope(status), 2) << std::endl;
  std::cerr << "bioagent: " << status.to_string() << std::endl;
  return 1;
}

Result<Json> parse_args_option(const std::string& text) {
  std::string body = text;
  if (!text.empty() && text[0] == '@') {
    std::ifstream in(text.substr(1), std::ios::binary);
    if (!in) return not_found("cannot read arguments file '" + text.substr(1) + "'");
    std::stringstream ss;
    ss << in.rdbuf();
    body = ss.str();
  }
  if (body.empty()) return Json::object();
  Json j = Json::parse(body, nullptr, false);
  if (j.is_discarded()) return parse_error("--args is not valid JSON: " + body.substr(0, 200));
  if (!j.is_object()) return invalid_argument("--args must be a JSON object, e.g. '{\"expr\": \"1+1\"}'");
  return j;
}

}  // namespace bioagent::cli

int main(int argc, char** argv) {
  using namespace bioagent;
  using namespace bioagent::cli;
  CLI::App app{
      "bioagent: a native research assistant for biologists.\n"
      "Tools for data tables, executed notebooks, literature, papers and calculations,\n"
      "exposed to people (CLI), programs (MCP) and agents."};
  app.set_version_flag("--version", kVersion);
  app.require_subcommand(1);
  GlobalOptions g;
  app.add_option("--root", g.roots,
                 "A directory file-reading tools may read under (repeatable; default: the current directory; "
                 "BIOAGENT_ROOTS adds more, ':'-separated)");
  app.add_option("--tools-dir", g.tool_dirs, "Load extra tool config files (*.json) from this directory (repeatable)");
  app.add_option("--timeout", g.timeout_seconds, "Time limit for one tool call, in seconds")
      ->check(CLI::PositiveNumber);

  add_version_command(app, g);
  add_tools_commands(app, g);
  add_mcp_command(app, g);
  add_demo_command(app, g);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  } catch (const std::exception& e) {  // firewall
    return print_error(internal_error(std::string("unexpected failure: ") + e.what()));
  }
  return g.exit_code;
}
