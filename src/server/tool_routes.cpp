// The tool registry over HTTP (GET/POST /api/tools) and MCP over Streamable
// HTTP at /mcp: POST carries one JSON-RPC message; a tools/call from a client
// that accepts text/event-stream is answered as an SSE stream (its progress and
// log notifications, then the result), other requests with application/json,
// notifications with 202; sessions by Mcp-Session-Id; GET opens the session's
// stream of messages that answer no request (resource updates, task status,
// a task's progress). A request cancelled by
// notifications/cancelled is answered at once with a JSON-RPC error (its work is
// stopped by the session); at most max_mcp_sessions live at once: a further
// initialize is refused, no live session is evicted.
#include <algorithm>
#include <condition_variable>
#include <deque>
#include <optional>
#include <random>

#include "bioagent/json_text.h"
#include "server/server_internal.h"

namespace bioagent::server {
namespace {

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

using Clock = std::chrono::steady_clock;

// One MCP session: the transport-neutral McpSession plus, for each request
// being answered, the messages routed to it (notifications, then the response).
struct McpHttpSession {
  std::mutex mu;  // serialises handle_message
  std::mutex rmu;
  std::condition_variable cv;
  std::map<std::string, std::deque<std::string>> queues;  // McpSession::request_key -> messages
  std::unique_ptr<Workspace> workspace;                   // what its tools read; outlives `session`
  std::unique_ptr<McpSession> session;
  // Messages of no request (resource updates, task status, a task's progress), for the GET
  // stream; the oldest are dropped beyond kMaxUnrouted.
  static constexpr size_t kMaxUnrouted = 256;
  std::deque<std::string> unrouted;
  bool get_stream_open = false;

  // The sink: a message goes to its request's queue; one of no request to the GET stream's
  // queue; one of a request already answered is dropped.
  void route(const std::string& line, const std::string& key) {
    std::lock_guard lock(rmu);
    if (key.empty()) {
      unrouted.push_back(line);
      if (unrouted.size() > kMaxUnrouted) unrouted.pop_front();
      cv.notify_all();
      return;
    }
    auto it = queues.find(key);
    if (it == queues.end()) return;
    it->second.push_back(line);
    cv.notify_all();
  }
  // The next message of no request, waiting until `deadline`; nullopt on time-out.
  std::optional<std::string> next_unrouted(Clock::time_point deadline) {
    std::unique_lock lock(rmu);
    if (!cv.wait_until(lock, deadline, [&] { return !unrouted.empty(); })) return std::nullopt;
    std::string line = std::move(unrouted.front());
    unrouted.pop_front();
    return line;
  }
  // Claims the session's one GET stream; false when one is open.
  bool claim_get_stream(bool claim) {
    std::lock_guard lock(rmu);
    if (claim && get_stream_open) return false;
    get_stream_open = claim;
    return true;
  }
  // The next message for `key`, waiting until `deadline`; nullopt on time-out.
  std::optional<std::string> next(const std::string& key, Clock::time_point deadline) {
    std::unique_lock lock(rmu);
    if (!cv.wait_until(lock, deadline, [&] { return !queues[key].empty(); })) return std::nullopt;
    std::string line = std::move(queues[key].front());
    queues[key].pop_front();
    return line;
  }
  void close(const std::string& key) {
    std::lock_guard lock(rmu);
    queues.erase(key);
  }
};

bool is_response(const std::string& line) {
  Json m = Json::parse(line, nullptr, false);
  return m.is_object() && m.contains("id") && !m.contains("method");
}

// The open MCP sessions; one unused for the idle limit, or the least recently
// used beyond the count limit, expires.
struct McpSessions {
  std::mutex mu;
  std::map<std::string, std::shared_ptr<McpHttpSession>> by_id;
  std::map<std::string, Clock::time_point> last_used;
  std::chrono::seconds idle{3600};
  size_t max_sessions = 256;

