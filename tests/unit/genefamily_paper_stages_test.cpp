// The gene-family stages that give a paper's figures and tables: classify (a
// set of domain profiles in the data folder, families by rules), the combined
// panel, renaming by chromosome order with the labelled map, the properties
// stage's pK scale option, the tree figures under the new names, the methods'
// parameters; on the generated example genome and, when
// ../shared/fixtures exists, on a real proteome with TAPscan's profiles.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "bioagent/genefamily.h"
#include "bioagent/seqio.h"
#include "genefamily/algo/newick.h"
#include "genefamily/algo/protein_properties.h"
#include "genefamily/figures/figures.h"
#include "genefamily/figures/figures_paper.h"
#include "genefamily/stages/report_methods.h"
#include "replay_server.h"
#include "test_util.h"

using namespace bioagent;
using bioagent::testing::TempDir;
namespace fs = std::filesystem;

namespace {

const char* kTutorial = "/usr/share/doc/hmmer/examples/tutorial/";

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// A copy of the example genome (its members carry globin domains, its decoys fn3 and Pkinase).
const fs::path& example_copy() {
  static TempDir dir;
  static fs::path data = [] {
    fs::path d = dir.path() / "data";
    auto r = write_example_genome(d);
    EXPECT_TRUE(r.is_ok()) << r.status().to_string();
    return d;
  }();
  return data;
}

Result<std::vector<StageStatus>> run_stages(const fs::path& d, const Json& params, const fs::path& run_dir,
                                            std::vector<std::string> stages, const std::string& family = "") {
  auto cfg = genefamily_run_config("", family, d, params);
  if (!cfg) return cfg.status();
  PipelineOptions o;
  o.run_dir = run_dir;
  o.cpus = 2;
  o.stages = std::move(stages);
  auto runner = make_local_runner();
  return run_genefamily(*cfg, *runner, o);
}

const StageStatus* find_stage(const std::vector<StageStatus>& r, const std::string& name) {
  for (auto& s : r)
    if (s.stage == name) return &s;
  return nullptr;
}

// TSV rows (header dropped) as cells.
std::vector<std::vector<std::string>> rows_of(const fs::path& p) {
  std::vector<std::vector<std::string>> out;
  std::istringstream in(slurp(p));
  std::string line;
  std::getline(in, line);
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::istringstream cs(line);
    for (std::string c; std::getline(cs, c, '\t');) cells.push_back(c);
    out.push_back(cells);
  }
  return out;
}

bool tools_present() { return fs::exists("/usr/bin/hmmsearch") && fs::exists(std::string(kTutorial) + "fn3.hmm"); }

}  // namespace

// Without a set of domain profiles the stage is skipped and says why.
TEST(ClassifyStage, SkippedWithTheReasonWhenTheFolderHasNoProfileSet) {
  if (!tools_present()) GTEST_SKIP() << "hmmer (and its tutorial profiles) are not installed";
  TempDir run;
  auto r = run_stages(example_copy(), Json::object(), run.path() / "run", {"classify"});
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  const StageStatus* s = find_stage(*r, "classify");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->state, StageState::kSkipped);
  EXPECT_NE(s->message.find("hmm_set"), std::string::npos) << s->message;
}

