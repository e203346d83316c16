// Gene-family runs over MCP: the task tools (start, status, result, cancel)
// over the assistant's task store, so a run started here is the same task the
// web UI and the HTTP API show and survives a restart; and the runs' files,
// status and paper pages as resources.
#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>
#include <thread>

#include "bioagent/assistant.h"
#include "bioagent/json_text.h"
#include "bioagent/papers.h"
#include "mcp/mcp_internal.h"
#include "runs/dialog_form.h"
#include "runs/run_clients.h"

namespace bioagent::mcp {
namespace {

constexpr const char* kRunPrefix = "bioagent://runs/";
constexpr const char* kPaperPrefix = "bioagent://papers/";

// `required` empty or null: no required key (MCP clients want an array, never null).
Json object_schema(Json properties, Json required) {
  return {{"type", "object"},
          {"properties", std::move(properties)},
          {"required", required.is_array() ? std::move(required) : Json::array()},
          {"additionalProperties", false}};
}

const Json kTaskId = {{"type", "string"}, {"maxLength", 100}, {"description", "The task id (t_...)"}};
const Json kSessionId = {{"type", "string"},
                         {"maxLength", 100},
                         {"description",
                          "The assistant session the task belongs to (returned by genefamily_task_start; needed "
                          "after a server restart or for a task started in the web UI)"}};

std::string base64(std::string_view in) {
  static const char* k = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((in.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    uint32_t v = uint32_t(uint8_t(in[i])) << 16 | uint32_t(uint8_t(in[i + 1])) << 8 | uint8_t(in[i + 2]);
    for (int s = 18; s >= 0; s -= 6) out.push_back(k[(v >> s) & 63]);
  }
  if (i < in.size()) {
    uint32_t v = uint32_t(uint8_t(in[i])) << 16 | (i + 1 < in.size() ? uint32_t(uint8_t(in[i + 1])) << 8 : 0);
    out.push_back(k[(v >> 18) & 63]);
    out.push_back(k[(v >> 12) & 63]);
    out.push_back(i + 1 < in.size() ? k[(v >> 6) & 63] : '=');
    out.push_back('=');
  }
  return out;
}

bool is_text_mime(const std::string& mime) {
  return mime.rfind("text/", 0) == 0 || mime == "application/json" || mime == "image/svg+xml";
}

}  // namespace

bool terminal_state(const std::string& state) {
  auto s = task_state_from_string(state);
  return s && is_terminal(*s);
}

std::string mime_of(const std::string& file) {
  auto ext = fs::path(file).extension().string();
  for (auto& c : ext) c = char(std::tolower(static_cast<unsigned char>(c)));
  if (ext == ".md") return "text/markdown";
  if (ext == ".html" || ext == ".htm") return "text/html";
  if (ext == ".tsv") return "text/tab-separated-values";
  if (ext == ".csv") return "text/csv";
  if (ext == ".json") return "application/json";
  if (ext == ".svg") return "image/svg+xml";
  if (ext == ".png") return "image/png";
  if (ext == ".pdf") return "application/pdf";
  if (ext == ".nwk" || ext == ".txt" || ext == ".fa" || ext == ".fasta" || ext == ".gff3" || ext == ".log")
    return "text/plain";
  return "application/octet-stream";
}

bool parse_run_uri(const std::string& uri, RunUri& out) {
  if (uri.rfind(kRunPrefix, 0) != 0) return false;
  std::string rest = uri.substr(std::string(kRunPrefix).size());
  size_t slash = rest.find('/');
  if (slash == std::string::npos || slash == 0) return false;
  out.run = rest.substr(0, slash);
  out.path = rest.substr(slash + 1);
  if (out.run.size() > 100 || out.run.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_-") != std::string::npos)
    return false;
  return out.path == "status.json" || (out.path.rfind("final/", 0) == 0 && out.path.size() > 6);
}

RunBridge::RunBridge(Assistant& assistant, std::map<std::string, std::string> tool_options, std::string own_session,
                     std::string client)
    : assistant_(assistant),
      tool_options_(std::move(tool_options)),
      own_session_(std::move(own_session)),
      client_(std::move(client)) {
  if (!own_session_.empty()) sessions_.insert(own_session_);
}

Json RunBridge::tools() const {
  Json language = {{"type", "string"}, {"enum", {"en", "zh"}}};
  return Json::array(
      {{{"name", "genefamily_task_start"},
        {"description",
         "Start a gene-family analysis of a species' genome as a long-running task and return at once with its "
         "task id (follow it with genefamily_task_status / genefamily_task_result; cancel with "
         "genefamily_task_cancel). The task is the same one the web UI and the HTTP API show."},
        {"inputSchema",
         object_schema({{"species", {{"type", "string"}, {"maxLength", 200}}},
                        {"family", {{"type", "string"}, {"maxLength", 200}}},
                        {"language", language},
                        {"params", {{"type", "object"}, {"description", "the parameter dialog's values"}}},
                        {"data_folder",
                         {{"type", "string"},
                          {"maxLength", 1000},
                          {"description",
                           "ROOT:FOLDER of a server-side species folder (as genefamily_data_roots lists them), read "
                           "in place; the session keeps the choice"}}},
                        {"session_id", kSessionId}},
                       {"species", "family"})}},
       {{"name", "genefamily_data_roots"},
        {"description",
         "The server-side data roots (folders of species data too large to upload, read in place) and the species "
         "folders in each, with their files and the session's chosen folder."},
        {"inputSchema", object_schema({{"session_id", kSessionId}}, Json::array())}},
       {{"name", "genefamily_task_status"},
        {"description", "A gene-family task's state, each stage's state and the progress (stages done of total)."},
        {"inputSchema", object_schema({{"task_id", kTaskId}, {"session_id", kSessionId}}, {"task_id"})}},
       {{"name", "genefamily_task_result"},
        {"description",
         "A gene-family task's results (files as resource links: report, figures, tables, status.json). With "
         "wait_seconds it waits up to that long for the task to finish, sending progress notifications."},
        {"inputSchema", object_schema({{"task_id", kTaskId},
                                       {"session_id", kSessionId},
                                       {"wait_seconds", {{"type", "integer"}, {"minimum", 0}, {"maximum", 3600}}}},
                                      {"task_id"})}},
       {{"name", "genefamily_task_cancel"},
        {"description", "Cancel a gene-family task; its state becomes cancelled."},
        {"inputSchema", object_schema({{"task_id", kTaskId}, {"session_id", kSessionId}}, {"task_id"})}}});
}

bool RunBridge::owns(const std::string& tool) const {
  return tool == "genefamily_run" || tool == "genefamily_task_start" || tool == "genefamily_data_roots" ||
         tool == "genefamily_task_status" || tool == "genefamily_task_result" || tool == "genefamily_task_cancel";
}

Result<LinkedResult> RunBridge::call(const std::string& tool, const Json& args, const std::atomic<bool>& cancelled,
                                     const ToolContext::ProgressFn& progress, ClientChannel* client) {
  if (tool == "genefamily_run") return run_and_wait(args, cancelled, progress, client);
  if (tool == "genefamily_task_start") return start(args, client);
  if (tool == "genefamily_data_roots") return data_roots(args);
  if (tool == "genefamily_task_status") return status(args);
  if (tool == "genefamily_task_result") return result(args, cancelled, progress);
  if (tool == "genefamily_task_cancel") return cancel(args);
  return not_found("no task tool named " + tool);
}

Result<std::string> RunBridge::own_session() {
  std::lock_guard lock(mu_);
  if (!own_session_.empty()) return own_session_;
  auto s = assistant_.create_session();
  if (!s) return s.status();
  own_session_ = (*s).value("session_id", "");
  if (own_session_.empty()) return Status(ErrorCode::kInternal, "the assistant gave no session id");
  sessions_.insert(own_session_);
  return own_session_;
}

// The session a task belongs to, among those this MCP session holds (its own
// and any given as session_id, which is attached for later calls).
Result<std::string> RunBridge::session_for(const std::string& task_id, const Json& args) {
  if (auto named = attach_named_session(args); !named) return named.status();
  std::set<std::string> candidates;
  {
    std::lock_guard lock(mu_);
    auto it = task_sid_.find(task_id);
    if (it != task_sid_.end()) return it->second;
    candidates = sessions_;
  }
  for (auto& sid : candidates) {
    if (assistant_.runs().status(sid, task_id).is_ok()) {
      std::lock_guard lock(mu_);
      task_sid_[task_id] = sid;
      return sid;
    }
  }
  return not_found("no task '" + task_id.substr(0, 100) +
                   "' in this MCP session's assistant sessions (pass its session_id)");
}

// The session a call names (attached to this MCP session), else this MCP session's own.
Result<std::string> RunBridge::named_or_own_session(const Json& args) {
  auto named = attach_named_session(args);
  if (!named) return named.status();
  return named->empty() ? own_session() : *named;
}

Result<std::string> RunBridge::attach_named_session(const Json& args) {
  std::string sid = args.is_object() ? args.value("session_id", "") : "";
  if (sid.empty()) return sid;
  if (!assistant_.has_session(sid)) return not_found("no assistant session '" + sid.substr(0, 100) + "'");
  std::lock_guard lock(mu_);
  sessions_.insert(sid);
  return sid;
}

Result<LinkedResult> RunBridge::data_roots(const Json& args) {
  auto sid = named_or_own_session(args);
  if (!sid) return sid.status();
  auto r = assistant_.runs().data_roots(*sid);
  if (!r) return r.status();
  return LinkedResult{*r, Json::array()};
}

Result<LinkedResult> RunBridge::start(const Json& args, ClientChannel* client) {
  const bool form = client && client->supports(ClientAsk::kElicitation);
  const bool form_first = form && client->replays();
  Json params = args.value("params", Json::object());
  Json dialog;
  if (form_first) {  // before anything is stored: the call runs again with the answer
    auto first = ask_form_first(args, *client);
    if (!first) return first.status();
    dialog = (*first)["dialog"];
    if (!first->contains("params")) {
      dialog["outcome"] = dialog_outcome_text(dialog, form_language(args));
      return LinkedResult{{{"started", false}, {"dialog", dialog}}, Json::array()};
    }
    params = (*first)["params"];
  }
  auto named = named_or_own_session(args);
  if (!named) return named.status();
  std::string sid = *named;
  if (std::string folder = args.value("data_folder", ""); !folder.empty()) {
    size_t colon = folder.find(':');
    if (colon == std::string::npos)
      return invalid_argument("data_folder is ROOT:FOLDER, as genefamily_data_roots lists");
    auto chosen = assistant_.runs().select_data_folder(sid, folder.substr(0, colon), folder.substr(colon + 1));
    if (!chosen) return chosen.status();
  }
  auto plan = assistant_.plan(sid, args.value("species", ""), args.value("family", ""), args.value("language", ""));
  if (!plan) return plan.status();
  note_run_client(sid, client_);                // the run counts against this client's share
  const bool form_after = form && !form_first;  // the form is the started task's dialog
  auto task = form_after ? assistant_.execute_with_dialog(sid, plan->value("plan_id", ""), params)
                         : assistant_.execute(sid, plan->value("plan_id", ""), params, true);
  if (!task) return task.status();
  std::string id = (*task).value("task_id", "");
  {
    std::lock_guard lock(mu_);
    task_sid_[id] = sid;
  }
  Json data = *task;
  if (form_after) {
    dialog = confirm_by_form(assistant_.runs(), *client, sid, *task, form_language(args));
    if (auto st = assistant_.runs().status(sid, id))
      for (const char* k : {"state", "params", "run_params"}) data[k] = (*st).value(k, Json());
  }
  if (!dialog.is_null()) {
    dialog["outcome"] = dialog_outcome_text(dialog, form_language(args));
    data["dialog"] = dialog;
  }
  data["session_id"] = sid;
  data["status_uri"] = std::string(kRunPrefix) + id + "/status.json";
  return LinkedResult{data, links_of(id, sid)};
}

Result<LinkedResult> RunBridge::status(const Json& args) {
  std::string id = args.value("task_id", "");
  auto sid = session_for(id, args);
  if (!sid) return sid.status();
  auto st = assistant_.runs().status(*sid, id);
  if (!st) return st.status();
  return LinkedResult{*st, links_of(id, *sid)};
}

Result<LinkedResult> RunBridge::result(const Json& args, const std::atomic<bool>& cancelled,
                                       const ToolContext::ProgressFn& progress) {
  std::string id = args.value("task_id", "");
  auto sid = session_for(id, args);
  if (!sid) return sid.status();
  int64_t wait = args.contains("wait_seconds") && args["wait_seconds"].is_number_integer()
                     ? std::clamp<int64_t>(args["wait_seconds"].get<int64_t>(), 0, 3600)
                     : 0;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(wait);
  // Progress is the count of the task's events (it grows with each
  // notification, as the protocol requires); the message names the stage, its
  // state and the stages finished of all.
  int64_t after = 0;
  for (;;) {
    auto st = assistant_.runs().status(*sid, id);
    if (!st) return st.status();
    if (terminal_state((*st).value("state", "")) || std::chrono::steady_clock::now() >= deadline) break;
    if (cancelled.load()) return Status(ErrorCode::kCancelled, "the wait was cancelled (the task goes on)");
    Json events = assistant_.runs().events(*sid, id, after, std::chrono::milliseconds(500));
    for (auto& e : events) {
      ++after;
      if (!progress || !e.is_object()) continue;
      std::string type = e.value("type", "");
      if (type == "stage")
        progress(double(after), 0,
                 e.value("stage", "") + ": " + e.value("state", "") + " (" + std::to_string(e.value("done", 0)) + "/" +
                     std::to_string(e.value("total", 0)) + " stages)");
      else if (type == "state")
        progress(double(after), 0, "task " + e.value("state", "") + ": " + e.value("message", ""));
    }
  }
  auto r = assistant_.runs().results(*sid, id);
  if (!r) return r.status();
  Json data = *r;
  for (auto& f : data["files"]) {
    f["uri"] = std::string(kRunPrefix) + id + "/final/" + f.value("name", "");
    f.erase("url");
  }
  return LinkedResult{data, links_of(id, *sid)};
}

Result<LinkedResult> RunBridge::cancel(const Json& args) {
  std::string id = args.value("task_id", "");
  auto sid = session_for(id, args);
  if (!sid) return sid.status();
  auto st = assistant_.runs().status(*sid, id);
  if (!st) return st.status();
  if (terminal_state((*st).value("state", ""))) return LinkedResult{*st, Json::array()};
  auto r = assistant_.runs().cancel(*sid, id);  // waits briefly so the answer shows the outcome
  if (!r) return r.status();
  auto now = assistant_.runs().status(*sid, id);
  if (!now) return now.status();
  return LinkedResult{*now, Json::array()};
}

Json RunBridge::links_of(const std::string& task_id, const std::string& sid) {
  std::string base = std::string(kRunPrefix) + task_id + "/";
  Json links = Json::array({{{"uri", base + "status.json"},
                             {"name", task_id + "/status.json"},
                             {"mimeType", "application/json"},
                             {"description", "the run's stage states"}}});
  auto r = assistant_.runs().results(sid, task_id);
  if (!r) return links;
  for (auto& f : (*r)["files"]) {
    std::string name = f.value("name", "");
    links.push_back({{"uri", base + "final/" + name}, {"name", task_id + "/" + name}, {"mimeType", mime_of(name)}});
    if (mime_of(name) == "image/svg+xml")
      links.push_back({{"uri", base + "final/" + name + ".png"},
                       {"name", task_id + "/" + name + ".png"},
                       {"mimeType", "image/png"},
                       {"description", "the figure " + name + " rendered as PNG"}});
  }
  return links;
}

Json RunBridge::resource_templates() const {
  return Json::array({{{"uriTemplate", "bioagent://runs/{run}/status.json"},
                       {"name", "run status"},
                       {"description", "A gene-family run's status.json: each stage's state"},
                       {"mimeType", "application/json"}},
                      {{"uriTemplate", "bioagent://runs/{run}/final/{file}"},
                       {"name", "run result file"},
                       {"description",
                        "A file of a run's results: report (md, html), figures (svg; <figure>.svg.png is the "
                        "figure rendered as PNG), tables (tsv)"}},
                      {{"uriTemplate", "bioagent://papers/{paper_id}/pages/{n}"},
                       {"name", "paper page"},
                       {"description", "Page n (from 1) of a paper in the paper database, rendered as PNG"},
                       {"mimeType", "image/png"}}});
}

Json RunBridge::list_resources() {
  std::map<std::string, std::string> tasks;
  {
    std::lock_guard lock(mu_);
    tasks = task_sid_;
  }
  Json out = Json::array();
  for (auto& [id, sid] : tasks)
    for (auto& l : links_of(id, sid)) out.push_back(l);
  return out;
}

Result<Json> RunBridge::read(const std::string& uri) {
  if (uri.rfind(kPaperPrefix, 0) == 0) {
    std::string rest = uri.substr(std::string(kPaperPrefix).size());
    size_t at = rest.find("/pages/");
    if (at == std::string::npos || at == 0) return not_found("a paper page is bioagent://papers/{paper_id}/pages/{n}");
    std::string paper = rest.substr(0, at), n = rest.substr(at + 7);
    if (n.empty() || n.size() > 6 || n.find_first_not_of("0123456789") != std::string::npos)
      return invalid_argument("page number must be a positive integer");
    auto db = tool_options_.find("papers_db");
    if (db == tool_options_.end() || db->second.empty())
      return not_found("no paper database is configured (--papers-db)");
    auto img = view_image(db->second, paper, std::stoi(n), {}, 144);
    if (!img) return img.status();
    return Json{{"uri", uri}, {"mimeType", "image/png"}, {"blob", (*img).value("image_base64", "")}};
  }
  RunUri ru;
  if (!parse_run_uri(uri, ru)) return not_found("unknown resource '" + uri.substr(0, 200) + "'");
  auto sid = session_for(ru.run, Json::object());
  if (!sid) return sid.status();
  if (ru.path == "status.json") {
    auto r = assistant_.runs().results(*sid, ru.run);
    if (!r) return r.status();
    Json status = r->contains("status") ? (*r)["status"] : *assistant_.runs().status(*sid, ru.run);
    return Json{{"uri", uri}, {"mimeType", "application/json"}, {"text", json_text(status, 2)}};
  }
  const std::string name = ru.path.substr(6);
  if (is_rendered_png(name)) return read_rendered_png(uri, *sid, ru.run, name);
  auto file = assistant_.runs().result_file(*sid, ru.run, name);
  if (!file) return file.status();
  std::ifstream in(*file, std::ios::binary);
  std::string body((std::istreambuf_iterator<char>(in)), {});
  std::string mime = mime_of(file->filename().string());
  if (is_text_mime(mime)) return Json{{"uri", uri}, {"mimeType", mime}, {"text", body}};
  return Json{{"uri", uri}, {"mimeType", mime}, {"blob", base64(body)}};
}

// "<figure>.svg.png": the figure rendered to PNG for hosts that cannot show SVG.
bool RunBridge::is_rendered_png(const std::string& name) {
  return name.size() > 8 && name.compare(name.size() - 8, 8, ".svg.png") == 0;
}

Result<Json> RunBridge::read_rendered_png(const std::string& uri, const std::string& sid, const std::string& run,
                                          const std::string& name) {
  auto file = assistant_.runs().result_file(sid, run, name.substr(0, name.size() - 4));
  if (!file) return file.status();
  std::ifstream in(*file, std::ios::binary);
  std::string svg((std::istreambuf_iterator<char>(in)), {});
  auto png = svg_to_png(svg, 2, 4096);
  if (!png) return png.status();
  return Json{{"uri", uri},
              {"mimeType", "image/png"},
              {"blob", base64(png->png)},
              {"_meta", {{"width", png->width}, {"height", png->height}}}};
}

Result<std::string> RunBridge::version(const std::string& uri) {
  RunUri ru;
  if (!parse_run_uri(uri, ru)) return not_found("only run resources can be subscribed to");
  auto sid = session_for(ru.run, Json::object());
  if (!sid) return sid.status();
  auto st = assistant_.runs().status(*sid, ru.run);
  if (!st) return st.status();
  return (*st).value("state", "") + "/" + std::to_string((*st).value("events", 0));
}

std::vector<std::string> RunBridge::run_ids(const std::string& prefix) {
  std::lock_guard lock(mu_);
  std::vector<std::string> out;
  for (auto& [id, sid] : task_sid_)
    if (id.rfind(prefix, 0) == 0) out.push_back(id);
  return out;
}

std::vector<std::string> RunBridge::run_files(const std::string& run, const std::string& prefix) {
  std::vector<std::string> out;
  auto sid = session_for(run, Json::object());
  if (!sid) return out;
  auto r = assistant_.runs().results(*sid, run);
  if (!r) return out;
  for (auto& f : (*r)["files"]) {
    std::string name = f.value("name", "");
    if (name.rfind(prefix, 0) == 0) out.push_back(name);
  }
  return out;
}

}  // namespace bioagent::mcp
