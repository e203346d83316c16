// The gene-family pipeline: sequence-file parsers, naming rules, the example
// genome's internal consistency, the engine (DAG, cache, failures, repairs,
// cancellation, resume after a kill) and a full run with precision and recall.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <sstream>
#include <thread>

#include "bioagent/genefamily.h"
#include "bioagent/seqio.h"
#include "genefamily/algo/align.h"
#include "genefamily/algo/cis_scan.h"
#include "genefamily/algo/collinearity.h"
#include "genefamily/algo/motif_em.h"
#include "genefamily/algo/natural_order.h"
#include "genefamily/algo/newick.h"
#include "genefamily/algo/protein_properties.h"
#include "replay_server.h"
#include "test_util.h"

using namespace bioagent;
using bioagent::testing::TempDir;

TEST(SeqIo, FastaAndItsErrors) {
  auto r = parse_fasta(">a desc here\nACGT\r\nAC\n\n>b\nMK*\n");
  ASSERT_TRUE(r.is_ok());
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ((*r)[0].seq, "ACGTAC");
  EXPECT_EQ((*r)[0].description, "desc here");
  EXPECT_EQ(parse_fasta("ACGT\n>a\n").status().code(), ErrorCode::kParseError);
  EXPECT_NE(parse_fasta(">a\nAC{}GT\n", "x.fa").status().message().find("x.fa line 2"), std::string::npos);
  EXPECT_EQ(parse_fasta(">\nAC\n").status().code(), ErrorCode::kParseError);
  EXPECT_TRUE(parse_fasta("")->empty());
}

TEST(SeqIo, Gff3GenesTranscriptsAndErrors) {
  std::string gff =
      "##gff-version 3\n"
      "c1\tx\tgene\t100\t900\t.\t-\t.\tID=g1;Name=G%3B1\n"
      "c1\tx\tmRNA\t100\t900\t.\t-\t.\tID=t1;Parent=g1\n"
      "c1\tx\tCDS\t700\t800\t.\t-\t0\tID=p1;Parent=t1\n"
      "c1\tx\tCDS\t200\t300\t.\t-\t1\tID=p1;Parent=t1\n"
      "c1\tx\texon\t100\t300\t.\t-\t.\tParent=t1\n";
  auto m = parse_gff3(gff);
  ASSERT_TRUE(m.is_ok()) << m.status().to_string();
  EXPECT_EQ(m->genes.at("g1").name, "G;1");
  EXPECT_EQ(m->transcripts.at("t1").cds.size(), 2u);
  EXPECT_EQ(m->transcripts.at("t1").cds[0].start, 200);
  EXPECT_EQ(m->transcripts.at("t1").cds_length(), 202);
  EXPECT_EQ(m->transcript_of("p1"), "t1");
  EXPECT_EQ(m->genes.at("g1").transcripts, std::vector<std::string>{"t1"});
  auto bad = parse_gff3("c1\tx\tgene\t10\t5\t.\t+\t.\tID=g\n", "bad.gff3");
  EXPECT_NE(bad.status().message().find("bad.gff3 line 1"), std::string::npos);
  EXPECT_FALSE(parse_gff3("c1\tx\tgene\t1\n").is_ok());
  EXPECT_FALSE(parse_gff3("c1\tx\tgene\t1\t5\t.\t*\t.\tID=g\n").is_ok());
}

TEST(SeqIo, TranslateAndDomainTables) {
  EXPECT_EQ(translate("ATGGCCTAA"), "MA*");
  EXPECT_EQ(translate("ATGNNN"), "MX");
  EXPECT_EQ(reverse_complement("AACG"), "CGTT");
  std::string row =
      "p1 - 300 SBP PF03110.16 77 1.2e-30 105.2 0.1 1 2 3e-20 6e-20 70.0 0.2 1 76 20 95 18 97 0.95 a protein\n";
  auto d = parse_domtblout("# comment\n" + row);
  ASSERT_TRUE(d.is_ok()) << d.status().to_string();
  ASSERT_EQ(d->size(), 1u);
  EXPECT_EQ((*d)[0].target, "p1");
  EXPECT_EQ((*d)[0].query_len, 77);
  EXPECT_DOUBLE_EQ((*d)[0].i_evalue, 6e-20);
  EXPECT_EQ((*d)[0].env_to, 97);
  EXPECT_FALSE(parse_domtblout("p1 - 300 SBP\n").is_ok());
  EXPECT_FALSE(parse_domtblout("p1 - x SBP PF 77 1 1 1 1 2 3 6 7 0 1 76 20 95 18 97 0.9 d\n").is_ok());
  fs::path fixture = bioagent::testing::fixtures_dir() / "genefamily/hmmer_outputs/domtab_31b1_hmmsearch_001.out";
  if (fs::exists(fixture)) {
    std::ifstream in(fixture);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    auto real = parse_domtblout(text, fixture.filename().string());
    ASSERT_TRUE(real.is_ok()) << real.status().to_string();
    EXPECT_GT(real->size(), 0u);
  }
}

TEST(Newick, SupportsDistancesAndErrors) {
  auto t = parse_newick("((A:0.1,B:0.2)95:0.05,(C:0.3,'D x':0.4)80/70:0.1,E:1);");
  ASSERT_TRUE(t.is_ok()) << t.status().to_string();
  EXPECT_EQ(t->leaves().size(), 5u);
  auto s = t->supports();
  std::sort(s.begin(), s.end());
  EXPECT_EQ(s, (std::vector<double>{70, 95}));
  int a = -1, b = -1;
  for (int l : t->leaves()) {
    if (t->nodes[size_t(l)].name == "A") a = l;
    if (t->nodes[size_t(l)].name == "D x") b = l;
  }
  EXPECT_NEAR(t->distance(a, b), 0.1 + 0.05 + 0.1 + 0.4, 1e-12);
  for (const char* bad : {"", "(A,B", "(A,B));", "A,B;", "(A:x,B);", "(A,B)"})
    EXPECT_FALSE(parse_newick(bad).is_ok()) << bad;
  EXPECT_FALSE(parse_newick(std::string(20000, '(')).is_ok());
}

TEST(ProteinProperties, KnownValues) {
  // Insulin B chain (FVNQHLCGSHLVEALYLVCGERGFFYTPKT): ProtParam reports MW 3429.9 (average).
  auto p = protein_properties("FVNQHLCGSHLVEALYLVCGERGFFYTPKT");
  EXPECT_EQ(p.length, 30);
  EXPECT_NEAR(p.molecular_weight, 3429.9, 0.5);
  EXPECT_GT(p.isoelectric_point, 6.0);
  EXPECT_LT(p.isoelectric_point, 8.0);
  auto ala = protein_properties("AAAAAAAAAA");
  EXPECT_NEAR(ala.aliphatic_index, 100.0, 1e-9);
  EXPECT_NEAR(ala.gravy, 1.8, 1e-9);
  EXPECT_NEAR(ala.instability_index, 10.0 / 10 * 9 * 1.0, 1e-9);
  EXPECT_EQ(protein_properties("").length, 0);
  EXPECT_EQ(protein_properties("MXB*").unknown, 2);
}

