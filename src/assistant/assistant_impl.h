// Assistant::Impl, shared by assistant.cpp (sessions, chat, plans, uploads),
// chat_turns.cpp (the turns about plans) and turn_client.cpp (a turn's model and
// client). Runs are the run service's.
#pragma once

#include <atomic>
#include <functional>

#include "assistant/agents.h"
#include "bioagent/runs.h"
#include "core/app_store.h"

namespace bioagent {

class LlmClient;

// Whether a plan's run can start: the protein file is there (or is read under its rule name).
bool plan_executable(const Json& plan);

struct Assistant::Impl {
  AssistantOptions o;
  AgentEnv env;
  std::unique_ptr<AppStore> store;
  std::unique_ptr<LlmClient> llm;  // null: offline agents
  std::string model_name = "none";
  std::unique_ptr<RunService> runs;

  fs::path session_dir(const std::string& sid) const { return o.runs.state_dir / "sessions" / sid; }
  Status require_session(const std::string& sid) const;
  // The species prefix of the session's latest plan ("" before any plan): what a run of the session reads its
  // uploads as.
  std::string species_of(const std::string& sid) const;
  std::vector<fs::path> data_dirs(const std::string& sid) const { return runs->data_dirs(sid); }
  // The run hooks: the report's sections by the knowledge agent, the outcome posted to the chat.
  RunHooks run_hooks();
  // Chat turns about plans (chat_turns.cpp): each returns the reply, or null to fall through.
  Result<Json> latest_plan(const std::string& sid, Lang lang);  // null when the session has none
  // `model` writes the plan's reasoning (null: the template); a turn interrupted for the MCP
  // host's answer (LlmClient::interrupted) stores nothing.
  Result<Json> store_plan(const std::string& sid, const std::string& species, const std::string& family, Lang lang,
                          LlmClient* model);
  Result<Json> turn_analysis(const std::string& sid, Route& route, Lang lang, LlmClient* model);
  // A plan's run through the run service; `confirmed` false: the dialog waits for its answer.
  Result<Json> start_plan(const std::string& sid, const std::string& plan_id, const Json& params, bool confirmed);
  // The run a chat turn orders: with a client offering elicitation the dialog is its form (asked
  // first when the client's calls replay: {dialog} alone when it declined), else the dialog waits
  // (the web page, the defaults after the timeout). The task with {dialog: outcome} when a form was asked.
  Result<Json> start_ordered(const std::string& sid, const std::string& plan_id, ClientChannel* client, Lang lang);
  // The model of one chat turn (the server's, another of the catalog, the MCP host's, or none).
  struct TurnModel {
    LlmClient* llm = nullptr;
    std::unique_ptr<LlmClient> owned;
  };
  Result<TurnModel> turn_model(const ChatOptions& co);
  // A reply the MCP host's model wrote says so (model_source "mcp_host") and names the model.
  static void name_host_model(Json& reply, const LlmClient& llm, Lang lang);
  Result<Json> turn_execute(const std::string& sid, Route& route, Lang lang,
                            const std::function<Result<Json>(const std::string& plan_id)>& start);
  Json turn_plan_question(const std::string& sid, Lang lang);
  Json turn_decline(Lang lang);
  // Stop the session's task under way (cancelled, resumable); continue its stopped task.
  Result<Json> turn_stop(const std::string& sid, Lang lang);
  Result<Json> turn_resume(const std::string& sid, Lang lang);
  // The route of a message in this session (route_turn.cpp): the sources asked, the rules' decision, and the
  // model's when `llm` is given (with the same evidence; a choice the form or the session rules out is not taken).
  Route route_message(const std::string& sid, const std::string& message, LlmClient* llm);
  // make_plan's answer as a client sees it: the folder by place_name, the files it
  // will read listed the same way, no server path (its data_dir removed).
  void name_plan_places(const std::string& sid, Json& plan_answer) const;
};

}  // namespace bioagent
