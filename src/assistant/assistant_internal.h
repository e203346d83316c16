// Shared inside src/assistant: the SQLite app store, text helpers, the
// knowledge-base mentions, the agents' free functions.
#pragma once

#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "bioagent/assistant.h"
#include "bioagent/pipeline.h"

struct sqlite3;

namespace bioagent {

std::string lower_ascii(std::string s);
bool has_cjk(std::string_view text);
// The family as a file-name stem for <Family>.hmm (AP2/ERF -> AP2_ERF).
std::string family_file_name(std::string family);

struct Mentions {
  const Json* species = nullptr;
  const Json* family = nullptr;
  std::string species_term, family_term;
  std::string unknown_family;  // "<X> gene family" where X is not in the knowledge base
  std::string latin_species;   // a Latin binomial the species list lacks ("Camellia sinensis")
};
Mentions find_mentions(std::string_view text);
// Every species of the list that `text` names, in list order.
std::vector<const Json*> species_mentioned(std::string_view text);
// `term` in `text` as the knowledge base matches names: whole words, short symbols in their case.
bool text_mentions(std::string_view text, const std::string& term);
std::string family_summary(const Json& family, Lang lang);

// A random id: prefix + 32 hex digits (128 bits from the OS).
std::string random_id(const std::string& prefix);
std::string now_iso();
// The one URL of a result file of a task (the route GET /api/agent/results/{task}/files/{name}).
std::string result_file_url(const std::string& task_id, const std::string& name);
// A run's figures by file name -> {file, number, caption} in the run's language, from the
// report's <prefix>.<family>.figure_captions.json in `final_dir` (empty before the report).
std::map<std::string, Json> figure_captions(const fs::path& final_dir);

// The assistant's SQLite store (WAL): sessions, messages, plans, tasks, task
// events, learning records, stage durations. One connection behind a mutex.
class AppStore {
 public:
  static Result<std::unique_ptr<AppStore>> open(const fs::path& file);
  ~AppStore();
  // Runs one statement with positional bindings (strings, numbers, null, or JSON dumped); rows as objects.
  Result<Json> query(const std::string& sql, const std::vector<Json>& binds = {});
  Status exec(const std::string& sql, const std::vector<Json>& binds = {});
  // For records whose loss must not stop the work that produced them (task events,
  // stage timings, learning counters): a failure is reported on stderr, not dropped.
  void record(const std::string& sql, const std::vector<Json>& binds = {});

 private:
  AppStore() = default;
  sqlite3* db_ = nullptr;
  std::mutex mu_;
};

// Diagnosis: the failure's class and root cause from a stage outcome or an error text.
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
// else any stage's), or a data-folder repair (renaming, asking for a file).
Diagnosis classify_failure(const std::string& stage, const std::string& message, const Json& naming_problems,
                           FailureClass failure = FailureClass::kUnknown);

// One row of the repair table: the data-folder repairs and every stage's
// repairs from the stage table.
struct DiagnosisRepair {
  std::string key, error_type, strategy, prevention;
  bool automatic;          // applied without asking (reversible, backed up)
  std::string stage = "";  // the stage whose table entry holds it; empty: a data-folder repair
  std::string root_cause = "";
  std::string strategy_zh = "", prevention_zh = "";  // the same in Chinese, for Chinese sessions
  std::string root_cause_zh = "";
};
const std::vector<DiagnosisRepair>& repair_table();
const DiagnosisRepair* find_repair(const std::string& key);

// The repairs allowed for a failure of class `c` in `stage`: the stage's own
// rows of the stage table and the data-folder repairs, those for `c` (and the
// message, when a row names its cause) first; for a stage the table does not
// know, any stage's rows for `c`.
std::vector<const DiagnosisRepair*> allowed_repairs(const std::string& stage, FailureClass c,
                                                    const std::string& message);

class LlmClient;
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

// Applies a naming repair in `data_dir`: each fixable file gets the correct
// name (the original is kept in data_dir/.backup). Returns the changes made.
Result<Json> apply_naming_repair(const fs::path& data_dir, const Json& naming_problems);

}  // namespace bioagent
