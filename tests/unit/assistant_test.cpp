// The assistant (issue 9): knowledge base, router, diagnosis rules, naming
// repair, learning export/import and the store, without the HTTP layer.
#include <gtest/gtest.h>

#include <regex>

#include "assistant/agents.h"
#include "bioagent/assistant.h"
#include "bioagent/registry.h"
#include "bioagent/workspace.h"
#include "replay_server.h"
#include "test_tools.h"
#include "test_util.h"

namespace bioagent {
namespace {

using bioagent::testing::TempDir;

// A registry with the built-in tools and a workspace over a temporary folder.
struct ToolEnv {
  TempDir dir;
  ToolRegistry reg;
  std::unique_ptr<Workspace> ws;
  ToolEnv() {
    register_builtin_types(reg);
    EXPECT_TRUE(reg.load_builtin().is_ok());
    auto w = Workspace::create({dir.path().string()});
    EXPECT_TRUE(w.is_ok());
    ws = std::make_unique<Workspace>(std::move(*w));
  }
};

TEST(KnowledgeBase, HoldsFortyFamiliesEachWithDomainsCountsFunctionsAndAReference) {
  const Json& fams = gene_family_kb()["families"];
  ASSERT_GE(fams.size(), 40u);
  std::regex pfam("^PF[0-9]{5}$");
  std::set<std::string> names;
  for (auto& f : fams) {
    std::string n = f.value("name", "");
    EXPECT_TRUE(names.insert(n).second) << "duplicate " << n;
    ASSERT_FALSE(f["pfam"].empty()) << n;
    for (auto& d : f["pfam"]) EXPECT_TRUE(std::regex_match(d.value("acc", ""), pfam)) << n;
    EXPECT_FALSE(f["members"].value("Ath", "").empty()) << n;
    EXPECT_FALSE(f["members"].value("Osa", "").empty()) << n;
    EXPECT_FALSE(f["functions"].empty()) << n;
    EXPECT_FALSE(f["regulators"].empty()) << n;
    EXPECT_FALSE(f.value("reference", "").empty()) << n;
  }
  const Json* spl = find_gene_family("sbp-box");
  ASSERT_NE(spl, nullptr);
  EXPECT_EQ((*spl)["pfam"][0]["acc"], "PF03110");
  EXPECT_NE((*spl)["regulators"].dump().find("miR156"), std::string::npos);
  // Chinese answers use Chinese facts where the base has them, and say when they fall back to English.
  EXPECT_NE(family_summary(*spl, true).find("开花时间"), std::string::npos);
  EXPECT_NE(family_summary(*find_gene_family("PIN"), true).find("（英文）"), std::string::npos);
  for (const char* sp : {"Lchi", "Ath", "Osa", "Sly", "荔枝", "Oryza sativa", "tomato"})
    EXPECT_NE(find_species(sp), nullptr) << sp;
}

struct RouteCase {
  const char* message;
  const char* intent;
  const char* species;
  const char* family;
};

TEST(Router, TheSeedsExchangesInBothLanguages) {
  const RouteCase cases[] = {
      {"总结下SPL基因家族", "faq", "", "SPL"},
      {"荔枝的SPL基因家族是否有发表过相关的文章", "literature", "Lchi", "SPL"},
      {"如果我想开展荔枝的SPL基因家族研究，可以吗？", "analysis", "Lchi", "SPL"},
      {"执行分析", "execute", "", ""},
      {"Summarise the SPL gene family", "faq", "", "SPL"},
      {"Has anything been published on the SPL gene family of lychee?", "literature", "Lchi", "SPL"},
      {"I want to study the WRKY family in rice. Is it feasible?", "analysis", "Osa", "WRKY"},
      {"Run the analysis", "execute", "", ""},
      {"What is the MADS-box family of Arabidopsis thaliana?", "faq", "Ath", "MADS-box"},
      {"番茄的NAC家族有哪些文献", "literature", "Sly", "NAC"},
      {"Sly bZIP family: any papers on it?", "literature", "Sly", "bZIP"},
  };
  for (auto& c : cases) {
    Route r = route_by_rules(c.message);
    EXPECT_EQ(r.intent, c.intent) << c.message;
    EXPECT_EQ(r.species, c.species) << c.message;
    EXPECT_EQ(r.family, c.family) << c.message;
    EXPECT_GE(r.confidence, 0.7) << c.message;
  }
  // Short symbols match only as written: "tip" or "pin" in English is not a family.
  Route plain = route_by_rules("any tip on how to pin a file?");
  EXPECT_EQ(plain.family, "");
  EXPECT_LT(plain.confidence, 0.7) << "unsure: the model decides when one is configured";
  // A family the knowledge base lacks is still named.
  EXPECT_EQ(route_by_rules("总结下XYZ1基因家族").family, "XYZ1");
  EXPECT_EQ(route_by_rules("hello").intent, "chitchat");
}

TEST(Diagnosis, ClassifiesEachKindOfFailure) {
  Json naming =
      Json::array({{{"file", "Lchi.genome.fa"}, {"fix", "Lchi.genome.fasta"}, {"fixable", true}, {"kind", "genome"}}});
  Diagnosis d = classify_failure("check", "breaks the rule", naming);
  EXPECT_EQ(d.error_type, "naming_mismatch");
  EXPECT_EQ(d.fix, "rename_extension_variant");
  EXPECT_NE(d.root_cause.find(".fa"), std::string::npos);
  EXPECT_EQ(d.pattern.find("Lchi"), std::string::npos) << "patterns carry no user names: " << d.pattern;
  struct Case {
    const char* stage;
    const char* message;
    const char* type;
    const char* fix;
  };
  for (auto c : {Case{"identify", "genome file not found: /data/x/Lchi.genome.fa", "missing_file", "ask_for_file"},
                 Case{"phylogeny", "needs iqtree2 (not installed; scripts/setup.sh)", "tool_missing",
                      "fasttree_if_iqtree_missing"},
                 Case{"phylogeny", "iqtree2 exited with exit code 137", "out_of_memory", "fasttree_fallback"},
                 Case{"phylogeny", "stage exceeded its time limit of 60 minutes", "time_limit", "fasttree_on_timeout"},
                 Case{"identify", "hmmsearch found no members at E 1e-5", "empty_result", "relax_evalue"},
                 Case{"check", "cannot parse line 3 of the GFF3", "bad_format", "ask_for_valid_file"},
                 Case{"validate", "gene count 140 outside 10-100", "gene_count_out_of_bounds", "report_gene_count"},
                 Case{"motif", "segmentation fault", "unknown", ""}}) {
    Diagnosis x = classify_failure(c.stage, c.message, Json::array());
    EXPECT_EQ(x.error_type, c.type) << c.message;
    EXPECT_EQ(x.fix, c.fix) << c.message;
    if (!x.fix.empty()) EXPECT_NE(find_repair(x.fix), nullptr);
  }
  EXPECT_EQ(generalise("not found: /home/ana/litchi/Lchi.genome.fa").find("ana"), std::string::npos);
}

TEST(Diagnosis, NamingRepairKeepsABackupAndNeverLeavesTheFolder) {
  TempDir dir;
  dir.write("Lchi.genome.fa", ">c1\nACGT\n");
  Json problems = Json::array({{{"file", "Lchi.genome.fa"}, {"fix", "Lchi.genome.fasta"}, {"fixable", true}},
                               {{"file", "../outside"}, {"fix", "x.fasta"}, {"fixable", true}},
                               {{"file", "Lchi.gff"}, {"fix", "../../etc/evil"}, {"fixable", true}}});
  auto ch = apply_naming_repair(dir.path(), problems);
  ASSERT_TRUE(ch.is_ok()) << ch.status().to_string();
  ASSERT_EQ(ch->size(), 1u) << ch->dump();
  EXPECT_TRUE(fs::exists(dir.path() / "Lchi.genome.fasta"));
  EXPECT_TRUE(fs::exists(dir.path() / ".backup" / "Lchi.genome.fa"));
  dir.write("Lchi.genome.fa", ">c2\n");
  auto again = apply_naming_repair(dir.path(), Json::array({problems[0]}));
  EXPECT_FALSE(again.is_ok()) << "an existing file is never overwritten";
}

TEST(Planning, YamlAndFileStatus) {
  ToolEnv e;
  const TempDir& dir = e.dir;
  ToolRegistry& reg = e.reg;
  Workspace& ws = *e.ws;
  AgentEnv env{&reg, &ws, {{"offline", "1"}}};
  dir.write("data/Lchi.gff3", "##gff-version 3\n");
  auto p = make_plan(env, "Lchi", "SPL", {dir.path() / "data"}, Json{{"identify", 12.0}}, true, 4);
  ASSERT_TRUE(p.is_ok()) << p.status().to_string();
  const Json& plan = (*p)["plan"]["analysis_plan"];
  EXPECT_EQ(plan["reference_genome"]["status"], "incomplete");
  EXPECT_EQ(plan["reference_genome"]["gff3_status"], "available");
  EXPECT_EQ(plan["reference_genome"]["genome_fasta_status"], "missing");
  EXPECT_EQ(plan["next_action"], "等待用户确认执行");
  EXPECT_NE(plan["reference_genome"]["ncbi_datasets"]["status"].get<std::string>().find("offline"), std::string::npos);
  EXPECT_NE((*p)["yaml"].get<std::string>().find("analysis_plan:\n  target_species: Litchi chinensis"),
            std::string::npos);
  EXPECT_EQ((*p)["defaults"]["prefix"], "Lchi.SPL");
  EXPECT_FALSE(make_plan(env, "Xyzz", "SPL", {}, Json::object(), false, 1).is_ok());
}

TEST(Assistant, SessionsLearningExportImportAndAMissingDataTask) {
  ToolEnv e;
  const TempDir& dir = e.dir;
  ToolRegistry& reg = e.reg;
  Workspace& ws = *e.ws;
  AssistantOptions o;
  o.state_dir = dir.path() / "state";
  o.data_dir = dir.path() / "shared";
  o.registry = &reg;
  o.workspace = &ws;
  o.tool_options = {{"offline", "1"},
                    {"papers_db", (dir.path() / "papers.duckdb").string()},
                    {"cache_dir", (dir.path() / "cache").string()}};
  o.confirm_timeout_seconds = 1;
  auto a = Assistant::open(o);
  ASSERT_TRUE(a.is_ok()) << a.status().to_string();
  auto s = (*a)->create_session();
  std::string sid = (*s)["session_id"];
  EXPECT_FALSE((*a)->chat("s_nope", "hi").is_ok());
  auto r = (*a)->chat(sid, "What is the WRKY gene family?");
  ASSERT_TRUE(r.is_ok());
  EXPECT_NE((*r)["answer"].get<std::string>().find("PF03106"), std::string::npos);
  // No data uploaded: the task fails with the missing-file diagnosis and says what to upload.
  auto p = (*a)->plan(sid, "Lchi", "SPL");
  ASSERT_TRUE(p.is_ok());
  auto t = (*a)->execute(sid, (*p)["plan_id"], Json::object(), true);
  ASSERT_TRUE(t.is_ok()) << t.status().to_string();
  Json evs = Json::array();
  for (int i = 0; i < 100; ++i) {
    int64_t after = evs.empty() ? 0 : evs.back()["seq"].get<int64_t>();
    for (auto& e : (*a)->events(sid, (*t)["task_id"], after, std::chrono::milliseconds(100))) evs.push_back(e);
    if (!evs.empty() && evs.back().value("state", "") == "failed") break;
  }
  ASSERT_FALSE(evs.empty());
  EXPECT_EQ(evs.back()["state"], "failed");
  EXPECT_NE(evs.back()["message"].get<std::string>().find("Lchi.genome.fasta"), std::string::npos);
  auto other = (*a)->create_session();
  EXPECT_FALSE((*a)->status((*other)["session_id"], (*t)["task_id"]).is_ok()) << "sessions are isolated";
  // Export carries patterns, not the user's paths; import accepts only known fixes.
  auto ex = (*a)->export_learning();
  ASSERT_TRUE(ex.is_ok());
  EXPECT_EQ(ex->dump().find(dir.path().string()), std::string::npos);
  EXPECT_FALSE((*ex)["records"].empty());
  Json doc = {{"format", "bioagent-learning-1"},
              {"records", Json::array({{{"error_type", "naming_mismatch"},
                                        {"fix", "rename_extension_variant"},
                                        {"pattern", "extension variant .fas"},
                                        {"test_result", "passed"}},
                                       {{"error_type", "x"}, {"fix", "rm -rf /"}}})}};
  auto im = (*a)->import_learning(doc);
  ASSERT_TRUE(im.is_ok());
  EXPECT_EQ((*im)["added"], 1);
  EXPECT_EQ((*im)["skipped"], 1);
  EXPECT_FALSE((*a)->import_learning(Json::array()).is_ok());
}

TEST(Assistant, TheModelRoutesWhatTheRulesAreUnsureAbout) {
  testing::ReplayServer llm(R"({"script": [
      {"expect": ["Classify", "tell me something about leaf development"],
       "message": {"content": "{\"intent\": \"faq\", \"confidence\": 0.8}"}}]})",
                            "scripted_llm.py");
  ASSERT_TRUE(llm.ok());
  ToolEnv e;
  const TempDir& dir = e.dir;
  ToolRegistry& reg = e.reg;
  ::setenv("BIOAGENT_MODELS_FILE", (dir.path() / "none.json").c_str(), 1);
  ::setenv("BIOAGENT_LLM_BASE_URL", llm.url("/v1").c_str(), 1);
  ::setenv("BIOAGENT_LLM_MODEL", "scripted-model", 1);
  AssistantOptions o;
  o.state_dir = dir.path() / "state";
  o.registry = &reg;
  o.workspace = e.ws.get();
  o.tool_options = {
      {"offline", "0"}, {"allow_private_urls", "1"}, {"papers_db", (dir.path() / "papers.duckdb").string()}};
  auto a = Assistant::open(o);
  ::unsetenv("BIOAGENT_LLM_BASE_URL");
  ::unsetenv("BIOAGENT_LLM_MODEL");
  ::unsetenv("BIOAGENT_MODELS_FILE");
  ASSERT_TRUE(a.is_ok()) << a.status().to_string();
  auto s = (*a)->create_session();
  // The rules are sure: no model call (the script has one answer only).
  auto sure = (*a)->chat((*s)["session_id"], "总结下SPL基因家族");
  ASSERT_TRUE(sure.is_ok());
  EXPECT_EQ(sure->at("route")["decided_by"], "rules");
  auto r = (*a)->chat((*s)["session_id"], "tell me something about leaf development");
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  EXPECT_EQ(r->at("route")["intent"], "faq");
  EXPECT_EQ(r->at("route")["decided_by"], "default") << r->at("route").dump();
}

}  // namespace
}  // namespace bioagent
