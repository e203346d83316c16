#include <gtest/gtest.h>

#include <condition_variable>
#include <mutex>
#include <sstream>
#include <thread>

#include "bioagent/agent.h"
#include "bioagent/mcp_server.h"
#include "bioagent/registry.h"
#include "bioagent/workspace.h"
#include "test_tools.h"
#include "test_util.h"

using namespace bioagent;

namespace {

// A session whose sink records every line it is sent.
struct Harness {
  ToolRegistry reg;
  Workspace ws = *Workspace::create({bioagent::testing::source_dir()});
  std::mutex mu;
  std::condition_variable cv;
  std::vector<Json> sent;
  std::unique_ptr<McpSession> session;
  std::chrono::milliseconds sink_delay{0};  // a slow client: the sink returns this late

  explicit Harness(size_t page_size = 50) {
    register_builtin_types(reg);
    bioagent::testing::add_test_types(reg);
    EXPECT_TRUE(reg.load_builtin().is_ok());
    EXPECT_TRUE(reg.load_config(bioagent::testing::kTestToolsConfig, "test_tools").is_ok());
    McpOptions o;
    o.page_size = page_size;
    session = std::make_unique<McpSession>(reg, ws, o, [this](const std::string& line) {
      EXPECT_EQ(line.find('\n'), std::string::npos) << "one message per line";
      {
        std::lock_guard<std::mutex> lock(mu);
        sent.push_back(Json::parse(line));
        cv.notify_all();
      }
      std::this_thread::sleep_for(sink_delay);
    });
  }

  // Sends a message and returns the response with that id (waits for worker threads).
  Json request(const Json& msg) {
    session->handle_message(msg.dump());
    return wait_for(msg["id"]);
  }
  Json wait_for(const Json& id) {
    std::unique_lock<std::mutex> lock(mu);
    Json found;
    cv.wait_for(lock, std::chrono::seconds(20), [&] {
      for (auto& m : sent) {
        if (m.contains("id") && m["id"] == id) {
          found = m;
          return true;
        }
      }
      return false;
    });
    return found;
  }
  Json last() {
    std::lock_guard<std::mutex> lock(mu);
    return sent.empty() ? Json() : sent.back();
  }
};

Json req(int id, const std::string& method, Json params = Json::object()) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}};
}

}  // namespace

TEST(Mcp, InitializeNegotiatesTheVersion) {
  Harness h;
  Json r = h.request(req(1, "initialize",
                         {{"protocolVersion", "2025-06-18"},
                          {"capabilities", Json::object()},
                          {"clientInfo", {{"name", "t"}, {"version", "1"}}}}));
  EXPECT_EQ(r["result"]["protocolVersion"], "2025-06-18");
  EXPECT_EQ(r["result"]["serverInfo"]["name"], "bioagent");
  EXPECT_TRUE(r["result"]["capabilities"].contains("tools"));
  Json r2 = h.request(req(2, "initialize", {{"protocolVersion", "1999-01-01"}}));
  EXPECT_EQ(r2["result"]["protocolVersion"], mcp_session_versions().front());
  EXPECT_EQ(h.request(req(3, "ping"))["result"], Json::object());
}

TEST(Mcp, ToolsListPaginatesWithACursor) {
  Harness h(2);
  std::vector<std::string> names;
  Json cursor;
  for (int page = 0; page < 100; ++page) {
    Json params = Json::object();
    if (!cursor.is_null()) params["cursor"] = cursor;
    Json r = h.request(req(10 + page, "tools/list", params));
    ASSERT_TRUE(r.contains("result")) << r.dump();
    EXPECT_LE(r["result"]["tools"].size(), 2u);
    for (auto& t : r["result"]["tools"]) {
      names.push_back(t["name"]);
      EXPECT_EQ(t["inputSchema"]["type"], "object");
      EXPECT_EQ(t["outputSchema"]["type"], "object");
    }
    if (!r["result"].contains("nextCursor")) break;
    cursor = r["result"]["nextCursor"];
  }
  EXPECT_EQ(names.size(), h.reg.size());
  Json bad = h.request(req(99, "tools/list", {{"cursor", "garbage"}}));
  EXPECT_EQ(bad["error"]["code"], -32602);
}

