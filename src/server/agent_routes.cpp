// The seed 004 endpoints: sessions, chat (JSON or Server-Sent Events), plan,
// execute, confirm, status, task events (SSE, resumable with Last-Event-ID),
// diagnose, results and their files, uploads.
#include <condition_variable>
#include <deque>
#include <fstream>
#include <thread>

#include "server/server_internal.h"

namespace bioagent::server {
namespace {

std::string sse_frame(const std::string& event, const Json& data, int64_t id = -1) {
  std::string f;
  if (id >= 0) f += "id: " + std::to_string(id) + "\n";
  f += "event: " + event + "\ndata: " + data.dump(-1, ' ', false, Json::error_handler_t::replace) + "\n\n";
  return f;
}

// Frames produced on one thread and written by httplib's content provider on another.
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

void stream_queue(httplib::Response& res, std::shared_ptr<SseQueue> q) {
  res.set_header("Cache-Control", "no-cache");
  res.set_header("X-Accel-Buffering", "no");
  res.set_chunked_content_provider(
      "text/event-stream",
      [q](size_t, httplib::DataSink& sink) {
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
      [q](bool) {
        if (q->worker.joinable()) q->worker.join();
      });
}

bool wants_stream(const httplib::Request& req, const Json& body) {
  return (body.contains("stream") && body["stream"] == true) ||
         req.get_header_value("Accept").find("text/event-stream") != std::string::npos;
}

Json schema(std::initializer_list<std::pair<const char*, Json>> props, std::vector<std::string> required) {
  Json p = Json::object();
  for (auto& [k, v] : props) p[k] = v;
  return {{"type", "object"}, {"properties", p}, {"required", required}};
}

}  // namespace

void add_agent_routes(httplib::Server& svr, Context& ctx) {
  Assistant& a = *ctx.assistant;
  const Json str = {{"type", "string"}}, obj = {{"type", "object"}}, boolean = {{"type", "boolean"}};
  auto& docs = ctx.docs;

  docs.push_back(
      {"POST", "/api/sessions", "create a session (its id is the key to its messages, plans, tasks, files)", nullptr});
  svr.Post("/api/sessions", [&a](const httplib::Request&, httplib::Response& res) {
    auto s = a.create_session();
    s ? reply_json(res, *s, 201) : reply_error(res, s.status());
  });
  docs.push_back({"GET", "/api/sessions/{session_id}/messages", "the session's conversation", nullptr});
  svr.Get(R"(/api/sessions/([^/]+)/messages)", [&a](const httplib::Request& req, httplib::Response& res) {
    auto m = a.messages(req.matches[1]);
    m ? reply_json(res, *m) : reply_error(res, m.status());
  });

  docs.push_back({"POST", "/api/agent/chat",
                  "one chat turn: routed to the knowledge, planning or execution agent; stream=true (or Accept: "
                  "text/event-stream) streams route/delta/plan/result events",
                  schema({{"message", str}, {"session_id", str}, {"stream", boolean}, {"mode", str}, {"model", str}},
                         {"message"})});
  docs.push_back({"GET", "/api/config", "models, offline flag, dialog timeout and the file naming rules", nullptr});
  svr.Get("/api/config", [&a](const httplib::Request&, httplib::Response& res) { reply_json(res, a.config()); });
  svr.Post("/api/agent/chat", [&a](const httplib::Request& req, httplib::Response& res) {
    Json body;
    std::string message;
    ChatOptions co;
    if (!parse_body(req, res, body) || !body_string(body, "message", res, message) ||
        !body_string(body, "mode", res, co.mode, false) || !body_string(body, "model", res, co.model, false))
      return;
    std::string sid = session_of(req, body);
    if (sid.empty()) {  // a first message opens a session
      auto s = a.create_session();
      if (!s) return reply_error(res, s.status());
      sid = (*s)["session_id"];
    }
    if (!wants_stream(req, body)) {
      auto r = a.chat(sid, message, nullptr, co);
      if (!r) return reply_error(res, r.status());
      (*r)["session_id"] = sid;
      return reply_json(res, *r);
    }
    if (!a.has_session(sid)) return reply_error(res, not_found("no session '" + sid.substr(0, 80) + "'"));
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
    stream_queue(res, q);
  });

  docs.push_back({"POST", "/api/agent/plan", "the planning agent's YAML plan for a species and family",
                  schema({{"species", str}, {"gene_family", str}, {"session_id", str}, {"language", str}},
                         {"species", "gene_family"})});
  svr.Post("/api/agent/plan", [&a](const httplib::Request& req, httplib::Response& res) {
    Json body;
    std::string species, family;
    if (!parse_body(req, res, body) || !body_string(body, "species", res, species) ||
        !body_string(body, "gene_family", res, family))
      return;
    std::string language;
    if (!body_string(body, "language", res, language, false)) return;
    auto p = a.plan(session_of(req, body), species, family, language);
    p ? reply_json(res, *p) : reply_error(res, p.status());
  });

  docs.push_back(
      {"POST", "/api/agent/execute",
       "start a task for a plan: naming check, parameter confirmation (defaults after the timeout unless "
       "auto_confirm or params are given), then the pipeline",
       schema({{"plan_id", str}, {"params", obj}, {"auto_confirm", boolean}, {"session_id", str}}, {"plan_id"})});
  svr.Post("/api/agent/execute", [&a](const httplib::Request& req, httplib::Response& res) {
    Json body;
    std::string plan_id;
    if (!parse_body(req, res, body) || !body_string(body, "plan_id", res, plan_id)) return;
    if (body.contains("auto_confirm") && !body["auto_confirm"].is_boolean())
      return reply_error(
          res, Status(ErrorCode::kInvalidArgument, "auto_confirm must be true or false").with("field", "auto_confirm"));
    auto t = a.execute(session_of(req, body), plan_id, body.value("params", Json::object()),
                       body.value("auto_confirm", false));
    t ? reply_json(res, *t, 202) : reply_error(res, t.status());
  });

  docs.push_back(
      {"POST", "/api/agent/confirm", "answer the parameter dialog: confirm, modify (with params) or cancel",
       schema({{"task_id", str}, {"action", str}, {"params", obj}, {"session_id", str}}, {"task_id", "action"})});
  svr.Post("/api/agent/confirm", [&a](const httplib::Request& req, httplib::Response& res) {
    Json body;
    std::string task, action;
    if (!parse_body(req, res, body) || !body_string(body, "task_id", res, task) ||
        !body_string(body, "action", res, action))
      return;
    auto r = a.confirm(session_of(req, body), task, action, body.value("params", Json::object()));
    r ? reply_json(res, *r) : reply_error(res, r.status());
  });

  docs.push_back({"GET", "/api/agent/status/{task_id}", "a task's state, stages and progress", nullptr});
  svr.Get(R"(/api/agent/status/([^/]+))", [&a](const httplib::Request& req, httplib::Response& res) {
    auto s = a.status(session_of(req, nullptr), req.matches[1]);
    s ? reply_json(res, *s) : reply_error(res, s.status());
  });

  docs.push_back({"GET", "/api/agent/events/{task_id}",
                  "a task's progress as Server-Sent Events (after=N or Last-Event-ID resumes)", nullptr});
  svr.Get(R"(/api/agent/events/([^/]+))", [&a](const httplib::Request& req, httplib::Response& res) {
    std::string sid = session_of(req, nullptr), task = req.matches[1];
    auto st = a.status(sid, task);
    if (!st) return reply_error(res, st.status());
    std::string from =
        req.has_header("Last-Event-ID") ? req.get_header_value("Last-Event-ID") : req.get_param_value("after");
    int64_t after = std::atoll(from.c_str());
    auto cursor = std::make_shared<int64_t>(std::max<int64_t>(0, after));
    res.set_header("Cache-Control", "no-cache");
    res.set_chunked_content_provider("text/event-stream", [&a, sid, task, cursor](size_t, httplib::DataSink& sink) {
      Json evs = a.events(sid, task, *cursor, std::chrono::seconds(15));
      if (evs.empty()) return sink.write(": keep-alive\n\n", 14);
      bool final_state = false;
      for (auto& e : evs) {
        *cursor = e.value("seq", *cursor);
        std::string f = sse_frame(e.value("type", "event"), e, *cursor);
        if (!sink.write(f.data(), f.size())) return false;
        std::string state = e.value("state", "");
        final_state |= e.value("type", "") == "state" && (state == "done" || state == "failed" || state == "cancelled");
      }
      if (final_state) sink.done();
      return true;
    });
  });

  docs.push_back({"POST", "/api/agent/diagnose", "classify a failure, name its root cause and the repair",
                  schema({{"task_id", str}, {"error_log", str}, {"session_id", str}}, {})});
  svr.Post("/api/agent/diagnose", [&a](const httplib::Request& req, httplib::Response& res) {
    Json body;
    std::string task, log;
    if (!parse_body(req, res, body) || !body_string(body, "task_id", res, task, false) ||
        !body_string(body, "error_log", res, log, false))
      return;
    auto d = a.diagnose(session_of(req, body), task, log);
    d ? reply_json(res, *d) : reply_error(res, d.status());
  });

  docs.push_back(
      {"GET", "/api/agent/results/{task_id}", "a task's result files, validation and stage summaries", nullptr});
  svr.Get(R"(/api/agent/results/([^/]+))", [&a](const httplib::Request& req, httplib::Response& res) {
    auto r = a.results(session_of(req, nullptr), req.matches[1]);
    r ? reply_json(res, *r) : reply_error(res, r.status());
  });
  docs.push_back({"GET", "/api/agent/results/{task_id}/files/{name}", "download one result file", nullptr});
  svr.Get(R"(/api/agent/results/([^/]+)/files/(.+))", [&a](const httplib::Request& req, httplib::Response& res) {
    auto p = a.result_file(session_of(req, nullptr), req.matches[1], req.matches[2]);
    if (!p) return reply_error(res, p.status());
    std::ifstream in(*p, std::ios::binary);
    std::string name = p->filename().string();
    std::string type = p->extension() == ".svg"    ? "image/svg+xml"
                       : p->extension() == ".html" ? "text/html; charset=utf-8"
                       : p->extension() == ".png"  ? "image/png"
                       : p->extension() == ".json" ? "application/json"
                                                   : "text/plain; charset=utf-8";
    if (req.has_param("download")) res.set_header("Content-Disposition", "attachment; filename=\"" + name + "\"");
    res.set_content(std::string(std::istreambuf_iterator<char>(in), {}), type);
  });

  docs.push_back({"POST", "/api/upload",
                  "multipart upload (field 'file', repeatable; 'session_id') into the session's data folder; each "
                  "file's naming check is returned",
                  nullptr});
  svr.Post("/api/upload", [&a](const httplib::Request& req, httplib::Response& res) {
    if (!req.is_multipart_form_data())
      return reply_error(res, invalid_argument("send multipart/form-data with one or more 'file' parts"));
    std::string sid = req.has_header("X-Session-Id") ? req.get_header_value("X-Session-Id")
                      : req.has_file("session_id")   ? req.get_file_value("session_id").content
                                                     : req.get_param_value("session_id");
    Json files = Json::array();
    bool any = false;
    for (auto& [key, part] : req.files) {
      if (key != "file") continue;
      any = true;
      auto r = a.upload(sid, part.filename, part.content);
      if (!r && r.status().code() == ErrorCode::kNotFound) return reply_error(res, r.status());
      files.push_back(r ? *r : Json{{"file", part.filename}, {"error", error_envelope(r.status())["error"]}});
    }
    if (!any) return reply_error(res, invalid_argument("no 'file' part in the upload"));
    reply_json(res, {{"session_id", sid}, {"files", files}});
  });
}

}  // namespace bioagent::server
