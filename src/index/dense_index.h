// One dense collection: unit vectors in a FAISS flat inner-product index (exact
// search, so a filter never loses recall), keyed by entry-store document ids,
// persisted as one file replaced atomically (write to a temporary, rename).
#pragma once

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
  // Keeps only the ids for which keep(id) is true.
  void retain(const std::set<int64_t>& keep);
  Status save() const;
  size_t size() const { return ids_.size(); }

  // Top `k` by inner product among `allowed` ids (sorted ascending).
  std::vector<std::pair<int64_t, float>> search(const std::vector<float>& query, const std::vector<int64_t>& allowed,
                                                size_t k) const;

 private:
  DenseIndex() = default;
  std::string path_;
  int dim_ = 0;
  std::vector<int64_t> ids_;  // position in the FAISS index -> document id
  std::unique_ptr<faiss::IndexFlatIP> index_;
};

}  // namespace bioagent
