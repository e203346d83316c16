// The gene-family stage table and what reads it: resource parameters bounded
// by the runner, the stages' needs, failure classes, repairs, truthful states
// and the correctness rules of the stages, on made-up data (fast, no programs).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

#include "assistant/assistant_impl.h"
#include "assistant/assistant_internal.h"
#include "bioagent/genefamily.h"
#include "bioagent/seqio.h"
#include "genefamily/algo/natural_order.h"
#include "genefamily/stages/stage_common.h"
#include "test_util.h"

using namespace bioagent;
using bioagent::testing::TempDir;

TEST(ResourceParams, CpuIsBoundedByTheRunnerAndTheErrorNamesTheLimit) {
  const Pipeline& p = genefamily_pipeline();
  auto over = parse_run_params(Json{{"cpu", 256}}, p, 2);
  ASSERT_FALSE(over.is_ok());
  EXPECT_EQ(over.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(over.status().message().find("from 1 to 2"), std::string::npos) << over.status().message();
  EXPECT_FALSE(parse_run_params(Json{{"cpu", 0}}, p, 2).is_ok());
  EXPECT_FALSE(parse_run_params(Json{{"cpu", 1.5}}, p, 2).is_ok());
  auto ok = parse_run_params(Json{{"cpu", 2}}, p, 2);
  ASSERT_TRUE(ok.is_ok()) << ok.status().to_string();
  EXPECT_EQ(ok->cpus, 2);
  EXPECT_EQ(dialog_view(*ok, p, 1)["cpu"], 2);
  // The local runner's limit is the machine's cores, whatever the budget says.
  TempDir dir;
  RunServiceOptions o;
  o.state_dir = dir.path();
  o.cpus = 256;
  o.runner = "local";
  auto runs = RunService::open(o);
  ASSERT_TRUE(runs.is_ok()) << runs.status().to_string();
  EXPECT_EQ((*runs)->cpu_limit(), int(std::max(1u, std::thread::hardware_concurrency())));
  o.cpus = 1;
  o.state_dir = dir.path() / "other";
  auto one = RunService::open(o);
  ASSERT_TRUE(one.is_ok());
  EXPECT_EQ((*one)->cpu_limit(), 1);
}

TEST(StageStates, NamesRoundTripAndUnknownNamesAreRefused) {
  for (auto s :
       {StageState::kPending, StageState::kRunning, StageState::kRepairing, StageState::kDone, StageState::kCached,
        StageState::kWarn, StageState::kSkipped, StageState::kFailed, StageState::kCancelled}) {
    auto back = stage_state_from_string(to_string(s));
    ASSERT_TRUE(back.is_ok()) << to_string(s);
    EXPECT_EQ(*back, s);
  }
  EXPECT_FALSE(stage_state_from_string("Done").is_ok());
  for (auto c : {FailureClass::kMissingProgram, FailureClass::kMissingInput, FailureClass::kMalformedInput,
                 FailureClass::kTimeout, FailureClass::kOutOfMemory, FailureClass::kEmptyResult,
                 FailureClass::kCountOutOfRange, FailureClass::kToolError}) {
    auto back = failure_class_from_string(to_string(c));
    ASSERT_TRUE(back.is_ok());
    EXPECT_EQ(*back, c);
  }
  EXPECT_TRUE(finished_with_outputs(StageState::kWarn));
  EXPECT_FALSE(finished_with_outputs(StageState::kSkipped));
}

TEST(FailureClasses, FromExitStatusSignalAndTheToolsOwnOutput) {
  ProcessResult r;
  r.exit_code = 0;
  EXPECT_EQ(classify_process(r), FailureClass::kNone);
  r.timed_out = true;
  EXPECT_EQ(classify_process(r), FailureClass::kTimeout);
  r.timed_out = false;
  r.exit_code = 127;
  EXPECT_EQ(classify_process(r), FailureClass::kMissingProgram);
  r.exit_code = 128 + 9;
  EXPECT_EQ(classify_process(r), FailureClass::kOutOfMemory);
  r.exit_code = 1;
  r.log_tail = "Fatal: std::bad_alloc";
  EXPECT_EQ(classify_process(r), FailureClass::kOutOfMemory);
  r.log_tail = "sh: 1: hmmsearch: command not found";
  EXPECT_EQ(classify_process(r), FailureClass::kMissingProgram);
  r.log_tail = "Error: bad alignment";
  EXPECT_EQ(classify_process(r), FailureClass::kToolError);
  // A missing program is not a missing file (the text has "not found" in it).
  EXPECT_EQ(classify_failure_text("hmmsearch: command not found"), FailureClass::kMissingProgram);
  Diagnosis d = classify_failure("identify", "hmmsearch: command not found", Json::array());
  EXPECT_EQ(d.error_type, "tool_missing");
  // The engine's class wins over the text; the repair comes from the stage table.
  Diagnosis t = classify_failure("phylogeny", "iqtree2 exited with code 2", Json::array(), FailureClass::kTimeout);
  EXPECT_EQ(t.error_type, "time_limit");
  EXPECT_EQ(t.fix, "fasttree_on_timeout");
  const DiagnosisRepair* rep = find_repair(t.fix);
  ASSERT_NE(rep, nullptr);
  EXPECT_EQ(rep->stage, "phylogeny");
  EXPECT_FALSE(rep->prevention.empty());
}

// The cases of tests/data/failure_cases.tsv (real programs' messages and the stages' own), one runner.
TEST(FailureClasses, CasesFromData) {
  std::ifstream in(fs::path(BIOAGENT_SOURCE_DIR) / "tests" / "data" / "failure_cases.tsv");
  ASSERT_TRUE(in) << "tests/data/failure_cases.tsv is missing";
  size_t cases = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> f;
    std::istringstream row(line);
    for (std::string x; std::getline(row, x, '\t');) f.push_back(x);
    if (f.size() == 4) f.emplace_back();  // an empty text
    ASSERT_EQ(f.size(), 5u) << "not entry, class, exit_code, timed_out, text: " << line;
    auto want = failure_class_from_string(f[1]);
    ASSERT_TRUE(want.is_ok()) << line;
    FailureClass got = FailureClass::kUnknown;
    if (f[0] == "process") {
      ProcessResult r;
      r.exit_code = std::stoi(f[2]);
      r.timed_out = f[3] == "1";
      r.log_tail = f[4];
      got = classify_process(r);
    } else {
      ASSERT_EQ(f[0], "text") << line;
      got = classify_failure_text(f[4]);
    }
    EXPECT_EQ(to_string(got), f[1]) << line;
    ++cases;
  }
  EXPECT_GE(cases, 30u);
}