// A three-profile set beside the family's own profile: every protein with a
// domain is assigned by the rules; the members identify found are the GLOBIN
// calls (the check passes), the decoys are FN3 and KINASE.
TEST(ClassifyStage, AssignsEveryProteinOfTheProteomeByTheRules) {
  if (!tools_present()) GTEST_SKIP() << "hmmer (and its tutorial profiles) are not installed";
  TempDir data;
  for (auto& e : fs::directory_iterator(example_copy())) fs::copy(e.path(), data.path() / e.path().filename());
  data.write("domains.hmm", slurp(std::string(kTutorial) + "globins4.hmm") + slurp(std::string(kTutorial) + "fn3.hmm") +
                                slurp(std::string(kTutorial) + "Pkinase.hmm"));
  TempDir elsewhere;  // not in the data folder: its names follow the naming rules
  fs::path rules = elsewhere.write("rules.tsv",
                                   "domain\tGlobin\tglobins4\ndomain\tFN3\tfn3\ndomain\tKinase\tPkinase\n"
                                   "rule\tGLOBIN\tGLOBIN\t-\tGlobin\t-\nrule\tFN3\tFN3\t-\tFN3\tKinase\n"
                                   "rule\tKINASE\tKINASE\t-\tKinase\t-\n");
  auto check = check_species_data(data.path(), "", "");
  ASSERT_TRUE(check.is_ok());
  EXPECT_EQ((*check)["family"], "GLOBIN") << "the set is not the family's profile";
  EXPECT_EQ((*check)["files"].value("hmm_set", std::string()), (data.path() / "domains.hmm").string());
  // A folder with the set but not the family's own profile is not ready, and says what the set is for.
  TempDir only_set;
  fs::copy(data.path() / "Exam.pep.fasta", only_set.path() / "Exam.pep.fasta");
  fs::copy(data.path() / "domains.hmm", only_set.path() / "domains.hmm");
  auto not_ready = genefamily_run_config("", "", only_set.path(), Json::object());
  ASSERT_FALSE(not_ready.is_ok());
  EXPECT_NE(not_ready.status().message().find("domains.hmm holds several domain profiles: it is used by the classify"),
            std::string::npos)
      << not_ready.status().message();
  TempDir run;
  auto r = run_stages(data.path(), Json{{"classify", {{"rules", rules.string()}}}}, run.path() / "run",
                      {"identify", "classify"});
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  const StageStatus* s = find_stage(*r, "classify");
  ASSERT_NE(s, nullptr);
  ASSERT_EQ(s->state, StageState::kDone) << s->message;
  Json truth = Json::parse(slurp(example_copy() / "truth.json"));
  const size_t members = truth["members"].size();
  // Every protein is classified, isoforms too: the GLOBIN calls are the members' proteins.
  size_t member_proteins = 0;
  if (auto pep = read_fasta(data.path() / "Exam.pep.fasta"))
    for (auto& rec : *pep)
      for (auto& g : truth["members"]) member_proteins += rec.id.rfind(g.get<std::string>() + ".", 0) == 0;
  EXPECT_EQ(s->summary["families"].value("GLOBIN", 0), int(member_proteins)) << s->summary.dump();
  EXPECT_EQ(s->summary["run_family"]["both"], members) << "every member identify found is a GLOBIN call";
  EXPECT_GT(s->summary["families"].value("FN3", 0) + s->summary["families"].value("KINASE", 0), 0);
  ASSERT_EQ(s->checks.size(), 1u);
  EXPECT_EQ(s->checks[0].status, "pass") << s->checks[0].detail;
  fs::path f = run.path() / "run" / "final";
  auto counts = rows_of(f / "Exam.GLOBIN.family_counts.tsv");
  ASSERT_FALSE(counts.empty());
  std::map<std::string, std::string> by_family;
  for (auto& c : counts) by_family[c[0]] = c[1];
  EXPECT_EQ(by_family["GLOBIN"], std::to_string(member_proteins));
  size_t assigned = rows_of(f / "Exam.GLOBIN.family_assignments.tsv").size();
  EXPECT_EQ(assigned, size_t(s->summary["classified"].get<int>()));
  // Its report section: the counts table, largest family first.
  StageContext sc;
  sc.run = {{"species", "Exam"}, {"family", "GLOBIN"}};
  ReportSection sec =
      genefamily_pipeline().find("classify")->report({sc, s->state, "", fs::path(s->folder), Lang::kEn});
  EXPECT_EQ(sec.title, "Family classification");
  EXPECT_NE(std::find(sec.table.begin(), sec.table.end(),
                      std::vector<std::string>{"GLOBIN", std::to_string(member_proteins)}),
            sec.table.end());
  ReportSection zh = genefamily_pipeline().find("classify")->report({sc, s->state, "", fs::path(s->folder), Lang::kZh});
  EXPECT_EQ(zh.title, "基因家族分类");
}

