#include "cli/commands.h"

#include <duckdb.h>
#include <simdjson.h>
#include <CLI/CLI.hpp>

#include <chrono>
#include <filesystem>
#include <iostream>
#include <optional>

#include "bioagent/bundle.h"
#include "bioagent/json_text.h"
#include "bioagent/mcp_server.h"
#include "bioagent/papers.h"
#include "bioagent/version.h"
#include "cli/assistant_cli.h"

#define STRINGIFY_SIMDJSON_(x) #x
#define STRINGIFY_SIMDJSON(x) STRINGIFY_SIMDJSON_(x)

#ifndef BIOAGENT_EXAMPLES_DIR
#define BIOAGENT_EXAMPLES_DIR "examples"
#endif

namespace bioagent::cli {
namespace {

std::string first_sentence(const std::string& text, size_t max) {
  size_t end = text.find(". ");
  std::string s = text.substr(0, end == std::string::npos ? text.size() : end + 1);
  if (s.size() > max) s = s.substr(0, max - 3) + "...";
  return s;
}

// One line per result: scalars as they are, arrays and objects by size.
std::string summarize(const Json& v) {
  if (!v.is_object()) return json_text(v);
  std::string out = "{";
  for (auto& [k, x] : v.items()) {
    out += (out.size() > 1 ? ", " : "") + k + ": ";
    if (x.is_array())
      out += "[" + std::to_string(x.size()) + " items]";
    else if (x.is_object())
      out += "{" + std::to_string(x.size()) + " keys}";
    else {
      std::string t = json_text(x);
      out += t.size() > 80 ? t.substr(0, 77) + "..." : t;
    }
  }
  return out + "}";
}

}  // namespace

void add_version_command(CLI::App& app, GlobalOptions& g) {
  auto* cmd = app.add_subcommand("version", "Print the versions of bioagent and of the libraries it runs on");
  cmd->callback([&g] {
    std::cout << "bioagent " << kVersion << "\n"
              << "duckdb " << duckdb_library_version() << "\n"
              << "simdjson " << STRINGIFY_SIMDJSON(SIMDJSON_VERSION) << "\n";
    g.exit_code = 0;
  });
}

namespace {

// `tools list --json`: every spec in the flavour asked for (spec, schema, openai, mcp).
Json tool_specs_json(const ToolRegistry& reg, const std::string& format) {
  Json out = Json::array();
  for (auto* spec : reg.list()) {
    if (format == "openai")
      out.push_back(reg.openai_function(*spec));
    else if (format == "mcp")
      out.push_back(reg.mcp_tool(*spec));
    else if (format == "schema")
      out.push_back({{"name", spec->name}, {"parameters", spec->parameters}});
    else
      out.push_back(reg.spec_json(*spec));
  }
  return out;
}

void add_tools_list_command(CLI::App* tools, GlobalOptions& g) {
  auto* list = tools->add_subcommand("list", "List every tool (name, family, summary)");
  static bool as_json = false;
  static std::string format = "spec";
  list->add_flag("--json", as_json, "Print the full specs as JSON");
  list->add_option("--format", format, "JSON flavour with --json: spec (default), schema, openai or mcp")
      ->check(CLI::IsMember({"spec", "schema", "openai", "mcp"}));
  static bool compact = false;
  list->add_flag("--compact", compact,
                 "With --format openai or mcp: the compact mode's four meta-tools (search, describe, call) instead");
  list->callback([&g] {
    auto s = Session::open(g);
    if (!s) {
      g.exit_code = print_error(s.status());
      return;
    }
    const auto& reg = *s->registry;
    if (as_json && compact && (format == "openai" || format == "mcp")) {
      std::cout << json_text(format == "openai" ? openai_compact_functions() : mcp_compact_tools(), 2) << std::endl;
      return;
    }
    if (as_json) {
      std::cout << json_text(tool_specs_json(reg, format), 2) << std::endl;
      return;
    }
    size_t width = 0;
    for (auto* spec : reg.list()) width = std::max(width, spec->name.size());
    for (auto* spec : reg.list()) {
      std::cout << spec->name << std::string(width + 2 - spec->name.size(), ' ') << "[" << spec->family << "] "
                << first_sentence(spec->description, 100) << "\n";
    }
    std::cout << reg.size() << " tools. `bioagent tools describe NAME` shows one in full." << std::endl;
  });
}

void add_tools_describe_command(CLI::App* tools, GlobalOptions& g) {
  auto* describe = tools->add_subcommand("describe", "Show one tool's description, parameters and examples");
  static std::string describe_name;
  describe->add_option("name", describe_name, "Tool name")->required();
  describe->callback([&g] {
    auto s = Session::open(g);
    if (!s) {
      g.exit_code = print_error(s.status());
      return;
    }
    const ToolSpec* spec = s->registry->find(describe_name);
    if (!spec) {
      g.exit_code =
          print_error(not_found("unknown tool '" + describe_name + "'; `bioagent tools list` shows the tools"));
      return;
    }
    std::cout << json_text(s->registry->spec_json(*spec), 2) << std::endl;
  });
}

void add_tools_run_command(CLI::App* tools, GlobalOptions& g) {
  auto* run = tools->add_subcommand("run", "Run a tool; prints {status, data} or {status, error} as JSON");
  static std::string run_name, run_args;
  static bool progress = false;
  run->add_option("name", run_name, "Tool name")->required();
  run->add_option("--args", run_args, "Arguments as a JSON object, or @FILE to read them from a file");
  run->add_flag("--progress", progress, "Show progress on stderr");
  run->callback([&g] {
    auto s = Session::open(g);
    if (!s) {
      g.exit_code = print_error(s.status());
      return;
    }
    auto args = parse_args_option(run_args);
    if (!args) {
      g.exit_code = print_error(args.status());
      return;
    }
    ToolContext ctx = s->context(g, progress);
    auto r = s->registry->call(run_name, *args, ctx);
    if (progress) std::cerr << "\n";
    if (!r) {
      g.exit_code = print_error(r.status());
      return;
    }
    std::cout << json_text(success_envelope(std::move(r).value()), 2) << std::endl;
  });
}

}  // namespace

void add_tools_commands(CLI::App& app, GlobalOptions& g) {
  auto* tools = app.add_subcommand("tools", "List, describe and run the registered tools");
  tools->require_subcommand(1);
  add_tools_list_command(tools, g);
  add_tools_describe_command(tools, g);
  add_tools_run_command(tools, g);
}

void add_mcp_command(CLI::App& app, GlobalOptions& g) {
  auto* cmd = app.add_subcommand("mcp", "Serve the tools over MCP (JSON-RPC 2.0 on stdin/stdout)");
  static size_t page_size = 50;
  static bool compact = false, no_runs = false;
  static AssistantCliOptions ao;
  cmd->add_option("--page-size", page_size, "Tools per tools/list page")->check(CLI::Range(1, 1000));
  cmd->add_flag("--compact", compact,
                "List four meta-tools (list_tool_categories, search_tools, describe_tool, call_tool) instead of "
                "every tool");
  add_assistant_options(cmd, ao);
  cmd->add_flag("--no-runs", no_runs, "Offer no gene-family runs (no tasks, no run resources; no state folder)");
  cmd->callback([&g] {
    // Gene-family runs as tasks: the assistant on the state folder `serve` uses (one session of it:
    // --session, else a new one). A server's unfinished tasks are left to the server to resume.
    std::optional<CliAssistant> runs;
    if (!no_runs) {
      auto a = open_cli_assistant(g, ao);
      if (a)
        runs.emplace(std::move(*a));
      else
        std::cerr << "bioagent mcp: gene-family runs are not offered: " << a.status().to_string() << "\n";
    }
    Session plain;
    if (!runs) {
      auto s = Session::open(g);
      if (!s) {
        g.exit_code = print_error(s.status());
        return;
      }
      plain = std::move(*s);
    }
    Session& s = runs ? runs->session : plain;
    McpOptions o;
    o.page_size = page_size;
    o.compact = compact;
    o.tool_timeout = std::chrono::milliseconds(static_cast<int64_t>(g.timeout_seconds * 1000));
    o.tool_options = s.tool_options;
    if (runs) {
      o.assistant = runs->assistant.get();
      o.assistant_session = runs->session_id;
      o.tool_options["assistant_state_dir"] = assistant_state_dir(ao.state_dir).string();
    }
    std::ios::sync_with_stdio(false);
    g.exit_code = run_mcp_stdio(*s.registry, *s.workspace, o, std::cin, std::cout);
    if (runs) runs->assistant->shutdown();
  });
}

void add_demo_command(CLI::App& app, GlobalOptions& g) {
  auto* cmd = app.add_subcommand("demo", "List the tools and run each on its bundled examples");
  static std::string examples = BIOAGENT_EXAMPLES_DIR;
  static bool online = false;
  cmd->add_option("--examples", examples, "The bundled examples folder");
  cmd->add_flag("--online", online, "Also run the examples that call remote services (literature APIs)");
  cmd->callback([&g] {
    namespace fs = std::filesystem;
    GlobalOptions local = g;
    // Examples name paths like "examples/notebooks": the root is the folder above.
    local.roots.insert(local.roots.begin(), fs::absolute(examples).parent_path().string());
    auto s = Session::open(local);
    if (!s) {
      g.exit_code = print_error(s.status());
      return;
    }
    // The paper library exists (maybe empty) so its SQL examples have a database to read.
    if (auto lib = PaperLibrary::open(s->tool_options["papers_db"]); !lib)
      std::cerr << lib.status().to_string() << "\n";
    std::cout << "bioagent " << kVersion << " demo: " << s->registry->size() << " tools registered\n\n";
    size_t runs = 0, failures = 0, skipped = 0;
    for (auto* spec : s->registry->list()) {
      std::cout << "== " << spec->name << " [" << spec->family << "]\n   " << first_sentence(spec->description, 110)
                << "\n";
      const std::string needs = spec->settings.value("examples_need", "");
      if (needs == "network" && !online) {
        std::cout << "   skipped: its examples call remote services (run `bioagent demo --online` to include them)\n\n";
        ++skipped;
        continue;
      }
      if (needs == "papers") {
        std::cout << "   skipped: its examples need a paper in the library (bioagent papers add FILE.pdf)\n\n";
        ++skipped;
        continue;
      }
      if (needs == "pdfs") {
        std::cout << "   skipped: its examples read PDF files of a workspace (bioagent tools run " << spec->name
                  << " --args '{\"paths\": [\"FILE.pdf\"]}')\n\n";
        ++skipped;
        continue;
      }
      for (auto& ex : spec->test_examples) {
        ToolContext ctx = s->context(local, false);
        auto t0 = std::chrono::steady_clock::now();
        auto r = s->registry->call(spec->name, ex, ctx);
        double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        ++runs;
        std::cout << "   args " << json_text(ex) << "  (" << static_cast<int>(ms * 1000) / 1000.0 << " ms)\n";
        if (!r) {
          ++failures;
          std::cout << "   ERROR " << r.status().to_string() << "\n";
          continue;
        }
        std::cout << "   -> " << summarize(*r) << "\n";
      }
      std::cout << "\n";
    }
    std::cout << runs << " example calls, " << failures << " failed";
    if (skipped) std::cout << ", " << skipped << " tools skipped (network, an empty paper library or no PDF files)";
    std::cout << ".\n";
    g.exit_code = failures ? 1 : 0;
  });
}

}  // namespace bioagent::cli

