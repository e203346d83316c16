// The fuzz targets' one scratch file: the input written where the file readers
// can open it (a per-process name, rewritten for each input).
#pragma once

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

inline std::filesystem::path fuzz_input_file(const uint8_t* data, size_t size, const std::string& suffix) {
  const auto p = std::filesystem::temp_directory_path() / ("bioagent-fuzz-" + std::to_string(::getpid()) + suffix);
  std::ofstream(p, std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<const char*>(data), std::streamsize(size));
  return p;
}

// Limits small enough that an input of a few KiB reaches each of them.
#include "bioagent/input_limits.h"
inline bioagent::InputLimits fuzz_small_limits() {
  bioagent::InputLimits l;
  l.line_bytes = 512;
  l.id_bytes = 64;
  l.attributes = 16;
  l.parents = 8;
  l.features = 200;
  l.records = 100;
  l.sequence_bytes = 2000;
  l.genome_sequence_bytes = 4000;
  l.file_bytes = l.genome_bytes = 1 << 20;
  l.inflate_ratio = 50;
  l.inflate_ratio_after_bytes = 4096;
  return l;
}
