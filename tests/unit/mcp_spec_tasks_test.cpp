// The specification's tasks (2025-11-25) for a registry tool (the literature
// fan-out, offline here so it fails at once without touching the network), their
// negotiation, and SVG figures rendered to PNG for hosts that cannot show SVG.
#include <gtest/gtest.h>

#include <condition_variable>
#include <mutex>

#include "bioagent/agent.h"
#include "bioagent/mcp_server.h"
#include "bioagent/papers.h"
#include "bioagent/registry.h"
#include "bioagent/workspace.h"
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

  explicit Session(const std::string& version) {
    register_builtin_types(reg);
    EXPECT_TRUE(reg.load_builtin().is_ok());
    McpOptions o;
    o.page_size = 1000;
    o.tool_options["offline"] = "1";
    o.subscription_poll = std::chrono::milliseconds(50);
    session = std::make_unique<McpSession>(reg, ws, o, [this](const std::string& line) {
      std::lock_guard lock(mu);
      sent.push_back(Json::parse(line));
      cv.notify_all();
    });
    call("initialize", {{"protocolVersion", version}});
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
  Json tool(const std::string& name) {
    Json list = call("tools/list");
    for (auto& t : list["result"]["tools"])
      if (t["name"] == name) return t;
    return nullptr;
  }
};

const Json kSearch = {{"name", "multi_source_literature_search"}, {"arguments", {{"queries", {"GRAS rice"}}}}};

}  // namespace

TEST(McpSpecTasks, OfferedOnlyToClientsThatNegotiateThem) {
  Session old("2025-06-18");
  EXPECT_FALSE(old.call("initialize", {{"protocolVersion", "2025-06-18"}})["result"]["capabilities"].contains("tasks"));
  EXPECT_FALSE(old.tool("multi_source_literature_search").contains("execution"));
  EXPECT_EQ(old.call("tasks/list")["error"]["code"], -32601);

  Session now("2025-11-25");
  Json caps = now.call("initialize", {{"protocolVersion", "2025-11-25"}})["result"]["capabilities"];
  EXPECT_TRUE(caps["tasks"]["requests"]["tools"].contains("call"));
  EXPECT_TRUE(caps["tasks"].contains("list") && caps["tasks"].contains("cancel"));
  EXPECT_EQ(now.tool("multi_source_literature_search")["execution"]["taskSupport"], "optional");
  EXPECT_FALSE(now.tool("calculate_expr").contains("execution"));
  Json calc = {{"name", "calculate_expr"}, {"arguments", {{"expr", "1+1"}}}, {"task", Json::object()}};
  EXPECT_EQ(now.call("tools/call", calc)["error"]["code"], -32601) << "a tool without task support";
}

TEST(McpSpecTasks, ALiteratureFanOutRunsAsATask) {
  Session s("2025-11-25");
  Json plain = s.call("tools/call", kSearch)["result"];
  Json with_task = kSearch;
  with_task["task"] = {{"ttl", 60000}};
  with_task["_meta"] = {{"progressToken", "lit"}};
  Json created = s.call("tools/call", with_task)["result"];
  ASSERT_TRUE(created.contains("task")) << created.dump();
  const std::string id = created["task"]["taskId"];
  EXPECT_EQ(created["task"]["status"], "working");
  EXPECT_TRUE(created["task"].contains("createdAt") && created["task"].contains("lastUpdatedAt"));

  Json result = s.call("tasks/result", {{"taskId", id}})["result"];
  EXPECT_EQ(result["_meta"]["io.modelcontextprotocol/related-task"]["taskId"], id);
  EXPECT_EQ(result["isError"], plain["isError"]) << "tasks/result returns what the plain call returns";
  EXPECT_EQ(result["content"], plain["content"]);
  Json got = s.call("tasks/get", {{"taskId", id}})["result"];
  EXPECT_EQ(got["status"], plain.value("isError", false) ? "failed" : "completed");
  bool listed = false;
  Json tasks = s.call("tasks/list");
  for (auto& t : tasks["result"]["tasks"]) listed = listed || t["taskId"] == id;
  EXPECT_TRUE(listed);
  EXPECT_EQ(s.call("tasks/cancel", {{"taskId", id}})["error"]["code"], -32602) << "an ended task";
  EXPECT_EQ(s.call("tasks/get", {{"taskId", "tool_nope"}})["error"]["code"], -32602);
  EXPECT_EQ(s.call("tasks/result", {{"taskId", "t_nope"}})["error"]["code"], -32602);
  EXPECT_EQ(s.call("tasks/get")["error"]["code"], -32602) << "no taskId";
}

TEST(SvgPng, RendersAFigureAndRefusesText) {
  std::string svg =
      "<svg xmlns='http://www.w3.org/2000/svg' width='300' height='200'><rect width='300' height='200' fill='#fff'/>"
      "<circle cx='150' cy='100' r='80' fill='#c00'/></svg>";
  auto png = svg_to_png(svg, 2, 4096);
  ASSERT_TRUE(png.is_ok()) << png.status().to_string();
  EXPECT_EQ(png->width, 600);
  EXPECT_EQ(png->height, 400);
  EXPECT_EQ(png->png.substr(1, 3), "PNG");
  auto small = svg_to_png(svg, 2, 150);
  ASSERT_TRUE(small.is_ok());
  EXPECT_EQ(small->width, 150) << "the longer side is capped";
  EXPECT_EQ(small->height, 100);
  EXPECT_FALSE(svg_to_png("not an svg", 2, 4096).is_ok());
  EXPECT_FALSE(svg_to_png("", 2, 4096).is_ok());
}
