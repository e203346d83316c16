// The assistant (issue 9): knowledge base, router, diagnosis rules, naming
// repair, learning export/import and the store, without the HTTP layer.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <regex>

#include "assistant/agents.h"
#include "assistant/route_rules.h"
#include "bioagent/agent.h"
#include "bioagent/assistant.h"
#include "bioagent/literature.h"
#include "bioagent/llm.h"
#include "bioagent/registry.h"
#include "bioagent/search.h"
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
  EXPECT_NE(family_summary(*spl, Lang::kZh).find("开花时间"), std::string::npos);
  // Every family has its facts in Chinese: no English fragments in a Chinese summary.
  for (auto& f : fams) {
    EXPECT_TRUE(f.contains("functions_zh") && f.contains("regulators_zh")) << f.value("name", "");
    EXPECT_EQ(family_summary(f, Lang::kZh).find("（英文）"), std::string::npos) << f.value("name", "");
    EXPECT_EQ(f["functions_zh"].size(), f["functions"].size()) << f.value("name", "");
  }
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
    EXPECT_EQ(to_string(r.intent), c.intent) << c.message;
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
  EXPECT_EQ(route_by_rules("hello").intent, Intent::kChitchat);
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

TEST(Planning, YamlAndFileStatus) {
  ToolEnv e;
  const TempDir& dir = e.dir;
  ToolRegistry& reg = e.reg;
  Workspace& ws = *e.ws;
  AgentEnv env{&reg, &ws, {{"offline", "1"}}};
  dir.write("data/Lchi.gff3", "##gff-version 3\n");
  auto p = make_plan(env, "Lchi", "SPL", {dir.path() / "data"}, Json{{"identify", 12.0}}, Lang::kZh, 4);
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
  EXPECT_FALSE(make_plan(env, "Xyzz", "SPL", {}, Json::object(), Lang::kEn, 1).is_ok());
}

// Files of another prefix where the plan's species has none (Ath.* uploaded for litchi): nothing is renamed,
// and the plan says which prefixes are there and the two ways on, in the plan's language.
TEST(Planning, FilesUnderAnotherSpeciesPrefixAreToldNotRenamed) {
  ToolEnv e;
  AgentEnv env{&e.reg, e.ws.get(), {{"offline", "1"}}};
  const fs::path data = e.dir.path() / "data";
  for (const char* f : {"Ath.pep.fasta", "Ath.gff3", "Osa.pep.fasta"}) e.dir.write(std::string("data/") + f, ">g\nM\n");
  for (Lang lang : {Lang::kEn, Lang::kZh}) {
    auto p = make_plan(env, "Lchi", "SPL", {data}, Json::object(), lang, 2);
    ASSERT_TRUE(p.is_ok()) << p.status().to_string();
    const Json& ref = (*p)["plan"]["analysis_plan"]["reference_genome"];
    EXPECT_EQ(ref["other_species_files"], Json::array({"Ath", "Osa"})) << ref.dump(1);
    EXPECT_EQ(ref["pep_status"], "missing");
    const std::string source = ref["source"];
    EXPECT_NE(source.find("Ath, Osa"), std::string::npos) << source;
    EXPECT_NE(source.find("Lchi.*"), std::string::npos) << source;
  }
  EXPECT_TRUE(fs::exists(data / "Ath.pep.fasta")) << "nothing renamed";
  auto own = make_plan(env, "Ath", "SPL", {data}, Json::object(), Lang::kEn, 2);
  ASSERT_TRUE(own.is_ok());
  EXPECT_FALSE((*own)["plan"]["analysis_plan"]["reference_genome"].contains("other_species_files"));
}

