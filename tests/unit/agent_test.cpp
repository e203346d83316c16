// The agent loops against a scripted OpenAI-compatible server: tool call then
// answer, parallel and streamed tool calls, malformed arguments, max_turns,
// budget, TaijiChat's protocol, the seed 001 action loop in each output form;
// the action parser; the offline agent.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "bioagent/agent.h"
#include "replay_server.h"
#include "test_util.h"

using namespace bioagent;
using bioagent::testing::ReplayServer;
using bioagent::testing::TempDir;

namespace {

class Agents : public ::testing::Test {
 protected:
  void SetUp() override {
    register_builtin_types(reg_);
    ASSERT_TRUE(reg_.load_builtin().is_ok());
    ctx_.set_option("cache_dir", (dir_.path() / "cache").string());
    ctx_.set_option("papers_db", (dir_.path() / "papers.duckdb").string());
    ctx_.set_option("offline", "1");
    opts_.trajectory_dir = (dir_.path() / "trajectories").string();
    opts_.tools = {"calculate_expr"};
  }
  std::unique_ptr<LlmClient> client(const ReplayServer& s) {
    ModelConfig m;
    m.name = "scripted";
    m.base_url = s.url("/v1");
    m.model = "scripted-model";
    m.prompt_price_per_1k = 1;
    m.timeout_seconds = 10;
    auto c = LlmClient::create(m);
    EXPECT_TRUE(c.is_ok());
    return std::move(c).value();
  }
  static std::string call(const std::string& id, const std::string& name, const std::string& args) {
    return Json{{"id", id}, {"type", "function"}, {"function", {{"name", name}, {"arguments", args}}}}.dump();
  }
  static size_t lines(const std::string& path) {
    std::ifstream in(path);
    size_t n = 0;
    for (std::string l; std::getline(in, l);) {
      EXPECT_FALSE(Json::parse(l, nullptr, false).is_discarded()) << "each trajectory line is JSON";
      ++n;
    }
    return n;
  }
  TempDir dir_;
  ToolRegistry reg_;
  ToolContext ctx_;
  AgentOptions opts_;
};

}  // namespace

TEST_F(Agents, ToolBackedAnswersHaveTheirCitationsChecked) {
  const char* esearch =
      R"(<?xml version="1.0"?><eSearchResult><Count>1</Count><RetMax>1</RetMax><IdList><Id>111</Id></IdList></eSearchResult>)";
  const char* efetch = R"(<?xml version="1.0"?><PubmedArticleSet>
<PubmedArticle><MedlineCitation><PMID>111</PMID><Article><Journal><JournalIssue><PubDate><Year>2022</Year></PubDate></JournalIssue><Title>Plant Cell</Title></Journal>
<ArticleTitle>The SPL gene family of litchi.</ArticleTitle><Abstract><AbstractText>Litchi has 24 SPL genes that control flowering.</AbstractText></Abstract>
<AuthorList><Author><LastName>Chen</LastName><ForeName>Wei</ForeName></Author></AuthorList></Article></MedlineCitation></PubmedArticle></PubmedArticleSet>)";
  ReplayServer web(std::string("[") + R"({"path": "/eutils/esearch.fcgi", "body": )" + Json(esearch).dump() + "}," +
                   R"({"path": "/eutils/efetch.fcgi", "body": )" + Json(efetch).dump() + "}]");
  ASSERT_TRUE(web.ok());
  ReplayServer s(R"({"script": [
    {"message": {"content": null, "tool_calls": [)" +
                     call("c1", "pubmed_search", R"({"query": "litchi SPL", "max_results": 1})") + R"(]},
     "finish_reason": "tool_calls"},
    {"message": {"content": "Litchi has 24 SPL genes [1]. They number 57 in longan [1]. A second study agrees [4]."}}]})",
                 "scripted_llm.py");
  ASSERT_TRUE(s.ok());
  ctx_.set_option("offline", "0");
  ctx_.set_option("allow_private_urls", "1");
  ctx_.set_option("base_url.pubmed", web.url("/eutils"));
  opts_.tools = {"pubmed_search"};
  auto llm = client(s);
  Budget budget;
  auto r = run_function_loop("How many SPL genes does litchi have?", reg_, ctx_, *llm, budget, opts_);
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  EXPECT_NE(r->answer.find("Litchi has 24 SPL genes [1].\n"), std::string::npos) << r->answer;
  EXPECT_NE(r->answer.find("57 in longan [1]. [unverified: number '57'"), std::string::npos) << r->answer;
  EXPECT_NE(r->answer.find("agrees [4]. [unverified: cites [4]"), std::string::npos) << r->answer;
  EXPECT_NE(r->note.find("2 sentence(s) marked"), std::string::npos) << r->note;
}

