// The checks every request passes before routing, in this order: single
// copies of the headers that decide (Host, Origin, ...), no NUL in any value,
// Origin (cross-site use: 403 first, as MCP asks), Host (DNS rebinding), bearer token, body framing
// and size (every method), Content-Type. Each refusal is a JSON error that
// says what was refused (a JSON-RPC error on /mcp). The MCP protocol version
// is the MCP route's to judge: it decides which revision serves a request.
#include <arpa/inet.h>

#include <algorithm>

#include "server/server_internal.h"

namespace bioagent::server {
namespace {

std::string lower(std::string s) {
  for (auto& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool token_ok(const std::string& given, const std::string& want) {
  // Constant time in the token's length.
  if (given.size() != want.size()) return false;
  unsigned char d = 0;
  for (size_t i = 0; i < want.size(); ++i) d |= static_cast<unsigned char>(given[i] ^ want[i]);
  return d == 0;
}

// "name" or "name:port" or "[v6]:port" -> {name, port or -1}; name lowercased, brackets removed.
std::pair<std::string, int> split_host_port(const std::string& hp) {
  std::string host = hp;
  int port = -1;
  if (!host.empty() && host.front() == '[') {
    size_t close = host.find(']');
    if (close == std::string::npos) return {"", -2};
    std::string rest = host.substr(close + 1);
    host = host.substr(1, close - 1);
    if (rest.size() > 1 && rest[0] == ':')
      port = std::atoi(rest.c_str() + 1);
    else if (!rest.empty())
      return {"", -2};
  } else if (size_t colon = host.rfind(':'); colon != std::string::npos && host.find(':') == colon) {
    std::string p = host.substr(colon + 1);
    if (p.empty() || p.size() > 5 || !std::all_of(p.begin(), p.end(), ::isdigit)) return {"", -2};
    port = std::atoi(p.c_str());
    host = host.substr(0, colon);
  }
  return {lower(host), port};
}

bool is_state_changing(const std::string& method) {
  return method == "POST" || method == "PUT" || method == "DELETE" || method == "PATCH";
}

// The media type of a Content-Type value, without parameters, lowercased.
std::string media_type(const std::string& content_type) {
  std::string t = content_type.substr(0, content_type.find(';'));
  while (!t.empty() && t.back() == ' ') t.pop_back();
  return lower(t);
}

}  // namespace

GuardConfig GuardConfig::from(const ApiServerOptions& o) {
  GuardConfig g;
  g.token = o.token;
  g.max_body_bytes = o.max_body_bytes;
  g.max_upload_bytes = o.max_upload_bytes;
  for (auto& h : o.allowed_hosts) g.hosts.push_back(lower(h));
  for (auto& origin : o.allowed_origins) g.origins.push_back(lower(origin));
  std::string bound = lower(o.host);
  bool wildcard = bound == "0.0.0.0" || bound == "::" || bound.empty();
  if (wildcard && o.allowed_hosts.empty()) {
    g.any_host = true;  // every interface: the names are not known; the token guards
  } else {
    if (!wildcard) g.hosts.push_back(bound);
    if (is_loopback_host(o.host) || wildcard) {
      for (const char* h : {"127.0.0.1", "localhost", "::1"}) g.hosts.push_back(h);
    }
  }
  return g;
}

bool GuardConfig::host_allowed(const std::string& name) const {
  return any_host || std::find(hosts.begin(), hosts.end(), name) != hosts.end();
}

namespace {

Refusal bad_header(const std::string& name, const std::string& why) {
  return Refusal{400, Status(ErrorCode::kInvalidArgument, "refused: " + why).with("header", name)};
}

// Headers whose meaning depends on there being one: a second copy is refused,
// never resolved by taking the first.
std::optional<Refusal> single_headers(const Request& req) {
  for (const char* name : {"Host", "Origin", "Authorization", "Content-Length", "Content-Type", "Mcp-Session-Id",
                           "MCP-Protocol-Version", "Mcp-Method", "Mcp-Name", "X-Session-Id", "Last-Event-ID"})
    if (req.header_count(name) > 1)
      return bad_header(name, std::string("the request carries more than one ") + name + " header");
  for (auto& [k, v] : req.headers)
    if (v.find('\0') != std::string::npos) return bad_header(k, "a header value holds a NUL byte");
  return std::nullopt;
}

// Body framing and size (every method), decided before a byte of the body is read.
std::optional<Refusal> body_framing(const Request& req, const GuardConfig& g) {
  bool upload = req.path == "/api/upload";
  if (req.has_header("Transfer-Encoding"))
    return Refusal{411, Status(ErrorCode::kInvalidArgument,
                               "refused: chunked request bodies are not accepted; send a Content-Length")
                            .with("header", "Content-Length")};
  if (!req.has_header("Content-Length")) return std::nullopt;  // no framing means no body (RFC 9112 6.3)
  std::string len_text = req.get_header_value("Content-Length");
  if (len_text.empty() || len_text.size() > 19 || !std::all_of(len_text.begin(), len_text.end(), ::isdigit))
    return Refusal{400, Status(ErrorCode::kInvalidArgument, "refused: Content-Length is not a number")
                            .with("header", "Content-Length")};
  uint64_t len = std::stoull(len_text);
  uint64_t limit = upload ? g.max_upload_bytes + (1u << 20) : g.max_body_bytes;
  if (len > limit)
    return Refusal{
        413, Status(ErrorCode::kResourceExhausted, "refused: the body declares " + std::to_string(len) +
                                                       " bytes; this route accepts at most " + std::to_string(limit) +
                                                       (upload ? " (--max-upload-mb)" : ""))
                 .with("limit_bytes", limit)};
  if (len == 0 || upload || (req.method != "POST" && req.method != "PUT" && req.method != "PATCH")) return std::nullopt;
  std::string type = media_type(req.get_header_value("Content-Type"));
  if (type != "application/json")
    return Refusal{415, Status(ErrorCode::kInvalidArgument,
                               "refused: Content-Type must be application/json, not '" + type.substr(0, 80) + "'")
                            .with("header", "Content-Type")};
  return std::nullopt;
}

}  // namespace

std::optional<Refusal> guard_request(const Request& req, const GuardConfig& g, int port) {
  if (auto r = single_headers(req)) return r;
  // Origin: a browser page of another origin may not change state or speak MCP.
  bool mcp = req.path == "/mcp";
  if ((is_state_changing(req.method) || mcp) && req.has_header("Origin")) {
    std::string origin = lower(req.get_header_value("Origin"));
    bool ok = std::find(g.origins.begin(), g.origins.end(), origin) != g.origins.end();
    if (!ok && origin.rfind("http://", 0) == 0) {
      auto [name, p] = split_host_port(origin.substr(7));
      ok = p != -2 && g.host_allowed(name) && (p == port || (p == -1 && port == 80));
    }
    if (!ok)
      return Refusal{403, Status(ErrorCode::kPermissionDenied,
                                 "refused: Origin '" + origin.substr(0, 100) +
                                     "' is not this server's own origin (cross-site requests may not change state "
                                     "or use /mcp); use --allowed-origin to trust one")
                              .with("header", "Origin")};
  }
  // Host: only the names the server is bound to (a rebound DNS name is refused).
  if (req.has_header("Host")) {
    std::string value = req.get_header_value("Host");
    auto [name, p] = split_host_port(value);
    if (p == -2 || name.empty() || !g.host_allowed(name))
      return Refusal{421, Status(ErrorCode::kPermissionDenied,
                                 "refused: Host '" + value.substr(0, 100) +
                                     "' is not a name this server is bound to (DNS-rebinding guard); use "
                                     "--allowed-host to add a name")
                              .with("header", "Host")};
  }
  // Bearer token on the API and MCP whenever one is configured.
  bool guarded = req.path.rfind("/api/", 0) == 0 || mcp;
  if (guarded && !g.token.empty()) {
    std::string h = req.get_header_value("Authorization");
    std::string given = h.rfind("Bearer ", 0) == 0 ? h.substr(7) : req.get_param_value("access_token");
    if (!token_ok(given, g.token))
      return Refusal{401, permission_denied("refused: missing or wrong bearer token (Authorization: Bearer ...)")};
  }
  return body_framing(req, g);
}

}  // namespace bioagent::server
