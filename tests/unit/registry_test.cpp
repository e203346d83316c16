#include <gtest/gtest.h>

#include "bioagent/agent.h"
#include "bioagent/bundle.h"
#include "bioagent/papers.h"
#include "bioagent/registry.h"
#include "bioagent/schema.h"
#include "bioagent/workspace.h"
#include "test_tools.h"
#include "test_util.h"

using namespace bioagent;
using bioagent::testing::TempDir;

namespace {

struct Fixture {
  ToolRegistry reg;
  Workspace ws = *Workspace::create({bioagent::testing::source_dir()});
  Fixture() {
    register_builtin_types(reg);
    bioagent::testing::add_test_types(reg);
    EXPECT_TRUE(reg.load_builtin().is_ok());
    EXPECT_TRUE(reg.load_config(bioagent::testing::kTestToolsConfig, "test_tools").is_ok());
  }
};

}  // namespace

TEST(Registry, BuiltinToolsAreStrict) {
  Fixture f;
  for (const char* name : {"calculate_expr", "CalculateExpr", "read_executed_notebook"}) {
    const ToolSpec* s = f.reg.find(name);
    ASSERT_NE(s, nullptr) << name;
    EXPECT_EQ(s->parameters["additionalProperties"], false);
    EXPECT_TRUE(s->parameters["required"].is_array());
    EXPECT_FALSE(s->description.empty());
  }
  EXPECT_EQ(f.reg.find("calculate_expr")->parameters["required"], Json::array({"expr"}));
}

TEST(Registry, ExportsComeFromTheSameTable) {
  Fixture f;
  const ToolSpec& s = *f.reg.find("calculate_expr");
  Json oa = f.reg.openai_function(s);
  Json mcp = f.reg.mcp_tool(s);
  EXPECT_EQ(oa["type"], "function");
  EXPECT_EQ(oa["function"]["name"], "calculate_expr");
  EXPECT_EQ(oa["function"]["parameters"], s.parameters);
  EXPECT_EQ(mcp["inputSchema"], s.parameters);
  EXPECT_EQ(mcp["outputSchema"], s.return_schema);
  EXPECT_EQ(mcp["description"], oa["function"]["description"]);
}

TEST(Registry, CallValidatesAppliesDefaultsAndWraps) {
  Fixture f;
  ToolContext ctx(&f.ws);
  auto r = f.reg.call("echo", Json{{"text", "hi"}}, ctx);
  ASSERT_TRUE(r.is_ok());
  EXPECT_EQ((*r)["n"], 3) << "default applied";
  Json env = f.reg.call_envelope("echo", Json{{"text", "hi"}, {"n", 11}}, ctx);
  EXPECT_EQ(env["status"], "error");
  EXPECT_EQ(env["error"]["code"], "invalid_argument");
  EXPECT_EQ(env["error"]["details"]["field"], "args.n");
  EXPECT_EQ(env["error"]["details"]["rule"], "maximum");
  EXPECT_EQ(env["error"]["details"]["tool"], "echo");
  Json ok = f.reg.call_envelope("calculate_expr", Json{{"expr", "2 + 3 * 4"}}, ctx);
  EXPECT_EQ(ok["status"], "success");
  EXPECT_EQ(ok["data"]["result"], 14);
}

TEST(Registry, UnknownToolAndThrowingToolAreErrorsNotCrashes) {
  Fixture f;
  ToolContext ctx(&f.ws);
  auto missing = f.reg.call("no_such_tool", Json::object(), ctx);
  EXPECT_EQ(missing.status().code(), ErrorCode::kNotFound);
  auto boom = f.reg.call("explode", Json::object(), ctx);
  EXPECT_EQ(boom.status().code(), ErrorCode::kInternal);
  EXPECT_NE(boom.status().message().find("boom"), std::string::npos);
  auto wrong_type = f.reg.call("echo", Json::array({1}), ctx);
  EXPECT_EQ(wrong_type.status().details()["rule"], "type");
}

TEST(Registry, DeadlineAndCancellationStopATool) {
  Fixture f;
  ToolContext ctx(&f.ws);
  ctx.set_timeout(std::chrono::milliseconds(30));
  auto r = f.reg.call("slow", Json{{"ms", 5000}}, ctx);
  EXPECT_EQ(r.status().code(), ErrorCode::kTimeout);
  ToolContext c2(&f.ws);
  auto flag = std::make_shared<std::atomic<bool>>(true);
  c2.set_cancel_flag(flag);
  EXPECT_EQ(f.reg.call("slow", Json{{"ms", 5000}}, c2).status().code(), ErrorCode::kCancelled);
}