// The plan agrees with the run: a misnamed file the run renames counts as
// present, stages the engine will skip are listed as skipped with the engine's
// reason, and without past runs the time is "not estimated", not a guess.
TEST(Planning, PlanPredictsTheRunsRenamesAndSkips) {
  ToolEnv e;
  AgentEnv env{&e.reg, e.ws.get(), {{"offline", "1"}}};
  const fs::path data = e.dir.path() / "data";
  e.dir.write("data/Lchi.genome.fa", ">Chr1\nACGT\n");
  e.dir.write("data/Lchi.gff3", "##gff-version 3\n");
  e.dir.write("data/Lchi.cds.fasta", ">g1\nATG\n");
  e.dir.write("data/Lchi.pep.fasta", ">g1\nM\n");
  auto p = make_plan(env, "Lchi", "SPL", {data}, Json::object(), Lang::kEn, 2);
  ASSERT_TRUE(p.is_ok()) << p.status().to_string();
  const Json& plan = (*p)["plan"]["analysis_plan"];
  EXPECT_EQ(plan["reference_genome"]["genome_fasta_status"], "available") << plan.dump(1);
  EXPECT_EQ(plan["reference_genome"]["genome_fasta_renamed_from"], "Lchi.genome.fa");
  std::map<std::string, std::string> stages;
  for (auto& s : plan["analysis_stages"])
    for (auto& [k, v] : s.items()) stages[k] = v.get<std::string>();
  for (const char* runs : {"identify", "chromosome", "promoter", "synteny", "phylogeny"})
    EXPECT_EQ(stages[runs].find("skipped"), std::string::npos) << runs << ": " << stages[runs];
  EXPECT_NE(stages["expression"].find("skipped: no expression matrix"), std::string::npos) << stages["expression"];
  EXPECT_NE(stages["ppi"].find("skipped: no Arabidopsis orthologs"), std::string::npos) << stages["ppi"];
  EXPECT_NE(plan["estimated_time"].get<std::string>().find("not estimated"), std::string::npos)
      << plan["estimated_time"];
  // Nothing uploaded: identify is skipped, and so is every stage that needs its members.
  auto empty = make_plan(env, "Lchi", "SPL", {e.dir.path() / "none"}, Json{{"phylogeny", 600.0}}, Lang::kZh, 2);
  ASSERT_TRUE(empty.is_ok()) << empty.status().to_string();
  std::map<std::string, std::string> zh;
  for (auto& s : (*empty)["plan"]["analysis_plan"]["analysis_stages"])
    for (auto& [k, v] : s.items()) zh[k] = v.get<std::string>();
  EXPECT_NE(zh["identify"].find("跳过：缺少 pep 文件"), std::string::npos) << zh["identify"];
  EXPECT_NE(zh["phylogeny"].find("跳过：依赖 identify 阶段的结果"), std::string::npos) << zh["phylogeny"];
  EXPECT_NE(zh["expression"].find("跳过"), std::string::npos) << zh["expression"];
}

TEST(Assistant, SessionsLearningExportImportAndAMissingDataTask) {
  ToolEnv e;
  const TempDir& dir = e.dir;
  ToolRegistry& reg = e.reg;
  Workspace& ws = *e.ws;
  AssistantOptions o;
  o.runs.state_dir = dir.path() / "state";
  o.runs.data_dir = dir.path() / "shared";
  o.registry = &reg;
  o.workspace = &ws;
  o.tool_options = {{"offline", "1"},
                    {"papers_db", (dir.path() / "papers.duckdb").string()},
                    {"cache_dir", (dir.path() / "cache").string()}};
  o.runs.confirm_timeout_seconds = 1;
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
    for (auto& e : (*a)->runs().events(sid, (*t)["task_id"], after, std::chrono::milliseconds(100))) evs.push_back(e);
    if (!evs.empty() && evs.back().value("state", "") == "failed") break;
  }
  ASSERT_FALSE(evs.empty());
  EXPECT_EQ(evs.back()["state"], "failed");
  EXPECT_NE(evs.back()["message"].get<std::string>().find("Lchi.genome.fasta"), std::string::npos);
  auto other = (*a)->create_session();
  EXPECT_FALSE((*a)->runs().status((*other)["session_id"], (*t)["task_id"]).is_ok()) << "sessions are isolated";
  // Export carries patterns, not the user's paths; import accepts only known fixes.
  auto ex = (*a)->runs().export_learning();
  ASSERT_TRUE(ex.is_ok());
  EXPECT_EQ(ex->dump().find(dir.path().string()), std::string::npos);
  EXPECT_FALSE((*ex)["records"].empty());
  Json doc = {{"format", "bioagent-learning-1"},
              {"records", Json::array({{{"error_type", "naming_mismatch"},
                                        {"fix", "rename_extension_variant"},
                                        {"pattern", "extension variant .fas"},
                                        {"test_result", "passed"}},
                                       {{"error_type", "x"}, {"fix", "rm -rf /"}}})}};
  auto im = (*a)->runs().import_learning(doc);
  ASSERT_TRUE(im.is_ok());
  EXPECT_EQ((*im)["added"], 1);
  EXPECT_EQ((*im)["skipped"], 1);
  EXPECT_FALSE((*a)->runs().import_learning(Json::array()).is_ok());
}

