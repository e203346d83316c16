#include "bioagent/mcp_server.h"
#include "bioagent/json_text.h"

#include <atomic>
#include <condition_variable>
#include <istream>
#include <map>
#include <mutex>
#include <ostream>
#include <thread>

#include "bioagent/registry.h"
#include "bioagent/version.h"
#include "bioagent/workspace.h"

namespace bioagent {

namespace {

// JSON-RPC 2.0 error codes.
constexpr int kParseError = -32700;
constexpr int kInvalidRequest = -32600;
constexpr int kMethodNotFound = -32601;
constexpr int kInvalidParams = -32602;
constexpr int kInternalError = -32603;
constexpr int kServerBusy = -32000;

Json rpc_error(const Json& id, int code, const std::string& message, Json data = nullptr) {
  Json err = {{"code", code}, {"message", message}};
  if (!data.is_null()) err["data"] = std::move(data);
  return {{"jsonrpc", "2.0"}, {"id", id}, {"error", std::move(err)}};
}

Json rpc_result(const Json& id, Json result) { return {{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}}; }

std::string id_key(const Json& id) { return json_text(id); }

}  // namespace

const std::vector<std::string>& mcp_supported_versions() {
  static const std::vector<std::string> kVersions = {"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"};
  return kVersions;
}

struct McpSession::Impl {
  const ToolRegistry& registry;
  const Workspace& workspace;
  McpOptions options;
  Sink sink;

  std::mutex send_mu;
  std::mutex calls_mu;
  std::condition_variable calls_cv;
  std::map<std::string, std::shared_ptr<std::atomic<bool>>> inflight;  // id → cancel flag
  struct Worker {
    std::thread thread;
    std::shared_ptr<std::atomic<bool>> done;
  };
  std::vector<Worker> workers;  // touched only by the thread calling handle()
  std::string negotiated_version;

  Impl(const ToolRegistry& r, const Workspace& w, McpOptions o, Sink s)
      : registry(r), workspace(w), options(std::move(o)), sink(std::move(s)) {}

  void send(const Json& msg) {
    std::string line = json_text(msg);
    std::lock_guard<std::mutex> lock(send_mu);
    sink(line);
  }

  void handle(const std::string& text) {
    if (text.size() > options.max_message_bytes) {
      send(rpc_error(nullptr, kInvalidRequest,
                     "message larger than " + std::to_string(options.max_message_bytes) + " bytes"));
      return;
    }
    Json msg = parse_json_bounded(text);
    if (msg.is_discarded()) {
      send(rpc_error(nullptr, kParseError,
                     "Parse error: the message is not valid JSON (or nests deeper than " +
                         std::to_string(kMaxJsonDepth) + " levels)"));
      return;
    }
    if (msg.is_array()) {
      send(rpc_error(nullptr, kInvalidRequest, "Invalid Request: JSON-RPC batches are not supported"));
      return;
    }
    if (!msg.is_object()) {
      send(rpc_error(nullptr, kInvalidRequest, "Invalid Request: a message must be a JSON object"));
      return;
    }
    const bool has_id = msg.contains("id");
    Json id = has_id ? msg["id"] : Json(nullptr);
    if (has_id && !(id.is_string() || id.is_number_integer())) {
      send(rpc_error(nullptr, kInvalidRequest, "Invalid Request: id must be a string or an integer"));
      return;
    }
    if (msg.value("jsonrpc", Json()) != "2.0") {
      if (has_id) send(rpc_error(id, kInvalidRequest, "Invalid Request: jsonrpc must be \"2.0\""));
      return;
    }
    if (!msg.contains("method")) return;  // a response to us: we send no requests, ignore
    if (!msg["method"].is_string()) {
      if (has_id) send(rpc_error(id, kInvalidRequest, "Invalid Request: method must be a string"));
      return;
    }
    const std::string method = msg["method"];
    const Json params = msg.value("params", Json::object());
    if (!params.is_object()) {
      if (has_id) send(rpc_error(id, kInvalidParams, "Invalid params: params must be an object"));
      return;
    }
    if (!has_id) {
      notification(method, params);
      return;
    }
    try {
      if (method == "initialize") return send(rpc_result(id, initialize(params)));
      if (method == "ping") return send(rpc_result(id, Json::object()));
      if (method == "tools/list") return tools_list(id, params);
      if (method == "tools/call") return tools_call(id, params);
      send(rpc_error(id, kMethodNotFound, "Method not found: " + method));
    } catch (const std::exception& ex) {  // firewall: never let a bug kill the session
      send(rpc_error(id, kInternalError, std::string("Internal error: ") + ex.what()));
    }
  }