namespace {

// A toy stage: writes `summary` as its summary file (StageFn only, no programs).
StageSpec toy(const std::string& name, std::vector<std::string> after, Json summary = Json{{"n", 1}}) {
  StageSpec s;
  s.name = name;
  s.after = std::move(after);
  s.steps = [summary](const StageContext&) -> Result<std::vector<Step>> {
    return std::vector<Step>{StageFn([summary](const StageContext& c) {
      std::ofstream(c.work / "summary.json") << summary.dump();
      return Status::ok();
    })};
  };
  s.outputs = {"summary.json"};
  s.parse = [](const StageContext& c) -> Result<Json> {
    std::ifstream in(c.work / "summary.json");
    return Json::parse(in);
  };
  return s;
}

}  // namespace

TEST(StageStates, SkippedWithTheReasonWarnOnACheckAndOptionalUpstreams) {
  TempDir dir;
  StageSpec base = toy("base", {});
  StageSpec needs_cds = toy("needs_cds", {"base"});
  needs_cds.needs = {"cds"};
  StageSpec nothing = toy("nothing", {"base"}, Json{{"skipped", true}, {"reason", "no reads were given"}});
  StageSpec checked = toy("checked", {"base"}, Json{{"median", 39}});
  checked.checks = [](const StageContext&, const Json& s) -> std::vector<StageCheck> {
    return {{"median", s.value("median", 0) >= 95 ? "pass" : "warn", "median 39 (threshold 95)", 39, 95}};
  };
  StageSpec after_skip = toy("after_skip", {"needs_cds"});
  StageSpec report = toy("report", {"base"});
  report.uses = {"needs_cds", "nothing", "checked", "after_skip"};
  Pipeline p({base, needs_cds, nothing, checked, after_skip, report});
  PipelineOptions o;
  o.run_dir = dir.path() / "run";
  o.cpus = 1;
  auto runner = make_local_runner();
  auto r = p.run(Json{{"files", {{"pep", "x.pep.fasta"}}}}, *runner, o);
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  std::map<std::string, StageStatus> m;
  for (auto& s : *r) m[s.stage] = s;
  EXPECT_EQ(m["base"].state, StageState::kDone);
  EXPECT_EQ(m["needs_cds"].state, StageState::kSkipped);
  EXPECT_NE(m["needs_cds"].message.find("cds file"), std::string::npos) << m["needs_cds"].message;
  EXPECT_EQ(m["nothing"].state, StageState::kSkipped) << "ran, nothing applied: not done";
  EXPECT_EQ(m["nothing"].message, "no reads were given");
  EXPECT_EQ(m["checked"].state, StageState::kWarn);
  ASSERT_EQ(m["checked"].checks.size(), 1u);
  EXPECT_NE(m["checked"].message.find("threshold 95"), std::string::npos);
  EXPECT_EQ(m["after_skip"].state, StageState::kSkipped);
  EXPECT_NE(m["after_skip"].message.find("needs_cds"), std::string::npos);
  EXPECT_EQ(m["report"].state, StageState::kDone) << "optional upstreams never block";
  Json j = m["nothing"].to_json();
  EXPECT_EQ(j["state"], "skipped");
}