TEST_F(Agents, ToolCallThenAnswer) {
  ReplayServer s(R"({"script": [
    {"message": {"content": null, "tool_calls": [)" +
                     call("c1", "calculate_expr", R"({"expr": "6*7"})") + R"(]},
     "finish_reason": "tool_calls"},
    {"expect": ["\"tool_call_id\":\"c1\"", "42"], "message": {"content": "It is 42."}}]})",
                 "scripted_llm.py");
  ASSERT_TRUE(s.ok());
  auto llm = client(s);
  Budget budget;
  auto r = run_function_loop("What is 6 times 7?", reg_, ctx_, *llm, budget, opts_);
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  EXPECT_EQ(r->answer, "It is 42.");
  EXPECT_EQ(r->stop_reason, StopReason::kAnswer);
  EXPECT_EQ(r->budget["tool_calls"], 1);
  EXPECT_EQ(r->budget["prompt_tokens"], 200);
  EXPECT_GT(lines(r->trajectory_path), 4u);
  EXPECT_NE(r->render().find("tokens 240"), std::string::npos) << r->render();
}

TEST_F(Agents, ParallelAndStreamedToolCalls) {
  // two calls in one message, then a streamed call whose arguments arrive in pieces
  ReplayServer s(R"({"script": [
    {"message": {"content": null, "tool_calls": [)" +
                     call("a", "calculate_expr", R"({"expr": "1+1"})") + "," +
                     call("b", "calculate_expr", R"({"expr": "2**10"})") + R"(]}},
    {"expect": ["\"tool_call_id\":\"a\"", "\"tool_call_id\":\"b\"", "1024"],
     "stream": [{"tool_calls": [{"index": 0, "id": "s1", "function": {"name": "calculate_expr", "arguments": "{\"ex"}}]},
                {"tool_calls": [{"index": 0, "function": {"arguments": "pr\": \"sqrt("}}]},
                {"tool_calls": [{"index": 0, "function": {"arguments": "81)\"}"}}]}]},
    {"expect": ["\"tool_call_id\":\"s1\"", "9"], "stream": [{"content": "2, 1024 "}, {"content": "and 9."}]}]})",
                 "scripted_llm.py");
  ASSERT_TRUE(s.ok());
  auto llm = client(s);
  Budget budget;
  std::string streamed;
  opts_.stream = true;
  opts_.on_event = [&](const Json& e) {
    if (e["type"] == "delta") streamed += e["text"].get<std::string>();
  };
  auto r = run_function_loop("compute things", reg_, ctx_, *llm, budget, opts_);
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  EXPECT_EQ(r->answer, "2, 1024 and 9.");
  EXPECT_EQ(streamed, "2, 1024 and 9.");
  EXPECT_EQ(r->budget["tool_calls"], 3);
}

