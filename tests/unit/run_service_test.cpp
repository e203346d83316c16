// The run service on its own (no assistant): parameters as one value nested by
// stage with the dialog as its view, a run of the example genome through the
// naming check, its repair and what it learned, the dialog's answers, cancel
// and resume, owners kept apart.
#include <gtest/gtest.h>

#include <fstream>
#include <thread>

#include "bioagent/genefamily.h"
#include "bioagent/runs.h"
#include "test_util.h"

using namespace bioagent;
using bioagent::testing::TempDir;
namespace fs = std::filesystem;

namespace {

const Pipeline& table() { return genefamily_pipeline(); }

// The example genome with its proteins under a name that varies from the rule (Exam.pep.fa).
fs::path misnamed_example(const TempDir& dir) {
  fs::path d = dir.path() / "Exam";
  EXPECT_TRUE(write_example_genome(d).is_ok());
  fs::rename(d / "Exam.pep.fasta", d / "Exam.pep.fa");
  return d;
}

// A confirmed run of the example species' GLOBIN family by owner cli-a over `data`, into `run_dir`.
RunRequest example_run(const fs::path& data, const fs::path& run_dir, std::vector<std::string> stages) {
  RunRequest rq;
  rq.owner = "cli-a";
  rq.species = "Exam";
  rq.family = "GLOBIN";
  rq.data_dir = data;
  rq.run_dir = run_dir;
  rq.stages = std::move(stages);
  rq.confirmed = true;
  return rq;
}

std::unique_ptr<RunService> open_service(const fs::path& state, int timeout = 30) {
  RunServiceOptions o;
  o.state_dir = state;
  o.cpus = 1;
  o.confirm_timeout_seconds = timeout;
  auto s = RunService::open(o);
  EXPECT_TRUE(s.is_ok()) << s.status().to_string();
  return s ? std::move(*s) : nullptr;
}

// Every event of a task until it ends (or 120 s pass).
Json events_until_end(RunService& s, const std::string& owner, const std::string& task) {
  Json all = Json::array();
  int64_t after = 0;
  for (int i = 0; i < 1200; ++i) {
    for (auto& e : s.events(owner, task, after, std::chrono::milliseconds(100))) {
      after = e.value("seq", after);
      all.push_back(e);
    }
    auto st = s.status(owner, task);
    if (st && (*st).value("terminal", false) && s.events(owner, task, after, std::chrono::milliseconds(0)).empty())
      break;
  }
  return all;
}

Json of_type(const Json& events, const std::string& type) {
  Json out = Json::array();
  for (auto& e : events)
    if (e.value("type", "") == type) out.push_back(e);
  return out;
}

}  // namespace

TEST(RunParams, NestedByStageFlatDialogFieldsAndDisplayFieldsAreOneValue) {
  auto nested = parse_run_params(Json{{"identify", {{"evalue", 1e-10}}}, {"cpu", 1}}, table(), 4);
  ASSERT_TRUE(nested.is_ok()) << nested.status().to_string();
  auto flat =
      parse_run_params(Json{{"evalue", 1e-10}, {"cpu", 1}, {"species", "Lchi"}, {"stage", "identify"}}, table(), 4);
  ASSERT_TRUE(flat.is_ok()) << flat.status().to_string();
  EXPECT_EQ(nested->to_json(), flat->to_json()) << "the dialog's field is the stage's parameter";
  const Json view = dialog_view(*flat, table(), 2);
  EXPECT_EQ(view["evalue"], 1e-10);
  EXPECT_EQ(view["cpu"], 1);
  for (auto& f : table().dialog_fields()) EXPECT_TRUE(view.contains(f["key"].get<std::string>())) << f.dump();
  RunParams merged =
      merge_run_params(*flat, *parse_run_params(Json{{"phylogeny", {{"method", "fasttree"}}}}, table(), 4));
  EXPECT_EQ(merged.stages["identify"]["evalue"], 1e-10);
  EXPECT_EQ(merged.stages["phylogeny"]["method"], "fasttree");
}

TEST(RunParams, EveryRefusalNamesTheFieldAndTheRule) {
  struct Case {
    Json given;
    std::string field;
  };
  for (const Case& c : {Case{{{"identify", {{"evalue", "small"}}}}, "params.identify"},
                        Case{{{"identify", {{"no_such", 1}}}}, "identify.no_such"}, Case{{{"identify", 3}}, "identify"},
                        Case{{{"nonsense", 1}}, "nonsense"}, Case{{{"evalue", -1}}, "evalue"},
                        Case{{{"cpu", 9}}, "cpu"}, Case{{{"species", 3}}, "species"}}) {
    auto r = parse_run_params(c.given, table(), 4);
    ASSERT_FALSE(r.is_ok()) << c.given.dump();
    EXPECT_EQ(r.status().code(), ErrorCode::kInvalidArgument) << c.given.dump();
    EXPECT_NE((r.status().message() + r.status().details().dump()).find(c.field), std::string::npos)
        << c.given.dump() << " -> " << r.status().to_string();
  }
  EXPECT_FALSE(parse_run_params(Json::array(), table(), 4).is_ok());
  EXPECT_TRUE(parse_run_params(Json(nullptr), table(), 4).is_ok());
}

