// DiagnosisAgent's rules: a failure's class (typed by the engine, else read
// from the text), its root cause and fix from the stage table's repairs (data,
// not code: the program itself is never changed) and the data-folder repairs.
#include <re2/re2.h>

#include "bioagent/genefamily.h"
#include "runs/diagnosis.h"

namespace bioagent {

Json Diagnosis::to_json() const {
  return {{"error_type", error_type}, {"error_message", error_message},
          {"root_cause", root_cause}, {"root_cause_zh", root_cause_zh},
          {"pattern", pattern},       {"fix", fix}};
}

const std::vector<DiagnosisRepair>& repair_table() {
  static const std::vector<DiagnosisRepair> table = [] {
    std::vector<DiagnosisRepair> t = {
        {kReadUnderRuleName, "naming_mismatch",
         "detect the name variant (.fa, .fas, .faa, .gff, a portal's download name) and read the file under its "
         "rule name through a link in the run's own folder; the file itself is not renamed or copied",
         "read name variants under their rule names before the naming check", true, "", "",
         "识别文件名变体（.fa、.fas、.faa、.gff "
         "或数据库下载名）并通过运行目录中的链接按命名规范读取；原文件不改名、不复制",
         "命名检查之前先按命名规范读取文件名变体"},
        {"ask_for_file", to_string(FailureClass::kMissingInput),
         "ask the user to upload the missing file under its rule name",
         "list the required files and their naming rules in the plan", false, "", "", "请用户按命名规范上传缺少的文件",
         "在分析方案中列出必需的文件及其命名规范"},
        {"ask_for_valid_file", to_string(FailureClass::kMalformedInput),
         "show the parse error and ask for a corrected file", "validate file formats at upload time", false, "", "",
         "显示解析错误并请用户上传改正后的文件", "上传时即检查文件格式"},
    };
    for (auto& spec : genefamily_pipeline().stages())
      for (auto& r : spec.repairs)
        t.push_back({r.key, to_string(r.on), r.description, r.prevention, r.automatic, spec.name, r.root_cause,
                     r.description_zh, r.prevention_zh, r.root_cause_zh});
    return t;
  }();
  return table;
}

const DiagnosisRepair* find_repair(const std::string& key) {
  for (auto& r : repair_table())
    if (!key.empty() && r.key == key) return &r;
  return nullptr;
}

std::string generalise(std::string message) {
  static const RE2 path(R"((/[^\s'"]+/)+)");
  static const RE2 prefixed(R"(\b[A-Z][a-z]{1,3}(\.[A-Za-z0-9_]+)*\.(genome|gff3?|cds|pep)\b)");
  RE2::GlobalReplace(&message, path, "<dir>/");
  RE2::GlobalReplace(&message, prefixed, "<Prefix>.\\2");
  return message;
}

namespace {

// The stage table's repair for (stage, class, message): the named stage's
// first, else the first of any stage (a stage the table does not know, such
// as the validation); a data-folder repair for missing or malformed input.
const Repair* table_repair(const std::string& stage, FailureClass c, const std::string& message) {
  const Pipeline& p = genefamily_pipeline();
  if (const StageSpec* s = p.find(stage)) {
    for (auto& r : s->repairs)
      if (r.matches(c, message)) return &r;
    return nullptr;
  }
  for (auto& spec : p.stages())
    for (auto& r : spec.repairs)
      if (r.matches(c, message)) return &r;
  return nullptr;
}

}  // namespace

Diagnosis classify_failure(const std::string& stage, const std::string& message, const Json& naming_problems,
                           FailureClass failure) {
  Diagnosis d;
  d.error_message = message;
  bool fixable = false, unfixable = false;
  for (auto& p : naming_problems) (p.value("fixable", false) ? fixable : unfixable) = true;
  if (fixable && !unfixable) {
    const Json& p = naming_problems[0];
    std::string file = p.value("file", ""), want = p.value("fix", "");
    d.error_type = "naming_mismatch";
    std::string ext = file.substr(file.rfind('.') == std::string::npos ? file.size() : file.rfind('.'));
    std::string want_ext = want.substr(want.rfind('.') == std::string::npos ? want.size() : want.rfind('.'));
    d.root_cause =
        "file extension does not match the naming rule: expected " + want_ext + ", found " + ext + " (" + file + ")";
    d.root_cause_zh = "文件扩展名不符合命名规范：应为 " + want_ext + "，实为 " + ext + "（" + file + "）";
    d.pattern = generalise("extension variant " + ext + " for " + want_ext + " (" + p.value("kind", "") + ")");
    d.fix = kReadUnderRuleName;
    return d;
  }
  FailureClass c = failure != FailureClass::kUnknown && failure != FailureClass::kNone ? failure
                   : unfixable                                                         ? FailureClass::kMissingInput
                                                                                       : classify_failure_text(message);
  d.error_type = to_string(c);
  d.root_cause = failure_cause(c, Lang::kEn);
  d.root_cause_zh = failure_cause(c, Lang::kZh);
  d.pattern = generalise(d.error_type + " in stage " + stage);
  if (c == FailureClass::kUnknown) return d;
  if (const Repair* r = table_repair(stage, c, message)) {
    d.fix = r->key;
    if (!r->root_cause.empty()) d.root_cause = r->root_cause;
    if (!r->root_cause_zh.empty()) d.root_cause_zh = r->root_cause_zh;
  } else if (c == FailureClass::kMissingInput) {
    d.fix = "ask_for_file";
    std::string what, what_zh;
    for (auto& p : naming_problems)
      if (!p.value("fixable", false)) {
        what += (what.empty() ? "" : "; ") + p.value("message", p.value("file", ""));
        what_zh += (what_zh.empty() ? "" : "；") + p.value("message_zh", p.value("file", ""));
      }
    if (!what.empty()) d.root_cause = what;
    if (!what_zh.empty()) d.root_cause_zh = failure_cause(c, Lang::kZh) + "：" + what_zh;
  } else if (c == FailureClass::kMalformedInput) {
    d.fix = "ask_for_valid_file";
  }
  return d;
}

}  // namespace bioagent
