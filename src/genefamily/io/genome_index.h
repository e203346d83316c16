// The genome through htslib's faidx: the index is built in a folder of ours
// (the data folder may be read-only), sequence lengths come from it, and
// regions are fetched without reading the whole genome.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "bioagent/pipeline.h"

namespace bioagent {

class GenomeIndex {
 public:
  // Builds <index_dir>/genome.fai when missing. A gzip genome that is not
  // bgzip (htslib indexes only BGZF) is converted once, as it streams and
  // within the input limits, to the BGZF copy <index_dir>/genome.fasta.gz.
  static Result<std::unique_ptr<GenomeIndex>> open(const fs::path& fasta, const fs::path& index_dir);
  ~GenomeIndex();
  std::vector<std::pair<std::string, int64_t>> lengths() const;
  // The genome's name for a sequence name of another file: the same name, else
  // the only one with the same canonical_seqid ("Chr1" for "1"/"chr01"); "" when none.
  std::string resolve(const std::string& seqid) const;
  int64_t length(const std::string& seqid) const;  // -1 when absent (names resolved)
  // 1-based inclusive [start, end], clipped to the sequence; upper case (names resolved).
  Result<std::string> fetch(const std::string& seqid, int64_t start, int64_t end) const;

 private:
  GenomeIndex() = default;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace bioagent
