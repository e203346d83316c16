// Model-written, checked parts of a run (src/assistant): the report's
// literature comparison and biological significance, the diagnosis's choice
// among the allowed repairs, the plan's reasoning; each with the scripted
// model (inventions caught) and without a model (says so, never invents).
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>

#include "assistant/assistant_impl.h"
#include "assistant/report_sections.h"
#include "bioagent/agent.h"
#include "bioagent/genefamily.h"
#include "bioagent/llm.h"
#include "bioagent/registry.h"
#include "bioagent/workspace.h"
#include "genefamily/stages/stage_common.h"
#include "replay_server.h"
#include "test_util.h"
#include "toy_stage.h"

namespace bioagent {
namespace {

using bioagent::testing::TempDir;

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
  AgentEnv env(const fs::path& trajectory = {}) const {
    AgentEnv e{&reg,
               ws.get(),
               {{"offline", "1"},
                {"papers_db", (dir.path() / "papers.duckdb").string()},
                {"cache_dir", (dir.path() / "cache").string()}}};
    if (!trajectory.empty()) e.tool_options["trajectory_dir"] = trajectory.string();
    return e;
  }
};

std::unique_ptr<LlmClient> scripted(const testing::ReplayServer& server) {
  ModelConfig m;
  m.name = "scripted";
  m.base_url = server.url("/v1");
  m.model = "scripted-model";
  auto c = LlmClient::create(m);
  EXPECT_TRUE(c.is_ok());
  return c.is_ok() ? std::move(*c) : nullptr;
}

// A run's finished stages as the engine reports them to the report stage.
std::vector<StageStatus> finished_stages() {
  StageStatus identify, synteny, kaks, ppi;
  identify.stage = "identify";
  identify.state = StageState::kDone;
  identify.summary = {{"members", 20}, {"proteins_with_hits", 25}};
  synteny.stage = "synteny";
  synteny.state = StageState::kDone;
  synteny.summary = {{"blocks", 1}, {"member_duplication", {{"segmental", 4}, {"singleton", 14}, {"tandem", 2}}}};
  kaks.stage = "kaks";
  kaks.state = StageState::kDone;
  kaks.summary = {{"pairs", 3}, {"ks_peaks", Json::array({0.85})}, {"purifying_selection", 3}};
  ppi.stage = "ppi";
  ppi.state = StageState::kSkipped;
  ppi.message = "no Arabidopsis orthologs were given";
  return {identify, synteny, kaks, ppi};
}

std::string read_all(const fs::path& dir) {
  std::string out;
  std::error_code ec;
  for (auto& f : fs::directory_iterator(dir, ec)) {
    std::ifstream in(f.path());
    out += std::string(std::istreambuf_iterator<char>(in), {});
  }
  return out;
}

TEST(ReportSections, TheRunsResultsAreASourceWithEveryFinishedStage) {
  std::string t = run_results_text({"Lchi", "Litchi chinensis", "SPL"}, finished_stages());
  EXPECT_NE(t.find("species Lchi (Litchi chinensis), family SPL"), std::string::npos) << t;
  EXPECT_NE(t.find("members 20"), std::string::npos) << t;
  EXPECT_NE(t.find("member_duplication segmental 4, singleton 14, tandem 2"), std::string::npos) << t;
  EXPECT_NE(t.find("ks_peaks 0.85"), std::string::npos) << t;
  EXPECT_NE(t.find("ppi (skipped): no Arabidopsis orthologs"), std::string::npos) << t;
}

TEST(ReportSections, TheModelWritesFromTheRunAndEvidenceAndInventionsAreRemoved) {
  // Literature: a true run count [1], a true knowledge-base count [2], an invented
  // litchi count cited to [2], an invented source [9]. Significance: a true and an invented number.
  testing::ReplayServer llm(R"({"script": [
      {"expect": ["comparison with the literature", "members 20", "PF03110"],
       "message": {"content": "This run found 20 SPL members [1]. Arabidopsis thaliana has 16 SPL genes [2]. Litchi was reported with 35 SPL genes [2]. Rice SPL genes control tillering [9]."}},
      {"expect": ["biological significance"],
       "message": {"content": "Segmental duplication gave 4 members [1]. The family expanded 57-fold in litchi [1]."}}]})",
                            "scripted_llm.py");
  ASSERT_TRUE(llm.ok());
  ToolEnv e;
  TempDir traj;
  auto client = scripted(llm);
  ReportSections r = write_report_sections(e.env(traj.path()), client.get(), {"Lchi", "Litchi chinensis", "SPL"},
                                           finished_stages(), Lang::kEn);
  EXPECT_EQ(r.model, "scripted");
  EXPECT_TRUE(r.model_used);
  EXPECT_NE(r.literature.find("This run found 20 SPL members [1]."), std::string::npos) << r.literature;
  EXPECT_NE(r.literature.find("16 SPL genes [2]"), std::string::npos) << r.literature;
  EXPECT_EQ(r.literature.find("35"), std::string::npos) << "the invented number is removed: " << r.literature;
  EXPECT_EQ(r.literature.find("[9]"), std::string::npos) << "the invented citation is removed: " << r.literature;
  EXPECT_NE(r.literature.find("Sources:\n[1] this run's results"), std::string::npos) << r.literature;
  EXPECT_NE(r.significance.find("Segmental duplication gave 4 members [1]."), std::string::npos) << r.significance;
  EXPECT_EQ(r.significance.find("57"), std::string::npos) << r.significance;
  Json removed = r.removed_sentences();
  ASSERT_EQ(removed.size(), 3u) << removed.dump();
  std::string why = removed.dump();
  EXPECT_NE(why.find("number '35' is in none of the cited sources"), std::string::npos) << why;
  EXPECT_NE(why.find("cites [9], which is no source in the context"), std::string::npos) << why;
  EXPECT_NE(why.find("number '57' is in none of the cited sources"), std::string::npos) << why;
  std::string log = read_all(traj.path());
  EXPECT_NE(log.find("citation_removed"), std::string::npos) << "the trajectory records why: " << log;
}

