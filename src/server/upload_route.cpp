// POST /api/upload: multipart/form-data streamed part by part into files in
// the session's own staging folder, never held in memory; each 'file' part is
// then checked and moved into the session's data folder. The declared size was
// checked against the limit before the first byte was read (request_guard.cpp).
#include <fstream>

#include "server/server_internal.h"

namespace bioagent::server {
namespace {

// One upload request's parts as they stream in.
struct UploadSink {
  UploadSink(Assistant& assistant, std::string session, size_t max_bytes)
      : a(assistant), sid(std::move(session)), limit(max_bytes) {}
  Assistant& a;
  std::string sid;
  size_t limit;
  fs::path staging;
  Json files = Json::array();
  Status error;  // a refusal that ends the request
  // The part being received.
  std::string field, filename, text;
  fs::path staged;
  std::ofstream out;
  size_t part_bytes = 0;

  bool begin(const httplib::MultipartFormData& part) {
    finish_part();
    if (!error.is_ok()) return false;
    field = part.name;
    filename = part.filename;
    text.clear();
    part_bytes = 0;
    if (field != "file") return true;
    if (sid.empty()) {
      error = invalid_argument(
          "send the session id (X-Session-Id header, session_id query or a session_id part "
          "before the files)");
      return false;
    }
    if (staging.empty()) {
      auto dir = a.upload_staging_dir(sid);
      if (!dir) {
        error = dir.status();
        return false;
      }
      staging = *dir;
    }
    static std::atomic<uint64_t> counter{0};
    staged = staging / ("part-" + std::to_string(::getpid()) + "-" + std::to_string(counter.fetch_add(1)));
    out.open(staged, std::ios::binary | std::ios::trunc);
    if (!out) {
      error = internal_error("cannot write the upload into the session's folder");
      return false;
    }
    return true;
  }

  bool data(const char* p, size_t n) {
    part_bytes += n;
    if (field != "file") {  // small form fields (session_id) only
      if (part_bytes > 256) {
        error = invalid_argument("form field '" + field.substr(0, 40) + "' is longer than 256 bytes");
        return false;
      }
      text.append(p, n);
      if (field == "session_id" && sid.empty()) sid_candidate = text;
      return true;
    }
    if (part_bytes > limit) {
      error = resource_exhausted("the file '" + filename.substr(0, 100) + "' is larger than the upload limit of " +
                                 std::to_string(limit) + " bytes");
      return false;
    }
    out.write(p, std::streamsize(n));
    if (!out) {
      error = internal_error("cannot store the upload (disk full?)");
      return false;
    }
    return true;
  }

  // Closes the current part: a 'file' part is checked and stored, a session_id field taken.
  void finish_part() {
    if (field == "session_id" && sid.empty()) sid = sid_candidate;
    if (field != "file" || staged.empty()) {
      field.clear();
      return;
    }
    out.close();
    auto r = a.store_upload(sid, filename, staged);
    if (!r && r.status().code() == ErrorCode::kNotFound) error = r.status();
    files.push_back(r ? *r : Json{{"file", filename}, {"error", error_envelope(r.status())["error"]}});
    staged.clear();
    field.clear();
  }

  void abandon() {
    if (out.is_open()) out.close();
    std::error_code ec;
    if (!staged.empty()) fs::remove(staged, ec);
  }

  std::string sid_candidate;
};

}  // namespace

void add_upload_route(httplib::Server& svr, Context& ctx) {
  Assistant& a = *ctx.assistant;
  size_t limit = ctx.options.max_upload_bytes;
  ctx.docs.push_back({"POST", "/api/upload",
                      "multipart upload (field 'file', repeatable; session from X-Session-Id, ?session_id= or a "
                      "'session_id' part before the files) into the session's data folder, streamed to disk; each "
                      "file's naming check is returned",
                      nullptr});
  svr.Post("/api/upload",
           [&a, limit](const httplib::Request& req, httplib::Response& res, const httplib::ContentReader& reader) {
             if (!req.is_multipart_form_data()) {
               res.set_header("Connection", "close");
               return reply_error(res, invalid_argument("send multipart/form-data with one or more 'file' parts"));
             }
             UploadSink sink(a, session_of(req, nullptr), limit);
             if (!sink.sid.empty()) {  // an unknown session is refused before the body is read
               auto dir = a.upload_staging_dir(sink.sid);
               if (!dir) {
                 res.set_header("Connection", "close");
                 return reply_error(res, dir.status());
               }
               sink.staging = *dir;
             }
             bool read = reader([&](const httplib::MultipartFormData& part) { return sink.begin(part); },
                                [&](const char* p, size_t n) { return sink.data(p, n); });
             if (read && sink.error.is_ok()) sink.finish_part();
             if (!sink.error.is_ok() || !read) {
               sink.abandon();
               res.set_header("Connection", "close");
               if (sink.error.is_ok())
                 sink.error = invalid_argument("the upload ended early or is not well-formed multipart");
               return reply_error(res, sink.error);
             }
             if (sink.files.empty()) return reply_error(res, invalid_argument("no 'file' part in the upload"));
             reply_json(res, {{"session_id", sink.sid}, {"files", sink.files}});
           });
}

}  // namespace bioagent::server
