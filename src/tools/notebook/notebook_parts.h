// Parsing one large notebook in pieces on several threads (notebook_parts.cpp
// says how the cuts are found and proven). No simdjson types here: tests use it.
#pragma once

#include <cstdint>
#include <optional>

#include "tools/notebook/cell_collector.h"

namespace bioagent::notebook {

// The root keys besides "cells" that decide whether the file can be read.
struct RootInfo {
  int64_t nbformat = 0;
  bool has_worksheets = false;
};

struct PartsResult {
  RootInfo info;
  size_t total_cells = 0;
  Json cells, matching;
};

// Parses a pretty-printed notebook as `parts` pieces cut at cell boundaries,
// on as many threads. Cutting writes a few brackets into `data` (writable,
// `capacity` bytes with simdjson's padding); they are restored before
// returning. Returns nothing when the file does not have the expected layout
// or any piece fails to parse: the caller then parses sequentially, which also
// words any error. Whatever it returns equals the sequential result.
std::optional<PartsResult> parse_in_parts(char* data, size_t size, size_t capacity, const Matcher& matcher,
                                          const NotebookQuery& q, unsigned parts);

}  // namespace bioagent::notebook
