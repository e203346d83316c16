// Chinese words glossed from CC-CEDICT (index/chinese_gloss.h), checked against the dictionary
// itself: cases are drawn from its entries, not listed. Skipped, saying so, when scripts/setup.sh
// has not installed the dictionary.
#include "index/chinese_gloss.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "bioagent/collections.h"

using namespace bioagent;

namespace {

struct Entry {
  std::string simplified, traditional, gloss;  // gloss: the first sense, one plain word
};

size_t chars(const std::string& s) {
  return static_cast<size_t>(std::count_if(s.begin(), s.end(), [](char c) { return (c & 0xC0) != 0x80; }));
}

bool plain_word(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= 'a' && c <= 'z'; });
}

// Words of 2–4 characters whose form is one entry only and whose first sense is one plain word
// (the dictionary read once: a second parse costs seconds under the sanitizers).
const std::vector<Entry>& candidate_entries() {
  static const std::vector<Entry> all = [] {
    std::ifstream in(chinese_gloss_status().path);
    nlohmann::json dict = nlohmann::json::parse(in, nullptr, false);
    std::map<std::string, int> forms;
    for (auto& e : dict) ++forms[e["simplified"].get<std::string>()], ++forms[e["traditional"].get<std::string>()];
    std::vector<Entry> out;
    for (auto& e : dict) {
      std::string s = e["simplified"], t = e["traditional"], g = e["english"][0];
      if (chars(s) < 2 || chars(s) > 4 || forms[s] != (s == t ? 2 : 1) || forms[t] != (s == t ? 2 : 1)) continue;
      if (plain_word(g)) out.push_back({s, t, g});
    }
    return out;
  }();
  return all;
}

std::vector<Entry> sample_entries(size_t stride) {
  std::vector<Entry> out;
  const auto& all = candidate_entries();
  for (size_t i = 0; i < all.size(); i += stride) out.push_back(all[i]);
  return out;
}

class ChineseGloss : public ::testing::Test {
 protected:
  void SetUp() override {
    auto status = chinese_gloss_status();
    if (!status.available) GTEST_SKIP() << "CC-CEDICT not installed: " << status.detail;
  }
};

bool holds(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

TEST_F(ChineseGloss, EachWordGivesItsFirstSenseInBothScripts) {
  auto sample = sample_entries(40);
  ASSERT_GE(sample.size(), 50u);
  for (auto& e : sample) {
    EXPECT_TRUE(holds(gloss_chinese_run(e.simplified), e.gloss)) << e.simplified << " → " << e.gloss;
    EXPECT_TRUE(holds(gloss_chinese_run(e.traditional), e.gloss)) << e.traditional << " → " << e.gloss;
  }
}

// A word of several senses: the senses the searched text holds are chosen ("融合" in a library of gene
// editors is "fusion", not "a mixture"), and the first two when it holds none. Drawn from the dictionary:
// words whose first three senses are plain single words.
TEST_F(ChineseGloss, TheSensesTheLibraryWritesAreChosen) {
  std::ifstream in(chinese_gloss_status().path);
  const nlohmann::json dict = nlohmann::json::parse(in, nullptr, false);
  std::map<std::string, int> forms;
  for (auto& e : dict) ++forms[e["simplified"].get<std::string>()];
  size_t checked = 0;
  for (size_t i = 0; i < dict.size() && checked < 60; i += 7) {
    const auto& e = dict[i];
    const std::string word = e["simplified"];
    const auto& senses = e["english"];
    if (chars(word) < 2 || forms[word] != 1 || senses.size() < 3) continue;
    const std::string first = senses[0], third = senses[2];
    if (!plain_word(first) || !plain_word(senses[1].get<std::string>()) || !plain_word(third)) continue;
    ++checked;
    EXPECT_EQ(gloss_chinese_run(word, [&](const std::string& g) { return g == third; }),
              std::vector<std::string>{third})
        << word;
    EXPECT_TRUE(holds(gloss_chinese_run(word, [](const std::string&) { return false; }), first)) << word;
    EXPECT_TRUE(holds(gloss_chinese_run(word), first)) << word;
  }
  EXPECT_GE(checked, 20u);
}

// A word holding a name of the built-in glossary or the species and family names is read by that
// name (根 in 命根 is "root"); every other word by the dictionary.
TEST_F(ChineseGloss, AQuestionFindsTheEnglishOfEveryWordBetweenPunctuationAndLatinNames) {
  auto sample = sample_entries(97);
  std::erase_if(sample, [](const Entry& e) { return !name_expansions(e.simplified + "，" + e.traditional).empty(); });
  ASSERT_GE(sample.size(), 20u);
  for (size_t i = 0; i + 1 < sample.size(); i += 2) {
    const Entry &a = sample[i], &b = sample[i + 1];
    auto found = query_expansions("在SMN2中，" + a.simplified + "？ " + b.traditional + "。");
    EXPECT_TRUE(holds(found, a.gloss)) << a.simplified;
    EXPECT_TRUE(holds(found, b.gloss)) << b.traditional;
  }
}

TEST_F(ChineseGloss, SingleCharactersLatinTextAndBrokenInputGiveNothing) {
  for (const char* one : {"水", "的", "图", "中"}) EXPECT_TRUE(gloss_chinese_run(one).empty()) << one;
  EXPECT_TRUE(gloss_chinese_run("").empty());
  EXPECT_TRUE(gloss_chinese_run("GO:0032797 p < 0.05").empty());
  EXPECT_TRUE(gloss_chinese_run(std::string("\xe6\x98", 2)).empty());  // a character cut short
  // The router's counting never sees glosses: names only.
  EXPECT_TRUE(name_expansions("显微镜的像素").empty());
}

}  // namespace