TEST(NamingRules, SeedPatternsAndFixableVariants) {
  EXPECT_EQ(check_file_name("Lchi.genome.fasta")["kind"], "genome");
  EXPECT_EQ(check_file_name("SPL.hmm")["kind"], "hmm");
  Json fa = check_file_name("Lchi.genome.fa");
  EXPECT_EQ(fa["ok"], false);
  EXPECT_EQ(fa["fixable"], true);
  EXPECT_EQ(fa["fix"], "Lchi.genome.fasta");
  EXPECT_NE(fa["message"].get<std::string>().find("Lchi.genome.fasta"), std::string::npos);
  EXPECT_EQ(check_file_name("Lchi.faa")["fix"], "Lchi.pep.fasta");
  EXPECT_EQ(check_file_name("Lchi.gff")["fix"], "Lchi.gff3");
  Json bad = check_file_name("my genome (final).txt");
  EXPECT_EQ(bad["fixable"], false);
  EXPECT_FALSE(check_file_name("Lchi_v1.0.genome.fasta")["ok"].get<bool>()) << "the seed's rule: \\w+ prefix";
  EXPECT_FALSE(check_file_name("../etc.hmm")["ok"].get<bool>());
}

namespace {

// One example genome shared by the tests (generated once, with hmmemit).
const fs::path& example_dir() {
  static TempDir dir;
  static fs::path data = [] {
    fs::path d = dir.path() / "data";
    auto r = write_example_genome(d);
    EXPECT_TRUE(r.is_ok()) << r.status().to_string();
    return d;
  }();
  return data;
}

// Runs `stages` (with what they need upstream) on the data folder `d` into `run_dir`.
Result<std::vector<StageStatus>> run_stages(const fs::path& d, const Json& params, const fs::path& run_dir,
                                            std::vector<std::string> stages) {
  auto cfg = genefamily_run_config("", "", d, params);
  if (!cfg) return cfg.status();
  PipelineOptions o;
  o.run_dir = run_dir;
  o.stages = std::move(stages);
  auto runner = make_local_runner();
  return run_genefamily(*cfg, *runner, o);
}

// A second species: the example's genes under new names ("Exam" -> "Comp"), order kept.
void write_second_species(const fs::path& d, const TempDir& other) {
  for (auto [from, to] :
       {std::pair<std::string, std::string>{"Exam.gff3", "Comp.gff3"}, {"Exam.pep.fasta", "Comp.pep.fasta"}}) {
    std::ifstream in(d / from);
    std::string text((std::istreambuf_iterator<char>(in)), {});
    for (size_t p = text.find("Exam"); p != std::string::npos; p = text.find("Exam", p)) text.replace(p, 4, "Comp");
    other.write(to, text);
  }
}

// The run's one name for each of the data's gene and protein ids (final/<P>.<F>.names.tsv: name, gene_id,
// protein_id, ...): every table and figure of a run names members by it.
std::map<std::string, std::string> member_names(const fs::path& run_dir) {
  std::map<std::string, std::string> out;
  std::error_code ec;
  for (auto& e : fs::directory_iterator(run_dir / "final", ec)) {
    const std::string f = e.path().filename().string();
    if (f.size() < 9 || f.compare(f.size() - 9, 9, "names.tsv") != 0) continue;
    std::ifstream in(e.path());
    std::string line;
    std::getline(in, line);
    while (std::getline(in, line)) {
      std::stringstream ss(line);
      std::string name, gene, protein;
      std::getline(ss, name, '\t');
      std::getline(ss, gene, '\t');
      std::getline(ss, protein, '\t');
      out[gene] = name;
      out[protein] = name;
      out["gene of " + name] = gene;
    }
  }
  return out;
}
std::string named(const std::map<std::string, std::string>& names, const std::string& id) {
  auto it = names.find(id);
  return it == names.end() ? id : it->second;
}

}  // namespace

TEST(ExampleGenome, GffCoordinatesSpliceToTheCds) {
  if (!fs::exists("/usr/bin/hmmemit")) GTEST_SKIP() << "hmmer is not installed (scripts/setup.sh installs it)";
  const fs::path& d = example_dir();
  auto check = check_species_data(d);
  ASSERT_TRUE(check.is_ok());
  EXPECT_EQ((*check)["ok"], true) << check->dump(2);
  auto genome = read_fasta(d / "Exam.genome.fasta");
  auto gff = read_gff3(d / "Exam.gff3");
  auto cds = read_fasta(d / "Exam.cds.fasta");
  ASSERT_TRUE(genome.is_ok() && gff.is_ok() && cds.is_ok());
  std::map<std::string, std::string> chrom, cds_by;
  for (auto& r : *genome) chrom[r.id] = r.seq;
  for (auto& r : *cds) cds_by[r.id] = r.seq;
  size_t checked = 0;
  for (auto& [id, t] : gff->transcripts) {
    std::string spliced;
    for (auto& s : t.cds) spliced += chrom[t.seqid].substr(size_t(s.start - 1), size_t(s.end - s.start + 1));
    if (t.strand == '-') spliced = reverse_complement(spliced);
    EXPECT_EQ(spliced, cds_by[id]) << id;
    EXPECT_EQ(t.cds_length() % 3, 0) << id;
    ++checked;
  }
  EXPECT_GT(checked, 100u);
  auto problems = check_species_data(d, "Nope", "", false);
  ASSERT_TRUE(problems.is_ok());
  EXPECT_EQ((*problems)["ok"], false);
}

TEST(GenefamilyPipeline, FindsEveryMemberAndNoDecoy) {
  if (!fs::exists("/usr/bin/hmmsearch") || !fs::exists("/usr/bin/mafft"))
    GTEST_SKIP() << "hmmer/mafft are not installed (scripts/setup.sh installs them)";
  const fs::path& d = example_dir();
  TempDir run;
  auto cfg = genefamily_run_config("", "", d, Json{{"phylogeny", {{"method", "fasttree"}}}});
  ASSERT_TRUE(cfg.is_ok()) << cfg.status().to_string();
  PipelineOptions o;
  o.run_dir = run.path() / "run";
  o.cpus = 2;
  o.stages = {"identify", "phylogeny", "domain", "properties"};  // FullRunWithEveryStageAndAReport runs the rest
  std::vector<std::string> events;
  o.on_event = [&](const PipelineEvent& e) { events.push_back(e.stage + ":" + to_string(e.state)); };
  auto runner = make_local_runner();
  auto r = run_genefamily(*cfg, *runner, o);
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  for (auto& s : *r) EXPECT_TRUE(finished_with_outputs(s.state)) << s.stage << ": " << s.message;
  std::ifstream truth_in(d / "truth.json");
  Json truth = Json::parse(truth_in);
  std::set<std::string> want, got;
  for (auto& m : truth["members"]) want.insert(m.get<std::string>());
  std::ifstream ids(o.run_dir / "final/Exam.GLOBIN.geneID.txt");
  for (std::string l; std::getline(ids, l);) got.insert(l);
  EXPECT_EQ(got, want) << "precision and recall are both 1";
  for (auto& decoy : truth["decoys"]) EXPECT_FALSE(got.count(decoy.get<std::string>()));
  for (const char* f :
       {"pep.fasta", "cds.fasta", "domain.txt", "tree.nwk", "properties.tsv", "domain_architecture.tsv"})
    EXPECT_TRUE(fs::exists(o.run_dir / "final" / (std::string("Exam.GLOBIN.") + f))) << f;
  auto v = validate_run(o.run_dir);
  ASSERT_TRUE(v.is_ok()) << v.status().to_string();
  EXPECT_NE((*v)["status"], "fail") << v->dump(2);
  // A re-run finds every stage finished.
  auto again = run_genefamily(*cfg, *runner, o);
  ASSERT_TRUE(again.is_ok());
  for (auto& s : *again) {  // cached, or warn when a check of the cached results fails (it says both)
    EXPECT_TRUE(s.state == StageState::kCached || s.state == StageState::kWarn) << s.stage;
    EXPECT_NE(s.message.find("finished earlier"), std::string::npos) << s.stage << ": " << s.message;
  }
  // Changing a parameter re-runs that stage and what depends on it only.
  auto cfg2 = genefamily_run_config(
      "", "", d, Json{{"phylogeny", {{"method", "fasttree"}}}, {"domain", {{"full_coverage", 0.9}}}});
  auto third = run_genefamily(*cfg2, *runner, o);
  ASSERT_TRUE(third.is_ok());
  std::map<std::string, std::string> state;
  for (auto& s : *third) state[s.stage] = to_string(s.state);
  EXPECT_EQ(state["identify"], "cached");
  EXPECT_NE(state["domain"], "cached") << "its parameter changed";
  auto history = pipeline_history(o.run_dir);
  ASSERT_TRUE(history.is_ok());
  bool hmmsearch_recorded = false;
  for (auto& a : *history)
    if (a["argv"].is_array() && !a["argv"].empty() && a["argv"][0] == "hmmsearch") {
      hmmsearch_recorded = true;
      EXPECT_NE(a["versions"]["hmmsearch"].get<std::string>().find("HMMER"), std::string::npos);
      EXPECT_EQ(a["exit_code"], 0);
    }
  EXPECT_TRUE(hmmsearch_recorded);
}

