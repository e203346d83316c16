// A chat turn's client: the model that thinks for the turn (the server's, another
// of the catalog, or the MCP host's through sampling when the server has none) and
// the run a turn orders, whose parameter dialog an MCP client offering
// elicitation answers as a form (runs/dialog_form.h).
#include "assistant/assistant_impl.h"
#include "bioagent/client_channel.h"
#include "bioagent/llm.h"
#include "runs/dialog_form.h"

namespace bioagent {

Result<Assistant::Impl::TurnModel> Assistant::Impl::turn_model(const ChatOptions& co) {
  TurnModel out;
  if (co.model == "none") return out;
  out.llm = llm.get();
  if (!co.model.empty() && co.model != model_name) {  // another model of the catalog
    if (env.offline()) return Status(ErrorCode::kUnavailable, "offline: no model can be used");
    auto catalog = load_model_catalog();
    if (!catalog) return catalog.status();
    auto m = catalog->get(co.model);
    if (!m) return m.status();
    auto c = LlmClient::create(*m, o.tool_options["allow_private_urls"] == "1");
    if (!c) return c.status();
    out.owned = std::move(*c);
  } else if (!out.llm && co.client) {  // no model here: the MCP host's, when it lends it (over MCP, offline too)
    out.owned = host_model_client(*co.client);
  }
  if (out.owned) out.llm = out.owned.get();
  return out;
}

// A reply the MCP host's model wrote says so (model_source), and its answer names the model.
void Assistant::Impl::name_host_model(Json& reply, const LlmClient& llm, Lang lang) {
  const std::string m = llm.answered_by();
  if (reply.value("model", "") != m || m == llm.model().name) return;  // an offline answer, or none was asked
  reply["model_source"] = "mcp_host";
  reply["answer"] =
      reply.value("answer", "") + BiText{"\n\n(Written by " + m + ", the model of the MCP host that asked.)",
                                         "\n\n（由提问的 MCP 主机的模型 " + m + " 撰写。）"}
                                      .in(lang);
}

Result<Json> Assistant::Impl::start_ordered(const std::string& sid, const std::string& plan_id, ClientChannel* client,
                                            Lang lang) {
  if (!client || !client->supports(ClientAsk::kElicitation)) return start_plan(sid, plan_id, Json::object(), false);
  if (!client->replays()) {  // the form is the started task's dialog
    auto task = start_plan(sid, plan_id, Json::object(), false);
    if (task) (*task)["dialog"] = confirm_by_form(*runs, *client, sid, *task, lang);
    return task;
  }
  // The call runs again with the answer: ask before the run exists, then start it confirmed.
  auto rows = store->query("SELECT species, family, plan FROM plans WHERE id = ? AND session = ?", {plan_id, sid});
  if (!rows) return rows.status();
  if (rows->empty()) return not_found("no plan '" + plan_id.substr(0, 80) + "' in this session");
  const Json plan = Json::parse((*rows)[0].value("plan", "{}"), nullptr, false);
  const std::string name = plan.is_object() ? plan.value("defaults", Json::object()).value("species", "") : "";
  auto shown = dialog_preview(*runs, (*rows)[0].value("species", ""), name, (*rows)[0].value("family", ""), {});
  if (!shown) return shown.status();
  auto answer = ask_dialog_first(*client, *shown, runs->cpu_limit(), lang);
  if (!answer) return answer.status();
  Json dialog = {{"asked", "elicitation"}, {"answer", answer->said}, {"action", answer->action}};
  if (answer->action == "modify") dialog["params"] = answer->params;
  if (answer->action == "cancel") return Json{{"dialog", dialog}};
  auto params = params_with_answer(Json::object(), *answer, runs->cpu_limit());
  if (!params) return params.status();
  auto task = start_plan(sid, plan_id, *params, true);
  if (task) (*task)["dialog"] = dialog;
  return task;
}

}  // namespace bioagent
