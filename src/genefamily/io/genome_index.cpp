// GenomeIndex over htslib faidx (see genome_index.h).
#include "genefamily/io/genome_index.h"

#include <htslib/bgzf.h>
#include <htslib/faidx.h>
#include <zlib.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>

#include "bioagent/seqio.h"

namespace bioagent {

namespace {

// A gzip file that is not BGZF, inflated to `out`.
Status inflate_to(const fs::path& in_path, const fs::path& out) {
  gzFile in = gzopen(in_path.c_str(), "rb");
  if (!in) return not_found("cannot read " + in_path.string());
  std::ofstream o(out.string() + ".part", std::ios::binary | std::ios::trunc);
  char buf[1 << 16];
  int got = 0;
  while ((got = gzread(in, buf, sizeof buf)) > 0) o.write(buf, got);
  gzclose(in);
  o.close();
  if (got < 0 || !o) return Status(ErrorCode::kParseError, in_path.string() + " is not readable gzip data");
  std::error_code ec;
  fs::rename(out.string() + ".part", out, ec);
  return ec ? Status(ErrorCode::kInternal, "cannot write " + out.string()) : Status::ok();
}

bool plain_gzip(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  unsigned char b[2] = {0, 0};
  in.read(reinterpret_cast<char*>(b), 2);
  if (!in || b[0] != 0x1f || b[1] != 0x8b) return false;
  BGZF* f = bgzf_open(p.c_str(), "r");
  if (!f) return true;
  const bool bgzf = f->is_compressed && bgzf_compression(f) == 2;  // 2: bgzf, 1: gzip
  bgzf_close(f);
  return !bgzf;
}

}  // namespace

struct GenomeIndex::Impl {
  faidx_t* fai = nullptr;
  std::map<std::string, std::string> canonical;  // canonical_seqid -> name ("" when several share it)
  ~Impl() {
    if (fai) fai_destroy(fai);
  }
};

GenomeIndex::~GenomeIndex() = default;

Result<std::unique_ptr<GenomeIndex>> GenomeIndex::open(const fs::path& fasta_in, const fs::path& index_dir) {
  std::error_code ec;
  fs::create_directories(index_dir, ec);
  fs::path fasta = fasta_in;
  if (plain_gzip(fasta)) {
    fasta = index_dir / "genome.fasta";
    if (!fs::exists(fasta, ec)) BIOAGENT_RETURN_IF_ERROR(inflate_to(fasta_in, fasta));
  }
  std::string fai_path = (index_dir / "genome.fai").string();
  std::string gzi_path = (index_dir / "genome.gzi").string();
  if (!fs::exists(fai_path, ec) && fai_build3(fasta.c_str(), fai_path.c_str(), gzi_path.c_str()) != 0)
    return Status(ErrorCode::kParseError, "htslib could not index " + fasta_in.string() +
                                              " (lines of one sequence must have equal lengths; is it FASTA?)");
  auto g = std::unique_ptr<GenomeIndex>(new GenomeIndex());
  g->impl_ = std::make_unique<Impl>();
  g->impl_->fai = fai_load3(fasta.c_str(), fai_path.c_str(), fs::exists(gzi_path, ec) ? gzi_path.c_str() : nullptr, 0);
  if (!g->impl_->fai) return Status(ErrorCode::kParseError, "htslib could not load the index of " + fasta.string());
  for (auto& [name, len] : g->lengths()) {
    auto [it, fresh] = g->impl_->canonical.emplace(canonical_seqid(name), name);
    if (!fresh) it->second.clear();
  }
  return g;
}

std::string GenomeIndex::resolve(const std::string& seqid) const {
  if (faidx_has_seq(impl_->fai, seqid.c_str())) return seqid;
  auto it = impl_->canonical.find(canonical_seqid(seqid));
  return it == impl_->canonical.end() ? "" : it->second;
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

int64_t GenomeIndex::length(const std::string& seqid_in) const {
  const std::string seqid = resolve(seqid_in);
  if (seqid.empty()) return -1;
  return faidx_seq_len(impl_->fai, seqid.c_str());
}

Result<std::string> GenomeIndex::fetch(const std::string& seqid_in, int64_t start, int64_t end) const {
  const std::string seqid = resolve(seqid_in);
  int64_t len = seqid.empty() ? -1 : length(seqid);
  if (len < 0) return not_found("the genome has no sequence '" + seqid_in + "'");
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
