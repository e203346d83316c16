// A paper's bibliographic data read from its layout and the PDF's own
// metadata: title and authors from the first page's front matter (the largest
// title-like lines, then the name lines under them), DOI, year and abstract
// from the text. The PDF's metadata fills in only what the page does not give:
// it is often a file name, a template's leftovers or the uploader's name.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "papers/pdf_layout.h"

namespace bioagent {

struct PaperMetadata {
  std::string title, abstract, doi;
  std::vector<std::string> authors, keywords;
  int64_t year = 0;  // 0: not found
};

PaperMetadata extract_metadata(const PdfDoc& doc);

// Lines of a page's text joined into one; ASCII lower case (shared with extraction).
std::string one_line(const std::string& s);
std::string lower(std::string s);
// Without the leading and trailing `chars`.
std::string trim(const std::string& s, const char* chars = " \t");
// "A, B and C; D & E" → {"A", "B", "C", "D", "E"} (name and keyword lists).
std::vector<std::string> split_list(const std::string& s);
// A block's text split at '\n' (one string per line, empty lines kept).
std::vector<std::string> split_lines(const std::string& text);

}  // namespace bioagent
