// MCP features beyond tools: logging/setLevel and notifications/message,
// prompts (en and zh), completion/complete, resources without an assistant,
// and the compact tool mode (meta-tools, BM25 tool search, call_tool).
#include <gtest/gtest.h>

#include <condition_variable>
#include <mutex>

#include "bioagent/agent.h"
#include "bioagent/mcp_server.h"
#include "bioagent/registry.h"
#include "bioagent/workspace.h"
#include "json_mutations.h"
#include "test_util.h"

using namespace bioagent;

namespace {

struct Session {
  ToolRegistry reg;
  Workspace ws = *Workspace::create({bioagent::testing::source_dir()});
  std::mutex mu;
  std::condition_variable cv;
  std::vector<Json> sent;
  std::unique_ptr<McpSession> session;
  int next_id = 1;

  explicit Session(bool compact = false) {
    register_builtin_types(reg);
    EXPECT_TRUE(reg.load_builtin().is_ok());
    McpOptions o;
    o.compact = compact;
    o.page_size = 1000;
    session = std::make_unique<McpSession>(reg, ws, o, [this](const std::string& line) {
      std::lock_guard lock(mu);
      sent.push_back(Json::parse(line));
      cv.notify_all();
    });
  }
  Json call(const std::string& method, Json params = Json::object()) {
    Json id = next_id++;
    session->handle_message(Json{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}}.dump());
    std::unique_lock lock(mu);
    Json found;
    cv.wait_for(lock, std::chrono::seconds(20), [&] {
      for (auto& m : sent)
        if (m.contains("id") && m["id"] == id) return (found = m), true;
      return false;
    });
    return found;
  }
  std::vector<Json> notifications(const std::string& method) {
    std::lock_guard lock(mu);
    std::vector<Json> out;
    for (auto& m : sent)
      if (m.value("method", "") == method) out.push_back(m);
    return out;
  }
};

}  // namespace

TEST(McpFeatures, InitializeAnnouncesTheCapabilities) {
  Session s;
  Json r = s.call("initialize", {{"protocolVersion", "2025-11-25"}});
  const Json& caps = r["result"]["capabilities"];
  for (const char* c : {"tools", "logging", "prompts", "completions", "resources"}) EXPECT_TRUE(caps.contains(c)) << c;
  EXPECT_FALSE(caps["resources"]["subscribe"].get<bool>()) << "no assistant: nothing to subscribe to";
}

TEST(McpFeatures, LoggingLevelFiltersToolMessages) {
  Session s;
  EXPECT_EQ(s.call("logging/setLevel", {{"level", "loud"}})["error"]["code"], -32602);
  s.call("tools/call", {{"name", "calculate_expr"}, {"arguments", {{"expr", "1+1"}}}});
  EXPECT_TRUE(s.notifications("notifications/message").empty()) << "debug messages are below the default level";
  EXPECT_TRUE(s.call("logging/setLevel", {{"level", "debug"}}).contains("result"));
  s.call("tools/call", {{"name", "calculate_expr"}, {"arguments", {{"expr", "1+1"}}}});
  auto logs = s.notifications("notifications/message");
  ASSERT_FALSE(logs.empty());
  EXPECT_EQ(logs[0]["params"]["level"], "debug");
  EXPECT_EQ(logs[0]["params"]["logger"], "calculate_expr");
  s.call("tools/call", {{"name", "calculate_expr"}, {"arguments", {{"expr", "1/"}}}});
  bool error_logged = false;
  for (auto& m : s.notifications("notifications/message")) error_logged |= m["params"]["level"] == "error";
  EXPECT_TRUE(error_logged) << "a failed call is logged at error";
}

TEST(McpFeatures, PromptsInEnglishAndChinese) {
  Session s;
  Json list = s.call("prompts/list")["result"]["prompts"];
  ASSERT_EQ(list.size(), 5u);
  Json en = s.call("prompts/get", {{"name", "family_studied_in_species"},
                                   {"arguments", {{"family", "SPL"}, {"species", "Litchi chinensis"}}}});
  std::string text = en["result"]["messages"][0]["content"]["text"];
  EXPECT_NE(text.find("SPL gene family been studied in Litchi chinensis"), std::string::npos) << text;
  Json zh = s.call("prompts/get", {{"name", "family_studied_in_species"},
                                   {"arguments", {{"family", "SPL"}, {"species", "荔枝"}, {"language", "zh"}}}});
  text = zh["result"]["messages"][0]["content"]["text"];
  EXPECT_EQ(text.rfind("荔枝的SPL基因家族是否有发表过相关的文章", 0), 0u) << text;
  Json missing = s.call("prompts/get", {{"name", "plan_family_analysis"}, {"arguments", {{"family", "SPL"}}}});
  EXPECT_EQ(missing["error"]["code"], -32602);
  EXPECT_NE(missing["error"]["message"].get<std::string>().find("species"), std::string::npos);
  EXPECT_EQ(s.call("prompts/get", {{"name", "nope"}})["error"]["code"], -32602);
}

TEST(McpFeatures, CompletionOffersFamiliesSpeciesAndLanguages) {
  Session s;
  auto values = [&](const std::string& arg, const std::string& value) {
    Json r = s.call("completion/complete", {{"ref", {{"type", "ref/prompt"}, {"name", "plan_family_analysis"}}},
                                            {"argument", {{"name", arg}, {"value", value}}}});
    return r["result"]["completion"]["values"];
  };
  Json fam = values("family", "wr");
  EXPECT_NE(std::find(fam.begin(), fam.end(), "WRKY"), fam.end()) << fam.dump();
  Json sp = values("species", "Lc");
  EXPECT_NE(std::find(sp.begin(), sp.end(), "Lchi"), sp.end()) << sp.dump();
  EXPECT_EQ(values("language", ""), Json::array({"en", "zh"}));
  EXPECT_EQ(
      s.call("completion/complete", {{"ref", {{"type", "ref/other"}}}, {"argument", {{"name", "x"}}}})["error"]["code"],
      -32602);
}

