// The MCP host's model and the host's user, on channels of the test's own:
// host_model_client turns the agents' chat requests into sampling requests and
// their answers back (text, tool calls, the model's name); a round that ends for
// the host's answer interrupts the client, and the assistant's turn then stores
// nothing and runs again with the answer; the run's parameter dialog as an
// elicitation form is built from the stage table and read back as the dialog's
// answer.
#include <gtest/gtest.h>

#include <map>

#include "bioagent/agent.h"
#include "bioagent/assistant.h"
#include "bioagent/client_channel.h"
#include "bioagent/genefamily.h"
#include "bioagent/llm.h"
#include "bioagent/registry.h"
#include "bioagent/workspace.h"
#include "runs/dialog_form.h"
#include "test_util.h"

using namespace bioagent;
using bioagent::testing::TempDir;

namespace {

// Answers each question from `answers` by its key; an unknown key is recorded and, when
// `replays`, answered input required (a 2026-07-28 round), else unsupported.
struct KeyedChannel : ClientChannel {
  Json caps = {{"sampling", Json::object()}, {"elicitation", Json::object()}};
  bool replay = true;
  std::map<std::string, Json> answers;
  std::vector<ClientQuestion> asked, pending;
  bool supports(ClientAsk ask) const override { return caps.contains(std::string(client_ask_capability(ask))); }
  Json capability(ClientAsk ask) const override {
    return supports(ask) ? caps[std::string(client_ask_capability(ask))] : Json();
  }
  bool replays() const override { return replay; }
  std::vector<Result<Json>> ask_all(const std::vector<ClientQuestion>& questions) override {
    std::vector<Result<Json>> out;
    for (auto& q : questions) {
      asked.push_back(q);
      auto it = answers.find(q.key);
      if (it != answers.end()) {
        out.emplace_back(it->second);
        continue;
      }
      pending.push_back(q);
      out.emplace_back(replay ? input_required_status() : Status(ErrorCode::kTimeout, "no answer"));
    }
    return out;
  }
};

Json text_answer(const std::string& model, const std::string& text) {
  return {{"role", "assistant"}, {"model", model}, {"content", {{"type", "text"}, {"text", text}}}};
}

}  // namespace

TEST(HostModel, ASamplingRequestCarriesThePromptAndItsAnswerNamesTheModel) {
  KeyedChannel c;
  EXPECT_EQ(host_model_client(c)->is_host_model(), true);
  c.caps.erase("sampling");
  EXPECT_EQ(host_model_client(c), nullptr) << "no sampling: no host model";
  c.caps["sampling"] = Json::object();
  auto llm = host_model_client(c);
  c.answers["sampling-1"] = text_answer("claude-test", "SPL proteins share the SBP domain [1].");
  ChatRequest rq;
  rq.messages = {ChatMessage::system("Answer from the evidence."), ChatMessage::user("总结下SPL基因家族")};
  rq.temperature = 0.0;
  std::string streamed;
  auto r = llm->chat(rq, [&](const StreamDelta& d) { streamed += d.content; });
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  EXPECT_EQ(r->message.text(), "SPL proteins share the SBP domain [1].");
  EXPECT_EQ(streamed, r->message.text()) << "a client that cannot stream passes the whole text";
  EXPECT_EQ(r->model, "claude-test");
  EXPECT_EQ(llm->answered_by(), "claude-test");
  const Json& p = c.asked.back().params;
  EXPECT_EQ(c.asked.back().ask, ClientAsk::kSampling);
  EXPECT_EQ(p["systemPrompt"], "Answer from the evidence.");
  EXPECT_EQ(p["messages"],
            Json::parse(R"([{"role": "user", "content": {"type": "text", "text": "总结下SPL基因家族"}}])"));
  EXPECT_EQ(p["maxTokens"], 4096) << "sampling needs a cap; the request's own when it sets one";
  EXPECT_EQ(p["temperature"], 0.0);
  rq.json_mode = true;
  rq.max_tokens = 50;
  c.answers["sampling-2"] = text_answer("claude-test", "{\"intent\": \"faq\"}");
  ASSERT_TRUE(llm->chat(rq).is_ok());
  EXPECT_NE(c.asked.back().params["systemPrompt"].get<std::string>().find("one JSON object"), std::string::npos);
  EXPECT_EQ(c.asked.back().params["maxTokens"], 50);
  c.answers["sampling-3"] = {{"role", "user"}, {"model", "x"}, {"content", {{"type", "text"}, {"text", "hi"}}}};
  EXPECT_EQ(llm->chat(rq).status().code(), ErrorCode::kUnavailable) << "an answer that is not the assistant's";
  EXPECT_EQ(llm->embed({"a"}).status().code(), ErrorCode::kUnsupported);
}

