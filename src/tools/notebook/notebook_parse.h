// simdjson-level internals shared by the notebook reader's sequential parse
// (notebook.cpp) and its parallel parse in pieces (notebook_parts.cpp).
#pragma once

#include <simdjson.h>

#include <memory>
#include <string_view>

#include "tools/notebook/notebook_parts.h"

namespace bioagent::notebook {

namespace od = simdjson::ondemand;

// On-Demand skips a value nobody reads by counting brackets, so a broken one
// such as {"a": } would pass unnoticed. Every value the reader does not use
// goes through here instead: each token is checked, so the reader accepts only
// well-formed structure (which is what lets the parallel parse prove its cuts).
simdjson::error_code check_value(od::value v, int depth = 0);

// Notes nbformat and worksheets in `info`; checks the other root values.
simdjson::error_code note_root_field(std::string_view key, od::value value, RootInfo& info);

// True when the whole document was read (simdjson 3.0 has no document::at_end).
bool consumed(od::document& doc);

// One cell object's type, joined source and outputs' text.
simdjson::error_code read_cell(od::object cell, RawCell& out);

// An On-Demand parser lent from a pool kept between calls (its buffers stay
// allocated) to one thread at a time; it goes back when the handle ends.
class PooledParser {
 public:
  PooledParser();
  ~PooledParser();
  PooledParser(const PooledParser&) = delete;
  PooledParser& operator=(const PooledParser&) = delete;
  od::parser* operator->() { return parser_.get(); }

 private:
  std::unique_ptr<od::parser> parser_;
};

}  // namespace bioagent::notebook
