// `bioagent serve` (the HTTP API, web UI and MCP over HTTP, on embedded
// defaults) and `bioagent learning export|import`.
#include <CLI/CLI.hpp>

#include <pthread.h>
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <thread>

#include "bioagent/api_server.h"
#include "bioagent/assistant.h"
#include "bioagent/bundle.h"
#include "bioagent/genefamily.h"
#include "bioagent/json_text.h"
#include "cli/assistant_cli.h"
#include "cli/commands.h"

namespace bioagent::cli {
namespace {

struct ServeOptions {
  ApiServerOptions api;
  AssistantCliOptions runs;  // state and data folders, --root, CPUs, runner, stages, stage parameters, model
  std::string port_file;
};

constexpr int kShutdownGraceSeconds = 5;

// SIGINT and SIGTERM are blocked in every thread and taken by one waiting
// thread, which stops the server (no work in a signal handler). Whatever still
// runs kShutdownGraceSeconds later is abandoned: the process exits (tasks
// resume on the next start, as after any crash).
void block_stop_signals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

void stop_on_signal(ApiServer* server) {
  std::thread([server] {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    int sig = 0;
    sigwait(&set, &sig);
    server->stop();
    std::this_thread::sleep_for(std::chrono::seconds(kShutdownGraceSeconds));
    std::cerr << "bioagent: work still running " << kShutdownGraceSeconds
              << " s after the stop signal is abandoned (tasks resume on the next start)" << std::endl;
    std::_Exit(0);
  }).detach();
}

// Idle and slow connections are cheap; let the process hold as many files as it may.
void raise_open_file_limit() {
  rlimit rl{};
  if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
    rl.rlim_cur = rl.rlim_max;
    setrlimit(RLIMIT_NOFILE, &rl);
  }
}

std::string env_or(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v && *v ? v : fallback;
}

}  // namespace

