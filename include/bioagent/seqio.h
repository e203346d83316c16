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

#include "bioagent/status.h"

namespace bioagent {

struct FastaRecord {
  std::string id, description, seq;
};

Result<std::vector<FastaRecord>> read_fasta(const std::filesystem::path& path, size_t max_bytes = size_t(2) << 30);
Result<std::vector<FastaRecord>> parse_fasta(std::string_view text, const std::string& name = "input");
// Sequence name -> length, reading the file once without keeping sequences.
Result<std::map<std::string, int64_t>> fasta_lengths(const std::filesystem::path& path);
Status write_fasta(const std::filesystem::path& path, const std::vector<FastaRecord>& records, size_t width = 60);

struct GffSegment {
  int64_t start = 0, end = 0;  // 1-based, inclusive
  int phase = 0;
};

struct GffTranscript {
  std::string id, gene_id, seqid;
  char strand = '+';
  int64_t start = 0, end = 0;
  std::vector<GffSegment> exons, cds, utr5, utr3;  // sorted by start
  int64_t cds_length() const;
};

struct GffGene {
  std::string id, seqid, name;
  char strand = '+';
  int64_t start = 0, end = 0;
  std::vector<std::string> transcripts;
};

struct GffModel {
  std::map<std::string, GffGene> genes;
  std::map<std::string, GffTranscript> transcripts;          // mRNA (or transcript) by id
  std::map<std::string, std::string> protein_to_transcript;  // protein / CDS ids that name a transcript
  std::vector<std::string> seqids;                           // in order of first appearance
  // The transcript a protein or CDS id names (mRNA id, CDS ID, protein_id or Name), or "".
  std::string transcript_of(const std::string& id) const;
};

Result<GffModel> read_gff3(const std::filesystem::path& path);
Result<GffModel> parse_gff3(std::string_view text, const std::string& name = "input");

// A=0, C=1, G=2, T/U=3 (either case); -1 for anything else.
int base_index(char c);

// Standard genetic code; '*' for stops, 'X' for codons with ambiguous bases.
std::string translate(std::string_view cds);
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