TEST(HostModel, ToolCallsNeedTheClientsSamplingToolsAndTravelAsToolUse) {
  KeyedChannel c;
  auto llm = host_model_client(c);
  ChatRequest rq;
  rq.messages = {ChatMessage::system("Use the tools."), ChatMessage::user("How many papers?")};
  rq.tools = Json::parse(R"([{"type": "function", "function": {"name": "RetrieveFromDatabase", "description": "SQL",
                              "parameters": {"type": "object", "properties": {"sql": {"type": "string"}}}}}])");
  rq.tool_choice = "auto";
  EXPECT_EQ(llm->chat(rq).status().code(), ErrorCode::kUnsupported) << "no sampling.tools declared";
  EXPECT_TRUE(c.asked.empty()) << "nothing asked";
  c.caps["sampling"] = {{"tools", Json::object()}};
  c.answers["sampling-1"] = {
      {"role", "assistant"},
      {"model", "m"},
      {"stopReason", "toolUse"},
      {"content", Json::parse(R"([{"type": "tool_use", "id": "u1", "name": "RetrieveFromDatabase",
                                   "input": {"sql": "SELECT 1"}},
                                  {"type": "tool_use", "id": "u2", "name": "RetrieveFromDatabase",
                                   "input": {"sql": "SELECT 2"}}])")}};
  auto r = llm->chat(rq);
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  ASSERT_EQ(r->message.tool_calls.size(), 2u);
  EXPECT_EQ(r->finish_reason, "tool_calls");
  EXPECT_EQ(Json::parse(r->message.tool_calls[1].arguments)["sql"], "SELECT 2");
  const Json& p = c.asked.back().params;
  EXPECT_EQ(p["tools"][0]["name"], "RetrieveFromDatabase");
  EXPECT_EQ(p["tools"][0]["inputSchema"]["properties"]["sql"]["type"], "string");
  EXPECT_EQ(p["toolChoice"]["mode"], "auto");
  // The conversation goes on: both results in one user message, after the assistant's tool uses.
  rq.messages.push_back(r->message);
  rq.messages.push_back(ChatMessage::tool("u1", "1"));
  rq.messages.push_back(ChatMessage::tool("u2", "2"));
  c.answers["sampling-2"] = text_answer("m", "Two queries ran.");
  ASSERT_TRUE(llm->chat(rq).is_ok());
  const Json& m = c.asked.back().params["messages"];
  ASSERT_EQ(m.size(), 3u) << m.dump();
  EXPECT_EQ(m[1]["role"], "assistant");
  EXPECT_EQ(m[1]["content"][1]["type"], "tool_use");
  EXPECT_EQ(m[2]["role"], "user");
  EXPECT_EQ(m[2]["content"].size(), 2u);
  EXPECT_EQ(m[2]["content"][1]["toolUseId"], "u2");
  EXPECT_EQ(m[2]["content"][1]["content"][0]["text"], "2");
}

TEST(HostModel, ARoundThatEndsForTheHostsAnswerAsksNothingMore) {
  KeyedChannel c;
  auto llm = host_model_client(c);
  ChatRequest rq;
  rq.messages = {ChatMessage::user("hi")};
  EXPECT_TRUE(is_input_required(llm->chat(rq).status()));
  EXPECT_TRUE(is_input_required(llm->interrupted()));
  EXPECT_TRUE(is_input_required(llm->chat(rq).status()));
  EXPECT_EQ(c.asked.size(), 1u) << "the second question waits for the next round, where the first is answered";
  c.replay = false;  // a client that waits: no answer in time is an error, not an interruption
  auto waiting = host_model_client(c);
  EXPECT_EQ(waiting->chat(rq).status().code(), ErrorCode::kTimeout);
  EXPECT_TRUE(waiting->interrupted().is_ok());
}

namespace {

struct AssistantEnv {
  TempDir dir;
  ToolRegistry reg;
  std::unique_ptr<Workspace> ws;
  std::unique_ptr<Assistant> a;
  AssistantEnv() {
    register_builtin_types(reg);
    EXPECT_TRUE(reg.load_builtin().is_ok());
    ws = std::make_unique<Workspace>(*Workspace::create({dir.path().string()}));
    AssistantOptions o;
    o.runs.state_dir = dir.path() / "state";
    o.runs.data_dir = dir.path() / "shared";
    o.registry = &reg;
    o.workspace = ws.get();
    o.tool_options = {{"offline", "1"}, {"papers_db", (dir.path() / "papers.duckdb").string()}};
    auto r = Assistant::open(o);
    EXPECT_TRUE(r.is_ok()) << r.status().to_string();
    a = std::move(*r);
  }
};

}  // namespace