TEST(ReportSections, WithoutAModelTheSectionsSaySoAndListTheEvidence) {
  ToolEnv e;
  ReportSections en =
      write_report_sections(e.env(), nullptr, {"Lchi", "Litchi chinensis", "SPL"}, finished_stages(), Lang::kEn);
  EXPECT_EQ(en.model, "none");
  EXPECT_FALSE(en.model_used);
  EXPECT_NE(en.literature.find("No language model was used"), std::string::npos) << en.literature;
  EXPECT_NE(en.literature.find("Searched: evidence store"), std::string::npos) << en.literature;
  EXPECT_NE(en.literature.find("offline mode: no online database was searched"), std::string::npos) << en.literature;
  EXPECT_NE(en.literature.find("Found here: 20 SPL members [1]; knowledge base: Arabidopsis 16"), std::string::npos)
      << en.literature;
  EXPECT_NE(en.literature.find("No local passage names this family."), std::string::npos) << en.literature;
  EXPECT_NE(en.significance.find("No language model was used"), std::string::npos) << en.significance;
  ReportSections zh =
      write_report_sections(e.env(), nullptr, {"Lchi", "Litchi chinensis", "SPL"}, finished_stages(), Lang::kZh);
  EXPECT_NE(zh.literature.find("未使用语言模型"), std::string::npos) << zh.literature;
  EXPECT_NE(zh.literature.find("本次鉴定到 20 个 SPL 成员 [1]"), std::string::npos) << zh.literature;
  // References ([n] lines) are names; everything else is Chinese.
  std::string prose = std::regex_replace(zh.literature + zh.significance, std::regex(R"((^|\n)\[\d+\][^\n]*)"), "");
  std::regex english_sentence(R"([A-Za-z]+ [a-z]+ [a-z]+ [a-z]+)");
  EXPECT_FALSE(std::regex_search(prose, english_sentence)) << prose;
}

