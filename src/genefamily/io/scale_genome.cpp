// The genome-scale generated species (write_scale_genome): an ancestral gene
// set with families emitted from several profile HMMs, one whole-genome
// duplication (every ancestral chromosome becomes a homeologous pair, both
// copies of a gene kept with probability `wgd_retained`, else one), recent
// segmental blocks, tandem arrays, proximal and dispersed copies, isoforms,
// soft-masked (lowercase) repeat copies in the intergenic space, and
// unplaced scaffolds. Chromosomes are built and written one at a time, so
// memory stays near one chromosome plus the coding sequences.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>

#include "bioagent/genefamily.h"
#include "bioagent/json_text.h"
#include "bioagent/seqio.h"
#include "genefamily/io/genome_gen.h"
#include "genefamily/stages/stage_common.h"

namespace bioagent {
namespace {

struct Draft {
  std::string family;  // empty for background genes
  std::string protein, cds;
  int alt_start = -1;
  long origin = -1;        // the draft it was copied from (-1: ancestral)
  std::string copy_class;  // how it was copied: wgd, segmental, tandem, proximal, dispersed
  double rate = 0;         // the substitution rate of that copy
};

struct Builder {
  const ScaleGenomeOptions& o;
  gf::GenomeGen g;
  std::vector<Draft> drafts;                   // every gene ever made (lost ones stay, unplaced)
  std::vector<std::vector<long>> chromosomes;  // draft indices in order