TEST(Assistant, TheModelRoutesGivenTheSourcesEvidenceAndTheFormBoundsIt) {
  // Every routing call carries the message's form and each source's evidence; the model's choice is taken unless
  // the form or the session rules it out (a question is never an order; nothing runs to stop).
  testing::ReplayServer llm(R"({"script": [
      {"expect": ["Classify", "sources", "paper_library", "SPL"], "message": {"content": "{\"intent\": \"faq\", \"confidence\": 0.9}"}},
      {"expect": ["Evidence:", "PF03110"], "message": {"content": "SPL proteins share the SBP domain (PF03110) [1]."}},
      {"expect": ["Classify", "tell me something about leaf development"],
       "message": {"content": "{\"intent\": \"faq\", \"confidence\": 0.8}"}},
      {"expect": ["leaf development"], "message": {"content": "Nothing in the local sources covers leaf development."}},
      {"expect": ["Classify", "can you run the analysis"], "message": {"content": "{\"intent\": \"execute\", \"confidence\": 0.9}"}},
      {"expect": ["Classify", "stop it"], "message": {"content": "{\"intent\": \"stop\", \"confidence\": 0.9}"}}]})",
                            "scripted_llm.py");
  ASSERT_TRUE(llm.ok());
  ToolEnv e;
  const TempDir& dir = e.dir;
  ToolRegistry& reg = e.reg;
  ::setenv("BIOAGENT_MODELS_FILE", (dir.path() / "none.json").c_str(), 1);
  ::setenv("BIOAGENT_LLM_BASE_URL", llm.url("/v1").c_str(), 1);
  ::setenv("BIOAGENT_LLM_MODEL", "scripted-model", 1);
  AssistantOptions o;
  o.runs.state_dir = dir.path() / "state";
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
  const std::string sid = (*s)["session_id"];
  auto sure = (*a)->chat(sid, "总结下SPL基因家族");
  ASSERT_TRUE(sure.is_ok()) << sure.status().to_string();
  EXPECT_EQ(sure->at("route")["decided_by"], "default") << "the model routes when one is configured";
  EXPECT_TRUE(sure->at("route").contains("evidence"));
  EXPECT_EQ(sure->at("model"), "default") << "the model writes the knowledge answer: " << sure->dump();
  EXPECT_NE(sure->at("answer").get<std::string>().find("PF03110"), std::string::npos);
  auto r = (*a)->chat(sid, "tell me something about leaf development");
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  EXPECT_EQ(r->at("route")["intent"], "faq");
  EXPECT_EQ(r->at("route")["decided_by"], "default") << r->at("route").dump();
  // The model's order to run a question is not taken; nor is a stop with nothing running.
  auto asked = (*a)->route(sid, "can you run the analysis?");
  ASSERT_TRUE(asked.is_ok());
  EXPECT_NE(asked->intent, Intent::kExecute) << asked->to_json().dump();
  EXPECT_EQ(asked->decided_by, "rules");
  auto stop = (*a)->route(sid, "stop it");
  ASSERT_TRUE(stop.is_ok());
  EXPECT_NE(stop->intent, Intent::kStop) << stop->to_json().dump();
  (*a)->shutdown();
}

