// The units an extractive (model-free) answer quotes from a page's text: prose sentences,
// a table's rows read with their header, and captions whole.
#pragma once

#include <string>
#include <vector>

namespace bioagent {

struct AnswerUnit {
  std::string text;
  bool table_row = false;  // "caption — header: cells" (see answer_units)
};

// Sentences, with runs of spaces as one (PDF text spaces words out: "Bacillus  cereus");
// with by_line, a line break (not inside a hyphenated word) ends one too, so
// lines that are no part of a sentence (a title, an author list, an
// affiliation) stand alone.
std::vector<std::string> sentences(const std::string& text, bool by_line = false);

// A page's text as answer units. A table is recognised by its layout, not by words: the text
// extractor writes a table cell per line and a row per block (blocks are separated by blank
// lines), so a run of blocks of short lines, most holding a number, is a table; the block of
// short lines before its first numeric row is its header. Each row becomes one unit,
// "<caption> — <header cells>: <row cells>", cells joined by " | ", so a value is quoted with
// what it measures. A table the library stored a row per line, cells joined by " | ", is read
// the same way, with the group label above its rows. Everything else is split into sentences.
// Numbers keep their printed form; only a space the extractor put before a decimal point
// ("10 .3") is taken out.
std::vector<AnswerUnit> answer_units(const std::string& page_text);

}  // namespace bioagent