TEST(Phylogeny, SupportComparedWithAThresholdOfItsOwnKind) {
  const StageSpec* phylo = genefamily_pipeline().find("phylogeny");
  ASSERT_NE(phylo, nullptr);
  ASSERT_TRUE(bool(phylo->checks));
  StageContext ctx;
  auto verdict = [&](const char* kind, double median) {
    auto c = phylo->checks(ctx, Json{{"support_kind", kind}, {"median_support", median}});
    return c.empty() ? std::string("none") : c[0].status + " | " + c[0].detail;
  };
  EXPECT_EQ(verdict("ufboot", 96).rfind("pass", 0), 0u);
  EXPECT_EQ(verdict("ufboot", 73).rfind("warn", 0), 0u) << "UFBoot 73 is weak support";
  EXPECT_NE(verdict("ufboot", 73).find("UFBoot"), std::string::npos);
  EXPECT_EQ(verdict("sh_like", 85).rfind("pass", 0), 0u);
  EXPECT_EQ(verdict("sh_like", 73).rfind("warn", 0), 0u);
  EXPECT_NE(verdict("sh_like", 73).find("SH-like"), std::string::npos);
}

TEST(SeqIo, DuplicateIdsAreAnErrorNamingBothRecords) {
  auto fa = parse_fasta(">g1\nMKV\n>g2\nMKA\n>g1 second\nMKL\n", "x.pep.fasta");
  ASSERT_FALSE(fa.is_ok());
  EXPECT_NE(fa.status().message().find("line 5"), std::string::npos) << fa.status().message();
  EXPECT_NE(fa.status().message().find("line 1"), std::string::npos) << fa.status().message();
  const std::string gff =
      "chr1\tx\tgene\t1\t100\t.\t+\t.\tID=g1\n"
      "chr1\tx\tmRNA\t1\t100\t.\t+\t.\tID=t1;Parent=g1\n"
      "chr2\tx\tgene\t500\t900\t.\t+\t.\tID=g1\n";
  auto g = parse_gff3(gff, "x.gff3");
  ASSERT_FALSE(g.is_ok());
  EXPECT_NE(g.status().message().find("line 3"), std::string::npos) << g.status().message();
  EXPECT_NE(g.status().message().find("line 1"), std::string::npos) << g.status().message();
}

namespace {

// One yn00 result block (Yang & Nielsen 2000 table) with the given dN and dS fields.
std::string yn00_block(const std::string& dn, const std::string& ds) {
  return "(B) Yang & Nielsen (2000) method\n\nYang Z, Nielsen R (2000) Estimating synonymous...\n\n"
         "seq. seq.     S       N        t   kappa   omega     dN +- SE    dS +- SE\n\n"
         "   2    1   183.9   464.1  2.4272  0.5497  0.5129 " +
         dn + " +- 0.0107  " + ds + " +- 0.0247\n\n";
}

}  // namespace