  long copy(long from, const std::string& cls, double rate) {
    Draft d = drafts[size_t(from)];
    // Family genes carry a conserved domain: stronger purifying selection (Ka/Ks near 0.1, not 0.3).
    d.cds = g.evolve(drafts[size_t(from)].cds, rate, d.family.empty() ? 0.3 : 0.1);
    d.protein = translate(d.cds);
    d.alt_start = -1;
    d.origin = from;
    d.copy_class = cls;
    d.rate = rate;
    drafts.push_back(std::move(d));
    return long(drafts.size()) - 1;
  }
  Draft background() {
    Draft d;
    d.protein = "M" + g.protein(size_t(g.uniform(120, 700)));
    return d;
  }
};

// The ancestral genes: each family's members (a detectable domain between random flanks) among
// background proteins, shuffled, with an internal start codon (a second isoform) in one gene of five.
Status ancestral_genes(Builder& b, long n_ancestral, const fs::path& scratch) {
  for (size_t f = 0; f < b.o.families.size(); ++f) {
    const auto& fam = b.o.families[f];
    auto domains = gf::emit_detectable(fam.hmm, fam.members, b.o.seed + unsigned(f), scratch, b.o.genes);
    if (!domains) return domains.status();
    for (auto& dom : *domains) {
      Draft d;
      d.family = fam.name;
      d.protein = "M" + b.g.protein(size_t(b.g.uniform(30, 150))) + dom + b.g.protein(size_t(b.g.uniform(20, 200)));
      b.drafts.push_back(std::move(d));
    }
  }
  while (long(b.drafts.size()) < n_ancestral) b.drafts.push_back(b.background());
  std::shuffle(b.drafts.begin(), b.drafts.end(), b.g.rng);
  for (auto& d : b.drafts) {
    if (b.g.uniform(0, 4) == 0) {
      d.alt_start = b.g.uniform(8, 20);
      d.protein[size_t(d.alt_start)] = 'M';
    }
    d.cds = b.g.back_translate(d.protein);
  }
  return Status::ok();
}

// The whole-genome duplication: ancestral chromosome k becomes chromosomes 2k and 2k+1; a gene keeps
// both copies with probability wgd_retained, else one of them at random. Every second pair has the
// second copy inverted (its gene order reversed), as after a later inversion.
void duplicate_genome(Builder& b, long n_ancestral) {
  const int pairs = std::max(1, b.o.chromosomes / 2);
  b.chromosomes.assign(size_t(2 * pairs), {});
  for (long i = 0; i < n_ancestral; ++i) {
    const size_t k = size_t(i * pairs / n_ancestral);
    if (b.g.unit() < b.o.wgd_retained) {
      b.chromosomes[2 * k].push_back(i);
      b.chromosomes[2 * k + 1].push_back(b.copy(i, "wgd", b.o.wgd_rate));
    } else {
      b.chromosomes[2 * k + size_t(b.g.uniform(0, 1))].push_back(i);
    }
  }
  for (int k = 0; k < pairs; k += 2)
    std::reverse(b.chromosomes[size_t(2 * k + 1)].begin(), b.chromosomes[size_t(2 * k + 1)].end());
}

// Recent small-scale duplications on the duplicated genome: segmental blocks of 12-25 genes copied to
// another chromosome; tandem arrays (1-3 copies next to the original); proximal copies (3-10 genes
// away); dispersed copies (anywhere). Family members are favoured for tandem copies, as in the
// families a gene-family paper studies.
void small_duplications(Builder& b) {
  auto& chr = b.chromosomes;
  const int n = int(chr.size());
  for (int s = 0; s < b.o.segmental_blocks && n > 1; ++s) {
    auto& from = chr[size_t(b.g.uniform(0, n - 1))];
    if (from.size() < 40) continue;
    const int len = b.g.uniform(12, 25), at = b.g.uniform(0, int(from.size()) - len - 1);
    std::vector<long> block;
    for (int i = 0; i < len; ++i) block.push_back(b.copy(from[size_t(at + i)], "segmental", 0.10));
    auto& to = chr[size_t(b.g.uniform(0, n - 1))];
    to.insert(to.begin() + b.g.uniform(0, int(to.size())), block.begin(), block.end());
  }
  for (auto& c : chr) {
    std::vector<long> out;
    for (size_t i = 0; i < c.size(); ++i) {
      out.push_back(c[i]);
      const bool member = !b.drafts[size_t(c[i])].family.empty();
      if (b.g.unit() < (member ? 0.12 : b.o.tandem_fraction)) {
        const int copies = b.g.uniform(1, 3);
        long last = c[i];
        for (int k = 0; k < copies; ++k) out.push_back(last = b.copy(last, "tandem", 0.02 + 0.2 * b.g.unit()));
      }
    }
    c = std::move(out);
  }
  for (auto& c : chr) {
    for (size_t i = 0; i + 12 < c.size(); ++i)
      if (b.g.unit() < b.o.proximal_fraction) {
        const long copy = b.copy(c[i], "proximal", 0.05 + 0.2 * b.g.unit());
        c.insert(c.begin() + long(i) + b.g.uniform(3, 10), copy);
      }
  }
  const size_t placed = b.drafts.size();
  for (size_t i = 0; i < placed; ++i)
    if (b.drafts[i].copy_class.empty() && b.g.unit() < b.o.dispersed_fraction) {
      const long copy = b.copy(long(i), "dispersed", 0.05 + 0.3 * b.g.unit());
      auto& to = chr[size_t(b.g.uniform(0, n - 1))];
      to.insert(to.begin() + b.g.uniform(0, int(to.size())), copy);
    }
}

// Intergenic DNA of about `n` bases: random sequence with lowercase copies of the repeat families
// (10-20% diverged) making up about `repeat_share` of it.
std::string intergenic(Builder& b, size_t n, const std::vector<std::string>& repeats) {
  static const char* lower = "acgt";
  std::string s;
  s.reserve(n + 8000);
  while (s.size() < n) {
    if (b.g.unit() < b.o.repeat_share) {
      const std::string& r = repeats[size_t(b.g.uniform(0, int(repeats.size()) - 1))];
      const double div = 0.1 + 0.1 * b.g.unit();
      const size_t from = size_t(b.g.uniform(0, int(r.size()) / 2));
      for (size_t i = from; i < r.size(); ++i) s += b.g.unit() < div ? lower[b.g.uniform(0, 3)] : r[i];
    } else {
      s += b.g.dna(size_t(b.g.uniform(500, 3000)));
    }
  }
  return s;
}

void write_wrapped(std::ofstream& out, const std::string& id, const std::string& seq) {
  out << '>' << id << '\n';
  for (size_t i = 0; i < seq.size(); i += 60)
    out.write(seq.data() + i, long(std::min<size_t>(60, seq.size() - i))) << '\n';
}

struct Written {
  std::vector<std::string> gene_of;  // draft index -> gene id ("" when lost)
  int64_t genome_bp = 0, masked_bp = 0;
  Json chromosome_sizes = Json::object();
};

// Lays out and writes the chromosomes and the unplaced scaffolds, one sequence at a time.
Status write_sequences(Builder& b, const fs::path& dir, Written& w) {
  std::ofstream fa(dir / (b.o.prefix + ".genome.fasta")), gff(dir / (b.o.prefix + ".gff3"));
  gff << "##gff-version 3\n";
  std::vector<FastaRecord> cds_out, pep_out;
  std::vector<std::string> repeats;
  for (int r = 0; r < 12; ++r) {
    std::string s = b.g.dna(size_t(b.g.uniform(300, 6000)));
    std::transform(s.begin(), s.end(), s.begin(), [](char c) { return char(c | 0x20); });
    repeats.push_back(std::move(s));
  }
  w.gene_of.assign(b.drafts.size(), "");
  const double scaffold_share = 0.03;
  const int64_t per_chromosome =
      int64_t(double(b.o.genome_mb) * 1e6 * (1 - scaffold_share)) / int64_t(b.chromosomes.size());
  auto finish = [&](const std::string& name, const std::string& seq) {
    write_wrapped(fa, name, seq);
    w.genome_bp += int64_t(seq.size());
    w.masked_bp += std::count_if(seq.begin(), seq.end(), [](char c) { return c >= 'a'; });
  };
  for (size_t c = 0; c < b.chromosomes.size(); ++c) {
    char chr[32];
    std::snprintf(chr, sizeof chr, "Chr%02zu", c + 1);
    std::string seq;
    seq.reserve(size_t(per_chromosome) + 100000);
    const auto& genes = b.chromosomes[c];
    for (size_t i = 0; i < genes.size(); ++i) {
      const Draft& d = b.drafts[size_t(genes[i])];
      const int64_t left =
          std::max<int64_t>(0, per_chromosome - int64_t(seq.size()) - int64_t(genes.size() - i) * 3500);
      const size_t mean_gap = size_t(left / int64_t(genes.size() - i + 1));
      const bool tight = d.copy_class == "tandem";
      seq += intergenic(b, tight ? size_t(b.g.uniform(300, 2000)) : size_t(double(mean_gap) * (0.2 + 1.6 * b.g.unit())),
                        repeats);
      char id[32];
      std::snprintf(id, sizeof id, "%s%02zug%06zu", b.o.prefix.c_str(), c + 1, (i + 1) * 10);
      gf::lay_gene(b.g, seq, chr, id, d.cds, d.protein, d.alt_start, gff, cds_out, pep_out, "bioagent-scale");
      w.gene_of[size_t(genes[i])] = id;
    }
    seq += intergenic(b, size_t(std::max<int64_t>(5000, per_chromosome - int64_t(seq.size()))), repeats);
    w.chromosome_sizes[chr] = seq.size();
    finish(chr, seq);
  }
  const int64_t scaffold_bp = int64_t(double(b.o.genome_mb) * 1e6 * scaffold_share);
  for (int s = 0; s < b.o.scaffolds; ++s) {
    char name[32];
    std::snprintf(name, sizeof name, "scaffold_%05d", s + 1);
    finish(name, intergenic(b, size_t(std::max<int64_t>(1000, scaffold_bp / std::max(1, b.o.scaffolds))), repeats));
  }
  BIOAGENT_RETURN_IF_ERROR(write_fasta(dir / (b.o.prefix + ".cds.fasta"), cds_out));
  BIOAGENT_RETURN_IF_ERROR(write_fasta(dir / (b.o.prefix + ".pep.fasta"), pep_out));
  if (!fa || !gff) return Status(ErrorCode::kInternal, "cannot write the genome or GFF3 in " + dir.string());
  return Status::ok();
}

// truth.json: the families' members, the WGD's expected Ks, the counts, and every planted copy whose
// two genes were placed as [original, copy, class, substitution rate, expected Ks].
Result<Json> write_truth(const Builder& b, const fs::path& dir, const Written& w) {
  Json families = Json::object(), duplicates = Json::array();
  for (auto& f : b.o.families) families[f.name] = Json::array();
  std::map<std::string, int> pairs;
  size_t genes = 0;
  for (size_t i = 0; i < b.drafts.size(); ++i) {
    const Draft& d = b.drafts[i];
    if (w.gene_of[i].empty()) continue;
    ++genes;
    if (!d.family.empty()) families[d.family].push_back(w.gene_of[i]);
    if (d.origin < 0 || w.gene_of[size_t(d.origin)].empty()) continue;
    duplicates.push_back({w.gene_of[size_t(d.origin)], w.gene_of[i], d.copy_class, d.rate, gf::expected_ks(d.rate)});
    ++pairs[d.copy_class];
  }
  Json truth = {{"prefix", b.o.prefix},
                {"families", families},
                {"genes", genes},
                {"genome_bp", w.genome_bp},
                {"soft_masked_fraction", double(w.masked_bp) / double(std::max<int64_t>(1, w.genome_bp))},
                {"chromosomes", w.chromosome_sizes},
                {"unplaced_scaffolds", b.o.scaffolds},
                {"wgd",
                 {{"substitution_rate", b.o.wgd_rate},
                  {"expected_ks", gf::expected_ks(b.o.wgd_rate)},
                  {"retained_fraction", b.o.wgd_retained}}},
                {"duplicate_pairs", pairs},
                {"duplicates", duplicates},
                {"note", "generated by bioagent genefamily example --genes: not real data"}};
  std::ofstream out(dir / "truth.json");
  out << json_text(truth, 1) << "\n";
  if (!out) return Status(ErrorCode::kInternal, "cannot write truth.json in " + dir.string());
  truth.erase("duplicates");  // printed: the summary, not every pair
  for (auto& [name, members] : truth["families"].items()) members = members.size();
  return truth;
}

}  // namespace

Result<Json> write_scale_genome(const fs::path& dir, const ScaleGenomeOptions& o) {
  if (o.genes < 200 || o.genes > 200000) return invalid_argument("--genes must be between 200 and 200000");
  if (o.genome_mb < 1 || o.genome_mb > 4000) return invalid_argument("--genome-mb must be between 1 and 4000");
  if (o.chromosomes < 2 || o.chromosomes > 60) return invalid_argument("the chromosome count must be 2-60");
  if (o.families.empty()) return invalid_argument("at least one family HMM is needed");
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (fs::exists(dir / (o.prefix + ".genome.fasta"), ec))
    return invalid_argument(dir.string() + " already holds " + o.prefix + ".genome.fasta; choose an empty folder");
  Builder b{o, gf::GenomeGen{std::mt19937(o.seed)}, {}, {}};
  // Ancestral genes so that, after the WGD's retained pairs and the small-scale copies, about o.genes remain.
  const double growth = 1 + o.wgd_retained + 2 * o.tandem_fraction + o.proximal_fraction + o.dispersed_fraction;
  const long n_ancestral = std::max(100L, long(double(o.genes) / growth));
  BIOAGENT_RETURN_IF_ERROR(ancestral_genes(b, n_ancestral, dir));
  duplicate_genome(b, n_ancestral);
  small_duplications(b);
  Written w;
  BIOAGENT_RETURN_IF_ERROR(write_sequences(b, dir, w));
  for (auto& f : o.families) {
    fs::copy_file(f.hmm, dir / (f.name + ".hmm"), fs::copy_options::overwrite_existing, ec);
    if (ec) return Status(ErrorCode::kInternal, "cannot copy " + f.hmm.string() + ": " + ec.message());
  }
  return write_truth(b, dir, w);
}

}  // namespace bioagent
