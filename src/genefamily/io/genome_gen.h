// Pieces shared by the generated genomes (the example species and the
// genome-scale benchmark species): random DNA and proteins, back-translation,
// duplicate evolution with purifying selection, and domains sampled from a
// profile HMM by hmmemit (optionally only those the model itself detects).
// Not thread-safe: a GenomeGen holds its random generator.
#pragma once

#include <filesystem>
#include <iosfwd>
#include <random>
#include <string>
#include <vector>

#include "bioagent/seqio.h"
#include "bioagent/status.h"

namespace bioagent::gf {

struct GenomeGen {
  std::mt19937 rng;
  int uniform(int a, int b) { return std::uniform_int_distribution<int>(a, b)(rng); }
  double unit() { return std::uniform_real_distribution<double>(0, 1)(rng); }
  std::string dna(size_t n);
  std::string protein(size_t n);
  // Codons for `aa` (standard code, no stop), chosen uniformly among synonyms.
  std::string back_translate(const std::string& aa);
  // A duplicate's coding sequence after one substitution trial per site at `rate` (the start codon kept,
  // no stop codon made); a substitution that changes the amino acid is kept with probability
  // `nonsyn_kept` (purifying selection). With one trial per site the expected Jukes-Cantor Ks of the pair
  // is -3/4 ln(1 - rate) (expected_ks) and Ka/Ks is near `nonsyn_kept`.
  std::string evolve(const std::string& cds, double rate, double nonsyn_kept);
};

double expected_ks(double rate);

// Appends one gene to `seq` (a chromosome being built; coordinates are `seq`'s): its coding sequence
// (`cds_no_stop` plus a stop codon) cut into 1-5 exons with GT..AG introns, UTRs on both ends, on a
// random strand; writes its gene, mRNA, exon, UTR and CDS lines to `gff` (seqid `chr`, column 2
// `source`) and each isoform's CDS and protein (`gene_id`.1, and .2 starting at codon `alt_start`
// when >= 0) to `cds_out` / `pep_out`.
void lay_gene(GenomeGen& g, std::string& seq, const std::string& chr, const std::string& gene_id,
              const std::string& cds_no_stop, const std::string& protein, int alt_start, std::ostream& gff,
              std::vector<FastaRecord>& cds_out, std::vector<FastaRecord>& pep_out,
              const char* source = "bioagent-example");

// `n` domain sequences sampled from the HMM (hmmemit, seeded).
Result<std::vector<std::string>> emit_domains(const std::filesystem::path& hmm, int n, unsigned seed);
// `n` sampled domains the model itself finds (full-sequence E <= 1e-7, as if searched among
// `database_size` sequences when > 0, so a member stays findable in a proteome of that size), in
// emission order; `scratch` holds the temporary files. kInvalidArgument when the model gives too few.
Result<std::vector<std::string>> emit_detectable(const std::filesystem::path& hmm, int n, unsigned seed,
                                                 const std::filesystem::path& scratch, int database_size = 0);

}  // namespace bioagent::gf
