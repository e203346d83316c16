// The router decides from the message's form and the sources' evidence: a
// request to study a family in a species is a plan in any wording (generated
// from verbs x families x species x frames, both languages); a message with no
// content gets the help text; stopping is an intent only while a task runs, and
// the chat's stop cancels the task through the run service (cancelled,
// resumable), and "continue" resumes it.
#include <gtest/gtest.h>

#include <thread>

#include "bioagent/agent.h"
#include "bioagent/assistant.h"
#include "bioagent/genefamily.h"
#include "bioagent/registry.h"
#include "bioagent/workspace.h"
#include "test_tools.h"
#include "test_util.h"

namespace bioagent {
namespace {

using bioagent::testing::TempDir;

TEST(RouterForm, AStudyOfAFamilyInASpeciesIsAPlanInAnyWording) {
  const char* en_verbs[] = {"analyse", "study", "identify", "characterize", "do a genome-wide analysis of"};
  const char* en_frames[] = {"I want to %V the %F family in %S", "Could you %V the %F genes of %S for me?",
                             "please %V %F in %S", "how would I %V the %F gene family of %S?"};
  const char* zh_verbs[] = {"分析", "研究", "鉴定", "系统鉴定"};
  const char* zh_frames[] = {"我想%V一下%S的%F家族", "帮我%V%S的%F基因家族", "能不能%V%S里的%F家族？"};
  const std::pair<const char*, const char*> families[] = {{"WRKY", "WRKY"}, {"NAC", "NAC"}, {"bHLH", "bHLH"}};
  const char* species_en[] = {"rice", "Arabidopsis thaliana", "tomato"};
  const char* species_zh[] = {"水稻", "拟南芥", "番茄"};
  auto fill = [](std::string frame, const std::string& v, const std::string& f, const std::string& s) {
    for (auto [key, value] : {std::pair<std::string, std::string>{"%V", v}, {"%F", f}, {"%S", s}})
      for (size_t at; (at = frame.find(key)) != std::string::npos;) frame.replace(at, 2, value);
    return frame;
  };
  int total = 0, right = 0;
  std::vector<std::string> misses;
  for (auto& [family, canonical] : families) {
    for (const char* frame : en_frames)
      for (const char* verb : en_verbs)
        for (const char* sp : species_en) {
          std::string m = fill(frame, verb, family, sp);
          Route r = route_by_rules(m);
          ++total;
          if (r.intent == Intent::kAnalysis && r.family == canonical)
            ++right;
          else
            misses.push_back(m + " -> " + to_string(r.intent));
        }
    for (const char* frame : zh_frames)
      for (const char* verb : zh_verbs)
        for (const char* sp : species_zh) {
          std::string m = fill(frame, verb, family, sp);
          Route r = route_by_rules(m);
          ++total;
          if (r.intent == Intent::kAnalysis && r.family == canonical)
            ++right;
          else
            misses.push_back(m + " -> " + to_string(r.intent));
        }
  }
  for (auto& m : misses) std::cout << "  miss: " << m << "\n";
  EXPECT_GE(right * 100, total * 95) << right << "/" << total;
}

TEST(RouterForm, OnlyMessagesWithoutContentGetTheHelpText) {
  for (const char* m : {"hi", "你好", "thanks!", "谢谢", "what can you do?", "hmm", "ok thanks bye"})
    EXPECT_EQ(route_by_rules(m).intent, Intent::kChitchat) << m;
  // Content the knowledge base holds is never small talk, whatever the wording.
  for (const char* m : {"what do miR156 targets do?", "W-box的序列是啥", "SPL9 是干嘛的"})
    EXPECT_NE(route_by_rules(m).intent, Intent::kChitchat) << m;
}

// An assistant whose session has a task waiting in its parameter dialog (under way, nothing computed yet).
struct RunningTask {
  TempDir dir;
  ToolRegistry reg;
  std::unique_ptr<Workspace> ws;
  std::unique_ptr<Assistant> a;
  std::string sid, task;
  RunningTask() {
    register_builtin_types(reg);
    EXPECT_TRUE(reg.load_builtin().is_ok());
    auto w = Workspace::create({dir.path().string()});
    EXPECT_TRUE(w.is_ok());
    ws = std::make_unique<Workspace>(std::move(*w));
    EXPECT_TRUE(write_example_genome(dir.path() / "data" / "Exam").is_ok());
    AssistantOptions o;
    o.runs.state_dir = dir.path() / "state";
    o.runs.data_dir = dir.path() / "data";
    o.runs.confirm_timeout_seconds = 3600;
    o.runs.resume_tasks = false;
    o.runs.cpus = 1;
    o.registry = &reg;
    o.workspace = ws.get();
    o.tool_options = {{"offline", "1"}, {"cache_dir", (dir.path() / "cache").string()}};
    auto r = Assistant::open(o);
    EXPECT_TRUE(r.is_ok()) << r.status().to_string();
    a = std::move(*r);
    sid = (*a->create_session())["session_id"];
    auto p = a->plan(sid, "Exam", "GLOBIN", "en");
    EXPECT_TRUE(p.is_ok());
    auto t = a->execute(sid, (*p)["plan_id"], Json::object(), false);
    EXPECT_TRUE(t.is_ok()) << t.status().to_string();
    task = (*t)["task_id"];
  }
  ~RunningTask() {
    (void)a->runs().cancel(sid, task);
    a->shutdown();
  }
  std::string state() { return a->runs().status(sid, task)->value("state", ""); }
  // Waits (at most 20 s) until the task leaves the states in `from`.
  std::string settle(const std::vector<std::string>& from) {
    for (int i = 0; i < 200; ++i) {
      std::string s = state();
      if (std::find(from.begin(), from.end(), s) == from.end()) return s;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return state();
  }
};

TEST(RouterStop, TheChatStopsTheRunningTaskInEitherLanguageAndContinuesIt) {
  for (const char* stop : {"停止分析", "stop the analysis please"}) {
    RunningTask x;
    // While nothing runs elsewhere, the same words refuse nothing else: here they stop the task.
    auto r = x.a->chat(x.sid, stop);
    ASSERT_TRUE(r.is_ok()) << r.status().to_string();
    EXPECT_EQ((*r)["route"]["intent"], "stop") << (*r)["route"].dump();
    EXPECT_EQ(x.settle({"awaiting_confirmation", "running", "queued"}), "cancelled") << stop;
    EXPECT_TRUE(x.a->runs().running_task(x.sid).empty());
    // "Continue" resumes the stopped task in its run folder.
    auto c = x.a->chat(x.sid, std::string(stop)[0] == 's' ? "ok, continue the analysis" : "继续分析");
    ASSERT_TRUE(c.is_ok()) << c.status().to_string();
    EXPECT_EQ((*c)["route"]["intent"], "resume") << (*c)["route"].dump();
    EXPECT_NE(x.state(), "cancelled") << "resumed";
  }
}

TEST(RouterStop, StoppingWithNothingRunningIsNoStop) {
  TempDir dir;
  ToolRegistry reg;
  register_builtin_types(reg);
  ASSERT_TRUE(reg.load_builtin().is_ok());
  auto w = Workspace::create({dir.path().string()});
  ASSERT_TRUE(w.is_ok());
  AssistantOptions o;
  o.runs.state_dir = dir.path() / "state";
  o.registry = &reg;
  o.workspace = &*w;
  o.tool_options = {{"offline", "1"}, {"cache_dir", (dir.path() / "cache").string()}};
  auto a = Assistant::open(o);
  ASSERT_TRUE(a.is_ok());
  std::string sid = (*(*a)->create_session())["session_id"];
  for (const char* m : {"停止分析", "stop the analysis"}) {
    auto r = (*a)->route(sid, m);
    ASSERT_TRUE(r.is_ok());
    EXPECT_NE(r->intent, Intent::kStop) << m;
  }
  (*a)->shutdown();
}

}  // namespace
}  // namespace bioagent
