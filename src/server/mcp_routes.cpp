// MCP over Streamable HTTP at /mcp, both revisions on one endpoint; which one
// serves a POST is decided per request (mcp_era_of):
//  * a session (2025-11-25 and earlier): initialize opens it (Mcp-Session-Id);
//    a tools/call or tasks/result from a client that accepts
//    text/event-stream is answered as an SSE stream (a priming event with
//    retry:, then each message with an event id: progress, log messages,
//    questions to the client, the response), other requests as JSON,
//    notifications and the client's responses with 202; GET opens the
//    session's stream of messages that answer no request, or with
//    Last-Event-ID resumes a request's stream; DELETE ends the session;
//  * stateless (2026-07-28): each POST is one request answered by a session
//    made for it, as JSON, or as SSE when notifications come before the
//    response; every error is a JSON-RPC error with its HTTP status.
// At most max_mcp_sessions sessions live at once: a further initialize is
// refused, no live session is evicted. A request cancelled by
// notifications/cancelled is answered at once with -32800.
#include <algorithm>
#include <random>

#include "bioagent/json_text.h"
#include "mcp/mcp_wire.h"
#include "server/mcp_streams.h"
#include "server/server_internal.h"

namespace bioagent::server {
namespace {

constexpr int kRetryMs = 1000;  // the SSE retry: a client reconnects this soon after a stream ends

std::string new_session_id() {
  static std::mutex mu;
  static std::random_device rd;
  std::lock_guard lock(mu);
  std::string id;
  for (int i = 0; i < 4; ++i) {
    char buf[9];
    std::snprintf(buf, sizeof buf, "%08x", rd());
    id += buf;
  }
  return id;
}

// The open MCP sessions; one unused for the idle limit expires. At most `shares->total()` live, at
// most `shares->per_client()` of them opened by one client.
struct McpSessions {
  std::mutex mu;
  std::map<std::string, std::shared_ptr<McpConnection>> by_id;
  std::map<std::string, Clock::time_point> last_used;
  std::map<std::string, std::string> opened_by;  // session id -> the client whose share it holds
  std::chrono::seconds idle{3600};
  std::unique_ptr<ClientShares> shares;