// The fixture's 53 TAPscan Pfam profiles over a real red-alga proteome subset.
TEST(ClassifyStage, TapscanProfilesOnARealProteome) {
  const fs::path fx = fs::path(BIOAGENT_FIXTURES_DIR) / "genefamily";
  const fs::path set = fx / "hmm/planttfhunter_PFAM_TF_domains.hmm",
                 pep = fx / "galdieria_planttfhunter/Gsulphuraria_TFdomain_subset.fa", sbp = fx / "hmm/PF03110_SBP.hmm";
  if (!fs::exists(set) || !fs::exists(pep)) GTEST_SKIP() << "fixtures absent: " << set;
  if (!fs::exists("/usr/bin/hmmsearch")) GTEST_SKIP() << "hmmer is not installed";
  TempDir data;
  fs::create_symlink(set, data.path() / "TAPscan.hmm");
  fs::create_symlink(sbp, data.path() / "SBP.hmm");
  fs::create_symlink(pep, data.path() / "Gsul.pep.fasta");
  TempDir run;
  auto r = run_stages(data.path(), Json::object(), run.path() / "run", {"classify"}, "SBP");
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  const StageStatus* s = find_stage(*r, "classify");
  ASSERT_NE(s, nullptr);
  ASSERT_EQ(s->state, StageState::kDone) << s->message;
  EXPECT_NE(s->summary.value("threshold_mode", std::string()).find("E-value"), std::string::npos)
      << "the profiles carry no GA lines";
  EXPECT_GE(s->summary["classified"].get<int>(), 100) << s->summary.dump();
  EXPECT_GE(s->summary["families"].size(), 10u) << s->summary.dump();
  // PlantTFHunter's calls on the same proteins (another tool, other rules): most are classified here too
  // (107 of 123 when written; NF-YB/NF-YC and LSD have no rule these profiles can decide).
  std::set<std::string> ours;
  for (auto& c : rows_of(run.path() / "run/final/Gsul.SBP.family_assignments.tsv")) ours.insert(c[0]);
  auto theirs = rows_of(fx / "galdieria_planttfhunter/gsu_families.tsv");
  size_t both = 0;
  for (auto& c : theirs) both += ours.count(c[0]);
  EXPECT_GE(double(both), 0.85 * double(theirs.size())) << both << " of " << theirs.size();
}

// pI with the ExPASy pK values by default, EMBOSS's on request; the option is
// in the stage's schema and any other value is refused.
TEST(PropertiesStage, PkScaleOptionChangesThePiAsThePublishedSetsSay) {
  if (!tools_present()) GTEST_SKIP() << "hmmer is not installed";
  std::map<std::string, std::map<std::string, double>> pi;  // scale -> gene -> pI
  fs::path pep_file;
  for (std::string scale : {"expasy", "emboss"}) {
    TempDir run;
    auto r = run_stages(example_copy(), Json{{"properties", {{"pk_scale", scale}}}}, run.path() / "run",
                        {"identify", "properties"});
    ASSERT_TRUE(r.is_ok()) << r.status().to_string();
    const StageStatus* s = find_stage(*r, "properties");
    ASSERT_NE(s, nullptr);
    ASSERT_TRUE(finished_with_outputs(s->state)) << s->message;
    EXPECT_EQ(s->summary["pk_scale"], scale);
    for (auto& c : rows_of(run.path() / "run/final/Exam.GLOBIN.properties.tsv")) pi[scale][c[0]] = std::stod(c[3]);
    auto pep = read_fasta(run.path() / "run/final/Exam.GLOBIN.pep.fasta");
    ASSERT_TRUE(pep.is_ok());
    for (auto& rec : *pep)
      EXPECT_NEAR(
          pi[scale][rec.id],
          protein_properties(rec.seq, scale == "emboss" ? PkScale::kEmboss : PkScale::kExpasy).isoelectric_point, 0.006)
          << rec.id;
  }
  ASSERT_FALSE(pi["expasy"].empty());
  size_t differ = 0;
  for (auto& [g, v] : pi["expasy"]) differ += std::abs(v - pi["emboss"][g]) > 0.05;
  EXPECT_GT(differ, pi["expasy"].size() / 2) << "the two pK sets give different pI";
  TempDir bad;
  auto r = run_stages(example_copy(), Json{{"properties", {{"pk_scale", "lehninger"}}}}, bad.path() / "run",
                      {"identify", "properties"});
  bool refused = !r.is_ok();
  if (r.is_ok())
    if (const StageStatus* s = find_stage(*r, "properties")) refused = s->state == StageState::kFailed;
  EXPECT_TRUE(refused) << "a pK scale outside the enum is refused";
}