TEST(KaKs, ValuesYn00CouldNotEstimateAndSaturatedKsAreNotCounted) {
  EXPECT_TRUE(std::isnan(gf::yn00_value("99.0000")));
  EXPECT_TRUE(std::isnan(gf::yn00_value("-99.0000")));
  EXPECT_TRUE(std::isnan(gf::yn00_value("nan")));
  EXPECT_TRUE(std::isnan(gf::yn00_value("-0.0000")));
  EXPECT_DOUBLE_EQ(gf::yn00_value("0.1097"), 0.1097);
  TempDir dir;
  StageContext ctx;
  ctx.work = dir.path();
  ctx.run = {{"species", "Exam"}, {"family", "FAM"}};
  ctx.params = {{"substitution_rate", 1.5e-8}, {"max_ks", 2.5}};
  dir.write("pairs.tsv", "gene_a\tgene_b\tkind\na\tb\tmutual best\nc\td\tmutual best\ne\tf\ttandem\n");
  dir.write("yn00.out",
            yn00_block("0.0563", "0.1097") + yn00_block("0.0030", "99.0000") + yn00_block("0.0033", "3.3000"));
  ASSERT_TRUE(gf::summarise_kaks(ctx).is_ok());
  std::ifstream in(dir.path() / "kaks.json");
  Json j = Json::parse(in);
  EXPECT_EQ(j["pairs"], 3);
  EXPECT_EQ(j["estimated"], 1);
  EXPECT_EQ(j["not_estimated"], 1) << "Ks 99 is yn00's 'could not estimate'";
  EXPECT_EQ(j["saturated"], 1) << "Ks 3.3 is above 2.5";
  EXPECT_EQ(j["purifying_selection"], 1) << "only the estimated pair counts";
  EXPECT_EQ(j["rows"][0]["selection"], "purifying") << "z = -1.98 from yn00's standard errors, p < 0.05";
  EXPECT_DOUBLE_EQ(j["median_ka_ks"].get<double>(), 0.0563 / 0.1097);
  EXPECT_EQ(j["rows"][1]["status"], "not estimated");
  EXPECT_TRUE(j["rows"][1]["ks"].is_null());
  EXPECT_TRUE(j["rows"][1]["ka_ks"].is_null());
  EXPECT_EQ(j["rows"][2]["status"], "saturated");
  EXPECT_TRUE(j["rows"][2]["divergence_mya"].is_null()) << "no date from a saturated Ks";
  EXPECT_NEAR(j["rows"][0]["divergence_mya"].get<double>(), 0.1097 / 3e-8 / 1e6, 1e-6);
  std::ifstream tsv(dir.path() / "final" / "Exam.FAM.kaks.tsv");
  std::string t((std::istreambuf_iterator<char>(tsv)), std::istreambuf_iterator<char>());
  EXPECT_EQ(t.find("99"), std::string::npos) << t;
  EXPECT_NE(t.find("not estimated"), std::string::npos);
}

// Selection is claimed only from the test of Ka = Ks: a ratio above 1 at a tiny Ks with wide standard errors is
// not positive selection; without standard errors nothing is tested; medians of even counts average the middle two.
TEST(KaKs, SelectionOnlyFromTheTestOfKaEqualsKs) {
  double z = 0, p = 0;
  EXPECT_EQ(gf::selection_test({0.0144, 0.010, 0.012, 0.009}, &z, &p), "neutral") << "Ka/Ks 1.2 at Ks 0.012";
  EXPECT_GT(p, 0.05);
  EXPECT_EQ(gf::selection_test({0.40, 0.05, 0.10, 0.03}), "positive");
  EXPECT_EQ(gf::selection_test({0.02, 0.005, 0.30, 0.04}), "purifying");
  EXPECT_EQ(gf::selection_test({0.02, NAN, 0.30, NAN}, &z, &p), "") << "no standard errors: not tested";
  EXPECT_TRUE(std::isnan(p));
  EXPECT_DOUBLE_EQ(gf::median_of({97, 94, 100, 96.8}), (96.8 + 97) / 2);
  EXPECT_DOUBLE_EQ(gf::median_of({3, 1, 2}), 2);
  EXPECT_TRUE(std::isnan(gf::median_of({})));
}