TEST(Registry, BadConfigsAreRejectedWholeWithAReason) {
  struct Case {
    const char* json;
    const char* expect;
  } cases[] = {
      {"not json", "not valid JSON"},
      {R"({"x": 1})", "array"},
      {R"([{"name": "t", "type": "NoSuchType", "description": "d", "parameter": {"type":"object","properties":{},"required":[],"additionalProperties":false}}])",
       "no implementation"},
      {R"([{"name": "t", "type": "EchoTool", "description": "d", "parameter": {"type":"object","properties":{}}}])",
       "additionalProperties"},
      {R"([{"name": "bad name", "type": "EchoTool", "description": "d", "parameter": {"type":"object","properties":{},"required":[],"additionalProperties":false}}])",
       "letters"},
      {R"([{"name": "calculate_expr", "type": "EchoTool", "description": "d", "parameter": {"type":"object","properties":{},"required":[],"additionalProperties":false}}])",
       "already defined"},
      {R"([{"name": "t", "type": "EchoTool", "description": "d", "parameter": {"type":"object","properties":{"a":{"type":"string"}},"required":[],"additionalProperties":false}, "test_examples": [{"a": 1}]}])",
       "test example"},
      {R"([{"name": "t", "type": "EchoTool", "description": "d", "bogus": 1, "parameter": {"type":"object","properties":{},"required":[],"additionalProperties":false}}])",
       "unknown key"},
  };
  for (auto& c : cases) {
    Fixture f;
    size_t before = f.reg.size();
    Status s = f.reg.load_config(c.json, "user");
    EXPECT_FALSE(s.is_ok()) << c.json;
    EXPECT_NE(s.message().find(c.expect), std::string::npos) << s.message();
    EXPECT_EQ(f.reg.size(), before) << "nothing half-loaded";
  }
}

TEST(Registry, LoadsAUserConfigDirectory) {
  Fixture f;
  TempDir dir;
  dir.write("lab_tools.json", R"([{"name": "lab_echo", "type": "EchoTool", "description": "Echo for the lab.",
    "parameter": {"type":"object","properties":{"text":{"type":"string"}},"required":["text"],"additionalProperties":false}}])");
  dir.write("README.txt", "ignored");
  ASSERT_TRUE(f.reg.load_config_dir(dir.path().string()).is_ok());
  ASSERT_NE(f.reg.find("lab_echo"), nullptr);
  EXPECT_EQ(f.reg.find("lab_echo")->family, "lab_tools");
  EXPECT_EQ(f.reg.load_config_dir((dir.path() / "missing").string()).code(), ErrorCode::kNotFound);
}

TEST(Registry, EveryBuiltinExampleRunsAndMatchesItsReturnSchema) {
  Fixture f;
  TempDir bundle;
  ASSERT_TRUE(write_example_bundle(bundle.path() / "www").is_ok());
  ASSERT_TRUE(PaperLibrary::open((bundle.path() / "papers.duckdb").string()).is_ok());  // an empty library
  for (auto* spec : f.reg.list()) {
    if (spec->family == "test_tools") continue;
    ASSERT_FALSE(spec->test_examples.empty()) << spec->name << " has no example";
    // Network examples run on the replay server (literature_tools_test); paper examples on real PDFs (papers_test).
    if (!spec->settings.value("examples_need", "").empty()) continue;
    for (auto& ex : spec->test_examples) {
      ToolContext ctx(&f.ws);
      ctx.set_option("bundle_dir", (bundle.path() / "www").string());
      ctx.set_option("cache_dir", (bundle.path() / "cache").string());
      ctx.set_option("papers_db", (bundle.path() / "papers.duckdb").string());
      auto r = f.reg.call(spec->name, ex, ctx);
      ASSERT_TRUE(r.is_ok()) << spec->name << " " << ex.dump() << ": " << r.status().to_string();
      Status v = validate(spec->return_schema, *r, "data");
      EXPECT_TRUE(v.is_ok()) << spec->name << ": " << v.message();
    }
  }
}