// Without references and with the network allowed, the Arabidopsis and rice
// members of the family's Pfam domain come from UniProt (a replay server here),
// join the tree and name the subfamilies; the answer is cached and serves an
// offline run; offline with a cold cache the report says they were not
// available and why, and the tree is rooted at its midpoint.
TEST(PhylogenyReferences, FetchedFromUniprotCachedAndExplainedOffline) {
  if (!fs::exists("/usr/bin/mafft") || !fs::exists("/usr/bin/FastTree"))
    GTEST_SKIP() << "mafft/FastTree are not installed";
  TempDir small;  // a small family keeps the four trees quick
  ExampleGenomeOptions eo;
  eo.members = 6;
  eo.decoys = 4;
  eo.random_genes = 20;
  eo.chromosomes = 2;
  ASSERT_TRUE(write_example_genome(small.path() / "data", eo).is_ok());
  const fs::path data = small.path() / "data";
  auto pep = read_fasta(data / "Exam.pep.fasta");
  ASSERT_TRUE(pep.is_ok());
  Json truth = Json::parse(slurp(data / "truth.json"));
  std::map<std::string, std::string> seq;
  for (auto& r : *pep) seq[r.id] = r.seq;
  auto member_seq = [&](size_t i) {  // a member's protein (its gene's first transcript)
    std::string g = truth["members"][i];
    for (auto& [id, s] : seq)
      if (id.rfind(g + ".", 0) == 0) return s;
    return std::string();
  };
  const std::string ath = ">sp|Q00001|GLB1_ARATH Globin-like 1 OS=Arabidopsis thaliana OX=3702 GN=GLB1 PE=1 SV=1\n" +
                          member_seq(0) + "\n>sp|Q00002|GLB2_ARATH Globin-like 2 OS=Arabidopsis thaliana GN=GLB2\n" +
                          member_seq(1) + "\n";
  const std::string osa = ">sp|Q00003|GLB1_ORYSJ Globin-like 1 OS=Oryza sativa GN=GLB1 PE=2\n" + member_seq(2) + "\n";
  ASSERT_GT(ath.size(), 200u);
  TempDir cache;
  const Json params = {{"phylogeny", {{"method", "fasttree"}}}, {"identify", {{"pfam", "PF00042"}}}};
  auto run_with = [&](const Json& network, const fs::path& run_dir, const std::string& url) {
    Json p = params;
    p["phylogeny"]["uniprot_url"] = url;
    auto cfg = genefamily_run_config("", "", data, p);
    EXPECT_TRUE(cfg.is_ok());
    (*cfg)["network"] = network;
    PipelineOptions o;
    o.run_dir = run_dir;
    o.cpus = 2;
    o.stages = {"phylogeny"};
    auto runner = make_local_runner();
    auto r = run_genefamily(*cfg, *runner, o);
    EXPECT_TRUE(r.is_ok());
    StageStatus out;
    if (r)
      if (const StageStatus* s = find_stage(*r, "phylogeny")) out = *s;
    return out;
  };
  auto section_of = [&](const StageStatus& s, bool zh = false) {
    StageContext sc;
    sc.run = {{"species", "Exam"}, {"family", "GLOBIN"}};
    return genefamily_pipeline()
        .find("phylogeny")
        ->report({sc, s.state, "", fs::path(s.folder), zh ? Lang::kZh : Lang::kEn});
  };
  TempDir runs;
  std::string url;
  {
    Json routes = Json::array();
    routes.push_back({{"path", "/uniprotkb/stream"},
                      {"query_contains", Json::array({"organism_id%3A3702", "PF00042"})},
                      {"body", ath}});
    routes.push_back(
        {{"path", "/uniprotkb/stream"}, {"query_contains", Json::array({"organism_id%3A39947"})}, {"body", osa}});
    bioagent::testing::ReplayServer uniprot(routes.dump());
    ASSERT_TRUE(uniprot.ok());
    url = uniprot.url("");
    Json online = {{"offline", false}, {"allow_private_urls", true}, {"cache_dir", cache.path().string()}};
    StageStatus s = run_with(online, runs.path() / "online", url);
    ASSERT_TRUE(finished_with_outputs(s.state)) << s.message;
    EXPECT_EQ(s.summary["leaves"].get<size_t>(), truth["members"].size() + 3) << "3 reference leaves joined";
    auto sub = rows_of(runs.path() / "online/final/Exam.GLOBIN.subfamilies.tsv");
    std::map<std::string, std::string> group;
    for (auto& c : sub) group[c[0]] = c[1];
    std::string first = truth["members"][0];  // the table names members by the run's one name (names.tsv)
    for (auto& n : rows_of(runs.path() / "online/final/Exam.GLOBIN.names.tsv"))
      if (n.size() >= 3 && (n[1] == first || n[2] == first)) first = n[0];
    EXPECT_EQ(group[first], "Ath GLB1") << "its own copy is the nearest reference";
    ReportSection sec = section_of(s);
    bool said = false;
    for (auto& p : sec.paragraphs) said |= p.find("Reference members: 2 Arabidopsis and 1 rice") != std::string::npos;
    EXPECT_TRUE(said);
  }
  // The server is gone: offline, the cache answers.
  Json offline = {{"offline", true}, {"allow_private_urls", true}, {"cache_dir", cache.path().string()}};
  StageStatus cached = run_with(offline, runs.path() / "cached", url);
  ASSERT_TRUE(finished_with_outputs(cached.state)) << cached.message;
  EXPECT_EQ(cached.summary["leaves"].get<size_t>(), truth["members"].size() + 3);
  // Offline with a cold cache, and a run that never said it may use the network.
  for (const Json& net : {Json{{"offline", true}, {"cache_dir", (cache.path() / "cold").string()}}, Json::object()}) {
    StageStatus cold = run_with(net, runs.path() / ("cold" + std::to_string(net.size())), url);
    ASSERT_TRUE(finished_with_outputs(cold.state)) << cold.message;
    EXPECT_EQ(cold.summary["leaves"].get<size_t>(), truth["members"].size());
    ReportSection sec = section_of(cold);
    std::string text;
    for (auto& p : sec.paragraphs) text += p + "\n";
    EXPECT_NE(text.find("Reference members were not available ("), std::string::npos) << text;
    EXPECT_NE(text.find(net.empty() ? "did not say whether it may use the network" : "offline"), std::string::npos)
        << text;
    EXPECT_NE(text.find("rooted at its midpoint"), std::string::npos);
    std::string zh_text;  // the Chinese report gives the reason in Chinese
    for (auto& p : section_of(cold, true).paragraphs) zh_text += p + "\n";
    EXPECT_NE(zh_text.find(net.empty() ? "未说明是否可以联网" : "离线运行"), std::string::npos) << zh_text;
    EXPECT_EQ(zh_text.find("network"), std::string::npos) << zh_text;
  }
}