TEST(ReportSections, AModelWhoseTextFailsTheCheckFallsBackToTheEvidenceList) {
  testing::ReplayServer llm(R"({"script": [
      {"message": {"content": "Litchi has 77 SPL genes [1]."}},
      {"status": 400, "body": "{\"error\": {\"message\": \"down\"}}"}]})",
                            "scripted_llm.py");
  ASSERT_TRUE(llm.ok());
  ToolEnv e;
  auto client = scripted(llm);
  ReportSections r = write_report_sections(e.env(), client.get(), {"Lchi", "", "SPL"}, finished_stages(), Lang::kEn);
  EXPECT_FALSE(r.model_used);
  EXPECT_EQ(r.literature.find("77"), std::string::npos) << r.literature;
  EXPECT_NE(r.literature.find("no sentence of the model's text passed the citation check"), std::string::npos)
      << r.literature;
  EXPECT_NE(r.literature.find("Found here: 20 SPL members [1]"), std::string::npos) << r.literature;
  EXPECT_NE(r.significance.find("the model call failed"), std::string::npos) << r.significance;
}

StageSpec toy_stage(const std::string& name, std::vector<std::string> after) {
  return testing::text_stage(name, std::move(after),
                             R"({"type": "object", "properties": {"text": {"type": "string", "default": ""}},
                                 "additionalProperties": false})",
                             [](const StageContext& c) { return c.params["text"].get<std::string>(); });
}

// The engine asks the caller for a stage's parameters once its upstreams are final (how the
// assistant writes the report's sections from the run's results in the same run).
TEST(ReportSections, TheEngineLetsTheCallerWriteAStagesInputFromFinishedUpstreams) {
  TempDir dir;
  Pipeline p({toy_stage("a", {}), toy_stage("b", {"a"})});
  PipelineOptions o;
  o.run_dir = dir.path() / "run";
  o.cpus = 1;
  std::vector<std::string> seen;
  o.patch_params = [&](const std::string& stage, const std::vector<StageStatus>& finished) -> Json {
    std::string names;
    for (auto& f : finished) names += f.stage + "=" + to_string(f.state) + " ";
    seen.push_back(stage + ": " + names);
    if (stage != "b") return nullptr;
    return {{"text", "written after " + names}};
  };
  auto runner = make_local_runner();
  auto r = p.run(Json{{"params", {{"a", {{"text", "from a"}}}}}}, *runner, o);
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ((*r)[0].summary["text"], "from a") << "null leaves the parameters";
  EXPECT_EQ((*r)[1].summary["text"], "written after a=done ");
  ASSERT_GE(seen.size(), 2u);
  EXPECT_EQ(seen.front(), "a: ");
  auto again = p.run(Json{{"params", {{"a", {{"text", "from a"}}}}}}, *runner, o);
  ASSERT_TRUE(again.is_ok());
  EXPECT_EQ((*again)[1].state, StageState::kDone) << "the patch is part of the key: a=cached is new text";
  EXPECT_EQ((*again)[1].summary["text"], "written after a=cached ");
}

