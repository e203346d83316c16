// Which revision serves an MCP message and how each refusal is answered:
// every combination of the session header, the MCP-Protocol-Version header,
// the request's _meta, the method and the Mcp-Method / Mcp-Name headers is
// generated and judged against the rules spelled out here (2026-07-28
// basic/versioning and transports/streamable-http), then run through a
// stateless McpSession: the JSON-RPC code and its HTTP status must match.
// Also the HTTP status of each code, the header value decoding, Mcp-Param
// headers and the sealed requestState.
#include <gtest/gtest.h>

#include "bioagent/agent.h"
#include "bioagent/registry.h"
#include "bioagent/workspace.h"
#include "mcp/mcp_stateless.h"
#include "mcp/mcp_wire.h"
#include "test_util.h"

using namespace bioagent;

namespace {

const std::string kModern = kMcpStatelessVersion;

struct Case {
  bool session = false;
  std::optional<std::string> header;  // MCP-Protocol-Version
  int meta = 0;                       // 0 none, 1 valid, 2 version v999, 3 no capabilities, 4 no version
  std::string method;
  int mcp_method = 0;  // 0 absent, 1 the body's, 2 another
  int mcp_name = 0;    // tools/call only: 0 absent, 1 the body's, 2 another

  std::string describe() const {
    return std::string(session ? "session " : "") + "header=" + header.value_or("-") + " meta=" + std::to_string(meta) +
           " method=" + method + " Mcp-Method=" + std::to_string(mcp_method) + " Mcp-Name=" + std::to_string(mcp_name);
  }
};

Json message(const Case& c) {
  Json params = Json::object();
  if (c.method == "tools/call") params["name"] = "no_such_tool";
  const Json caps = {{"sampling", Json::object()}};
  if (c.meta == 1) params["_meta"] = {{mcp::kMetaProtocolVersion, kModern}, {mcp::kMetaClientCapabilities, caps}};
  if (c.meta == 2) params["_meta"] = {{mcp::kMetaProtocolVersion, "v999"}, {mcp::kMetaClientCapabilities, caps}};
  if (c.meta == 3) params["_meta"] = {{mcp::kMetaProtocolVersion, kModern}};
  if (c.meta == 4) params["_meta"] = {{mcp::kMetaClientCapabilities, caps}};
  return {{"jsonrpc", "2.0"}, {"id", 7}, {"method", c.method}, {"params", params}};
}

McpRequestHeaders headers(const Case& c) {
  McpRequestHeaders h;
  h.session_id = c.session;
  h.protocol_version = c.header;
  if (c.mcp_method == 1) h.method = c.method;
  if (c.mcp_method == 2) h.method = "prompts/list";
  if (c.mcp_name == 1) h.name = "=?base64?" + mcp::base64_encode("no_such_tool") + "?=";
  if (c.mcp_name == 2) h.name = "wrong_tool_name";
  return h;
}

bool has_meta_version(const Case& c) { return c.meta == 1 || c.meta == 2 || c.meta == 3; }

// The rules, restated independently of the code under test.
McpEra expected_era(const Case& c) {
  if (c.session) return McpEra::kSession;
  if (has_meta_version(c)) return McpEra::kStateless;
  if (c.method == "initialize") return McpEra::kSession;
  if (!c.header || *c.header == "2025-11-25") return McpEra::kSession;
  return McpEra::kStateless;
}

// The code a stateless request is answered with (0: a result).
int expected_code(const Case& c) {
  if (!c.header) return -32020;
  const std::string meta_version = c.meta == 2 ? "v999" : kModern;
  const bool known_header = *c.header == kModern || *c.header == "2025-11-25";
  if (!has_meta_version(c)) return known_header ? -32602 : -32022;
  if (c.meta == 3) return -32602;
  if (*c.header != meta_version) return -32020;
  if (meta_version != kModern) return -32022;
  if (c.mcp_method != 1) return -32020;
  if (c.method == "tools/call" && c.mcp_name != 1) return -32020;
  if (c.method == "initialize" || c.method == "ping") return -32601;
  if (c.method == "tools/call") return -32602;  // an unknown tool
  return 0;
}

int expected_http(int code) {
  if (code == 0) return 200;
  return code == -32601 ? 404 : 400;
}

std::vector<Case> all_cases() {
  std::vector<Case> out;
  const std::vector<std::optional<std::string>> versions = {std::nullopt, "2025-11-25", kModern, "v999"};
  for (bool session : {false, true})
    for (auto& header : versions)
      for (int meta = 0; meta <= 4; ++meta)
        for (std::string method : {"initialize", "ping", "tools/list", "server/discover", "tools/call"})
          for (int mcp_method = 0; mcp_method <= 2; ++mcp_method)
            for (int mcp_name = 0; mcp_name <= (method == "tools/call" ? 2 : 0); ++mcp_name)
              out.push_back({session, header, meta, method, mcp_method, mcp_name});
  return out;
}

const ToolRegistry& registry() {
  static ToolRegistry* reg = [] {
    auto* r = new ToolRegistry();
    register_builtin_types(*r);
    EXPECT_TRUE(r->load_builtin().is_ok());
    return r;
  }();
  return *reg;
}

// The one answer a stateless session gives `msg`.
Json answer_stateless(const Case& c, const Json& msg) {
  static Workspace ws = *Workspace::create({bioagent::testing::source_dir()});
  std::vector<std::string> sent;
  auto session = McpSession::stateless(
      registry(), ws, McpOptions{}, [&sent](const std::string& line, const std::string&) { sent.push_back(line); },
      headers(c));
  session->handle_message(msg.dump());
  session->drain();
  for (auto& line : sent) {
    Json m = Json::parse(line);
    if (m.contains("id") && !m.contains("method")) return m;
  }
  return nullptr;
}

}  // namespace