  void notification(const std::string& method, const Json& params) {
    if (method == "notifications/cancelled" && params.contains("requestId")) {
      std::lock_guard<std::mutex> lock(calls_mu);
      auto it = inflight.find(id_key(params["requestId"]));
      if (it != inflight.end()) it->second->store(true);
    }
    // notifications/initialized and unknown notifications need no answer.
  }

  Json initialize(const Json& params) {
    std::string requested = params.value("protocolVersion", "");
    const auto& versions = mcp_supported_versions();
    negotiated_version = versions.front();
    for (auto& v : versions) {
      if (v == requested) negotiated_version = v;
    }
    return {{"protocolVersion", negotiated_version},
            {"capabilities", {{"tools", {{"listChanged", false}}}}},
            {"serverInfo", {{"name", "bioagent"}, {"title", "bioagent research assistant"}, {"version", kVersion}}},
            {"instructions",
             "bioagent exposes scientific tools (calculator, executed notebooks, and more as they are "
             "registered). Tool results carry structuredContent; tool failures come back with isError=true "
             "and a message that names the problem."}};
  }

  void tools_list(const Json& id, const Json& params) {
    size_t offset = 0;
    if (params.contains("cursor") && !params["cursor"].is_null()) {
      const Json& c = params["cursor"];
      std::string s = c.is_string() ? c.get<std::string>() : "";
      if (s.rfind("offset:", 0) != 0 || s.size() > 20 || s.find_first_not_of("0123456789", 7) != std::string::npos ||
          s.size() == 7) {
        return send(rpc_error(id, kInvalidParams, "Invalid params: unknown cursor"));
      }
      offset = std::stoul(s.substr(7));
    }
    auto all = registry.list();
    if (offset > all.size()) return send(rpc_error(id, kInvalidParams, "Invalid params: cursor past the end"));
    Json tools = Json::array();
    size_t end = std::min(all.size(), offset + std::max<size_t>(1, options.page_size));
    for (size_t i = offset; i < end; ++i) tools.push_back(registry.mcp_tool(*all[i]));
    Json result = {{"tools", tools}};
    if (end < all.size()) result["nextCursor"] = "offset:" + std::to_string(end);
    send(rpc_result(id, result));
  }

  void tools_call(const Json& id, const Json& params) {
    if (!params.contains("name") || !params["name"].is_string())
      return send(rpc_error(id, kInvalidParams, "Invalid params: tools/call needs a string 'name'"));
    const std::string name = params["name"];
    if (!registry.find(name)) return send(rpc_error(id, kInvalidParams, "Unknown tool: " + name));
    Json args = params.value("arguments", Json::object());
    if (!args.is_object() && !args.is_null())
      return send(rpc_error(id, kInvalidParams, "Invalid params: 'arguments' must be an object"));
    Json progress_token;
    if (params.contains("_meta") && params["_meta"].is_object())
      progress_token = params["_meta"].value("progressToken", Json());

    auto flag = std::make_shared<std::atomic<bool>>(false);
    {
      std::lock_guard<std::mutex> lock(calls_mu);
      if (inflight.size() >= options.max_inflight_calls)
        return send(rpc_error(id, kServerBusy, "Server busy: too many tool calls in flight"));
      if (inflight.count(id_key(id)))
        return send(rpc_error(id, kInvalidRequest, "Invalid Request: duplicate id in flight"));
      inflight[id_key(id)] = flag;
    }
    reap_finished();
    auto done = std::make_shared<std::atomic<bool>>(false);
    std::thread t([this, id, name, args, progress_token, flag, done] {
      ToolContext ctx(&workspace);
      ctx.set_cancel_flag(flag);
      ctx.set_options(options.tool_options);
      ctx.set_timeout(options.tool_timeout);
      if (!progress_token.is_null()) {
        ctx.set_progress([this, progress_token](double done, double total, const std::string& message) {
          Json p = {{"progressToken", progress_token}, {"progress", done}};
          if (total > 0) p["total"] = total;
          if (!message.empty()) p["message"] = message;
          send({{"jsonrpc", "2.0"}, {"method", "notifications/progress"}, {"params", p}});
        });
      }
      Result<Json> r = registry.call(name, args, ctx);
      if (!flag->load()) send(rpc_result(id, call_result(name, r)));  // cancelled requests get no answer
      std::lock_guard<std::mutex> lock(calls_mu);
      inflight.erase(id_key(id));
      done->store(true);
      calls_cv.notify_all();
    });
    workers.push_back({std::move(t), done});
  }