namespace bioagent::cli {

void add_data_commands(CLI::App& app, GlobalOptions& g) {
  auto* data = app.add_subcommand("data", "Data bundles for the data tools");
  data->require_subcommand(1);
  auto* ex = data->add_subcommand("example-bundle", "Write the generated demonstration bundle into a new folder");
  static std::string dir;
  ex->add_option("dir", dir, "Folder to create (must not exist, or be empty)")->required();
  ex->callback([&g] {
    Status s = write_example_bundle(dir);
    if (!s.is_ok()) {
      g.exit_code = print_error(s);
      return;
    }
    auto b = DataBundle::open(dir);
    if (!b) {
      g.exit_code = print_error(b.status());
      return;
    }
    std::cout << "wrote the example bundle (generated demonstration data) to " << b->root().string() << "\n"
              << "use it with: bioagent --bundle " << b->root().string() << " tools run get_processed_tf_data --args "
              << "'{\"dataset_identifier\": \"Naive\"}'" << std::endl;
  });
  auto* check = data->add_subcommand("check", "Check a bundle's manifest and list what it offers");
  static std::string check_dir;
  check->add_option("dir", check_dir, "Bundle folder")->required();
  check->callback([&g] {
    auto b = DataBundle::open(check_dir);
    if (!b) {
      g.exit_code = print_error(b.status());
      return;
    }
    Json out = {{"root", b->root().string()},          {"title", b->manifest().value("title", "")},
                {"tf_catalog", b->keys("tf_catalog")}, {"communities", b->keys("communities")},
                {"images", b->keys("images").size()},  {"navigation", b->keys("navigation").size()}};
    std::cout << json_text(out, 2) << std::endl;
  });
}

}  // namespace bioagent::cli