// The chromosome map keeps every label inside the figure and inside its
// chromosome's column, however crowded the chromosome and long the names.
TEST(ChromosomeMap, CrowdedChromosomesAndLongNamesStayInside) {
  std::vector<figures::Placed> genes;
  for (int i = 0; i < 60; ++i)
    genes.push_back({"AmborellaTrichopodaGLOBIN" + std::to_string(i + 1), "chr1", 1000 + 100 * i, -1});
  genes.push_back({"AmborellaTrichopodaGLOBIN61", "chr2", 5000, -1});
  std::string svg = figures::chromosome_map(Lang::kEn, {{"chr1", 10000}, {"chr2", 2000000}}, genes, "crowded");
  auto attr = [](const std::string& tag, const std::string& name) {
    auto at = tag.find(" " + name + "=\"");
    return at == std::string::npos ? -1.0 : std::stod(tag.substr(at + name.size() + 3));
  };
  const double height = attr(svg.substr(0, svg.find('>')), "height"),
               width = attr(svg.substr(0, svg.find('>')), "width");
  ASSERT_GT(height, 0);
  std::vector<double> chr1_label_y;
  double chr2_x = 1e9, chr1_label_end = 0;
  for (size_t at = svg.find("<text"); at != std::string::npos; at = svg.find("<text", at + 1)) {
    std::string tag = svg.substr(at, svg.find("</text>", at) - at);
    std::string text = tag.substr(tag.find('>') + 1);
    double x = attr(tag, "x"), y = attr(tag, "y");
    EXPECT_LE(y, height) << text;
    EXPECT_LE(x, width) << text;
    if (text == "chr2") chr2_x = x - 6;
    if (text.rfind("AmborellaTrichopodaGLOBIN", 0) == 0 && text != "AmborellaTrichopodaGLOBIN61") {
      chr1_label_y.push_back(y);
      chr1_label_end = std::max(chr1_label_end, x + figures::text_width(text, attr(tag, "font-size")));
    }
  }
  ASSERT_EQ(chr1_label_y.size(), 60u);
  std::sort(chr1_label_y.begin(), chr1_label_y.end());
  for (size_t i = 1; i < chr1_label_y.size(); ++i) EXPECT_GE(chr1_label_y[i] - chr1_label_y[i - 1], 10.9);
  EXPECT_LT(chr1_label_end, chr2_x) << "labels end before the next chromosome";
}

