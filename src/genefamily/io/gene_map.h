// One explicit mapping gene <-> transcript <-> protein <-> CDS <-> coordinates
// for a species folder, whatever the naming convention of its files: proteins
// named by transcript, by CDS/protein_id, by gene, or only by an isoform suffix
// (no GFF3 record). The check stage writes it as a table; identify and synteny
// locate proteins with the same rules.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "bioagent/pipeline.h"
#include "bioagent/seqio.h"

namespace bioagent {

// Where a protein id leads in a GFF3 model. `via` says how it was matched:
// "mRNA id", "CDS/protein_id", "gene id", "gene id after isoform suffix",
// "gene in the FASTA header" (header_gene), "isoform suffix" (no GFF3 record:
// the gene is the id without its suffix)
// or "none" (the protein stands for its own gene, no position).
struct ProteinLocus {
  std::string gene, transcript, seqid, via;
  char strand = '+';
  int64_t start = 0, end = 0;  // the gene's extent; 0 when unknown (seqid empty)
  bool placed() const { return !seqid.empty(); }
};
// `header_gene` (header_gene of the protein's FASTA description) names the gene
// when the GFF3 does not know the protein: before the id's isoform suffix.
ProteinLocus locate_protein(const GffModel& gff, const std::string& protein_id, const std::string& header_gene = "");

// The genome's name for a GFF3 sequence name: the same name, else the only
// genome sequence with the same canonical_seqid ("Chr1" for "1" or "chr01");
// "" when none or several match.
std::string genome_name_for(const std::string& gff_seqid, const std::vector<std::string>& genome_names);

struct GeneMapRow {
  std::string protein;
  ProteinLocus locus;
  std::string cds;  // the CDS record's id, "" when none
  int64_t length = 0;
  bool longest = false;  // the longest protein of its gene
};
struct GeneMap {
  std::vector<GeneMapRow> rows;                      // one per protein, in file order
  std::map<std::string, std::string> seqid_aliases;  // GFF3 name -> genome name, where they differ
  std::vector<std::string> seqids_not_in_genome;     // GFF3 names with no genome sequence
  Json summary() const;                              // counts by `via`, unmapped examples, how to fix
  std::string tsv() const;                           // protein gene transcript cds seqid start end strand ...
};
// `cds` and `genome_names` may be empty (no CDS file, no genome).
GeneMap build_gene_map(const GffModel& gff, const std::vector<FastaRecord>& proteins,
                       const std::vector<FastaRecord>& cds, const std::vector<std::string>& genome_names);

}  // namespace bioagent
