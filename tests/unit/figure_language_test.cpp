// Figure text follows the run's language: the engine holds svg::FigureLanguage for
// a run whose config says "lang": "zh" while the stage's own code draws, and the
// figure functions then write their titles, axes and legends in Chinese.
#include <gtest/gtest.h>

#include "bioagent/pipeline.h"
#include "figures/svg.h"
#include "genefamily/figures/figures.h"
#include "genefamily/figures/figures_paper.h"
#include "test_util.h"
#include "toy_stage.h"

namespace bioagent {
namespace {

using testing::TempDir;

TEST(FigureLanguage, LabelsAreChineseOnlyWhileAChineseGuardIsHeld) {
  std::vector<figures::KaKs> points = {{"a/b", 0.02, 0.1}, {"c/d", 0.3, 0.2}};
  const std::string en = figures::kaks(points, "t");
  EXPECT_NE(en.find("purifying"), std::string::npos);
  {
    svg::FigureLanguage zh(true);
    const std::string cn = figures::kaks(points, "t");
    EXPECT_NE(cn.find("纯化选择"), std::string::npos) << cn;
    EXPECT_NE(cn.find("每个同义位点的替换数"), std::string::npos);
    EXPECT_EQ(cn.find("purifying"), std::string::npos);
    EXPECT_EQ(cn.find("synonymous"), std::string::npos);
    const std::string ks = figures::ks_distribution({0.1, 0.12, 0.5}, "t");
    EXPECT_NE(ks.find("未计入"), std::string::npos) << ks;
    EXPECT_EQ(ks.find("left out"), std::string::npos);
    {
      svg::FigureLanguage nested_en(false);
      EXPECT_EQ(svg::tr("a", "甲"), "a");
    }
    EXPECT_EQ(svg::tr("a", "甲"), "甲") << "the inner guard restores the outer language";
  }
  EXPECT_EQ(svg::tr("a", "甲"), "a");
  EXPECT_EQ(figures::kaks(points, "t"), en);
}

// A title in Chinese needs a full em per character, so it is never cut.
TEST(FigureLanguage, ChineseTitlesAreMeasuredAtAFullEmPerCharacter) {
  EXPECT_DOUBLE_EQ(figures::text_width("重复基因", 10), 40);
  EXPECT_DOUBLE_EQ(figures::text_width("ab", 10), 12);
}

StageSpec language_probe() {
  return testing::text_stage("probe", {}, R"({"type": "object", "properties": {}, "additionalProperties": false})",
                             [](const StageContext&) { return svg::tr("english", "chinese"); });
}

TEST(FigureLanguage, TheEngineDrawsAStageInTheRunsLanguage) {
  for (const char* lang : {"zh", "en"}) {
    TempDir dir;
    Pipeline p({language_probe()});
    PipelineOptions o;
    o.run_dir = dir.path() / "run";
    o.cpus = 1;
    auto runner = make_local_runner();
    auto r = p.run(Json{{"lang", lang}}, *runner, o);
    ASSERT_TRUE(r.is_ok()) << r.status().to_string();
    ASSERT_EQ(r->size(), 1u);
    EXPECT_EQ((*r)[0].summary["text"], std::string(lang) == "zh" ? "chinese" : "english") << lang;
  }
  EXPECT_FALSE(svg::FigureLanguage::chinese()) << "the engine's guard ends with the stage";
}

}  // namespace
}  // namespace bioagent
