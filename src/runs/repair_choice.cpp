// DiagnosisAgent's choice among the allowed repairs: the failed stage's rows
// of the stage table (those for the failure's class first: the rules may have
// read the class wrong) and the data-folder repairs. A model, when configured, sees the failure class, the log tail
// and the allowed ids and may pick one; its answer counts only when it names
// an allowed id (anything else is ignored and recorded). Without a model, or
// when its answer is ignored, the table's order decides. A model never writes
// code or commands here: it only names a row.
#include "bioagent/genefamily.h"
#include "bioagent/json_text.h"
#include "bioagent/llm.h"
#include "runs/diagnosis.h"

namespace bioagent {

std::vector<const DiagnosisRepair*> allowed_repairs(const std::string& stage, FailureClass c,
                                                    const std::string& message) {
  std::vector<const DiagnosisRepair*> first, rest;
  const Pipeline& p = genefamily_pipeline();
  bool known_stage = p.find(stage) != nullptr;
  for (auto& spec : p.stages()) {
    if (known_stage && spec.name != stage) continue;
    for (auto& r : spec.repairs) {
      bool matches = r.matches(c, message);
      if (!known_stage && !matches) continue;  // another stage's rows only for this very failure
      for (auto& d : repair_table())
        if (d.stage == spec.name && d.key == r.key) {
          (matches ? first : rest).push_back(&d);
          break;
        }
    }
  }
  for (auto& r : repair_table())
    if (r.stage.empty() && r.key != kReadUnderRuleName) (r.error_type == to_string(c) ? first : rest).push_back(&r);
  first.insert(first.end(), rest.begin(), rest.end());
  return first;
}

Json RepairChoice::to_json() const {
  Json allowed_ids = Json::array();
  for (auto& a : allowed) allowed_ids.push_back(a);
  Json j = {{"repair", key.empty() ? Json() : Json(key)}, {"decided_by", decided_by}, {"allowed", allowed_ids}};
  if (!model_answer.empty()) j["model_answer"] = model_answer.substr(0, 500);
  if (!ignored.empty()) j["ignored"] = ignored;
  return j;
}

namespace {

// The repair id in a model's answer: {"repair": "id"} (inside any text), else the whole answer trimmed.
std::string named_repair(const std::string& answer) {
  size_t a = answer.find('{'), b = answer.rfind('}');
  if (a != std::string::npos && b != std::string::npos && b > a) {
    Json j = parse_json_bounded(answer.substr(a, b - a + 1));
    if (j.is_object() && j.contains("repair") && j["repair"].is_string()) return j["repair"].get<std::string>();
  }
  std::string t = answer;
  t.erase(0, t.find_first_not_of(" \t\r\n\"`"));
  t.erase(t.find_last_not_of(" \t\r\n\"`.") + 1);
  return t;
}

}  // namespace

RepairChoice choose_repair(LlmClient* llm, const Diagnosis& d, const std::string& stage, const std::string& log_tail,
                           const std::vector<const DiagnosisRepair*>& allowed) {
  RepairChoice out;
  for (auto* r : allowed) out.allowed.push_back(r->key);
  for (auto* r : allowed)
    if (r->key == d.fix) out.key = d.fix;      // the rules' choice: the table's first row for the class
  if (!llm || allowed.size() < 2) return out;  // nothing to choose between
  std::string list;
  for (auto* r : allowed)
    list += "- " + r->key + ": " + r->strategy + (r->automatic ? " (automatic)" : " (asks the user)") + "\n";
  ChatRequest rq;
  rq.messages = {
      ChatMessage::system(
          "You choose one repair for a failed bioinformatics pipeline stage. You may only name one id from the "
          "allowed list; never write code, commands or parameters. Answer with JSON: {\"repair\": \"<id>\"}."),
      ChatMessage::user("Stage: " + stage + "\nFailure class: " + d.error_type +
                        "\nRoot cause (rules): " + d.root_cause + "\nLog tail:\n" +
                        log_tail.substr(log_tail.size() > 2000 ? log_tail.size() - 2000 : 0) +
                        "\n\nAllowed repairs:\n" + list)};
  rq.temperature = 0.0;
  auto resp = llm->chat(rq);
  if (!resp) {
    out.ignored = "the model call failed (" + resp.status().message().substr(0, 200) + "); the table's order is used";
    return out;
  }
  out.model_answer = resp->message.text();
  std::string named = named_repair(out.model_answer);
  for (auto* r : allowed)
    if (r->key == named) {
      out.key = r->key;
      out.decided_by = "model";
      return out;
    }
  out.ignored =
      "the model named '" + named.substr(0, 120) + "', which is not an allowed repair; the table's order is used";
  return out;
}

}  // namespace bioagent