// The real SBP-domain HMM (PF03110) against real Ostreococcus proteomes: the
// members found are the ones in the reference hmmsearch tables beside them,
// named by the gene a Phytozome header names (OSTLU: locus=eugene.…), else by the protein.
TEST(GenefamilyPipeline, RealSbpHmmOnOstreococcusProteomes) {
  fs::path fx = bioagent::testing::fixtures_dir() / "genefamily";
  if (!fs::exists(fx / "hmm/PF03110_SBP.hmm") || !fs::exists(fx / "ostreococcus_tapscan_proteomes"))
    GTEST_SKIP() << "fixtures absent: " << fx;
  if (!fs::exists("/usr/bin/hmmsearch")) GTEST_SKIP() << "hmmer is not installed";
  for (const char* sp : {"OSTLU", "OSTSP", "OSTTA"}) {
    TempDir dir;
    fs::path data = dir.path() / "data";
    fs::create_directories(data);
    std::string cmd = "gzip -dc '" + (fx / "ostreococcus_tapscan_proteomes" / (std::string(sp) + ".fa.gz")).string() +
                      "' > '" + (data / (std::string(sp) + ".pep.fasta")).string() + "'";
    ASSERT_EQ(std::system(cmd.c_str()), 0);
    // A proteome alone: the other files are placeholders (no GFF records: a header's locus, else the protein, is the
    // gene).
    std::ofstream(data / (std::string(sp) + ".genome.fasta")) << ">placeholder\nACGT\n";
    std::ofstream(data / (std::string(sp) + ".gff3")) << "##gff-version 3\n";
    std::ofstream(data / (std::string(sp) + ".cds.fasta")) << ">placeholder\nATG\n";
    fs::copy_file(fx / "hmm/PF03110_SBP.hmm", data / "SBP.hmm");
    auto cfg = genefamily_run_config(sp, "SBP", data);
    ASSERT_TRUE(cfg.is_ok()) << cfg.status().to_string();
    PipelineOptions o;
    o.run_dir = dir.path() / "run";
    o.stages = {"identify"};
    auto runner = make_local_runner();
    auto r = run_genefamily(*cfg, *runner, o);
    ASSERT_TRUE(r.is_ok());
    std::set<std::string> got, want;
    std::ifstream ids(o.run_dir / "final" / (std::string(sp) + ".SBP.geneID.txt"));
    for (std::string l; std::getline(ids, l);) got.insert(l);
    auto proteome = read_fasta(data / (std::string(sp) + ".pep.fasta"));
    ASSERT_TRUE(proteome.is_ok());
    std::map<std::string, std::string> gene_of;
    for (auto& rec : *proteome) {
      const std::string gene = header_gene(rec.description);
      gene_of[rec.id] = gene.empty() ? rec.id : gene;
    }
    std::ifstream tbl(fx / "expected_outputs_derived" / ("PF03110_vs_" + std::string(sp) + ".tblout"));
    for (std::string l; std::getline(tbl, l);)
      if (!l.empty() && l[0] != '#') want.insert(gene_of.at(l.substr(0, l.find(' '))));
    EXPECT_EQ(got, want) << sp;
  }
}

// identify's two options: a profile built from reference members (MAFFT +
// hmmbuild), and DIAMOND hits to reference members rescuing weak HMM hits
// whose domains still cover the profile.
TEST(GenefamilyPipeline, ReferenceMembersBuildTheHmmAndRescueHits) {
  for (const char* p : {"/usr/bin/hmmbuild", "/usr/bin/diamond", "/usr/bin/mafft"})
    if (!fs::exists(p)) GTEST_SKIP() << p << " is not installed";
  const fs::path& d = example_dir();
  std::ifstream truth_in(d / "truth.json");
  Json truth = Json::parse(truth_in);
  auto pep = read_fasta(d / "Exam.pep.fasta");
  ASSERT_TRUE(pep.is_ok());
  TempDir dir;
  std::vector<FastaRecord> refs;
  std::set<std::string> want;
  for (auto& m : truth["members"]) want.insert(m.get<std::string>());
  for (auto& r : *pep)
    if (want.count(r.id.substr(0, r.id.find('.'))) && r.id.size() > 2 && r.id.substr(r.id.size() - 2) == ".1" &&
        refs.size() < 8)
      refs.push_back(r);
  ASSERT_TRUE(write_fasta(dir.path() / "refs.fasta", refs).is_ok());
  std::string last_message;
  Json last_repair;
  auto run_with = [&](const Json& identify) {
    auto cfg = genefamily_run_config("", "", d, Json{{"identify", identify}});
    EXPECT_TRUE(cfg.is_ok());
    PipelineOptions o;
    o.run_dir = dir.path() / ("run" + std::to_string(std::hash<std::string>()(identify.dump())));
    o.stages = {"identify"};
    auto runner = make_local_runner();
    auto r = run_genefamily(*cfg, *runner, o);
    EXPECT_TRUE(r.is_ok());
    for (auto& s : *r) EXPECT_TRUE(finished_with_outputs(s.state)) << s.stage << ": " << s.message;
    if (r && !r->empty()) last_message = r->back().message, last_repair = r->back().to_json();
    std::set<std::string> got;
    std::ifstream ids(o.run_dir / "final/Exam.GLOBIN.geneID.txt");
    for (std::string l; std::getline(ids, l);) got.insert(l);
    return got;
  };
  // Whole reference proteins make a profile of whole proteins: it finds the references and no decoy.
  auto built = run_with({{"hmm_from_references", (dir.path() / "refs.fasta").string()}});
  for (auto& r : refs) EXPECT_TRUE(built.count(r.id.substr(0, r.id.find('.')))) << r.id;
  for (auto& g : built) EXPECT_TRUE(want.count(g)) << g << " is not a decoy";
  // An impossible E-value finds nothing by HMM alone: the empty result is repaired by the table's relaxed E-value.
  auto relaxed = run_with({{"evalue", 1e-300}});
  EXPECT_NE(last_message.find("repaired: relax the identify E-value from 1e-300 to 0.001"), std::string::npos)
      << "the true asked value, not a default: " << last_message;
  EXPECT_TRUE(last_repair.value("state", "") == "done" || last_repair.value("state", "") == "warn") << last_repair;
  EXPECT_TRUE(last_repair.value("repaired", false)) << last_repair.dump();
  EXPECT_EQ(last_repair["repair"]["asked"]["evalue"], 1e-300);
  EXPECT_EQ(last_repair["repair"]["used"]["evalue"], 1e-3);
  EXPECT_NE(last_repair["repair"].value("prevention", "").find("when 1e-300 found nothing"), std::string::npos);
  for (auto& g : relaxed) EXPECT_TRUE(want.count(g)) << g << " is not a decoy";
  auto rescued = run_with({{"evalue", 1e-300}, {"blast_references", (dir.path() / "refs.fasta").string()}});
  for (auto& r : refs) EXPECT_TRUE(rescued.count(r.id.substr(0, r.id.find('.')))) << r.id << " is rescued";
  for (auto& g : rescued) EXPECT_TRUE(want.count(g)) << g << " is not a decoy";
}

