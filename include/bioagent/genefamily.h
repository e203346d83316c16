// The plant gene-family pipeline of seed 004: species data and its naming
// rules, the stage table (one StageSpec per stage, src/genefamily/stage_*.cpp,
// listed in genefamily_pipeline()), the validator, and the example genome.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include <functional>
#include <map>
#include <optional>
#include <vector>

#include "bioagent/pipeline.h"
#include "bioagent/seqio.h"

namespace bioagent {

// Naming rules (seed 004): <Prefix>.genome.fasta, <Prefix>.gff3,
// <Prefix>.cds.fasta, <Prefix>.pep.fasta, <Family>.hmm. Returns
// {ok, prefix, family, files{genome,gff3,cds,pep,hmm}, problems[{file, rule,
// example, fixable, fix}], consistency{...}}; `prefix`/`family` may be empty
// (found from the file names). consistency=false skips the content checks.
// With consistency, every file is read once; `parsed`, when given, receives
// what was read (the check stage builds its gene map from it, no second read).
struct SpeciesFiles {
  std::optional<std::map<std::string, int64_t>> genome_lengths;  // absent: no genome or unreadable
  std::optional<GffModel> gff;
  std::optional<std::vector<FastaRecord>> pep, cds;
  Status unreadable;  // why the first file there could not be read (ok when each was read)
};
Result<Json> check_species_data(const fs::path& dir, const std::string& prefix = "", const std::string& family = "",
                                bool consistency = true, SpeciesFiles* parsed = nullptr);

// The seed's rules: [{kind, rule, example}] (genome, gff3, cds, pep, hmm).
Json naming_rules();

// Just the naming check of one file name: {ok, kind, rule, example, fix?, rank?}.
// A recognised variant (Lchi.pep.fa.gz, Arabidopsis_thaliana.TAIR10.pep.all.fa.gz,
// Athaliana_447_Araport11.protein.fa.gz, GCF_000001735.4_TAIR10.1_protein.faa)
// is fixable: `fix` is its name under the rules, with `prefix` when given, else
// the prefix its stem suggests; `rank` orders variants of one kind (0 preferred).
Json check_file_name(const std::string& name, const std::string& prefix = "");
// The species prefix the files of one folder already named by the rules share
// (Lchi of Lchi.pep.fasta and Lchi.cds.fasta), "" when none are or they disagree:
// the prefix a misnamed file beside them is read under.
std::string shared_rule_prefix(const std::vector<std::string>& names);

// A species folder as a run reads it in place: {prefix, family, read: [{name,
// kind, bytes, read_as?}], not_read: [names]}; prefix and family are those of
// the names read ("" when none: `prefix`, when given, is kept). Each file a naming rule or a recognised
// variant knows is read, a variant under its `fix` name; of two files read as
// one name the correctly named one, else the lower rank, is read and the other
// is not. `may_read(canonical path)` may refuse a file (a link leading out of a
// data root): it is then not listed at all. Reads the folder only.
Json data_view_plan(const fs::path& folder, const std::string& prefix = "",
                    const std::function<bool(const fs::path&)>& may_read = {});

// `view` (emptied first) made of symbolic links to `folder`'s files under the
// names `plan` (data_view_plan of that folder) reads them as: the files are
// never renamed, copied or written.
Status link_data_view(const fs::path& folder, const Json& plan, const fs::path& view);

// The run configuration for `bioagent genefamily run`: files resolved, params per stage.
Result<Json> genefamily_run_config(const std::string& prefix, const std::string& family, const fs::path& data_dir,
                                   const Json& params = Json::object());

// The run's language (`lang`: en or zh) in a run configuration: the figures'
// text and the report's language (its parameter, so that a report in another
// language is another key), unless the parameters already set the report's.
void set_run_language(Json& run_config, Lang lang);

// The stage table (src/genefamily/stages/table.cpp). Built once; thread-safe.
const Pipeline& genefamily_pipeline();
// The table with `extra` rows before the report, whose inputs then include
// them: a stage being built, or a test's toy stage, as a row of the table.
Pipeline genefamily_pipeline_with(std::vector<StageSpec> extra);
// Every stage's name and labels, [{name, label, label_zh}] in table order:
// what clients show (the web page keeps no copy).
Json stage_labels(const Pipeline& pipeline);

// Runs (or resumes) `pipeline` for `config` in options.run_dir, keeping
// run.json (the configuration) and status.json (the stages' outcome) there.
Result<std::vector<StageStatus>> run_genefamily(const Json& config, Runner& runner, const PipelineOptions& options,
                                                const Pipeline& pipeline = genefamily_pipeline());

// The seed's validation over a finished run folder, from its status.json: the
// identify stage's final files, every stage's state (skipped ones with their
// reason) and every check the stage table ran on the results (thresholds of
// their own kind): {status: pass|warn|fail, checks: [...]}; also written to
// validation.json.
Result<Json> validate_run(const fs::path& run_dir);

// Collinear blocks (MCScanX's method) from MCScanX's two inputs, a gene table
// ("chromosome gene start end") and BLAST tabular hits (-m 8 / outfmt 6), with
// MCScanX's default parameters: {text (the .collinearity layout), blocks,
// collinear_genes, genes, gene_types ("gene<TAB>code" as duplicate_gene_classifier's
// .gene_type: 0 singleton, 1 dispersed, 2 proximal, 3 tandem, 4 segmental), classes (counts)}.
Result<Json> collinearity_from_text(std::string_view gene_table, std::string_view blast_m8);

// Writes a small, realistic species folder (chromosomes, genes with exons and
// introns, GFF3, CDS, proteins) whose family members carry domains emitted by
// hmmemit from `family_hmm`, plus decoys from `decoy_hmms` and random
// proteins; truth.json lists the members. Deterministic for a seed.
struct ExampleGenomeOptions {
  std::string prefix = "Exam", family = "GLOBIN";
  fs::path family_hmm = "/usr/share/doc/hmmer/examples/tutorial/globins4.hmm";
  std::vector<fs::path> decoy_hmms = {"/usr/share/doc/hmmer/examples/tutorial/fn3.hmm",
                                      "/usr/share/doc/hmmer/examples/tutorial/Pkinase.hmm"};
  int members = 18, decoys = 40, random_genes = 60, chromosomes = 4;
  unsigned seed = 7;
};
Result<Json> write_example_genome(const fs::path& dir, const ExampleGenomeOptions& o = {});

// A genome-scale generated species for benchmarks (`genefamily example --genes N --genome-mb M`):
// about `genes` genes on `chromosomes` chromosomes (homeologous pairs after one whole-genome
// duplication whose copies diverged at `wgd_rate` substitutions per site), plus `scaffolds` unplaced
// scaffolds, `genome_mb` megabases in all with soft-masked repeats; families emitted from each
// HMM of `families`, recent segmental blocks, tandem arrays, proximal and dispersed copies, isoforms.
// truth.json names each family's members, the WGD's expected Ks, the counts and every planted copy
// (original, copy, class, rate, expected Ks); the result printed is its summary (member counts). Deterministic for a
// seed; memory about one chromosome plus the coding sequences.
struct ScaleFamily {
  std::string name;
  fs::path hmm;
  int members = 20;  // ancestral members (the WGD and tandem copies add more)
};
struct ScaleGenomeOptions {
  std::string prefix = "Scal";
  int genes = 30000, genome_mb = 400, chromosomes = 12, scaffolds = 2000, segmental_blocks = 8;
  double wgd_rate = 0.45, wgd_retained = 0.25, tandem_fraction = 0.02, proximal_fraction = 0.004,
         dispersed_fraction = 0.01, repeat_share = 0.5;
  std::vector<ScaleFamily> families = {{"GLOBIN", "/usr/share/doc/hmmer/examples/tutorial/globins4.hmm", 20},
                                       {"FN3", "/usr/share/doc/hmmer/examples/tutorial/fn3.hmm", 40},
                                       {"PKINASE", "/usr/share/doc/hmmer/examples/tutorial/Pkinase.hmm", 80}};
  unsigned seed = 7;
};
Result<Json> write_scale_genome(const fs::path& dir, const ScaleGenomeOptions& o = {});

// Expected wall seconds of the phylogeny stage's IQ-TREE call with its default
// options (ModelFinder over the stage's model set, tree search, 1000 UFBoot) on
// `sequences` × `columns` (after trimming) with `cpus` threads, from the costs
// bench/phylogeny_models.sh measured; < 0 when a size is unknown. An estimate:
// shown as "about", with its basis. Thread-safe.
double iqtree_expected_seconds(int sequences, int columns, int cpus);

}  // namespace bioagent
