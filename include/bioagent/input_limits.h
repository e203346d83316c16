// What one genome-side input file (genome, GFF3/GTF, CDS, proteins, HMM
// profile, expression table) may cost the parsers that read it, checked before
// the cost is paid: line by line, and while a compressed file is inflated. The
// one table of these limits, their defaults and the two ways to raise them
// (the run parameter {"input_limits": {KEY: N}}, or --input-limit KEY=N on
// serve, chat and genefamily run/check). Defaults fit real plant data: a 3 Gb
// assembly (chromosomes up to 4 Gb), 60,000 genes with 10 isoforms each, GFF3
// files of several hundred MB.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bioagent/status.h"

namespace bioagent {

struct InputLimits {
  int64_t line_bytes = int64_t(4) << 20;                  // one line of a GFF3/GTF, HMM or table; a FASTA header
  int64_t id_bytes = 4096;                                // one id: a FASTA name, a GFF3 ID, Parent or Name
  int64_t attributes = 1024;                              // attributes of one GFF3/GTF line
  int64_t parents = 10000;                                // ids one Parent attribute lists
  int64_t features = 30'000'000;                          // feature lines of one GFF3/GTF file
  int64_t records = 10'000'000;                           // records of one protein or CDS FASTA file
  int64_t sequence_bytes = 10'000'000;                    // residues of one protein or CDS record
  int64_t genome_sequence_bytes = 4'000'000'000;          // bases of one genome sequence
  int64_t file_bytes = int64_t(2) << 30;                  // a protein, CDS, GFF3, HMM or table file, inflated
  int64_t genome_bytes = int64_t(8) << 30;                // a genome file, inflated
  int64_t inflate_ratio = 100;                            // inflated / compressed bytes of a compressed file ...
  int64_t inflate_ratio_after_bytes = int64_t(64) << 20;  // ... once this much has been inflated

  struct Field {
    const char* key;
    int64_t InputLimits::*member;
    const char* what;
  };
  // Every limit: its key (the run parameter's and the option's), member and what it bounds.
  static const std::vector<Field>& fields();
  Json to_json() const;
  // `given` ({key: positive integer}) over these values; an unknown key or a value < 1 is refused.
  Result<InputLimits> with(const Json& given) const;
  // "KEY=N" (the option's form) over these values.
  Result<InputLimits> with_option(const std::string& key_equals_value) const;
};

// The limits a reader uses when its caller gives none: the defaults above, or
// those of the run whose stage this process runs (a stage-step helper sets them
// from the run's input_limits before its one stage starts).
const InputLimits& default_input_limits();
void set_default_input_limits(const InputLimits& limits);

// The refusal of a file that passed a limit: resource_exhausted, its message
// "<file>: <what> (the limit input_limits.<key> is <N>; if the file is genuine,
// raise it: ...)", details {limit, limit_value, file} and a typed reason
// (kind input_limit) the run's language renders.
Status input_limit_exceeded(const InputLimits& limits, const std::string& key, const std::string& file,
                            const std::string& what);

// A malformed line: parse_error "<file> line <n>: <what>" with a typed reason (kind
// bad_input) carrying the Chinese text `what_zh`.
Status bad_input(const std::string& file, size_t line, const std::string& what, const std::string& what_zh);

}  // namespace bioagent