TEST(CisScan, ElementsOnBothStrandsAndPwmPValues) {
  auto hits = scan_elements("AAAACACGTGAAAATTGACCAAAA");  // G-box (palindrome), W-box on +
  std::map<std::string, char> found;
  for (auto& h : hits) found[h.element] = h.strand;
  EXPECT_EQ(found.count("G-box"), 1u);
  EXPECT_EQ(found["W-box"], '+');
  auto rc = scan_elements(reverse_complement("AAAATTGACCAAAA"));
  bool w_minus = false;
  for (auto& h : rc) w_minus |= h.element == "W-box" && h.strand == '-';
  EXPECT_TRUE(w_minus) << "found on the reverse strand";
  EXPECT_TRUE(scan_elements("NNNNNNNNNNNN").empty()) << "N matches nothing";
  for (auto& e : plant_cis_elements()) EXPECT_FALSE(e.source.empty()) << e.name << " cites its source";
  auto meme = parse_meme(
      "MEME version 4\n\nBackground letter frequencies\nA 0.3 C 0.2 G 0.2 T 0.3\n\nMOTIF M1 test\n"
      "letter-probability matrix: alength= 4 w= 6\n"
      "1 0 0 0\n0 1 0 0\n0 0 1 0\n0 0 0 1\n1 0 0 0\n0 1 0 0\n");
  ASSERT_TRUE(meme.is_ok()) << meme.status().to_string();
  ASSERT_EQ(meme->motifs.size(), 1u);
  auto pwm = scan_pwm(meme->motifs[0], meme->background, "TTTTACGTACTTTT", 1e-3);
  ASSERT_EQ(pwm.size(), 1u);
  EXPECT_EQ(pwm[0].offset, 4);
  EXPECT_TRUE(scan_pwm(meme->motifs[0], meme->background, "TTTTTTTTTTTT", 1e-3).empty());
  EXPECT_FALSE(parse_meme("MOTIF x\nletter-probability matrix: w= 2\n0.5 0.5\n").is_ok());
  EXPECT_FALSE(parse_meme("not meme").is_ok());
  fs::path fx = bioagent::testing::fixtures_dir() / "genefamily/planttfdb_motifs/Ath_TF_binding_motifs.meme";
  if (fs::exists(fx)) {
    std::ifstream in(fx);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    auto real = parse_meme(text, "Ath_TF_binding_motifs.meme");
    ASSERT_TRUE(real.is_ok()) << real.status().to_string();
    EXPECT_GT(real->motifs.size(), 100u);
    EXPECT_NEAR(real->background[0], 0.3323, 1e-4);
  }
}

TEST(Align, ProteinAndCodonAlignment) {
  auto a = align_proteins("MKVLAAGW", "MKVAAGW");
  EXPECT_EQ(a.a, "MKVLAAGW");
  EXPECT_EQ(a.b.size(), a.a.size());
  EXPECT_EQ(std::count(a.b.begin(), a.b.end(), '-'), 1);
  auto c = codon_align("M-K", "ATGAAA");
  ASSERT_TRUE(c.is_ok());
  EXPECT_EQ(*c, "ATG---AAA");
  EXPECT_FALSE(codon_align("MKV", "ATG").is_ok());
  // BLOSUM62 in either case; X, * and other letters score -1 against anything.
  EXPECT_EQ(align_proteins("MKX*", "mkx*").score, 5 + 5 - 1 - 1);
  EXPECT_EQ(align_proteins("WB", "WZ").score, 11 - 1);
  EXPECT_EQ(align_proteins("W", "Y").score, 2);
}

