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

// A unit scored against a question: `source` is its passage's citation number, `rank` the order in
// which retrieval returned its page (0: the first), `matched` the question's word weight it holds.
struct ScoredUnit {
  double score = 0;
  std::string text;
  int source = 0;
  int rank = 0;
  double matched = 0;
};

// The units an answer quotes from `scored` (best first): the first `limit` with a positive score, each
// text once; and the best unit of the page retrieval ranked first (rank 0) always among them, after
// them when it is not (one more than `limit`). Retrieval weighed the whole page (its captions and table fields, the
// question's words across its chunks), which a unit's own words do not show: a table row holding the
// value asked for shares fewer of the question's words than the prose that mentions the table.
std::vector<const ScoredUnit*> quoted_units(const std::vector<ScoredUnit>& scored, size_t limit);

}  // namespace bioagent
