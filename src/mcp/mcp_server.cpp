// The JSON-RPC core of an MCP session: parsing and answering messages, the
// session revision's (2025-11-25 and earlier) dispatch, prompts, completion,
// resources and the worker threads calls run on. A stateless request
// (2026-07-28) leaves here for mcp_stateless.cpp after the same parsing.
#include "bioagent/json_text.h"
#include "bioagent/version.h"
#include "mcp/mcp_session.h"

namespace bioagent {

namespace {

using namespace mcp;  // the error codes

// RFC 5424 severities as MCP names them, least severe first.
const std::vector<std::string> kLogLevels = {"debug", "info",     "notice", "warning",
                                             "error", "critical", "alert",  "emergency"};
int log_rank(const std::string& level) {
  for (size_t i = 0; i < kLogLevels.size(); ++i)
    if (kLogLevels[i] == level) return int(i);
  return -1;
}

std::string id_key(const Json& id) { return json_text(id); }

int rpc_code_for(const Status& s) {
  return s.code() == ErrorCode::kNotFound          ? kResourceNotFound
         : s.code() == ErrorCode::kInvalidArgument ? kInvalidParams
                                                   : kInternalError;
}

}  // namespace

McpSession::Impl::Impl(const ToolRegistry& r, const Workspace& w, McpOptions o, RoutedSink s)
    : registry(r), workspace(w), options(std::move(o)), sink(std::move(s)) {
  shared = options.shared ? options.shared : make_mcp_shared();
  if (options.assistant)
    runs = std::make_unique<mcp::RunBridge>(*options.assistant, options.tool_options, options.assistant_session,
                                            options.client);
  if (runs) runs->set_call_limit(options.tool_timeout);
  if (options.compact) search = std::make_unique<mcp::ToolSearch>(registry);
}

McpSession::Impl::~Impl() {
  {
    std::lock_guard lock(sub_mu);
    stopping = true;
  }
  sub_cv.notify_all();
  if (watcher.joinable()) watcher.join();
}

void McpSession::Impl::send(const Json& msg, const std::string& key) {
  std::string line = json_text(msg);
  std::lock_guard<std::mutex> lock(send_mu);
  sink(line, key);
}

void McpSession::Impl::send_stream_end(const std::string& key) {
  std::lock_guard<std::mutex> lock(send_mu);
  sink("", key);
}

void McpSession::Impl::reply(const Json& id, Json result) {
  if (era == McpEra::kStateless) result = stateless_result(std::move(result));
  release_own_call(id);
  send(rpc_result(id, std::move(result)), id_key(id));
}

void McpSession::Impl::fail(const Json& id, int code, const std::string& message, Json data) {
  if (era == McpEra::kStateless && code == kResourceNotFound) code = kInvalidParams;  // -32002 is retired
  release_own_call(id);
  Json err = rpc_error(id, code, message, std::move(data));
  if (era == McpEra::kSession && id.is_null()) err["id"] = nullptr;  // as sessions always answered
  send(err, id.is_null() ? "" : id_key(id));
}

// The key of the call the current worker thread answers (empty elsewhere).
std::string& McpSession::Impl::answering_key() {
  thread_local std::string key;
  return key;
}

// A worker frees its request id before the answer is written: a client may reuse an
// id as soon as it has the answer, so the id must not still look in flight then.
void McpSession::Impl::release_own_call(const Json& id) {
  if (id.is_null() || answering_key().empty() || answering_key() != id_key(id)) return;
  std::lock_guard<std::mutex> lock(calls_mu);
  inflight.erase(answering_key());
}

// notifications/message when `level` is at or above the level the client set.
void McpSession::Impl::log(const std::string& level, const std::string& logger, const Json& data,
                           const std::string& key) {
  if (log_rank(level) < min_log_rank.load()) return;
  send({{"jsonrpc", "2.0"},
        {"method", "notifications/message"},
        {"params", {{"level", level}, {"logger", logger}, {"data", data}}}},
       key);
}

void McpSession::Impl::handle(const std::string& text) {
  if (text.size() > options.max_message_bytes) {
    fail(nullptr, kInvalidRequest, "message larger than " + std::to_string(options.max_message_bytes) + " bytes");
    return;
  }
  Json msg = parse_json_bounded(text);
  if (msg.is_discarded())
    return fail(nullptr, kParseError,
                "Parse error: the message is not valid JSON (or nests deeper than " + std::to_string(kMaxJsonDepth) +
                    " levels)");
  if (msg.is_array()) return fail(nullptr, kInvalidRequest, "Invalid Request: JSON-RPC batches are not supported");
  if (!msg.is_object()) return fail(nullptr, kInvalidRequest, "Invalid Request: a message must be a JSON object");
  const bool has_id = msg.contains("id");
  Json id = has_id ? msg["id"] : Json(nullptr);
  if (has_id && !(id.is_string() || id.is_number_integer()))
    return fail(nullptr, kInvalidRequest, "Invalid Request: id must be a string or an integer");
  if (msg.value("jsonrpc", Json()) != "2.0") {
    if (has_id) fail(id, kInvalidRequest, "Invalid Request: jsonrpc must be \"2.0\"");
    return;
  }
  if (!msg.contains("method")) return deliver_client_response(msg);
  if (!msg["method"].is_string()) {
    if (has_id) fail(id, kInvalidRequest, "Invalid Request: method must be a string");
    return;
  }
  const std::string method = msg["method"];
  const Json params = msg.value("params", Json::object());
  if (!params.is_object()) {
    if (has_id) fail(id, kInvalidParams, "Invalid params: params must be an object");
    return;
  }
  if (!has_id) return notification(method, params);
  if (era == McpEra::kStateless) {
    if (auto e = check_stateless_envelope(headers, msg))
      return fail(id, (*e)["code"], (*e)["message"], e->value("data", Json()));
  }
  handle_request(id, method, params);
}

void McpSession::Impl::handle_request(const Json& id, const std::string& method, const Json& params) {
  // A method this revision does not serve is -32601 whatever its params (removed ones included).
  if (era == McpEra::kStateless && !serves_stateless(method)) return dispatch_stateless(id, method, params);
  if (Status s = mcp::check_request_params(method, params); !s) return fail(id, kInvalidParams, s.message());
  try {
    if (era == McpEra::kStateless) return handle_stateless(id, method, params);
    dispatch(id, method, params);
  } catch (const std::exception& ex) {  // firewall: never let a bug kill the session
    fail(id, kInternalError, std::string("Internal error: ") + ex.what());
  }
}

void McpSession::Impl::dispatch(const Json& id, const std::string& method, const Json& params) {
  if (method == "initialize") return reply(id, initialize(params));
  if (method == "ping") return reply(id, Json::object());
  if (method == "tools/list") return tools_list(id, params);
  if (method == "tools/call") return tools_call(id, params);
  if (method == "logging/setLevel") return set_level(id, params);
  if (method == "prompts/list")
    return reply(id, {{"prompts", with_fixtures(mcp::prompt_list(), mcp::fixture_prompts())}});
  if (method == "prompts/get") return prompts_get(id, params);
  if (method == "completion/complete") return complete(id, params);
  if (method == "resources/list")
    return reply(
        id, {{"resources", with_fixtures(runs ? runs->list_resources() : Json::array(), mcp::fixture_resources())}});
  if (method == "resources/templates/list")
    return reply(id, {{"resourceTemplates",
                       with_fixtures(runs ? runs->resource_templates() : Json::array(), mcp::fixture_templates())}});
  if (method == "resources/read") return resources_read(id, params);
  if (method == "resources/subscribe" || method == "resources/unsubscribe")
    return subscribe(id, params, method == "resources/subscribe");
  if (method.rfind("tasks/", 0) == 0 && tasks_offered()) return tasks_request(id, method, params);
  fail(id, kMethodNotFound, "Method not found: " + method);
}

// `list` plus the conformance fixtures when they are on, fixtures first (the suite reads page 1).
Json McpSession::Impl::with_fixtures(Json list, const Json& fixtures) const {
  if (!options.conformance_fixtures) return list;
  Json out = fixtures;
  for (auto& item : list) out.push_back(std::move(item));
  return out;
}

void McpSession::Impl::notification(const std::string& method, const Json& params) {
  if (method == "notifications/cancelled" && params.contains("requestId")) {
    std::lock_guard<std::mutex> lock(calls_mu);
    auto it = inflight.find(id_key(params["requestId"]));
    if (it != inflight.end()) it->second->store(true);
  }
  // notifications/initialized and unknown notifications need no answer.
}

Json McpSession::Impl::initialize(const Json& params) {
  std::string requested = params.value("protocolVersion", "");
  const auto& versions = mcp_session_versions();
  negotiated_version = versions.front();
  for (auto& v : versions)
    if (v == requested) negotiated_version = v;
  {
    std::lock_guard lock(caps_mu);
    client_caps = params.value("capabilities", Json::object());
    if (!client_caps.is_object()) client_caps = Json::object();
  }
  Json caps = {{"tools", {{"listChanged", false}}},
               {"logging", Json::object()},
               {"prompts", {{"listChanged", false}}},
               {"completions", Json::object()},
               {"resources", {{"subscribe", runs != nullptr || options.conformance_fixtures}, {"listChanged", false}}}};
  if (tasks_offered())
    caps["tasks"] = {
        {"list", Json::object()}, {"cancel", Json::object()}, {"requests", {{"tools", {{"call", Json::object()}}}}}};
  return {{"protocolVersion", negotiated_version},
          {"capabilities", caps},
          {"serverInfo", {{"name", "bioagent"}, {"title", "bioagent research assistant"}, {"version", kVersion}}},
          {"instructions", instructions()}};
}

std::string McpSession::Impl::instructions() const {
  return std::string("bioagent exposes scientific tools (literature, papers, data, calculator, notebooks") +
         (runs ? ", and gene-family runs as tasks: genefamily_task_start/status/result/cancel, on server-side "
                 "genome folders listed by genefamily_data_roots"
               : "") +
         "). Tool results carry structuredContent; tool failures come back with isError=true and a "
         "message that names the problem." +
         (options.compact ? " Compact mode: find tools with search_tools, read one with describe_tool, "
                            "run it with call_tool."
                          : "");
}

Json McpSession::Impl::client_capabilities() const {
  std::lock_guard lock(caps_mu);
  return client_caps;
}

void McpSession::Impl::set_level(const Json& id, const Json& params) {
  int rank = log_rank(params.value("level", ""));
  if (rank < 0) return fail(id, kInvalidParams, "Invalid params: level must be one of debug .. emergency");
  min_log_rank.store(rank);
  reply(id, Json::object());
}

void McpSession::Impl::complete(const Json& id, const Json& params) {
  auto r = mcp::complete_request(params, runs.get(), options.conformance_fixtures);
  if (!r) return fail(id, kInvalidParams, r.status().message());
  reply(id, *r);
}

void McpSession::Impl::prompts_get(const Json& id, const Json& params) {
  const std::string name = params.value("name", "");
  const Json args = params.value("arguments", Json::object());
  if (!options.conformance_fixtures || !mcp::is_fixture_prompt(name)) {
    auto r = mcp::prompt_get(name, args);
    if (!r) return fail(id, kInvalidParams, r.status().message());
    return reply(id, *r);
  }
  // A fixture prompt may ask the client: on a worker, as a tool call would.
  spawn(id, [this, id, name, args](const CancelFlag& flag) {
    auto r = mcp::get_fixture_prompt(name, args, session_channel(id_key(id), flag).get());
    if (flag->load()) return;
    if (!r) return fail(id, rpc_code_for(r.status()), r.status().message());
    reply(id, *r);
  });
}

void McpSession::Impl::resources_read(const Json& id, const Json& params) {
  std::string uri = params.value("uri", "");
  if (uri.empty()) return fail(id, kInvalidParams, "Invalid params: resources/read needs a uri");
  Json not_found_data = era == McpEra::kStateless ? Json{{"uri", uri}} : Json();
  if (options.conformance_fixtures) {
    auto f = mcp::read_fixture(uri);
    if (f) return reply(id, stateless_result({{"contents", Json::array({*f})}}, "public"));
  }
  if (!runs) return fail(id, kResourceNotFound, "Resource not found: " + uri.substr(0, 200), not_found_data);
  auto r = runs->read(uri);
  if (!r) return fail(id, rpc_code_for(r.status()), r.status().message(), not_found_data);
  reply(id, stateless_result({{"contents", Json::array({*r})}}, "private"));
}

// Runs `work` for request `id` on a worker thread, with the request's cancel flag
// (set by notifications/cancelled); at most max_inflight_calls at once.
void McpSession::Impl::spawn(const Json& id, std::function<void(const CancelFlag&)> work) {
  auto flag = std::make_shared<std::atomic<bool>>(false);
  {
    std::lock_guard<std::mutex> lock(calls_mu);
    if (inflight.size() >= options.max_inflight_calls)
      return fail(id, kServerBusy, "Server busy: too many requests in flight");
    if (inflight.count(id_key(id))) return fail(id, kInvalidRequest, "Invalid Request: duplicate id in flight");
    inflight[id_key(id)] = flag;
    ++running_calls;
  }
  reap_finished();
  auto done = std::make_shared<std::atomic<bool>>(false);
  std::thread t([this, id, work = std::move(work), flag, done] {
    answering_key() = id_key(id);
    try {
      work(flag);
    } catch (const std::exception& ex) {  // firewall: a worker's bug answers its request, nothing more
      if (!flag->load()) fail(id, kInternalError, std::string("Internal error: ") + ex.what());
    }
    release_own_call(id);  // a cancelled call sends no answer
    std::lock_guard<std::mutex> lock(calls_mu);
    --running_calls;
    done->store(true);
    calls_cv.notify_all();
  });
  workers.push_back({std::move(t), done});
}

void McpSession::Impl::reap_finished() {
  for (auto it = workers.begin(); it != workers.end();) {
    if (it->done->load()) {
      it->thread.join();
      it = workers.erase(it);
    } else {
      ++it;
    }
  }
}

void McpSession::Impl::drain() {
  std::unique_lock<std::mutex> lock(calls_mu);
  calls_cv.wait(lock, [this] { return running_calls == 0; });
}

void McpSession::Impl::cancel_all() {
  {
    std::lock_guard<std::mutex> lock(calls_mu);
    for (auto& [key, f] : inflight) f->store(true);
  }
  asks_cv.notify_all();  // asks waiting for the client see the flag
}

McpSession::McpSession(const ToolRegistry& registry, const Workspace& workspace, McpOptions options, Sink sink)
    : impl_(std::make_unique<Impl>(registry, workspace, std::move(options),
                                   [sink = std::move(sink)](const std::string& line, const std::string&) {
                                     if (!line.empty())
                                       sink(line);  // an empty line ends an HTTP stream: nothing on stdio
                                   })) {}

McpSession::McpSession(const ToolRegistry& registry, const Workspace& workspace, McpOptions options, RoutedSink sink)
    : impl_(std::make_unique<Impl>(registry, workspace, std::move(options), std::move(sink))) {}

std::unique_ptr<McpSession> McpSession::stateless(const ToolRegistry& registry, const Workspace& workspace,
                                                  McpOptions options, RoutedSink sink, McpRequestHeaders headers) {
  auto s = std::make_unique<McpSession>(registry, workspace, std::move(options), std::move(sink));
  s->impl_->era = McpEra::kStateless;
  s->impl_->headers = std::move(headers);
  s->impl_->negotiated_version = kMcpStatelessVersion;
  s->impl_->min_log_rank.store(1000);  // no log messages without the request's logLevel
  return s;
}

McpSession::~McpSession() {
  impl_->cancel_all();  // a session that ends stops its calls (stdio drains before it ends)
  drain();
  for (auto& w : impl_->workers) {
    if (w.thread.joinable()) w.thread.join();
  }
}

std::string McpSession::request_key(const Json& id) { return id_key(id); }
void McpSession::handle_message(const std::string& text) { impl_->handle(text); }
void McpSession::drain() { impl_->drain(); }
void McpSession::reject_oversized() {
  impl_->fail(nullptr, kInvalidRequest,
              "Invalid Request: message larger than " + std::to_string(impl_->options.max_message_bytes) + " bytes");
}

}  // namespace bioagent