TEST(Router, IntentsAreAnEnumWithNames) {
  for (Intent i :
       {Intent::kFaq, Intent::kLiterature, Intent::kAnalysis, Intent::kExecute, Intent::kPlanQuestion, Intent::kDecline,
        Intent::kStop, Intent::kResume, Intent::kData, Intent::kPaper, Intent::kChitchat}) {
    auto back = intent_from_string(to_string(i));
    ASSERT_TRUE(back.is_ok()) << to_string(i);
    EXPECT_EQ(*back, i);
  }
  EXPECT_FALSE(intent_from_string("run everything").is_ok());
  EXPECT_EQ(to_string(Intent::kPlanQuestion), "plan_question");
}

TEST(Router, QuestionsAndRefusalsAreNeverOrders) {
  Route files = route_by_rules("执行分析之前需要准备哪些文件？");
  EXPECT_EQ(files.intent, Intent::kPlanQuestion) << files.to_json().dump();
  EXPECT_TRUE(files.question);
  Route no = route_by_rules("我不想执行分析");
  EXPECT_EQ(no.intent, Intent::kDecline) << no.to_json().dump();
  EXPECT_EQ(route_by_rules("Don't run the analysis yet").intent, Intent::kDecline);
  for (const char* no : {"取消", "算了", "不用了", "cancel", "no"})
    EXPECT_EQ(route_by_rules(no).intent, Intent::kDecline) << no;
  EXPECT_EQ(route_by_rules("What files do I need before I run the analysis?").intent, Intent::kPlanQuestion);
  EXPECT_NE(route_by_rules("can you run the analysis?").intent, Intent::kExecute);
  // Clear orders and confirmations still are.
  EXPECT_EQ(route_by_rules("执行分析").intent, Intent::kExecute);
  // An assent agrees to the plan on the table; with none, it only acknowledges.
  for (const char* yes : {"好的", "yes", "ok"}) {
    MessageForm f = read_form(yes);
    RouteEvidence with_plan;
    with_plan.session.has_plan = true;
    EXPECT_EQ(decide_route(yes, f, with_plan).intent, Intent::kExecute) << yes;
    EXPECT_EQ(route_by_rules(yes).intent, Intent::kChitchat) << yes;
  }
  // "区别" (difference) holds 别 but refuses nothing.
  EXPECT_NE(route_by_rules("分析拟南芥和水稻NAC家族的区别").intent, Intent::kDecline);
}

TEST(Router, SpacedNamesAndSpeciesOutsideTheList) {
  Route r = route_by_rules("如果我想开展 Exam 的 GLOBIN 基因家族研究，可以吗？");
  EXPECT_EQ(r.intent, Intent::kAnalysis);
  EXPECT_EQ(r.species, "Exam");
  EXPECT_EQ(r.family, "GLOBIN");
  Route tea = route_by_rules("I want to study the WRKY family of Camellia sinensis. Is it feasible?");
  EXPECT_EQ(tea.intent, Intent::kAnalysis);
  EXPECT_EQ(tea.species, "Csin");
  EXPECT_EQ(tea.species_name, "Camellia sinensis");
  EXPECT_EQ(prefix_of_latin("Mangifera indica"), "Mind");
  EXPECT_FALSE(resolve_species("Xyzz", {}).has_value()) << "a bare unknown prefix needs its files";
  auto mango = resolve_species("Mangifera indica", {});
  ASSERT_TRUE(mango.has_value());
  EXPECT_EQ((*mango)["prefix"], "Mind");
}

// An assistant over a temporary state folder, offline.
struct OfflineAssistant {
  ToolEnv e;
  std::unique_ptr<Assistant> a;
  std::string sid;
  OfflineAssistant() {
    AssistantOptions o;
    o.runs.state_dir = e.dir.path() / "state";
    o.runs.data_dir = e.dir.path() / "shared";
    o.registry = &e.reg;
    o.workspace = e.ws.get();
    o.tool_options = {{"offline", "1"},
                      {"papers_db", (e.dir.path() / "papers.duckdb").string()},
                      {"cache_dir", (e.dir.path() / "cache").string()}};
    o.runs.confirm_timeout_seconds = 1;
    auto r = Assistant::open(o);
    EXPECT_TRUE(r.is_ok()) << r.status().to_string();
    a = std::move(*r);
    sid = (*a->create_session())["session_id"];
  }
  Json chat(const std::string& m) {
    auto r = a->chat(sid, m);
    EXPECT_TRUE(r.is_ok()) << m << ": " << r.status().to_string();
    return r.is_ok() ? *r : Json::object();
  }
};

