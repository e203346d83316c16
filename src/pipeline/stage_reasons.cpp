// The bilingual table of stage reasons and their rendering.
#include "pipeline/stage_reasons.h"

#include <array>

#include "bioagent/json_text.h"
#include "bioagent/pipeline.h"

namespace bioagent {
namespace {

// A kind's sentence and its fix, each in English and Chinese (rows are written flat: kind, en, zh, fix_en, fix_zh).
struct ReasonText {
  const char* kind;
  BiText text, fix;
};

// Kinds written by the engine, then by stages (their summaries' reason_kind,
// or a Status detail kReasonDetail).
constexpr std::array<ReasonText, 20> kReasons = {{
    {"missing_data_file", "needs the {subject} file, which the data folder does not have",
     "缺少 {subject} 文件（数据文件夹中没有）", "upload the file under its rule name", "请按命名规则上传该文件"},
    {"data_file_other_prefix",
     "needs the {subject} file {expected}; the data folder holds {found} instead, named for another species "
     "(nothing is renamed for you)",
     "缺少 {subject} 文件 {expected}；数据文件夹中有 {found}，以另一物种的前缀命名（不会自动改名）",
     "if {found} is this species' file, rename it to {expected}; otherwise upload {expected}",
     "若 {found} 是本物种的文件，请改名为 {expected}；否则请上传 {expected}"},
    {"upstream_skipped", "needs the outputs of {subject}, which was skipped ({detail})",
     "依赖 {subject} 阶段的结果，而该阶段已跳过", "", ""},
    {"upstream_not_finished", "needs the outputs of {subject}, which did not finish ({detail})",
     "依赖 {subject} 阶段的结果，而该阶段未完成", "", ""},
    {"program_missing", "needs {subject} (not installed; scripts/setup.sh installs the Debian packages)",
     "需要的程序 {subject} 未安装（scripts/setup.sh 会安装）", "run scripts/setup.sh", "运行 scripts/setup.sh 安装"},
    {"cached", "finished earlier with the same inputs, parameters and tool versions",
     "已用相同的输入、参数与工具版本完成过", "", ""},
    {"cancelled", "cancelled", "已取消", "", ""},
    {"repaired", "finished after the automatic repair {subject}", "已自动修复（{subject}）后完成", "", ""},
    {"checks_warn", "a check of its results did not pass: {subject}",
     "部分结果检查未达阈值（数值与阈值见 validation.json）", "", ""},
    {"nothing_applied", "nothing applied", "没有适用的内容", "", ""},
    {"duplicate_id", "the id '{id}' appears twice in {file} (lines {first_line} and {line})",
     "{file} 中的序列名 '{id}' 出现了两次（第 {first_line} 行与第 {line} 行）",
     "make every id unique (keep one isoform per gene, or rename the copy) and upload the file again",
     "请使每个序列名唯一（每个基因只保留一个异构体，或重命名重复的记录）后重新上传该文件"},
    {"input_limit", "{file} is beyond the input limit {limit} ({limit_value})",
     "{file} 超出输入限制 {limit}（{limit_value}）",
     "if the file is genuine, raise the limit: the run parameter {\"input_limits\": {\"{limit}\": N}}",
     "如果文件确实无误，请提高该限制：运行参数 {\"input_limits\": {\"{limit}\": N}}"},
    {"bad_input", "{file} line {line}: {detail}", "{file} 第 {line} 行格式有误{detail_zh}",
     "correct the file and upload it again", "请修正该文件后重新上传"},
    {"no_expression_data",
     "no expression matrix was given: add <Prefix>.expression.tsv (or .csv, .xlsx; genes x samples, TPM, FPKM or "
     "counts) to the data folder; on the command line {\"expression\": {\"matrix\": FILE}} or FASTQ reads "
     "({\"reads\": [{\"sample\", \"r1\", \"r2\"}]}, quantified with salmon) work too",
     "未提供表达矩阵或测序读段", "upload <Prefix>.expression.tsv (a genes x samples table) with the species' files",
     "将 <前缀>.expression.tsv（基因 × 样本表）与该物种的文件一起上传"},
    {"no_orthologs",
     "no Arabidopsis orthologs were given: set {\"ppi\": {\"orthologs\": TSV}} with member gene and AGI (e.g. "
     "AT1G27370) per line",
     "未提供直系同源表，无法将成员映射到模式物种的互作网络", "set ppi.orthologs to a member -> model-gene table",
     "在参数中设置 ppi.orthologs（成员与模式物种基因的对应表）"},
    {"offline", "offline: {subject} cannot be asked", "离线模式：无法查询 {subject}", "run with network access",
     "联网后重新运行"},
    {"unreachable", "{subject} could not be reached", "无法连接 {subject}", "try again later", "请稍后重试"},
    {"no_positions", "no member has a position in the GFF3", "没有成员在 GFF3 中有位置",
     "upload the GFF3 that matches the protein file", "请上传与蛋白质文件对应的 GFF3"},
    {"no_pairs", "no duplicated pairs among the members", "成员中没有重复基因对", "", ""},
    {"failure", "failed ({subject})", "失败类别：{class_zh}（详情见该阶段的 stage.log）", "", ""},
}};

const ReasonText* find_reason(const Json& reason) {
  if (!reason.is_object() || !reason.contains("kind") || !reason["kind"].is_string()) return nullptr;
  const std::string kind = reason["kind"].get<std::string>();
  for (auto& r : kReasons)
    if (kind == r.kind) return &r;
  return nullptr;
}

std::string value_text(const Json& v) {
  return v.is_string() ? v.get<std::string>() : v.is_null() ? std::string() : json_text(v);
}

std::string fill(std::string text, const Json& reason) {
  Json fields = reason;
  if (reason.value("kind", std::string()) == "failure")
    if (auto c = failure_class_from_string(reason.value("subject", std::string())))
      fields["class_zh"] = failure_class_name(*c, Lang::kZh);
  // "{name}" (lower-case letters and '_') is a field; any other brace is text.
  for (size_t open = text.find('{'); open != std::string::npos; open = text.find('{', open)) {
    size_t close = text.find_first_not_of("abcdefghijklmnopqrstuvwxyz_", open + 1);
    if (close == std::string::npos || text[close] != '}' || close == open + 1) {
      ++open;
      continue;
    }
    std::string v = value_text(fields.value(text.substr(open + 1, close - open - 1), Json()));
    text.replace(open, close - open + 1, v);
    open += v.size();
  }
  return text;
}

}  // namespace

std::string render_reason(const Json& reason, Lang lang) {
  const ReasonText* r = find_reason(reason);
  return r ? fill(r->text.in(lang), reason) : "";
}

std::string reason_fix(const Json& reason, Lang lang) {
  const ReasonText* r = find_reason(reason);
  return r ? fill(r->fix.in(lang), reason) : "";
}

bool is_upstream_reason(const Json& reason) {
  const ReasonText* r = find_reason(reason);
  return r && (std::string(r->kind) == "upstream_skipped" || std::string(r->kind) == "upstream_not_finished");
}

std::string repair_params_text(const Json& repair, Lang lang) {
  std::string out;
  if (!repair.is_object()) return out;
  const Json asked = repair.value("asked", Json::object()), used = repair.value("used", Json::object());
  for (auto& [k, v] : used.items()) {
    std::string a = value_text(asked.value(k, Json()));
    out += (out.empty() ? "" : BiText{"; ", "；"}.in(lang)) + k +
           BiText{": asked " + a + ", used ", "：设定 " + a + "，实际使用 "}.in(lang) + value_text(v);
  }
  return out;
}

std::string repair_text(const Json& repair, Lang lang) {
  if (!repair.is_object()) return "";
  if (lang != Lang::kZh) return repair.value("description", std::string());
  std::string d = repair.value("description_zh", std::string());
  if (!d.empty()) return d;
  std::string out;
  const Json asked = repair.value("asked", Json::object()), used = repair.value("used", Json::object());
  for (auto& [k, v] : used.items())
    out += (out.empty() ? "" : "，") + ("参数 " + k + " 由 " + value_text(asked.value(k, Json())) + " 改为 ") +
           value_text(v);
  return out.empty() ? "已自动修复" : out + " 后重新运行";
}

}  // namespace bioagent
