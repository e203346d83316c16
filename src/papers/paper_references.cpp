// Reference lists: entries by their counting markers ("12.", "[12]", "(12)",
// or APS's bare "12"), else by hanging indents (see paper_references.h).
#include "papers/paper_references.h"

#include <re2/re2.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "papers/paper_metadata.h"

namespace bioagent {

namespace {

const RE2 kReferenceStart(R"(^\s*(?:\[(\d{1,3})\]|\((\d{1,3})\)|(\d{1,3})\.)(?:\s|$))");
// APS style: a bare number, then the first author ("12 R. Burioni, ...").
const RE2 kBareReferenceStart(R"(^\s*(\d{1,3})\s+[A-Z])");

}  // namespace

void ReferenceList::add_block(const PdfBlock& b, size_t from, const std::string& page_id, int page) {
  std::vector<std::string> lines = split_lines(b.text);
  const bool boxes = b.lines.size() == lines.size();
  float left = 1e9f, right = -1e9f;
  for (size_t k = from; boxes && k < lines.size(); ++k) {
    left = std::min(left, b.lines[k].x0);
    right = std::max(right, b.lines[k].x0);
  }
  const bool hanging = boxes && right - left > 4;
  for (size_t k = from; k < lines.size(); ++k) {
    const std::string& line = lines[k];
    std::string n1, n2, n3;
    bool marker = bare_ ? RE2::PartialMatch(line, kBareReferenceStart, &n1)
                        : RE2::PartialMatch(line, kReferenceStart, &n1, &n2, &n3);
    if (marker) {
      int n = std::atoi((n1 + n2 + n3).c_str());
      marker = n == 1 || (numbered_ && n == last_ + 1);
      if (marker) last_ = n;
    }
    numbered_ |= marker;
    bool starts = marker || (!numbered_ && (hanging ? b.lines[k].x0 < left + 2 : k == from));
    if (starts) {
      flush();
      page_id_ = page_id;
      page_ = page;
    }
    if (done_) return;
    cur_ += (cur_.empty() ? "" : " ") + line;
    if (cur_.size() > 2000) {  // no reference is this long: the list has ended (an appendix, say)
      cur_.clear();
      done_ = true;
    }
  }
}

void ReferenceList::flush() {
  if (cur_.size() > 20) out_.push_back({cur_, page_id_, page_});
  cur_.clear();
}

namespace {

// How many lines of `b`, from its first, count 1, 2, 3, ... as bare reference numbers.
size_t bare_numbers_counted(const PdfBlock& b) {
  size_t next = 1;
  for (const std::string& line : split_lines(b.text)) {
    std::string n;
    if (RE2::PartialMatch(line, kBareReferenceStart, &n) && std::atoi(n.c_str()) == int(next))
      ++next;
    else if (next == 1)
      return 0;  // the list opens the block
  }
  return next - 1;
}

}  // namespace

void add_unheaded_references(const PdfDoc& doc, int body, const std::function<std::string(int)>& page_id,
                             ReferenceList& refs) {
  float list_size = 0;
  refs.use_bare_numbers();
  const size_t first = doc.pages.size() > 4 ? doc.pages.size() - 4 : 0;
  for (size_t p = first; p < doc.pages.size(); ++p) {
    const PdfPage& page = doc.pages[p];
    for (const PdfBlock& b : page.blocks) {
      if (b.image || b.text.empty() || b.font_size > float(body) - 0.4f) continue;
      if (list_size == 0 && bare_numbers_counted(b) >= 3) list_size = b.font_size;
      if (list_size == 0 || std::fabs(b.font_size - list_size) > 0.3f) continue;
      refs.add_block(b, 0, page_id(page.number), page.number);
    }
  }
}

}  // namespace bioagent