TEST(GenefamilyPipeline, FullRunWithEveryStageAndAReport) {
  if (!fs::exists("/usr/bin/hmmsearch") || !fs::exists("/usr/bin/yn00"))
    GTEST_SKIP() << "hmmer/paml are not installed (scripts/setup.sh installs them)";
  const fs::path& d = example_dir();
  TempDir run;
  // An expression matrix for some members and a decoy row.
  std::ifstream truth_in(d / "truth.json");
  Json truth = Json::parse(truth_in);
  std::ofstream m(run.path() / "expr.tsv");
  m << "gene_id\tleaf\troot\tflower\n";
  for (size_t i = 0; i < 6; ++i) m << truth["members"][i].get<std::string>() << '\t' << i << '\t' << 10 * i << "\t3\n";
  m << "not_a_member\t1\t2\t3\n";
  m.close();
  TempDir other;  // a second species: the run draws the dual-synteny plot in its report
  write_second_species(d, other);
  auto cfg = genefamily_run_config("", "", d,
                                   Json{{"phylogeny", {{"method", "fasttree"}}},
                                        {"synteny", {{"comparative", Json::array({other.path().string()})}}},
                                        {"expression", {{"matrix", (run.path() / "expr.tsv").string()}}},
                                        {"report", {{"lang", "zh"}}}});
  ASSERT_TRUE(cfg.is_ok());
  (*cfg)["lang"] = "zh";  // the figures too, as a Chinese session's run
  PipelineOptions o;
  o.run_dir = run.path() / "run";
  o.cpus = 2;
  auto runner = make_local_runner();
  auto r = run_genefamily(*cfg, *runner, o);
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  for (auto& s : *r) {
    if (s.stage == "ppi") {  // no orthologs were given: skipped, saying so
      EXPECT_EQ(s.state, StageState::kSkipped);
      EXPECT_NE(s.message.find("orthologs"), std::string::npos) << s.message;
    } else if (s.stage == "classify") {  // no set of domain profiles in the folder
      EXPECT_EQ(s.state, StageState::kSkipped);
      EXPECT_NE(s.message.find("hmm_set"), std::string::npos) << s.message;
    } else {
      EXPECT_TRUE(finished_with_outputs(s.state)) << s.stage << ": " << to_string(s.state) << " " << s.message;
    }
  }
  fs::path f = o.run_dir / "final";
  for (const char* name : {"gene_structure.svg", "chromosome_map.svg", "promoter_heatmap.svg", "kaks.tsv", "kaks.svg",
                           "expression_heatmap.svg", "report.md", "report.html", "findings.json", "tree_circular.svg",
                           "combined_panel.svg", "names.tsv"})
    EXPECT_TRUE(fs::exists(f / (std::string("Exam.GLOBIN.") + name))) << name;
  EXPECT_TRUE(fs::exists(f / "outputs.md"));
  std::ifstream fin(f / "Exam.GLOBIN.findings.json");
  Json findings = Json::parse(fin);
  EXPECT_EQ(findings["member_count"], truth["members"].size());
  EXPECT_GE(findings["tandem_clusters"].get<int>(), 1) << "the generator plants a tandem pair";
  // The generator's duplicates evolve from their originals' coding sequences, so their Ks is
  // estimable and the Ks distribution is drawn; each pair is counted once.
  const Json& kk = findings["kaks"];
  EXPECT_GE(findings["duplication"]["pairs_with_kaks"].get<int>(), 3) << findings.dump();
  EXPECT_EQ(kk["pairs"].get<int>() + kk["not_estimated"].get<int>() + kk["saturated"].get<int>(),
            findings["duplication"]["pairs_with_kaks"].get<int>())
      << kk.dump();
  EXPECT_EQ(findings["expression"]["members_with_expression"], 6);
  EXPECT_NE(findings["expression"].value("normalisation", std::string()).find("from raw counts"), std::string::npos)
      << "whole numbers are raw counts: normalised, and the report says how";
  std::ifstream hin(f / "Exam.GLOBIN.report.html");
  std::string html((std::istreambuf_iterator<char>(hin)), std::istreambuf_iterator<char>());
  EXPECT_NE(html.find("执行摘要"), std::string::npos) << "Chinese report";
  // The paper figures are in the report, and the renaming table: ExamGLOBIN1..n in chromosome order.
  for (const char* fig :
       {"combined_panel.svg", "chromosome_map.svg", "tree_rooted.svg", "dual_synteny_Comp.svg", "ks_distribution.svg"})
    EXPECT_NE(html.find(std::string("data-file=\"Exam.GLOBIN.") + fig), std::string::npos) << fig;
  // Numbered Chinese captions, not file names; the Ka/Ks pairs as a numbered table with their dates.
  EXPECT_NE(html.find("<figcaption>图1 "), std::string::npos);
  EXPECT_EQ(html.find("<figcaption>Exam.GLOBIN."), std::string::npos);
  EXPECT_NE(html.find("重复基因对的 Ka、Ks、Ka/Ks 与分化时间"), std::string::npos);
  EXPECT_NE(html.find("分化时间 T = Ks / 2λ，λ = 1.5e-08"), std::string::npos);
  // Methods as prose: every finished stage's programs and parameters as run, defaults included.
  EXPECT_NE(html.find("启动子分析（promoter）：本程序内实现；参数 "), std::string::npos);
  EXPECT_NE(html.find("min_element_length = 6"), std::string::npos);
  EXPECT_NE(html.find("max_width = "), std::string::npos) << "the motif search's parameters";
  EXPECT_NE(html.find("程序 hmmsearch "), std::string::npos);
  std::ifstream ks_in(f / "Exam.GLOBIN.ks_distribution.svg");
  std::string ks_svg((std::istreambuf_iterator<char>(ks_in)), std::istreambuf_iterator<char>());
  EXPECT_NE(ks_svg.find("重复基因对的 Ks 分布"), std::string::npos) << "a Chinese title in a Chinese run";
  EXPECT_EQ(ks_svg.find("synonymous"), std::string::npos) << "and Chinese axes";
  EXPECT_NE(html.find("<td>ExamGLOBIN1</td>"), std::string::npos) << "the gene table shows the members' names";
  std::ifstream ren_in(f / "Exam.GLOBIN.names.tsv");
  std::string ren_line, last_chr;
  std::getline(ren_in, ren_line);
  int renamed = 0;
  int64_t last_start = -1;
  while (std::getline(ren_in, ren_line)) {
    std::istringstream cells(ren_line);
    std::string name, gene, protein, chr, start;
    std::getline(cells, name, '\t');
    std::getline(cells, gene, '\t');
    std::getline(cells, protein, '\t');
    std::getline(cells, chr, '\t');
    std::getline(cells, start, '\t');
    EXPECT_EQ(name, "ExamGLOBIN" + std::to_string(++renamed));
    EXPECT_TRUE(natural_less(last_chr, chr) || (chr == last_chr && std::stoll(start) > last_start)) << ren_line;
    last_chr = chr;
    last_start = std::stoll(start);
  }
  EXPECT_EQ(renamed, int(truth["members"].size()));
  EXPECT_GE(std::count(html.begin(), html.end(), '<') - 0, 100);
  size_t svgs = 0;
  for (size_t at = 0; (at = html.find("<svg", at)) != std::string::npos; ++at) ++svgs;
  EXPECT_GE(svgs, 6u) << "figures are inline";
  EXPECT_EQ(html.find("src=\"http"), std::string::npos) << "nothing loaded from the internet";
  // Paths in the methods are relative to the run folder: the folder holding
  // the run (a session's, whose name is its key) is never named.
  std::ifstream min(f / "Exam.GLOBIN.report.md");
  std::string md((std::istreambuf_iterator<char>(min)), std::istreambuf_iterator<char>());
  EXPECT_NE(md.find("hmmsearch"), std::string::npos) << "the methods list the commands";
  EXPECT_NE(md.find("../expr.tsv"), std::string::npos) << "a parameter's path, relative to the run folder";
  for (const std::string& secret : {run.path().filename().string(), d.string()}) {
    EXPECT_EQ(md.find(secret), std::string::npos) << secret;
    EXPECT_EQ(html.find(secret), std::string::npos) << secret;
  }
  // Promoter regions: 2,000 bp unless clipped at a sequence end.
  auto prom = read_fasta(f / "Exam.GLOBIN.promoters.fasta");
  ASSERT_TRUE(prom.is_ok());
  EXPECT_EQ(prom->size(), truth["members"].size());
  for (auto& p : *prom) EXPECT_LE(p.seq.size(), 2000u);
  auto v = validate_run(o.run_dir);
  ASSERT_TRUE(v.is_ok());
  EXPECT_NE((*v)["status"], "fail");
}

