// Tools in an MCP session: tools/list, tools/call on worker threads with
// progress and log notifications, and the client channel of a session
// (2025-11-25 and earlier): a tool's question to the client goes out as a
// JSON-RPC request routed with the call (on its SSE stream over HTTP), and
// the client's response, which arrives as a message of its own, is handed to
// the waiting ask.
#include "bioagent/json_text.h"
#include "mcp/mcp_session.h"

namespace bioagent {

using namespace mcp;  // the error codes

Json McpSession::Impl::listed_tools() const {
  if (options.compact) return with_fixtures(mcp_compact_tools(), mcp::fixture_tools());
  Json all = Json::array();
  const bool task_hints = tasks_offered() && era == McpEra::kSession;  // 2026-07-28 has no execution hints
  for (auto* spec : registry.list()) {
    all.push_back(registry.mcp_tool(*spec));
    if (task_hints && mcp::ToolTasks::task_capable(spec->name)) all.back()["execution"] = {{"taskSupport", "optional"}};
  }
  if (runs) {
    for (auto& t : runs->tools()) all.push_back(t);
    Json run = runs->run_tool();
    if (!task_hints) run.erase("execution");
    all.push_back(run);
  }
  return with_fixtures(all, mcp::fixture_tools());
}

void McpSession::Impl::tools_list(const Json& id, const Json& params) {
  auto page = mcp::tools_page(listed_tools(), params.value("cursor", Json()), options.page_size);
  if (!page) return fail(id, kInvalidParams, "Invalid params: " + page.status().message());
  reply(id, stateless_result(*page, "public"));
}

bool McpSession::Impl::known_tool(const std::string& name) const {
  return registry.find(name) || (runs && runs->owns(name)) || (options.compact && mcp::is_compact_tool(name)) ||
         (options.conformance_fixtures && mcp::is_fixture_tool(name));
}

void McpSession::Impl::tools_call(const Json& id, const Json& params) {
  if (!params.contains("name") || !params["name"].is_string())
    return fail(id, kInvalidParams, "Invalid params: tools/call needs a string 'name'");
  const std::string name = params["name"];
  if (!known_tool(name)) return fail(id, kInvalidParams, "Unknown tool: " + name);
  Json args = params.value("arguments", Json::object());
  if (!args.is_object() && !args.is_null())
    return fail(id, kInvalidParams, "Invalid params: 'arguments' must be an object");
  if (args.is_null()) args = Json::object();
  Json progress_token;
  if (params.contains("_meta") && params["_meta"].is_object())
    progress_token = params["_meta"].value("progressToken", Json());
  if (params.contains("task") && params["task"].is_object()) return create_task(id, name, args, progress_token);
  spawn(id, [this, id, name, args, progress_token](const CancelFlag& flag) {
    run_tool(id, name, args, progress_token, flag);
  });
}

ToolContext McpSession::Impl::call_context(const std::string& name, const std::string& key, const Json& progress_token,
                                           const CancelFlag& flag) {
  ToolContext ctx(&workspace);
  ctx.set_cancel_flag(flag);
  ctx.set_options(options.tool_options);
  ctx.set_timeout(options.tool_timeout);
  if (!progress_token.is_null())
    ctx.set_progress([this, progress_token, key](double done, double total, const std::string& message) {
      Json p = {{"progressToken", progress_token}, {"progress", done}};
      if (total > 0) p["total"] = total;
      if (!message.empty()) p["message"] = message;
      send({{"jsonrpc", "2.0"}, {"method", "notifications/progress"}, {"params", p}}, key);
    });
  ctx.set_log([this, name, key](LogLevel level, const std::string& message) {
    static const char* kNames[] = {"debug", "info", "warning", "error"};
    log(kNames[int(level)], name, message, key);
  });
  if (era == McpEra::kSession) ctx.set_client(session_channel(key, flag));
  return ctx;
}

Result<Json> McpSession::Impl::execute_tool(const std::string& name, const Json& args, ToolContext& ctx,
                                            const CancelFlag& flag, const std::string& key) {
  if (options.conformance_fixtures) {
    if (const auto* fixture = mcp::find_fixture_tool(name)) {
      if (fixture->ends_stream_first && era == McpEra::kSession) send_stream_end(key);
      return fixture->call(args, ctx);
    }
  }
  if (runs && runs->owns(name)) {
    ToolContext::ProgressFn progress = [&ctx](double done, double total, const std::string& message) {
      ctx.progress(done, total, message);
    };
    auto r = runs->call(name, args, *flag, progress, ctx.client());
    return r ? mcp::linked_call_result(*r, false) : call_result(name, Result<Json>(r.status()));
  }
  if (options.compact && mcp::is_compact_tool(name))
    return call_result(name, mcp::call_compact_tool(registry, *search, name, args, ctx));
  return call_result(name, registry.call(name, args, ctx));
}

// One tool call of a session on its worker thread: progress and log notifications go with
// the request's key; a cancelled request gets no answer.
void McpSession::Impl::run_tool(const Json& id, const std::string& name, const Json& args, const Json& progress_token,
                                const CancelFlag& flag) {
  const std::string key = McpSession::request_key(id);
  ToolContext ctx = call_context(name, key, progress_token, flag);
  log("debug", name, "call started", key);
  Result<Json> r = execute_tool(name, args, ctx, flag, key);
  Json result = r ? *r : call_result(name, Result<Json>(r.status()));
  if (result.value("isError", false)) log("error", name, result["content"][0].value("text", ""), key);
  if (!flag->load()) reply(id, result);
}

Json McpSession::Impl::call_result(const std::string& name, const Result<Json>& r) const {
  return mcp::tool_call_result(registry, name, r);
}

namespace {

// A session's channel: each question a request on the call's stream; the answer its response.
class SessionChannel : public ClientChannel {
 public:
  SessionChannel(McpSession::Impl& s, std::string key, McpSession::Impl::CancelFlag flag,
                 std::chrono::steady_clock::time_point deadline)
      : s_(s), key_(std::move(key)), flag_(std::move(flag)), deadline_(deadline) {}
  bool supports(ClientAsk ask) const override { return mcp::declares(s_.client_capabilities(), ask); }
  Json capability(ClientAsk ask) const override { return mcp::declared(s_.client_capabilities(), ask); }
  std::vector<Result<Json>> ask_all(const std::vector<ClientQuestion>& questions) override;

