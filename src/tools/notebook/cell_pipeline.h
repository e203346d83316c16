// The second half of the notebook reader: matching each cell against the search,
// truncating its texts and building its JSON, either inline or on a helper
// thread that works while the parser produces the next cells.
#pragma once

#include <re2/re2.h>

#include <condition_variable>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "bioagent/notebook.h"

namespace bioagent {

// A cell's full text, collected while parsing (before truncation and search).
struct RawCell {
  std::string type, source, output;
  bool matched = false;
};

// Decides whether a cell matches the search: comma-separated terms matched
// case-insensitively (ASCII letters) by lower-casing the text once and using
// memmem-backed find; or a regex (RE2: linear time, no backreferences).
class Matcher {
 public:
  static Result<Matcher> make(const NotebookQuery& q);
  bool active() const { return re_ || !terms_.empty(); }
  bool matches(const std::string& text) const;

 private:
  std::shared_ptr<RE2> re_;
  std::vector<std::string> terms_;
};

// First `max` characters (code points, as Python counts) plus a marker that
// says how much was cut.
std::string truncate_chars(std::string&& s, size_t max);

class CellPipeline {
 public:
  CellPipeline(const Matcher& matcher, const NotebookQuery& q, bool threaded);
  ~CellPipeline();  // stops and joins the helper (also when parsing failed)
  CellPipeline(const CellPipeline&) = delete;
  CellPipeline& operator=(const CellPipeline&) = delete;

  // Matches the cell here (the parsing thread) and queues the rest of the work.
  void push(RawCell&& cell);
  // All cells in order, and copies of the matching ones. Rethrows a failure of
  // the helper thread (bad_alloc) for the registry to report.
  void finish(Json* cells, Json* matching);

 private:
  void build(RawCell&& r, size_t idx);
  void work();

  const Matcher& matcher_;
  const NotebookQuery& q_;
  Json cells_ = Json::array();
  Json matching_ = Json::array();
  size_t next_idx_ = 0;
  // Threaded mode: batches handed from the parser to the helper.
  std::vector<RawCell> batch_;
  std::deque<std::vector<RawCell>> queue_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool done_ = false;
  std::exception_ptr failure_;
  std::thread helper_;
};

}  // namespace bioagent
