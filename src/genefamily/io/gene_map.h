// One explicit mapping gene <-> transcript <-> protein <-> CDS <-> coordinates
// for a species folder, whatever the naming convention of its files: proteins
// are matched to the GFF3's records by every identifier both carry, in normal
// forms (id_match.h), the scheme that links the most records one-to-one first;
// without a GFF3 record a protein's gene is the one its FASTA header names, else
// its id without an isoform suffix. The check stage writes it as a table;
// identify and synteny locate proteins with the same map.
#pragma once

#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "bioagent/pipeline.h"
#include "bioagent/seqio.h"

namespace bioagent {

// Where a protein id leads in a GFF3 model. `via` says how it was matched: the
// scheme that placed it ("FASTA id = mRNA Name", "header locus= = gene Name
// (version suffix aside)"), or, with no GFF3 record, "gene in the FASTA header"
// (header_gene), "isoform suffix" (the gene is the id without its suffix) or
// "none" (the protein stands for its own gene, no position).
struct ProteinLocus {
  std::string gene, transcript, seqid, via;
  char strand = '+';
  int64_t start = 0, end = 0;  // the gene's extent; 0 when unknown (seqid empty)
  bool placed() const { return !seqid.empty(); }
};
// One protein on its own (a whole proteome is matched by build_gene_map, which
// chooses the scheme from all of them): `header_gene` (header_gene of the
// protein's FASTA description) names the gene when the GFF3 does not know it.
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
  std::vector<GeneMapRow> rows;                          // one per protein, in file order
  std::map<std::string, std::string> seqid_aliases;      // GFF3 name -> genome name, where they differ
  std::vector<std::string> seqids_not_in_genome;         // GFF3 names with no genome sequence
  std::vector<std::pair<std::string, size_t>> evidence;  // each scheme used, with the proteins it placed
  size_t gff_genes = 0, gff_transcripts = 0;             // the GFF3's records
  std::vector<std::string> gff_examples;                 // a few of its mRNA (else gene) identifiers
  std::unordered_map<std::string, size_t> by_protein;    // protein id -> its row
  // The row of a protein id; null when the map has none.
  const GeneMapRow* row(const std::string& protein) const;
  // Counts by `via`, the evidence (which key linked how many), what stayed unmatched with three
  // examples, and how to fix it (`fix`, `fix_zh`).
  Json summary() const;
  std::string tsv() const;  // protein gene transcript cds seqid start end strand ...
};
// `cds` and `genome_names` may be empty (no CDS file, no genome).
GeneMap build_gene_map(const GffModel& gff, const std::vector<FastaRecord>& proteins,
                       const std::vector<FastaRecord>& cds, const std::vector<std::string>& genome_names);

// The chromosome lengths a GFF3 gives when there is no genome: its ##sequence-region lines and
// region rows, else the last gene end on each sequence (`source` says which: "sequence-region",
// "last gene end"); in the order the GFF3 names the sequences.
std::vector<std::pair<std::string, int64_t>> gff_sequence_lengths(const GffModel& gff, std::string* source = nullptr);

}  // namespace bioagent