// The report stage prints pre-written sections: the literature comparison as its own section
// before the biological meaning, the significance opening the meaning section.
TEST(ReportSections, TheReportStagePrintsThePrewrittenSections) {
  TempDir d;
  fs::path identify = d.path() / "identify", work = d.path() / "report";
  fs::create_directories(identify);
  fs::create_directories(work / "final");
  std::ofstream(identify / "members.tsv") << "gene\tprotein\tseqid\tstart\tend\tstrand\tlength\tevalue\tscore\tcov\n"
                                          << "g1\tp1\tChr1\t100\t900\t+\t200\t1e-30\t120\t0.9\n";
  StageSpec spec = *genefamily_pipeline().find("report");
  StageContext ctx;
  ctx.run = {{"species", "Lchi"}, {"family", "SPL"}, {"run_dir", d.path().string()}, {"stage_states", Json::object()}};
  ctx.params = {{"lang", "en"},
                {"prewritten",
                 {{"literature-comparison", "This run found 1 SPL member [1].\n\nSources:\n[1] this run's results"},
                  {"meaning", "Written significance [1]."}}}};
  ctx.work = work;
  ctx.input["identify"] = identify;
  auto steps = spec.steps(ctx);
  ASSERT_TRUE(steps.is_ok());
  for (auto& step : *steps)  // the in-process steps (no figure here to export)
    if (auto* fn = std::get_if<StageFn>(&step)) {
      Status s = (*fn)(ctx);
      ASSERT_TRUE(s.is_ok()) << s.to_string();
    }
  std::ifstream md(work / "final" / "Lchi.SPL.report.md"), html(work / "final" / "Lchi.SPL.report.html");
  std::string m((std::istreambuf_iterator<char>(md)), {}), h((std::istreambuf_iterator<char>(html)), {});
  size_t lit = m.find("## Comparison with the literature\n\nThis run found 1 SPL member [1].\n\nSources:");
  size_t meaning = m.find("## Biological meaning\n\nWritten significance [1].");
  ASSERT_NE(lit, std::string::npos) << m;
  ASSERT_NE(meaning, std::string::npos) << m;
  EXPECT_LT(lit, meaning);
  EXPECT_NE(h.find("<h2 id=\"literature-comparison\">"), std::string::npos);
  EXPECT_NE(h.find("white-space:pre-line\">Sources:\n[1] this run"), std::string::npos) << "line breaks kept";
}

// The diagnosis lets the model pick among the allowed repairs only.
TEST(RepairChoice, TheModelPicksAnAllowedRepairAndAnythingElseIsIgnored) {
  std::string log = "phylogeny: iqtree2 exited 134\nterminate called after throwing std::bad_alloc";
  Diagnosis d = classify_failure("phylogeny", log, Json::array(), FailureClass::kToolError);
  auto allowed = allowed_repairs("phylogeny", FailureClass::kToolError, log);
  ASSERT_GE(allowed.size(), 4u);
  EXPECT_EQ(allowed.front()->key, "fasttree_after_iqtree_error") << "the rows for the class come first";
  // No model: the rules' fix, the table's order.
  RepairChoice offline = choose_repair(nullptr, d, "phylogeny", log, allowed);
  EXPECT_EQ(offline.key, d.fix);
  EXPECT_EQ(offline.decided_by, "table");
  testing::ReplayServer llm(R"({"script": [
      {"expect": ["Failure class: tool_error", "bad_alloc", "fasttree_fallback"],
       "message": {"content": "The log shows memory exhaustion: {\"repair\": \"fasttree_fallback\"}"}},
      {"message": {"content": "{\"repair\": \"install_more_ram\"}"}},
      {"message": {"content": "sudo apt-get install iqtree && rm -rf /tmp/x"}}]})",
                            "scripted_llm.py");
  ASSERT_TRUE(llm.ok());
  auto client = scripted(llm);
  RepairChoice picked = choose_repair(client.get(), d, "phylogeny", log, allowed);
  EXPECT_EQ(picked.key, "fasttree_fallback") << picked.to_json().dump();
  EXPECT_EQ(picked.decided_by, "model");
  RepairChoice invented = choose_repair(client.get(), d, "phylogeny", log, allowed);
  EXPECT_EQ(invented.key, d.fix) << "a repair outside the list is ignored";
  EXPECT_EQ(invented.decided_by, "table");
  EXPECT_NE(invented.ignored.find("'install_more_ram', which is not an allowed repair"), std::string::npos)
      << invented.ignored;
  RepairChoice command = choose_repair(client.get(), d, "phylogeny", log, allowed);
  EXPECT_EQ(command.key, d.fix) << "a command is never taken";
  EXPECT_NE(command.to_json().dump().find("not an allowed repair"), std::string::npos);
}

