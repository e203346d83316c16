// What a run says of itself is true: an automatic repair shows the values
// asked and used in the stage's state, events and learning text; a running
// stage reports its progress and the stages to come are queued; the outcome
// says a warned stage finished, tells a duplicate id once with its fix and
// links the failed stage's log; a Chinese outcome has no English sentence.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>

#include "assistant/assistant_impl.h"
#include "bioagent/pipeline.h"
#include "pipeline/stage_reasons.h"
#include "test_util.h"
#include "toy_stage.h"

using namespace bioagent;
using bioagent::testing::TempDir;

namespace {

// A stage that finds nothing below E-value 1e-10 (an empty result), with the
// table's kind of repair: relax the E-value, the texts naming the values.
StageSpec search_stage() {
  StageSpec s = bioagent::testing::text_stage(
      "search", {}, R"({"type": "object", "properties": {"evalue": {"type": "number", "default": 1e-5}}})",
      [](const StageContext& c) { return "evalue " + c.params["evalue"].dump(); });
  s.check = [](const StageContext& c) -> Status {
    if (c.params["evalue"].get<double>() < 1e-10)
      return with_failure(Status(ErrorCode::kToolFailed, "found nothing"), FailureClass::kEmptyResult);
    return Status::ok();
  };
  s.repairs = {{FailureClass::kEmptyResult, "", "relax_evalue", "relax the E-value from {asked} to {used}",
                "nothing at the asked E-value", "start at E-value {used} when {asked} found nothing",
                Json{{"evalue", 1e-3}}, true, "将 E 值由 {asked} 放宽为 {used}", "E 值 {asked} 无结果时直接用 {used}"}};
  return s;
}

std::string read(const fs::path& p) {
  std::ifstream in(p);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

}  // namespace

TEST(TruthfulRepair, StateEventsAndTextsCarryTheValuesAskedAndUsed) {
  TempDir dir;
  Pipeline p({search_stage(), bioagent::testing::text_stage("next", {"search"}, R"({"type": "object"})",
                                                            [](const StageContext&) { return std::string("next"); })});
  PipelineOptions o;
  o.run_dir = dir.path() / "run";
  std::vector<PipelineEvent> events;
  o.on_event = [&](const PipelineEvent& e) { events.push_back(e); };
  auto runner = make_local_runner();
  auto r = p.run(Json{{"params", {{"search", {{"evalue", 1e-200}}}}}}, *runner, o);
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  const StageStatus& st = (*r)[0];
  EXPECT_EQ(st.state, StageState::kDone);
  EXPECT_EQ(st.summary["text"], "evalue 0.001") << "the repair's value ran";
  Json j = st.to_json();
  EXPECT_TRUE(j.value("repaired", false)) << j.dump();
  EXPECT_EQ(j["repair"]["asked"]["evalue"], 1e-200);
  EXPECT_EQ(j["repair"]["used"]["evalue"], 1e-3);
  EXPECT_EQ(j["reason"]["kind"], "repaired");
  EXPECT_EQ(st.message, "repaired: relax the E-value from 1e-200 to 0.001");
  EXPECT_EQ(j["repair"]["prevention"], "start at E-value 0.001 when 1e-200 found nothing");
  EXPECT_EQ(repair_text(j["repair"], Lang::kZh), "将 E 值由 1e-200 放宽为 0.001");
  EXPECT_EQ(repair_params_text(j["repair"], Lang::kEn), "evalue: asked 1e-200, used 0.001");
  // The event of the repair and the final one carry it too.
  bool repairing = false, final_repaired = false;
  for (auto& e : events) {
    if (e.stage != "search") continue;
    if (e.state == StageState::kRepairing)
      repairing = e.message == "relax the E-value from 1e-200 to 0.001" && e.repair["asked"]["evalue"] == 1e-200;
    if (e.state == StageState::kDone) final_repaired = e.repair.is_object();
  }
  EXPECT_TRUE(repairing);
  EXPECT_TRUE(final_repaired);
  // The attempt record keeps both values.
  auto history = pipeline_history(o.run_dir);
  ASSERT_TRUE(history.is_ok());
  EXPECT_NE(history->dump().find("1e-200"), std::string::npos) << history->dump();
}

TEST(TruthfulProgress, RunningStagesReportTheirStepsAndTheRestAreQueued) {
  TempDir dir;
  StageSpec slow = bioagent::testing::text_stage("slow", {}, R"({"type": "object"})",
                                                 [](const StageContext&) { return std::string("slow"); });
  slow.steps = [](const StageContext&) -> Result<std::vector<Step>> {
    return std::vector<Step>{Command{{"sleep", "2.2"}, "", ""}, StageFn([](const StageContext& c) {
                               std::ofstream(c.work / "out.txt") << "slow\n";
                               return Status::ok();
                             })};
  };
  slow.phase = [](const fs::path& work) { return fs::exists(work / "stage.log") ? "sleeping" : ""; };
  Pipeline p({slow, bioagent::testing::text_stage("after", {"slow"}, R"({"type": "object"})",
                                                  [](const StageContext&) { return std::string("after"); })});
  PipelineOptions o;
  o.run_dir = dir.path() / "run";
  o.progress_seconds = 1;
  std::vector<PipelineEvent> events;
  o.on_event = [&](const PipelineEvent& e) { events.push_back(e); };
  auto runner = make_local_runner();
  ASSERT_TRUE(p.run(Json::object(), *runner, o).is_ok());
  ASSERT_GE(events.size(), 2u);
  EXPECT_EQ(events[0].state, StageState::kPending);  // the queue first, in table order
  EXPECT_EQ(events[1].stage, "after");
  EXPECT_EQ(events[1].state, StageState::kPending);
  int steps = 0, beats = 0;
  for (auto& e : events)
    if (e.progress.is_object() && e.stage == "slow") {
      EXPECT_EQ(e.progress["steps"], 2);
      steps += e.progress["what"] == "sleep";
      beats += e.progress["elapsed_seconds"].get<double>() >= 1;
    }
  EXPECT_GE(steps, 1) << "the step's program is named";
  EXPECT_GE(beats, 1) << "a long step reports its elapsed time while it runs";
}

namespace {

// A finished run folder: identify repaired, phylogeny with a warning.
void write_run(const fs::path& d, const Json& stages, const Json& checks) {
  fs::create_directories(d / "final");
  std::ofstream(d / "run.json") << R"({"species": "Lchi", "family": "SPL"})";
  std::ofstream(d / "status.json") << Json{{"stages", stages}}.dump();
  std::ofstream(d / "validation.json") << Json{{"checks", checks}}.dump();
}

bool has_english_sentence(const std::string& text, std::string* hit) {
  std::string no_ids = std::regex_replace(text, std::regex(R"([A-Za-z0-9_./-]+\.(txt|json|log|sh|fasta|html))"), "");
  std::regex english_sentence(R"([A-Za-z]+[ ,:;]+[A-Za-z]+[ ,:;]+[A-Za-z]+[ ,:;]+[A-Za-z]+)");
  std::smatch m;
  if (!std::regex_search(no_ids, m, english_sentence)) return false;
  *hit = m.str();
  return true;
}

}  // namespace

TEST(TruthfulOutcome, ARepairAndAWarningAreToldAsTheyWere) {
  TempDir d;
  Json repair = {{"key", "relax_evalue"},
                 {"description", "relax the identify E-value from 1e-200 to 0.001 and say so in the report"},
                 {"description_zh", "将鉴定的 E 值由 1e-200 放宽为 0.001 重新检索，并在报告中注明"},
                 {"asked", {{"evalue", 1e-200}}},
                 {"used", {{"evalue", 1e-3}}}};
  write_run(
      d.path(),
      Json::array({{{"stage", "identify"},
                    {"state", "done"},
                    {"repaired", true},
                    {"repair", repair},
                    {"reason", {{"kind", "repaired"}, {"subject", "relax_evalue"}}},
                    {"message", "repaired: relax the identify E-value from 1e-200 to 0.001"}},
                   {{"stage", "phylogeny"},
                    {"state", "warn"},
                    {"reason", {{"kind", "checks_warn"}, {"subject", "median UFBoot/SH-like support"}}},
                    {"message", "median UFBoot/SH-like support: 61 is below 70"}}}),
      Json::array(
          {{{"check", "stage phylogeny"}, {"status", "warn"}, {"detail", "warn: median"}},
           {{"check", "phylogeny: median UFBoot/SH-like support"}, {"status", "warn"}, {"detail", "61 is below 70"}}}));
  std::string en = run_outcome_text(d.path(), "t_1", "done", "", Lang::kEn, nullptr);
  EXPECT_NE(en.find("identify: done, repaired (relax the identify E-value from 1e-200 to 0.001"), std::string::npos)
      << en;
  EXPECT_NE(en.find("evalue: asked 1e-200, used 0.001"), std::string::npos) << en;
  EXPECT_NE(en.find("phylogeny: finished with a warning"), std::string::npos) << en;
  EXPECT_EQ(en.find("did not finish"), std::string::npos) << "a warned stage finished:\n" << en;
  std::string zh = run_outcome_text(d.path(), "t_1", "done", "", Lang::kZh, nullptr);
  EXPECT_NE(zh.find("已自动修复后完成（将鉴定的 E 值由 1e-200 放宽为 0.001"), std::string::npos) << zh;
  EXPECT_NE(zh.find("evalue：设定 1e-200，实际使用 0.001"), std::string::npos) << zh;
  EXPECT_EQ(zh.find("未完成"), std::string::npos) << zh;
  std::string hit;
  EXPECT_FALSE(has_english_sentence(zh, &hit)) << "English: '" << hit << "' in\n" << zh;
}

TEST(TruthfulOutcome, ADuplicateIdIsOneMessageWithItsFixAndTheLog) {
  TempDir d;
  Json stages = Json::array({{{"stage", "identify"},
                              {"state", "failed"},
                              {"failure", "bad_format"},
                              {"folder", (d.path() / "stages" / "identify-abc").string()},
                              {"reason",
                               {{"kind", "duplicate_id"},
                                {"subject", "LITCHI001"},
                                {"id", "LITCHI001"},
                                {"file", "Lchi.pep.fasta"},
                                {"line", 40},
                                {"first_line", 12}}},
                              {"message", "identify: Lchi.pep.fasta line 40: the id 'LITCHI001' was used already"}}});
  Json checks = Json::array();
  for (const char* s : {"phylogeny", "domain", "properties", "motif", "structure", "chromosome", "promoter", "synteny",
                        "kaks", "ppi", "expression", "panel", "report"}) {
    stages.push_back({{"stage", s},
                      {"state", "skipped"},
                      {"reason", {{"kind", "upstream_not_finished"}, {"subject", "identify"}, {"detail", "failed"}}},
                      {"message", "needs the outputs of identify, which did not finish (failed)"}});
    checks.push_back({{"check", std::string("stage ") + s}, {"status", "skipped"}, {"detail", "skipped"}});
  }
  for (const char* f : {"pep.fasta", "geneID.txt", "domain.txt", "cds.fasta"})
    checks.push_back({{"check", std::string("file final/Lchi.SPL.") + f}, {"status", "fail"}, {"detail", "missing"}});
  write_run(d.path(), stages, checks);
  for (bool zh : {false, true}) {
    Json links = Json::array();
    std::string text =
        run_outcome_text(d.path(), "t_9", "failed", "some stages failed", zh ? Lang::kZh : Lang::kEn, &links);
    size_t lines = std::count(text.begin(), text.end(), '\n');
    EXPECT_LE(lines, 4u) << "one line for the failure, one for what it held up, one for the files:\n" << text;
    size_t mentions = 0;
    for (size_t at = text.find("LITCHI001"); at != std::string::npos; at = text.find("LITCHI001", at + 1)) ++mentions;
    EXPECT_EQ(mentions, 1u) << text;
    EXPECT_NE(text.find(zh ? "重命名重复的记录" : "make every id unique"), std::string::npos) << text;
    EXPECT_NE(text.find(zh ? "（13 个）" : "(13 stages)"), std::string::npos) << text;
    bool log = false;
    for (auto& l : links) log |= l["kind"] == "log" && l["url"] == "/api/agent/results/t_9/files/logs/identify.log";
    EXPECT_TRUE(log) << links.dump();
    std::string hit;
    if (zh) EXPECT_FALSE(has_english_sentence(text, &hit)) << "English: '" << hit << "' in\n" << text;
  }
}

TEST(TruthfulOutcome, KeyFiguresAreNamedByTheReportsCaptions) {
  TempDir d;
  write_run(d.path(), Json::array({{{"stage", "panel"}, {"state", "done"}}}), Json::array());
  for (const char* f : {"Lchi.SPL.combined_panel.svg", "Lchi.SPL.motif_logos.svg", "Lchi.SPL.kaks.svg"})
    std::ofstream(d.path() / "final" / f) << "<svg/>";
  std::ofstream(d.path() / "final" / "Lchi.SPL.figure_captions.json") << Json{
      {"figures", Json::array({{{"file", "Lchi.SPL.combined_panel.svg"},
                                {"number", 6},
                                {"caption", "家族成员的系统发育、保守基序和基因结构。左：有根树。"}},
                               {{"file", "Lchi.SPL.motif_logos.svg"},
                                {"number", 3},
                                {"caption", "保守基序的序列标识。"}}})}}.dump();
  std::string zh = run_outcome_text(d.path(), "t_1", "done", "", Lang::kZh, nullptr);
  EXPECT_NE(zh.find("图6 家族成员的系统发育、保守基序和基因结构。（Lchi.SPL.combined_panel.svg）"), std::string::npos)
      << zh;
  EXPECT_EQ(zh.find("左：有根树"), std::string::npos) << "only the caption's first sentence:\n" << zh;
  EXPECT_NE(zh.find("图3 保守基序的序列标识。（Lchi.SPL.motif_logos.svg）"), std::string::npos) << zh;
  EXPECT_NE(zh.find("图：Lchi.SPL.kaks.svg"), std::string::npos) << "a figure without a caption keeps its name\n" << zh;
  EXPECT_LT(zh.find("combined_panel"), zh.find("kaks.svg")) << "the combined panel first";
}
