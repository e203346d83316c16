// GenomeIndex over htslib faidx (see genome_index.h).
#include "genefamily/io/genome_index.h"

#include <htslib/faidx.h>

#include <algorithm>
#include <cstdlib>

namespace bioagent {

struct GenomeIndex::Impl {
  faidx_t* fai = nullptr;
  ~Impl() {
    if (fai) fai_destroy(fai);
  }
};

GenomeIndex::~GenomeIndex() = default;

Result<std::unique_ptr<GenomeIndex>> GenomeIndex::open(const fs::path& fasta, const fs::path& index_dir) {
  std::error_code ec;
  fs::create_directories(index_dir, ec);
  std::string fai_path = (index_dir / "genome.fai").string();
  if (!fs::exists(fai_path, ec) && fai_build3(fasta.c_str(), fai_path.c_str(), nullptr) != 0)
    return Status(ErrorCode::kParseError, "htslib could not index " + fasta.string() +
                                              " (lines of one sequence must have equal lengths; is it FASTA?)");
  auto g = std::unique_ptr<GenomeIndex>(new GenomeIndex());
  g->impl_ = std::make_unique<Impl>();
  g->impl_->fai = fai_load3(fasta.c_str(), fai_path.c_str(), nullptr, 0);
  if (!g->impl_->fai) return Status(ErrorCode::kParseError, "htslib could not load the index of " + fasta.string());
  return g;
}

std::vector<std::pair<std::string, int64_t>> GenomeIndex::lengths() const {
  std::vector<std::pair<std::string, int64_t>> out;
  int n = faidx_nseq(impl_->fai);
  for (int i = 0; i < n; ++i) {
    const char* name = faidx_iseq(impl_->fai, i);
    out.emplace_back(name, faidx_seq_len(impl_->fai, name));
  }
  return out;
}

int64_t GenomeIndex::length(const std::string& seqid) const {
  if (!faidx_has_seq(impl_->fai, seqid.c_str())) return -1;
  return faidx_seq_len(impl_->fai, seqid.c_str());
}

Result<std::string> GenomeIndex::fetch(const std::string& seqid, int64_t start, int64_t end) const {
  int64_t len = length(seqid);
  if (len < 0) return not_found("the genome has no sequence '" + seqid + "'");
  start = std::max<int64_t>(1, start);
  end = std::min(end, len);
  if (end < start) return std::string();
  hts_pos_t got = 0;
  char* s = faidx_fetch_seq64(impl_->fai, seqid.c_str(), start - 1, end - 1, &got);
  if (!s) return Status(ErrorCode::kInternal, "htslib could not read " + seqid);
  std::string out(s, size_t(got));
  std::free(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace bioagent