// Supports next to the root stay inside the figure; 0-1 local supports are printed as percentages.
TEST(TreeFigure, SupportLabelsNextToTheRootAreNotCut) {
  auto t = parse_newick("((A:0.1,B:0.2)0.723:0.0001,(C:0.3,D:0.1)0.999:0.0001);");
  ASSERT_TRUE(t.is_ok());
  std::string svg = figures::tree(Lang::kEn, *t, figures::TreeStyle{false, {}, "SH-like"}, "support");
  size_t labels = 0;
  for (size_t at = svg.find("<text"); at != std::string::npos; at = svg.find("<text", at + 1)) {
    std::string tag = svg.substr(at, svg.find("</text>", at) - at), text = tag.substr(tag.find('>') + 1);
    if (text != "72" && text != "100") continue;
    ++labels;
    const double x = std::stod(tag.substr(tag.find(" x=\"") + 4)),
                 size = std::stod(tag.substr(tag.find(" font-size=\"") + 12));
    const bool end = tag.find("text-anchor=\"end\"") != std::string::npos;
    EXPECT_GE(end ? x - figures::text_width(text, size) : x, 0) << text << " starts left of the figure";
  }
  EXPECT_EQ(labels, 2u);
  // Without a support kind (no supports known) none is drawn or claimed.
  EXPECT_EQ(figures::tree(Lang::kEn, *t, {}, "plain").find("data-claim=\"supports\""), std::string::npos);
}

// Every member has one name, given by the identify stage (names.tsv): every tree figure and the combined figure
// show the names, never the data's ids, whether the members have positions (numbered by chromosome order) or not
// (numbered by id); the panel section claims no subgroups when no reference named one.
TEST(TreeFigures, TipsUnderTheMembersNames) {
  if (!fs::exists("/usr/bin/hmmsearch") || !fs::exists("/usr/bin/mafft") ||
      !(fs::exists("/usr/bin/FastTree") || fs::exists("/usr/bin/fasttree")))
    GTEST_SKIP() << "hmmer, mafft and FastTree are needed";
  TempDir run;
  const Json params = {{"phylogeny", {{"method", "fasttree"}, {"fetch_references", false}}}};
  const fs::path proteins = run.path() / "proteins";  // no genome, no GFF3: no positions
  fs::create_directories(proteins);
  for (auto& e : fs::directory_iterator(example_copy())) {
    const std::string name = e.path().filename().string();
    if (name.find("gff") == std::string::npos && name.find("genome") == std::string::npos)
      fs::copy(e.path(), proteins / name, fs::copy_options::recursive);
  }
  for (const auto& [data, out] :
       {std::pair{example_copy(), std::string("placed")}, std::pair{proteins, std::string("plain")}}) {
    auto r = run_stages(data, params, run.path() / out, {"panel"});
    ASSERT_TRUE(r.is_ok()) << r.status().to_string();
    const StageStatus* panel = find_stage(*r, "panel");
    ASSERT_TRUE(panel && finished_with_outputs(panel->state)) << (panel ? panel->message : "no panel stage");
    const fs::path f = run.path() / out / "final";
    auto names = rows_of(f / "Exam.GLOBIN.names.tsv");
    ASSERT_FALSE(names.empty()) << out;
    for (size_t i = 0; i < names.size(); ++i) {
      EXPECT_EQ(names[i][0], "ExamGLOBIN" + std::to_string(i + 1)) << out;
      EXPECT_EQ(names[i].back(), out == "placed" ? "chromosome order" : "id order (no position)") << out;
    }
    for (const char* fig : {"tree_rooted.svg", "tree_circular.svg", "combined_panel.svg"}) {
      const std::string svg = slurp(f / (std::string("Exam.GLOBIN.") + fig));
      ASSERT_FALSE(svg.empty()) << fig;
      EXPECT_EQ(svg.find("data-claim=\"subgroups\""), std::string::npos) << fig << ": no reference named a subgroup";
      for (auto& row : names) {
        EXPECT_NE(svg.find(">" + row[0] + "<"), std::string::npos) << out << " " << fig << " shows " << row[0];
        EXPECT_EQ(svg.find(">" + row[1] + "<"), std::string::npos) << out << " " << fig << " shows the id " << row[1];
      }
    }
    StageContext sc;
    sc.run = {{"species", "Exam"}, {"family", "GLOBIN"}};
    for (bool zh : {false, true}) {
      ReportSection sec = genefamily_pipeline().find("panel")->report(
          {sc, panel->state, "", fs::path(panel->folder), zh ? Lang::kZh : Lang::kEn});
      std::string text;
      for (auto& p : sec.paragraphs) text += p + "\n";
      EXPECT_NE(text.find(zh ? "未划分亚组" : "No subgroups are drawn"), std::string::npos) << text;
      EXPECT_EQ(sec.figures.size(), 3u) << "the combined figure and the two tree figures";
    }
  }
}

