// The pipeline engine on a toy stage table: order and CPU budget, caching by
// key, failures skipping what depends on them, repairs, static requirements,
// time limits, cancellation, and resuming after the process is killed.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "bioagent/pipeline.h"
#include "test_util.h"

using namespace bioagent;
using bioagent::testing::TempDir;

namespace {

StageSpec write_stage(const std::string& name, std::vector<std::string> after, std::vector<std::string> argv = {}) {
  StageSpec s;
  s.name = name;
  s.after = std::move(after);
  if (!argv.empty()) s.programs = {argv[0]};
  s.params_schema = Json::parse(R"({"type": "object", "properties": {"n": {"type": "integer", "default": 1}},
                                    "additionalProperties": false})");
  s.steps = [name, argv](const StageContext& ctx) -> Result<std::vector<Step>> {
    std::vector<Step> steps;
    if (!argv.empty()) steps.push_back(Command{argv, "", ""});
    steps.push_back(StageFn([name](const StageContext& c) {
      std::string text = name + " n=" + c.params["n"].dump();
      for (auto& [up, dir] : c.input) {
        std::ifstream in(dir / "out.txt");
        std::string line;
        std::getline(in, line);
        text += " <" + line + ">";
      }
      std::ofstream(c.work / "out.txt") << text << "\n";
      return Status::ok();
    }));
    return steps;
  };
  s.outputs = {"out.txt"};
  s.parse = [](const StageContext& c) -> Result<Json> {
    std::ifstream in(c.work / "out.txt");
    std::string line;
    std::getline(in, line);
    return Json{{"text", line}};
  };
  return s;
}

std::map<std::string, StageStatus> by_name(const std::vector<StageStatus>& v) {
  std::map<std::string, StageStatus> m;
  for (auto& s : v) m[s.stage] = s;
  return m;
}

}  // namespace

TEST(Pipeline, RunsTheDagCachesAndRerunsOnlyWhatChanged) {
  TempDir dir;
  Pipeline p(
      {write_stage("a", {}), write_stage("b", {"a"}, {"true"}), write_stage("c", {"a"}), write_stage("d", {"b", "c"})});
  auto plan = p.plan({"d"});
  ASSERT_TRUE(plan.is_ok());
  EXPECT_EQ(*plan, (std::vector<std::string>{"a", "b", "c", "d"}));
  EXPECT_EQ(p.plan({"zzz"}).status().code(), ErrorCode::kNotFound);
  PipelineOptions o;
  o.run_dir = dir.path() / "run";
  o.cpus = 2;
  o.version_book = dir.path() / "cache" / "program_versions.json";
  auto runner = make_local_runner();
  auto r = p.run(Json{{"params", Json::object()}}, *runner, o);
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  auto m = by_name(*r);
  for (auto& [n, s] : m) EXPECT_EQ(s.state, StageState::kDone) << n << ": " << s.message;
  // The versions of the programs the stages name are remembered for later runs.
  std::ifstream book_in(o.version_book);
  Json book = Json::parse(book_in, nullptr, false);
  ASSERT_TRUE(book.is_object());
  bool has_true = false;
  for (auto it = book.begin(); it != book.end(); ++it) has_true |= it.key().find("/true|") != std::string::npos;
  EXPECT_TRUE(has_true) << book.dump();
  EXPECT_EQ(m["d"].summary["text"], "d n=1 <b n=1 <a n=1>> <c n=1 <a n=1>>");
  auto again = by_name(*p.run(Json{{"params", Json::object()}}, *runner, o));
  for (auto& [n, s] : again) EXPECT_EQ(s.state, StageState::kCached) << n;
  auto changed = by_name(*p.run(Json{{"params", {{"c", {{"n", 2}}}}}}, *runner, o));
  EXPECT_EQ(changed["a"].state, StageState::kCached);
  EXPECT_EQ(changed["b"].state, StageState::kCached);
  EXPECT_EQ(changed["c"].state, StageState::kDone);
  EXPECT_EQ(changed["d"].state, StageState::kDone) << "downstream of a change re-runs";
  EXPECT_NE(changed["d"].key, m["d"].key);
  auto bad = by_name(*p.run(Json{{"params", {{"a", {{"n", "x"}}}}}}, *runner, o));
  EXPECT_EQ(bad["a"].state, StageState::kFailed);
  EXPECT_NE(bad["a"].message.find("n"), std::string::npos);
  EXPECT_EQ(bad["d"].state, StageState::kSkipped);
}

