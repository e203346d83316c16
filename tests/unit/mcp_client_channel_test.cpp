// Asking the client (bioagent/client_channel.h) in each of its three forms,
// through the conformance fixtures that use it: a session's request on the
// call's stream answered by the client's response; a stateless call's rounds
// (InputRequiredResult, inputResponses, a sealed requestState); a task of the
// tasks extension parked in input_required until tasks/update. Plus the
// conveniences tools use, on a channel of the test's own.
#include <gtest/gtest.h>

#include <condition_variable>
#include <mutex>
#include <thread>

#include "bioagent/agent.h"
#include "bioagent/client_channel.h"
#include "bioagent/mcp_server.h"
#include "bioagent/registry.h"
#include "bioagent/workspace.h"
#include "test_util.h"

using namespace bioagent;

namespace {

const ToolRegistry& registry() {
  static ToolRegistry* reg = [] {
    auto* r = new ToolRegistry();
    register_builtin_types(*r);
    EXPECT_TRUE(r->load_builtin().is_ok());
    return r;
  }();
  return *reg;
}

const Workspace& workspace() {
  static Workspace ws = *Workspace::create({bioagent::testing::source_dir()});
  return ws;
}

McpOptions fixtures(std::shared_ptr<McpShared> shared = nullptr) {
  McpOptions o;
  o.conformance_fixtures = true;
  o.shared = std::move(shared);
  return o;
}

// A 2025-11-25 session whose sink records each message with the request it was routed to.
struct SessionHarness {
  std::mutex mu;
  std::condition_variable cv;
  std::vector<std::pair<Json, std::string>> sent;
  std::unique_ptr<McpSession> session;

  explicit SessionHarness(const Json& capabilities) {
    session =
        std::make_unique<McpSession>(registry(), workspace(), fixtures(),
                                     McpSession::RoutedSink([this](const std::string& line, const std::string& key) {
                                       if (line.empty()) return;
                                       std::lock_guard lock(mu);
                                       sent.emplace_back(Json::parse(line), key);
                                       cv.notify_all();
                                     }));
    send({{"jsonrpc", "2.0"},
          {"id", 1},
          {"method", "initialize"},
          {"params", {{"protocolVersion", "2025-11-25"}, {"capabilities", capabilities}}}});
    EXPECT_TRUE(wait([](const Json& m) { return m.value("id", Json()) == 1; }).first.contains("result"));
  }
  void send(const Json& msg) { session->handle_message(msg.dump()); }
  std::pair<Json, std::string> wait(const std::function<bool(const Json&)>& match) {
    std::unique_lock lock(mu);
    std::pair<Json, std::string> found;
    cv.wait_for(lock, std::chrono::seconds(20), [&] {
      for (auto& s : sent)
        if (match(s.first)) return (found = s), true;
      return false;
    });
    return found;
  }
  Json call(int id, const std::string& tool, const Json& args) {
    send({{"jsonrpc", "2.0"}, {"id", id}, {"method", "tools/call"}, {"params", {{"name", tool}, {"arguments", args}}}});
    return Json(id);
  }
  Json response(const Json& id) {
    return wait([&](const Json& m) { return m.value("id", Json()) == id && !m.contains("method"); }).first;
  }
};

// One stateless request, answered by a session made for it (as the HTTP route does).
Json stateless(const std::shared_ptr<McpShared>& shared, const Json& caps, const std::string& method, Json params) {
  params["_meta"] = {{"io.modelcontextprotocol/protocolVersion", kMcpStatelessVersion},
                     {"io.modelcontextprotocol/clientCapabilities", caps}};
  McpRequestHeaders h;
  h.protocol_version = kMcpStatelessVersion;
  h.method = method;
  for (const char* field : {"name", "uri", "taskId"})
    if (params.contains(field)) h.name = params[field].get<std::string>();
  std::mutex mu;
  Json answer;
  auto session = McpSession::stateless(
      registry(), workspace(), fixtures(shared),
      [&](const std::string& line, const std::string&) {
        Json m = Json::parse(line);
        std::lock_guard lock(mu);
        if (m.contains("id") && !m.contains("method")) answer = m;
      },
      h);
  session->handle_message(Json{{"jsonrpc", "2.0"}, {"id", 5}, {"method", method}, {"params", params}}.dump());
  session->drain();
  return answer;
}

std::string first_text(const Json& result) { return result["content"][0].value("text", ""); }

const Json kAccept = {{"action", "accept"}};

}  // namespace