// The methods name only the parameters the method that ran reads.
TEST(MethodsParameters, OnlyThoseTheChosenMethodUses) {
  const Json phylo = {{"method", "iqtree"},     {"model", "MFP"},           {"model_set", "LG,WAG"},
                      {"rate_set", "G,R"},      {"max_rate_categories", 4}, {"bootstrap", 1000},
                      {"fasttree_above", 500},  {"max_gap_fraction", 0.5},  {"references", ""},
                      {"reference_groups", ""}, {"fetch_references", true}, {"uniprot_url", "https://u"},
                      {"max_references", 40}};
  auto finder = gf::parameters_not_used(
      "phylogeny", phylo, {{"method", "IQ-TREE"}, {"model_selection", "ModelFinder (-m MFP -mset LG,WAG)"}});
  for (const char* k : {"model", "model_set", "rate_set", "max_rate_categories", "bootstrap", "fasttree_above",
                        "max_gap_fraction", "fetch_references", "uniprot_url", "max_references"})
    EXPECT_FALSE(finder.count(k)) << k << " is used by IQ-TREE with ModelFinder";
  Json fixed_params = phylo;
  fixed_params["model"] = "LG+G4";
  auto fixed = gf::parameters_not_used("phylogeny", fixed_params,
                                       {{"method", "IQ-TREE"}, {"model_selection", "fixed (-m LG+G4)"}});
  for (const char* k : {"model_set", "rate_set", "max_rate_categories"})
    EXPECT_TRUE(fixed.count(k)) << k << ": ModelFinder did not run";
  EXPECT_FALSE(fixed.count("model") || fixed.count("bootstrap"));
  Json ft_params = phylo;
  ft_params["method"] = "fasttree";
  auto ft = gf::parameters_not_used("phylogeny", ft_params, {{"method", "FastTree"}});
  for (const char* k : {"model", "model_set", "rate_set", "max_rate_categories", "bootstrap", "fasttree_above"})
    EXPECT_TRUE(ft.count(k)) << k << " is not FastTree's";
  EXPECT_FALSE(ft.count("max_gap_fraction")) << "the trimming ran before FastTree too";
  // IQ-TREE asked, FastTree ran (a repair, or more sequences than fasttree_above): the summary decides.
  auto repaired = gf::parameters_not_used("phylogeny", phylo, {{"method", "FastTree"}});
  EXPECT_TRUE(repaired.count("bootstrap"));
  EXPECT_FALSE(repaired.count("fasttree_above"));
  Json given_refs = phylo;
  given_refs["references"] = "/data/refs.fasta";
  auto refs = gf::parameters_not_used("phylogeny", given_refs, {{"method", "IQ-TREE"}});
  EXPECT_TRUE(refs.count("fetch_references") && refs.count("uniprot_url") && refs.count("max_references"));
  // Other stages' conditional parameters.
  EXPECT_TRUE(gf::parameters_not_used("promoter", {{"pwm_meme", ""}, {"pwm_pvalue", 1e-4}}, {}).count("pwm_pvalue"));
  EXPECT_FALSE(
      gf::parameters_not_used("promoter", {{"pwm_meme", "/x.meme"}, {"pwm_pvalue", 1e-4}}, {}).count("pwm_pvalue"));
  auto matrix =
      gf::parameters_not_used("expression", {{"matrix", "/e.tsv"}, {"reads", Json::array()}, {"kmer", 31}}, {});
  EXPECT_TRUE(matrix.count("kmer") && !matrix.count("matrix"));
  auto reads = gf::parameters_not_used(
      "expression", {{"matrix", ""}, {"reads", Json::array({{{"sample", "a"}, {"r1", "/r.fq"}}})}, {"kmer", 31}}, {});
  EXPECT_TRUE(!reads.count("kmer") && reads.count("units"));
  EXPECT_TRUE(gf::parameters_not_used("identify", {{"blast_references", ""}, {"blast_evalue", 1e-10}}, {})
                  .count("blast_evalue"));
  EXPECT_TRUE(gf::parameters_not_used("unknown_stage", phylo, {}).empty()) << "a stage without conditions keeps all";
  // In the narrative: a FastTree run's phylogeny line names FastTree, not UFBoot's replicates or ModelFinder's set.
  TempDir dir;
  const fs::path folder = dir.path() / "phylogeny";
  fs::create_directories(folder);
  std::ofstream(folder / ".complete") << Json{{"params", ft_params}, {"versions", {{"FastTree", "FastTree 2.1.11"}}}};
  std::ofstream(folder / "phylogeny.json") << Json{{"method", "FastTree"}};
  StageContext sc;
  sc.input["phylogeny"] = folder;
  const Json command = {{"stage", "phylogeny"}, {"argv", {"FastTree", "-quiet", "trimmed.fasta"}}};
  for (Lang lang : {Lang::kEn, Lang::kZh}) {
    auto lines = gf::methods_narrative(sc, {command}, lang);
    ASSERT_EQ(lines.size(), 1u);
    EXPECT_NE(lines[0].find("FastTree 2.1.11"), std::string::npos) << lines[0];
    EXPECT_NE(lines[0].find("max_gap_fraction = 0.5"), std::string::npos) << lines[0];
    for (const char* k : {"bootstrap", "model_set", "max_rate_categories", "fasttree_above"})
      EXPECT_EQ(lines[0].find(k), std::string::npos) << k << " in " << lines[0];
  }
}