TEST_F(Agents, MalformedArgumentsAreFedBack) {
  ReplayServer s(R"({"script": [
    {"message": {"content": null, "tool_calls": [)" +
                     call("x", "calculate_expr", "{expr: 1+}") + "," + call("y", "no_such_tool", "{}") + R"(]}},
    {"expect": ["not a valid JSON object", "no tool named"],
     "message": {"content": null, "tool_calls": [)" +
                     call("z", "calculate_expr", R"({"expr": "1/0"})") + R"(]}},
    {"expect": ["error:"], "message": {"content": "Division by zero is undefined."}}]})",
                 "scripted_llm.py");
  ASSERT_TRUE(s.ok());
  auto llm = client(s);
  Budget budget;
  auto r = run_function_loop("1/0?", reg_, ctx_, *llm, budget, opts_);
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  EXPECT_EQ(r->answer, "Division by zero is undefined.");
}

TEST_F(Agents, MaxTurnsAndBudgetStopCleanly) {
  std::string forever = R"({"repeat_last": true, "script": [
    {"message": {"content": null, "tool_calls": [)" +
                        call("c", "calculate_expr", R"({"expr": "1"})") + R"(]}}]})";
  {
    ReplayServer s(forever, "scripted_llm.py");
    ASSERT_TRUE(s.ok());
    auto llm = client(s);
    Budget budget;
    opts_.max_turns = 3;
    auto r = run_function_loop("loop", reg_, ctx_, *llm, budget, opts_);
    ASSERT_TRUE(r.is_ok());
    EXPECT_EQ(r->stop_reason, StopReason::kMaxTurns);
    EXPECT_NE(r->answer.find("max_turns"), std::string::npos);
    EXPECT_EQ(r->budget["tool_calls"], 3);
  }
  {
    ReplayServer s(forever, "scripted_llm.py");
    auto llm = client(s);
    Budget budget({.max_tokens = 300});  // each scripted turn costs 120 tokens
    opts_.max_turns = 50;
    auto r = run_function_loop("loop", reg_, ctx_, *llm, budget, opts_);
    ASSERT_TRUE(r.is_ok());
    EXPECT_EQ(r->stop_reason, StopReason::kBudget);
    EXPECT_NE(r->note.find("token cap"), std::string::npos) << r->note;
    EXPECT_EQ(r->budget["prompt_tokens"], 300);
  }
}

TEST_F(Agents, TaijiChatProtocol) {
  ReplayServer s(R"({"script": [
    {"expect": ["CODE_COMPLETE", "potential literature leads"], "message": {"content": "{\"status\": \"AWAITING_DATA\"}"}},
    {"expect": ["without calling a tool"],
     "message": {"content": null, "tool_calls": [)" +
                     call("t", "calculate_expr", R"({"expr": "3*3"})") + R"(]}},
    {"expect": ["intermediate_data_for_llm"],
     "message": {"content": "{\"status\": \"CODE_COMPLETE\", \"explanation\": \"Nine.\"}"}}]})",
                 "scripted_llm.py");
  ASSERT_TRUE(s.ok());
  auto llm = client(s);
  Budget budget;
  opts_.taijichat_protocol = true;
  auto r = run_function_loop("3*3?", reg_, ctx_, *llm, budget, opts_);
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  EXPECT_EQ(r->answer, "Nine.");
}

TEST_F(Agents, ActionLoopInEveryOutputForm) {
  // json, fenced, xml and call forms; an unparsable reply; a wrongly formatted answer corrected
  ReplayServer s(R"JS({"script": [
    {"expect": ["## RetrieveFromDatabase", "## GenerateAnswer", "Use cases:", "Answer format: int"],
     "message": {"content": "{\"action_type\": \"CalculateExpr\", \"parameters\": {\"expr\": \"40+2\"}}"}},
    {"expect": ["[Observation]", "42"], "message": {"content": "I will compute.\n```json\n{\"action_type\": \"calculateexpr\", \"parameters\": {\"expr\": \"2*3\",}}\n```"}},
    {"message": {"content": "<action>CalculateExpr</action><parameters>{\"expr\": \"7-1\"}</parameters>"}},
    {"message": {"content": "CalculateExpr(expr='10/5')"}},
    {"message": {"content": "I think the answer is forty-two"}},
    {"expect": ["[Error]"], "message": {"content": "{\"action_type\": \"GenerateAnswer\", \"parameters\": {\"answer\": \"forty-two\"}}"}},
    {"expect": ["must be an integer"], "message": {"content": "{\"action_type\": \"GenerateAnswer\", \"parameters\": {\"answer\": \"42\"}}"}}
  ]})JS",
                 "scripted_llm.py");
  ASSERT_TRUE(s.ok());
  auto llm = client(s);
  Budget budget;
  opts_.tools = {};
  opts_.answer_format = "int";
  opts_.max_turns = 20;
  std::vector<std::string> forms;
  opts_.on_event = [&](const Json& e) {
    if (e["type"] == "action") forms.push_back(e["form"]);
  };
  auto r = run_action_loop("What is 40 + 2?", reg_, ctx_, *llm, budget, opts_);
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  EXPECT_EQ(r->stop_reason, StopReason::kAnswer);
  EXPECT_EQ(r->answer_value, 42);
  EXPECT_EQ(forms, (std::vector<std::string>{"json", "fenced", "xml", "call"}));
}