// Chromosomes sort as people count (Chr_2 before Chr_10) and members are numbered by that order, then start;
// members without a position come after them, by id in natural order.
TEST(MemberNames, NumberedByNaturalChromosomeOrder) {
  std::vector<std::string> chrs = {"Chr_10", "Chr_2", "chr_1", "Chr_19", "scaffold_9", "scaffold_10"};
  std::sort(chrs.begin(), chrs.end(), [](auto& a, auto& b) { return natural_less(a, b); });
  EXPECT_EQ(chrs, (std::vector<std::string>{"chr_1", "Chr_2", "Chr_10", "Chr_19", "scaffold_9", "scaffold_10"}));
  EXPECT_LT(natural_compare("chr1", "chr01"), 0) << "leading zeros only break ties";
  std::vector<gf::Member> m(5);
  m[0] = {"", "gA", "pA", "Chr_10", "", '+', 5};
  m[1] = {"", "gB", "pB", "Chr_2", "", '+', 900};
  m[2] = {"", "gC", "pC", "Chr_2", "", '-', 100};
  m[3] = {"", "g10", "p10", "", "", '+', 0};  // no position
  m[4] = {"", "g9", "p9", "", "", '+', 0};
  const gf::Naming n = gf::name_members(m, "At", "SPL-like", false);
  EXPECT_EQ(n.basis, "chromosome_then_id");
  EXPECT_EQ(n.placed, 3u);
  std::vector<std::string> order;
  for (auto& x : m) order.push_back(x.gene + "=" + x.name);
  EXPECT_EQ(order, (std::vector<std::string>{"gC=AtSPLlike1", "gB=AtSPLlike2", "gA=AtSPLlike3", "g9=AtSPLlike4",
                                             "g10=AtSPLlike5"}));
  const auto by_id = gf::names_by_id(m);
  EXPECT_EQ(by_id.at("pB"), "AtSPLlike2");
  EXPECT_EQ(by_id.at("g10"), "AtSPLlike5");
  gf::name_members(m, "At", "SPL", true);
  for (auto& x : m) EXPECT_EQ(x.name, x.gene) << "identify.names = ids keeps the ids";
}

TEST(Chromosome, RedundantGeneModelsCollapseIntoOneLocus) {
  using gf::Member;
  std::vector<Member> m(4);
  m[0] = {"g1", "g1", "p1", "chr1", "", '+', 100, 900};
  m[1] = {"g2", "g2", "p2", "chr1", "", '+', 150, 800};  // overlaps g1, protein inside g1's
  m[2] = {"g3", "g3", "p3", "chr1", "", '+', 120, 700};  // overlaps, protein inside g2's (so g1's)
  m[3] = {"g4", "g4", "p4", "chr1", "", '-', 100, 900};  // the other strand: a locus of its own
  std::map<std::string, std::string> pep = {
      {"g1", "MKVLAAGIVLLLSSAQA*"}, {"g2", "VLAAGIVLLLSS"}, {"g3", "AAGIVL"}, {"g4", "MKVLAAGIVLLLSSAQA"}};
  auto r = gf::collapse_redundant_models(m, pep);
  EXPECT_EQ(r.size(), 2u);
  EXPECT_EQ(r["g2"], "g1");
  EXPECT_EQ(r["g3"], "g1");
  EXPECT_FALSE(r.count("g4"));
  EXPECT_FALSE(r.count("g1"));
  // Overlapping but different proteins are two genes.
  pep["g2"] = "WWWWWWWW";
  auto r2 = gf::collapse_redundant_models({m[0], m[1]}, pep);
  EXPECT_TRUE(r2.empty());
}

TEST(SpeciesCheck, TruncatedProfileInternalStopsAndGenesBeyondTheGenomeAreCaught) {
  TempDir dir;
  dir.write("Exam.genome.fasta", ">chr1\nACGTACGTAC\n");
  dir.write("Exam.gff3", "##gff-version 3\nchr1\tx\tgene\t1\t500\t.\t+\t.\tID=g1\n");
  dir.write("Exam.cds.fasta", ">p1\nATGAAA\n");
  dir.write("Exam.pep.fasta", ">p1\nMK*LV\n>p2\nmkvl\n");
  dir.write("FAM.hmm", "HMMER3/f [3.3.2]\nNAME  FAM\nLENG  10\n");
  auto r = check_species_data(dir.path(), "Exam", "FAM", true);
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  std::string all;
  for (auto& p : (*r)["problems"]) all += p.value("message", std::string()) + "\n";
  EXPECT_NE(all.find("FAM.hmm line 3"), std::string::npos) << all;
  EXPECT_NE(all.find("protein p1 has a stop '*' at residue 3"), std::string::npos) << all;
  EXPECT_NE(all.find("gene g1 ends at 500, beyond the 10 bp of chr1"), std::string::npos) << all;
  ASSERT_EQ((*r)["warnings"].size(), 1u);
  EXPECT_NE((*r)["warnings"][0]["message"].get<std::string>().find("p2"), std::string::npos);
  EXPECT_FALSE((*r)["ok"].get<bool>());
}
