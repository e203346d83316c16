// Fuzzes the HTTP request path in-process, as a connection would run it:
// the request head parser (Boost.Beast, with the server's header limit),
// the request guard (Host, Origin, token, framing), the route table's
// matching and 405 lists, JSON body validation against the matched route's
// schema, and the streaming multipart reader over the body.
#include <cstddef>
#include <cstdint>
#include <string>

#include "server/http_transport.h"
#include "server/multipart.h"
#include "server/server_internal.h"

namespace {

using namespace bioagent::server;

Context& table() {
  static Context* ctx = [] {
    auto* c = new Context();
    c->options.max_body_bytes = 1 << 20;
    add_tool_and_mcp_routes(*c);  // registers only; no handler runs here
    add_route(*c, {"POST", "/api/agent/results/{task_id}/files/{name}", "x", {{"type", "object"}}, true},
              [](const Request&, Response&, const bioagent::Json&) {});
    return c;
  }();
  return *ctx;
}

GuardConfig guard() {
  bioagent::ApiServerOptions o;
  o.token = "fuzz-token";
  o.max_body_bytes = 1 << 20;
  o.max_upload_bytes = 1 << 20;
  return GuardConfig::from(o);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const GuardConfig g = guard();
  std::string bytes(reinterpret_cast<const char*>(data), size);
  Request req;
  Response refusal;
  if (!HttpTransport::parse_head(bytes, 8 << 10, req, refusal)) return 0;
  (void)guard_request(req, g, 8080);
  std::vector<std::string> matches;
  const Route* route = find_route(table(), req.method, req.path, matches);
  (void)methods_for(table(), req.path);
  if (route && !route->doc.request_schema.is_null()) {
    bioagent::Json body;
    Response res;
    (void)json_body(req, res, route->doc.request_schema, body);
  }
  std::string boundary = multipart_boundary(req.get_header_value("Content-Type"));
  if (!boundary.empty()) {
    size_t seen = 0;
    MultipartReader reader(
        boundary, [](const MultipartReader::Part& p) { return p.name.size() < 1000; },
        [&seen](const char*, size_t n) {
          seen += n;
          return true;
        });
    for (size_t at = 0; at < req.body.size(); at += 7)
      reader.feed(req.body.data() + at, std::min<size_t>(7, req.body.size() - at));
  }
  return 0;
}