TEST(ActionParser, FormsRepairsAndErrors) {
  std::vector<std::string> names = {"RetrieveFromDatabase", "GenerateAnswer", "CalculateExpr"};
  auto p = parse_action(R"({"action": "RetrieveFromDatabase", "args": {"sql": "SELECT 1"}})", names);
  ASSERT_TRUE(p.is_ok());
  EXPECT_EQ(p->parameters["sql"], "SELECT 1");
  p = parse_action(R"({"GenerateAnswer": {"answer": ["Results", "Discussion"]}})", names);
  ASSERT_TRUE(p.is_ok());
  EXPECT_EQ(p->parameters["answer"].size(), 2u);
  p = parse_action(R"({"action_type": "GenerateAnswer", "answer": 3})", names);  // flat parameters
  ASSERT_TRUE(p.is_ok());
  EXPECT_EQ(p->parameters["answer"], 3);
  p = parse_action("{'action_type': 'GenerateAnswer', 'parameters': {'answer': True}}", names);
  ASSERT_TRUE(p.is_ok()) << p.status().to_string();
  EXPECT_TRUE(p->repaired);
  EXPECT_EQ(p->parameters["answer"], true);
  p = parse_action("Thought: done.\nGenerateAnswer(answer=[1, 2], )", names);
  ASSERT_TRUE(p.is_ok()) << p.status().to_string();
  EXPECT_EQ(p->form, "call");
  EXPECT_EQ(p->parameters["answer"], Json::array({1, 2}));
  EXPECT_EQ(parse_action("", names).status().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(parse_action(R"({"action_type": "DropTables"})", names).status().message().find("unknown action"),
            std::string::npos);
  EXPECT_FALSE(parse_action("I don't know", names).is_ok());
  EXPECT_FALSE(parse_action("<action>GenerateAnswer</action><parameters>[1]</parameters>", names).is_ok());
  EXPECT_FALSE(parse_action(std::string(100000, '{'), names).is_ok()) << "unbalanced input ends";
}

TEST_F(Agents, OfflineAgentIsHonest) {
  auto calc = run_offline_agent("what is 2^10 + 3*7?", reg_, ctx_, opts_);
  ASSERT_TRUE(calc.is_ok()) << calc.status().to_string();
  EXPECT_NE(calc->answer.find("1045"), std::string::npos) << calc->answer;
  EXPECT_NE(calc->note.find("No language model"), std::string::npos);
  // Digits joined to a name are identifiers, never arithmetic: an allele, a protein, a genomic interval, a locus,
  // each written before, inside and after other words.
  for (const char* id : {"dana1-2", "Hsc70-4", "chr5A:35277942-35282999", "AT4G14540-AT4G14548", "IL-6/2"})
    for (const char* frame : {"Which line carries %s?", "%s", "is %s up-regulated (p<0.05)?"}) {
      char q[200];
      std::snprintf(q, sizeof q, frame, id);
      auto r = run_offline_agent(q, reg_, ctx_, opts_);
      ASSERT_TRUE(r.is_ok()) << q;
      EXPECT_EQ(r->answer.find(" = "), std::string::npos) << q << ": " << r->answer;
    }
  auto nothing = run_offline_agent("Which SPL genes respond to miR156?", reg_, ctx_, opts_);
  ASSERT_TRUE(nothing.is_ok()) << nothing.status().to_string();
  EXPECT_NE(nothing->answer.find("Nothing relevant was found"), std::string::npos) << nothing->answer;
  EXPECT_TRUE(nothing->sources.empty());
  EXPECT_EQ(nothing->model, "none");
  EXPECT_GT(lines(nothing->trajectory_path), 1u);
}

namespace {

TEST(CitationCheck, InventedCitationsNumbersNamesAndQuotesAreCaught) {
  std::map<int, std::string> sources = {
      {1, "Arabidopsis thaliana has 16 SPL genes; miR156 targets SPL3 and SPL9."},
      {2, "In rice, OsSPL14 (also called IPA1) shapes an \"ideal plant architecture\"."}};
  std::string answer =
      "Arabidopsis has 16 SPL genes [1]. miR156 targets SPL3 [1]. OsSPL14 gives an \"ideal plant architecture\" "
      "[2].\n"
      "Tomato has 42 SPL genes [1]. SPL15 controls flowering [1]. OsSPL14 gives \"the best yield\" [2]. "
      "Rice has 19 SPL genes [5]. Maize has 31 SPL genes.\n"
      "Here is what the sources say.";
  CitationCheck c = check_citations(answer, sources);
  EXPECT_EQ(c.removed, 5) << c.to_json().dump(1);
  EXPECT_NE(c.text.find("16 SPL genes [1]"), std::string::npos) << c.text;
  EXPECT_NE(c.text.find("miR156 targets SPL3"), std::string::npos) << c.text;
  EXPECT_NE(c.text.find("ideal plant architecture"), std::string::npos) << c.text;
  EXPECT_NE(c.text.find("Here is what the sources say."), std::string::npos) << "a sentence without facts stays";
  for (const char* gone : {"42", "SPL15", "best yield", "[5]", "Maize"})
    EXPECT_EQ(c.text.find(gone), std::string::npos) << gone << " in " << c.text;
  std::string why = c.to_json().dump();
  EXPECT_NE(why.find("number '42' is in none of the cited sources"), std::string::npos) << why;
  EXPECT_NE(why.find("gene name 'SPL15'"), std::string::npos) << why;
  EXPECT_NE(why.find("quoted phrase 'the best yield'"), std::string::npos) << why;
  EXPECT_NE(why.find("cites [5], which is no source in the context"), std::string::npos) << why;
  EXPECT_NE(why.find("without citing a source"), std::string::npos) << why;
}

TEST(CitationCheck, ChineseSentencesAndCitationRanges) {
  std::map<int, std::string> sources = {{1, "拟南芥有 16 个 SPL 基因"}, {2, "水稻有 19 个 SPL 基因"}};
  CitationCheck c = check_citations("拟南芥有 16 个 SPL 基因 [1]。水稻有 19 个 [1-2]。番茄有 30 个 [2]。", sources);
  EXPECT_EQ(c.removed, 1) << c.to_json().dump(1);
  EXPECT_EQ(c.text.find("番茄"), std::string::npos) << c.text;
  EXPECT_NE(c.text.find("水稻有 19 个"), std::string::npos) << c.text;
}

}  // namespace

namespace {

TEST(StopReasons, AreAnEnumWithNames) {
  for (StopReason r : {StopReason::kAnswer, StopReason::kMaxTurns, StopReason::kBudget, StopReason::kError}) {
    auto back = stop_reason_from_string(to_string(r));
    ASSERT_TRUE(back.is_ok()) << to_string(r);
    EXPECT_EQ(*back, r);
  }
  EXPECT_EQ(to_string(StopReason::kMaxTurns), "max_turns");
  EXPECT_FALSE(stop_reason_from_string("").is_ok());
  EXPECT_FALSE(stop_reason_from_string("gave up").is_ok());
}

}  // namespace