  void reap_finished() {
    for (auto it = workers.begin(); it != workers.end();) {
      if (it->done->load()) {
        it->thread.join();
        it = workers.erase(it);
      } else {
        ++it;
      }
    }
  }

  Json call_result(const std::string& name, const Result<Json>& r) {
    if (!r.is_ok()) {
      const Status& s = r.status();
      std::string text = "Error (" + std::string(error_code_name(s.code())) + "): " + s.message();
      if (!s.details().empty()) text += "\nDetails: " + json_text(s.details());
      return {{"content", Json::array({{{"type", "text"}, {"text", text}}})}, {"isError", true}};
    }
    const ToolSpec* spec = registry.find(name);
    Json structured = r.value();
    if (spec->return_schema.value("type", Json()) != "object" || !structured.is_object())
      structured = {{"result", r.value()}};
    return {{"content", Json::array({{{"type", "text"}, {"text", json_text(r.value(), 2)}}})},
            {"structuredContent", structured},
            {"isError", false}};
  }

  void drain() {
    std::unique_lock<std::mutex> lock(calls_mu);
    calls_cv.wait(lock, [this] { return inflight.empty(); });
  }
};

McpSession::McpSession(const ToolRegistry& registry, const Workspace& workspace, McpOptions options, Sink sink)
    : impl_(std::make_unique<Impl>(registry, workspace, std::move(options), std::move(sink))) {}

McpSession::~McpSession() {
  drain();
  for (auto& w : impl_->workers) {
    if (w.thread.joinable()) w.thread.join();
  }
}

void McpSession::handle_message(const std::string& text) { impl_->handle(text); }
void McpSession::drain() { impl_->drain(); }
void McpSession::reject_oversized() {
  impl_->send(
      rpc_error(nullptr, kInvalidRequest,
                "Invalid Request: message larger than " + std::to_string(impl_->options.max_message_bytes) + " bytes"));
}

namespace {

// Reads one line of at most `max` bytes; the rest of a longer line is consumed
// and flagged, so a hostile message cannot exhaust memory.
bool read_bounded_line(std::istream& in, std::string& line, size_t max, bool& too_long) {
  line.clear();
  too_long = false;
  std::streambuf* sb = in.rdbuf();
  bool any = false;
  for (int c = sb->sbumpc(); c != std::char_traits<char>::eof(); c = sb->sbumpc()) {
    any = true;
    if (c == '\n') return true;
    if (line.size() < max)
      line.push_back(static_cast<char>(c));
    else
      too_long = true;
  }
  return any;
}

}  // namespace

int run_mcp_stdio(const ToolRegistry& registry, const Workspace& workspace, const McpOptions& options, std::istream& in,
                  std::ostream& out) {
  McpSession session(registry, workspace, options, [&out](const std::string& line) {
    out << line << '\n';
    out.flush();
  });
  std::string line;
  bool too_long = false;
  while (read_bounded_line(in, line, options.max_message_bytes, too_long)) {
    if (too_long) {
      session.reject_oversized();
      continue;
    }
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    session.handle_message(line);
  }
  session.drain();
  return 0;
}

}  // namespace bioagent
