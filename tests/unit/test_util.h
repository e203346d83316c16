// Helpers shared by the unit tests.
#pragma once

#include <filesystem>
#include <fstream>
#include <random>
#include <string>

namespace bioagent::testing {

// A fresh temporary directory, removed when the object goes out of scope.
class TempDir {
 public:
  TempDir() {
    std::random_device rd;
    path_ = std::filesystem::temp_directory_path() / ("bioagent-test-" + std::to_string(rd()) + std::to_string(rd()));
    std::filesystem::create_directories(path_);
    path_ = std::filesystem::canonical(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path write(const std::string& rel, const std::string& content) const {
    auto p = path_ / rel;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << content;
    return p;
  }

 private:
  std::filesystem::path path_;
};

inline std::string source_dir() { return BIOAGENT_SOURCE_DIR; }
inline std::filesystem::path fixtures_dir() { return BIOAGENT_FIXTURES_DIR; }

}  // namespace bioagent::testing
