// POST /api/upload: multipart/form-data streamed part by part into files in
// the session's own staging folder, never held in memory; each 'file' part is
// then checked and moved into the session's data folder. The declared size was
// checked against the limit before the first byte was read (request_guard.cpp);
// one request stores at most kMaxFilesPerUpload files.
#include <unistd.h>

#include <atomic>
#include <fstream>

#include "server/http_transport.h"
#include "server/multipart.h"
#include "server/server_internal.h"

namespace bioagent::server {
namespace {

constexpr size_t kMaxFilesPerUpload = 100;
constexpr size_t kMaxPartsPerUpload = 110;  // the files and a few form fields

// One upload request's parts as they stream in.
struct UploadSink {
  UploadSink(Assistant& assistant, std::string session, size_t max_bytes)
      : a(assistant), sid(std::move(session)), limit(max_bytes) {}
  size_t parts = 0, file_parts = 0;
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

  bool begin(const MultipartReader::Part& part) {
    finish_part();
    if (!error.is_ok()) return false;
    if (++parts > kMaxPartsPerUpload || (part.name == "file" && ++file_parts > kMaxFilesPerUpload)) {
      error = Status(ErrorCode::kResourceExhausted, "refused: one upload request may carry at most " +
                                                        std::to_string(kMaxFilesPerUpload) + " files (" +
                                                        std::to_string(files.size()) +
                                                        " before this one were stored); send the rest "
                                                        "in another request")
                  .with("limit_files", kMaxFilesPerUpload);
      return false;
    }
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

// The upload's body, fed to the multipart reader as it arrives.
class UploadConsumer : public BodyConsumer {
 public:
  UploadConsumer(Assistant& a, std::string sid, size_t limit, std::string boundary)
      : sink_(a, std::move(sid), limit),
        reader_(
            std::move(boundary), [this](const MultipartReader::Part& p) { return sink_.begin(p); },
            [this](const char* d, size_t n) { return sink_.data(d, n); }) {}
  ~UploadConsumer() override { sink_.abandon(); }  // a part cut short leaves no file behind
  UploadSink& sink() { return sink_; }

  bool consume(const char* data, size_t n) override { return reader_.feed(data, n); }

  void finish(bool complete, Response& res) override {
    bool whole = complete && reader_.finished() && sink_.error.is_ok();
    if (whole) sink_.finish_part();
    if (!whole || !sink_.error.is_ok()) {
      sink_.abandon();
      res.close = true;
      if (sink_.error.is_ok())
        sink_.error =
            invalid_argument(reader_.error().empty() ? "the upload ended early or is not well-formed multipart"
                                                     : "the upload is not well-formed multipart: " + reader_.error());
      return reply_error(res, sink_.error);
    }
    if (sink_.files.empty()) return reply_error(res, invalid_argument("no 'file' part in the upload"));
    reply_json(res, {{"session_id", sink_.sid}, {"files", sink_.files}});
  }

 private:
  UploadSink sink_;
  MultipartReader reader_;
};

}  // namespace

void add_upload_route(Context& ctx) {
  Assistant& a = *ctx.assistant;
  size_t limit = ctx.options.max_upload_bytes;
  add_stream_route(
      ctx,
      {"POST", "/api/upload",
       "multipart upload (field 'file', repeatable, at most 100 per request; session from X-Session-Id, "
       "?session_id= or a 'session_id' part before the files) into the session's data folder, streamed to disk; "
       "each file's naming check is returned",
       nullptr},
      [&a, limit](const Request& req, Response& res) -> std::unique_ptr<BodyConsumer> {
        std::string boundary = multipart_boundary(req.get_header_value("Content-Type"));
        if (boundary.empty()) {
          reply_error(res, invalid_argument("send multipart/form-data with one or more 'file' parts"));
          return nullptr;
        }
        auto consumer = std::make_unique<UploadConsumer>(a, session_of(req, nullptr), limit, boundary);
        UploadSink& sink = consumer->sink();
        if (!sink.sid.empty()) {  // an unknown session is refused before the body is read
          auto dir = a.upload_staging_dir(sink.sid);
          if (!dir) {
            reply_error(res, dir.status());
            return nullptr;
          }
          sink.staging = *dir;
        }
        return consumer;
      },
      limit + (1u << 20));
}

}  // namespace bioagent::server