Json example_plan() {
  return {{"species_prefix", "Lchi"},
          {"gene_family", "SPL"},
          {"reference_genome",
           {{"status", "proteins only"},
            {"pep", "Lchi.pep.fasta"},
            {"pep_status", "available"},
            {"cds", "Lchi.cds.fasta"},
            {"cds_status", "missing"},
            {"hmm", "SBP.hmm"},
            {"hmm_status", "available"}}},
          {"analysis_stages", Json::array({{{"identify", "identify members"}},
                                           {{"phylogeny", "phylogenetic tree"}},
                                           {{"kaks", "Ka/Ks (skipped: no cds file)"}}})},
          {"estimated_time", "about 4 minutes"}};
}

TEST(PlanReasoning, TheModelCannotClaimStagesFilesOrNumbersThePlanLacks) {
  Json plan = example_plan();
  EXPECT_TRUE(plan_reasoning_problems("The proteins in Lchi.pep.fasta allow the identify stage.", plan).empty());
  EXPECT_TRUE(plan_reasoning_problems("Ka/Ks is skipped because Lchi.cds.fasta is missing.", plan).empty());
  EXPECT_FALSE(plan_reasoning_problems("The kaks stage dates the duplications.", plan).empty());
  EXPECT_FALSE(plan_reasoning_problems("Lchi.cds.fasta gives the coding sequences.", plan).empty());
  EXPECT_FALSE(plan_reasoning_problems("Expression comes from Lchi.rnaseq.tsv.", plan).empty());
  EXPECT_FALSE(plan_reasoning_problems("A GO enrichment follows the tree.", plan).empty());
  EXPECT_FALSE(plan_reasoning_problems("It takes 12 minutes.", plan).empty());
  testing::ReplayServer llm(R"({"script": [
      {"expect": ["Lchi.pep.fasta"],
       "message": {"content": "Only the proteins (Lchi.pep.fasta) are present, so the plan identifies the members and builds the tree. The kaks stage estimates selection on 12 pairs. Ka/Ks is skipped: Lchi.cds.fasta is missing."}}]})",
                            "scripted_llm.py");
  ASSERT_TRUE(llm.ok());
  auto client = scripted(llm);
  Json r = plan_reasoning(plan, client.get(), Lang::kEn);
  EXPECT_EQ(r["written_by"], "scripted") << r.dump();
  std::string t = r["text"];
  EXPECT_NE(t.find("builds the tree"), std::string::npos) << t;
  EXPECT_NE(t.find("Ka/Ks is skipped"), std::string::npos) << t;
  EXPECT_EQ(t.find("12 pairs"), std::string::npos) << "a skipped stage claimed as run, an invented number: " << t;
  ASSERT_EQ(r["removed"].size(), 1u) << r.dump();
  Json offline = plan_reasoning(plan, nullptr, Lang::kZh);
  EXPECT_EQ(offline["written_by"], "template");
  EXPECT_NE(offline["text"].get<std::string>().find("未使用语言模型"), std::string::npos) << offline.dump();
}