TEST(Assistant, APlanOffersExecutionOnlyWithItsFilesAndQuestionsGetAnswers) {
  OfflineAssistant x;
  Json plan = x.chat("如果我想开展 Exam 的 GLOBIN 基因家族研究，可以吗？");
  ASSERT_TRUE(plan.contains("plan_id")) << plan.dump();
  EXPECT_EQ(plan["executable"], false);
  EXPECT_EQ(plan["actions"].dump().find("execute"), std::string::npos) << "no [执行分析] without files";
  EXPECT_NE(plan["answer"].get<std::string>().find("Exam.pep.fasta"), std::string::npos);
  Json order = x.chat("执行分析");
  EXPECT_FALSE(order.contains("task")) << "nothing runs without its files";
  EXPECT_NE(order["answer"].get<std::string>().find("缺少"), std::string::npos);
  Json files = x.chat("执行分析之前需要准备哪些文件？");
  EXPECT_FALSE(files.contains("task"));
  EXPECT_NE(files["answer"].get<std::string>().find("Exam.genome.fasta"), std::string::npos) << files.dump();
  Json no = x.chat("我不想执行分析");
  EXPECT_FALSE(no.contains("task"));
  EXPECT_EQ(no["route"]["intent"], "decline");
  // The protein file uploaded: now the plan offers the run.
  ASSERT_TRUE(x.a->upload(x.sid, "Exam.pep.fasta", ">p1\nMKV\n").is_ok());
  Json again = x.chat("如果我想开展 Exam 的 GLOBIN 基因家族研究，可以吗？");
  EXPECT_EQ(again["executable"], true) << again.dump();
  EXPECT_NE(again["actions"].dump().find("execute"), std::string::npos);
  // Nothing above started a task.
  auto none = x.a->runs().status(x.sid, "t_00000000000000000000000000000000");
  EXPECT_FALSE(none.is_ok());
}

TEST(Assistant, SpeciesOutsideTheListArePlannedFromTheirFiles) {
  OfflineAssistant x;
  ASSERT_TRUE(x.a->upload(x.sid, "Mind.pep.fasta", ">p1\nMKV\n").is_ok());
  Json mango = x.chat("I want to study the MYB family of Mangifera indica. Is it feasible?");
  ASSERT_TRUE(mango.contains("plan_id")) << mango.dump();
  EXPECT_EQ(mango["plan"]["analysis_plan"]["species_prefix"], "Mind");
  EXPECT_EQ(mango["executable"], true);
  OfflineAssistant y;
  ASSERT_TRUE(y.a->upload(y.sid, "Csin.pep.fasta", ">p1\nMKV\n").is_ok());
  Json tea = y.chat("如果我想开展茶树的WRKY基因家族研究，可以吗？");  // 茶树 is not in the species list
  ASSERT_TRUE(tea.contains("plan_id")) << tea.dump();
  EXPECT_EQ(tea["plan"]["analysis_plan"]["species_prefix"], "Csin");
}

TEST(Assistant, TheChatHearsHowARunEnded) {
  OfflineAssistant x;
  auto p = x.a->plan(x.sid, "Lchi", "SPL", "zh");
  ASSERT_TRUE(p.is_ok());
  auto t = x.a->execute(x.sid, (*p)["plan_id"], Json::object(), true);
  ASSERT_TRUE(t.is_ok());
  Json evs = Json::array();
  for (int i = 0; i < 100; ++i) {
    int64_t after = evs.empty() ? 0 : evs.back()["seq"].get<int64_t>();
    for (auto& e : x.a->runs().events(x.sid, (*t)["task_id"], after, std::chrono::milliseconds(100))) evs.push_back(e);
    if (!evs.empty() && evs.back().value("state", "") == "failed" && evs.back()["type"] == "state") break;
  }
  bool outcome_event = false;
  for (auto& e : evs) outcome_event |= e["type"] == "outcome";
  EXPECT_TRUE(outcome_event) << evs.dump();
  Json msgs = (*x.a->messages(x.sid))["messages"];
  ASSERT_FALSE(msgs.empty());
  std::string last = msgs.back()["content"];
  EXPECT_NE(last.find("分析未能完成"), std::string::npos) << last;
  EXPECT_NE(last.find("Lchi.genome.fasta"), std::string::npos) << "says what was missing: " << last;
  EXPECT_EQ(msgs.back()["meta"]["task_id"], (*t)["task_id"]);
}