TEST(Mcp, ToolsCallReturnsContentAndStructuredContent) {
  Harness h;
  Json r = h.request(req(5, "tools/call", {{"name", "calculate_expr"}, {"arguments", {{"expr", "2 + 3 * 4"}}}}));
  ASSERT_TRUE(r.contains("result")) << r.dump();
  EXPECT_EQ(r["result"]["isError"], false);
  EXPECT_EQ(r["result"]["structuredContent"]["result"], 14);
  EXPECT_EQ(r["result"]["content"][0]["type"], "text");
  EXPECT_EQ(Json::parse(r["result"]["content"][0]["text"].get<std::string>())["result"], 14);
}

TEST(Mcp, ToolErrorsAreIsErrorResults) {
  Harness h;
  Json bad_args = h.request(req(6, "tools/call", {{"name", "calculate_expr"}, {"arguments", {{"expression", "1"}}}}));
  EXPECT_EQ(bad_args["result"]["isError"], true);
  EXPECT_NE(bad_args["result"]["content"][0]["text"].get<std::string>().find("args.expr"), std::string::npos);
  Json refused = h.request(req(7, "tools/call", {{"name", "calculate_expr"}, {"arguments", {{"expr", "open('x')"}}}}));
  EXPECT_EQ(refused["result"]["isError"], true);
  EXPECT_NE(refused["result"]["content"][0]["text"].get<std::string>().find("unknown function 'open'"),
            std::string::npos);
  Json boom = h.request(req(8, "tools/call", {{"name", "explode"}}));
  EXPECT_EQ(boom["result"]["isError"], true);
}