TEST(HostModel, TheAssistantsTurnRunsAgainWithTheHostsAnswerAndIsStoredOnce) {
  AssistantEnv x;
  const std::string sid = (*x.a->create_session())["session_id"];
  KeyedChannel c;
  ChatOptions co;
  co.client = &c;
  auto first = x.a->chat(sid, "总结下SPL基因家族", nullptr, co);
  ASSERT_FALSE(first.is_ok());
  EXPECT_TRUE(is_input_required(first.status())) << first.status().to_string();
  EXPECT_TRUE((*x.a->messages(sid))["messages"].empty()) << "an interrupted turn stores nothing";
  // The host's model routes first, given the rules' reading and the sources' evidence (as a configured model
  // does); its answer comes with the replayed call, and the knowledge agent asks next.
  ASSERT_EQ(c.pending.size(), 1u);
  EXPECT_NE(c.pending[0].params.dump().find("intent"), std::string::npos) << "the routing question";
  c.answers[c.pending[0].key] = text_answer("host-model", R"({"intent": "faq", "confidence": 0.9})");
  c.pending.clear();
  auto routed = x.a->chat(sid, "总结下SPL基因家族", nullptr, co);
  ASSERT_FALSE(routed.is_ok());
  EXPECT_TRUE(is_input_required(routed.status())) << routed.status().to_string();
  EXPECT_TRUE((*x.a->messages(sid))["messages"].empty()) << "still nothing stored";
  ASSERT_EQ(c.pending.size(), 1u);
  const Json question = c.pending[0].params;
  EXPECT_NE(question["systemPrompt"].get<std::string>().find("Mark every claim with the number of the evidence"),
            std::string::npos)
      << "the knowledge agent's own prompt";
  EXPECT_NE(question["systemPrompt"].get<std::string>().find("PF03110"), std::string::npos) << "with its evidence";
  // The host answers; one sentence is invented and the citation check removes it.
  c.answers[c.pending[0].key] = text_answer(
      "host-model", "SPL 蛋白含 SBP 结构域（PF03110）[1]。番茄有 42 个 SPL 基因 [1]。拟南芥有 16 个 SPL 基因 [1]。");
  auto second = x.a->chat(sid, "总结下SPL基因家族", nullptr, co);
  ASSERT_TRUE(second.is_ok()) << second.status().to_string();
  EXPECT_EQ((*second)["model"], "host-model");
  EXPECT_EQ((*second)["model_source"], "mcp_host");
  const std::string answer = (*second)["answer"];
  EXPECT_NE(answer.find("PF03110"), std::string::npos) << answer;
  EXPECT_EQ(answer.find("42"), std::string::npos) << "the citation check ran on the host's answer: " << answer;
  EXPECT_NE(answer.find("host-model"), std::string::npos) << "the answer names the model: " << answer;
  EXPECT_EQ((*x.a->messages(sid))["messages"].size(), 2u) << "user and assistant, once";
  // Without sampling the offline agents answer; with model "none" the host is not asked.
  KeyedChannel quiet;
  quiet.caps = {{"elicitation", Json::object()}};
  co.client = &quiet;
  auto offline = x.a->chat(sid, "总结下SPL基因家族", nullptr, co);
  ASSERT_TRUE(offline.is_ok());
  EXPECT_EQ((*offline)["model"], "none");
  EXPECT_FALSE(offline->contains("model_source"));
  co.client = &c;
  co.model = "none";
  const size_t asked = c.asked.size();
  ASSERT_TRUE(x.a->chat(sid, "总结下SPL基因家族", nullptr, co).is_ok());
  EXPECT_EQ(c.asked.size(), asked);
}