  void expire_locked(Clock::time_point now) {
    for (auto it = last_used.begin(); it != last_used.end();) {
      if (now - it->second > idle) {
        by_id.erase(it->first);
        it = last_used.erase(it);
      } else {
        ++it;
      }
    }
  }
  // False when max_sessions are live (after the idle ones expired): a live session is never evicted.
  bool add(const std::string& id, std::shared_ptr<McpHttpSession> s) {
    std::lock_guard lock(mu);
    auto now = Clock::now();
    expire_locked(now);
    if (by_id.size() >= max_sessions) return false;
    by_id[id] = std::move(s);
    last_used[id] = now;
    return true;
  }
  std::shared_ptr<McpHttpSession> find(const std::string& id) {
    std::lock_guard lock(mu);
    auto now = Clock::now();
    auto it = last_used.find(id);
    if (it == last_used.end() || now - it->second > idle) {
      by_id.erase(id);
      if (it != last_used.end()) last_used.erase(it);
      return nullptr;
    }
    it->second = now;
    return by_id[id];
  }
  // The live session `id` without marking it used (null when gone or idle too long).
  std::shared_ptr<McpHttpSession> peek(const std::string& id) {
    std::lock_guard lock(mu);
    auto it = last_used.find(id);
    if (it == last_used.end() || Clock::now() - it->second > idle) return nullptr;
    return by_id[id];
  }
  bool remove(const std::string& id) {
    std::lock_guard lock(mu);
    last_used.erase(id);
    return by_id.erase(id) > 0;
  }
};

}  // namespace

namespace {

std::string rpc_error_text(const Json& id, int code, const std::string& message) {
  return Json{{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", message}}}}.dump();
}

void rpc_error(Response& res, int http, int code, const std::string& message) {
  res.status = http;
  res.set_content(rpc_error_text(nullptr, code, message), "application/json");
}

// The folders a tool called for session `sid` reads: the data folders named at
// start plus that session's own files; without a session the data folders only.
Result<Workspace> workspace_for(const Context* c, const std::string& sid) {
  if (sid.empty() || !c->assistant) return *c->workspace;
  // The session's files sit in its data folder, beside the staging folder of its uploads.
  auto staging = c->assistant->upload_staging_dir(sid);  // not_found for an unknown session
  if (!staging) return staging.status();
  return c->workspace->for_session(staging->parent_path() / "data");
}

// A new MCP session (its id in `sid`), or null when max_sessions are live. An
// X-Session-Id names the assistant session whose files its tools read.
Result<std::shared_ptr<McpHttpSession>> open_session(Context* c, McpSessions& sessions, const Request& req,
                                                     std::string& sid) {
  auto ws = workspace_for(c, req.get_header_value("X-Session-Id"));
  if (!ws) return ws.status();
  auto s = std::make_shared<McpHttpSession>();
  McpHttpSession* raw = s.get();
  s->workspace = std::make_unique<Workspace>(std::move(*ws));
  s->session = std::make_unique<McpSession>(
      *c->registry, *s->workspace, c->mcp,
      McpSession::RoutedSink([raw](const std::string& line, const std::string& key) { raw->route(line, key); }));
  sid = new_session_id();
  if (!sessions.add(sid, s)) return std::shared_ptr<McpHttpSession>();
  return s;
}

// Answers one JSON-RPC request of an MCP session (the transport's only
// request-specific part). A tools/call from a client that accepts
// text/event-stream gets an SSE stream: each notification the call sends (its
// progress and log messages), then the response, then the stream ends; a
// client that goes away cancels the call (notifications/cancelled). Other
// requests get their response as application/json. What the transport needs:
// a response body written incrementally from a worker (chunked), a way to see
// that the client left, and a hook when the stream ends.
void answer_mcp_request(Context* c, const std::shared_ptr<McpHttpSession>& s, const Request& req, Response& res,
                        const Json& msg) {
  const std::string key = McpSession::request_key(msg["id"]);
  const std::string method = msg.value("method", "");
  bool sse = (method == "tools/call" || method == "tasks/result") &&
             req.get_header_value("Accept").find("text/event-stream") != std::string::npos;
  // tasks/result waits for the run to end (hours, as long as the stream stays open).
  const std::chrono::milliseconds limit = method == "tasks/result" && sse
                                              ? std::chrono::milliseconds(std::chrono::hours(24 * 30))
                                              : c->mcp.tool_timeout + std::chrono::seconds(5);
  if (sse && !acquire_stream(*c, res)) return;
  {
    std::lock_guard lock(s->rmu);
    s->queues[key];  // open before the message is handled, so nothing it sends is lost
  }
  {
    std::lock_guard lock(s->mu);
    s->session->handle_message(req.body);
  }
  if (!sse) {
    const auto deadline = Clock::now() + limit;
    for (;;) {
      auto line = s->next(key, std::min(deadline, Clock::now() + std::chrono::milliseconds(200)));
      if (!line && c->stopping) {
        s->close(key);
        return rpc_error(res, 503, -32000, "the server is shutting down");
      }
      if (!line && Clock::now() < deadline) continue;
      if (!line) {
        s->close(key);
        return reply_json(res,
                          {{"jsonrpc", "2.0"},
                           {"id", msg["id"]},
                           {"error", {{"code", -32000}, {"message", "no answer within the tool time limit"}}}},
                          504);
      }
      if (!is_response(*line)) continue;  // a notification: a JSON answer carries only the response
      s->close(key);
      res.status = 200;
      return res.set_content(*line, "application/json");
    }
  }
  res.status = 200;
  res.set_header("Cache-Control", "no-cache");
  auto deadline = std::make_shared<Clock::time_point>(Clock::now() + limit);
  res.set_chunked_content_provider(
      "text/event-stream",
      [c, s, key, deadline, id = msg["id"]](size_t, DataSink& sink) {
        auto line = s->next(key, std::min(*deadline, Clock::now() + std::chrono::seconds(10)));
        if (!line) {
          if (Clock::now() < *deadline && !c->stopping && sink.write(": keep-alive\n\n", 14)) return true;
          // Out of time, or the client left: stop the call.
          std::lock_guard lock(s->mu);
          s->session->handle_message(Json{{"jsonrpc", "2.0"},
                                          {"method", "notifications/cancelled"},
                                          {"params", {{"requestId", id}, {"reason", "the HTTP stream ended"}}}}
                                         .dump());
          return false;
        }
        std::string frame = "event: message\ndata: " + *line + "\n\n";
        if (!sink.write(frame.data(), frame.size())) {
          std::lock_guard lock(s->mu);
          s->session->handle_message(Json{{"jsonrpc", "2.0"},
                                          {"method", "notifications/cancelled"},
                                          {"params", {{"requestId", id}, {"reason", "the client left"}}}}
                                         .dump());
          return false;
        }
        if (is_response(*line)) sink.done();
        return true;
      },
      [c, s, key](bool) {
        s->close(key);
        release_stream(*c);
      });
}

void answer_mcp_post(Context* c, McpSessions& sessions, const Request& req, Response& res) {
  Json msg = parse_json_bounded(req.body);
  if (msg.is_discarded() || !msg.is_object())
    return rpc_error(res, 400, -32700, "parse error: one JSON-RPC object, nested at most 256 levels deep");
  std::string method = msg.contains("method") && msg["method"].is_string() ? msg["method"].get<std::string>() : "";
  std::shared_ptr<McpHttpSession> s;
  std::string sid = req.get_header_value("Mcp-Session-Id");
  if (method == "initialize") {
    auto opened = open_session(c, sessions, req, sid);
    if (!opened) return rpc_error(res, 404, -32001, opened.status().message());
    s = *opened;
    if (!s) {
      res.set_header("Retry-After", "60");
      return rpc_error(res, 503, -32000,
                       "refused: " + std::to_string(sessions.max_sessions) +
                           " MCP sessions are open; end one (DELETE /mcp) or retry after idle ones expire");
    }
  } else {
    if (sid.empty()) return rpc_error(res, 400, -32600, "missing Mcp-Session-Id header (initialize first)");
    s = sessions.find(sid);
    if (!s) return rpc_error(res, 404, -32001, "unknown or expired MCP session (initialize again)");
  }
  res.set_header("Mcp-Session-Id", sid);
  bool is_request = !method.empty() && msg.contains("id") && !msg["id"].is_null();
  if (is_request) return answer_mcp_request(c, s, req, res, msg);
  {
    std::lock_guard lock(s->mu);
    s->session->handle_message(req.body);
  }
  if (method == "notifications/cancelled" && msg.contains("params") && msg["params"].is_object() &&
      msg["params"].contains("requestId")) {
    const Json& id = msg["params"]["requestId"];  // the waiting request ends now, answered
    s->route(rpc_error_text(id, -32800, "request cancelled by the client"), McpSession::request_key(id));
  }
  res.status = 202;
}

// GET /mcp: the session's stream of messages that answer no request (resource
// updates, task status and progress), as SSE. One per session (a second is
// 409); it counts against the open event streams; it ends when the session
// ends or expires, when the server stops, or after the session's idle time
// with nothing to send (keep-alive comments every 10 s do not count).
void answer_mcp_get(Context* c, const std::shared_ptr<McpSessions>& sessions, const Request& req, Response& res) {
  if (req.get_header_value("Accept").find("text/event-stream") == std::string::npos) {
    res.set_header("Allow", "GET, POST, DELETE");
    return rpc_error(res, 406, -32600, "GET /mcp is an event stream: send Accept: text/event-stream");
  }
  std::string sid = req.get_header_value("Mcp-Session-Id");
  if (sid.empty()) return rpc_error(res, 400, -32600, "missing Mcp-Session-Id header (initialize first)");
  auto s = sessions->find(sid);
  if (!s) return rpc_error(res, 404, -32001, "unknown or expired MCP session (initialize again)");
  if (!s->claim_get_stream(true)) return rpc_error(res, 409, -32600, "this session's GET stream is already open");
  if (!acquire_stream(*c, res)) {
    s->claim_get_stream(false);
    return;
  }
  res.status = 200;
  res.set_header("Cache-Control", "no-cache");
  res.set_header("Mcp-Session-Id", sid);
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
      [c, s](bool) {
        s->claim_get_stream(false);
        release_stream(*c);
      });
}

bool is_tool_name(const std::string& name) {
  return !name.empty() && name.size() <= 200 && std::all_of(name.begin(), name.end(), [](char ch) {
    return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '.' || ch == '-';
  });
}

}  // namespace

void add_tool_and_mcp_routes(Context& ctx) {
  Context* c = &ctx;
  using Req = const Request&;
  using Res = Response&;
  add_route(ctx, {"GET", "/api/tools", "the tool registry (format=json|openai|mcp)", nullptr},
            [c](Req req, Res res, const Json&) {
              std::string format = req.has_param("format") ? req.get_param_value("format") : "json";
              if (format != "json" && format != "openai" && format != "mcp")
                return reply_error(
                    res,
                    Status(ErrorCode::kInvalidArgument, "format must be json, openai or mcp").with("field", "format"));
              Json tools = Json::array();
              for (auto* s : c->registry->list())
                tools.push_back(format == "openai" ? c->registry->openai_function(*s)
                                : format == "mcp"  ? c->registry->mcp_tool(*s)
                                                   : c->registry->spec_json(*s));
              reply_json(res, {{"count", tools.size()}, {"tools", tools}});
            });
  // A call with X-Session-Id (or ?session_id=) reads that session's files too.
  auto call = [c](const Request& req, const std::string& name, const Json& args, Response& res) {
    if (!is_tool_name(name)) return reply_error(res, not_found("no such endpoint"));
    auto ws = workspace_for(c, session_of(req, Json()));
    if (!ws) return reply_error(res, ws.status());
    ToolContext tc(&*ws);
    tc.set_options(c->mcp.tool_options);
    tc.set_timeout(std::chrono::duration_cast<std::chrono::milliseconds>(c->mcp.tool_timeout));
    auto r = c->registry->call(name, args, tc);
    if (!r) return reply_error(res, r.status());
    reply_json(res, {{"status", "success"}, {"data", *r}});
  };
  add_route(ctx,
            {"POST",
             "/api/tools",
             "call a tool: {name, arguments} -> {status: success, data} or an error",
             {{"type", "object"},
              {"properties", {{"name", {{"type", "string"}, {"maxLength", 200}}}, {"arguments", {{"type", "object"}}}}},
              {"required", {"name"}},
              {"additionalProperties", false}}},
            [call](Req req, Res res, const Json& body) {
              call(req, body["name"], body.value("arguments", Json::object()), res);
            });
  add_route(ctx, {"POST", "/api/tools/{name}", "call a tool with the body as its arguments", {{"type", "object"}}},
            [call](Req req, Res res, const Json& body) { call(req, req.matches[1], body, res); });

  auto sessions = std::make_shared<McpSessions>();
  sessions->idle = std::chrono::seconds(std::max(1, ctx.options.mcp_session_idle_seconds));
  sessions->max_sessions = std::max<size_t>(1, ctx.options.max_mcp_sessions);
  add_raw_route(ctx,
                {"POST",
                 "/mcp",
                 "MCP over Streamable HTTP (JSON-RPC 2.0; Mcp-Session-Id after initialize)",
                 {{"type", "object"}}},
                [c, sessions](Req req, Res res, const Json&) { answer_mcp_post(c, *sessions, req, res); });
  add_route(ctx, {"DELETE", "/mcp", "end an MCP session (Mcp-Session-Id)", nullptr},
            [sessions](Req req, Res res, const Json&) {
              bool gone = sessions->remove(req.get_header_value("Mcp-Session-Id"));
              if (gone) return reply_json(res, {{"status", "ended"}});
              reply_error(res, not_found("unknown or expired MCP session"));
            });
  add_raw_route(ctx,
                {"GET", "/mcp",
                 "MCP server-to-client SSE stream of a session (Mcp-Session-Id): resource updates, task status "
                 "and task progress",
                 nullptr},
                [c, sessions](Req req, Res res, const Json&) { answer_mcp_get(c, sessions, req, res); });
}

}  // namespace bioagent::server
