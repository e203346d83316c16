// Figure text follows the language passed to the figure: a stage draws in its
// run's "lang" (run_lang), and the figure functions then write their titles,
// axes and legends in Chinese. BiText and the Lang names are tested here too.
#include <gtest/gtest.h>

#include "bioagent/bitext.h"
#include "bioagent/pipeline.h"
#include "genefamily/figures/figures.h"
#include "genefamily/figures/figures_paper.h"
#include "genefamily/stages/stage_common.h"

namespace bioagent {
namespace {

TEST(FigureLanguage, LabelsFollowTheLanguagePassed) {
  // A verdict from the test of Ka = Ks colours its point and names it in the legend; an untested pair claims none.
  std::vector<figures::KaKs> points = {{"a/b", 0.02, 0.1, "purifying"}, {"c/d", 0.3, 0.2, ""}};
  const std::string en = figures::kaks(Lang::kEn, points, "t");
  EXPECT_NE(en.find("purifying"), std::string::npos);
  const std::string cn = figures::kaks(Lang::kZh, points, "t");
  EXPECT_NE(cn.find("纯化选择"), std::string::npos) << cn;
  EXPECT_NE(cn.find("同义替换率"), std::string::npos);
  EXPECT_EQ(cn.find("purifying"), std::string::npos);
  EXPECT_EQ(cn.find("synonymous"), std::string::npos);
  const std::string ks = figures::ks_distribution(Lang::kZh, {0.1, 0.12, 0.5}, "t");
  EXPECT_NE(ks.find("未计入"), std::string::npos) << ks;
  EXPECT_EQ(ks.find("left out"), std::string::npos);
  EXPECT_EQ(figures::kaks(Lang::kEn, points, "t"), en) << "drawing in Chinese leaves nothing behind";
}

// A title in Chinese needs a full em per character, so it is never cut.
TEST(FigureLanguage, ChineseTitlesAreMeasuredAtAFullEmPerCharacter) {
  EXPECT_DOUBLE_EQ(figures::text_width("重复基因", 10), 40);
  EXPECT_DOUBLE_EQ(figures::text_width("ab", 10), 12);
}

TEST(FigureLanguage, AStageDrawsInItsRunsLanguage) {
  StageContext zh, en, none;
  zh.run = Json{{"lang", "zh"}, {"species", "Lchi"}, {"family", "SPL"}};
  en.run = Json{{"lang", "en"}, {"species", "Lchi"}, {"family", "SPL"}};
  none.run = Json{{"species", "Lchi"}, {"family", "SPL"}};
  EXPECT_EQ(gf::run_lang(zh), Lang::kZh);
  EXPECT_EQ(gf::run_lang(en), Lang::kEn);
  EXPECT_EQ(gf::run_lang(none), Lang::kEn) << "a run that names no language is drawn in English";
  EXPECT_EQ(gf::figure_title(zh, {" phylogeny", " 系统发育树"}), "Lchi SPL 系统发育树");
  EXPECT_EQ(gf::figure_title(none, {" phylogeny", " 系统发育树"}), "Lchi SPL phylogeny");
}

TEST(BiText, PicksTheTextOfTheLanguage) {
  constexpr BiText kDone{"done", "已完成"};
  static_assert(kDone.view(Lang::kZh) == "已完成");
  EXPECT_EQ(kDone.in(Lang::kEn), "done");
  EXPECT_EQ(kDone.in(Lang::kZh), "已完成");
  const std::string n = "3";
  EXPECT_EQ((BiText{n + " genes", n + " 个基因"}.in(Lang::kZh) + "。"), "3 个基因。")
      << "a BiText of temporaries is used within its expression";
  EXPECT_EQ(texts_in(Lang::kZh, {{"gene", "基因"}, {"start", "起始"}}), (std::vector<std::string>{"基因", "起始"}));
  EXPECT_TRUE(texts_in(Lang::kEn, {}).empty());
}

TEST(BiText, LanguageNamesRoundTripAndRefuseOthers) {
  for (auto& [lang, name] : kLangNames) {
    EXPECT_EQ(lang_name(lang), name);
    EXPECT_EQ(lang_from_name(name), lang);
  }
  EXPECT_EQ(lang_from_name(""), std::nullopt);
  EXPECT_EQ(lang_from_name("ZH"), std::nullopt) << "names are exact";
  EXPECT_EQ(lang_from_name("fr"), std::nullopt);
  EXPECT_EQ(lang_or_en("fr"), Lang::kEn);
  EXPECT_EQ(lang_or_en("zh"), Lang::kZh);
}

}  // namespace
}  // namespace bioagent
