// Adding a gene-family stage is one file and one row: a toy row added to the
// table is seen by the engine's plan, the parameter dialog, the labels clients
// show, the report and status.json, with no other list naming it.
#include <gtest/gtest.h>

#include <fstream>

#include "bioagent/genefamily.h"
#include "bioagent/schema.h"
#include "test_util.h"

using namespace bioagent;
using bioagent::testing::TempDir;

namespace {

// Counts identify's members; its one parameter, `level`, is offered by the dialog.
StageSpec member_count_stage() {
  StageSpec s;
  s.name = "member_count";
  s.description = "counts the family's members (a toy row)";
  s.label = "member count";
  s.label_zh = "成员计数";
  s.after = {"identify"};
  s.params_schema = Json::parse(R"({"type": "object", "properties": {
      "level": {"type": "integer", "minimum": 1, "maximum": 9, "default": 3}}, "additionalProperties": false})");
  s.dialog = {{"level", {"counting level", "计数级别"}}};
  s.steps = [](const StageContext&) -> Result<std::vector<Step>> {
    return std::vector<Step>{StageFn([](const StageContext& c) {
      std::ifstream in(c.input.at("identify") / "members.tsv");
      int n = -1;  // the header line
      for (std::string line; std::getline(in, line);) n += !line.empty();
      std::ofstream(c.work / "count.txt") << n << "\n";
      return Status::ok();
    })};
  };
  s.outputs = {"count.txt"};
  s.parse = [](const StageContext& c) -> Result<Json> {
    int n = 0;
    std::ifstream(c.work / "count.txt") >> n;
    return Json{{"members", n}};
  };
  s.report = [](const ReportContext& r) {
    int n = 0;
    if (!r.folder.empty()) std::ifstream(r.folder / "count.txt") >> n;
    return ReportSection{"member-count",
                         BiText{"Member count", "成员计数"}.in(r.lang),
                         {BiText{"Counted members: ", "计数的成员："}.in(r.lang) + std::to_string(n)},
                         {},
                         {},
                         "",
                         {}};
  };
  return s;
}

bool has_named(const Json& rows, const std::string& field, const std::string& value) {
  for (auto& r : rows)
    if (r.value(field, "") == value) return true;
  return false;
}

}  // namespace

TEST(StageRow, AToyRowIsSeenByThePlanDialogLabelsReportAndStatus) {
  const Pipeline p = genefamily_pipeline_with({member_count_stage()});
  // The plan: the whole table plans it after identify and before the report, which reads it; the report
  // asked for alone comes with what it needs (identify), not with what it would read.
  auto alone = p.plan({"report"});
  ASSERT_TRUE(alone.is_ok()) << alone.status().to_string();
  EXPECT_EQ(*alone, (std::vector<std::string>{"identify", "report"}));
  auto plan = p.plan({});
  ASSERT_TRUE(plan.is_ok()) << plan.status().to_string();
  auto at = [&](const std::string& n) { return std::find(plan->begin(), plan->end(), n) - plan->begin(); };
  ASSERT_LT(at("member_count"), long(plan->size()));
  EXPECT_LT(at("identify"), at("member_count"));
  EXPECT_LT(at("member_count"), at("report"));
  // The dialog: its field, default and range from its schema.
  Json fields = p.dialog_fields();
  ASSERT_TRUE(has_named(fields, "key", "level")) << fields.dump();
  EXPECT_EQ(p.dialog_defaults(Json::object())["level"], 3);
  EXPECT_EQ(p.dialog_defaults(Json{{"member_count", {{"level", 5}}}})["level"], 5) << "the server's value first";
  EXPECT_TRUE(p.check_dialog_value("level", 4).is_ok());
  EXPECT_FALSE(p.check_dialog_value("level", 12).is_ok());
  EXPECT_EQ(p.apply_dialog(Json::object(), Json{{"level", 4}})["member_count"]["level"], 4);
  // The labels clients show.
  EXPECT_TRUE(has_named(stage_labels(p), "label_zh", "成员计数"));
  // A run: status.json records the row's state and summary.
  if (!fs::exists("/usr/bin/hmmsearch")) GTEST_SKIP() << "hmmer is not installed (scripts/setup.sh installs it)";
  TempDir dir;
  ASSERT_TRUE(write_example_genome(dir.path() / "data").is_ok());
  auto cfg = genefamily_run_config("", "", dir.path() / "data", Json{{"member_count", {{"level", 4}}}});
  ASSERT_TRUE(cfg.is_ok()) << cfg.status().to_string();
  PipelineOptions o;
  o.run_dir = dir.path() / "run";
  o.stages = {"member_count"};
  auto runner = make_local_runner();
  auto r = run_genefamily(*cfg, *runner, o, p);
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  Json status = Json::parse(std::ifstream(o.run_dir / "status.json"));
  Json mine;
  for (auto& s : status["stages"])
    if (s["stage"] == "member_count") mine = s;
  ASSERT_TRUE(mine.is_object()) << status.dump();
  EXPECT_EQ(mine["state"], "done");
  EXPECT_GT(mine["summary"]["members"].get<int>(), 0);
  // The report: its section, from the table being run, beside the others.
  const StageSpec& report = *p.find("report");
  StageContext ctx;
  ctx.run = {{"species", "Exam"}, {"family", "GLOBIN"}, {"run_dir", o.run_dir.string()}};
  for (auto& s : *r) ctx.run["stage_states"][s.stage] = s.to_json();
  for (auto& s : *r)
    if (finished_with_outputs(s.state)) ctx.input[s.stage] = s.folder;
  ctx.params = apply_defaults(report.params_schema, Json::object());
  ctx.work = dir.path() / "report";
  fs::create_directories(ctx.work / "final");
  ctx.pipeline = &p;
  auto steps = report.steps(ctx);
  ASSERT_TRUE(steps.is_ok()) << steps.status().to_string();
  for (auto& step : *steps) {
    ASSERT_TRUE(std::holds_alternative<StageFn>(step)) << "the report runs in process";
    Status st = std::get<StageFn>(step)(ctx);
    ASSERT_TRUE(st.is_ok()) << st.to_string();
  }
  std::ifstream md(ctx.work / "final" / "Exam.GLOBIN.report.md");
  std::string text((std::istreambuf_iterator<char>(md)), {});
  EXPECT_NE(text.find("## Member count"), std::string::npos) << text.substr(0, 2000);
  EXPECT_NE(text.find("Counted members: " + std::to_string(mine["summary"]["members"].get<int>())), std::string::npos);
}