TEST(Knowledge, TheSpeciesAskedAboutIsAnsweredOrMarkedUnknown) {
  OfflineAssistant x;
  Json tomato = x.chat("How many SPL genes does tomato have?");
  std::string a = tomato["answer"];
  size_t line = a.find("tomato (Solanum lycopersicum)");
  ASSERT_NE(line, std::string::npos) << a;
  std::string first = a.substr(line, a.find('\n', line) - line);
  EXPECT_NE(first.find("unknown"), std::string::npos) << first;
  EXPECT_EQ(first.find("16"), std::string::npos) << "no Arabidopsis number in tomato's place: " << first;
  EXPECT_NE(a.find("No language model was used"), std::string::npos);
  Json myb = x.chat("番茄的MYB家族有什么功能？");
  EXPECT_NE(myb["answer"].get<std::string>().find("番茄 (Solanum lycopersicum)：知识库中没有"), std::string::npos)
      << myb["answer"];
  Json cmp = x.chat("比较拟南芥和水稻的NAC家族");
  std::string c = cmp["answer"];
  EXPECT_NE(c.find("比较"), std::string::npos) << c;
  EXPECT_NE(c.find("105"), std::string::npos) << c;
  EXPECT_NE(c.find("75"), std::string::npos) << c;
  EXPECT_NE(c.find("多 30 个"), std::string::npos) << c;
  EXPECT_NE(c.find("未使用语言模型"), std::string::npos);
}

TEST(Knowledge, CitedSourcesMustNameTheSubject) {
  EXPECT_FALSE(text_mentions("the pinnacle of spinach chemistry", "NAC"));
  EXPECT_TRUE(text_mentions("NAC genes regulate senescence", "NAC"));
  EXPECT_TRUE(text_mentions("荔枝 SPL 基因", "荔枝"));
  auto sp = species_mentioned("比较拟南芥和水稻的NAC家族");
  ASSERT_EQ(sp.size(), 2u);
}

TEST(Knowledge, ALocalPassageThatDoesNotNameTheFamilyIsNotCited) {
  ToolEnv e;
  fs::create_directories(e.dir.path() / "cache");
  {
    auto store = EvidenceStore::open((e.dir.path() / "cache" / "evidence.sqlite").string());
    ASSERT_TRUE(store.is_ok()) << store.status().to_string();
    Evidence chemistry, nac;
    chemistry.content = "Transcription factors of catalysis: the pinnacle of surface chemistry.";
    chemistry.citation = {"pubmed", "Catalysis at the pinnacle", "https://example.org/chem", "2020", {}, "", "1", ""};
    nac.content = "NAC transcription factors control leaf senescence in rice.";
    nac.citation = {"pubmed", "NAC genes and senescence", "https://example.org/nac", "2021", {}, "", "2", ""};
    ASSERT_TRUE((*store)->add({chemistry, nac}, "NAC").is_ok());
  }
  AgentEnv env{&e.reg,
               e.ws.get(),
               {{"offline", "1"},
                {"cache_dir", (e.dir.path() / "cache").string()},
                {"papers_db", (e.dir.path() / "papers.duckdb").string()}}};
  std::string q = "比较拟南芥和水稻的NAC家族";
  Json r = knowledge_answer(env, route_by_rules(q), q);
  std::string sources = r["sources"].dump();
  EXPECT_NE(sources.find("NAC genes and senescence"), std::string::npos) << sources;
  EXPECT_EQ(sources.find("pinnacle"), std::string::npos) << "a passage that only contains 'nac' is not cited";
  EXPECT_EQ(r["answer"].get<std::string>().find("pinnacle"), std::string::npos) << r["answer"];
}