TEST(McpClientChannel, ASessionAsksOnTheCallsStreamAndWaitsForTheAnswer) {
  SessionHarness h({{"sampling", Json::object()}, {"elicitation", Json::object()}});
  Json id = h.call(2, "test_sampling", {{"prompt", "Hi there"}});
  auto [ask, key] = h.wait([](const Json& m) { return m.value("method", "") == "sampling/createMessage"; });
  EXPECT_EQ(key, McpSession::request_key(id)) << "the question travels with the call (its SSE stream)";
  EXPECT_EQ(ask["params"]["messages"][0]["content"]["text"], "Hi there");
  EXPECT_EQ(ask["params"]["maxTokens"], 100);
  h.send({{"jsonrpc", "2.0"},
          {"id", ask["id"]},
          {"result", {{"role", "assistant"}, {"content", {{"type", "text"}, {"text", "Hello"}}}, {"model", "m"}}}});
  EXPECT_EQ(first_text(h.response(id)["result"]), "LLM response: Hello");

  Json second = h.call(3, "test_elicitation", {{"message", "Who are you?"}});
  auto [elicit, _] = h.wait([](const Json& m) { return m.value("method", "") == "elicitation/create"; });
  h.send({{"jsonrpc", "2.0"}, {"id", elicit["id"]}, {"error", {{"code", -32603}, {"message", "the user closed it"}}}});
  EXPECT_NE(first_text(h.response(second)["result"]).find("the user closed it"), std::string::npos);
}

TEST(McpClientChannel, ASessionWithoutTheCapabilityAsksNothing) {
  SessionHarness h(Json::object());
  Json r = h.response(h.call(2, "test_sampling", {{"prompt", "Hi"}}));
  EXPECT_EQ(r["result"]["isError"], true);
  EXPECT_NE(first_text(r["result"]).find("does not support sampling"), std::string::npos) << r.dump();
  for (auto& [m, key] : h.sent) EXPECT_NE(m.value("method", ""), "sampling/createMessage");
}

TEST(McpClientChannel, AStatelessCallAsksInRoundsCarryingASealedState) {
  auto shared = make_mcp_shared();
  const Json caps = {{"elicitation", Json::object()}};
  const Json call = {{"name", "test_input_required_result_multi_round"}, {"arguments", Json::object()}};
  Json r1 = stateless(shared, caps, "tools/call", call)["result"];
  ASSERT_EQ(r1["resultType"], "input_required") << r1.dump();
  ASSERT_TRUE(r1["inputRequests"].contains("step1"));
  Json round2 = call;
  round2["inputResponses"] = {{"step1", {{"action", "accept"}, {"content", {{"name", "Alice"}}}}}};
  round2["requestState"] = r1["requestState"];
  Json r2 = stateless(shared, caps, "tools/call", round2)["result"];
  ASSERT_EQ(r2["resultType"], "input_required") << r2.dump();
  ASSERT_TRUE(r2["inputRequests"].contains("step2"));
  EXPECT_NE(r2["requestState"], r1["requestState"]);
  Json round3 = call;
  round3["inputResponses"] = {{"step2", {{"action", "accept"}, {"content", {{"color", "blue"}}}}}};
  round3["requestState"] = r2["requestState"];
  Json r3 = stateless(shared, caps, "tools/call", round3)["result"];
  EXPECT_EQ(r3["resultType"], "complete");
  EXPECT_EQ(first_text(r3), "Multi-round complete for Alice who likes blue");
  // A state sealed by another server (another key) is refused.
  Json e = stateless(make_mcp_shared(), caps, "tools/call", round3);
  EXPECT_EQ(e["error"]["code"], -32602);
  EXPECT_EQ(e["error"]["message"], "requestState integrity check failed");
}

TEST(McpClientChannel, AStatelessCallNeedingAnUndeclaredCapabilityIsMinus32021) {
  auto shared = make_mcp_shared();
  Json e = stateless(shared, Json::object(), "tools/call", {{"name", "test_missing_capability"}});
  EXPECT_EQ(e["error"]["code"], -32021) << e.dump();
  EXPECT_EQ(e["error"]["data"]["requiredCapabilities"], Json({{"sampling", Json::object()}}));
  EXPECT_EQ(mcp_http_status(e), 400);
  // Declared: the question goes out as an inputRequest.
  Json r = stateless(shared, {{"sampling", Json::object()}}, "tools/call", {{"name", "test_missing_capability"}});
  EXPECT_EQ(r["result"]["inputRequests"].begin().value()["method"], "sampling/createMessage") << r.dump();
}