  void forget_locked(const std::string& id) {
    by_id.erase(id);
    last_used.erase(id);
    auto it = opened_by.find(id);
    if (it == opened_by.end()) return;
    shares->give_back(it->second);
    opened_by.erase(it);
  }
  void expire_locked(Clock::time_point now) {
    std::vector<std::string> idle_ids;
    for (auto& [id, at] : last_used)
      if (now - at > idle) idle_ids.push_back(id);
    for (auto& id : idle_ids) forget_locked(id);
  }
  // Refused when the client holds its share or the server its total (after the idle ones expired):
  // a live session is never evicted.
  Status add(const std::string& id, std::shared_ptr<McpConnection> s, const std::string& client) {
    std::lock_guard lock(mu);
    auto now = Clock::now();
    expire_locked(now);
    BIOAGENT_RETURN_IF_ERROR(shares->take(client));
    by_id[id] = std::move(s);
    last_used[id] = now;
    opened_by[id] = client;
    return Status::ok();
  }
  std::shared_ptr<McpConnection> find(const std::string& id) {
    std::lock_guard lock(mu);
    auto now = Clock::now();
    auto it = last_used.find(id);
    if (it == last_used.end() || now - it->second > idle) {
      forget_locked(id);
      return nullptr;
    }
    it->second = now;
    return by_id[id];
  }
  // The live session `id` without marking it used (null when gone or idle too long).
  std::shared_ptr<McpConnection> peek(const std::string& id) {
    std::lock_guard lock(mu);
    auto it = last_used.find(id);
    if (it == last_used.end() || Clock::now() - it->second > idle) return nullptr;
    return by_id[id];
  }
  bool remove(const std::string& id) {
    std::lock_guard lock(mu);
    const bool known = by_id.count(id) > 0;
    forget_locked(id);
    return known;
  }
};

void rpc_error(Response& res, int http, int code, const std::string& message, const Json& id = nullptr) {
  res.status = http;
  res.set_content(json_text(mcp::rpc_error(id, code, message)), "application/json");
}

// An SSE slot of `client`'s share, or a JSON-RPC 503 naming the limit reached.
bool acquire_mcp_stream(Context& c, const std::string& client, Response& res) {
  Status taken = c.streams->take(client);
  if (taken.is_ok()) return true;
  res.set_header("Retry-After", "5");
  res.status = 503;
  res.set_content(json_text(mcp::rpc_error(nullptr, -32000, taken.message(), taken.details())), "application/json");
  return false;
}

McpRequestHeaders mcp_headers(const Request& req) {
  McpRequestHeaders h;
  h.session_id = req.has_header("Mcp-Session-Id");
  auto get = [&](const char* name) -> std::optional<std::string> {
    if (!req.has_header(name)) return std::nullopt;
    return req.get_header_value(name);
  };
  h.protocol_version = get("MCP-Protocol-Version");
  h.method = get("Mcp-Method");
  h.name = get("Mcp-Name");
  static const std::string kParam = "mcp-param-";
  for (auto& [k, v] : req.headers) {
    if (k.size() <= kParam.size() || !same_name(std::string_view(k).substr(0, kParam.size()), kParam)) continue;
    std::string name = k.substr(kParam.size());
    for (auto& ch : name) ch = char(std::tolower(static_cast<unsigned char>(ch)));
    h.params[name] = v;
  }
  return h;
}

// A session's MCP-Protocol-Version header, when sent, names a session version.
bool refuse_session_version(const Request& req, Response& res, const Json& id) {
  if (!req.has_header("MCP-Protocol-Version")) return false;
  const std::string v = req.get_header_value("MCP-Protocol-Version");
  const auto& ok = mcp_session_versions();
  if (std::find(ok.begin(), ok.end(), v) != ok.end()) return false;
  res.status = 400;
  res.set_content(json_text(mcp::rpc_error(id, -32022,
                                           "Unsupported protocol version: '" + v.substr(0, 64) +
                                               "' (a session speaks " + ok.back() + " to " + ok.front() + "; " +
                                               kMcpStatelessVersion + " is served without a session)",
                                           {{"supported", mcp_supported_versions()}, {"requested", v}})),
                  "application/json");
  return true;
}

// The folders a tool called for assistant session `sid` reads (see workspace_for).
Result<std::shared_ptr<McpConnection>> new_connection(Context* c, const Request& req,
                                                      std::optional<McpRequestHeaders> stateless) {
  auto ws = workspace_for(c, req.get_header_value("X-Session-Id"));
  if (!ws) return ws.status();
  auto conn = std::make_shared<McpConnection>();
  McpConnection* raw = conn.get();
  conn->workspace = std::make_unique<Workspace>(std::move(*ws));
  McpSession::RoutedSink sink([raw](const std::string& line, const std::string& key) { raw->route(line, key); });
  McpOptions options = c->mcp;
  options.client = client_of(req);  // its tasks and runs count against this client's shares
  if (stateless)
    conn->session = McpSession::stateless(*c->registry, *conn->workspace, options, std::move(sink), *stateless);
  else
    conn->session = std::make_unique<McpSession>(*c->registry, *conn->workspace, options, std::move(sink));
  return conn;
}

void cancel_request(McpConnection& conn, const Json& id, const std::string& reason) {
  std::lock_guard lock(conn.mu);
  conn.session->handle_message(json_text(Json{
      {"jsonrpc", "2.0"}, {"method", "notifications/cancelled"}, {"params", {{"requestId", id}, {"reason", reason}}}}));
}

// How a request's answer is written.
struct AnswerPlan {
  std::shared_ptr<McpConnection> conn;
  std::shared_ptr<McpStream> stream;
  std::string key;
  Json id;
  Clock::time_point deadline;
  bool session = true;  // a session's stream: event ids, a priming event, cuts honoured
  std::string client;   // whose stream share an SSE answer holds
};

// The response as JSON; a session's questions to the client go to its GET stream meanwhile.
void answer_json(Context* c, const AnswerPlan& p, Response& res) {
  for (size_t cursor = 0;;) {
    StreamItem item =
        p.conn->next(p.stream, cursor, false, std::min(p.deadline, Clock::now() + std::chrono::milliseconds(200)));
    if (item.kind == StreamItem::kTimeout) {
      if (c->stopping) {
        p.conn->close(p.key, true);
        return rpc_error(res, 503, -32000, "the server is shutting down", p.id);
      }
      if (Clock::now() < p.deadline) continue;
      p.conn->close(p.key, true);
      return rpc_error(res, 504, -32000, "no answer within the tool time limit", p.id);
    }
    ++cursor;
    if (is_rpc_request(item.line)) p.conn->add_unrouted(item.line);
    if (!is_rpc_response(item.line)) continue;  // a JSON answer carries only the response
    p.conn->close(p.key);
    Json body = parse_json_bounded(item.line);
    res.status = p.session ? 200 : mcp_http_status(body);
    return res.set_content(item.line, "application/json");
  }
}

// The request's messages as SSE, then the end of the stream.
void answer_sse(Context* c, const AnswerPlan& p, Response& res) {
  res.status = 200;
  res.set_header("Cache-Control", "no-cache");
  res.set_header("X-Accel-Buffering", "no");
  struct State {
    size_t cursor = 0;
    bool primed = false, answered = false, cut = false;
  };
  auto st = std::make_shared<State>();
  res.set_chunked_content_provider(
      "text/event-stream",
      [c, p, st](size_t, DataSink& sink) {
        if (p.session && !st->primed) {  // the priming event: an id to resume from, before anything else
          st->primed = true;
          std::string prime = "id: " + p.stream->id + "-0\nretry: " + std::to_string(kRetryMs) + "\ndata: \n\n";
          return sink.write(prime.data(), prime.size());
        }
        auto item = p.conn->next(p.stream, st->cursor, p.session,
                                 std::min(p.deadline, Clock::now() + std::chrono::seconds(10)));
        if (item.kind == StreamItem::kTimeout) {
          if (Clock::now() < p.deadline && !c->stopping && sink.write(": keep-alive\n\n", 14)) return true;
          cancel_request(*p.conn, p.id, "the HTTP stream ended");  // out of time, or the client left
          return false;
        }
        if (item.kind == StreamItem::kCut) {  // the server ends the stream; the client resumes it
          st->cut = true;
          sink.done();
          return true;
        }
        ++st->cursor;
        std::string frame = (p.session ? "id: " + p.stream->id + "-" + std::to_string(st->cursor) + "\n" : "") +
                            "event: message\ndata: " + item.line + "\n\n";
        if (!sink.write(frame.data(), frame.size())) {
          cancel_request(*p.conn, p.id, "the client left");
          return false;
        }
        if (is_rpc_response(item.line)) {
          st->answered = true;
          sink.done();
        }
        return true;
      },
      [c, p, st](bool) {
        p.conn->close(p.key, !st->answered && !st->cut);
        release_stream(*c, p.client);
      });
}

// One JSON-RPC request of a session.
void answer_session_request(Context* c, const std::shared_ptr<McpConnection>& conn, const Request& req, Response& res,
                            const Json& msg) {
  const std::string method = msg.value("method", "");
  bool sse = (method == "tools/call" || method == "tasks/result") &&
             req.get_header_value("Accept").find("text/event-stream") != std::string::npos;
  // tasks/result waits for the run to end (hours, as long as the stream stays open).
  const std::chrono::milliseconds limit = method == "tasks/result" && sse
                                              ? std::chrono::milliseconds(std::chrono::hours(24 * 30))
                                              : c->mcp.tool_timeout + std::chrono::seconds(5);
  const std::string client = client_of(req);
  if (sse && !acquire_mcp_stream(*c, client, res)) return;
  AnswerPlan p{conn, nullptr, McpSession::request_key(msg["id"]), msg["id"], Clock::now() + limit, true, client};
  p.stream = conn->open(p.key);
  {
    std::lock_guard lock(conn->mu);
    conn->session->handle_message(req.body);
  }
  if (sse) return answer_sse(c, p, res);
  answer_json(c, p, res);
}

// A stateless request: its own session. Answered as JSON when the response comes first (an error
// then has its own HTTP status); as SSE when notifications come first, or when a client that
// accepts SSE has waited kJsonWait for it: the open stream then carries keep-alives, and a
// client that closes it cancels the request.
constexpr auto kJsonWait = std::chrono::seconds(1);

void answer_stateless(Context* c, const Request& req, Response& res, const Json& msg) {
  const McpRequestHeaders headers = mcp_headers(req);
  const bool is_request = msg.contains("method") && msg.contains("id");
  if (!is_request) {  // a notification or a stray response: nothing to answer
    res.status = 202;
    return;
  }
  auto conn = new_connection(c, req, headers);
  if (!conn) return rpc_error(res, 404, -32001, conn.status().message(), msg["id"]);
  AnswerPlan p{*conn,
               nullptr,
               McpSession::request_key(msg["id"]),
               msg["id"],
               Clock::now() + c->mcp.tool_timeout + std::chrono::seconds(5),
               false};
  p.stream = p.conn->open(p.key);
  {
    std::lock_guard lock(p.conn->mu);
    p.conn->session->handle_message(req.body);
  }
  const bool takes_sse = req.get_header_value("Accept").find("text/event-stream") != std::string::npos;
  const auto json_until = takes_sse ? std::min(p.deadline, Clock::now() + kJsonWait) : p.deadline;
  StreamItem first;
  while ((first = p.conn->next(p.stream, 0, false, std::min(json_until, Clock::now() + std::chrono::milliseconds(200))))
                 .kind == StreamItem::kTimeout &&
         Clock::now() < json_until && !c->stopping) {
  }
  if (is_rpc_response(first.line) || !takes_sse || c->stopping) return answer_json(c, p, res);
  p.client = client_of(req);
  if (!acquire_mcp_stream(*c, p.client, res)) {
    p.conn->close(p.key, true);
    return cancel_request(*p.conn, p.id, "no event stream slot");
  }
  answer_sse(c, p, res);
}

void answer_mcp_post(Context* c, McpSessions& sessions, const Request& req, Response& res) {
  Json msg = parse_json_bounded(req.body);
  if (msg.is_discarded() || !msg.is_object())
    return rpc_error(res, 400, -32700, "parse error: one JSON-RPC object, nested at most 256 levels deep");
  if (msg.contains("id") && !(msg["id"].is_string() || msg["id"].is_number_integer()))
    return rpc_error(res, 400, -32600, "Invalid Request: id must be a string or an integer");
  if (mcp_era_of(mcp_headers(req), msg) == McpEra::kStateless) return answer_stateless(c, req, res, msg);
  if (refuse_session_version(req, res, msg.value("id", Json()))) return;
  std::string method = msg.contains("method") && msg["method"].is_string() ? msg["method"].get<std::string>() : "";
  std::shared_ptr<McpConnection> s;
  std::string sid = req.get_header_value("Mcp-Session-Id");
  if (method == "initialize") {
    auto opened = new_connection(c, req, std::nullopt);
    if (!opened) return rpc_error(res, 404, -32001, opened.status().message(), msg.value("id", Json()));
    sid = new_session_id();
    if (Status added = sessions.add(sid, *opened, client_of(req)); !added.is_ok()) {
      res.set_header("Retry-After", "60");
      res.status = 503;
      return res.set_content(
          json_text(mcp::rpc_error(msg.value("id", Json()), -32000,
                                   added.message() + " (end one with DELETE /mcp, or idle ones expire)",
                                   added.details())),
          "application/json");
    }
    s = *opened;
  } else {
    if (sid.empty()) return rpc_error(res, 400, -32600, "missing Mcp-Session-Id header (initialize first)");
    s = sessions.find(sid);
    if (!s) return rpc_error(res, 404, -32001, "unknown or expired MCP session (initialize again)");
  }
  res.set_header("Mcp-Session-Id", sid);
  bool is_request = !method.empty() && msg.contains("id") && !msg["id"].is_null();
  if (is_request) return answer_session_request(c, s, req, res, msg);
  {
    std::lock_guard lock(s->mu);
    s->session->handle_message(req.body);  // a notification, or the client's answer to a question
  }
  if (method == "notifications/cancelled" && msg.contains("params") && msg["params"].is_object() &&
      msg["params"].contains("requestId")) {
    const Json& id = msg["params"]["requestId"];  // the waiting request ends now, answered
    s->route(json_text(mcp::rpc_error(id, -32800, "request cancelled by the client")), McpSession::request_key(id));
  }
  res.status = 202;
}

// GET with Last-Event-ID: the rest of the request stream it names (replayed, then live until the
// response). An id that names nothing left to send is a 405 (this GET offers no stream), which a
// client takes as the end, not as a failure to retry.
void resume_stream(Context* c, const std::shared_ptr<McpConnection>& conn, const Request& req, Response& res) {
  size_t cursor = 0;
  auto stream = conn->resume(req.get_header_value("Last-Event-ID"), cursor);
  if (!stream) {
    res.set_header("Allow", "GET, POST, DELETE");
    return rpc_error(res, 405, -32600, "nothing to resume: that stream was read to its end, or has expired");
  }
  const std::string client = client_of(req);
  if (!acquire_mcp_stream(*c, client, res)) return;
  AnswerPlan p{conn, stream, "", nullptr, Clock::now() + c->mcp.tool_timeout + std::chrono::seconds(5), true, client};
  res.status = 200;
  res.set_header("Cache-Control", "no-cache");
  auto at = std::make_shared<size_t>(cursor);
  res.set_chunked_content_provider(
      "text/event-stream",
      [c, p, at](size_t, DataSink& sink) {
        auto item = p.conn->next(p.stream, *at, false, std::min(p.deadline, Clock::now() + std::chrono::seconds(10)));
        if (item.kind != StreamItem::kMessage)
          return Clock::now() < p.deadline && !c->stopping && sink.write(": keep-alive\n\n", 14);
        ++*at;
        std::string frame =
            "id: " + p.stream->id + "-" + std::to_string(*at) + "\nevent: message\ndata: " + item.line + "\n\n";
        if (!sink.write(frame.data(), frame.size())) return false;
        if (is_rpc_response(item.line)) sink.done();
        return true;
      },
      [c, client](bool) { release_stream(*c, client); });
}

// GET: the session's stream of messages that answer no request (resource updates, task status and
// progress, questions to the client asked during a JSON-answered request), as SSE. One per
// session (a second is 409); it counts against the open event streams; it ends when the session
// ends or expires, when the server stops, or after the session's idle time with nothing to send
// (keep-alive comments every 10 s do not count).
void answer_mcp_get(Context* c, const std::shared_ptr<McpSessions>& sessions, const Request& req, Response& res) {
  if (req.get_header_value("Accept").find("text/event-stream") == std::string::npos) {
    res.set_header("Allow", "GET, POST, DELETE");
    return rpc_error(res, 406, -32600, "GET /mcp is an event stream: send Accept: text/event-stream");
  }
  if (req.get_header_value("MCP-Protocol-Version") == kMcpStatelessVersion) {  // no stream without a session
    res.set_header("Allow", "POST");
    return rpc_error(res, 405, -32600,
                     std::string("GET /mcp serves sessions; ") + kMcpStatelessVersion +
                         " requests are POSTs, each answered on its own");
  }
  if (refuse_session_version(req, res, Json())) return;
  std::string sid = req.get_header_value("Mcp-Session-Id");
  if (sid.empty()) return rpc_error(res, 400, -32600, "missing Mcp-Session-Id header (initialize first)");
  auto s = sessions->find(sid);
  if (!s) return rpc_error(res, 404, -32001, "unknown or expired MCP session (initialize again)");
  res.set_header("Mcp-Session-Id", sid);
  if (req.has_header("Last-Event-ID")) return resume_stream(c, s, req, res);
  if (!s->claim_get_stream(true)) return rpc_error(res, 409, -32600, "this session's GET stream is already open");
  const std::string client = client_of(req);
  if (!acquire_mcp_stream(*c, client, res)) {
    s->claim_get_stream(false);
    return;
  }
  res.status = 200;
  res.set_header("Cache-Control", "no-cache");
  auto last_sent = std::make_shared<Clock::time_point>(Clock::now());   // the last message
  auto last_write = std::make_shared<Clock::time_point>(Clock::now());  // the last message or keep-alive
  res.set_chunked_content_provider(
      "text/event-stream",
      [c, s, sessions, sid, last_sent, last_write](size_t, DataSink& sink) {
        if (c->stopping) return false;
        auto line = s->next_unrouted(Clock::now() + std::chrono::seconds(1));
        if (!line) {
          auto now = Clock::now();
          if (now - *last_sent > sessions->idle || sessions->peek(sid) != s) return false;
          if (now - *last_write < std::chrono::seconds(10)) return true;
          *last_write = now;
          return sink.write(": keep-alive\n\n", 14);
        }
        if (!sessions->find(sid)) return false;  // ended or expired; a delivered message keeps it alive
        *last_sent = *last_write = Clock::now();
        std::string frame = "event: message\ndata: " + *line + "\n\n";
        return sink.write(frame.data(), frame.size());
      },
      [c, s, client](bool) {
        s->claim_get_stream(false);
        release_stream(*c, client);
      });
}

}  // namespace

void add_mcp_routes(Context& ctx) {
  Context* c = &ctx;
  if (!ctx.mcp.shared) ctx.mcp.shared = make_mcp_shared();  // the stateless requests' task store
  auto sessions = std::make_shared<McpSessions>();
  sessions->idle = std::chrono::seconds(std::max(1, ctx.options.mcp_session_idle_seconds));
  const size_t max_sessions = std::max<size_t>(1, ctx.options.max_mcp_sessions);
  sessions->shares = std::make_unique<ClientShares>("MCP sessions", max_sessions, quarter_share(max_sessions));
  add_raw_route(
      ctx,
      {"POST",
       "/mcp",
       "MCP over Streamable HTTP (JSON-RPC 2.0): 2025-11-25 sessions (Mcp-Session-Id after initialize) "
       "and stateless 2026-07-28 requests",
       {{"type", "object"}}},
      [c, sessions](const Request& req, Response& res, const Json&) { answer_mcp_post(c, *sessions, req, res); });
  add_route(ctx, {"DELETE", "/mcp", "end an MCP session (Mcp-Session-Id)", nullptr},
            [sessions](const Request& req, Response& res, const Json&) {
              if (sessions->remove(req.get_header_value("Mcp-Session-Id")))
                return reply_json(res, {{"status", "ended"}});
              rpc_error(res, 404, -32001, "unknown or expired MCP session");
            });
  add_raw_route(
      ctx,
      {"GET", "/mcp",
       "MCP server-to-client SSE stream of a session (Mcp-Session-Id): resource updates, task status and "
       "progress; with Last-Event-ID, the rest of a request's stream",
       nullptr},
      [c, sessions](const Request& req, Response& res, const Json&) { answer_mcp_get(c, sessions, req, res); });
}

}  // namespace bioagent::server