TEST(Pipeline, FailuresRepairsAndRequirements) {
  TempDir dir;
  StageSpec flaky = write_stage("flaky", {}, {"false"});
  // The repair: run `true` instead of `false` when the failure names `false`.
  flaky.params_schema = Json::parse(R"({"type": "object", "properties": {"n": {"type": "integer", "default": 1},
                                        "prog": {"type": "string", "default": "false"}}, "additionalProperties": false})");
  flaky.steps = [](const StageContext& ctx) -> Result<std::vector<Step>> {
    return std::vector<Step>{Command{{ctx.params["prog"].get<std::string>()}, "", ""},
                             StageFn([](const StageContext& c) {
                               std::ofstream(c.work / "out.txt") << "ok\n";
                               return Status::ok();
                             })};
  };
  flaky.repairs = {{.on = FailureClass::kToolError,
                    .when = "false exited",
                    .key = "use_true",
                    .description = "use true",
                    .param_patch = Json{{"prog", "true"}}}};
  StageSpec broken = write_stage("broken", {}, {"false"});
  StageSpec after_broken = write_stage("after", {"broken"});
  StageSpec missing = write_stage("missing", {});
  missing.programs = {"surely-not-installed-program"};
  StageSpec slow = write_stage("slow", {}, {"sleep", "30"});
  Pipeline p({flaky, broken, after_broken, missing});
  PipelineOptions o;
  o.run_dir = dir.path() / "run";
  auto runner = make_local_runner();
  auto m = by_name(*p.run(Json::object(), *runner, o));
  EXPECT_EQ(m["flaky"].state, StageState::kDone);
  EXPECT_NE(m["flaky"].message.find("repaired: use true"), std::string::npos) << m["flaky"].message;
  EXPECT_EQ(m["broken"].state, StageState::kFailed);
  EXPECT_NE(m["broken"].message.find("exited with code 1"), std::string::npos);
  EXPECT_EQ(m["after"].state, StageState::kSkipped);
  EXPECT_EQ(m["missing"].state, StageState::kFailed);
  EXPECT_NE(m["missing"].message.find("surely-not-installed-program"), std::string::npos);
  // Typed failures; a failed attempt leaves no temporary folder, only its log.
  EXPECT_EQ(m["broken"].failure, FailureClass::kToolError);
  EXPECT_EQ(m["missing"].failure, FailureClass::kMissingProgram);
  EXPECT_NE(m["after"].message.find("broken"), std::string::npos) << "the reason names the upstream";
  for (auto& e : fs::directory_iterator(o.run_dir / "stages"))
    EXPECT_EQ(e.path().filename().string().find(".tmp-"), std::string::npos) << e.path();
  EXPECT_TRUE(fs::exists(m["broken"].folder + ".failed.log"));
  EXPECT_FALSE(fs::exists(m["broken"].folder));
  // Cancellation stops a running command quickly.
  Pipeline ps({slow});
  PipelineOptions oc = o;
  oc.cancel = std::make_shared<std::atomic<bool>>(false);
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    oc.cancel->store(true);
  });
  auto t0 = std::chrono::steady_clock::now();
  auto c = by_name(*ps.run(Json::object(), *runner, oc));
  stopper.join();
  EXPECT_EQ(c["slow"].state, StageState::kCancelled);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(10));
  auto history = pipeline_history(o.run_dir);
  ASSERT_TRUE(history.is_ok());
  EXPECT_GT(history->size(), 4u);
}

