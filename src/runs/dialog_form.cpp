// The parameter dialog as an elicitation form (see dialog_form.h): the form
// built from the stage table's dialog fields, its answer read back as the
// dialog's, and the two ways of asking it.
#include "runs/dialog_form.h"

#include <algorithm>
#include <cmath>

#include "bioagent/genefamily.h"
#include "bioagent/json_text.h"
#include "runs/runs_internal.h"

namespace bioagent {
namespace {

constexpr const char* kFormKey = "run-params";
// A started task is checked (file names) before its countdown starts: the form waits this much longer.
constexpr int kCheckSeconds = 15;

// A dialog field's own schema as an elicitation property (primitive types only; null otherwise).
Json form_property(const Json& schema, const std::string& title, const Json& value) {
  const std::string type = schema.value("type", "");
  if (type != "number" && type != "integer" && type != "string" && type != "boolean") return nullptr;
  Json p = {{"type", type}, {"title", title}};
  if (schema.contains("description") && schema["description"].is_string()) p["description"] = schema["description"];
  for (const char* k : {"minimum", "maximum"})
    if ((type == "number" || type == "integer") && schema.contains(k) && schema[k].is_number()) p[k] = schema[k];
  for (const char* k : {"minLength", "maxLength"})
    if (type == "string" && schema.contains(k) && schema[k].is_number_integer()) p[k] = schema[k];
  if (type == "string" && schema.contains("enum") && schema["enum"].is_array()) p["enum"] = schema["enum"];
  if (!value.is_null()) p["default"] = value;
  return p;
}

std::string shown_text(const Json& v) { return v.is_string() ? v.get<std::string>() : json_text(v); }

bool same_value(const Json& a, const Json& b) {
  if (a.is_number() && b.is_number())
    return std::fabs(a.get<double>() - b.get<double>()) <= 1e-12 * std::fabs(b.get<double>());
  return a == b;
}

// The value the form's property `p` accepts, or why not.
Status check_form_value(const std::string& key, const Json& p, const Json& v) {
  const std::string type = p.value("type", "");
  const bool fits = (type == "number" && v.is_number()) || (type == "integer" && v.is_number_integer()) ||
                    (type == "string" && v.is_string()) || (type == "boolean" && v.is_boolean());
  if (!fits) return Status(ErrorCode::kInvalidArgument, "the form's " + key + " must be a " + type).with("field", key);
  if (v.is_number() && ((p.contains("minimum") && v.get<double>() < p["minimum"].get<double>()) ||
                        (p.contains("maximum") && v.get<double>() > p["maximum"].get<double>())))
    return Status(ErrorCode::kInvalidArgument, "the form's " + key + " is outside " +
                                                   json_text(p.value("minimum", Json())) + " to " +
                                                   json_text(p.value("maximum", Json())))
        .with("field", key);
  if (p.contains("enum") && std::find(p["enum"].begin(), p["enum"].end(), v) == p["enum"].end())
    return Status(ErrorCode::kInvalidArgument, "the form's " + key + " must be one of " + json_text(p["enum"]))
        .with("field", key);
  return Status::ok();
}

std::string changed_text(const Json& params) {
  std::string out;
  for (auto& [k, v] : params.items()) out += (out.empty() ? "" : ", ") + k + " " + shown_text(v);
  return out;
}

}  // namespace

DialogForm dialog_form(const Json& shown, int cpu_limit, int timeout_seconds, bool countdown, Lang lang) {
  DialogForm form;
  form.shown = shown;
  const std::string prefix = shown.value("prefix", ""), species = shown.value("species", ""),
                    family = shown.value("family", "");
  Json props = Json::object();
  if (!prefix.empty())
    props["prefix"] = {{"type", "string"},
                       {"title", BiText{"output prefix", "输出前缀"}.in(lang)},
                       {"description", BiText{"fixed by the plan", "由分析方案确定"}.in(lang)},
                       {"enum", Json::array({prefix})},
                       {"default", prefix}};
  props["cpu"] = {{"type", "integer"},
                  {"title", BiText{"CPUs", "CPU 数"}.in(lang)},
                  {"minimum", 1},
                  {"maximum", std::max(1, cpu_limit)},
                  {"default", shown.value("cpu", Json(std::max(1, cpu_limit)))}};
  for (const Json& f : genefamily_pipeline().dialog_fields()) {
    const std::string key = f.value("key", "");
    Json p = form_property(f.value("schema", Json::object()), f.value(lang == Lang::kZh ? "label_zh" : "label", key),
                           shown.value(key, Json()));
    if (!p.is_null()) props[key] = p;
  }
  form.schema = {{"type", "object"}, {"properties", props}, {"required", Json::array()}};
  const std::string secs = std::to_string(timeout_seconds);
  form.message =
      BiText{"Gene-family run: the " + family + " family of " + species + " (output prefix " + prefix +
                 "). Confirm or change the parameters; declining cancels the run." +
                 (countdown ? " The defaults are used if you do not answer within " + secs + " seconds." : ""),
             "基因家族分析：" + species + " 的 " + family + " 家族（输出前缀 " + prefix +
                 "）。请确认或修改参数；拒绝则不运行。" + (countdown ? secs + " 秒内未答复将使用默认参数。" : "")}
          .in(lang);
  return form;
}

Result<Json> dialog_preview(const RunService& runs, const std::string& prefix, const std::string& species_name,
                            const std::string& family, const Json& given) {
  auto params = parse_run_params(given.is_null() ? Json::object() : given, genefamily_pipeline(), runs.cpu_limit());
  if (!params) return params.status();
  const Json row = {
      {"species", prefix}, {"species_name", species_name.empty() ? prefix : species_name}, {"family", family}};
  return dialog_shown(row, merge_run_params(runs.base_params(), *params), genefamily_pipeline(), runs.cpu_limit());
}

Result<DialogAnswer> dialog_answer(const Json& elicit_result, const DialogForm& form) {
  DialogAnswer out;
  out.said = elicit_result.value("action", "");
  if (out.said != "accept") {
    out.action = "cancel";  // declined or dismissed: the user did not agree to run it
    return out;
  }
  const Json content = elicit_result.value("content", Json::object());
  if (!content.is_object()) return invalid_argument("the form's answer has no content object");
  for (auto& [key, p] : form.schema["properties"].items()) {
    if (key == "prefix" || !content.contains(key)) continue;  // the prefix is fixed; an absent field keeps its value
    BIOAGENT_RETURN_IF_ERROR(check_form_value(key, p, content[key]));
    if (!same_value(content[key], form.shown.value(key, Json()))) out.params[key] = content[key];
  }
  out.action = out.params.empty() ? "confirm" : "modify";
  return out;
}

Result<Json> params_with_answer(const Json& given, const DialogAnswer& answer, int cpu_limit) {
  const Pipeline& pipeline = genefamily_pipeline();
  auto base = parse_run_params(given.is_null() ? Json::object() : given, pipeline, cpu_limit);
  if (!base) return base.status();
  auto over = parse_run_params(answer.params, pipeline, cpu_limit);
  if (!over) return over.status();
  RunParams merged = merge_run_params(*base, *over);
  Json out = merged.stages;
  if (merged.cpus > 0) out["cpus"] = merged.cpus;
  return out;
}

Result<DialogAnswer> ask_dialog_first(ClientChannel& channel, const Json& shown, int cpu_limit, Lang lang) {
  DialogForm form = dialog_form(shown, cpu_limit, 0, false, lang);
  auto answers = channel.ask_all({ClientQuestion{
      ClientAsk::kElicitation, {{"message", form.message}, {"requestedSchema", form.schema}}, kFormKey}});
  if (answers.empty()) return Status(ErrorCode::kInternal, "the client channel gave no answer");
  if (!answers.front()) return answers.front().status();
  return dialog_answer(*answers.front(), form);
}

Json confirm_by_form(RunService& runs, ClientChannel& channel, const std::string& owner, const Json& started,
                     Lang lang) {
  const int timeout = started.value("confirm_timeout_seconds", runs.confirm_timeout_seconds());
  const std::string task = started.value("task_id", "");
  DialogForm form = dialog_form(started.value("params", Json::object()), runs.cpu_limit(), timeout, true, lang);
  ClientQuestion q{ClientAsk::kElicitation,
                   {{"message", form.message}, {"requestedSchema", form.schema}},
                   kFormKey,
                   std::chrono::seconds(timeout + kCheckSeconds)};
  auto answers = channel.ask_all({q});
  Json out = {{"asked", "elicitation"}, {"answer", "none"}};
  if (answers.empty() || !answers.front()) {
    const Status s = answers.empty() ? Status(ErrorCode::kInternal, "no answer") : answers.front().status();
    out["note"] = s.code() == ErrorCode::kTimeout
                      ? BiText{"no answer within the dialog's time: the run takes the defaults",
                               "对话框时间内未获答复：按默认参数运行"}
                            .in(lang)
                      : BiText{"the form could not be asked (" + s.message() +
                                   "): the dialog waits for its answer, then takes the defaults",
                               "无法显示参数表单：对话框等待答复，超时后按默认参数运行"}
                            .in(lang);
    return out;
  }
  auto a = dialog_answer(*answers.front(), form);
  out["answer"] = answers.front()->value("action", "");
  DialogAnswer decided = a ? *a : DialogAnswer{"accept", "cancel", Json::object()};
  if (!a) out["note"] = BiText{"the run is cancelled: " + a.status().message(), "运行已取消：表单取值无效"}.in(lang);
  out["action"] = decided.action;
  if (decided.action == "modify") out["params"] = decided.params;
  auto given = runs.answer(owner, task, decided.action, decided.params);
  if (!given) {
    out["note"] = BiText{"the run no longer waited for its dialog: " + given.status().message(),
                         "运行已不在等待参数确认（可能已超时并按默认参数运行）"}
                      .in(lang);
    out.erase("action");
  }
  return out;
}

std::string dialog_outcome_text(const Json& outcome, Lang lang) {
  const std::string action = outcome.value("action", ""), answer = outcome.value("answer", "");
  if (action == "confirm")
    return BiText{"The parameter form was confirmed: the run uses the defaults.", "参数表单已确认：按默认参数运行。"}
        .in(lang);
  if (action == "modify") {
    const std::string set = changed_text(outcome.value("params", Json::object()));
    return BiText{"The run uses the parameters set in the form: " + set + ".", "按表单中设置的参数运行：" + set + "。"}
        .in(lang);
  }
  if (action == "cancel")
    return BiText{"The parameter form was " +
                      std::string(answer == "accept"    ? "answered with a value it cannot take"
                                  : answer == "decline" ? "declined"
                                                        : "dismissed") +
                      ": the run does not go ahead.",
                  std::string(answer == "accept"    ? "参数表单的取值无效"
                              : answer == "decline" ? "参数表单被拒绝"
                                                    : "参数表单被关闭") +
                      "：不运行。"}
        .in(lang);
  return BiText{"The parameter form got no answer: the run takes the defaults after the dialog's time.",
                "参数表单未获答复：对话框时间到后按默认参数运行。"}
      .in(lang);
}

}  // namespace bioagent
