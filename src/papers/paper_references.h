// Reference lists of a paper, split into entries (see paper_references.cpp).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "papers/pdf_layout.h"

namespace bioagent {

// The reference list, line by line. A line opening with "[12]", "(12)" or
// "12." (the number may be a line of its own) starts an entry when its number
// is 1 or follows the last one (a volume "36." alone on a line does not); in a numbered
// list every other line continues the entry before it, across blocks and
// pages too (some PDFs set each line as a block of its own). In an unnumbered
// list an entry starts at each line of a block set with hanging indents that
// is not indented, else with each block.
class ReferenceList {
 public:
  struct Entry {
    std::string text, page_id;
    int page = 0;
  };
  // Entries open with a bare number ("3 A. Georges, ...") instead of "3." or "[3]".
  void use_bare_numbers() { bare_ = true; }
  // The lines of `b` from `from` on.
  void add_block(const PdfBlock& b, size_t from, const std::string& page_id, int page);
  // The list ends (a heading follows).
  void end() {
    flush();
    numbered_ = done_ = false;
  }
  std::vector<Entry>& entries() {
    flush();
    return out_;
  }

 private:
  void flush();
  std::string cur_, page_id_;
  int page_ = 0, last_ = 0;
  bool numbered_ = false, done_ = false, bare_ = false;
  std::vector<Entry> out_;
};

// A reference list set without a heading (APS, revtex): on the last four pages,
// the first block smaller than the body whose lines count 1, 2, 3 as bare
// numbers opens it; every later block in that font size continues it (the
// body-sized text beside it, such as acknowledgments, is passed over).
void add_unheaded_references(const PdfDoc& doc, int body, const std::function<std::string(int)>& page_id,
                             ReferenceList& refs);

}  // namespace bioagent