TEST(McpRevisions, EveryHeaderMetaAndMethodCombinationIsServedAsTheRulesSay) {
  int stateless = 0, checked = 0;
  for (const Case& c : all_cases()) {
    const Json msg = message(c);
    const McpEra era = mcp_era_of(headers(c), msg);
    ASSERT_EQ(era, expected_era(c)) << c.describe();
    if (era == McpEra::kSession) continue;
    ++stateless;
    const Json answer = answer_stateless(c, msg);
    ASSERT_TRUE(answer.is_object()) << c.describe();
    const int want = expected_code(c);
    const int got = answer.contains("error") ? answer["error"]["code"].get<int>() : 0;
    EXPECT_EQ(got, want) << c.describe() << "\n" << answer.dump();
    EXPECT_EQ(mcp_http_status(answer), expected_http(want)) << c.describe();
    EXPECT_EQ(answer.value("id", Json()), 7) << "the error echoes the request id: " << c.describe();
    if (want == -32022) {
      EXPECT_EQ(answer["error"]["data"]["supported"], Json(mcp_supported_versions())) << c.describe();
      EXPECT_TRUE(answer["error"]["data"]["requested"].is_string()) << c.describe();
    }
    if (want == 0) {
      EXPECT_EQ(answer["result"]["resultType"], "complete") << c.describe();
    }
    ++checked;
  }
  EXPECT_GT(stateless, 200);
  EXPECT_EQ(checked, stateless);
}

TEST(McpRevisions, TheHttpStatusOfEachAnswer) {
  auto error = [](int code) {
    return Json{{"jsonrpc", "2.0"}, {"id", 1}, {"error", {{"code", code}, {"message", "m"}}}};
  };
  EXPECT_EQ(mcp_http_status(Json{{"jsonrpc", "2.0"}, {"id", 1}, {"result", Json::object()}}), 200);
  const std::vector<std::pair<int, int>> table = {{-32700, 400}, {-32600, 400}, {-32601, 404}, {-32602, 400},
                                                  {-32603, 500}, {-32000, 503}, {-32020, 400}, {-32021, 400},
                                                  {-32022, 400}, {-32800, 200}, {-32002, 200}};
  for (auto [code, http] : table) EXPECT_EQ(mcp_http_status(error(code)), http) << code;
}