// A profile saved with its Pfam accession as its NAME and no ACC line (PF03110_SBP.hmm is one) still names
// the family's Pfam domain: offline, references are missing for want of the cache, not of an accession.
TEST(PhylogenyReferences, AProfileNamedByItsAccessionNeedsNoAccLine) {
  if (!fs::exists("/usr/bin/hmmsearch") || !fs::exists("/usr/bin/mafft") || !fs::exists("/usr/bin/FastTree"))
    GTEST_SKIP() << "hmmer, mafft and FastTree are needed";
  TempDir dir;
  ExampleGenomeOptions eo;
  eo.members = 6;
  eo.decoys = 4;
  eo.random_genes = 20;
  eo.chromosomes = 2;
  const fs::path data = dir.path() / "data";
  ASSERT_TRUE(write_example_genome(data, eo).is_ok());
  std::istringstream hmm(slurp(data / "GLOBIN.hmm"));
  std::string renamed;
  for (std::string line; std::getline(hmm, line);)
    if (line.rfind("ACC", 0) != 0) renamed += (line.rfind("NAME", 0) == 0 ? "NAME  PF00042" : line) + "\n";
  std::ofstream(data / "GLOBIN.hmm") << renamed;
  for (const auto& [name, expected] : std::vector<std::pair<std::string, std::string>>{
           {"PF00042", "offline, and UniProt's answer is not cached"}, {"GLOBIN", "no Pfam accession"}}) {
    if (name != "PF00042") {  // a NAME that is no accession: the reason says there is none
      std::string plain = renamed;
      plain.replace(plain.find("NAME  PF00042"), 13, "NAME  GLOBIN");
      std::ofstream(data / "GLOBIN.hmm") << plain;
    }
    auto cfg = genefamily_run_config("", "", data, {{"phylogeny", {{"method", "fasttree"}}}});
    ASSERT_TRUE(cfg.is_ok()) << cfg.status().to_string();
    (*cfg)["network"] = {{"offline", true}, {"cache_dir", (dir.path() / ("cold-" + name)).string()}};
    PipelineOptions o;
    o.run_dir = dir.path() / ("run-" + name);
    o.cpus = 2;
    o.stages = {"phylogeny"};
    auto runner = make_local_runner();
    auto r = run_genefamily(*cfg, *runner, o);
    ASSERT_TRUE(r.is_ok()) << r.status().to_string();
    const StageStatus* s = find_stage(*r, "phylogeny");
    ASSERT_TRUE(s && finished_with_outputs(s->state));
    const Json refs = Json::parse(slurp(fs::path(s->folder) / "references.json"));
    EXPECT_NE(refs.value("reason", std::string()).find(expected), std::string::npos) << name << ": " << refs.dump();
  }
}
