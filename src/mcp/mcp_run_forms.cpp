// A gene-family run's parameter dialog as the client's elicitation form when
// the form must come before the run (a 2026-07-28 call that replays), and
// genefamily_run as a task of the tasks extension (its form then the task's
// inputRequest, its result the run's files).
#include "bioagent/assistant.h"
#include "bioagent/json_text.h"
#include "mcp/mcp_internal.h"
#include "runs/dialog_form.h"

namespace bioagent::mcp {
namespace {

Json error_call_result(const Status& s) {
  return {{"content", Json::array({{{"type", "text"}, {"text", "Error: " + s.message()}}})}, {"isError", true}};
}

}  // namespace

Lang form_language(const Json& args) {
  const std::string language = args.value("language", "");
  if (!language.empty()) return lang_or_en(language);
  return has_cjk(args.value("species", "")) || has_cjk(args.value("family", "")) ? Lang::kZh : Lang::kEn;
}

Result<Json> RunBridge::ask_form_first(const Json& args, ClientChannel& client) {
  RunService& runs = assistant_.runs();
  const std::string species = args.value("species", ""), family = args.value("family", "");
  // The species and family as the plan will name them; nothing is stored or attached yet.
  const std::string named = args.value("session_id", "");
  const auto entry =
      resolve_species(species, assistant_.has_session(named) ? runs.data_dirs(named) : std::vector<fs::path>{});
  const Json* fam = find_gene_family(family);
  auto shown =
      dialog_preview(runs, entry ? entry->value("prefix", species) : species, entry ? entry->value("latin", "") : "",
                     fam ? fam->value("name", family) : family, args.value("params", Json::object()));
  if (!shown) return shown.status();
  auto answer = ask_dialog_first(client, *shown, runs.cpu_limit(), form_language(args));
  if (!answer) return answer.status();
  Json dialog = {{"asked", "elicitation"}, {"answer", answer->said}, {"action", answer->action}};
  if (answer->action == "modify") dialog["params"] = answer->params;
  if (answer->action == "cancel") return Json{{"dialog", dialog}};
  auto params = params_with_answer(args.value("params", Json::object()), *answer, runs.cpu_limit());
  if (!params) return params.status();
  return Json{{"dialog", dialog}, {"params", *params}};
}

Result<Json> RunBridge::run_as_ext_task(const Json& args, ToolContext& ctx,
                                        const std::function<bool()>& server_stopping) {
  auto started = start(args, ctx.client());
  if (!started) {
    if (started.status().code() == ErrorCode::kCancelled) return started.status();
    return error_call_result(started.status());  // a tool error completes the task with isError
  }
  if (!started->data.contains("task_id")) return linked_call_result(*started, false);  // the form was declined
  const std::string id = started->data.value("task_id", ""), sid = started->data.value("session_id", "");
  const Json wait = {{"task_id", id}, {"session_id", sid}, {"wait_seconds", 2}};
  const std::atomic<bool> never{false};
  for (;;) {
    auto r = result(wait, never, nullptr);
    if (!r) return error_call_result(r.status());
    if (terminal_state(r->data.value("state", ""))) return finished_call_result(id, sid, never);
    if (!ctx.cancelled()) continue;
    if (!server_stopping()) (void)cancel(wait);  // tasks/cancel stops the run; a stopping server leaves it to resume
    return Status(ErrorCode::kCancelled, "the task was cancelled");
  }
}

}  // namespace bioagent::mcp
