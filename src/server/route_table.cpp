// The route table: JSON replies and errors, path matching by segments (no
// regular expression sees a request path), JSON body validation, the 405
// answers' method lists and the OpenAPI document, all from the same rows.
#include <algorithm>

#include "bioagent/json_text.h"
#include "bioagent/schema.h"
#include "bioagent/version.h"
#include "server/server_internal.h"

namespace bioagent::server {
namespace {

std::vector<std::string_view> segments(std::string_view p) {
  std::vector<std::string_view> out;
  if (p.empty() || p[0] != '/') return out;
  p.remove_prefix(1);
  while (true) {
    size_t slash = p.find('/');
    out.push_back(p.substr(0, slash));
    if (slash == std::string_view::npos) break;
    p.remove_prefix(slash + 1);
  }
  return out;
}

bool is_param(std::string_view seg) { return seg.size() > 2 && seg.front() == '{' && seg.back() == '}'; }

}  // namespace

int http_status_for(ErrorCode code) {
  switch (code) {
    case ErrorCode::kInvalidArgument:
    case ErrorCode::kParseError:
    case ErrorCode::kUnsupported:
      return 400;
    case ErrorCode::kPermissionDenied:
      return 403;
    case ErrorCode::kNotFound:
      return 404;
    case ErrorCode::kResourceExhausted:
      return 413;
    case ErrorCode::kTimeout:
      return 504;
    case ErrorCode::kUnavailable:
      return 503;
    default:
      return 500;
  }
}

void reply_json(Response& res, const Json& body, int status) {
  res.status = status;
  res.set_content(json_text(body), "application/json");
}

void reply_error(Response& res, const Status& s) { reply_json(res, error_envelope(s), http_status_for(s.code())); }

void to_jsonrpc_error(Response& res) {
  Json rest = Json::parse(res.body, nullptr, false);
  if (!rest.is_object() || rest.value("status", "") != "error" || !rest.contains("error")) return;
  const Json& e = rest["error"];
  Json data = e.value("details", Json::object());
  data["reason"] = e.value("code", "");
  res.set_content(json_text(Json{{"jsonrpc", "2.0"},
                                 {"error", {{"code", -32600}, {"message", e.value("message", "")}, {"data", data}}}}),
                  "application/json");
}

std::string session_of(const Request& req, const Json& body) {
  if (req.has_header("X-Session-Id")) return req.get_header_value("X-Session-Id");
  if (body.is_object() && body.contains("session_id") && body["session_id"].is_string()) return body["session_id"];
  return req.has_param("session_id") ? req.get_param_value("session_id") : "";
}

bool RouteDoc::match(const std::string& p, std::vector<std::string>& captures) const {
  auto want = segments(path), got = segments(p);
  captures.assign(1, p);
  if (got.size() < want.size() || (got.size() > want.size() && !rest_last)) return false;
  for (size_t i = 0; i < want.size(); ++i) {
    bool last = i + 1 == want.size();
    if (!is_param(want[i])) {
      if (want[i] != got[i]) return false;
      continue;
    }
    if (got[i].empty()) return false;
    if (!(last && rest_last)) {
      captures.emplace_back(got[i]);
      continue;
    }
    size_t start = size_t(got[i].data() - p.data());  // the rest of the path, slashes included
    captures.push_back(p.substr(start));
  }
  return true;
}

bool json_body(const Request& req, Response& res, const Json& schema, Json& out) {
  out = req.body.empty() ? Json::object() : parse_json_bounded(req.body);
  if (out.is_discarded() || !out.is_object()) {
    reply_error(res, parse_error("the request body must be a JSON object nested at most " +
                                 std::to_string(kMaxJsonDepth) + " levels deep"));
    return false;
  }
  if (Status v = validate(schema, out, "body"); !v.is_ok()) {
    std::string field = v.details().value("field", "");  // "body.message" names the body's field "message"
    if (field.rfind("body.", 0) == 0) v.with("field", field.substr(5));
    reply_error(res, v);
    return false;
  }
  return true;
}

void add_route(Context& ctx, RouteDoc route, Handler handler, bool run_inline) {
  Json schema = route.request_schema;
  Handler wrapped = schema.is_null() ? std::move(handler)
                                     : Handler([handler, schema](const Request& req, Response& res, const Json&) {
                                         Json body;
                                         if (json_body(req, res, schema, body)) handler(req, res, body);
                                       });
  ctx.routes.push_back({std::move(route), std::move(wrapped), nullptr, ctx.options.max_body_bytes, run_inline});
}

void add_raw_route(Context& ctx, RouteDoc route, Handler handler) {
  ctx.routes.push_back({std::move(route), std::move(handler), nullptr, ctx.options.max_body_bytes, false});
}

void add_stream_route(Context& ctx, RouteDoc route, StreamHandler handler, size_t body_limit) {
  ctx.routes.push_back({std::move(route), nullptr, std::move(handler), body_limit, false});
}

const Route* find_route(const Context& ctx, const std::string& method, const std::string& path,
                        std::vector<std::string>& matches) {
  for (auto& r : ctx.routes)
    if (r.doc.method == method && r.doc.match(path, matches)) return &r;
  return nullptr;
}

std::vector<std::string> methods_for(const Context& ctx, const std::string& path) {
  std::vector<std::string> out, captures;
  for (auto& r : ctx.routes)
    if (r.doc.match(path, captures) && std::find(out.begin(), out.end(), r.doc.method) == out.end())
      out.push_back(r.doc.method);
  return out;
}

std::string client_of(const Request& req) {
  const std::string h = req.get_header_value("Authorization");
  const std::string token = h.rfind("Bearer ", 0) == 0 ? h.substr(7) : req.get_param_value("access_token");
  return client_key(token, req.peer);
}

bool acquire_stream(Context& ctx, const std::string& client, Response& res) {
  Status taken = ctx.streams->take(client);
  if (taken.is_ok()) return true;
  res.set_header("Retry-After", "5");
  Status refusal(ErrorCode::kUnavailable, taken.message());
  const Json& why = taken.details();
  for (const char* key : {"limit", "scope", "resource"})
    if (why.is_object() && why.contains(key)) refusal.with(key, why[key]);
  reply_json(res, error_envelope(refusal), 503);
  return false;
}

void release_stream(Context& ctx, const std::string& client) { ctx.streams->give_back(client); }

Json openapi_document(const Context& ctx) {
  Json paths = Json::object();
  for (auto& r : ctx.routes) {
    const RouteDoc& d = r.doc;
    Json op = {{"summary", d.summary},
               {"responses",
                {{"200", {{"description", "success (JSON, or text/event-stream where noted)"}}},
                 {"400", {{"description", "bad input: {status: error, error: {code, message, details}}"}}},
                 {"401", {{"description", "missing or wrong bearer token"}}},
                 {"404", {{"description", "unknown session, plan, task or file"}}}}}};
    if (!d.request_schema.is_null())
      op["requestBody"] = {{"required", true}, {"content", {{"application/json", {{"schema", d.request_schema}}}}}};
    std::string method = d.method;
    for (auto& c : method) c = char(std::tolower(static_cast<unsigned char>(c)));
    paths[d.path][method] = op;
  }
  return {{"openapi", "3.1.0"},
          {"info", {{"title", "bioagent API"}, {"version", kVersion}}},
          {"components", {{"securitySchemes", {{"bearer", {{"type", "http"}, {"scheme", "bearer"}}}}}}},
          {"security", Json::array({{{"bearer", Json::array()}}})},
          {"paths", paths}};
}

}  // namespace bioagent::server
