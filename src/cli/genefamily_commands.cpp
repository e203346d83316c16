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
#include "bioagent/input_limits.h"
#include "bioagent/json_text.h"
#include "cli/assistant_cli.h"
#include "cli/commands.h"

namespace bioagent::cli {
namespace {

std::atomic<bool> g_interrupted{false};
void on_sigint(int) { g_interrupted.store(true); }

struct RunArgs {
  std::string species, family, data, run_dir, params = "{}", lang = "en";
  AssistantCliOptions service;  // state folder, CPUs, runner, stages
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

// A task event as a line on stderr: stages with their progress, the data read,
// diagnoses, repairs and what was learned, the task's states.
void print_task_event(const Json& e) {
  const std::string type = e.value("type", "");
  if (type == "stage") {
    std::string progress;  // a running stage: elapsed time, step and program, the tool's phase
    if (e.contains("progress") && e["progress"].is_object()) {
      const Json& p = e["progress"];
      const int secs = int(p.value("elapsed_seconds", 0.0));
      progress = " — " + std::to_string(secs / 60) + " min " + std::to_string(secs % 60) + " s, step " +
                 std::to_string(p.value("step", 0)) + "/" + std::to_string(p.value("steps", 0)) + " " +
                 p.value("what", std::string()) + (p.contains("phase") ? ", " + p.value("phase", std::string()) : "");
    }
    const int done = e.value("done", 0);
    const std::string message = e.value("message", "");
    std::cerr << "[" << (done >= 0 ? std::to_string(done) : "-") << "/" << e.value("total", 0) << "] "
              << e.value("stage", "") << ": " << e.value("state", "")
              << (message.empty() ? "" : " — " + message.substr(0, 400)) << progress << std::endl;
  } else if (type == "state") {
    std::cerr << "task: " << e.value("state", "") << " — " << e.value("message", "") << std::endl;
  } else if (type == "data") {
    for (auto& f : e.value("read_in_place", Json::array()))
      if (const std::string file = f.value("file", ""); fs::path(file).filename() != f.value("read_as", ""))
        std::cerr << "reading " << file << " as " << f.value("read_as", "")
                  << " (a link in the run folder; the file is not renamed or copied)" << std::endl;
    for (auto& n : e.value("not_read", Json::array())) std::cerr << "not reading " << n.get<std::string>() << std::endl;
  } else if (type == "diagnosis" || type == "repair" || type == "learning" || type == "prevention" ||
             type == "resumed") {
    std::cerr << type << ": " << e.value("message", "") << std::endl;
  }
}

// `genefamily run`: a task of the run service, as the server runs one (the naming check and its
// repair, diagnosis and learning), confirmed with the given parameters; progress on stderr, the
// stages (and validation) as JSON on stdout. Ctrl-C stops the task (it resumes with the same command).
int run_pipeline(RunArgs ra, GlobalOptions& g) {
  Json given = Json::parse(ra.params, nullptr, false);
  if (!given.is_object()) return print_error(parse_error("--params is not a JSON object"));
  const fs::path data = fs::absolute(ra.data);
  const Json view = data_view_plan(data, ra.species);
  const std::string species = ra.species.empty() ? view.value("prefix", "") : ra.species;
  const std::string family = ra.family.empty() ? view.value("family", "") : ra.family;
  if (species.empty()) return print_error(invalid_argument("no species prefix: give --species (e.g. Lchi)"));
  if (family.empty())
    return print_error(invalid_argument("no family: give --family or put <Family>.hmm in the folder"));
  ra.service.confirm_timeout = 1;
  ra.service.data_dir = data.string();  // the run's folder is the only data it reads (no example genome written)
  auto c = open_cli_assistant(g, ra.service);
  if (!c) return print_error(c.status());
  RunService& runs = c->assistant->runs();
  auto params = parse_run_params(given, genefamily_pipeline(), runs.cpu_limit());
  if (!params) return print_error(params.status());
  RunRequest rq;
  rq.owner = c->session_id;
  rq.species = species;
  rq.family = family;
  rq.data_dir = data;
  rq.run_dir = fs::absolute(ra.run_dir.empty() ? fs::path("runs") / (species + "." + family) : fs::path(ra.run_dir));
  rq.params = *params;
  rq.lang = lang_or_en(ra.lang);
  rq.confirmed = true;  // the command line gave the parameters
  rq.resumable_by_server = false;
  auto started = runs.start(rq);
  if (!started) return print_error(started.status());
  const std::string task = (*started)["task_id"];
  std::signal(SIGINT, on_sigint);  // no other thread is told: the wait loop reads the flag
  std::signal(SIGTERM, on_sigint);
  Result<Json> st = internal_error("not waited");
  int64_t after = 0;
  auto print_new = [&](std::chrono::milliseconds wait) {
    for (auto& e : runs.events(rq.owner, task, after, wait)) {
      after = std::max<int64_t>(after, e.value("seq", after));
      print_task_event(e);
    }
  };
  for (bool asked_to_stop = false;;) {
    print_new(std::chrono::milliseconds(500));
    st = runs.status(rq.owner, task);
    if (!st || (*st).value("terminal", false)) {
      print_new(std::chrono::milliseconds(0));
      break;
    }
    if (g_interrupted.load() && !asked_to_stop) {
      std::cerr << "stopping the task (finished stages are kept; the same command resumes it)" << std::endl;
      runs.cancel(rq.owner, task);
      asked_to_stop = true;
    }
  }
  c->assistant->shutdown();
  if (!st) return print_error(st.status());
  Json status = Json::parse(std::ifstream(rq.run_dir / "status.json"), nullptr, false);
  Json out = {{"run_dir", rq.run_dir.string()},
              {"runner", ra.service.runner},
              {"task_id", task},
              {"state", (*st)["state"]},
              {"message", (*st)["message"]},
              {"stages", status.is_object() ? status.value("stages", Json::array()) : Json::array()}};
  if (auto v = Json::parse(std::ifstream(rq.run_dir / "validation.json"), nullptr, false); v.is_object())
    out["validation"] = v;
  return print_json(out, (*st)["state"] == "done" ? 0 : 1);
}

void add_run_command(CLI::App* gf, GlobalOptions& g) {
  static RunArgs ra;
  auto* run = gf->add_subcommand(
      "run",
      "Run (or resume) the pipeline on a species data folder, as the server runs it (a task of the run service)");
  run->add_option("--species", ra.species, "Species prefix, e.g. Lchi (default: from the file names)");
  run->add_option("--family", ra.family, "Gene family, e.g. SPL (its HMM is <Family>.hmm; default: the .hmm file's)");
  run->add_option("--data", ra.data, "Species data folder (read in place; nothing in it is renamed or written)")
      ->required();
  run->add_option("--stages", ra.service.stages, "Stages to run (with what they need as inputs), comma-separated")
      ->delimiter(',');
  run->add_option("--runner", ra.service.runner, "local or slurm")->check(CLI::IsMember({"local", "slurm"}));
  run->add_option("--partition", ra.service.slurm_partition, "Slurm partition");
  run->add_option("--slurm-mem-cap", ra.service.slurm_mem_cap_mb, "Slurm: cap every job's memory request (MB)");
  run->add_option("--cpus", ra.service.cpus, "CPU budget (default: all cores)");
  run->add_option("--run-dir", ra.run_dir, "Run folder (default: runs/<Species>.<Family>)");
  run->add_option("--params", ra.params,
                  "Stage parameters as JSON, nested by stage ({\"identify\": {\"evalue\": 1e-10}}) or the "
                  "dialog's fields ({\"evalue\": 1e-10})");
  run->add_option("--stage-time-limit", ra.service.stage_time_limit_minutes,
                  "Minutes per stage (default: by resource label)");
  run->add_option("--lang", ra.lang, "Language of the report and the figures: en or zh")
      ->check(CLI::IsMember({"en", "zh"}));
  run->add_option(
      "--state-dir", ra.service.state_dir,
      "The state folder whose learning the run reads and adds to (default: the server's, beside the bundle)");
  add_budget_options(run, ra.service);
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
  static std::string gff_in, blast_in, out_path, types_path;
  auto* col =
      gf->add_subcommand("collinearity", "Collinear blocks from MCScanX-style inputs (.gff gene table, BLAST -m 8)");
  col->add_option("--gff", gff_in, "Gene table: chromosome gene start end")->required();
  col->add_option("--blast", blast_in, "BLAST/DIAMOND tabular (-m 8 / outfmt 6) hits")->required();
  col->add_option("--out", out_path, "Write the .collinearity text here (default: stdout)");
  col->add_option("--gene-types", types_path,
                  "Write each gene's duplicate class here, as duplicate_gene_classifier's .gene_type (0-4)");
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
    if (!types_path.empty()) std::ofstream(types_path) << (*r)["gene_types"].get<std::string>();
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

// `genefamily stages`: the stage table as the engine reads it (what each stage needs and reads,
// its resource label, programs and dialog fields).
void add_stages_command(CLI::App* gf, GlobalOptions& g) {
  auto* cmd = gf->add_subcommand("stages", "List the pipeline's stages: what each needs, reads and runs");
  cmd->callback([&g] {
    Json out = Json::array();
    for (auto& s : genefamily_pipeline().stages()) {
      Json dialog = Json::array();
      for (auto& d : s.dialog) dialog.push_back(d.key);
      out.push_back({{"name", s.name},
                     {"label", s.label},
                     {"label_zh", s.label_zh},
                     {"description", s.description},
                     {"after", s.after},
                     {"uses", s.uses},
                     {"needs", s.needs},
                     {"resource", s.resource},
                     {"programs", s.programs},
                     {"dialog", dialog}});
    }
    g.exit_code = print_json(out);
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

// `bioagent stage-step REQUEST` (hidden): one stage's own code in a process of its
// own, as the run service starts it (PipelineOptions::isolation).
void add_stage_step_command(CLI::App& app, GlobalOptions& g) {
  static std::string request;
  auto* cmd = app.add_subcommand("stage-step", "Run one stage's own code for a run (started by the run service)");
  cmd->group("");
  cmd->add_option("request", request, "The step's request file")->required();
  cmd->callback([&g] {
    // The run's input limits are this process's readers' defaults (checked when the run was asked for).
    Json rq = Json::parse(std::ifstream(request), nullptr, false);
    if (rq.is_object() && rq["ctx"].is_object() && rq["ctx"]["run"].is_object())
      if (auto l = InputLimits{}.with(rq["ctx"]["run"].value("input_limits", Json()))) set_default_input_limits(*l);
    Status s = run_stage_step(genefamily_pipeline(), request);
    g.exit_code = s.is_ok() ? 0 : print_error(s);
  });
}

void add_genefamily_commands(CLI::App& app, GlobalOptions& g) {
  add_stage_step_command(app, g);
  auto* gf = app.add_subcommand("genefamily", "The plant gene-family pipeline (identify, phylogeny, domains, ...)");
  gf->require_subcommand(1);
  add_example_command(gf, g);
  add_check_command(gf, g);
  add_run_command(gf, g);
  add_status_command(gf, g);
  add_collinearity_command(gf, g);
  add_classify_command(gf, g);
  add_validate_command(gf, g);
  add_stages_command(gf, g);
}

}  // namespace bioagent::cli