TEST(McpClientChannel, ATaskWaitsInInputRequiredForTasksUpdate) {
  auto shared = make_mcp_shared();
  const Json caps = {{"elicitation", Json::object()},
                     {"extensions", {{"io.modelcontextprotocol/tasks", Json::object()}}}};
  Json created =
      stateless(shared, caps, "tools/call", {{"name", "confirm_delete"}, {"arguments", {{"filename", "a.txt"}}}});
  ASSERT_EQ(created["result"]["resultType"], "task") << created.dump();
  const std::string task = created["result"]["taskId"];
  auto poll = [&](const std::string& status) {
    Json t;
    for (int i = 0; i < 100; ++i, std::this_thread::sleep_for(std::chrono::milliseconds(50)))
      if ((t = stateless(shared, caps, "tasks/get", {{"taskId", task}})["result"])["status"] == status) break;
    return t;
  };
  Json parked = poll("input_required");
  ASSERT_EQ(parked["status"], "input_required") << parked.dump();
  EXPECT_EQ(parked["inputRequests"]["confirm"]["method"], "elicitation/create");
  Json ack = stateless(
      shared, caps, "tasks/update",
      {{"taskId", task}, {"inputResponses", {{"confirm", {{"action", "accept"}, {"content", {{"confirm", true}}}}}}}});
  EXPECT_EQ(ack["result"]["resultType"], "complete");
  Json done = poll("completed");
  EXPECT_EQ(first_text(done["result"]), "Deleted a.txt") << done.dump();
  EXPECT_EQ(stateless(shared, Json::object(), "tasks/get", {{"taskId", task}})["error"]["code"], -32021);
  EXPECT_EQ(stateless(shared, caps, "tasks/get", {{"taskId", "no-such-task"}})["error"]["code"], -32602);
}

namespace {

// A channel that answers from a script, for the conveniences.
struct ScriptedChannel : ClientChannel {
  Json answer;
  bool sampling = true;
  std::vector<ClientQuestion> asked;
  bool supports(ClientAsk ask) const override { return ask != ClientAsk::kSampling || sampling; }
  std::vector<Result<Json>> ask_all(const std::vector<ClientQuestion>& questions) override {
    std::vector<Result<Json>> out;
    for (auto& q : questions) {
      asked.push_back(q);
      out.emplace_back(supports(q.ask) ? Result<Json>(answer) : Result<Json>(client_unsupported(q.ask)));
    }
    return out;
  }
};

}  // namespace

TEST(McpClientChannel, TheConveniencesToolsUse) {
  ToolContext ctx;
  auto none = client_completion(ctx, "", "hi", 10);
  ASSERT_FALSE(none);
  EXPECT_EQ(none.status().code(), ErrorCode::kUnsupported) << "no client: unsupported";
  auto channel = std::make_shared<ScriptedChannel>();
  ctx.set_client(channel);
  channel->answer = {
      {"role", "assistant"},
      {"model", "m"},
      {"content", {{{"type", "text"}, {"text", "a"}}, {{"type", "image"}}, {{"type", "text"}, {"text", "b"}}}}};
  EXPECT_EQ(*client_completion(ctx, "be brief", "hi", 10), "ab");
  EXPECT_EQ(channel->asked.back().params["systemPrompt"], "be brief");
  EXPECT_EQ(channel->asked.back().params["maxTokens"], 10);
  channel->answer = {{"action", "decline"}};
  EXPECT_EQ((*client_form(ctx, "Run it?", {{"type", "object"}}))["action"], "decline");
  channel->answer = {{"nothing", true}};
  EXPECT_EQ(client_form(ctx, "Run it?", {{"type", "object"}}).status().code(), ErrorCode::kUnavailable);
  channel->sampling = false;
  auto refused = client_completion(ctx, "", "hi", 10);
  EXPECT_EQ(refused.status().details()["client_capability"], "sampling");
  EXPECT_FALSE(is_input_required(refused.status()));
  EXPECT_TRUE(is_input_required(input_required_status()));
}
