// The seed 004 endpoints: sessions, chat (JSON or Server-Sent Events), plan,
// execute, confirm, status, task events (SSE, resumable with Last-Event-ID),
// diagnose, results and their files (uploads: upload_route.cpp).
#include <condition_variable>
#include <deque>
#include <fstream>
#include <thread>

#include "bioagent/json_text.h"
#include "runs/run_clients.h"
#include "server/server_internal.h"

namespace bioagent::server {
namespace {

std::string sse_frame(const std::string& event, const Json& data, int64_t id = -1) {
  std::string f;
  if (id >= 0) f += "id: " + std::to_string(id) + "\n";
  f += "event: " + event + "\ndata: " + json_text(data) + "\n\n";
  return f;
}

// Frames produced on one thread and written by the response's content provider on another.
struct SseQueue {
  std::mutex mu;
  std::condition_variable cv;
  std::deque<std::string> frames;
  bool finished = false;
  std::thread worker;
  void push(std::string f, bool last = false) {
    std::lock_guard lock(mu);
    frames.push_back(std::move(f));
    finished |= last;
    cv.notify_all();
  }
};

void stream_queue(Context& ctx, const std::string& client, Response& res, std::shared_ptr<SseQueue> q) {
  res.set_header("Cache-Control", "no-cache");
  res.set_header("X-Accel-Buffering", "no");
  res.set_chunked_content_provider(
      "text/event-stream",
      [q](size_t, DataSink& sink) {
        std::unique_lock lock(q->mu);
        if (q->frames.empty() && !q->finished) q->cv.wait_for(lock, std::chrono::seconds(15));
        if (q->frames.empty() && !q->finished) {
          lock.unlock();
          return sink.write(": keep-alive\n\n", 14);
        }
        while (!q->frames.empty()) {
          std::string f = std::move(q->frames.front());
          q->frames.pop_front();
          lock.unlock();
          if (!sink.write(f.data(), f.size())) return false;
          lock.lock();
        }
        if (q->finished) sink.done();
        return true;
      },
      [q, &ctx, client](bool) {
        if (q->worker.joinable()) q->worker.join();
        release_stream(ctx, client);
      });
}

bool wants_stream(const Request& req, const Json& body) {
  return body.value("stream", false) || req.get_header_value("Accept").find("text/event-stream") != std::string::npos;
}

// A JSON body schema: the named properties, these required, nothing else.
Json schema(std::initializer_list<std::pair<const char*, Json>> props, std::vector<std::string> required) {
  Json p = Json::object();
  for (auto& [k, v] : props) p[k] = v;
  return {{"type", "object"}, {"properties", p}, {"required", required}, {"additionalProperties", false}};
}

const Json kStr = {{"type", "string"}, {"maxLength", 100000}};
const Json kId = {{"type", "string"}, {"maxLength", 200}};
const Json kObj = {{"type", "object"}};
const Json kBool = {{"type", "boolean"}};

// HTML and SVG results are shown as documents of their own: inline styles and
// embedded images only, no script, no request to anywhere, sandboxed.
constexpr const char* kResultFilePolicy =
    "default-src 'none'; style-src 'unsafe-inline'; img-src data:; font-src data:; sandbox";

std::string file_type(const fs::path& p) {
  return p.extension() == ".svg"    ? "image/svg+xml"
         : p.extension() == ".html" ? "text/html; charset=utf-8"
         : p.extension() == ".png"  ? "image/png"
         : p.extension() == ".json" ? "application/json"
         : p.extension() == ".pdf"  ? "application/pdf"
         : p.extension() == ".zip"  ? "application/zip"
                                    : "text/plain; charset=utf-8";
}

void add_chat_route(Context& ctx) {
  Assistant& a = *ctx.assistant;
  Context* c = &ctx;
  add_route(ctx,
            {"POST", "/api/agent/chat",
             "one chat turn: routed to the knowledge, planning or execution agent; stream=true (or Accept: "
             "text/event-stream) streams route/delta/plan/result events",
             schema({{"message", kStr},
                     {"session_id", kId},
                     {"stream", kBool},
                     {"mode", {{"type", "string"}, {"enum", {"rag", "skill"}}}},
                     {"model", kId}},
                    {"message"})},
            [&a, c](const Request& req, Response& res, const Json& body) {
              std::string message = body["message"];
              ChatOptions co;
              if (body.contains("mode")) co.mode = body["mode"];
              if (body.contains("model")) co.model = body["model"];
              std::string sid = session_of(req, body);
              if (sid.empty()) {  // a first message opens a session
                auto s = a.create_session();
                if (!s) return reply_error(res, s.status());
                sid = (*s)["session_id"];
              }
              note_run_client(sid, client_of(req));  // a turn may start a run: it counts against this client
              if (!wants_stream(req, body)) {
                auto r = a.chat(sid, message, nullptr, co);
                if (!r) return reply_error(res, r.status());
                (*r)["session_id"] = sid;
                return reply_json(res, *r);
              }
              if (!a.has_session(sid)) return reply_error(res, not_found("no session '" + sid.substr(0, 80) + "'"));
              const std::string client = client_of(req);
              if (!acquire_stream(*c, client, res)) return;
              auto q = std::make_shared<SseQueue>();
              q->push(sse_frame("session", {{"session_id", sid}}));
              q->worker = std::thread([&a, q, sid, message, co] {
                auto r = a.chat(
                    sid, message, [&](const Json& e) { q->push(sse_frame(e.value("type", "event"), e)); }, co);
                if (r) {
                  (*r)["session_id"] = sid;
                  q->push(sse_frame("result", *r), true);
                } else {
                  q->push(sse_frame("error", error_envelope(r.status())), true);
                }
              });
              stream_queue(*c, client, res, q);
            });
}

void add_events_route(Context& ctx) {
  Assistant& a = *ctx.assistant;
  Context* c = &ctx;
  add_route(ctx,
            {"GET", "/api/agent/events/{task_id}",
             "a task's progress as Server-Sent Events (after=N or Last-Event-ID resumes)", nullptr},
            [&a, c](const Request& req, Response& res, const Json&) {
              std::string sid = session_of(req, nullptr), task = req.matches[1];
              auto st = a.runs().status(sid, task);
              if (!st) return reply_error(res, st.status());
              std::string from = req.has_header("Last-Event-ID") ? req.get_header_value("Last-Event-ID")
                                                                 : req.get_param_value("after");
              int64_t after = std::atoll(from.c_str());
              const std::string client = client_of(req);
              if (!acquire_stream(*c, client, res)) return;
              auto cursor = std::make_shared<int64_t>(std::max<int64_t>(0, after));
              res.set_header("Cache-Control", "no-cache");
              res.set_chunked_content_provider(
                  "text/event-stream",
                  [&a, sid, task, cursor](size_t, DataSink& sink) {
                    Json evs = a.runs().events(sid, task, *cursor, std::chrono::seconds(15));
                    if (evs.empty()) return sink.write(": keep-alive\n\n", 14);
                    bool final_state = false;
                    for (auto& e : evs) {
                      *cursor = e.value("seq", *cursor);
                      std::string f = sse_frame(e.value("type", "event"), e, *cursor);
                      if (!sink.write(f.data(), f.size())) return false;
                      auto ts = task_state_from_string(e.value("state", ""));
                      final_state |= e.value("type", "") == "state" && ts && is_terminal(*ts);
                    }
                    // A resumed task's earlier end is not its end: the stream ends with the task.
                    if (final_state) {
                      auto now = a.runs().status(sid, task);
                      if (!now || ((*now).value("terminal", false) &&
                                   a.runs().events(sid, task, *cursor, std::chrono::milliseconds(0)).empty()))
                        sink.done();
                    }
                    return true;
                  },
                  [c, client](bool) { release_stream(*c, client); });
            });
}

// Sessions, the server's configuration and its data roots.
void add_session_routes(Context& ctx) {
  Assistant& a = *ctx.assistant;
  using Req = const Request&;
  using Res = Response&;

  add_route(ctx,
            {"POST", "/api/sessions", "create a session (its id is the key to its messages, plans, tasks, files)",
             schema({}, {})},
            [&a](Req, Res res, const Json&) {
              auto s = a.create_session();
              s ? reply_json(res, *s, 201) : reply_error(res, s.status());
            });
  add_route(ctx, {"GET", "/api/sessions/{session_id}/messages", "the session's conversation", nullptr},
            [&a](Req req, Res res, const Json&) {
              auto m = a.messages(req.matches[1]);
              m ? reply_json(res, *m) : reply_error(res, m.status());
            });
  add_route(ctx,
            {"GET", "/api/sessions/{session_id}/state",
             "the session as a page restores it after a reload: messages, uploaded files, tasks", nullptr},
            [&a](Req req, Res res, const Json&) {
              auto m = a.session_state(req.matches[1]);
              m ? reply_json(res, *m) : reply_error(res, m.status());
            });
  add_route(ctx, {"GET", "/api/config", "models, offline flag, dialog timeout and the file naming rules", nullptr},
            [&a](Req, Res res, const Json&) { reply_json(res, a.config()); });
  add_route(
      ctx,
      {"GET", "/api/data_roots",
       "the server's data roots (serve --root) by name, the species folders in each and the session's choice", nullptr},
      [&a](Req req, Res res, const Json&) {
        auto r = a.runs().data_roots(session_of(req, nullptr));
        r ? reply_json(res, *r) : reply_error(res, r.status());
      });
  add_route(ctx,
            {"POST", "/api/data_roots/select",
             "use a root's species folder for the session (root name + relative folder; an empty root clears it)",
             schema({{"root", kId}, {"folder", kId}, {"session_id", kId}}, {"root"})},
            [&a](Req req, Res res, const Json& body) {
              auto r = a.runs().select_data_folder(session_of(req, body), body["root"], body.value("folder", ""));
              r ? reply_json(res, *r) : reply_error(res, r.status());
            });
}

// A plan, its task's start, the parameter dialog's answer, the task's status.
void add_task_routes(Context& ctx) {
  Assistant& a = *ctx.assistant;
  using Req = const Request&;
  using Res = Response&;
  add_route(ctx,
            {"POST", "/api/agent/plan", "the planning agent's YAML plan for a species and family",
             schema({{"species", kId}, {"gene_family", kId}, {"session_id", kId}, {"language", kId}},
                    {"species", "gene_family"})},
            [&a](Req req, Res res, const Json& body) {
              auto p = a.plan(session_of(req, body), body["species"], body["gene_family"], body.value("language", ""));
              p ? reply_json(res, *p) : reply_error(res, p.status());
            });
  add_route(ctx,
            {"POST", "/api/agent/execute",
             "start a task for a plan: naming check, parameter confirmation (defaults after the timeout unless "
             "auto_confirm or params are given), then the pipeline",
             schema({{"plan_id", kId}, {"params", kObj}, {"auto_confirm", kBool}, {"session_id", kId}}, {"plan_id"})},
            [&a](Req req, Res res, const Json& body) {
              const std::string sid = session_of(req, body);
              note_run_client(sid, client_of(req));  // its runs count against this client's share
              auto t = a.execute(sid, body["plan_id"], body.value("params", Json::object()),
                                 body.value("auto_confirm", false));
              t ? reply_json(res, *t, 202) : reply_error(res, t.status());
            });
  add_route(ctx,
            {"POST", "/api/agent/confirm",
             "answer the parameter dialog: confirm, edit (stops the countdown while the user edits), modify (with "
             "params) or cancel",
             schema({{"task_id", kId},
                     {"action", {{"type", "string"}, {"enum", {"confirm", "edit", "modify", "cancel"}}}},
                     {"params", kObj},
                     {"session_id", kId}},
                    {"task_id", "action"})},
            [&a](Req req, Res res, const Json& body) {
              auto r = a.runs().answer(session_of(req, body), body["task_id"], body["action"],
                                       body.value("params", Json::object()));
              r ? reply_json(res, *r) : reply_error(res, r.status());
            });
  add_route(ctx,
            {"POST", "/api/agent/stop",
             "stop a task at any point (its state becomes cancelled; finished stages are kept for a resume)",
             schema({{"task_id", kId}, {"session_id", kId}}, {"task_id"})},
            [&a](Req req, Res res, const Json& body) {
              auto r = a.runs().cancel(session_of(req, body), body["task_id"]);
              r ? reply_json(res, *r) : reply_error(res, r.status());
            });
  add_route(ctx,
            {"POST", "/api/agent/resume",
             "run a cancelled or failed task again in its run folder (finished stages are reused)",
             schema({{"task_id", kId}, {"session_id", kId}}, {"task_id"})},
            [&a](Req req, Res res, const Json& body) {
              note_run_client(session_of(req, body), client_of(req));
              auto r = a.runs().resume(session_of(req, body), body["task_id"]);
              r ? reply_json(res, *r, 202) : reply_error(res, r.status());
            });
  add_route(ctx, {"GET", "/api/agent/status/{task_id}", "a task's state, stages and progress", nullptr},
            [&a](Req req, Res res, const Json&) {
              auto s = a.runs().status(session_of(req, nullptr), req.matches[1]);
              s ? reply_json(res, *s) : reply_error(res, s.status());
            });
}

// A failure's diagnosis, a task's results and their files.
void add_result_routes(Context& ctx) {
  Assistant& a = *ctx.assistant;
  using Req = const Request&;
  using Res = Response&;
  add_route(ctx,
            {"POST", "/api/agent/diagnose", "classify a failure, name its root cause and the repair",
             schema({{"task_id", kId}, {"error_log", kStr}, {"session_id", kId}}, {})},
            [&a](Req req, Res res, const Json& body) {
              auto d = a.runs().diagnose(session_of(req, body), body.value("task_id", ""), body.value("error_log", ""));
              d ? reply_json(res, *d) : reply_error(res, d.status());
            });
  add_route(ctx,
            {"GET", "/api/agent/results/{task_id}", "a task's result files, validation and stage summaries", nullptr},
            [&a](Req req, Res res, const Json&) {
              auto r = a.runs().results(session_of(req, nullptr), req.matches[1]);
              r ? reply_json(res, *r) : reply_error(res, r.status());
            });
  add_route(ctx,
            {"GET", "/api/agent/results/{task_id}/files/{name}",
             "download one result file (a name listed by the results route)", nullptr, true},
            [&a](Req req, Res res, const Json&) {
              auto p = a.runs().result_file(session_of(req, nullptr), req.matches[1], req.matches[2]);
              if (!p) return reply_error(res, p.status());
              std::ifstream in(*p, std::ios::binary);
              std::string name = p->filename().string();
              if (req.has_param("download"))
                res.set_header("Content-Disposition", "attachment; filename=\"" + name + "\"");
              res.set_header("X-Content-Type-Options", "nosniff");
              std::string type = file_type(*p);
              if (type.rfind("text/html", 0) == 0 || type == "image/svg+xml")  // no script, no outside fetch
                res.set_header("Content-Security-Policy", kResultFilePolicy);
              res.set_content(std::string(std::istreambuf_iterator<char>(in), {}), type);
            });
  add_route(ctx,
            {"GET", "/api/agent/results/{task_id}/zip",
             "download the whole result folder as one zip (<Prefix>.<Family>.results.zip, written by the report "
             "stage)",
             nullptr},
            [&a](Req req, Res res, const Json&) {
              auto listed = a.runs().results(session_of(req, nullptr), req.matches[1]);
              if (!listed) return reply_error(res, listed.status());
              std::string zip;
              for (auto& f : listed->value("files", Json::array()))
                if (f.value("name", std::string()).ends_with(".results.zip")) zip = f.value("name", std::string());
              if (zip.empty())
                return reply_error(res, not_found("the task has no results.zip: its report stage has not finished"));
              auto p = a.runs().result_file(session_of(req, nullptr), req.matches[1], zip);
              if (!p) return reply_error(res, p.status());
              std::ifstream in(*p, std::ios::binary);
              res.set_header("Content-Disposition", "attachment; filename=\"" + zip + "\"");
              res.set_header("X-Content-Type-Options", "nosniff");
              res.set_content(std::string(std::istreambuf_iterator<char>(in), {}), "application/zip");
            });
}

}  // namespace

void add_agent_routes(Context& ctx) {
  add_session_routes(ctx);
  add_chat_route(ctx);
  add_task_routes(ctx);
  add_events_route(ctx);
  add_result_routes(ctx);
}

}  // namespace bioagent::server
