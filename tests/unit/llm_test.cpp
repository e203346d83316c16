// The LLM layer: model catalog, SSE assembly, the client against a scripted
// OpenAI-compatible server (errors, retries, streaming), and the budget.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "bioagent/budget.h"
#include "bioagent/llm.h"
#include "replay_server.h"
#include "test_util.h"

using namespace bioagent;
using bioagent::testing::ReplayServer;
using bioagent::testing::TempDir;

namespace {

ModelConfig model_at(const ReplayServer& s, const std::string& key = "") {
  ModelConfig m;
  m.name = "scripted";
  m.base_url = s.url("/v1");
  m.model = "scripted-model";
  m.api_key = key;
  m.api_key_env = "TEST_KEY";
  m.prompt_price_per_1k = 0.5;
  m.completion_price_per_1k = 1.5;
  m.timeout_seconds = 10;
  return m;
}

std::vector<Json> requests(const ReplayServer& s) {
  std::vector<Json> out;
  std::ifstream in(s.log_path());
  for (std::string line; std::getline(in, line);) out.push_back(Json::parse(line));
  return out;
}

}  // namespace

TEST(ModelCatalog, ParsesAndProtectsKeys) {
  Json doc = {{"default", "b"},
              {"models",
               {{{"name", "a"}, {"base_url", "http://x/v1"}, {"api_key_env", "BIOAGENT_TEST_NO_SUCH_VAR"}},
                {{"name", "b"}, {"base_url", "http://y/v1"}, {"model", "m-b"}, {"prompt_price_per_1k", 1.0}}}}};
  auto c = parse_model_catalog(doc, false);
  ASSERT_TRUE(c.is_ok()) << c.status().to_string();
  EXPECT_EQ(c->get("")->name, "b");
  EXPECT_EQ(c->get("a")->model, "a");
  EXPECT_EQ(c->get("zzz").status().code(), ErrorCode::kNotFound);
  Json with_key = {{"models", {{{"name", "k"}, {"base_url", "http://z/v1"}, {"api_key", "sk-secret"}}}}};
  auto refused = parse_model_catalog(with_key, /*file_is_private=*/false);
  EXPECT_EQ(refused.status().code(), ErrorCode::kPermissionDenied);
  auto ok = parse_model_catalog(with_key, true);
  ASSERT_TRUE(ok.is_ok());
  std::string shown = ok->models[0].to_public_json().dump();
  EXPECT_EQ(shown.find("sk-secret"), std::string::npos) << "the key is never shown";
  EXPECT_EQ(parse_model_catalog(Json::array(), true).status().code(), ErrorCode::kParseError);
  EXPECT_EQ(ModelCatalog{}.get("").status().code(), ErrorCode::kUnavailable);
}

