// The wire rules of both revisions that need no session: versions, which era
// serves a message, a stateless request's envelope checks (2026-07-28
// basic/versioning and transports/streamable-http: per-request _meta, the
// MCP-Protocol-Version / Mcp-Method / Mcp-Name / Mcp-Param-* headers) and the
// HTTP status of each JSON-RPC answer.
#include "mcp/mcp_wire.h"

#include <algorithm>
#include <cmath>

namespace bioagent {

const std::vector<std::string>& mcp_session_versions() {
  static const std::vector<std::string> kVersions = {"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"};
  return kVersions;
}

const std::vector<std::string>& mcp_supported_versions() {
  static const std::vector<std::string> kVersions = [] {
    std::vector<std::string> v = {kMcpStatelessVersion};
    for (auto& s : mcp_session_versions()) v.push_back(s);
    return v;
  }();
  return kVersions;
}

namespace {

bool is_session_version(const std::string& v) {
  const auto& s = mcp_session_versions();
  return std::find(s.begin(), s.end(), v) != s.end();
}

const Json* request_meta(const Json& message) {
  if (!message.is_object() || !message.contains("params") || !message["params"].is_object()) return nullptr;
  const Json& params = message["params"];
  if (!params.contains("_meta") || !params["_meta"].is_object()) return nullptr;
  return &params["_meta"];
}

std::optional<std::string> meta_version(const Json& message) {
  const Json* meta = request_meta(message);
  if (!meta || !meta->contains(mcp::kMetaProtocolVersion) || !(*meta)[mcp::kMetaProtocolVersion].is_string())
    return std::nullopt;
  return (*meta)[mcp::kMetaProtocolVersion].get<std::string>();
}

std::string trim_ows(const std::string& s) {
  size_t b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t");
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

}  // namespace

McpEra mcp_era_of(const McpRequestHeaders& headers, const Json& message) {
  if (headers.session_id) return McpEra::kSession;
  const auto body_version = meta_version(message);
  if (body_version) return McpEra::kStateless;
  const std::string method = message.is_object() ? message.value("method", std::string()) : std::string();
  if (method == "initialize") return McpEra::kSession;
  if (!headers.protocol_version || is_session_version(trim_ows(*headers.protocol_version))) return McpEra::kSession;
  return McpEra::kStateless;
}

int mcp_http_status(const Json& response) {
  if (!response.is_object() || !response.contains("error") || !response["error"].is_object()) return 200;
  const Json& code = response["error"].value("code", Json());
  if (!code.is_number_integer()) return 500;
  switch (code.get<int>()) {
    case mcp::kParseError:
    case mcp::kInvalidRequest:
    case mcp::kInvalidParams:
    case mcp::kHeaderMismatch:
    case mcp::kMissingClientCapability:
    case mcp::kUnsupportedVersion:
      return 400;
    case mcp::kMethodNotFound:
      return 404;
    case mcp::kInternalError:
      return 500;
    case mcp::kServerBusy:
      return 503;
    default:
      return 200;
  }
}

namespace mcp {

Json rpc_error(const Json& id, int code, const std::string& message, Json data) {
  Json err = {{"code", code}, {"message", message}};
  if (!data.is_null()) err["data"] = std::move(data);
  Json out = {{"jsonrpc", "2.0"}};
  if (!id.is_null()) out["id"] = id;
  out["error"] = std::move(err);
  return out;
}

Json rpc_result(const Json& id, Json result) { return {{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}}; }

Json unsupported_version_error(const std::string& requested) {
  return {
      {"code", kUnsupportedVersion},
      {"message", "Unsupported protocol version: '" + requested.substr(0, 64) + "' (" + kMcpStatelessVersion +
                      " is served per request; " + mcp_session_versions().front() + " and earlier after initialize)"},
      {"data", {{"supported", mcp_supported_versions()}, {"requested", requested}}}};
}

Json missing_capability_error(const Json& required, const std::string& message) {
  return {{"code", kMissingClientCapability}, {"message", message}, {"data", {{"requiredCapabilities", required}}}};
}

namespace {

Json header_mismatch(const std::string& message) {
  return {{"code", kHeaderMismatch}, {"message", "Header mismatch: " + message}};
}

Json invalid_meta(const std::string& message) {
  return {{"code", kInvalidParams}, {"message", "Invalid params: " + message}};
}

// The body value Mcp-Name must repeat for `method`: its params' name, uri or taskId ("" for none).
std::string name_field(const std::string& method) {
  if (method == "tools/call" || method == "prompts/get") return "name";
  if (method == "resources/read") return "uri";
  if (method == "tasks/get" || method == "tasks/update" || method == "tasks/cancel") return "taskId";
  return "";
}

std::optional<Json> check_meta(const McpRequestHeaders& headers, const Json& message) {
  const std::string header = trim_ows(*headers.protocol_version);
  const Json* meta = request_meta(message);
  const auto body_version = meta_version(message);
  if (!body_version) {
    const auto& all = mcp_supported_versions();
    if (std::find(all.begin(), all.end(), header) == all.end()) return unsupported_version_error(header);
    return invalid_meta(meta ? "_meta." + kMetaProtocolVersion + " is required (a string)"
                             : "params._meta is required, with " + kMetaProtocolVersion + " and " +
                                   kMetaClientCapabilities);
  }
  if (!meta->contains(kMetaClientCapabilities) || !(*meta)[kMetaClientCapabilities].is_object())
    return invalid_meta("_meta." + kMetaClientCapabilities + " is required (an object; {} declares none)");
  if (header != *body_version)
    return header_mismatch("MCP-Protocol-Version header '" + header.substr(0, 64) + "' does not match _meta." +
                           kMetaProtocolVersion + " '" + body_version->substr(0, 64) + "'");
  if (*body_version != kMcpStatelessVersion) return unsupported_version_error(*body_version);
  return std::nullopt;
}

std::optional<Json> check_routing_headers(const McpRequestHeaders& headers, const std::string& method,
                                          const Json& params) {
  if (!headers.method) return header_mismatch("the Mcp-Method header is required (the request's method)");
  const std::string sent = trim_ows(*headers.method);
  if (sent != method)
    return header_mismatch("Mcp-Method header value '" + sent.substr(0, 80) + "' does not match body value '" +
                           method.substr(0, 80) + "'");
  const std::string field = name_field(method);
  if (field.empty() || !params.is_object() || !params.contains(field) || !params[field].is_string())
    return std::nullopt;  // nothing to repeat (a missing field is the handler's invalid params)
  const std::string want = params[field];
  if (!headers.name)
    return header_mismatch("the Mcp-Name header is required for " + method + " (params." + field + ")");
  auto got = decode_header_value(*headers.name);
  if (!got) return header_mismatch("Mcp-Name header: " + got.status().message());
  if (*got != want)
    return header_mismatch("Mcp-Name header value '" + got->substr(0, 80) + "' does not match body value '" +
                           want.substr(0, 80) + "'");
  return std::nullopt;
}

}  // namespace

std::optional<Json> check_stateless_envelope(const McpRequestHeaders& headers, const Json& message) {
  if (!headers.protocol_version)
    return header_mismatch("the MCP-Protocol-Version header is required (it must equal _meta." + kMetaProtocolVersion +
                           ")");
  if (auto e = check_meta(headers, message)) return e;
  const std::string method = message.value("method", std::string());
  return check_routing_headers(headers, method, message.value("params", Json::object()));
}

namespace {

// The text a primitive argument is compared with; nullopt for objects and arrays.
bool header_matches(const Json& value, const std::string& header) {
  if (value.is_string()) return value.get<std::string>() == header;
  if (value.is_boolean()) return header == (value.get<bool>() ? "true" : "false");
  if (value.is_number()) {
    char* end = nullptr;
    double got = std::strtod(header.c_str(), &end);
    return !header.empty() && end && *end == '\0' && std::fabs(got - value.get<double>()) < 1e-9;
  }
  return false;
}

}  // namespace

std::optional<Json> check_param_headers(const McpRequestHeaders& headers, const Json& input_schema,
                                        const Json& arguments) {
  if (!input_schema.is_object() || !input_schema.contains("properties") || !input_schema["properties"].is_object())
    return std::nullopt;
  for (auto& [property, schema] : input_schema["properties"].items()) {
    if (!schema.is_object() || !schema.contains("x-mcp-header") || !schema["x-mcp-header"].is_string()) continue;
    std::string name = schema["x-mcp-header"];
    std::string lower = name;
    for (auto& c : lower) c = char(std::tolower(static_cast<unsigned char>(c)));
    auto it = headers.params.find(lower);
    const bool in_body = arguments.is_object() && arguments.contains(property) && !arguments[property].is_null();
    if (it == headers.params.end()) {
      if (in_body)
        return header_mismatch("the Mcp-Param-" + name + " header is required (argument '" + property + "')");
      continue;
    }
    auto got = decode_header_value(it->second);
    if (!got) return header_mismatch("Mcp-Param-" + name + " header: " + got.status().message());
    if (in_body && !header_matches(arguments[property], *got))
      return header_mismatch("Mcp-Param-" + name + " header value does not match argument '" + property + "'");
  }
  return std::nullopt;
}

namespace {

constexpr std::string_view kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

int sextet(char c) {
  auto p = kAlphabet.find(c);
  return p == std::string_view::npos ? -1 : int(p);
}

}  // namespace

std::string base64_encode(std::string_view bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (size_t i = 0; i < bytes.size(); i += 3) {
    uint32_t n = uint32_t(uint8_t(bytes[i])) << 16;
    if (i + 1 < bytes.size()) n |= uint32_t(uint8_t(bytes[i + 1])) << 8;
    if (i + 2 < bytes.size()) n |= uint32_t(uint8_t(bytes[i + 2]));
    out += kAlphabet[(n >> 18) & 63];
    out += kAlphabet[(n >> 12) & 63];
    out += i + 1 < bytes.size() ? kAlphabet[(n >> 6) & 63] : '=';
    out += i + 2 < bytes.size() ? kAlphabet[n & 63] : '=';
  }
  return out;
}

std::optional<std::string> base64_decode(std::string_view text) {
  if (text.size() % 4 != 0) return std::nullopt;
  size_t pad = 0;
  while (pad < 2 && pad < text.size() && text[text.size() - 1 - pad] == '=') ++pad;
  std::string out;
  uint32_t acc = 0;
  int bits = 0;
  for (size_t i = 0; i < text.size() - pad; ++i) {
    int v = sextet(text[i]);
    if (v < 0) return std::nullopt;
    acc = (acc << 6) | uint32_t(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += char((acc >> bits) & 0xff);
    }
  }
  if (bits > 0 && (acc & ((1u << bits) - 1)) != 0) return std::nullopt;  // non-canonical trailing bits
  return out;
}

Result<std::string> decode_header_value(const std::string& raw) {
  const std::string v = trim_ows(raw);
  static const std::string kOpen = "=?base64?", kClose = "?=";
  if (v.size() < kOpen.size() + kClose.size() || v.compare(0, kOpen.size(), kOpen) != 0 ||
      v.compare(v.size() - kClose.size(), kClose.size(), kClose) != 0)
    return v;
  auto decoded = base64_decode(std::string_view(v).substr(kOpen.size(), v.size() - kOpen.size() - kClose.size()));
  if (!decoded) return invalid_argument("'" + v.substr(0, 80) + "' is not valid Base64 inside =?base64?...?=");
  return *decoded;
}

}  // namespace mcp
}  // namespace bioagent
