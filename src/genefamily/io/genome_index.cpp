// GenomeIndex over htslib faidx (see genome_index.h).
#include "genefamily/io/genome_index.h"

#include <htslib/bgzf.h>
#include <htslib/faidx.h>
#include <zlib.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <vector>

#include "bioagent/seqio.h"
#include "genefamily/io/input_stream.h"

namespace bioagent {

namespace {

// A gzip file that is not BGZF, converted once to BGZF at `out` as it streams: the
// inflated bytes are checked against the input limits (genome_bytes, inflate_ratio)
// before they are written, and what is written is compressed again.
Status bgzip_to(const fs::path& in_path, const fs::path& out) {
  const std::string name = in_path.filename().string();
  auto in = seqio_detail::InputStream::open(in_path, name, default_input_limits(), "genome_bytes");
  if (!in) return in.status();
  const std::string part = out.string() + ".part";
  BGZF* o = bgzf_open(part.c_str(), "w1");
  if (!o) return Status(ErrorCode::kInternal, "cannot write the genome's compressed copy for " + name);
  std::vector<char> buf(size_t(1) << 20);
  long got = 0;
  bool written = true;
  while (written && (got = (*in)->read(buf.data(), buf.size())) > 0)
    written = bgzf_write(o, buf.data(), size_t(got)) == got;
  written = bgzf_close(o) == 0 && written;
  std::error_code ec;
  if (got < 0 || !written) {
    fs::remove(part, ec);
    return got < 0 ? (*in)->status()
                   : Status(ErrorCode::kResourceExhausted, "cannot write the genome's compressed copy for " + name +
                                                               " (disk full or the run's disk budget)");
  }
  fs::rename(part, out, ec);
  return ec ? Status(ErrorCode::kInternal, "cannot write the genome's compressed copy for " + name) : Status::ok();
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
  std::string fai_path = (index_dir / "genome.fai").string();
  std::string gzi_path = (index_dir / "genome.gzi").string();
  if (plain_gzip(fasta)) {
    fasta = index_dir / "genome.fasta.gz";
    if (!fs::exists(fasta, ec)) {
      fs::remove(fai_path, ec);  // an index of an earlier copy
      fs::remove(gzi_path, ec);
      BIOAGENT_RETURN_IF_ERROR(bgzip_to(fasta_in, fasta));
    }
  }
  if (!fs::exists(fai_path, ec) && fai_build3(fasta.c_str(), fai_path.c_str(), gzi_path.c_str()) != 0)
    return Status(ErrorCode::kParseError, "htslib could not index " + fasta_in.filename().string() +
                                              " (lines of one sequence must have equal lengths; is it FASTA?)");
  auto g = std::unique_ptr<GenomeIndex>(new GenomeIndex());
  g->impl_ = std::make_unique<Impl>();
  g->impl_->fai = fai_load3(fasta.c_str(), fai_path.c_str(), fs::exists(gzi_path, ec) ? gzi_path.c_str() : nullptr, 0);
  if (!g->impl_->fai)
    return Status(ErrorCode::kParseError, "htslib could not load the index of " + fasta_in.filename().string());
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