// A Chinese report: the engine's reasons in Chinese, and no English sentence outside names, tables and paths.
TEST(Bilingual, AChineseReportHasNoEnglishSentences) {
  TempDir d;
  fs::path identify = d.path() / "identify", work = d.path() / "report";
  fs::create_directories(identify);
  fs::create_directories(work / "final");
  std::ofstream(identify / "members.tsv") << "gene\tprotein\tseqid\tstart\tend\tstrand\tlength\tevalue\tscore\tcov\n"
                                          << "g1\tp1\tChr1\t100\t900\t+\t200\t1e-30\t120\t0.9\n";
  StageSpec spec = *genefamily_pipeline().find("report");
  StageContext ctx;
  ctx.run = {{"species", "Lchi"},
             {"family", "SPL"},
             {"run_dir", d.path().string()},
             {"stage_states",
              {{"kaks",
                {{"state", "skipped"},
                 {"message", "needs the cds file, which the data folder does not have"},
                 {"reason", {{"kind", "missing_data_file"}, {"subject", "cds"}}}}},
               {"motif",
                {{"state", "failed"},
                 {"failure", "tool_missing"},
                 {"message", "needs streme (not installed; scripts/setup.sh installs the Debian packages)"},
                 {"reason", {{"kind", "program_missing"}, {"subject", "streme"}}}}},
               {"ppi",
                {{"state", "skipped"},
                 {"message", "no Arabidopsis orthologs were given: set {\"ppi\": {}}"},
                 {"reason", {{"kind", "no_orthologs"}, {"subject", ""}}}}},
               {"domain", {{"state", "warn"}, {"message", "domain coverage: mean coverage 0.41 is below 0.5"}}}}}};
  ctx.params = {{"lang", "zh"},
                {"prewritten", {{"literature-comparison", "未使用语言模型：本节只列出检索到的证据。"}}}};
  ctx.work = work;
  ctx.input["identify"] = identify;
  auto steps = spec.steps(ctx);
  ASSERT_TRUE(steps.is_ok());
  for (auto& step : *steps)  // the in-process steps (no figure here to export)
    if (auto* fn = std::get_if<StageFn>(&step)) {
      Status s = (*fn)(ctx);
      ASSERT_TRUE(s.is_ok()) << s.to_string();
    }
  std::ifstream md(work / "final" / "Lchi.SPL.report.md");
  std::string m((std::istreambuf_iterator<char>(md)), {});
  EXPECT_NE(m.find("已跳过：缺少 cds 文件"), std::string::npos) << m;
  EXPECT_NE(m.find("需要的程序 streme 未安装"), std::string::npos) << m;
  EXPECT_EQ(m.find("no Arabidopsis orthologs were given"), std::string::npos) << m;
  EXPECT_NE(m.find("已运行但有警告：部分检查未达阈值"), std::string::npos) << m;
  std::string prose;  // table rows, paths and parameter dumps are names and values
  std::istringstream lines(m);
  for (std::string line; std::getline(lines, line);)
    if (!line.empty() && line[0] != '|' && line.find("sha256:") == std::string::npos &&
        line.find("{") == std::string::npos)
      prose += line + "\n";
  std::regex english_sentence(R"([A-Za-z]+[ ,:;]+[a-z]+[ ,:;]+[a-z]+[ ,:;]+[a-z]+)");
  std::smatch hit;
  EXPECT_FALSE(std::regex_search(prose, hit, english_sentence)) << "English: '" << hit.str() << "' in\n" << prose;
}

