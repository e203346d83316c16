// LearningAgent: every diagnosis and repair of a run is recorded (error type,
// the pattern with the user's names taken out, root cause, fix, test result,
// prevention); passed fixes are applied up front by later runs; records are
// exported as error patterns only and imported when their fix is one of ours.
// Also the stages' past durations, for the plans' estimates.
#include "bioagent/json_text.h"
#include "runs/runs_internal.h"

namespace bioagent {

Json RunService::Impl::learned_preventions() {
  auto rows = store->query(
      "SELECT id, timestamp, error_type, fix, future_prevention, origin FROM learning WHERE test_result = 'passed' "
      "AND fix != '' ORDER BY id");
  return rows ? *rows : Json::array();
}

std::string RunService::Impl::record_learning(const Diagnosis& d, const DiagnosisRepair* repair, const Json& changes,
                                              const std::string& test_result) {
  const std::string at = now_iso();
  store->record(
      "INSERT INTO learning (timestamp, error_type, pattern, error_message, root_cause, fix_strategy, changes, "
      "test_result, future_prevention, fix, origin) VALUES (?,?,?,?,?,?,?,?,?,?,'local')",
      {at, d.error_type, d.pattern, d.error_message, d.root_cause,
       repair ? repair->strategy : "no automatic fix: " + d.root_cause, json_text(changes), test_result,
       repair ? repair->prevention : "", repair ? repair->key : ""});
  return at;
}

// A naming repair passed when the check accepted the new names; it delivered only if every stage that needs a
// file it linked then ran. A stage needing one that was skipped or failed (the file still missing, or not what
// its name says) makes its record say failed, so it is never applied up front.
void RunService::Impl::check_repair_delivered(const TaskContext& t, const std::vector<StageStatus>& outcome) {
  if (!t.naming_repair) return;
  std::vector<std::string> lacking;
  for (auto& s : outcome) {
    if (s.state != StageState::kSkipped && s.state != StageState::kFailed) continue;
    const StageSpec* spec = pipeline->find(s.stage);
    for (auto& kind : spec ? spec->needs : std::vector<std::string>{})
      if (t.naming_repair->kinds.count(kind)) {
        lacking.push_back(s.stage + " (" + kind + ")");
        break;
      }
  }
  if (lacking.empty()) return;
  std::string list;
  for (auto& l : lacking) list += (list.empty() ? "" : ", ") + l;
  store->record(
      "UPDATE learning SET test_result = 'failed', fix_strategy = fix_strategy || ? "
      "WHERE timestamp = ? AND changes = ? AND origin = 'local' AND test_result = 'passed'",
      {"; stages needing the linked files did not run: " + list, t.naming_repair->recorded_at,
       t.naming_repair->changes});
  emit(t.id, {{"type", "learning"},
              {"test_result", "failed"},
              {"message",
               BiText{"learning record marked failed: after the renaming, stages needing the renamed files did not "
                      "run: " +
                          list,
                      "学习条目标记为失败：改名后，需要这些文件的阶段未能运行：" + list}
                   .in(t.lang)}});
}

Json RunService::stage_seconds() const {
  Json out = Json::object();
  auto rows = impl_->store->query("SELECT stage, seconds FROM stage_durations ORDER BY stage, seconds");
  if (!rows) return out;
  std::map<std::string, std::vector<double>> by;
  for (auto& r : *rows) by[r["stage"].get<std::string>()].push_back(r["seconds"].get<double>());
  for (auto& [s, v] : by)  // the median
    out[s] = v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
  return out;
}

Result<Json> RunService::export_learning() const {
  auto rows = impl_->store->query(
      "SELECT timestamp, error_type, pattern, root_cause, fix_strategy, fix, test_result, future_prevention "
      "FROM learning ORDER BY id");
  if (!rows) return rows.status();
  // Error patterns only: messages, changes and anything naming the user's files stay here.
  for (auto& r : *rows) r["root_cause"] = generalise(r.value("root_cause", ""));
  return Json{{"format", "bioagent-learning-1"}, {"records", *rows}};
}

Result<Json> RunService::import_learning(const Json& doc) {
  if (!doc.is_object() || doc.value("format", "") != "bioagent-learning-1" || !doc.contains("records") ||
      !doc["records"].is_array())
    return parse_error("not a bioagent learning export (format bioagent-learning-1 with records[])");
  int added = 0, skipped = 0;
  for (auto& r : doc["records"]) {
    auto str = [&](const char* k) {
      return r.is_object() && r.contains(k) && r[k].is_string() ? r[k].get<std::string>().substr(0, 2000) : "";
    };
    std::string fix = str("fix");
    if (str("error_type").empty() || (!fix.empty() && !find_repair(fix))) {
      ++skipped;  // only fixes from our own repair table can ever be applied
      continue;
    }
    auto dup = impl_->store->query("SELECT id FROM learning WHERE error_type = ? AND pattern = ? AND fix = ?",
                                   {str("error_type"), str("pattern"), fix});
    if (dup && !dup->empty()) {
      ++skipped;
      continue;
    }
    BIOAGENT_RETURN_IF_ERROR(impl_->store->exec(
        "INSERT INTO learning (timestamp, error_type, pattern, error_message, root_cause, fix_strategy, changes, "
        "test_result, future_prevention, fix, origin) VALUES (?,?,?,?,?,?,?,?,?,?,'imported')",
        {str("timestamp"), str("error_type"), str("pattern"), "", str("root_cause"), str("fix_strategy"), "[]",
         str("test_result"), str("future_prevention"), fix}));
    ++added;
  }
  return Json{{"added", added}, {"skipped", skipped}};
}

}  // namespace bioagent
