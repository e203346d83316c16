// DenseIndex over faiss::IndexFlatIP (see dense_index.h). File layout (little
// endian): "BADENSE2", int32 dim, 4 bytes zero, then records of int64 id and
// dim float32. "BADENSE1" (int32 dim, int64 n, n ids, n*dim floats) is still
// read and rewritten in the new layout at the next save.
#include "index/dense_index.h"

#include <faiss/IndexFlat.h>
#include <faiss/impl/IDSelector.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>

namespace bioagent {
namespace {

constexpr char kMagicV1[8] = {'B', 'A', 'D', 'E', 'N', 'S', 'E', '1'};
constexpr char kMagic[8] = {'B', 'A', 'D', 'E', 'N', 'S', 'E', '2'};
constexpr std::streamoff kHeader = 16;

// Positions whose document id is in a sorted allowed list.
struct AllowedPositions : faiss::IDSelector {
  std::vector<char> mask;
  bool is_member(idx_t pos) const override { return pos >= 0 && size_t(pos) < mask.size() && mask[size_t(pos)]; }
};

}  // namespace

DenseIndex::~DenseIndex() = default;

Result<std::unique_ptr<DenseIndex>> DenseIndex::load(const std::string& path, int dim) {
  auto d = std::unique_ptr<DenseIndex>(new DenseIndex());
  d->path_ = path;
  d->dim_ = dim;
  d->index_ = std::make_unique<faiss::IndexFlatIP>(dim);
  std::ifstream in(path, std::ios::binary);
  if (!in) return d;  // nothing indexed yet
  char magic[8];
  int32_t file_dim = 0;
  in.read(magic, 8);
  in.read(reinterpret_cast<char*>(&file_dim), sizeof file_dim);
  const bool v1 = std::equal(magic, magic + 8, kMagicV1);
  if (!in || (!v1 && !std::equal(magic, magic + 8, kMagic)))
    return parse_error("dense index " + path + " is damaged (bad header); remove it and add the papers again");
  if (file_dim != dim)
    return invalid_argument("dense index " + path + " holds vectors of dimension " + std::to_string(file_dim) +
                            ", the embedder gives " + std::to_string(dim));
  const auto size = std::streamoff(std::filesystem::file_size(path));
  std::vector<float> x;
  if (v1) {
    int64_t n = 0;
    in.read(reinterpret_cast<char*>(&n), sizeof n);
    if (!in || n < 0 || size != std::streamoff(20 + n * 8 + n * int64_t(dim) * 4))
      return parse_error("dense index " + path + " is damaged (wrong size); remove it and add the papers again");
    d->ids_.resize(size_t(n));
    in.read(reinterpret_cast<char*>(d->ids_.data()), std::streamsize(n * 8));
    x.resize(size_t(n) * size_t(dim));
    in.read(reinterpret_cast<char*>(x.data()), std::streamsize(x.size() * 4));
    d->rewrite_ = true;
  } else {
    if (size < kHeader)
      return parse_error("dense index " + path + " is damaged (truncated header); remove it and add the papers again");
    const std::streamoff record = 8 + std::streamoff(dim) * 4;
    const size_t n = size_t((size - kHeader) / record);  // a partial last record (torn append) is ignored
    in.seekg(kHeader);
    d->ids_.resize(n);
    x.resize(n * size_t(dim));
    for (size_t i = 0; i < n && in; ++i) {
      in.read(reinterpret_cast<char*>(&d->ids_[i]), 8);
      in.read(reinterpret_cast<char*>(x.data() + i * size_t(dim)), std::streamsize(dim) * 4);
    }
  }
  if (!in) return parse_error("dense index " + path + " could not be read completely");
  d->index_->add(faiss::Index::idx_t(d->ids_.size()), x.data());
  d->saved_ = d->ids_.size();
  return d;
}

void DenseIndex::add(const std::vector<int64_t>& ids, const std::vector<std::vector<float>>& vectors) {
  std::vector<float> x;
  x.reserve(vectors.size() * size_t(dim_));
  for (size_t i = 0; i < ids.size(); ++i) {
    if (ids[i] <= 0) continue;
    x.insert(x.end(), vectors[i].begin(), vectors[i].end());
    ids_.push_back(ids[i]);
  }
  if (!x.empty()) index_->add(faiss::Index::idx_t(x.size() / size_t(dim_)), x.data());
}

void DenseIndex::remove_if(const std::function<bool(int64_t)>& gone) {
  std::vector<int64_t> kept;
  std::vector<faiss::Index::idx_t> drop;
  for (size_t pos = 0; pos < ids_.size(); ++pos) {
    if (gone(ids_[pos]))
      drop.push_back(faiss::Index::idx_t(pos));
    else
      kept.push_back(ids_[pos]);
  }
  if (drop.empty()) return;
  faiss::IDSelectorBatch sel(drop.size(), drop.data());
  index_->remove_ids(sel);  // compacts in order, as `kept` does
  ids_ = std::move(kept);
  rewrite_ = true;
}

void DenseIndex::write_records(std::ostream& out, size_t from) const {
  const float* x = index_->get_xb();
  for (size_t i = from; i < ids_.size(); ++i) {
    out.write(reinterpret_cast<const char*>(&ids_[i]), 8);
    out.write(reinterpret_cast<const char*>(x + i * size_t(dim_)), std::streamsize(dim_) * 4);
  }
}

Status DenseIndex::save() {
  std::error_code ec;
  const std::streamoff record = 8 + std::streamoff(dim_) * 4;
  if (rewrite_ || !std::filesystem::exists(path_, ec)) return rewrite();
  if (saved_ == ids_.size()) return Status::ok();
  {
    // Cut a torn record a killed run may have left, then append the new ones.
    std::filesystem::resize_file(path_, uintmax_t(kHeader + std::streamoff(saved_) * record), ec);
    if (ec) return Status(ErrorCode::kInternal, "cannot extend dense index " + path_ + ": " + ec.message());
    std::ofstream out(path_, std::ios::binary | std::ios::app);
    write_records(out, saved_);
    out.flush();
    if (!out) return Status(ErrorCode::kInternal, "cannot append to dense index " + path_);
  }
  saved_ = ids_.size();
  return Status::ok();
}

Status DenseIndex::rewrite() {
  std::string tmp = path_ + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    int32_t dim = dim_, pad = 0;
    out.write(kMagic, 8);
    out.write(reinterpret_cast<const char*>(&dim), sizeof dim);
    out.write(reinterpret_cast<const char*>(&pad), sizeof pad);
    write_records(out, 0);
    out.flush();
    if (!out) return Status(ErrorCode::kInternal, "cannot write dense index " + tmp);
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path_, ec);
  if (ec) return Status(ErrorCode::kInternal, "cannot replace dense index " + path_ + ": " + ec.message());
  saved_ = ids_.size();
  rewrite_ = false;
  return Status::ok();
}

std::vector<std::pair<int64_t, float>> DenseIndex::search(const std::vector<float>& query,
                                                          const std::vector<int64_t>& allowed, size_t k) const {
  std::vector<std::pair<int64_t, float>> out;
  if (ids_.empty() || allowed.empty() || k == 0) return out;
  AllowedPositions sel;
  sel.mask.resize(ids_.size());
  for (size_t pos = 0; pos < ids_.size(); ++pos)
    sel.mask[pos] = std::binary_search(allowed.begin(), allowed.end(), ids_[pos]);
  k = std::min(k, allowed.size());
  std::vector<float> dist(k);
  std::vector<faiss::Index::idx_t> labels(k);
  faiss::SearchParameters params;
  params.sel = &sel;  // restricts before ranking
  index_->search(1, query.data(), faiss::Index::idx_t(k), dist.data(), labels.data(), &params);
  for (size_t i = 0; i < k; ++i)
    if (labels[i] >= 0) out.emplace_back(ids_[size_t(labels[i])], dist[i]);
  return out;
}

}  // namespace bioagent
