// Stage states and failure classes: names, parsing, and the rules that read a
// failure's class from a process's exit status, signal and output.
#include <algorithm>
#include <array>
#include <utility>

#include "bioagent/json_text.h"
#include "bioagent/pipeline.h"
#include "core/state_table.h"

namespace bioagent {
namespace {

struct StateText {
  StageState state;
  const char* name;
  BiText label;  // as people read it in a progress list
};
// The one table of stage states: record name and the label the interfaces show.
constexpr std::array<StateText, 9> kStates = {{
    {StageState::kPending, "pending", {"queued", "排队中"}},
    {StageState::kRunning, "running", {"running", "运行中"}},
    {StageState::kRepairing, "repairing", {"repairing", "修复中"}},
    {StageState::kDone, "done", {"done", "完成"}},
    {StageState::kCached, "cached", {"done (reused)", "已完成（复用）"}},
    {StageState::kWarn, "warn", {"done with a warning", "完成（有警告）"}},
    {StageState::kSkipped, "skipped", {"skipped", "已跳过"}},
    {StageState::kFailed, "failed", {"failed", "失败"}},
    {StageState::kCancelled, "cancelled", {"cancelled", "已取消"}},
}};

// Rows are written flat: class, record name, en, zh, cause_en, cause_zh.
struct ClassText {
  FailureClass c;
  const char* name;
  BiText label, cause;
};
// The one table of failure classes: record name, names for people, usual root cause.
constexpr std::array<ClassText, 10> kClasses = {{
    {FailureClass::kNone, "none", "none", "无", "", ""},
    {FailureClass::kMissingProgram, "tool_missing", "program missing", "缺少程序",
     "a program the stage needs is not installed", "该阶段需要的程序未安装"},
    {FailureClass::kMissingInput, "missing_file", "input file missing", "缺少输入文件",
     "a required input file is missing", "缺少必需的输入文件"},
    {FailureClass::kMalformedInput, "bad_format", "input file malformed", "输入文件格式错误",
     "an input file is not in the expected format", "输入文件不符合预期格式"},
    {FailureClass::kTimeout, "time_limit", "time limit exceeded", "超出时间限制", "the stage exceeded its time limit",
     "该阶段超出了时间限制"},
    {FailureClass::kOutOfMemory, "out_of_memory", "out of memory", "内存不足", "the process ran out of memory",
     "进程内存不足"},
    {FailureClass::kEmptyResult, "empty_result", "empty result", "结果为空", "the stage produced an empty result",
     "该阶段的结果为空"},
    {FailureClass::kCountOutOfRange, "gene_count_out_of_bounds", "member count out of bounds", "成员数超出范围",
     "the number of members is outside the expected bounds", "成员数超出预期范围"},
    {FailureClass::kToolError, "tool_error", "program error", "程序出错",
     "a program exited with an error; the stage log has its message", "程序出错退出；错误信息见该阶段的 stage.log"},
    {FailureClass::kUnknown, "unknown", "not recognised", "原因未能识别",
     "not recognised by the rules; the stage log has the details", "规则未能识别；详情见该阶段的 stage.log"},
}};

std::string lower(std::string s) {
  for (auto& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool has_any(const std::string& text, std::initializer_list<const char*> needles) {
  return std::any_of(needles.begin(), needles.end(), [&](const char* n) { return text.find(n) != std::string::npos; });
}

}  // namespace

std::string to_string(StageState s) { return std::string(state_table::name_of(kStates, s)); }

BiText label_of(StageState s) { return state_table::label_of(kStates, s); }

const std::vector<StageState>& all_stage_states() {
  static const std::vector<StageState> kAll = state_table::all_of(kStates);
  return kAll;
}

Result<StageState> stage_state_from_string(const std::string& s) {
  for (auto& k : kStates)
    if (s == k.name) return k.state;
  return invalid_argument("'" + s.substr(0, 40) +
                          "' is not a stage state (pending, running, repairing, done, cached, warn, skipped, failed, "
                          "cancelled)");
}

bool finished_with_outputs(StageState s) {
  return s == StageState::kDone || s == StageState::kCached || s == StageState::kWarn;
}

bool is_final(StageState s) {
  return s != StageState::kPending && s != StageState::kRunning && s != StageState::kRepairing;
}

std::string to_string(FailureClass c) {
  for (auto& k : kClasses)
    if (k.c == c) return k.name;
  return "unknown";
}

std::string failure_class_name(FailureClass c, Lang lang) {
  for (auto& k : kClasses)
    if (k.c == c) return k.label.in(lang);
  return BiText{"not recognised", "原因未能识别"}.in(lang);
}

std::string failure_cause(FailureClass c, Lang lang) {
  for (auto& k : kClasses)
    if (k.c == c) return k.cause.in(lang);
  return "";
}

Result<FailureClass> failure_class_from_string(const std::string& s) {
  for (auto& k : kClasses)
    if (s == k.name) return k.c;
  return invalid_argument("'" + s.substr(0, 40) + "' is not a failure class");
}

FailureClass classify_failure_text(const std::string& message) {
  const std::string m = lower(message);
  // The program's absence first: "command not found" must not read as a missing file.
  if (has_any(m, {"command not found", "not installed", "no such program", "exec failed", "could not be started"}))
    return FailureClass::kMissingProgram;
  if (has_any(m, {"out of memory", "bad_alloc", "cannot allocate", "exit code 137", "killed by signal 9", "oom-kill",
                  "out_of_memory", "memoryerror", "not enough memory"}))
    return FailureClass::kOutOfMemory;
  if (has_any(m, {"time limit", "timed out", "timeout"})) return FailureClass::kTimeout;
  if (has_any(m, {"no member", "found nothing", "0 members", "empty result"})) return FailureClass::kEmptyResult;
  if (has_any(m, {"gene count", "outside"})) return FailureClass::kCountOutOfRange;
  if (has_any(m, {"not found", "no such file", "missing", "does not exist"})) return FailureClass::kMissingInput;
  if (has_any(m, {"parse", "format", "malformed", "invalid", "truncated", "line ", "not a hmmer", "not a fasta"}))
    return FailureClass::kMalformedInput;
  return FailureClass::kUnknown;
}

FailureClass classify_process(const ProcessResult& r) {
  if (r.exit_code == 0 && !r.timed_out) return FailureClass::kNone;
  if (r.timed_out) return FailureClass::kTimeout;
  if (r.exit_code == -1 || r.exit_code == 126 || r.exit_code == 127) return FailureClass::kMissingProgram;
  if (r.exit_code == 128 + 9) return FailureClass::kOutOfMemory;  // SIGKILL: the kernel's OOM killer
  FailureClass from_log = classify_failure_text(r.log_tail);
  if (from_log == FailureClass::kOutOfMemory || from_log == FailureClass::kMissingProgram) return from_log;
  return FailureClass::kToolError;
}

Status with_failure(Status s, FailureClass c) {
  s.with(kFailureDetail, to_string(c));
  return s;
}

bool Repair::matches(FailureClass c, const std::string& message) const {
  return c == on && (when.empty() || lower(message).find(lower(when)) != std::string::npos);
}

namespace {

// A parameter value as a person writes it: strings bare, numbers as JSON prints them.
std::string value_text(const Json& v) { return v.is_string() ? v.get<std::string>() : json_text(v); }

std::string values_text(const Json& values) {
  if (values.size() == 1) return value_text(values.begin().value());
  std::string out;
  for (auto& [k, v] : values.items()) out += (out.empty() ? "" : ", ") + k + "=" + value_text(v);
  return out;
}

void replace_all(std::string& text, const std::string& what, const std::string& with) {
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + with.size()))
    text.replace(at, what.size(), with);
}

}  // namespace

std::string Repair::render(const std::string& text, const Json& asked, const Json& used) const {
  std::string out = text;
  replace_all(out, "{asked}", values_text(asked));
  replace_all(out, "{used}", values_text(used));
  return out;
}

Json Repair::applied(const Json& params) const {
  Json asked = Json::object(), used = Json::object();
  Json patched = params.is_object() ? params : Json::object();
  patched.merge_patch(param_patch);
  if (param_patch.is_object())
    for (auto& [k, v] : param_patch.items()) {
      asked[k] = params.is_object() && params.contains(k) ? params[k] : Json();
      used[k] = patched.contains(k) ? patched[k] : Json();
    }
  return {{"key", key},
          {"description", render(description, asked, used)},
          {"prevention", render(prevention, asked, used)},
          {"description_zh", render(description_zh, asked, used)},
          {"prevention_zh", render(prevention_zh, asked, used)},
          {"root_cause", root_cause},
          {"root_cause_zh", root_cause_zh},
          {"asked", asked},
          {"used", used}};
}

Json missing_data_file(const StageSpec& spec, const Json& run) {
  const Json files = run.value("files", Json::object());
  const Json others = run.value("other_prefix_files", Json::object());
  for (auto& f : spec.needs) {
    if (!files.value(f, std::string()).empty()) continue;
    if (others.contains(f) && others[f].is_object())
      return {{"kind", "data_file_other_prefix"},
              {"subject", f},
              {"found", others[f].value("found", std::string())},
              {"expected", others[f].value("expected", std::string())}};
    return {{"kind", "missing_data_file"}, {"subject", f}};
  }
  return nullptr;
}

Json StageCheck::to_json() const {
  return {{"check", check}, {"status", status}, {"detail", detail}, {"value", value}, {"threshold", threshold}};
}

}  // namespace bioagent