// Planted motifs in random proteins: the finder recovers their sites.
TEST(MotifDiscovery, RecoversPlantedMotifs) {
  std::mt19937 rng(11);
  const std::string aa = "ACDEFGHIKLMNPQRSTVWY";
  auto random_protein = [&](size_t n) {
    std::string s;
    for (size_t i = 0; i < n; ++i) s += aa[rng() % 20];
    return s;
  };
  const std::vector<std::string> planted = {"WHDGKPLRYCEMNV", "FYQCWTMRHP"};
  std::vector<FastaRecord> seqs;
  std::vector<std::map<std::string, size_t>> truth;
  for (int i = 0; i < 24; ++i) {
    std::string s = random_protein(220);
    std::map<std::string, size_t> at;
    for (size_t m = 0; m < planted.size(); ++m) {
      if ((i + int(m)) % 4 == 3) continue;  // zero-or-one: some sequences lack a motif
      std::string site = planted[m];
      site[rng() % site.size()] = aa[rng() % 20];  // one substitution per site
      size_t pos = m == 0 ? 20 + rng() % 60 : 120 + rng() % 60;
      s.replace(pos, site.size(), site);
      at[planted[m]] = pos;
    }
    seqs.push_back({"p" + std::to_string(i), "", s});
    truth.push_back(at);
  }
  MotifOptions o;
  o.motifs = 3;
  o.max_width = 20;
  auto motifs = discover_motifs(seqs, aa, o);
  ASSERT_GE(motifs.size(), 2u);
  for (auto& want : planted) {
    // The best-overlapping discovered motif recovers most planted sites.
    size_t best = 0, total = 0;
    for (auto& t : truth) total += t.count(want);
    for (auto& m : motifs) {
      size_t hit = 0;
      for (auto& s : m.sites) {
        auto it = truth[s.sequence].find(want);
        if (it != truth[s.sequence].end() && s.start + m.width > it->second && s.start < it->second + want.size())
          ++hit;
      }
      best = std::max(best, hit);
    }
    EXPECT_GE(double(best) / double(total), 0.8) << want << ": " << best << " of " << total;
  }
  std::string meme = motifs_to_meme(motifs, aa, background_frequencies(seqs, aa));
  auto parsed = parse_meme(meme, "ours");
  EXPECT_FALSE(parsed.is_ok()) << "protein MEME files are not DNA PWMs for the promoter scanner";
  EXPECT_NE(meme.find("letter-probability matrix: alength= 20"), std::string::npos);
}

