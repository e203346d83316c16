// One dense collection: unit vectors in a FAISS flat inner-product index (exact
// search, so a filter never loses recall), keyed by entry-store document ids.
// Persisted as one file of (id, vector) records: adding papers appends their
// records (a library's file is never rewritten for one paper); removing rewrites
// it atomically (temporary, rename). A torn append from a killed run is a
// partial last record, ignored on load and cut off by the next save.
#pragma once

#include <functional>
#include <iosfwd>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "bioagent/status.h"

namespace faiss {
struct IndexFlatIP;
}

namespace bioagent {

class DenseIndex {
 public:
  // A missing file is an empty index of `dim`; a file of another dimension is an error.
  static Result<std::unique_ptr<DenseIndex>> load(const std::string& path, int dim);
  ~DenseIndex();

  void add(const std::vector<int64_t>& ids, const std::vector<std::vector<float>>& vectors);
  // Keeps only the ids in `keep` / drops the ids in `drop`.
  void retain(const std::set<int64_t>& keep) {
    remove_if([&](int64_t id) { return !keep.count(id); });
  }
  void drop(const std::set<int64_t>& drop) {
    remove_if([&](int64_t id) { return drop.count(id) > 0; });
  }
  Status save();
  size_t size() const { return ids_.size(); }

  // Top `k` by inner product among `allowed` ids (sorted ascending).
  std::vector<std::pair<int64_t, float>> search(const std::vector<float>& query, const std::vector<int64_t>& allowed,
                                                size_t k) const;

 private:
  DenseIndex() = default;
  void remove_if(const std::function<bool(int64_t)>& gone);
  std::string path_;
  int dim_ = 0;
  Status rewrite();
  void write_records(std::ostream& out, size_t from) const;  // (id, vector) records [from, size)
  std::vector<int64_t> ids_;                                 // position in the FAISS index -> document id
  std::unique_ptr<faiss::IndexFlatIP> index_;
  size_t saved_ = 0;      // records [0, saved_) are in the file as they are here
  bool rewrite_ = false;  // a removal (or an old-format file): the next save rewrites
};

}  // namespace bioagent