TEST(Knowledge, TheLiteratureCheckIsWrittenByTheModelAndChecked) {
  testing::ReplayServer llm(R"({"script": [
      {"expect": ["Evidence:", "SPL genes control flowering in litchi"],
       "message": {"content": "SPL genes control flowering in litchi [1]. The family has 57 members in litchi [1]."}}]})",
                            "scripted_llm.py");
  ASSERT_TRUE(llm.ok());
  ToolEnv e;
  fs::create_directories(e.dir.path() / "cache");
  {
    auto store = EvidenceStore::open((e.dir.path() / "cache" / "evidence.sqlite").string());
    ASSERT_TRUE(store.is_ok());
    Evidence paper;
    paper.content = "SPL genes control flowering in litchi.";
    paper.citation = {"pubmed", "The SPL gene family of litchi", "https://example.org/spl", "2022", {}, "", "3", ""};
    ASSERT_TRUE((*store)->add({paper}, "litchi SPL").is_ok());
  }
  AgentEnv env{&e.reg,
               e.ws.get(),
               {{"offline", "1"},
                {"cache_dir", (e.dir.path() / "cache").string()},
                {"papers_db", (e.dir.path() / "papers.duckdb").string()}}};
  ModelConfig m;
  m.name = "scripted";
  m.base_url = llm.url("/v1");
  m.model = "scripted-model";
  auto client = LlmClient::create(m);
  ASSERT_TRUE(client.is_ok());
  std::string q = "Has anything been published on the SPL gene family of lychee?";
  Json r = literature_check(env, route_by_rules(q), q, client->get());
  std::string a = r["answer"];
  EXPECT_EQ(r["found"], 1) << r.dump();
  EXPECT_EQ(r["model"], "scripted") << r.dump();
  EXPECT_NE(a.find("SPL genes control flowering in litchi [1]"), std::string::npos) << a;
  EXPECT_EQ(a.find("57"), std::string::npos) << "the invented count is removed: " << a;
  EXPECT_EQ(r["citation_check"]["removed"], 1);
  EXPECT_NE(a.find("Searched: evidence store"), std::string::npos) << "says what was searched: " << a;
}

TEST(Knowledge, NoResearchGapWhenTheSearchesDidNotRun) {
  // Offline: the online databases were not searched, so no gap is claimed.
  OfflineAssistant x;
  Json r = x.chat("荔枝的SPL基因家族是否有发表过相关的文章");
  EXPECT_EQ(r["research_gap"], false) << r.dump();
  std::string a = r["answer"];
  EXPECT_NE(a.find("未检索在线数据库"), std::string::npos) << a;
  EXPECT_NE(a.find("不能据此判断"), std::string::npos) << a;
  EXPECT_EQ(a.find("evidence store"), std::string::npos) << "Chinese answers name searches in Chinese: " << a;
  // Online but every source unreachable: said so, and still no gap.
  ToolEnv e;
  AgentEnv env{&e.reg,
               e.ws.get(),
               {{"offline", "0"},
                {"papers_db", (e.dir.path() / "papers.duckdb").string()},
                {"cache_dir", (e.dir.path() / "cache").string()}}};
  for (const char* v : {"BIOAGENT_BASE_URL_PUBMED", "BIOAGENT_BASE_URL_EUROPEPMC", "BIOAGENT_BASE_URL_ARXIV",
                        "BIOAGENT_BASE_URL_SEMANTIC_SCHOLAR", "BIOAGENT_BASE_URL_CLINICALTRIALS"})
    ::setenv(v, "http://unreachable.invalid", 1);
  Route route = route_by_rules("Has anything been published on the SPL gene family of lychee?");
  Json lit = literature_check(env, route, "Has anything been published on the SPL gene family of lychee?");
  for (const char* v : {"BIOAGENT_BASE_URL_PUBMED", "BIOAGENT_BASE_URL_EUROPEPMC", "BIOAGENT_BASE_URL_ARXIV",
                        "BIOAGENT_BASE_URL_SEMANTIC_SCHOLAR", "BIOAGENT_BASE_URL_CLINICALTRIALS"})
    ::unsetenv(v);
  EXPECT_EQ(lit["research_gap"], false) << lit.dump();
  EXPECT_FALSE(lit["failed"].empty()) << lit.dump();
  EXPECT_NE(lit["answer"].get<std::string>().find("Could not search"), std::string::npos) << lit["answer"];
  EXPECT_EQ(lit["answer"].get<std::string>().find("research gap."), std::string::npos);
}