// A Chinese session's outcome of a run with skipped and failed stages has no English sentence.
TEST(Bilingual, AChineseRunOutcomeHasNoEnglishSentences) {
  TempDir d;
  fs::create_directories(d.path() / "final");
  std::ofstream(d.path() / "run.json") << R"({"species": "Lchi", "family": "SPL"})";
  std::ofstream(d.path() / "final" / "Lchi.SPL.geneID.txt") << "g1\ng2\n";
  Json status = {
      {"stages",
       Json::array({{{"stage", "kaks"},
                     {"state", "skipped"},
                     {"message", "needs the cds file, which the data folder does not have"},
                     {"reason", {{"kind", "missing_data_file"}, {"subject", "cds"}}}},
                    {{"stage", "ppi"},
                     {"state", "skipped"},
                     {"message", "no Arabidopsis orthologs were given: set {\"ppi\": {\"orthologs\": TSV}}"},
                     {"reason", {{"kind", "no_orthologs"}, {"subject", ""}}}},
                    {{"stage", "phylogeny"},
                     {"state", "failed"},
                     {"failure", "tool_missing"},
                     {"message", "needs iqtree2 (not installed; scripts/setup.sh installs the Debian packages)"},
                     {"reason", {{"kind", "program_missing"}, {"subject", "iqtree2"}}}},
                    {{"stage", "motif"},
                     {"state", "failed"},
                     {"failure", "tool_error"},
                     {"message", "motif: streme exited 1\nthe sequence file could not be read"},
                     {"reason", {{"kind", "failure"}, {"subject", "tool_error"}}}}})}};
  std::ofstream(d.path() / "status.json") << status.dump();
  Json validation = {
      {"checks",
       Json::array(
           {{{"check", "median bootstrap"}, {"status", "warn"}, {"detail", "median SH-like support 73 is below 80"}},
            {{"check", "stage kaks"}, {"status", "skipped"}, {"detail", "skipped: needs"}}})}};
  std::ofstream(d.path() / "validation.json") << validation.dump();
  std::string zh =
      run_outcome_text(d.path(), "t_1", "failed", "some stages failed; validation: warn", Lang::kZh, nullptr);
  std::string no_ids = std::regex_replace(zh, std::regex(R"([A-Za-z0-9_.]+\.(txt|json|log|sh))"), "");
  std::regex english_sentence(R"([A-Za-z]+[ ,:;]+[A-Za-z]+[ ,:;]+[A-Za-z]+[ ,:;]+[A-Za-z]+)");
  std::smatch m;
  EXPECT_FALSE(std::regex_search(no_ids, m, english_sentence)) << "English: '" << m.str() << "' in\n" << zh;
  EXPECT_NE(zh.find("缺少 cds 文件"), std::string::npos) << zh;
  EXPECT_NE(zh.find("需要的程序 iqtree2 未安装"), std::string::npos) << zh;
  EXPECT_NE(zh.find("失败类别：程序出错"), std::string::npos) << zh;
  std::string naming =
      run_outcome_text({}, "t_2", "failed", "Lchi.gff3: line 4 has 8 columns, not 9", Lang::kZh, nullptr);
  EXPECT_EQ(naming, "分析未能完成：涉及文件：Lchi.gff3；原因的原文见任务事件");
  std::string en =
      run_outcome_text(d.path(), "t_1", "failed", "some stages failed; validation: warn", Lang::kEn, nullptr);
  EXPECT_NE(en.find("kaks: skipped (needs the cds file"), std::string::npos) << en;
}