void add_serve_commands(CLI::App& app, GlobalOptions& g) {
  static ServeOptions o;
  auto* serve = app.add_subcommand("serve", "Serve the HTTP API, the web UI and MCP over HTTP (prints the URL)");
  serve->add_option("--host", o.api.host, "Address to listen on (beyond loopback a --token is required)");
  serve->add_option("--port", o.api.port, "Port (0: any free port)")->check(CLI::Range(0, 65535));
  serve->add_option("--token", o.api.token, "Bearer token for /api and /mcp (also BIOAGENT_API_TOKEN)");
  serve->add_option("--state-dir", o.runs.state_dir,
                    "Sessions, tasks, uploads and learning (default: beside the bundle)");
  serve->add_option("--root", o.runs.data_roots,
                    "A server-side data folder (e.g. /data/genomes): its species folders are listed to clients by "
                    "the folder's name and read in place, never copied (repeatable; also readable by tools)");
  serve->add_option("--stages", o.runs.stages, "Runs do only these stages (with what they need), comma-separated")
      ->delimiter(',');
  serve->add_option("--data-dir", o.runs.data_dir,
                    "Shared species folders (default: the generated example genome in the state folder)");
  serve->add_option("--web-dir", o.api.web_dir, "Built web UI (default: web/dist of the source tree, if built)");
  serve
      ->add_option("--confirm-timeout", o.runs.confirm_timeout,
                   "Seconds before the parameter dialog confirms the defaults")
      ->check(CLI::Range(1, 3600));
  serve->add_option("--cpus", o.runs.cpus, "CPUs for pipeline runs (default: all)");
  serve->add_option("--runner", o.runs.runner, "local or slurm")->check(CLI::IsMember({"local", "slurm"}));
  serve->add_option("--pipeline-params", o.runs.pipeline_params,
                    "JSON of per-stage parameters applied to every run, e.g. '{\"phylogeny\": {\"method\": "
                    "\"fasttree\"}}'");
  add_budget_options(serve, o.runs);
  serve->add_option("--model", o.runs.model, "Model name from the model catalog (default: its default; none: offline)");
  serve->add_option("--port-file", o.port_file, "Write the chosen port here once listening (for scripts)");
  static size_t max_upload_mb = 512;
  serve->add_option("--max-upload-mb", max_upload_mb, "Largest accepted upload request, in MiB (streamed to disk)")
      ->check(CLI::Range(1, 1 << 20));
  serve
      ->add_option("--threads", o.api.threads,
                   "Requests handled at once; half may be open event streams, each client holding at most three "
                   "quarters of those")
      ->check(CLI::Range(4, 4096));
  serve->add_option("--allowed-host", o.api.allowed_hosts,
                    "A Host name to accept besides the bound address (repeatable; behind a proxy or a DNS name)");
  serve->add_option("--allowed-origin", o.api.allowed_origins,
                    "An origin (scheme://host[:port]) trusted for state-changing requests and /mcp (repeatable)");
  serve->add_option("--read-timeout", o.api.read_timeout_seconds, "Seconds a connection may stay silent mid-request")
      ->check(CLI::Range(1, 3600));
  serve
      ->add_option("--header-timeout", o.api.header_timeout_seconds,
                   "Seconds a request line and its headers may take to arrive (at most --read-timeout)")
      ->check(CLI::Range(1, 3600));
  serve->add_option("--max-connections", o.api.max_connections, "Open connections held at once (beyond: 503)")
      ->check(CLI::Range(16, 1 << 20));
  serve
      ->add_option("--mcp-session-idle", o.api.mcp_session_idle_seconds,
                   "Seconds after which an unused MCP-over-HTTP session expires")
      ->check(CLI::Range(1, 7 * 86400));
  static bool mcp_compact = false;
  serve->add_flag("--mcp-compact", mcp_compact,
                  "MCP lists four meta-tools (search, describe, call) instead of every tool");
  static bool mcp_fixtures = false;
  serve
      ->add_flag("--mcp-conformance-fixtures", mcp_fixtures,
                 "Test only: also offer the MCP conformance suite's fixture tools, resources and prompts")
      ->group("");  // hidden from --help
  serve->callback([&g] {
    block_stop_signals();  // before any thread starts, so that all inherit it
    raise_open_file_limit();
    // serve's --root folders are data roots and readable by tools; the global --root ones only the latter.
    if (g.roots.empty() && !o.runs.data_roots.empty())
      g.roots.push_back(fs::current_path().string());  // tools' default
    g.roots.insert(g.roots.end(), o.runs.data_roots.begin(), o.runs.data_roots.end());
    auto s = Session::open(g);
    if (!s) {
      g.exit_code = print_error(s.status());
      return;
    }
    if (o.api.token.empty()) o.api.token = env_or("BIOAGENT_API_TOKEN", "");
    o.api.max_upload_bytes = max_upload_mb << 20;
    auto ro = run_service_options(o.runs, true);
    if (!ro) {
      g.exit_code = print_error(ro.status());
      return;
    }
    const fs::path state = ro->state_dir, data = ro->data_dir;
    std::error_code ec;
    // No tool reads the state folder (every session's uploads, chats and runs),
    // even when it lies under a workspace root; the example data written there stays readable.
    s->workspace->exclude(state);
    s->workspace->allow_inside_excluded(data);
    s->workspace->hide_absolute_paths();  // refusals to clients name no server path
    if (o.api.web_dir.empty()) {
      fs::path built = fs::path(BIOAGENT_SOURCE_DIR) / "web" / "dist";
      if (fs::exists(built / "index.html", ec)) o.api.web_dir = built;
    }
    AssistantOptions ao;
    ao.runs = *ro;
    ao.registry = s->registry.get();
    ao.workspace = s->workspace.get();
    ao.tool_options = s->tool_options;
    ao.model = o.runs.model;
    ao.max_upload_bytes = o.api.max_upload_bytes;
    auto assistant = Assistant::open(ao);
    if (!assistant) {
      g.exit_code = print_error(assistant.status());
      return;
    }
    McpOptions mo;
    mo.tool_timeout = std::chrono::milliseconds(static_cast<int64_t>(g.timeout_seconds * 1000));
    mo.tool_options = s->tool_options;
    mo.compact = mcp_compact;
    mo.conformance_fixtures = mcp_fixtures;
    mo.assistant = assistant->get();
    mo.tool_options["assistant_state_dir"] = state.string();  // assistant_chat: this server's store
    mo.tool_options["assistant_data_dir"] = data.string();
    SharedAssistant shared(state, **assistant);  // …and this server's assistant, not a second one on it
    auto server = ApiServer::create(**assistant, *s->registry, *s->workspace, mo, o.api);
    if (!server) {
      g.exit_code = print_error(server.status());
      return;
    }
    if (Status b = (*server)->bind(); !b.is_ok()) {
      g.exit_code = print_error(b);
      return;
    }
    stop_on_signal(server->get());
    std::string host = o.api.host.find(':') != std::string::npos ? "[" + o.api.host + "]" : o.api.host;
    std::cout << "bioagent serving on http://" << host << ":" << (*server)->port() << "/  (state: " << state.string()
              << ", data: " << data.string() << (o.api.token.empty() ? "" : ", bearer token required") << ")"
              << std::endl;
    if (!o.port_file.empty()) std::ofstream(o.port_file) << (*server)->port() << "\n";
    Status st = (*server)->listen();
    (*assistant)->shutdown();
    g.exit_code = st.is_ok() ? 0 : print_error(st);
  });

  auto* learning = app.add_subcommand("learning", "Share error patterns between installations (never user data)");
  learning->require_subcommand(1);
  static std::string file;
  auto open_store = [&g]() -> Result<std::unique_ptr<Assistant>> {
    auto s = Session::open(g);
    if (!s) return s.status();
    static Session keep;  // the assistant refers to the registry and workspace
    keep = std::move(*s);
    AssistantOptions ao;
    ao.runs.state_dir = assistant_state_dir(o.runs.state_dir);
    ao.runs.resume_tasks = false;
    ao.registry = keep.registry.get();
    ao.workspace = keep.workspace.get();
    ao.tool_options = keep.tool_options;
    ao.tool_options["offline"] = "1";
    return Assistant::open(ao);
  };
  auto* ex = learning->add_subcommand("export", "Write the learned error patterns as JSON");
  ex->add_option("--state-dir", o.runs.state_dir, "State folder of the server");
  ex->add_option("--out", file, "File to write (default: stdout)");
  ex->callback([&g, open_store] {
    auto a = open_store();
    auto r = a ? (*a)->runs().export_learning() : Result<Json>(a.status());
    if (!r) {
      g.exit_code = print_error(r.status());
      return;
    }
    if (file.empty())
      std::cout << json_text(*r, 2) << std::endl;
    else
      std::ofstream(file) << json_text(*r, 2) << "\n";
  });
  auto* im = learning->add_subcommand("import", "Add error patterns exported by another installation");
  im->add_option("--state-dir", o.runs.state_dir, "State folder of the server");
  im->add_option("file", file, "Export file")->required();
  im->callback([&g, open_store] {
    std::ifstream in(file);
    if (!in) {
      g.exit_code = print_error(not_found("cannot read " + file));
      return;
    }
    Json doc = Json::parse(in, nullptr, false);
    auto a = open_store();
    auto r = a ? (*a)->runs().import_learning(doc) : Result<Json>(a.status());
    g.exit_code = r ? (std::cout << json_text(*r, 2) << std::endl, 0) : print_error(r.status());
  });
}

}  // namespace bioagent::cli
