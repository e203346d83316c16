// Sequence files of the gene-family pipeline: FASTA (records, or only the
// names and lengths of a genome's sequences, streamed), GFF3 (genes, mRNAs and
// their exons/CDS/UTRs), translation with the standard code, and HMMER's
// --domtblout tables. Malformed input is an error naming the file and line.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "bioagent/input_limits.h"
#include "bioagent/status.h"

namespace bioagent {

struct FastaRecord {
  std::string id, description, seq;
};

// A FASTA file, plain or gzip-compressed. Ids are cleaned (clean_sequence_id),
// the original header word kept at the start of the description; two headers
// that clean to one id are an error. Ids are UTF-8 text without control bytes;
// sequences hold letters, '*', '-' and '.' (spaces and tabs skipped).
Result<std::vector<FastaRecord>> read_fasta(const std::filesystem::path& path,
                                            const InputLimits& limits = default_input_limits());
// FASTA text as it is (ids not cleaned), within the default limits.
Result<std::vector<FastaRecord>> parse_fasta(std::string_view text, const std::string& name = "input");
// Sequence name -> length, reading the file (plain or gzip) once without keeping a base
// (limits genome_bytes and genome_sequence_bytes).
Result<std::map<std::string, int64_t>> fasta_lengths(const std::filesystem::path& path,
                                                     const InputLimits& limits = default_input_limits());
Status write_fasta(const std::filesystem::path& path, const std::vector<FastaRecord>& records, size_t width = 60);

// The id a FASTA header word names: PlantTFDB's "AT1G02065.1|Arabidopsis_thaliana|SBP|..." ->
// "AT1G02065.1"; UniProt's "sp|Q9S840|SPL1_ARATH" -> "Q9S840"; NCBI's "gi|1|ref|XP_1.1|" ->
// "XP_1.1"; then strip_id_prefix.
std::string clean_sequence_id(std::string_view id);
// Ensembl's typed ids ("gene:", "transcript:", "CDS:", "protein:") and NCBI GFF3's ("gene-",
// "rna-", "cds-", "exon-" before a letter) without their prefix.
std::string strip_id_prefix(std::string_view id);
// The gene an isoform's protein id names by convention (".1/.2", ".t1", ".p1", "-PA", "-RA",
// "_P001", "_T001" suffixes), with the suffix rule in `rule`; "" when the id has no such suffix
// (versioned accessions such as XP_012345.1 are one protein each).
std::string isoform_base(const std::string& id, std::string* rule = nullptr);
// The gene a FASTA header's description names, cleaned as strip_id_prefix: Ensembl's
// "gene:AT1G01010", Phytozome's "locus=AT1G01010", NCBI's "[locus_tag=AT1G01010]"
// (before "[gene=NAC001]"), a plain "gene=X"; "" when it names none.
std::string header_gene(std::string_view description);
// A sequence name compared across files: lower case, without a "chr"/"chromosome" prefix and
// leading zeros ("Chr1", "chr01", "1" -> "1").
std::string canonical_seqid(std::string_view name);

struct GffSegment {
  int64_t start = 0, end = 0;  // 1-based, inclusive
  int phase = 0;
};

// One identifier a record carries: the attribute it came from and one value as written.
// Keys name the row too when it is a child's: "ID", "Name", "pacid", "Dbxref:GeneID",
// "CDS protein_id", "protein Name" (a transcript's CDS and protein rows lend it theirs).
struct GffIdentifier {
  std::string key, value;
};

struct GffTranscript {
  std::string id, gene_id, seqid;
  char strand = '+';
  int64_t start = 0, end = 0;
  std::vector<GffSegment> exons, cds, utr5, utr3;  // sorted by start
  std::vector<GffIdentifier> identifiers;          // its own row's, then its CDS and protein rows'
  int64_t cds_length() const;
};

struct GffGene {
  std::string id, seqid, name;
  char strand = '+';
  int64_t start = 0, end = 0;
  std::vector<std::string> transcripts;
  std::vector<GffIdentifier> identifiers;  // its row's (ID, Name, Alias, gene_id, locus_tag, Dbxref, ...)
};

struct GffModel {
  std::map<std::string, GffGene> genes;
  std::map<std::string, GffTranscript> transcripts;          // mRNA (or transcript) by id
  std::map<std::string, std::string> protein_to_transcript;  // protein / CDS ids that name a transcript
  std::vector<std::string> seqids;                           // in order of first appearance
  // Sequence lengths the file states: ##sequence-region lines and region/chromosome/contig/scaffold
  // rows (the largest end seen per sequence); empty when it states none.
  std::map<std::string, int64_t> sequence_lengths;
  // The transcript a protein or CDS id names (mRNA id, CDS ID, protein_id or Name), or "".
  std::string transcript_of(const std::string& id) const;
};

// GFF3 or GTF (gene_id/transcript_id attributes; extents from the exons and CDS when a
// gene or transcript has no line of its own), plain or gzip. Ids lose Ensembl/NCBI type
// prefixes (strip_id_prefix) in ID, Parent and protein_id. CDS rows whose Parent is a gene
// (no mRNA between them) make a transcript of that gene's id. Every identifier a gene's or
// transcript's rows carry is kept with it (GffIdentifier) for the gene map to match on.
Result<GffModel> read_gff3(const std::filesystem::path& path, const InputLimits& limits = default_input_limits());
Result<GffModel> parse_gff3(std::string_view text, const std::string& name = "input");

// A=0, C=1, G=2, T/U=3 (either case); -1 for anything else.
int base_index(char c);

// Standard genetic code; '*' for stops, 'X' for codons with ambiguous bases.
std::string translate(std::string_view cds);
// IUPAC codes complemented (K<->M, Y<->R, S, W, B<->V, D<->H, N); case kept; other characters -> N.
std::string reverse_complement(std::string_view dna);

// One row of an hmmsearch/hmmscan --domtblout table.
struct DomainHit {
  std::string target, query;
  int64_t target_len = 0, query_len = 0;
  double seq_evalue = 0, seq_score = 0, c_evalue = 0, i_evalue = 0, dom_score = 0;
  int dom_index = 0, dom_count = 0;
  int64_t hmm_from = 0, hmm_to = 0, ali_from = 0, ali_to = 0, env_from = 0, env_to = 0;
};
Result<std::vector<DomainHit>> parse_domtblout(std::string_view text, const std::string& name = "input");

}  // namespace bioagent
