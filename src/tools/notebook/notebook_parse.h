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

// On-Demand parsers kept between calls (their buffers stay allocated), lent
// to one thread at a time.
std::unique_ptr<od::parser> borrow_parser();
void return_parser(std::unique_ptr<od::parser> parser);

}  // namespace bioagent::notebook
