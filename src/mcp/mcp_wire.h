// Inside src/mcp: the wire rules both protocol revisions share or split on —
// JSON-RPC error codes, which era serves a message, the checks a stateless
// (2026-07-28) request's envelope passes before any handler sees it (headers
// against the body, the per-request _meta), Mcp-Name / Mcp-Param header values
// (the =?base64?...?= form), and the HTTP status of an answer. Pure functions:
// no session, no transport.
#pragma once

#include <optional>
#include <string>

#include "bioagent/mcp_server.h"

namespace bioagent::mcp {

// JSON-RPC 2.0 and MCP error codes.
constexpr int kParseError = -32700;
constexpr int kInvalidRequest = -32600;
constexpr int kMethodNotFound = -32601;
constexpr int kInvalidParams = -32602;
constexpr int kInternalError = -32603;
constexpr int kServerBusy = -32000;
constexpr int kResourceNotFound = -32002;  // sessions only: 2026-07-28 forbids it (-32602 with data.uri)
constexpr int kRequestCancelled = -32800;
constexpr int kHeaderMismatch = -32020;           // 2026-07-28: a header disagrees with the body
constexpr int kMissingClientCapability = -32021;  // 2026-07-28: data.requiredCapabilities
constexpr int kUnsupportedVersion = -32022;       // data.supported, data.requested

// The _meta keys of a 2026-07-28 request and result.
inline const std::string kMetaProtocolVersion = "io.modelcontextprotocol/protocolVersion";
inline const std::string kMetaClientCapabilities = "io.modelcontextprotocol/clientCapabilities";
inline const std::string kMetaClientInfo = "io.modelcontextprotocol/clientInfo";
inline const std::string kMetaLogLevel = "io.modelcontextprotocol/logLevel";
inline const std::string kMetaServerInfo = "io.modelcontextprotocol/serverInfo";
inline const std::string kTasksExtension = "io.modelcontextprotocol/tasks";

// A JSON-RPC error response; a null `id` is left out (the 2026-07-28 schema types id as optional,
// never null).
Json rpc_error(const Json& id, int code, const std::string& message, Json data = nullptr);
Json rpc_result(const Json& id, Json result);
// The error object {code, message, data} of an UnsupportedProtocolVersionError for `requested`.
Json unsupported_version_error(const std::string& requested);
// The error object of a MissingRequiredClientCapabilityError: `required` is a ClientCapabilities object.
Json missing_capability_error(const Json& required, const std::string& message);

// Why a stateless request's envelope is refused, in the specification's order: the
// MCP-Protocol-Version header missing (-32020); _meta without protocolVersion or
// clientCapabilities (-32602; -32022 when the header names a version this server does not
// speak); header and _meta disagreeing (-32020); a version that is not served statelessly
// (-32022); Mcp-Method missing or not the body's method (-32020); Mcp-Name missing or not
// the body's name / uri / taskId where the method needs one (-32020). The error object
// {code, message, data?}; nullopt when the envelope is sound. Unknown methods are the
// dispatcher's (-32601).
std::optional<Json> check_stateless_envelope(const McpRequestHeaders& headers, const Json& message);

// Mcp-Param-* headers of the tools/call of a tool whose input schema marks properties with
// "x-mcp-header": each such argument present in `arguments` must come with its header, equal
// to it once decoded (numbers compared numerically); a header that is not a valid value is
// refused too. The -32020 error object, or nullopt.
std::optional<Json> check_param_headers(const McpRequestHeaders& headers, const Json& input_schema,
                                        const Json& arguments);

// A header value as sent: spaces and tabs around it dropped, then "=?base64?B64?=" decoded
// (strict RFC 4648: the standard alphabet, padding to a multiple of 4); other values as they
// are. Invalid Base64 inside the sentinel is an invalid argument.
Result<std::string> decode_header_value(const std::string& raw);
std::string base64_encode(std::string_view bytes);
// Strict RFC 4648 decoding (see above); nullopt when `text` is not valid Base64.
std::optional<std::string> base64_decode(std::string_view text);

}  // namespace bioagent::mcp
