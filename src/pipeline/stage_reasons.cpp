// The engine's reasons for a stage's state in Chinese.
#include "pipeline/stage_reasons.h"

#include <map>
#include <regex>

namespace bioagent {

std::string failure_class_zh(const std::string& failure) {
  static const std::map<std::string, std::string> names = {{"tool_missing", "缺少程序"},
                                                           {"missing_file", "缺少输入文件"},
                                                           {"bad_format", "输入文件格式错误"},
                                                           {"time_limit", "超出时间限制"},
                                                           {"out_of_memory", "内存不足"},
                                                           {"empty_result", "结果为空"},
                                                           {"gene_count_out_of_bounds", "成员数超出范围"},
                                                           {"tool_error", "程序出错"}};
  auto it = names.find(failure);
  return it == names.end() ? "原因未能识别" : it->second;
}

std::string stage_reason_zh(const std::string& message, const std::string& failure) {
  std::smatch m;
  static const std::regex file(R"(^needs the (\S+) file, which the data folder does not have)");
  static const std::regex upstream(R"(^needs the outputs of (\S+), which (was skipped|did not finish))");
  static const std::regex program(R"(^needs (.+) \(not installed)");
  if (std::regex_search(message, m, file)) return "缺少 " + m[1].str() + " 文件（数据文件夹中没有）";
  if (std::regex_search(message, m, upstream))
    return "依赖 " + m[1].str() + " 阶段的结果，而该阶段" + (m[2] == "was skipped" ? "已跳过" : "未完成");
  if (std::regex_search(message, m, program)) return "需要的程序 " + m[1].str() + " 未安装（scripts/setup.sh 会安装）";
  if (message.rfind("finished earlier", 0) == 0) return "已用相同的输入、参数与工具版本完成过";
  if (message == "cancelled") return "已取消";
  if (message.rfind("repaired: ", 0) == 0) return "已自动修复后完成";
  if (!failure.empty()) return "失败类别：" + failure_class_zh(failure) + "（详情见该阶段的 stage.log）";
  return "";
}

}  // namespace bioagent