TEST(Collinearity, FindsBlocksInBothOrientationsAndClassifiesDuplicates) {
  // Two chromosomes of 100 genes; genes 10-19 of c1 match 30-39 of c2 in order, genes 60-67 of c1 match 20-13
  // of c2 reversed (more than MAX GAPS = 25 genes from the first block, so no chain joins them); a tandem pair,
  // a proximal pair and a dispersed pair far from both blocks.
  std::vector<GenePos> genes;
  for (int c = 1; c <= 2; ++c)
    for (int i = 0; i < 100; ++i)
      genes.push_back(
          {"c" + std::to_string(c) + "g" + std::to_string(i), "c" + std::to_string(c), i * 1000, i * 1000 + 500});
  auto id = [](int c, int i) { return "c" + std::to_string(c) + "g" + std::to_string(i); };
  std::vector<HomologHit> hits;
  for (int i = 0; i < 10; ++i) hits.push_back({id(1, 10 + i), id(2, 30 + i), 1e-50});
  for (int i = 0; i < 8; ++i) hits.push_back({id(1, 60 + i), id(2, 20 - i), 1e-40});
  hits.push_back({id(1, 85), id(1, 86), 1e-30});  // tandem
  hits.push_back({id(1, 2), id(1, 9), 1e-30});    // proximal (7 genes apart, under the proximal distance 10)
  hits.push_back({id(1, 0), id(2, 99), 1e-30});   // dispersed
  hits.push_back({id(1, 1), id(2, 98), 1.0});     // above the hits' E-value cut given below: ignored
  CollinearityParams params;
  params.max_hit_evalue = 1e-5;
  auto r = find_collinearity(genes, hits, params);
  ASSERT_EQ(r.blocks.size(), 2u);
  std::map<bool, size_t> by_dir;
  for (auto& b : r.blocks) by_dir[b.plus] = b.anchors.size();
  EXPECT_EQ(by_dir[true], 10u);
  EXPECT_EQ(by_dir[false], 8u);
  EXPECT_EQ(r.duplicate_class[id(1, 12)], "segmental");
  EXPECT_EQ(r.duplicate_class[id(1, 85)], "tandem");
  EXPECT_EQ(r.duplicate_class[id(1, 2)], "proximal");
  EXPECT_EQ(r.duplicate_class[id(1, 0)], "dispersed");
  EXPECT_EQ(r.duplicate_class[id(1, 1)], "singleton");
  std::string text = collinearity_text(r, {});
  EXPECT_NE(text.find("## Alignment 0: score="), std::string::npos);
  EXPECT_NE(text.find("c1&c2 minus"), std::string::npos);
  // Fewer than five anchors is no block.
  std::vector<HomologHit> few(hits.begin(), hits.begin() + 4);
  EXPECT_TRUE(find_collinearity(genes, few).blocks.empty());
  EXPECT_FALSE(parse_blast_m8("a b c\n").is_ok());
  EXPECT_FALSE(parse_mcscanx_gff("chr gene x y\n").is_ok());
  fs::path at = bioagent::testing::fixtures_dir() / "genefamily/mcscanx_arabidopsis/at.gff";
  if (fs::exists(at)) {
    std::ifstream in(at);
    std::string text2((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    auto real = parse_mcscanx_gff(text2);
    ASSERT_TRUE(real.is_ok());
    EXPECT_EQ(real->size(), 27169u);
  }
}

TEST(GenefamilyPipeline, SyntenyBetweenSpeciesFindsEachMembersOrtholog) {
  if (!fs::exists("/usr/bin/diamond")) GTEST_SKIP() << "diamond is not installed";
  const fs::path& d = example_dir();
  TempDir other;
  write_second_species(d, other);
  TempDir run;
  fs::path run_dir = run.path() / "run";
  auto r = run_stages(d, {{"synteny", {{"comparative", Json::array({other.path().string()})}}}}, run_dir, {"synteny"});
  ASSERT_TRUE(r.is_ok());
  for (auto& s : *r) ASSERT_TRUE(finished_with_outputs(s.state)) << s.stage << ": " << s.message;
  // The dual-synteny plot of the two species is drawn, and the stage's report section shows it.
  EXPECT_TRUE(fs::exists(run_dir / "final/Exam.GLOBIN.dual_synteny_Comp.svg"));
  for (auto& s : *r)
    if (s.stage == "synteny") {
      StageContext sc;
      sc.run = {{"species", "Exam"}, {"family", "GLOBIN"}};
      ReportSection sec =
          genefamily_pipeline().find("synteny")->report({sc, s.state, "", fs::path(s.folder), Lang::kEn});
      EXPECT_NE(std::find(sec.figures.begin(), sec.figures.end(), "Exam.GLOBIN.dual_synteny_Comp.svg"),
                sec.figures.end());
      ASSERT_GE(sec.paragraphs.size(), 2u);
      EXPECT_EQ(sec.paragraphs[1].rfind("With Comp: ", 0), 0u) << sec.paragraphs[1];
    }
  Json summary;
  for (auto& s : *r)
    if (s.stage == "synteny") summary = s.summary;
  ASSERT_TRUE(summary.contains("interspecies")) << summary.dump();
  EXPECT_GT(summary["interspecies"]["Comp"]["blocks"].get<int>(), 0);
  std::ifstream tsv(run_dir / "final/Exam.GLOBIN.syntenic_orthologs.tsv");
  const auto names = member_names(run_dir);
  std::string line;
  std::getline(tsv, line);
  int rows = 0, own = 0;
  while (std::getline(tsv, line)) {
    ++rows;
    const std::string gene = named(names, "gene of " + line.substr(0, line.find('\t')));  // Examg00010
    own += line.find("Comp" + gene.substr(4)) != std::string::npos;
  }
  std::ifstream truth_in(d / "truth.json");
  Json truth = Json::parse(truth_in);
  EXPECT_GE(rows, int(truth["members"].size()) / 2) << "most members lie in blocks shared with the other species";
  EXPECT_EQ(own, rows) << "each member's syntenic ortholog is its copy";
  // Gene ids used by two species are refused.
  TempDir run2;
  auto rc =
      run_stages(d, {{"synteny", {{"comparative", Json::array({d.string()})}}}}, run2.path() / "run", {"synteny"});
  ASSERT_TRUE(rc.is_ok());
  for (auto& s : *rc)
    if (s.stage == "synteny") EXPECT_NE(s.message.find("also used"), std::string::npos) << s.message;
}

TEST(GenefamilyPipeline, ExpressionQuantifiedFromReadsWithSalmon) {
  if (!fs::exists("/usr/bin/salmon")) GTEST_SKIP() << "salmon is not installed (scripts/setup.sh installs it)";
  const fs::path& d = example_dir();
  auto cds = read_fasta(d / "Exam.cds.fasta");
  ASSERT_TRUE(cds.is_ok());
  std::ifstream truth_in(d / "truth.json");
  Json truth = Json::parse(truth_in);
  std::string up = truth["members"][0], down = truth["members"][1];
  // Two samples of 100-nt reads: `up` 20x more abundant in "leaf", `down` 20x more in "root"; others even.
  TempDir run;
  std::mt19937 rng(5);
  auto write_reads = [&](const std::string& name, const std::string& high) {
    std::ofstream fq(run.path() / (name + ".fq"));
    int n = 0;
    for (auto& rec : *cds) {
      std::string gene = rec.id.substr(0, rec.id.find('.'));
      if (rec.seq.size() < 150 || rec.id.find(".1") == std::string::npos) continue;
      int reads = gene == high ? 2000 : (gene == up || gene == down) ? 100 : 20;
      for (int i = 0; i < reads; ++i) {
        size_t at = std::uniform_int_distribution<size_t>(0, rec.seq.size() - 100)(rng);
        fq << "@r" << ++n << "\n" << rec.seq.substr(at, 100) << "\n+\n" << std::string(100, 'I') << "\n";
      }
    }
  };
  write_reads("leaf", up);
  write_reads("root", down);
  fs::path run_dir = run.path() / "run";
  auto r = run_stages(d,
                      {{"expression",
                        {{"reads", Json::array({{{"sample", "leaf"}, {"r1", (run.path() / "leaf.fq").string()}},
                                                {{"sample", "root"}, {"r1", (run.path() / "root.fq").string()}}})}}}},
                      run_dir, {"expression"});
  ASSERT_TRUE(r.is_ok());
  for (auto& s : *r) ASSERT_TRUE(finished_with_outputs(s.state)) << s.stage << ": " << s.message;
  std::ifstream tpm_in(run_dir / "final/Exam.GLOBIN.salmon_tpm.tsv");
  std::map<std::string, std::pair<double, double>> tpm;
  std::string line;
  std::getline(tpm_in, line);
  EXPECT_EQ(line, "gene\tleaf\troot");
  while (std::getline(tpm_in, line)) {
    std::istringstream f(line);
    std::string g;
    double a, b;
    f >> g >> a >> b;
    tpm[g] = {a, b};
  }
  ASSERT_TRUE(tpm.count(up) && tpm.count(down));
  EXPECT_GT(tpm[up].first, 5 * tpm[up].second) << "leaf-high gene";
  EXPECT_GT(tpm[down].second, 5 * tpm[down].first) << "root-high gene";
  EXPECT_TRUE(fs::exists(run_dir / "final/Exam.GLOBIN.expression_heatmap.svg"));
  // A hostile sample name never becomes a path.
  TempDir run2;
  auto rb = run_stages(d, {{"expression", {{"reads", Json::array({{{"sample", "../x"}, {"r1", "/dev/null"}}})}}}},
                       run2.path() / "run", {"expression"});
  ASSERT_TRUE(rb.is_ok());
  bool refused = false;
  for (auto& s : *rb) refused |= s.stage == "expression" && s.state == StageState::kFailed;
  EXPECT_TRUE(refused);
}

TEST(GenefamilyPipeline, SyntenyFindsThePlantedSegmentalDuplication) {
  if (!fs::exists("/usr/bin/diamond")) GTEST_SKIP() << "diamond is not installed";
  const fs::path& d = example_dir();
  std::ifstream truth_in(d / "truth.json");
  Json truth = Json::parse(truth_in);
  ASSERT_FALSE(truth["segmental_pairs"].empty());
  TempDir run;
  auto r = run_stages(d, Json::object(), run.path() / "run", {"synteny"});
  ASSERT_TRUE(r.is_ok());
  for (auto& s : *r) EXPECT_TRUE(finished_with_outputs(s.state)) << s.stage << ": " << s.message;
  std::ifstream col(run.path() / "run/final/Exam.GLOBIN.collinearity");
  std::string text((std::istreambuf_iterator<char>(col)), std::istreambuf_iterator<char>());
  const auto names = member_names(run.path() / "run");
  for (auto& pair : truth["segmental_pairs"]) {
    const std::string a = named(names, pair[0]), b = named(names, pair[1]);
    EXPECT_TRUE(text.find(a + "\t" + b) != std::string::npos || text.find(b + "\t" + a) != std::string::npos)
        << pair.dump() << " (" << a << ", " << b << ") is an anchor";
  }
}

TEST(GenefamilyPipeline, PpiFromStringThroughTheReplayServerAndOfflineSkip) {
  const fs::path& d = example_dir();
  std::ifstream truth_in(d / "truth.json");
  Json truth = Json::parse(truth_in);
  std::string g1 = truth["members"][0], g2 = truth["members"][1], g3 = truth["members"][2];
  TempDir run;
  std::ofstream(run.path() / "orthologs.tsv") << g1 << "\tAT1G27370\n"
                                              << g2 << "\tAT5G43270.1\n"
                                              << g3 << "\tAT2G33810\n";
  bioagent::testing::ReplayServer string_api(
      R"([{"path": "/api/json/network", "body": "[{\"stringId_A\": \"3702.AT1G27370.1\", \"stringId_B\": \"3702.AT5G43270.1\", \"preferredName_A\": \"SPL10\", \"preferredName_B\": \"SPL2\", \"score\": 0.91}, {\"stringId_A\": \"3702.AT2G33810.1\", \"stringId_B\": \"3702.AT9G99999.1\", \"score\": 0.5}]"}])");
  ASSERT_TRUE(string_api.ok());
  auto cfg = genefamily_run_config(
      "", "", d,
      Json{{"ppi", {{"orthologs", (run.path() / "orthologs.tsv").string()}, {"string_url", string_api.url("")}}}});
  ASSERT_TRUE(cfg.is_ok());
  (*cfg)["network"] = {{"allow_private_urls", true}, {"cache_dir", run.path().string()}};
  PipelineOptions o;
  o.run_dir = run.path() / "run";
  o.stages = {"ppi"};
  auto runner = make_local_runner();
  auto r = run_genefamily(*cfg, *runner, o);
  ASSERT_TRUE(r.is_ok());
  EXPECT_EQ(r->back().summary["interactions"], 1) << r->back().summary.dump();
  std::ifstream tsv(o.run_dir / "final/Exam.GLOBIN.ppi.tsv");
  std::string text((std::istreambuf_iterator<char>(tsv)), std::istreambuf_iterator<char>());
  const auto names = member_names(o.run_dir);
  EXPECT_NE(text.find(named(names, g1) + "\t" + named(names, g2)), std::string::npos) << text;
  // Offline with a cold cache: skipped, saying why.
  (*cfg)["network"] = {{"offline", true}, {"cache_dir", (run.path() / "cold").string()}};
  o.run_dir = run.path() / "run_offline";
  auto off = run_genefamily(*cfg, *runner, o);
  ASSERT_TRUE(off.is_ok());
  EXPECT_EQ(off->back().summary["skipped"], true);
  EXPECT_EQ(off->back().state, StageState::kSkipped) << "ran, nothing applied: skipped, not done";
  EXPECT_NE(off->back().summary["reason"].get<std::string>().find("offline"), std::string::npos);
}

// Without <Family>.hmm, identify downloads the Pfam profile from InterPro
// (a replay server stands in for it here), gzip and all.
TEST(GenefamilyPipeline, PfamProfileDownloadedWhenTheFolderHasNone) {
  if (!fs::exists("/usr/bin/hmmsearch")) GTEST_SKIP() << "hmmer is not installed";
  const fs::path& d = example_dir();
  TempDir dir;
  fs::path data = dir.path() / "data";
  fs::create_directories(data);
  for (auto& e : fs::directory_iterator(d))
    if (e.path().extension() != ".hmm") fs::copy_file(e.path(), data / e.path().filename());
  std::string gz = (dir.path() / "profile.hmm.gz").string();
  ASSERT_EQ(std::system(("gzip -c '" + (d / "GLOBIN.hmm").string() + "' > '" + gz + "'").c_str()), 0);
  bioagent::testing::ReplayServer interpro(R"([{"path": "/api/entry/pfam/PF00042/", "body_file": ")" + gz + R"("}])");
  ASSERT_TRUE(interpro.ok());
  auto no_pfam = genefamily_run_config("Exam", "GLOBIN", data);
  EXPECT_FALSE(no_pfam.is_ok()) << "without an HMM or an accession the folder is not ready";
  auto cfg = genefamily_run_config("Exam", "GLOBIN", data,
                                   Json{{"identify", {{"pfam", "PF00042"}, {"interpro_url", interpro.url("/api")}}}});
  ASSERT_TRUE(cfg.is_ok()) << cfg.status().to_string();
  (*cfg)["network"] = {{"allow_private_urls", true}, {"cache_dir", dir.path().string()}};
  PipelineOptions o;
  o.run_dir = dir.path() / "run";
  o.stages = {"identify"};
  auto runner = make_local_runner();
  auto r = run_genefamily(*cfg, *runner, o);
  ASSERT_TRUE(r.is_ok());
  EXPECT_TRUE(finished_with_outputs(r->back().state)) << r->back().message;
  std::ifstream truth_in(d / "truth.json");
  EXPECT_EQ(r->back().summary["members"], Json::parse(truth_in)["members"].size());
}

// A protein-only folder and a folder without CDS run end to end: the stages
// that need an absent file are skipped with that reason, and the report,
// status.json and the returned states agree on every stage.
TEST(GenefamilyPipeline, ProteinOnlyAndNoCdsFoldersRunAndTheStatesAgree) {
  if (!fs::exists("/usr/bin/hmmsearch") || !fs::exists("/usr/bin/mafft") || !fs::exists("/usr/bin/FastTree") ||
      !fs::exists("/usr/bin/diamond"))
    GTEST_SKIP() << "hmmer/mafft/fasttree/diamond are not installed (scripts/setup.sh installs them)";
  const fs::path& d = example_dir();
  struct Case {
    std::vector<std::string> files;
    std::vector<std::string> skipped;
    std::string reason;
  };
  for (const Case& c :
       {Case{{"Exam.pep.fasta", "GLOBIN.hmm"}, {"structure", "chromosome", "promoter", "synteny", "kaks"}, "file"},
        Case{{"Exam.pep.fasta", "GLOBIN.hmm", "Exam.genome.fasta", "Exam.gff3"}, {"kaks"}, "cds file"}}) {
    TempDir dir;
    fs::create_directories(dir.path() / "data");
    for (auto& f : c.files) fs::copy_file(d / f, dir.path() / "data" / f);
    auto cfg = genefamily_run_config("", "", dir.path() / "data", Json{{"phylogeny", {{"method", "fasttree"}}}});
    ASSERT_TRUE(cfg.is_ok()) << cfg.status().to_string();
    PipelineOptions o;
    o.run_dir = dir.path() / "run";
    o.stages = {};  // every stage: the report describes what ran and what was skipped
    auto runner = make_local_runner();
    auto r = run_genefamily(*cfg, *runner, o);
    ASSERT_TRUE(r.is_ok()) << r.status().to_string();
    std::map<std::string, StageStatus> m;
    for (auto& s : *r) m[s.stage] = s;
    for (const char* ran : {"identify", "phylogeny", "domain", "motif", "properties", "panel", "report"})
      EXPECT_TRUE(finished_with_outputs(m[ran].state))
          << ran << ": " << to_string(m[ran].state) << " " << m[ran].message;
    for (auto& sk : c.skipped) {
      EXPECT_EQ(m[sk].state, StageState::kSkipped) << sk << ": " << to_string(m[sk].state);
      EXPECT_NE(m[sk].message.find(c.reason), std::string::npos) << sk << ": " << m[sk].message;
    }
    EXPECT_EQ(m["expression"].state, StageState::kSkipped) << "no matrix and no reads";
    // status.json says the same; the report names each skipped stage's reason.
    std::ifstream st_in(o.run_dir / "status.json");
    Json status = Json::parse(st_in);
    for (auto& s : status["stages"]) EXPECT_EQ(s["state"], to_string(m[s["stage"].get<std::string>()].state));
    std::ifstream md_in(o.run_dir / "final" / "Exam.GLOBIN.report.md");
    std::string md((std::istreambuf_iterator<char>(md_in)), std::istreambuf_iterator<char>());
    for (auto& sk : c.skipped) EXPECT_NE(md.find("Skipped: " + m[sk].message), std::string::npos) << sk;
    EXPECT_NE(md.find("Skipped: " + m["expression"].message), std::string::npos);
    EXPECT_EQ(md.find("did not run in this version"), std::string::npos);
    auto v = validate_run(o.run_dir);
    ASSERT_TRUE(v.is_ok()) << v.status().to_string();
    EXPECT_NE((*v)["status"], "fail") << v->dump(2);
  }
}