TEST(McpRevisions, HeaderValuesDecodeTheBase64SentinelStrictly) {
  EXPECT_EQ(*mcp::decode_header_value("=?base64?SGVsbG8=?="), "Hello");
  EXPECT_EQ(*mcp::decode_header_value("  plain value \t"), "plain value");
  EXPECT_EQ(*mcp::decode_header_value("SGVsbG8="), "SGVsbG8=");                    // no sentinel: literal
  EXPECT_EQ(*mcp::decode_header_value("=?base64?SGVsbG8="), "=?base64?SGVsbG8=");  // unclosed: literal
  EXPECT_EQ(*mcp::decode_header_value("=?base64?"
                                      "?="),
            "");  // (split: not a trigraph)
  for (const char* bad : {"=?base64?SGVsbG8?=", "=?base64?SGVs!!!bG8=?=", "=?base64?SGVsbG9=?=", "=?base64?S===?="})
    EXPECT_FALSE(mcp::decode_header_value(bad)) << bad;
  for (const std::string& s : std::vector<std::string>{"", "a", "ab", "abc", "abcd", std::string("\0\xff\x10", 3)})
    EXPECT_EQ(*mcp::base64_decode(mcp::base64_encode(s)), s);
}

TEST(McpRevisions, McpParamHeadersMustRepeatTheMarkedArguments) {
  const Json schema = {{"type", "object"},
                       {"properties",
                        {{"region", {{"type", "string"}, {"x-mcp-header", "Region"}}},
                         {"count", {{"type", "integer"}, {"x-mcp-header", "Count"}}},
                         {"note", {{"type", "string"}}}}}};
  McpRequestHeaders h;
  const Json args = {{"region", "Hello"}, {"count", 3}, {"note", "x"}};
  EXPECT_EQ((*mcp::check_param_headers(h, schema, args))["code"], -32020);  // headers missing
  h.params = {{"region", "=?base64?SGVsbG8=?="}, {"count", "3"}};
  EXPECT_FALSE(mcp::check_param_headers(h, schema, args));
  h.params["count"] = "3.0";  // compared as numbers
  EXPECT_FALSE(mcp::check_param_headers(h, schema, args));
  h.params["count"] = "4";
  EXPECT_TRUE(mcp::check_param_headers(h, schema, args));
  h.params = {{"region", "=?base64?SGVsbG8?="}, {"count", "3"}};
  EXPECT_TRUE(mcp::check_param_headers(h, schema, args));  // bad padding
  EXPECT_FALSE(mcp::check_param_headers(McpRequestHeaders{}, schema, {{"note", "only unmarked"}}));
}

TEST(McpRevisions, RequestStateIsSealedForItsRequest) {
  const std::string key = "k", other = "another key";
  const Json answers = {{"step1", {{"action", "accept"}, {"content", {{"name", "Alice"}}}}}};
  const std::string sealed = mcp::seal_request_state(key, "tools/call", "t", answers);
  ASSERT_TRUE(mcp::open_request_state(key, "tools/call", "t", sealed));
  EXPECT_EQ(*mcp::open_request_state(key, "tools/call", "t", sealed), answers);
  for (auto [k, method, name, state] : std::vector<std::tuple<std::string, std::string, std::string, std::string>>{
           {other, "tools/call", "t", sealed},
           {key, "prompts/get", "t", sealed},
           {key, "tools/call", "u", sealed},
           {key, "tools/call", "t", sealed + "-TAMPERED"},
           {key, "tools/call", "t", "x" + sealed},
           {key, "tools/call", "t", "no dot"}}) {
    auto r = mcp::open_request_state(k, method, name, state);
    ASSERT_FALSE(r) << method << " " << name;
    EXPECT_EQ(r.status().message(), "requestState integrity check failed");
  }
}