TEST(ModelCatalog, LoadsAPrivateFileAndRefusesAReadableOne) {
  TempDir dir;
  auto path = dir.write("models.json", R"({"models": [{"name": "m", "base_url": "http://h/v1", "api_key": "k"}]})");
  ::chmod(path.c_str(), 0644);
  setenv("BIOAGENT_MODELS_FILE", path.c_str(), 1);
  EXPECT_EQ(load_model_catalog().status().code(), ErrorCode::kPermissionDenied);
  ::chmod(path.c_str(), 0600);
  auto c = load_model_catalog();
  ASSERT_TRUE(c.is_ok()) << c.status().to_string();
  EXPECT_EQ(c->get("m")->api_key, "k");
  unsetenv("BIOAGENT_MODELS_FILE");
}

TEST(LlmStream, AssemblesTextAndSplitToolArguments) {
  std::string sse =
      ": keep-alive\n\n"
      "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"Hel\"}}]}\n\n"
      "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"lo\"}}]}\n\n"
      "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"c1\",\"function\":{\"name\":"
      "\"calc\",\"arguments\":\"{\\\"ex\"}}]}}]}\n\n"
      "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":1,\"id\":\"c2\",\"function\":{\"name\":"
      "\"other\",\"arguments\":\"{}\"}}]}}]}\n\n"
      "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":"
      "\"pr\\\": \\\"1+1\\\"}\"}}]}}]}\n\n"
      "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\n"
      "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":11,\"completion_tokens\":7}}\n\n"
      "data: [DONE]\n\n";
  std::string seen;
  int tool_pieces = 0;
  auto r = assemble_stream(sse, [&](const StreamDelta& d) {
    seen += d.content;
    if (d.tool_index >= 0) ++tool_pieces;
  });
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  EXPECT_EQ(seen, "Hello");
  EXPECT_EQ(tool_pieces, 3);
  ASSERT_EQ(r->message.tool_calls.size(), 2u);
  EXPECT_EQ(r->message.tool_calls[0].name, "calc");
  EXPECT_EQ(Json::parse(r->message.tool_calls[0].arguments)["expr"], "1+1");
  EXPECT_EQ(r->message.tool_calls[1].id, "c2");
  EXPECT_EQ(r->finish_reason, "tool_calls");
  EXPECT_EQ(r->usage.prompt_tokens, 11);
  EXPECT_EQ(assemble_stream("data: {not json\n\n", nullptr).status().code(), ErrorCode::kParseError);
  EXPECT_EQ(assemble_stream("", nullptr).status().code(), ErrorCode::kParseError);
  EXPECT_FALSE(assemble_stream("data: {\"error\":{\"message\":\"overloaded\"}}\n\n", nullptr).is_ok());
  // Fields of the wrong type (found by the fuzzer) are ignored, not thrown on.
  auto odd = assemble_stream(
      "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":{\"name\":\"f\"},\"id\":7}]}}],"
      "\"usage\":{\"prompt_tokens\":\"many\"},\"model\":3}\n\n",
      nullptr);
  EXPECT_TRUE(odd.is_ok()) << odd.status().to_string();
  auto odd_json = parse_chat_response(Json::parse(
      R"({"choices":[{"message":{"content":null,"tool_calls":[{"id":1,"function":{"name":2,"arguments":{}}}]},"finish_reason":5}],"usage":[]})"));
  EXPECT_TRUE(odd_json.is_ok());
}

TEST(LlmClient, ChatToolsAuthAndStreaming) {
  ReplayServer s(R"({"script": [
      {"expect": ["\"tools\"", "\"tool_choice\":\"auto\"", "calc"],
       "message": {"content": null, "tool_calls": [{"id": "c1", "type": "function",
                   "function": {"name": "calc", "arguments": "{\"expr\": \"2+2\"}"}}]},
       "finish_reason": "tool_calls", "usage": {"prompt_tokens": 1000, "completion_tokens": 100}},
      {"stream": [{"content": "The answer "}, {"content": "is 4."}]}
  ]})",
                 "scripted_llm.py");
  ASSERT_TRUE(s.ok());
  auto c = LlmClient::create(model_at(s, "sk-test"));
  ASSERT_TRUE(c.is_ok());
  ChatRequest req;
  req.messages = {ChatMessage::system("be brief"), ChatMessage::user("2+2?")};
  req.tools =
      Json::array({{{"type", "function"}, {"function", {{"name", "calc"}, {"parameters", {{"type", "object"}}}}}}});
  req.tool_choice = "auto";
  auto r = (*c)->chat(req);
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  ASSERT_EQ(r->message.tool_calls.size(), 1u);
  EXPECT_EQ(r->usage.prompt_tokens, 1000);
  std::string streamed;
  auto r2 = (*c)->chat(req, [&](const StreamDelta& d) { streamed += d.content; });
  ASSERT_TRUE(r2.is_ok()) << r2.status().to_string();
  EXPECT_EQ(streamed, "The answer is 4.");
  EXPECT_EQ(r2->message.text(), "The answer is 4.");
  auto log = requests(s);
  ASSERT_EQ(log.size(), 2u);
  EXPECT_EQ(log[0]["auth"], "Bearer sk-test");
  EXPECT_EQ(log[1]["body"]["stream"], true);
}

