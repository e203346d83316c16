// Traditional Chinese reads as simplified: every Chinese message of the router's case files, converted to
// traditional characters by OpenCC (s2t), routes to the same intent and family as written.
#include <gtest/gtest.h>
#include <opencc/opencc.h>

#include <fstream>
#include <sstream>

#include "assistant/route_rules.h"
#include "bioagent/assistant.h"
#include "bioagent/json_text.h"
#include "text/chinese_script.h"

namespace bioagent {
namespace {

std::string to_traditional(const std::string& s) {
  static opencc_t od = opencc_open(OPENCC_DEFAULT_CONFIG_SIMP_TO_TRAD);
  if (od == reinterpret_cast<opencc_t>(-1)) return s;
  char* out = opencc_convert_utf8(od, s.data(), s.size());
  std::string t(out);
  opencc_convert_utf8_free(out);
  return t;
}

// The message column of a case file (the last field of each line that is not a comment).
std::vector<std::string> chinese_messages(const std::string& file) {
  std::ifstream in(file);
  std::vector<std::string> out;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::string msg = line.substr(line.rfind('\t') + 1);
    if (has_cjk(msg)) out.push_back(msg);
  }
  return out;
}

TEST(ChineseScript, TraditionalIsReadAsSimplified) {
  EXPECT_EQ(to_simplified("確認，開始執行"), "确认，开始执行");
  EXPECT_EQ(to_simplified("run the SPL analysis"), "run the SPL analysis");
  EXPECT_EQ(to_simplified(""), "");
  // Not UTF-8, a character cut short at the end, NULs inside: converted around them, never read past the end.
  EXPECT_EQ(to_simplified("M\xff\xfe K"), "M\xEF\xBF\xBD\xEF\xBF\xBD K");
  const std::string cut = "Has the W\xe5\xa6\x82\xe6\x9e";  // 如 then half of 果
  EXPECT_EQ(to_simplified(cut).substr(0, 12), "Has the W\xe5\xa6\x82");
  const std::string nul = std::string("開始\0執行", 13);
  EXPECT_EQ(to_simplified(nul), std::string("开始\0执行", 13));
}

TEST(ChineseScript, EveryChineseCaseRoutesAlikeInTraditionalCharacters) {
  size_t checked = 0, changed = 0;
  for (const char* file : {"router_cases.tsv", "router_fresh_dev.tsv", "router_fresh2_dev.tsv"}) {
    for (const std::string& simplified : chinese_messages(std::string(BIOAGENT_SOURCE_DIR) + "/tests/data/" + file)) {
      const std::string traditional = to_traditional(simplified);
      changed += traditional != simplified;
      Route a = route_by_rules(simplified), b = route_by_rules(traditional);
      EXPECT_EQ(to_string(a.intent), to_string(b.intent)) << simplified << " / " << traditional;
      EXPECT_EQ(a.family, b.family) << simplified << " / " << traditional;
      ++checked;
    }
  }
  EXPECT_GT(checked, 150u);
  EXPECT_GT(changed, checked / 2) << "most messages hold a character written differently in traditional script";
}

}  // namespace
}  // namespace bioagent