// A misnamed proteome: the run diagnoses it, reads it under its rule name through a link (the folder is
// not touched), records the repair as learned with its test; the next run applies the prevention up front.
TEST(RunService, AMisnamedFileIsReadUnderItsRuleNameLearnedAndPreventedNextTime) {
  TempDir dir;
  const fs::path data = misnamed_example(dir);
  std::vector<std::string> before;
  for (auto& e : fs::directory_iterator(data)) before.push_back(e.path().filename().string());
  auto s = open_service(dir.path() / "state");
  RunRequest rq = example_run(data, dir.path() / "run1", {"identify"});
  auto t = s->start(rq);
  ASSERT_TRUE(t.is_ok()) << t.status().to_string();
  Json ev = events_until_end(*s, "cli-a", (*t)["task_id"]);
  auto st = s->status("cli-a", (*t)["task_id"]);
  ASSERT_TRUE(st.is_ok());
  EXPECT_EQ((*st)["state"], "done") << ev.dump(1).substr(0, 3000);
  Json repair = of_type(ev, "repair");
  ASSERT_EQ(repair.size(), 1u) << ev.dump(1).substr(0, 3000);
  EXPECT_EQ(repair[0]["test_result"], "passed");
  EXPECT_EQ(repair[0]["changes"][0]["read"], "Exam.pep.fa");
  EXPECT_EQ(repair[0]["changes"][0]["to"], "Exam.pep.fasta");
  EXPECT_TRUE(fs::is_symlink(rq.run_dir / "input_links" / "Exam.pep.fasta"));
  std::vector<std::string> after;
  for (auto& e : fs::directory_iterator(data)) after.push_back(e.path().filename().string());
  std::sort(before.begin(), before.end());
  std::sort(after.begin(), after.end());
  EXPECT_EQ(before, after) << "nothing in the user's folder was renamed or written";
  auto learned = s->export_learning();
  ASSERT_TRUE(learned.is_ok());
  EXPECT_NE(learned->dump().find("\"test_result\":\"passed\""), std::string::npos) << learned->dump();
  // The next run, another owner: the prevention is applied up front, no diagnosis of the names.
  rq.owner = "cli-b";
  rq.run_dir = dir.path() / "run2";
  auto t2 = s->start(rq);
  ASSERT_TRUE(t2.is_ok());
  Json ev2 = events_until_end(*s, "cli-b", (*t2)["task_id"]);
  EXPECT_EQ(of_type(ev2, "prevention").size(), 1u) << ev2.dump(1).substr(0, 2000);
  EXPECT_TRUE(of_type(ev2, "repair").empty());
  EXPECT_FALSE(s->status("cli-a", (*t2)["task_id"]).is_ok()) << "an owner never sees another's task";
}

// A renamed annotation that is not what its name says: the check accepts the new name, but the stage that needs
// the file cannot use it, so the learning record says failed and no later run applies the repair up front.
TEST(RunService, ARepairWhoseRunDidNotGetTheRenamedFileIsLearnedAsFailed) {
  TempDir dir;
  const fs::path data = dir.path() / "Exam";
  ASSERT_TRUE(write_example_genome(data).is_ok());
  fs::remove(data / "Exam.gff3");
  std::ofstream(data / "Exam.gff") << "this is not an annotation\n";
  auto s = open_service(dir.path() / "state");
  RunRequest rq = example_run(data, dir.path() / "run1", {"identify", "chromosome"});
  auto t = s->start(rq);
  ASSERT_TRUE(t.is_ok()) << t.status().to_string();
  Json ev = events_until_end(*s, "cli-a", (*t)["task_id"]);
  Json repair = of_type(ev, "repair");
  ASSERT_EQ(repair.size(), 1u) << ev.dump(1).substr(0, 3000);
  EXPECT_EQ(repair[0]["changes"][0]["to"], "Exam.gff3");
  auto st = s->status("cli-a", (*t)["task_id"]);
  ASSERT_TRUE(st.is_ok());
  EXPECT_NE((*st)["stages"].value("chromosome", ""), "done") << (*st).dump();
  bool marked = false;
  for (auto& e : of_type(ev, "learning")) marked |= e.value("test_result", "") == "failed";
  EXPECT_TRUE(marked) << ev.dump(1).substr(0, 4000);
  auto learned = s->export_learning();
  ASSERT_TRUE(learned.is_ok());
  EXPECT_EQ(learned->dump().find("\"test_result\":\"passed\""), std::string::npos) << learned->dump();
  EXPECT_NE(learned->dump().find("chromosome (gff3)"), std::string::npos) << learned->dump();
}

