// The assistant in the terminal: `bioagent chat` (a session of the same
// assistant the web chat talks to: plans, the parameter dialog as a prompt
// with its countdown, the run's progress and outcome) and `bioagent route`
// (the router's decision, or its accuracy over a case file). Sessions live in
// the server's state folder, so a run started in one surface can be followed
// from the other.
#include <poll.h>
#include <unistd.h>

#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <functional>
#include <iostream>
#include <optional>
#include <sstream>
#include <thread>

#include "bioagent/assistant.h"
#include "bioagent/bundle.h"
#include "bioagent/genefamily.h"
#include "bioagent/input_limits.h"
#include "bioagent/json_text.h"
#include "cli/assistant_cli.h"
#include "cli/commands.h"

namespace bioagent::cli {

fs::path assistant_state_dir(const std::string& given) {
  return given.empty() ? default_bundle_dir().parent_path() / "state" : fs::path(given);
}

Result<fs::path> assistant_data_dir(const fs::path& state, const std::string& given) {
  if (!given.empty()) return fs::path(given);
  fs::path data = state / "example-data";  // embedded default: the generated example genome
  std::error_code ec;
  if (!fs::exists(data / "Exam" / "truth.json", ec)) {
    std::cerr << "bioagent: writing the example genome to " << (data / "Exam").string() << "\n";
    auto ex = write_example_genome(data / "Exam");
    if (!ex) return ex.status();
  }
  return data;
}

void add_budget_options(CLI::App* cmd, AssistantCliOptions& o) {
  cmd->add_option("--stage-memory-mb", o.stage_memory_mb,
                  "Memory each stage's own code may use, in MiB (default: by the stage's size: 2048, 8192 or 32768)")
      ->check(CLI::Range(int64_t(64), int64_t(1) << 30));
  cmd->add_option("--run-disk-mb", o.run_disk_mb, "What one run may write, in MiB (default 65536; 0: no limit)")
      ->check(CLI::Range(int64_t(0), int64_t(1) << 40));
  cmd->add_option("--input-limit", o.input_limits,
                  "KEY=N: raise or lower one limit of what an input file may cost its reader (repeatable; the "
                  "limits and their defaults: docs/security.md), e.g. line_bytes=8388608");
}

void add_assistant_options(CLI::App* cmd, AssistantCliOptions& o) {
  cmd->add_option("--state-dir", o.state_dir, "The server's state folder (default: beside the bundle, as serve)");
  cmd->add_option("--data-dir", o.data_dir, "Shared species folders (default: the example genome, as serve)");
  cmd->add_option("--root", o.data_roots,
                  "A folder of species data read in place, as serve's --root (repeatable; /roots lists them)");
  cmd->add_option("--session", o.session, "Continue this session (default: a new one)");
  cmd->add_option("--confirm-timeout", o.confirm_timeout, "Seconds before the parameter dialog keeps the defaults")
      ->check(CLI::Range(1, 3600));
  cmd->add_option("--cpus", o.cpus, "CPUs for pipeline runs (default: all)");
  cmd->add_option("--stages", o.stages, "Runs do only these stages (with what they need), comma-separated")
      ->delimiter(',');
  cmd->add_option("--pipeline-params", o.pipeline_params, "JSON of per-stage parameters, as serve takes");
  add_budget_options(cmd, o);
}

Result<RunServiceOptions> run_service_options(const AssistantCliOptions& o, bool resume_tasks) {
  RunServiceOptions ro;
  ro.state_dir = assistant_state_dir(o.state_dir);
  auto data = assistant_data_dir(ro.state_dir, o.data_dir);
  if (!data) return data.status();
  ro.data_dir = *data;
  auto roots = name_data_roots(o.data_roots);
  if (!roots) return roots.status();
  ro.data_roots = *roots;
  Json given = o.pipeline_params.empty() ? Json::object() : Json::parse(o.pipeline_params, nullptr, false);
  if (!given.is_object()) return invalid_argument("--pipeline-params is not a JSON object");
  InputLimits limits = InputLimits{};
  for (auto& kv : o.input_limits) {
    auto l = limits.with_option(kv);
    if (!l) return l.status();
    limits = *l;
    const std::string key = kv.substr(0, kv.find('='));
    given["input_limits"][key] = limits.to_json()[key];
  }
  ro.cpus = o.cpus > 0 ? o.cpus : int(std::max(1u, std::thread::hardware_concurrency()));
  ro.runner = o.runner;
  ro.slurm_partition = o.slurm_partition;
  ro.slurm_mem_cap_mb = o.slurm_mem_cap_mb;
  ro.stage_time_limit_minutes = o.stage_time_limit_minutes;
  ro.stage_memory_mb = o.stage_memory_mb;
  ro.run_disk_mb = o.run_disk_mb;
  std::error_code ec;
  ro.stage_helper = fs::read_symlink("/proc/self/exe", ec).string();  // this program runs the stages' own code
  auto base = parse_run_params(given, genefamily_pipeline(), ro.runner == "slurm" ? 1 << 16 : ro.cpus);
  if (!base) return Status(base.status().code(), "--pipeline-params: " + base.status().message());
  ro.base_params = *base;
  ro.confirm_timeout_seconds = o.confirm_timeout;
  ro.stages = o.stages;
  ro.resume_tasks = resume_tasks;
  return ro;
}

Result<CliAssistant> open_cli_assistant(const GlobalOptions& g, const AssistantCliOptions& o) {
  CliAssistant c;
  auto ro = run_service_options(o, false);  // the server resumes unfinished tasks; a terminal never runs them twice
  if (!ro) return ro.status();
  GlobalOptions readable = g;  // the data roots are readable by tools too, as in serve
  if (readable.roots.empty() && !o.data_roots.empty()) readable.roots.push_back(fs::current_path().string());
  readable.roots.insert(readable.roots.end(), o.data_roots.begin(), o.data_roots.end());
  auto s = Session::open(readable);
  if (!s) return s.status();
  c.session = std::move(*s);
  const fs::path state = ro->state_dir;
  // As in serve: no tool reads the state folder (every session's uploads and runs), even inside a root.
  c.session.workspace->exclude(state);
  c.session.workspace->allow_inside_excluded(ro->data_dir);
  AssistantOptions ao;
  ao.runs = *ro;
  ao.registry = c.session.registry.get();
  ao.workspace = c.session.workspace.get();
  ao.tool_options = c.session.tool_options;
  ao.model = o.model == "none" ? "" : o.model;
  auto a = Assistant::open(ao);
  if (!a) return a.status();
  c.assistant = std::move(*a);
  if (!o.session.empty()) {
    if (!c.assistant->has_session(o.session)) return not_found("no session '" + o.session + "' in " + state.string());
    c.session_id = o.session;
  } else {
    auto sid = c.assistant->create_session();
    if (!sid) return sid.status();
    c.session_id = (*sid)["session_id"].get<std::string>();
  }
  return c;
}

std::string render_sources(const Json& reply) {
  const Json& src = reply.contains("sources") && reply["sources"].is_array() ? reply["sources"] : Json::array();
  if (src.empty() || reply.value("agent", "") == "tools") return "";  // the tool agent's answer lists its own
  std::string out = "\nSources:\n";
  int n = 0;
  for (auto& s : src) {
    ++n;
    auto str = [&](const char* k) {
      return s.is_object() && s.contains(k) && s[k].is_string() ? s[k].get<std::string>() : "";
    };
    std::string title = str("title").empty() ? str("citation") : str("title");
    std::string where = str("source").empty() ? str("url") : str("source");
    out += "[" + std::to_string(s.is_object() && s.contains("n") && s["n"].is_number() ? s["n"].get<int>() : n) + "] " +
           (title.empty() ? "(untitled)" : title) + (where.empty() ? "" : " — " + where) + "\n";
  }
  return out;
}

namespace {

struct ChatCliOptions {
  AssistantCliOptions a;
};

// A line from stdin within `seconds` (countdown shown on stderr); nullopt on timeout or once
// `still_asked` turns false (answered elsewhere), "\x04" at end of input.
std::optional<std::string> read_line_within(int seconds, const std::string& prompt,
                                            const std::function<bool()>& still_asked) {
  for (int left = seconds; left > 0; --left) {
    if (!still_asked()) break;
    std::cerr << "\r" << prompt << " (" << left << " s) " << std::flush;
    pollfd p{0, POLLIN, 0};
    if (poll(&p, 1, 1000) > 0) {
      std::string line;
      if (!std::getline(std::cin, line)) return std::string("\x04");
      std::cerr << "\n";
      return line;
    }
  }
  std::cerr << "\n";
  return std::nullopt;
}

// "cpu=4 evalue=1e-10" -> {"cpu": 4, "evalue": 1e-10}; values that parse as JSON keep their type.
Json parse_assignments(const std::string& line) {
  Json out = Json::object();
  std::istringstream in(line);
  for (std::string tok; in >> tok;) {
    size_t eq = tok.find('=');
    if (eq == std::string::npos || eq == 0) continue;
    Json v = Json::parse(tok.substr(eq + 1), nullptr, false);
    out[tok.substr(0, eq)] = v.is_discarded() ? Json(tok.substr(eq + 1)) : v;
  }
  return out;
}

bool awaiting_confirmation(Assistant& a, const std::string& sid, const std::string& task) {
  auto st = a.runs().status(sid, task);
  return st && st->value("state", "") == "awaiting_confirmation";
}

// The parameter dialog in the terminal: Enter confirms, key=value changes, "cancel" stops;
// silence until the countdown ends leaves the defaults to the task (it confirms them itself).
// The same run's dialog answered on another surface (the web page, the API) ends it.
void parameter_dialog(Assistant& a, const std::string& sid, const std::string& task, const Json& event, Lang lang) {
  if (!awaiting_confirmation(a, sid, task)) return;  // answered already (a followed run's earlier dialog)
  std::cout << BiText{"Parameters:", "参数确认："}.in(lang) << "\n";
  const Json params = event.value("params", Json::object());
  for (auto& [k, v] : params.items()) std::cout << "  " << k << " = " << json_text(v) << "\n";
  std::cout << std::flush;
  int timeout = event.value("timeout_seconds", 30);
  if (event.contains("deadline") && event["deadline"].is_number()) {  // what is left of it (a followed run's dialog)
    const double now = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
    timeout = int(std::clamp<double>(event["deadline"].get<double>() - now, 1, timeout));
  }
  std::string prompt = BiText{"Enter confirms, key=value changes, cancel stops; defaults when the time is up",
                              "回车确认，key=value 修改，cancel 取消；超时使用默认参数"}
                           .in(lang);
  auto line = read_line_within(timeout, prompt, [&] { return awaiting_confirmation(a, sid, task); });
  if (!line || *line == "\x04") return;  // the task confirms the defaults at its deadline
  std::string action = *line == "cancel" ? "cancel" : line->find('=') != std::string::npos ? "modify" : "confirm";
  auto r = a.runs().answer(sid, task, action, action == "modify" ? parse_assignments(*line) : Json::object());
  if (!r) std::cerr << "bioagent: " << r.status().message() << "\n";
}

// A terminal task state, by the assistant's one list (TaskState).
bool final_state(const std::string& state) {
  auto s = task_state_from_string(state);
  return s && is_terminal(*s);
}

void print_reply(const Json& reply) { std::cout << reply.value("answer", "") << render_sources(reply) << std::endl; }

// /roots: the data roots' species folders (name, prefix, files and sizes), the session's choice marked.
void print_data_roots(Assistant& a, const std::string& sid) {
  auto r = a.runs().data_roots(sid);
  if (!r) {
    std::cerr << "bioagent: " << r.status().message() << "\n";
    return;
  }
  if ((*r)["roots"].empty()) std::cout << "No data roots: start chat with --root FOLDER (as serve --root).\n";
  const Json& chosen = (*r)["selected"];
  for (auto& root : (*r)["roots"]) {
    std::cout << root.value("name", "") << ":" << (root["folders"].empty() ? " (no species folder found)" : "") << "\n";
    for (auto& f : root["folders"]) {
      bool mine = chosen.is_object() && chosen.value("root", "") == root.value("name", "") &&
                  chosen.value("folder", "") == f.value("folder", "");
      std::cout << (mine ? "* " : "  ") << f.value("folder", "") << "  prefix " << f.value("prefix", "?") << "\n";
      for (auto& file : f.value("files", Json::array()))
        std::cout << "      " << file.value("name", "") << " (" << file.value("kind", "") << ", "
                  << file.value("bytes", int64_t(0)) << " bytes"
                  << (file.contains("read_as") ? ", read as " + file.value("read_as", "") : "") << ")\n";
    }
  }
  std::cout << "/use ROOT:FOLDER picks one for this session's plans and runs (/use - clears it)." << std::endl;
}

// /use ROOT:FOLDER (or "/use -"): the session's data folder, checked as the API checks it.
void use_data_folder(Assistant& a, const std::string& sid, const std::string& arg) {
  size_t colon = arg.find(':');
  if (arg != "-" && colon == std::string::npos) {
    std::cerr << "bioagent: /use ROOT:FOLDER (as /roots lists them), or /use - to clear the choice\n";
    return;
  }
  auto r = arg == "-" ? a.runs().select_data_folder(sid, "", "")
                      : a.runs().select_data_folder(sid, arg.substr(0, colon), arg.substr(colon + 1));
  if (!r)
    std::cerr << "bioagent: " << r.status().message() << "\n";
  else
    std::cout << json_text(*r, 2) << std::endl;
}

// One line of the session: a command (/follow TASK, /status TASK, /cancel TASK, /roots, /use ROOT:FOLDER,
// /quit) or a chat turn.
// A followed run's parameter dialog is answered here too, wherever the run started.
bool chat_line(CliAssistant& c, const std::string& line, Lang default_lang) {
  Assistant& a = *c.assistant;
  if (line == "/quit" || line == "/exit") return false;
  if (line == "/roots") return print_data_roots(a, c.session_id), true;
  if (line.rfind("/use ", 0) == 0) return use_data_folder(a, c.session_id, line.substr(5)), true;
  if (line.rfind("/follow ", 0) == 0 || line.rfind("/status ", 0) == 0 || line.rfind("/cancel ", 0) == 0) {
    std::string task = line.substr(8);
    if (line[1] == 's') {
      auto st = a.runs().status(c.session_id, task);
      std::cout << (st ? json_text(*st, 2) : st.status().to_string()) << std::endl;
    } else if (line[1] == 'c') {
      auto r = a.runs().cancel(c.session_id, task);
      std::cout << (r ? json_text(*r, 2) : r.status().to_string()) << std::endl;
    } else {
      follow_task(a, c.session_id, task, true, default_lang);
    }
    return true;
  }
  auto r = a.chat(c.session_id, line, nullptr, ChatOptions{"rag", c.chat_model});
  if (!r) {
    std::cerr << "bioagent: " << r.status().to_string() << std::endl;
    return true;
  }
  print_reply(*r);
  const Lang lang = lang_or_en(r->value("route", Json::object()).value("language", ""));
  const std::string intent = r->value("route", Json::object()).value("intent", "");
  // A run started or resumed by this turn is followed; a stop's task is not (it ends where it is).
  if (r->contains("task") && (*r)["task"].contains("task_id") && intent != to_string(Intent::kStop))
    follow_task(a, c.session_id, (*r)["task"]["task_id"].get<std::string>(), true, lang,
                [&c](const std::string& typed) {
                  auto turn = c.assistant->chat(c.session_id, typed, nullptr, ChatOptions{"rag", c.chat_model});
                  if (turn)
                    print_reply(*turn);
                  else
                    std::cerr << "bioagent: " << turn.status().to_string() << std::endl;
                });
  return true;
}

}  // namespace

void follow_task(Assistant& a, const std::string& sid, const std::string& task, bool interactive, Lang lang,
                 const std::function<void(const std::string&)>& on_line) {
  std::cout << "· " << BiText{"task ", "任务 "}.in(lang) << task
            << BiText{" (/follow it from elsewhere)", "（另一处可用 /follow 跟进）"}.in(lang) << "\n";
  int64_t after = 0;
  for (;;) {
    if (on_line) {  // a line typed while the run goes on is a chat turn (stop it, ask something)
      pollfd p{0, POLLIN, 0};
      std::string line;
      if (poll(&p, 1, 0) > 0 && std::getline(std::cin, line) && !line.empty()) on_line(line);
    }
    Json events = a.runs().events(sid, task, after, std::chrono::milliseconds(1000));
    for (auto& e : events) {
      after = e.value("seq", after);
      std::string type = e.value("type", "");
      if (type == "stage") {
        std::cout << "· [" << e.value("done", 0) << "/" << e.value("total", 0) << "] " << e.value("stage", "") << ": "
                  << e.value("state", "")
                  << (e.value("message", "").empty() ? "" : " — " + e.value("message", "").substr(0, 160)) << "\n";
      } else if (type == "state") {
        std::cout << "· " << BiText{"task ", "任务 "}.in(lang) << e.value("state", "") << ": " << e.value("message", "")
                  << "\n";
      } else if (type == "confirm") {
        if (interactive) parameter_dialog(a, sid, task, e, lang);
      } else if (type == "confirmed") {
        std::cout << "· " << e.value("message", "") << "\n";
      } else if (type == "outcome") {
        std::cout << "\n" << e.value("text", e.value("message", "")) << "\n";
      }
      std::cout << std::flush;
      if (type == "state" && final_state(e.value("state", ""))) return;
    }
    auto st = a.runs().status(sid, task);
    if (!st) {
      std::cerr << "bioagent: " << st.status().message() << "\n";
      return;
    }
    if (events.empty() && final_state((*st).value("state", ""))) return;
  }
}

void add_chat_command(CLI::App& app, GlobalOptions& g) {
  static ChatCliOptions o;
  auto* chat = app.add_subcommand("chat", "A terminal session of the assistant: ask, plan, confirm, run, follow");
  add_assistant_options(chat, o.a);
  chat->add_option("--model", o.a.model, "Model name from the model configuration (none: the offline agents)");
  chat->callback([&g] {
    auto c = open_cli_assistant(g, o.a);
    if (!c) {
      g.exit_code = print_error(c.status());
      return;
    }
    c->chat_model = o.a.model;
    std::cout << "bioagent chat — session " << c->session_id
              << " (/follow TASK, /status TASK, /cancel TASK, /roots, /use ROOT:FOLDER, /quit)" << std::endl;
    bool tty = isatty(0);
    for (std::string line;;) {
      if (tty) std::cout << "> " << std::flush;
      if (!std::getline(std::cin, line)) break;
      if (line.empty()) continue;
      if (!chat_line(*c, line, Lang::kEn)) break;
    }
    c->assistant->shutdown();
    g.exit_code = 0;
  });
}

void add_route_command(CLI::App& app, GlobalOptions& g) {
  static std::string message, cases, pdfs, work;
  static bool rules_only = false;
  auto* route = app.add_subcommand("route", "Show how the router reads a message, or its accuracy over a case file");
  route->add_option("message", message, "The message");
  route->add_option("--cases", cases,
                    "A case file: intent<TAB>family<TAB>message a line (tests/data/router_cases.tsv), or "
                    "id<TAB>intent<TAB>family<TAB>species<TAB>context<TAB>gold<TAB>message "
                    "(tests/data/router_fresh_*.tsv), each context set up for real");
  route->add_option("--pdfs", pdfs,
                    "The PDFs of the library context (default: $BIOAGENT_FIXTURES_DIR/pdfs; without them those "
                    "cases are skipped and counted)");
  route->add_option("--work", work, "Folder for the evaluation's sessions and library (default: a temporary one)");
  route->add_flag("--rules-only", rules_only,
                  "Route the cases by the rules with the compiled-in sources only (no session, bundle or library)");
  route->callback([&g] {
    if (cases.empty() && message.empty()) {
      g.exit_code = print_error(invalid_argument("give a message or --cases FILE"));
      return;
    }
    if (cases.empty()) {
      std::cout << json_text(route_by_rules(message).to_json(), 2) << std::endl;
      return;
    }
    Result<Json> r = Json();
    if (rules_only) {
      r = evaluate_router_cases(cases);
    } else {
      auto s = Session::open(g);
      if (!s) {
        g.exit_code = print_error(s.status());
        return;
      }
      RouterEvalOptions o;
      o.registry = s->registry.get();
      o.workspace = s->workspace.get();
      o.tool_options = s->tool_options;
      const char* fixtures = std::getenv("BIOAGENT_FIXTURES_DIR");
      o.pdf_dir = !pdfs.empty() ? fs::path(pdfs) : fixtures && *fixtures ? fs::path(fixtures) / "pdfs" : fs::path();
      std::error_code ec;
      const bool temporary = work.empty();
      o.work_dir = temporary ? fs::temp_directory_path() / ("bioagent-route-eval-" + std::to_string(::getpid()))
                             : fs::path(work);
      r = evaluate_router_cases(cases, o);
      if (temporary) fs::remove_all(o.work_dir, ec);
    }
    if (!r) {
      g.exit_code = print_error(r.status());
      return;
    }
    std::cout << json_text(*r, 2) << std::endl;
  });
}

}  // namespace bioagent::cli