TEST(LlmClient, RetriesA429AndNamesOtherErrors) {
  ReplayServer s(R"({"script": [
      {"status": 429, "headers": {"Retry-After": "0"}},
      {"message": {"content": "fine after a retry"}},
      {"status": 401, "body": "{\"error\": {\"message\": \"bad key\"}}"},
      {"status": 404, "body": "{\"error\": {\"message\": \"model not found\"}}"},
      {"status": 400, "body": "{\"error\": {\"message\": \"This model's maximum context length is 8192 tokens\"}}"},
      {"raw": "{\"choices\": []}"}
  ]})",
                 "scripted_llm.py");
  ASSERT_TRUE(s.ok());
  auto c = LlmClient::create(model_at(s));
  ChatRequest req;
  req.messages = {ChatMessage::user("hi")};
  auto ok = (*c)->chat(req);
  ASSERT_TRUE(ok.is_ok()) << ok.status().to_string();
  EXPECT_EQ(ok->message.text(), "fine after a retry");
  auto unauthorised = (*c)->chat(req);
  EXPECT_EQ(unauthorised.status().code(), ErrorCode::kPermissionDenied);
  EXPECT_NE(unauthorised.status().message().find("TEST_KEY"), std::string::npos) << "names the key's variable";
  EXPECT_EQ((*c)->chat(req).status().code(), ErrorCode::kNotFound);
  auto too_long = (*c)->chat(req);
  EXPECT_EQ(too_long.status().code(), ErrorCode::kResourceExhausted);
  EXPECT_NE(too_long.status().message().find("context window"), std::string::npos);
  EXPECT_EQ((*c)->chat(req).status().code(), ErrorCode::kParseError);
}

TEST(LlmClient, EmbeddingsAndImages) {
  ReplayServer s(
      R"({"script": [{"expect": ["image_url", "data:image/png;base64,iVBOR"], "message": {"content": "a chart"}}]})",
      "scripted_llm.py");
  ASSERT_TRUE(s.ok());
  auto c = LlmClient::create(model_at(s));
  auto v = (*c)->embed({"one", "two"});
  ASSERT_TRUE(v.is_ok()) << v.status().to_string();
  ASSERT_EQ(v->size(), 2u);
  EXPECT_EQ((*v)[0].size(), 8u);
  ChatRequest req;
  req.messages = {ChatMessage::user_with_image("what is shown?", "iVBORw0KGgo=")};
  auto r = (*c)->chat(req);
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  EXPECT_EQ(r->message.text(), "a chart");
}

TEST(Budget, CapsStopWithTheirName) {
  ModelConfig m;
  m.name = "m";
  m.prompt_price_per_1k = 1.0;
  m.completion_price_per_1k = 2.0;
  Budget session({.max_cost_usd = 5.0}, nullptr, "session");
  Budget run({.max_tokens = 1000, .max_tool_calls = 2}, &session);
  EXPECT_TRUE(run.check().is_ok());
  run.add_usage(m, {400, 100});
  EXPECT_TRUE(run.check().is_ok());
  run.add_tool_call();
  run.add_tool_call();
  Status s = run.check();
  EXPECT_EQ(s.code(), ErrorCode::kResourceExhausted);
  EXPECT_NE(s.message().find("tool-call"), std::string::npos);
  Budget run2({}, &session);
  run2.add_usage(m, {5000, 1000});  // $5 + $2 more: past the session's $5
  Status s2 = run2.check();
  EXPECT_NE(s2.message().find("session's cost cap"), std::string::npos) << s2.message();
  EXPECT_NEAR(session.summary()["cost_usd"].get<double>(), 0.4 + 0.2 + 5 + 2, 1e-9);
  EXPECT_NE(run.line().find("tokens 500"), std::string::npos) << run.line();
  Budget timed({.max_seconds = 0.001});
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_NE(timed.check().message().find("wall-time"), std::string::npos);
}