// The dialog waits; "edit" stops the countdown, "modify" sets a stage's parameter through its dialog field,
// a cancelled task resumes with its finished stages reused.
TEST(RunService, TheDialogIsAViewOfTheParametersAndACancelledTaskResumes) {
  TempDir dir;
  fs::path data = dir.path() / "Exam";
  ASSERT_TRUE(write_example_genome(data).is_ok());
  auto s = open_service(dir.path() / "state", 2);
  RunRequest rq;
  rq.owner = "web";
  rq.species = "Exam";
  rq.family = "GLOBIN";
  rq.data_dir = data;
  rq.stages = {"identify"};
  auto t = s->start(rq);
  ASSERT_TRUE(t.is_ok()) << t.status().to_string();
  const std::string id = (*t)["task_id"];
  for (int i = 0; i < 200 && (*s->status("web", id))["state"] != "awaiting_confirmation"; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ASSERT_TRUE(s->answer("web", id, "edit", Json::object()).is_ok());
  std::this_thread::sleep_for(std::chrono::milliseconds(2500));  // past the countdown: still waiting
  EXPECT_EQ((*s->status("web", id))["state"], "awaiting_confirmation");
  EXPECT_FALSE(s->answer("web", id, "modify", Json{{"evalue", "x"}}).is_ok()) << "refused where it is given";
  // Named inputs the owner's data does not hold are refused in the answer, naming them.
  for (const auto& [given, name] :
       std::vector<std::pair<Json, std::string>>{{Json{{"comparative_species", {"Nope"}}}, "Nope.gff3"},
                                                 {Json{{"comparative_species", {"Exam"}}}, "own species"},
                                                 {Json{{"expression", {{"matrix", "absent.tsv"}}}}, "absent.tsv"},
                                                 {Json{{"phylogeny", {{"references", "refs.fasta"}}}}, "refs.fasta"}}) {
    auto refused = s->answer("web", id, "modify", given);
    ASSERT_FALSE(refused.is_ok()) << given.dump();
    EXPECT_NE(refused.status().message().find(name), std::string::npos) << refused.status().message();
  }
  auto m = s->answer("web", id, "modify", Json{{"evalue", 1e-20}});
  ASSERT_TRUE(m.is_ok()) << m.status().to_string();
  EXPECT_EQ((*m)["params"]["evalue"], 1e-20);
  Json ev = events_until_end(*s, "web", id);
  auto st = s->status("web", id);
  EXPECT_EQ((*st)["run_params"]["stages"]["identify"]["evalue"], 1e-20) << st->dump();
  EXPECT_EQ((*st)["params"]["evalue"], 1e-20);
  // Cancelled before the pipeline: resumable.
  auto t2 = s->start(rq);
  ASSERT_TRUE(t2.is_ok());
  const std::string id2 = (*t2)["task_id"];
  auto c = s->cancel("web", id2);
  ASSERT_TRUE(c.is_ok()) << c.status().to_string();
  EXPECT_EQ((*s->status("web", id2))["state"], "cancelled");
  EXPECT_FALSE(s->resume("web", id).is_ok()) << "a finished task is not resumed";
  auto r = s->resume("web", id2);
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  ASSERT_TRUE(s->answer("web", id2, "confirm", Json::object()).is_ok() ||
              (*s->status("web", id2))["state"] != "awaiting_confirmation");
  events_until_end(*s, "web", id2);
  EXPECT_EQ((*s->status("web", id2))["state"], "done");
}

TEST(RunService, ARequestWithoutSpeciesOwnerOrWithAnUnknownStageIsRefusedUpFront) {
  TempDir dir;
  auto s = open_service(dir.path() / "state");
  RunRequest rq;
  rq.owner = "x";
  rq.species = "Exam";
  EXPECT_FALSE(s->start(rq).is_ok());
  rq.family = "GLOBIN";
  rq.stages = {"no_such_stage"};
  auto r = s->start(rq);
  ASSERT_FALSE(r.is_ok());
  EXPECT_NE(r.status().message().find("no_such_stage"), std::string::npos);
  rq.owner = "";
  rq.stages = {};
  EXPECT_FALSE(s->start(rq).is_ok());
}
