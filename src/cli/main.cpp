// bioagent command line. Every command goes through the tool registry; the CLI
// only parses options and prints. Nothing here throws past main(): errors are
// printed as JSON ({"status":"error",...}) with a non-zero exit code.
#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "bioagent/agent.h"
#include "bioagent/assistant.h"
#include "bioagent/bundle.h"
#include "bioagent/json_text.h"
#include "bioagent/mcp_server.h"
#include "bioagent/registry.h"
#include "bioagent/version.h"
#include "bioagent/workspace.h"
#include "cli/commands.h"

namespace bioagent::cli {

// The data bundle: --bundle, else BIOAGENT_BUNDLE, else the example bundle,
// which is written on first use (and said so on stderr).
Result<std::string> bundle_dir(const GlobalOptions& g) {
  if (!g.bundle.empty()) return g.bundle;
  if (const char* env = std::getenv("BIOAGENT_BUNDLE"); env && *env) return std::string(env);
  std::filesystem::path dir = default_bundle_dir();
  std::error_code ec;
  if (!std::filesystem::exists(dir / "bundle.json", ec)) {
    Status s = write_example_bundle(dir);
    if (!s.is_ok() && !std::filesystem::exists(dir / "bundle.json", ec)) return s;  // another process may have won
    if (s.is_ok())
      std::cerr << "bioagent: wrote the example data bundle (generated demonstration data) to " << dir.string() << "\n";
  }
  return dir.string();
}

Result<Session> Session::open(const GlobalOptions& g) {
  Session s;
  s.registry = std::make_unique<ToolRegistry>();
  register_builtin_types(*s.registry);
  BIOAGENT_RETURN_IF_ERROR(s.registry->load_builtin());
  BIOAGENT_RETURN_IF_ERROR(register_assistant_tool(*s.registry));  // the assistant itself, for MCP clients
  for (auto& dir : g.tool_dirs) BIOAGENT_RETURN_IF_ERROR(s.registry->load_config_dir(dir));
  auto bundle = bundle_dir(g);
  if (!bundle) return bundle.status();
  std::vector<std::string> roots = g.roots;
  if (roots.empty()) roots.push_back(std::filesystem::current_path().string());
  std::error_code ec;
  if (std::filesystem::is_directory(*bundle, ec)) roots.push_back(*bundle);  // the bundle is readable too
  s.tool_options["bundle_dir"] = *bundle;
  // Literature: cache, offline mode, keys and base URLs, all from the environment.
  auto env = [](const char* name) {
    const char* v = std::getenv(name);
    return std::string(v ? v : "");
  };
  std::string cache = env("BIOAGENT_CACHE_DIR");
  if (cache.empty() && !env("XDG_CACHE_HOME").empty()) cache = env("XDG_CACHE_HOME") + "/bioagent";
  if (cache.empty() && !env("HOME").empty()) cache = env("HOME") + "/.cache/bioagent";
  s.tool_options["cache_dir"] = cache;
  // Every agent run leaves its trajectory (JSONL) here.
  s.tool_options["trajectory_dir"] = !env("BIOAGENT_TRAJECTORY_DIR").empty()
                                         ? env("BIOAGENT_TRAJECTORY_DIR")
                                         : (cache.empty() ? "" : cache + "/trajectories");
  std::string papers = g.papers_db.empty() ? env("BIOAGENT_PAPERS_DB") : g.papers_db;
  if (papers.empty()) papers = (default_bundle_dir().parent_path() / "papers.duckdb").string();
  s.tool_options["papers_db"] = papers;
  s.tool_options["offline"] = (g.offline || env("BIOAGENT_OFFLINE") == "1") ? "1" : "0";
  s.tool_options["allow_private_urls"] = env("BIOAGENT_ALLOW_PRIVATE_URLS") == "1" ? "1" : "0";
  s.tool_options["contact_email"] = env("BIOAGENT_CONTACT_EMAIL");
  s.tool_options["ncbi_api_key"] = env("NCBI_API_KEY");
  // A dense collection from an OpenAI-compatible embedding server, when one is named.
  s.tool_options["embed_url"] = env("BIOAGENT_EMBED_URL");
  s.tool_options["embed_model"] = env("BIOAGENT_EMBED_MODEL");
  // The weight of that model's vote in ClassicRetrieve: given, or measured by bench/retrieval_eval.sh --tune.
  s.tool_options["embed_weight"] = env("BIOAGENT_EMBED_WEIGHT");
  s.tool_options["fusion_weights"] = !env("BIOAGENT_FUSION_WEIGHTS").empty() ? env("BIOAGENT_FUSION_WEIGHTS")
                                     : cache.empty()                         ? ""
                                                                             : cache + "/fusion_weights.json";
  s.tool_options["semantic_scholar_api_key"] = env("SEMANTIC_SCHOLAR_API_KEY");
  for (const char* src : {"pubmed", "europepmc", "clinicaltrials", "arxiv", "semantic_scholar", "ncbi_datasets"}) {
    std::string var = "BIOAGENT_BASE_URL_";
    for (const char* c = src; *c; ++c) var += static_cast<char>(std::toupper(static_cast<unsigned char>(*c)));
    s.tool_options[std::string("base_url.") + src] = env(var.c_str());
  }
  auto ws = Workspace::from_environment(roots);
  if (!ws) return ws.status();
  s.workspace = std::make_unique<Workspace>(std::move(*ws));
  return s;
}

ToolContext Session::context(const GlobalOptions& g, bool show_progress) const {
  ToolContext ctx(workspace.get());
  ctx.set_options(tool_options);
  ctx.set_timeout(std::chrono::milliseconds(static_cast<int64_t>(g.timeout_seconds * 1000)));
  ctx.set_log([](LogLevel level, const std::string& m) {
    if (level >= LogLevel::kInfo) std::cerr << "[bioagent] " << m << "\n";
  });
  if (show_progress) {
    ctx.set_progress([](double done, double total, const std::string& m) {
      if (total > 0)
        std::cerr << "\r[" << static_cast<int>(100 * done / total) << "%] " << m << std::flush;
      else
        std::cerr << "\r[" << done << "] " << m << std::flush;
    });
  }
  return ctx;
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
  Json j = parse_json_bounded(body);
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
  app.add_option("--bundle", g.bundle,
                 "Data bundle folder (with bundle.json) for the data tools; default: BIOAGENT_BUNDLE, else the "
                 "generated example bundle");
  app.add_option("--tools-dir", g.tool_dirs, "Load extra tool config files (*.json) from this directory (repeatable)");
  app.add_option("--papers-db", g.papers_db,
                 "Paper library database (DuckDB file); default: BIOAGENT_PAPERS_DB, else papers.duckdb beside the "
                 "example bundle");
  app.add_flag("--offline", g.offline,
               "Serve literature answers only from the local cache (also BIOAGENT_OFFLINE=1); nothing is fetched");
  app.add_option("--timeout", g.timeout_seconds, "Time limit for one tool call, in seconds")
      ->check(CLI::PositiveNumber);

  add_version_command(app, g);
  add_tools_commands(app, g);
  add_mcp_command(app, g);
  add_demo_command(app, g);
  add_data_commands(app, g);
  add_papers_commands(app, g);
  add_ask_command(app, g);
  add_chat_command(app, g);
  add_route_command(app, g);
  add_genefamily_commands(app, g);
  add_serve_commands(app, g);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  } catch (const std::exception& e) {  // firewall
    return print_error(internal_error(std::string("unexpected failure: ") + e.what()));
  }
  return g.exit_code;
}
