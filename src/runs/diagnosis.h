// DiagnosisAgent: a failure's class and root cause from a stage outcome or an
// error text, the repair table (the data-folder repairs and every stage's
// repairs from the stage table), and the choice among the allowed repairs
// (a model's, when one is configured, else the table's).
#pragma once

#include <string>
#include <vector>

#include "bioagent/pipeline.h"

namespace bioagent {

class LlmClient;

struct Diagnosis {
  std::string error_type;  // missing_file, naming_mismatch, tool_missing, bad_format, out_of_memory,
                           // time_limit, empty_result, gene_count_out_of_bounds, unknown
  std::string error_message, root_cause;
  std::string root_cause_zh;  // the root cause in Chinese, for Chinese sessions
  std::string pattern;        // the error with the user's names taken out (what learning shares)
  std::string fix;            // the repair table's key, empty when none applies
  Json to_json() const;
};
// The message with the user's paths and species prefixes taken out (what learning shares).
std::string generalise(std::string message);

// The class comes from `failure` when the engine typed it, else from the
// message; the repair is the stage table's for that class (the stage named,
// else any stage's), or a data-folder repair (reading a file under its rule
// name, asking for a file).
Diagnosis classify_failure(const std::string& stage, const std::string& message, const Json& naming_problems,
                           FailureClass failure = FailureClass::kUnknown);

// One row of the repair table: the data-folder repairs and every stage's
// repairs from the stage table.
struct DiagnosisRepair {
  std::string key, error_type, strategy, prevention;
  bool automatic;          // applied without asking (reversible: nothing of the user's is changed)
  std::string stage = "";  // the stage whose table entry holds it; empty: a data-folder repair
  std::string root_cause = "";
  std::string strategy_zh = "", prevention_zh = "";  // the same in Chinese, for Chinese sessions
  std::string root_cause_zh = "";
};
const std::vector<DiagnosisRepair>& repair_table();
const DiagnosisRepair* find_repair(const std::string& key);
// The data-folder repair for a file whose name varies from its rule: it is read
// under its rule name through a link in the run's own folder (never renamed).
inline constexpr const char* kReadUnderRuleName = "rename_extension_variant";

// The repairs allowed for a failure of class `c` in `stage`: the stage's own
// rows of the stage table and the data-folder repairs, those for `c` (and the
// message, when a row names its cause) first; for a stage the table does not
// know, any stage's rows for `c`.
std::vector<const DiagnosisRepair*> allowed_repairs(const std::string& stage, FailureClass c,
                                                    const std::string& message);

// Which allowed repair a diagnosis proposes and who decided: "table" (the
// rules' fix, d.fix: no model, one choice, a failed call or an answer outside
// the list, recorded in `ignored`) or "model" (the model named an allowed id).
struct RepairChoice {
  std::string key;  // empty: nothing allowed
  std::string decided_by = "table";
  std::vector<std::string> allowed;
  std::string model_answer, ignored;
  Json to_json() const;
};
RepairChoice choose_repair(LlmClient* llm, const Diagnosis& d, const std::string& stage, const std::string& log_tail,
                           const std::vector<const DiagnosisRepair*>& allowed);

}  // namespace bioagent
