// Read-only access to the parts of a zip archive (libzip), guarded against zip
// bombs: declared sizes, compression ratios and the bytes actually inflated are
// all bounded, and every error names the archive and the part.
#pragma once

#include <filesystem>
#include <memory>
#include <string>

#include "bioagent/status.h"
#include "bioagent/table.h"

struct zip;

namespace bioagent {

class ZipArchive {
 public:
  static Result<std::unique_ptr<ZipArchive>> open(const std::filesystem::path& path, const TableLimits& limits);
  // An archive held in memory (not copied: `bytes` must outlive the archive).
  static Result<std::unique_ptr<ZipArchive>> open_memory(std::string_view bytes, const std::string& label,
                                                         const TableLimits& limits);
  ~ZipArchive();
  ZipArchive(const ZipArchive&) = delete;
  ZipArchive& operator=(const ZipArchive&) = delete;

  bool has(const std::string& name) const;
  // The whole part, inflated; counts against the archive's total budget.
  Result<std::string> read(const std::string& name);
  const std::string& label() const { return label_; }

 private:
  ZipArchive() = default;
  Result<std::string> read_deflated(const std::string& name, uint64_t index, uint64_t comp_size, uint64_t size,
                                    uint32_t crc);
  zip* za_ = nullptr;
  std::string label_;
  TableLimits limits_;
  uint64_t inflated_ = 0;
};

}  // namespace bioagent
