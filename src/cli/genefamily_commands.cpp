// `bioagent genefamily example|check|run|status|validate`: the gene-family
// pipeline from the command line, with a live progress display on stderr.
#include <CLI/CLI.hpp>

#include <csignal>
#include <fstream>
#include <iostream>
#include <thread>

#include <unistd.h>

#include "bioagent/genefamily.h"
#include "bioagent/genefamily_classify.h"
#include "bioagent/json_text.h"
#include "cli/commands.h"

namespace bioagent::cli {
namespace {

std::shared_ptr<std::atomic<bool>> g_cancel = std::make_shared<std::atomic<bool>>(false);
void on_sigint(int) { g_cancel->store(true); }

struct RunArgs {
  std::string species, family, data, runner = "local", run_dir, params = "{}", partition, lang = "en";
  std::vector<std::string> stages;
  int cpus = 0;
  int time_limit = 0;
  int64_t slurm_mem_cap = 0;
};

int print_json(const Json& j, int code = 0) {
  std::cout << json_text(j, 2) << std::endl;
  return code;
}

void add_example_command(CLI::App* gf, GlobalOptions& g) {
  static std::string dir;
  static unsigned seed = 7;
  auto* ex = gf->add_subcommand("example", "Write a generated example species folder (with truth.json)");
  ex->add_option("dir", dir, "Folder to create")->required();
  ex->add_option("--seed", seed, "Random seed");
  static ExampleGenomeOptions ex_o;
  ex->add_option("--prefix", ex_o.prefix, "Species prefix of the file names (default Exam)");
  ex->add_option("--family", ex_o.family, "Family name (default GLOBIN)");
  ex->add_option("--hmm", ex_o.family_hmm, "HMM the members' domains are emitted from (default: HMMER's globins4.hmm)");
  static ScaleGenomeOptions scale_o;
  ex->add_option("--genes", scale_o.genes,
                 "Genome scale: about this many genes (e.g. 30000), with a whole-genome duplication, repeats and "
                 "scaffolds (truth.json says what was planted)")
      ->check(CLI::Range(200, 200000));
  ex->add_option("--genome-mb", scale_o.genome_mb, "Genome scale: assembly size in megabases (default 400)")
      ->check(CLI::Range(1, 4000));
  ex->callback([&g, ex] {
    if (ex->count("--genes") > 0 || ex->count("--genome-mb") > 0) {
      ScaleGenomeOptions o = scale_o;
      o.seed = seed;
      if (ex->count("--prefix") > 0) o.prefix = ex_o.prefix;
      if (ex->count("--family") > 0 || ex->count("--hmm") > 0)  // the first family is the one named
        o.families.front() = {ex_o.family, ex_o.family_hmm, o.families.front().members};
      auto r = write_scale_genome(dir, o);
      g.exit_code = r ? print_json(*r) : print_error(r.status());
      return;
    }
    ExampleGenomeOptions o = ex_o;
    o.seed = seed;
    auto r = write_example_genome(dir, o);
    g.exit_code = r ? print_json(*r) : print_error(r.status());
  });
}

// True when a file of the folder is read under another name (a download name).
bool reads_a_variant(const Json& plan) {
  for (auto& f : plan["read"])
    if (f.contains("read_as")) return true;
  return false;
}

// A folder holding download names (Lchi.pep.fa.gz, Ensembl's, Phytozome's,
// NCBI's) is read in place through links under the names the stages read, as
// the server reads its data roots. Says on stderr which file is read as what.
Result<fs::path> link_view_for_run(const fs::path& data, const Json& plan, const fs::path& view) {
  BIOAGENT_RETURN_IF_ERROR(link_data_view(data, plan, view));
  for (auto& f : plan["read"])
    if (f.contains("read_as"))
      std::cerr << "reading " << f["name"].get<std::string>() << " as " << f["read_as"].get<std::string>()
                << " (a link in " << view.string() << "; the file is not renamed or copied)\n";
  for (auto& n : plan["not_read"]) std::cerr << "not reading " << n.get<std::string>() << "\n";
  return view;
}

// check_species_data on a folder as a run reads it (download names through a
// temporary view); `files` name the folder's own files and `read_as` says which
// were read under another name.
Result<Json> check_folder_as_run_reads_it(const fs::path& dir, const std::string& species, const std::string& family) {
  Json plan = data_view_plan(dir, species);
  if (!reads_a_variant(plan)) return check_species_data(dir, species, family, true);
  Json read_as = Json::object();
  for (auto& f : plan["read"])
    if (f.contains("read_as")) read_as[f["name"].get<std::string>()] = f["read_as"];
  std::error_code ec;
  fs::path view = fs::temp_directory_path() / ("bioagent-check-" + std::to_string(::getpid()));
  BIOAGENT_RETURN_IF_ERROR(link_data_view(dir, plan, view));
  auto r = check_species_data(view, species, family, true);
  fs::remove_all(view, ec);
  if (!r) return r;
  for (auto& [kind, path] : (*r)["files"].items()) {
    std::string as = fs::path(path.get<std::string>()).filename().string();
    for (auto& f : plan["read"])
      if (f.value("read_as", f["name"].get<std::string>()) == as)
        path = fs::absolute(dir / f["name"].get<std::string>()).string();
  }
  (*r)["read_as"] = read_as;
  (*r)["not_read"] = plan["not_read"];
  return r;
}

void add_check_command(CLI::App* gf, GlobalOptions& g) {
  static std::string dir, species, family;
  auto* check = gf->add_subcommand("check", "Check a species data folder: naming rules and consistency");
  check->add_option("dir", dir, "Data folder")->required();
  check->add_option("--species", species, "Species prefix (default: from the file names)");
  check->add_option("--family", family, "Family name (default: from the .hmm file)");
  check->callback([&g] {
    auto r = check_folder_as_run_reads_it(dir, species, family);
    if (!r) {
      g.exit_code = print_error(r.status());
      return;
    }
    g.exit_code = print_json(*r, (*r)["ok"] == true ? 0 : 1);
  });
}

// One progress line on stderr per pipeline event.
void print_stage_event(const PipelineEvent& e) {
  std::string progress;  // a running stage: elapsed time, step and program, the tool's phase
  if (e.progress.is_object()) {
    const int secs = int(e.progress.value("elapsed_seconds", 0.0));
    progress = " — " + std::to_string(secs / 60) + " min " + std::to_string(secs % 60) + " s, step " +
               std::to_string(e.progress.value("step", 0)) + "/" + std::to_string(e.progress.value("steps", 0)) + " " +
               e.progress.value("what", std::string()) +
               (e.progress.contains("phase") ? ", " + e.progress.value("phase", std::string()) : "");
  }
  std::cerr << "[" << (e.done >= 0 ? std::to_string(e.done) : "-") << "/" << e.total << "] " << e.stage << ": "
            << to_string(e.state) << (e.message.empty() ? "" : " — " + e.message.substr(0, 400)) << progress
            << std::endl;
}

// The run's options: its folder, CPUs, stages, the network settings of the session (into cfg).
PipelineOptions run_options(const RunArgs& ra, GlobalOptions& g, Json& cfg) {
  PipelineOptions o;
  if (auto s = Session::open(g)) {  // the network settings of the stages that go online (ppi)
    if (!s->tool_options["cache_dir"].empty())
      o.version_book = fs::path(s->tool_options["cache_dir"]) / "program_versions.json";
    cfg["network"] = {{"offline", s->tool_options["offline"] == "1"},
                      {"cache_dir", s->tool_options["cache_dir"]},
                      {"allow_private_urls", s->tool_options["allow_private_urls"] == "1"}};
  }
  o.run_dir = ra.run_dir.empty()
                  ? fs::path("runs") / (cfg["species"].get<std::string>() + "." + cfg["family"].get<std::string>())
                  : fs::path(ra.run_dir);
  o.cpus = ra.cpus > 0 ? ra.cpus : int(std::max(1u, std::thread::hardware_concurrency()));
  o.stages = ra.stages;
  o.cancel = g_cancel;
  o.stage_time_limit_minutes = ra.time_limit;
  o.on_event = print_stage_event;
  return o;
}

// `genefamily run`: the pipeline with progress on stderr, the stages (and validation) as JSON on stdout.
int run_pipeline(const RunArgs& ra, GlobalOptions& g) {
  Json params = Json::parse(ra.params, nullptr, false);
  if (!params.is_object()) return print_error(parse_error("--params is not a JSON object"));
  if (ra.lang != "en" && (!params.contains("report") || !params["report"].contains("lang")))
    params["report"]["lang"] = ra.lang;
  RunArgs args = ra;
  fs::path data = ra.data;
  if (Json plan = data_view_plan(ra.data, ra.species); reads_a_variant(plan)) {
    if (args.run_dir.empty()) {  // fixed before the run so that the view of links lives in it
      std::string family = ra.family.empty() ? plan["family"].get<std::string>() : ra.family;
      args.run_dir =
          (fs::path("runs") / (plan["prefix"].get<std::string>() + "." + (family.empty() ? "family" : family)))
              .string();
    }
    auto view = link_view_for_run(ra.data, plan, fs::path(args.run_dir) / "input_links");
    if (!view) return print_error(view.status());
    data = *view;
  }
  auto cfg = genefamily_run_config(ra.species, ra.family, data, params);
  if (!cfg) return print_error(cfg.status());
  (*cfg)["lang"] = ra.lang;
  PipelineOptions o = run_options(args, g, *cfg);
  std::signal(SIGINT, on_sigint);
  std::signal(SIGTERM, on_sigint);
  auto runner = ra.runner == "slurm" ? make_slurm_runner(ra.partition, 1000, ra.slurm_mem_cap) : make_local_runner();
  auto r = run_genefamily(*cfg, *runner, o);
  if (!r) return print_error(r.status());
  Json stages = Json::array();
  bool ok = true;
  for (auto& s : *r) {
    stages.push_back(s.to_json());
    ok &= s.state != StageState::kFailed && s.state != StageState::kCancelled;  // skipped has its reason
  }
  Json out = {{"run_dir", fs::absolute(o.run_dir).string()}, {"runner", runner->name()}, {"stages", stages}};
  if (ok)
    if (auto v = validate_run(o.run_dir)) out["validation"] = *v;
  return print_json(out, ok ? 0 : 1);
}

void add_run_command(CLI::App* gf, GlobalOptions& g) {
  static RunArgs ra;
  auto* run = gf->add_subcommand("run", "Run (or resume) the pipeline on a species data folder");
  run->add_option("--species", ra.species, "Species prefix, e.g. Lchi");
  run->add_option("--family", ra.family, "Gene family, e.g. SPL (its HMM is <Family>.hmm)");
  run->add_option("--data", ra.data, "Species data folder")->required();
  run->add_option("--stages", ra.stages, "Stages to run (with what they need), comma-separated")->delimiter(',');
  run->add_option("--runner", ra.runner, "local or slurm")->check(CLI::IsMember({"local", "slurm"}));
  run->add_option("--partition", ra.partition, "Slurm partition");
  run->add_option("--slurm-mem-cap", ra.slurm_mem_cap, "Slurm: cap every job's memory request (MB)");
  run->add_option("--cpus", ra.cpus, "CPU budget (default: all cores)");
  run->add_option("--run-dir", ra.run_dir, "Run folder (default: runs/<Species>.<Family>)");
  run->add_option("--params", ra.params, "Stage parameters as JSON, e.g. {\"identify\": {\"evalue\": 1e-10}}");
  run->add_option("--stage-time-limit", ra.time_limit, "Minutes per stage (default: by resource label)");
  run->add_option("--lang", ra.lang, "Language of the report and the figures: en or zh")
      ->check(CLI::IsMember({"en", "zh"}));
  run->callback([&g] { g.exit_code = run_pipeline(ra, g); });
}

void add_status_command(CLI::App* gf, GlobalOptions& g) {
  static std::string dir;
  auto* status = gf->add_subcommand("status", "Show a run's stages and its recorded attempts");
  status->add_option("run", dir, "Run folder")->required();
  status->callback([&g] {
    std::ifstream in(fs::path(dir) / "status.json");
    Json j = Json::parse(in, nullptr, false);
    auto hist = pipeline_history(dir);
    if (j.is_discarded() && !hist) {
      g.exit_code = print_error(hist.status());
      return;
    }
    Json out = j.is_discarded() ? Json{{"run_dir", dir}, {"note", "the run has not finished yet"}} : j;
    if (hist) out["attempts"] = *hist;
    g.exit_code = print_json(out);
  });
}

Result<std::string> read_text_file(const std::string& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) return not_found("cannot read " + p);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void add_collinearity_command(CLI::App* gf, GlobalOptions& g) {
  static std::string gff_in, blast_in, out_path;
  auto* col =
      gf->add_subcommand("collinearity", "Collinear blocks from MCScanX-style inputs (.gff gene table, BLAST -m 8)");
  col->add_option("--gff", gff_in, "Gene table: chromosome gene start end")->required();
  col->add_option("--blast", blast_in, "BLAST/DIAMOND tabular (-m 8 / outfmt 6) hits")->required();
  col->add_option("--out", out_path, "Write the .collinearity text here (default: stdout)");
  col->callback([&g] {
    auto gt = read_text_file(gff_in);
    auto bt = read_text_file(blast_in);
    if (!gt || !bt) {
      g.exit_code = print_error(gt ? bt.status() : gt.status());
      return;
    }
    auto r = collinearity_from_text(*gt, *bt);
    if (!r) {
      g.exit_code = print_error(r.status());
      return;
    }
    if (out_path.empty()) {
      std::cout << (*r)["text"].get<std::string>();
    } else {
      std::ofstream(out_path) << (*r)["text"].get<std::string>();
      std::cerr << (*r)["blocks"].get<size_t>() << " blocks, " << (*r)["collinear_genes"].get<size_t>()
                << " collinear genes of " << (*r)["genes"].get<size_t>() << "\n";
    }
  });
}

void add_classify_command(CLI::App* gf, GlobalOptions& g) {
  static ClassifyOptions co;
  auto* cls = gf->add_subcommand("classify", "Assign proteins to families by domain rules (HMMs searched once)");
  cls->add_option("--hmm", co.hmm_files, "HMMER3 file(s) of domain profiles (repeat for more)")->required();
  cls->add_option("--proteome", co.proteomes, "Protein FASTA (gzip allowed; repeat for more)")->required();
  cls->add_option("--reference", co.references, "Reference calls per proteome (TAPscan output.3): prints agreement");
  cls->add_option("--rules", co.rules_file, "Rules file (default: the built-in TAPscan v4 rules)");
  cls->add_option("--out", co.out_dir, "Folder for <proteome>.families.tsv and the hmmsearch tables");
  cls->add_option("--cpus", co.cpus, "hmmsearch threads");
  cls->add_option("--evalue", co.evalue, "hmmsearch E-value for profiles without GA lines");
  cls->callback([&g] {
    auto r = classify_families(co);
    if (!r) {
      g.exit_code = print_error(r.status());
      return;
    }
    if (!r->agreement_table.empty()) std::cout << r->agreement_table << std::endl;
    g.exit_code = print_json(r->summary);
  });
}

void add_validate_command(CLI::App* gf, GlobalOptions& g) {
  static std::string dir;
  auto* validate = gf->add_subcommand("validate", "Check a finished run: files, stages, gene count, support, coverage");
  validate->add_option("run", dir, "Run folder")->required();
  validate->callback([&g] {
    auto r = validate_run(dir);
    if (!r) {
      g.exit_code = print_error(r.status());
      return;
    }
    g.exit_code = print_json(*r, (*r)["status"] == "fail" ? 1 : 0);
  });
}

}  // namespace

void add_genefamily_commands(CLI::App& app, GlobalOptions& g) {
  auto* gf = app.add_subcommand("genefamily", "The plant gene-family pipeline (identify, phylogeny, domains, ...)");
  gf->require_subcommand(1);
  add_example_command(gf, g);
  add_check_command(gf, g);
  add_run_command(gf, g);
  add_status_command(gf, g);
  add_collinearity_command(gf, g);
  add_classify_command(gf, g);
  add_validate_command(gf, g);
}

}  // namespace bioagent::cli