TEST(Mcp, ProtocolErrors) {
  Harness h;
  h.session->handle_message("{not json");
  EXPECT_EQ(h.last()["error"]["code"], -32700);
  EXPECT_TRUE(h.last()["id"].is_null());
  h.session->handle_message("[]");
  EXPECT_EQ(h.last()["error"]["code"], -32600);
  h.session->handle_message(R"({"jsonrpc":"1.0","id":1,"method":"ping"})");
  EXPECT_EQ(h.last()["error"]["code"], -32600);
  // An id that is neither a string nor an integer is answered at once, never left waiting.
  for (const char* id : {R"({"x":1})", "1.5", "true", "1000000000000000000000000000000", "[1]", "1e3"}) {
    const size_t before = h.sent.size();
    h.session->handle_message(std::string(R"({"jsonrpc":"2.0","id":)") + id + R"(,"method":"ping"})");
    ASSERT_EQ(h.sent.size(), before + 1) << id;
    EXPECT_EQ(h.last()["error"]["code"], -32600) << id;
    EXPECT_TRUE(h.last()["id"].is_null()) << id;
  }
  h.session->handle_message(R"({"jsonrpc":"2.0","id":2,"method":5})");
  EXPECT_EQ(h.last()["error"]["code"], -32600);
  EXPECT_EQ(h.request(req(3, "sampling/createMessage"))["error"]["code"], -32601) << "a method no server offers";
  EXPECT_EQ(h.request(req(4, "tools/call", {{"name", "nope"}}))["error"]["code"], -32602);
  EXPECT_EQ(h.request(req(5, "tools/call", {{"arguments", Json::object()}}))["error"]["code"], -32602);
  EXPECT_EQ(h.request(req(6, "tools/call", {{"name", "echo"}, {"arguments", "x"}}))["error"]["code"], -32602);
  Json p = {{"jsonrpc", "2.0"}, {"id", 7}, {"method", "ping"}, {"params", "x"}};
  EXPECT_EQ(h.request(p)["error"]["code"], -32602);
  size_t before = h.sent.size();
  h.session->handle_message(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
  h.session->handle_message(R"({"jsonrpc":"2.0","id":9,"result":{}})");
  EXPECT_EQ(h.sent.size(), before) << "notifications and responses get no answer";
  h.session->reject_oversized();
  EXPECT_EQ(h.last()["error"]["code"], -32600);
}

// A client may reuse an id once it holds the answer, even while the server is still
// writing it out; an id is refused only while its call has no answer yet.
TEST(Mcp, AnAnsweredIdMayBeReusedAtOnce) {
  Harness h;
  h.sink_delay = std::chrono::milliseconds(40);
  for (int i = 0; i < 5; ++i) {
    {
      std::lock_guard<std::mutex> lock(h.mu);
      h.sent.clear();
    }
    Json r = h.request(req(11, "tools/call", {{"name", "calculate_expr"}, {"arguments", {{"expr", "1 + 1"}}}}));
    ASSERT_TRUE(r.contains("result")) << "call " << i << ": " << r.dump();
  }
  h.sink_delay = std::chrono::milliseconds(0);
  h.session->handle_message(req(12, "tools/call", {{"name", "slow"}, {"arguments", {{"ms", 20000}}}}).dump());
  h.session->handle_message(req(12, "tools/call", {{"name", "calculate_expr"}, {"arguments", {{"expr", "1"}}}}).dump());
  Json dup = h.wait_for(12);
  EXPECT_EQ(dup["error"]["code"], -32600) << dup.dump();
  h.session->handle_message(Json({{"jsonrpc", "2.0"},
                                  {"method", "notifications/cancelled"},
                                  {"params", {{"requestId", 12}, {"reason", "test over"}}}})
                                .dump());
}

TEST(Mcp, CancellationStopsTheCallAndSuppressesTheAnswer) {
  Harness h;
  h.session->handle_message(req(20, "tools/call", {{"name", "slow"}, {"arguments", {{"ms", 20000}}}}).dump());
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  auto t0 = std::chrono::steady_clock::now();
  h.session->handle_message(Json({{"jsonrpc", "2.0"},
                                  {"method", "notifications/cancelled"},
                                  {"params", {{"requestId", 20}, {"reason", "user"}}}})
                                .dump());
  h.session->drain();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
  for (auto& m : h.sent) EXPECT_FALSE(m.contains("id") && m["id"] == 20) << "no response to a cancelled request";
}

TEST(Mcp, ProgressNotificationsUseTheToken) {
  Harness h;
  Json r = h.request(
      req(30, "tools/call", {{"name", "slow"}, {"arguments", {{"ms", 50}}}, {"_meta", {{"progressToken", "tok"}}}}));
  EXPECT_EQ(r["result"]["structuredContent"]["waited_ms"], 50);
  size_t progress = 0;
  for (auto& m : h.sent) {
    if (m.value("method", "") == "notifications/progress") {
      EXPECT_EQ(m["params"]["progressToken"], "tok");
      ++progress;
    }
  }
  EXPECT_GT(progress, 0u);
}

TEST(Mcp, StdioLoopAnswersEachLine) {
  ToolRegistry reg;
  register_builtin_types(reg);
  ASSERT_TRUE(reg.load_builtin().is_ok());
  auto ws = *Workspace::create({bioagent::testing::source_dir()});
  std::istringstream in(req(1, "ping").dump() + "\n\n" + "garbage\n" +
                        req(2, "tools/call", {{"name", "calculate_expr"}, {"arguments", {{"expr", "1+1"}}}}).dump());
  std::ostringstream out;
  McpOptions o;
  o.max_message_bytes = 1 << 20;
  EXPECT_EQ(run_mcp_stdio(reg, ws, o, in, out), 0);
  std::istringstream lines(out.str());
  std::string line;
  std::vector<Json> msgs;
  while (std::getline(lines, line)) msgs.push_back(Json::parse(line));
  ASSERT_EQ(msgs.size(), 3u);
  EXPECT_EQ(msgs[0]["id"], 1);
  EXPECT_EQ(msgs[1]["error"]["code"], -32700);
  EXPECT_EQ(msgs[2]["result"]["structuredContent"]["result"], 2);
}

TEST(Mcp, StdioRejectsAnOversizedLineWithoutReadingItAll) {
  ToolRegistry reg;
  register_builtin_types(reg);
  ASSERT_TRUE(reg.load_builtin().is_ok());
  auto ws = *Workspace::create({bioagent::testing::source_dir()});
  std::istringstream in(std::string(5000, 'x') + "\n" + req(2, "ping").dump() + "\n");
  std::ostringstream out;
  McpOptions o;
  o.max_message_bytes = 1000;
  run_mcp_stdio(reg, ws, o, in, out);
  std::istringstream lines(out.str());
  std::string first, second;
  std::getline(lines, first);
  std::getline(lines, second);
  EXPECT_EQ(Json::parse(first)["error"]["code"], -32600);
  EXPECT_EQ(Json::parse(second)["id"], 2);
}
