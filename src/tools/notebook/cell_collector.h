// The second half of the notebook reader: matching each cell against the search,
// truncating its texts and building its JSON. One collector per parsing thread.
#pragma once

#include <re2/re2.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "bioagent/notebook.h"

namespace bioagent {

// A cell's full texts, collected while parsing (before truncation and search).
// The views point into the parser's per-thread scratch buffers: valid until the
// next cell is read, so the collector copies only what it keeps (truncated).
struct RawCell {
  std::string_view type, source, output;
};

// Decides whether a cell matches the search: comma-separated terms matched
// case-insensitively (ASCII letters) by lower-casing the text once and using
// memmem-backed find; or a regex (RE2: linear time, no backreferences).
class Matcher {
 public:
  static Result<Matcher> make(const NotebookQuery& q);
  bool active() const { return re_ || !terms_.empty(); }
  bool matches(std::string_view text) const;

 private:
  std::shared_ptr<RE2> re_;
  std::vector<std::string> terms_;
};

// First `max` characters (code points, as Python counts) plus a marker that
// says how much was cut.
std::string truncate_chars(std::string_view s, size_t max);

// Builds the cells' JSON in order, numbering them from 0, and copies the
// matching ones aside.
class CellCollector {
 public:
  CellCollector(const Matcher& matcher, const NotebookQuery& q) : matcher_(matcher), q_(q) {}
  void push(const RawCell& cell);
  size_t size() const { return next_idx_; }
  // Moves the arrays out; the collector is spent.
  void finish(Json* cells, Json* matching);

 private:
  const Matcher& matcher_;
  const NotebookQuery& q_;
  Json cells_ = Json::array();
  Json matching_ = Json::array();
  size_t next_idx_ = 0;
};

}  // namespace bioagent