TEST(Pipeline, AKilledRunResumesWithoutRedoingFinishedStages) {
  TempDir dir;
  StageSpec first = write_stage("first", {});
  StageSpec second = write_stage("second", {"first"}, {"sleep", "3"});
  Pipeline p({first, second});
  PipelineOptions o;
  o.run_dir = dir.path() / "run";
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    auto runner = make_local_runner();
    (void)p.run(Json::object(), *runner, o);
    _exit(0);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(700));  // first done, second sleeping
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
  auto runner = make_local_runner();
  auto m = by_name(*p.run(Json::object(), *runner, o));
  EXPECT_EQ(m["first"].state, StageState::kCached) << "finished before the kill: not redone";
  EXPECT_EQ(m["second"].state, StageState::kDone);
  size_t leftovers = 0;
  for (auto& e : fs::directory_iterator(o.run_dir / "stages"))
    leftovers += e.path().filename().string().find(".tmp-") != std::string::npos;
  EXPECT_EQ(leftovers, 0u) << "the killed attempt's folder is cleaned up";
}

// Regression: Debian's PAML wrappers copy a control file into the current
// folder (and run an example there) when asked for a version; the probe must
// not touch the user's folder (a yn00.ctl was once committed by accident).
TEST(Pipeline, VersionProbesLeaveTheCurrentFolderAlone) {
  TempDir dir;
  fs::path tool =
      dir.write("bin/bioagent-probe-test", "#!/bin/sh\necho touched > probe-was-here\necho 'probe 1.2.3'\n");
  fs::permissions(tool, fs::perms::owner_all);
  std::string old_path = std::getenv("PATH");
  ::setenv("PATH", ((dir.path() / "bin").string() + ":" + old_path).c_str(), 1);
  fs::path cwd = fs::current_path();
  fs::current_path(dir.path());
  std::string v = program_version("bioagent-probe-test");
  fs::current_path(cwd);
  ::setenv("PATH", old_path.c_str(), 1);
  EXPECT_EQ(v, "probe 1.2.3");
  EXPECT_FALSE(fs::exists(dir.path() / "probe-was-here"));
}

// A program's peak RSS is its own: a small tool run by a large bioagent is not
// reported at bioagent's size, and a large one is reported at its size.
TEST(Pipeline, AProgramsPeakRssIsItsOwnNotTheParents) {
  std::vector<char> ballast(300u << 20, 1);  // the parent holds 300 MB when it starts the tool
  for (size_t i = 0; i < ballast.size(); i += 4096) ballast[i] = char(i);
  TempDir dir;
  auto runner = make_local_runner();
  std::atomic<bool> cancel{false};
  auto small = runner->run({{"sleep", "0.3"}}, dir.path(), dir.path() / "small.log", {1, 100, 1}, cancel);
  ASSERT_EQ(small.exit_code, 0) << small.log_tail;
  EXPECT_GT(small.max_rss_kb, 0) << "sampled while it ran";
  EXPECT_LT(small.max_rss_kb, 64 * 1024) << "sleep is not 300 MB";
  auto large = runner->run({{"python3", "-c", "import time; b = b'x' * (120 << 20); time.sleep(0.3)"}}, dir.path(),
                           dir.path() / "large.log", {1, 100, 1}, cancel);
  ASSERT_EQ(large.exit_code, 0) << large.log_tail;
  EXPECT_GT(large.max_rss_kb, 100 * 1024) << "python holding 120 MB";
  EXPECT_LT(large.max_rss_kb, 290 * 1024);
  EXPECT_EQ(ballast[4096], char(4096));
}

TEST(Pipeline, ACpuBudgetBeyondTheRunnersCoresIsRefusedWithTheLimit) {
  TempDir dir;
  Pipeline p({write_stage("a", {})});
  auto runner = make_local_runner();
  const int cores = runner->max_cpus();
  ASSERT_GE(cores, 1);
  PipelineOptions o;
  o.run_dir = dir.path() / "run";
  o.cpus = cores + 1;
  auto r = p.run(Json{{"params", Json::object()}}, *runner, o);
  ASSERT_FALSE(r.is_ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find("1 to " + std::to_string(cores)), std::string::npos) << r.status().message();
  EXPECT_FALSE(fs::exists(o.run_dir / "stages")) << "nothing ran";
  o.cpus = cores;
  auto ok = p.run(Json{{"params", Json::object()}}, *runner, o);
  ASSERT_TRUE(ok.is_ok()) << ok.status().to_string();
  EXPECT_EQ((*ok)[0].state, StageState::kDone);
}