 private:
  Result<Json> wait_for(const std::string& ask_id, ClientAsk ask, std::chrono::milliseconds wait);
  McpSession::Impl& s_;
  std::string key_;
  McpSession::Impl::CancelFlag flag_;
  std::chrono::steady_clock::time_point deadline_;
};

std::vector<Result<Json>> SessionChannel::ask_all(const std::vector<ClientQuestion>& questions) {
  std::vector<std::string> ids(questions.size());
  std::vector<Result<Json>> out;
  for (size_t i = 0; i < questions.size(); ++i) {
    if (!supports(questions[i].ask)) continue;
    ids[i] = "srv-" + std::to_string(++s_.next_ask);
    {
      std::lock_guard lock(s_.asks_mu);
      s_.awaiting[json_text(Json(ids[i]))];  // registered before it is sent: the answer cannot be missed
    }
    Json request = mcp::input_request(questions[i]);
    s_.send({{"jsonrpc", "2.0"}, {"id", ids[i]}, {"method", request["method"]}, {"params", request["params"]}}, key_);
  }
  for (size_t i = 0; i < questions.size(); ++i)
    out.push_back(ids[i].empty() ? Result<Json>(client_unsupported(questions[i].ask))
                                 : wait_for(ids[i], questions[i].ask, questions[i].wait));
  return out;
}

Result<Json> SessionChannel::wait_for(const std::string& ask_id, ClientAsk ask, std::chrono::milliseconds wait) {
  const std::string key = json_text(Json(ask_id));
  const auto until = wait.count() > 0 ? std::min(deadline_, std::chrono::steady_clock::now() + wait) : deadline_;
  std::unique_lock lock(s_.asks_mu);
  auto answered = [&] { return s_.awaiting.count(key) && s_.awaiting[key].has_value(); };
  while (!answered() && !flag_->load() && std::chrono::steady_clock::now() < until)
    s_.asks_cv.wait_for(lock, std::chrono::milliseconds(200));
  std::optional<Json> response = s_.awaiting[key];
  s_.awaiting.erase(key);
  lock.unlock();
  if (!response) {
    if (flag_->load()) return Status(ErrorCode::kCancelled, "the call was cancelled while waiting for the client");
    return Status(ErrorCode::kTimeout, "the client did not answer " + std::string(client_ask_method(ask)) + " in time");
  }
  if (response->contains("error")) {
    const Json err = (*response)["error"];
    return Status(ErrorCode::kUnavailable,
                  "the client answered " + std::string(client_ask_method(ask)) +
                      " with an error: " + (err.is_object() ? err.value("message", std::string()) : std::string()))
        .with("rpc_code", err.is_object() ? err.value("code", Json()) : Json());
  }
  const Json result = response->value("result", Json());
  if (!result.is_object())
    return Status(ErrorCode::kUnavailable,
                  "the client's answer to " + std::string(client_ask_method(ask)) + " is not a result object");
  return result;
}

}  // namespace

std::shared_ptr<ClientChannel> McpSession::Impl::session_channel(const std::string& key, const CancelFlag& flag) {
  return std::make_shared<SessionChannel>(*this, key, flag, std::chrono::steady_clock::now() + options.tool_timeout);
}

void McpSession::Impl::deliver_client_response(const Json& msg) {
  if (!msg.contains("id")) return;
  const std::string key = json_text(msg["id"]);
  {
    std::lock_guard lock(asks_mu);
    auto it = awaiting.find(key);
    if (it == awaiting.end() || it->second) return;  // not ours, or answered already: ignored
    it->second = msg;
  }
  asks_cv.notify_all();
}

}  // namespace bioagent