TEST(DialogForm, EveryDialogFieldOfTheStageTableIsAFormFieldWithItsRangeAndDefault) {
  const Json shown = {{"stage", "identify"},
                      {"species", "Litchi chinensis"},
                      {"family", "SPL"},
                      {"prefix", "Lchi.SPL"},
                      {"cpu", 2},
                      {"evalue", 1e-5},
                      {"method", "iqtree"},
                      {"max_target_seqs", 10}};
  for (Lang lang : {Lang::kEn, Lang::kZh}) {
    DialogForm form = dialog_form(shown, 4, 30, true, lang);
    const Json& props = form.schema["properties"];
    EXPECT_EQ(props["prefix"]["enum"], Json::array({"Lchi.SPL"}));
    EXPECT_EQ(props["cpu"]["maximum"], 4);
    for (const Json& f : genefamily_pipeline().dialog_fields()) {
      const std::string key = f["key"];
      // An elicitation form holds primitive values only; a list field (comparative species) keeps the
      // dialog's value and is given by the parameters or the page.
      const std::string type = f["schema"].value("type", "");
      if (type == "array" || type == "object") {
        EXPECT_FALSE(props.contains(key)) << key;
        continue;
      }
      ASSERT_TRUE(props.contains(key)) << key;
      EXPECT_EQ(props[key]["type"], f["schema"]["type"]) << key;
      EXPECT_EQ(props[key]["title"], f[lang == Lang::kZh ? "label_zh" : "label"]) << key;
      for (const char* k : {"minimum", "maximum", "enum"})
        EXPECT_EQ(props[key].value(k, Json()), f["schema"].value(k, Json())) << key << " " << k;
      EXPECT_EQ(props[key]["default"], shown[key]) << "the value the dialog offers";
    }
    EXPECT_NE(form.message.find(lang == Lang::kZh ? "30 秒" : "30 seconds"), std::string::npos) << form.message;
    EXPECT_EQ(dialog_form(shown, 4, 30, false, lang).message.find("30"), std::string::npos)
        << "no countdown before a run exists";
  }
}

TEST(DialogForm, TheAnswerIsTheDialogsConfirmModifyOrCancel) {
  const Json shown = {
      {"prefix", "Exam.GLOBIN"}, {"cpu", 2}, {"evalue", 1e-5}, {"method", "iqtree"}, {"max_target_seqs", 10}};
  DialogForm form = dialog_form(shown, 4, 30, true, Lang::kEn);
  Json all = shown;
  EXPECT_EQ(dialog_answer({{"action", "accept"}, {"content", all}}, form)->action, "confirm");
  EXPECT_EQ(dialog_answer({{"action", "accept"}, {"content", Json::object()}}, form)->action, "confirm")
      << "an absent field keeps its value";
  // Each field changed alone is the one parameter the dialog is modified with.
  const std::map<std::string, Json> changed = {
      {"cpu", 3}, {"evalue", 1e-10}, {"method", "fasttree"}, {"max_target_seqs", 5}};
  for (auto& [key, value] : changed) {
    Json content = all;
    content[key] = value;
    auto a = dialog_answer({{"action", "accept"}, {"content", content}}, form);
    ASSERT_TRUE(a.is_ok()) << key;
    EXPECT_EQ(a->action, "modify") << key;
    EXPECT_EQ(a->params, Json({{key, value}})) << key;
    auto given = params_with_answer(Json::parse(R"({"identify": {"min_coverage": 0.3}})"), *a, 4);
    ASSERT_TRUE(given.is_ok()) << given.status().to_string();
    EXPECT_EQ((*given)["identify"]["min_coverage"], 0.3) << "what was given stays";
    auto parsed = parse_run_params(*given, genefamily_pipeline(), 4);
    ASSERT_TRUE(parsed.is_ok()) << given->dump();
    EXPECT_EQ(dialog_view(*parsed, genefamily_pipeline(), 4)[key], value) << key;
  }
  // Values the form cannot take name their field; the prefix is never changed.
  const std::vector<std::pair<std::string, Json>> bad = {
      {"cpu", 9}, {"evalue", 11}, {"method", "raxml"}, {"max_target_seqs", 1.5}, {"evalue", "small"}, {"cpu", 0}};
  for (auto& [key, value] : bad) {
    Json content = all;
    content[key] = value;
    auto a = dialog_answer({{"action", "accept"}, {"content", content}}, form);
    ASSERT_FALSE(a.is_ok()) << key << " " << value;
    EXPECT_EQ(a.status().details()["field"], key);
  }
  Json renamed = all;
  renamed["prefix"] = "Other.X";
  EXPECT_EQ(dialog_answer({{"action", "accept"}, {"content", renamed}}, form)->action, "confirm");
  for (const char* said : {"decline", "cancel"}) {
    auto a = dialog_answer({{"action", said}}, form);
    EXPECT_EQ(a->action, "cancel") << said;
    EXPECT_EQ(a->said, said);
  }
}