TEST(McpFeatures, ResourcesWithoutAnAssistantAreEmptyAndUnknownUrisNotFound) {
  Session s;
  EXPECT_EQ(s.call("resources/list")["result"]["resources"], Json::array());
  Json r = s.call("resources/read", {{"uri", "bioagent://runs/t_x/status.json"}});
  EXPECT_EQ(r["error"]["code"], -32002);
  EXPECT_EQ(s.call("resources/read")["error"]["code"], -32602);
}

TEST(McpFeatures, CompactModeSearchesDescribesAndCalls) {
  Session full, compact(true);
  Json all = full.call("tools/list")["result"]["tools"];
  Json few = compact.call("tools/list")["result"]["tools"];
  ASSERT_EQ(few.size(), 4u);
  EXPECT_LT(few.dump().size() * 20, all.dump().size()) << "compact under 5% of the full list";
  auto search = [&](const std::string& q) {
    Json r = compact.call("tools/call", {{"name", "search_tools"}, {"arguments", {{"query", q}}}});
    return r["result"]["structuredContent"]["tools"];
  };
  Json hits = search("PubMed E-utilities");
  ASSERT_FALSE(hits.empty());
  EXPECT_EQ(hits[0]["name"], "pubmed_search") << hits.dump();
  Json articles = search("search PubMed articles");
  ASSERT_GE(articles.size(), 2u);
  EXPECT_TRUE(articles[0]["name"] == "pubmed_search" || articles[1]["name"] == "pubmed_search") << articles.dump();
  Json zh = search("临床试验");
  ASSERT_FALSE(zh.empty());
  EXPECT_EQ(zh[0]["category"], "literature_tools") << zh.dump();
  EXPECT_TRUE(search("zzzz qqqq").empty());
  Json desc = compact.call("tools/call", {{"name", "describe_tool"}, {"arguments", {{"name", "calculate_expr"}}}});
  EXPECT_TRUE(desc["result"]["structuredContent"].contains("inputSchema"));
  Json called = compact.call(
      "tools/call",
      {{"name", "call_tool"}, {"arguments", {{"name", "calculate_expr"}, {"arguments", {{"expr", "2**10+1"}}}}}});
  EXPECT_NE(called["result"]["content"][0]["text"].get<std::string>().find("1025"), std::string::npos);
  Json unknown = compact.call("tools/call", {{"name", "describe_tool"}, {"arguments", {{"name", "nope"}}}});
  EXPECT_TRUE(unknown["result"]["isError"].get<bool>());
  Json cats = compact.call("tools/call", {{"name", "list_tool_categories"}})["result"]["structuredContent"];
  EXPECT_EQ(cats["total_tools"], all.size());
}

// Every request a host may send, with any one parameter of the wrong type: the
// answer is a result or a typed error (-32602 and kin), never the firewall's
// internal error (-32603), which would mean a reader threw on the host's input.
TEST(McpFeatures, AParameterOfTheWrongTypeIsAnInvalidParamsError) {
  Session s;
  s.call("initialize", {{"protocolVersion", "2025-11-25"}});
  const std::pair<const char*, const char*> requests[] = {
      {"initialize", R"({"protocolVersion": "2025-11-25", "capabilities": {"elicitation": {}},
                        "clientInfo": {"name": "h", "version": "1"}})"},
      {"tools/list", R"({"cursor": "0"})"},
      {"tools/call", R"({"name": "calculate_expr", "arguments": {"expr": "1+1"}, "_meta": {"progressToken": 1},
                        "task": {"ttl": 1000}})"},
      {"logging/setLevel", R"({"level": "debug"})"},
      {"prompts/list", R"({"cursor": "0"})"},
      {"prompts/get", R"({"name": "plan_family_analysis", "arguments": {"family": "SPL", "species": "Lchi"}})"},
      {"completion/complete", R"({"ref": {"type": "ref/prompt", "name": "plan_family_analysis"},
                                 "argument": {"name": "family", "value": "S"}, "context": {"arguments": {"run": "x"}}})"},
      {"resources/list", R"({"cursor": "0"})"},
      {"resources/read", R"({"uri": "bioagent://runs/t_x/status.json"})"},
      {"resources/templates/list", R"({"cursor": "0"})"},
      {"tasks/get", R"({"taskId": "t_x"})"},
      {"tasks/list", R"({"cursor": "0"})"},
      {"tasks/result", R"({"taskId": "t_x"})"},
      {"tasks/cancel", R"({"taskId": "t_x"})"}};
  size_t answers = 0;
  for (auto& request : requests) {
    const char* method = request.first;  // (clang 14 cannot capture a structured binding)
    bioagent::testing::for_each_wrong_type(Json::parse(request.second), [&](const std::string& text) {
      Json p = Json::parse(text);
      if (!p.is_object()) return;  // params that are not an object are refused before any reader
      Json r = s.call(method, p);
      ++answers;
      ASSERT_FALSE(r.is_null()) << method << " " << text << ": no answer";
      if (r.contains("error")) EXPECT_NE(r["error"]["code"], -32603) << method << " " << text << ": " << r.dump();
    });
  }
  EXPECT_GT(answers, 300u);
}