TEST(Knowledge, TheModelWritesFromEvidenceAndInventionsAreCaught) {
  // The scripted model invents a citation [7] and a number (42 SPL genes in tomato).
  testing::ReplayServer llm(R"({"script": [
      {"expect": ["Evidence:", "PF03110"],
       "message": {"content": "SPL proteins share the SBP domain (PF03110) [1]. Tomato has 42 SPL genes [1]. Rice SPL genes control tillering [7]. Arabidopsis has 16 SPL genes [1]."}}]})",
                            "scripted_llm.py");
  ASSERT_TRUE(llm.ok());
  ToolEnv e;
  TempDir traj;
  AgentEnv env{&e.reg,
               e.ws.get(),
               {{"offline", "1"},
                {"papers_db", (e.dir.path() / "papers.duckdb").string()},
                {"trajectory_dir", traj.path().string()}}};
  ModelConfig m;
  m.name = "scripted";
  m.base_url = llm.url("/v1");
  m.model = "scripted-model";
  auto client = LlmClient::create(m);
  ASSERT_TRUE(client.is_ok());
  Route route = route_by_rules("Summarise the SPL gene family");
  Json r = knowledge_answer(env, route, "Summarise the SPL gene family", client->get());
  std::string a = r["answer"];
  EXPECT_EQ(r["model"], "scripted") << r.dump();
  EXPECT_NE(a.find("PF03110"), std::string::npos) << a;
  EXPECT_NE(a.find("16 SPL"), std::string::npos) << a;
  EXPECT_EQ(a.find("42"), std::string::npos) << "the invented number is caught: " << a;
  EXPECT_EQ(a.find("[7]"), std::string::npos) << "the invented citation is caught: " << a;
  EXPECT_EQ(r["citation_check"]["removed"], 2) << r["citation_check"].dump();
  // The trajectory says why each sentence went.
  std::string log;
  for (auto& f : fs::directory_iterator(traj.path())) {
    std::ifstream in(f.path());
    log += std::string(std::istreambuf_iterator<char>(in), {});
  }
  EXPECT_NE(log.find("citation_removed"), std::string::npos) << log;
  EXPECT_NE(log.find("number '42' is in none of the cited sources"), std::string::npos) << log;
  EXPECT_NE(log.find("cites [7], which is no source"), std::string::npos) << log;
}

TEST(Knowledge, AModelAnswerWithNothingSupportedFallsBackToTheExtractedAnswer) {
  testing::ReplayServer llm(R"({"script": [
      {"message": {"content": "Tomato has 42 SPL genes [1]. SPL99 controls fruit colour [3]."}}]})",
                            "scripted_llm.py");
  ASSERT_TRUE(llm.ok());
  ToolEnv e;
  AgentEnv env{&e.reg, e.ws.get(), {{"offline", "1"}, {"papers_db", (e.dir.path() / "papers.duckdb").string()}}};
  ModelConfig m;
  m.name = "scripted";
  m.base_url = llm.url("/v1");
  m.model = "scripted-model";
  auto client = LlmClient::create(m);
  ASSERT_TRUE(client.is_ok());
  std::string q = "How many SPL genes does tomato have?";
  Json r = knowledge_answer(env, route_by_rules(q), q, client->get());
  std::string a = r["answer"];
  EXPECT_EQ(r["model"], "none");
  EXPECT_EQ(r["citation_check"]["removed"], 2);
  EXPECT_EQ(a.find("42"), std::string::npos) << a;
  EXPECT_NE(a.find("no sentence of the model's answer passed the citation check"), std::string::npos) << a;
  EXPECT_EQ(a.find("No language model was used"), std::string::npos) << "a model was used: " << a;
  EXPECT_NE(a.find("(unknown)"), std::string::npos) << a;
}

}  // namespace
}  // namespace bioagent
