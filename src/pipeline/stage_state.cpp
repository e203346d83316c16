// Stage states and failure classes: names, parsing, and the rules that read a
// failure's class from a process's exit status, signal and output.
#include <algorithm>
#include <array>
#include <utility>

#include "bioagent/pipeline.h"

namespace bioagent {
namespace {

constexpr std::array<std::pair<StageState, const char*>, 9> kStates = {{{StageState::kPending, "pending"},
                                                                        {StageState::kRunning, "running"},
                                                                        {StageState::kRepairing, "repairing"},
                                                                        {StageState::kDone, "done"},
                                                                        {StageState::kCached, "cached"},
                                                                        {StageState::kWarn, "warn"},
                                                                        {StageState::kSkipped, "skipped"},
                                                                        {StageState::kFailed, "failed"},
                                                                        {StageState::kCancelled, "cancelled"}}};

constexpr std::array<std::pair<FailureClass, const char*>, 10> kClasses = {
    {{FailureClass::kNone, "none"},
     {FailureClass::kMissingProgram, "tool_missing"},
     {FailureClass::kMissingInput, "missing_file"},
     {FailureClass::kMalformedInput, "bad_format"},
     {FailureClass::kTimeout, "time_limit"},
     {FailureClass::kOutOfMemory, "out_of_memory"},
     {FailureClass::kEmptyResult, "empty_result"},
     {FailureClass::kCountOutOfRange, "gene_count_out_of_bounds"},
     {FailureClass::kToolError, "tool_error"},
     {FailureClass::kUnknown, "unknown"}}};

std::string lower(std::string s) {
  for (auto& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool has_any(const std::string& text, std::initializer_list<const char*> needles) {
  return std::any_of(needles.begin(), needles.end(), [&](const char* n) { return text.find(n) != std::string::npos; });
}

}  // namespace

std::string to_string(StageState s) {
  for (auto& [k, v] : kStates)
    if (k == s) return v;
  return "unknown";
}

Result<StageState> stage_state_from_string(const std::string& s) {
  for (auto& [k, v] : kStates)
    if (s == v) return k;
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
  for (auto& [k, v] : kClasses)
    if (k == c) return v;
  return "unknown";
}

Result<FailureClass> failure_class_from_string(const std::string& s) {
  for (auto& [k, v] : kClasses)
    if (s == v) return k;
  return invalid_argument("'" + s.substr(0, 40) + "' is not a failure class");
}

FailureClass classify_failure_text(const std::string& message) {
  const std::string m = lower(message);
  // The program's absence first: "command not found" must not read as a missing file.
  if (has_any(m, {"command not found", "not installed", "no such program", "exec failed", "could not be started"}))
    return FailureClass::kMissingProgram;
  if (has_any(m, {"out of memory", "bad_alloc", "cannot allocate", "exit code 137", "killed by signal 9", "oom-kill",
                  "out_of_memory"}))
    return FailureClass::kOutOfMemory;
  if (has_any(m, {"time limit", "timed out", "timeout"})) return FailureClass::kTimeout;
  if (has_any(m, {"no member", "found nothing", "0 members", "empty result"})) return FailureClass::kEmptyResult;
  if (has_any(m, {"gene count", "outside"})) return FailureClass::kCountOutOfRange;
  if (has_any(m, {"not found", "no such file", "missing", "does not exist"})) return FailureClass::kMissingInput;
  if (has_any(m, {"parse", "format", "malformed", "invalid", "truncated", "line "}))
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

Json StageCheck::to_json() const {
  return {{"check", check}, {"status", status}, {"detail", detail}, {"value", value}, {"threshold", threshold}};
}

}  // namespace bioagent