// End to end: a protein-only run with the scripted model. The plan's reasoning and both report
// sections are the model's, the invented sentences are gone, and the task's events say why.
TEST(ReportSections, ARunsReportCarriesTheModelsCheckedSections) {
  if (!fs::exists("/usr/bin/hmmsearch") || !fs::exists("/usr/bin/hmmemit"))
    GTEST_SKIP() << "hmmer is not installed (scripts/setup.sh installs it)";
  testing::ReplayServer llm(R"({"script": [
      {"expect": ["analysis plan", "Exam.pep.fasta"],
       "message": {"content": "Only the proteins in Exam.pep.fasta are present, so the family is identified from them."}},
      {"expect": ["comparison with the literature", "family GLOBIN"],
       "message": {"content": "GLOBIN members were identified in this run [1]. Exam carries 250 GLOBIN genes [1]."}},
      {"expect": ["biological significance"],
       "message": {"content": "The GLOBIN family of this run is described by its stages [1]. It was shaped by 9 whole-genome duplications [4]."}}]})",
                            "scripted_llm.py");
  ASSERT_TRUE(llm.ok());
  ToolEnv e;
  fs::path shared = e.dir.path() / "shared" / "exam";
  ASSERT_TRUE(write_example_genome(shared).is_ok());
  for (const char* f : {"Exam.genome.fasta", "Exam.gff3", "Exam.cds.fasta"}) fs::remove(shared / f);
  ::setenv("BIOAGENT_MODELS_FILE", (e.dir.path() / "none.json").c_str(), 1);
  ::setenv("BIOAGENT_LLM_BASE_URL", llm.url("/v1").c_str(), 1);
  ::setenv("BIOAGENT_LLM_MODEL", "scripted-model", 1);
  AssistantOptions o;
  o.runs.state_dir = e.dir.path() / "state";
  o.runs.data_dir = e.dir.path() / "shared";
  o.runs.base_params.stages["phylogeny"] = {{"method", "fasttree"}};
  o.registry = &e.reg;
  o.workspace = e.ws.get();
  o.tool_options = {{"offline", "0"},  // a model is used only when not offline; the sections search locally
                    {"allow_private_urls", "1"},
                    {"papers_db", (e.dir.path() / "papers.duckdb").string()},
                    {"cache_dir", (e.dir.path() / "cache").string()}};
  auto a = Assistant::open(o);
  ::unsetenv("BIOAGENT_LLM_BASE_URL");
  ::unsetenv("BIOAGENT_LLM_MODEL");
  ::unsetenv("BIOAGENT_MODELS_FILE");
  ASSERT_TRUE(a.is_ok()) << a.status().to_string();
  std::string sid = (*(*a)->create_session())["session_id"];
  auto p = (*a)->plan(sid, "Exam", "GLOBIN", "en");
  ASSERT_TRUE(p.is_ok()) << p.status().to_string();
  const Json& reasoning = (*p)["plan"]["analysis_plan"]["reasoning"];
  EXPECT_NE(reasoning["written_by"], "template") << reasoning.dump();
  auto t = (*a)->execute(sid, (*p)["plan_id"], Json::object(), true);
  ASSERT_TRUE(t.is_ok()) << t.status().to_string();
  Json evs = Json::array();
  for (int i = 0; i < 600; ++i) {
    int64_t after = evs.empty() ? 0 : evs.back()["seq"].get<int64_t>();
    for (auto& ev : (*a)->runs().events(sid, (*t)["task_id"], after, std::chrono::milliseconds(200))) evs.push_back(ev);
    if (!evs.empty() && evs.back()["type"] == "state" &&
        (evs.back()["state"] == "done" || evs.back()["state"] == "failed"))
      break;
  }
  Json sections;
  for (auto& ev : evs)
    if (ev["type"] == "report_sections") sections = ev;
  ASSERT_TRUE(sections.is_object()) << evs.dump();
  EXPECT_EQ(sections["model_used"], true) << sections.dump();
  std::string removed = sections["removed"].dump();
  EXPECT_NE(removed.find("number '250' is in none of the cited sources"), std::string::npos) << removed;
  EXPECT_NE(removed.find("cites [4], which is no source"), std::string::npos) << removed;
  auto st = (*a)->runs().status(sid, (*t)["task_id"]);
  ASSERT_TRUE(st.is_ok());
  fs::path final_dir = o.runs.state_dir / "sessions" / sid / "runs" / (*t)["task_id"].get<std::string>() / "final";
  std::ifstream html_in(final_dir / "Exam.GLOBIN.report.html");
  std::string html((std::istreambuf_iterator<char>(html_in)), {});
  EXPECT_NE(html.find("<h2 id=\"literature-comparison\">"), std::string::npos);
  EXPECT_NE(html.find("GLOBIN members were identified in this run [1]."), std::string::npos);
  EXPECT_NE(html.find("The GLOBIN family of this run is described by its stages [1]."), std::string::npos);
  EXPECT_EQ(html.find("carries 250"), std::string::npos);
  EXPECT_EQ(html.find("whole-genome duplications [4]"), std::string::npos);
}

}  // namespace
}  // namespace bioagent
