// Answer units of a page's text: sentences, table rows with their header, captions (see answer_units.h).
#include "agents/answer_units.h"

#include <re2/re2.h>
#include <algorithm>
#include <cctype>
#include <functional>
#include <set>
#include <string_view>

namespace bioagent {
namespace {

constexpr size_t kCellChars = 45;      // a table cell's line is at most this long (prose lines are longer)
constexpr size_t kWholeCaption = 400;  // a caption up to this long is one unit

std::string collapse_spaces(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '\t' || c == '\r') c = ' ';
    if (c == ' ' && (out.empty() || out.back() == ' ')) continue;
    out += c;
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

// Lines of text, blank lines separating blocks.
std::vector<std::vector<std::string>> blocks_of(const std::string& text) {
  std::vector<std::vector<std::string>> out(1);
  size_t from = 0;
  while (from <= text.size()) {
    size_t to = text.find('\n', from);
    if (to == std::string::npos) to = text.size();
    std::string line = collapse_spaces(std::string_view(text).substr(from, to - from));
    if (line.empty()) {
      if (!out.back().empty()) out.emplace_back();
    } else {
      out.back().push_back(line);
    }
    from = to + 1;
  }
  if (out.back().empty()) out.pop_back();
  return out;
}

// The number a cell (or a line) holds as a value: digits standing alone, not inside a name (SPL9, 5FdUTP).
bool holds_value(const std::string& s) {
  static const RE2 kValue(R"((?:^|[\s(=<>±~∼])[-−+]?[0-9]+(?:[ ]?[.,][0-9]+)*(?:$|[\s%)×±,;]))");
  return RE2::PartialMatch(s, kValue);
}

bool short_lines(const std::vector<std::string>& block) {
  return block.size() >= 2 &&
         std::all_of(block.begin(), block.end(), [](const std::string& l) { return l.size() <= kCellChars; });
}

// A table row: short lines (cells), at least half holding a value.
bool row_block(const std::vector<std::string>& block) {
  if (!short_lines(block)) return false;
  const auto values = std::count_if(block.begin(), block.end(), holds_value);
  return values * 2 >= static_cast<long>(block.size());
}

bool caption_line(const std::string& line) {
  static const RE2 kCaption(R"((?i)^(?:supplementary |extended data )?(?:table|fig(?:ure)?\.?|图|表)\s*[SA-Z]?\d+)");
  return RE2::PartialMatch(line, kCaption);
}

// "10 .3" as printed is "10.3": the extractor's space before a decimal point goes.
std::string printed_number_form(std::string s) {
  static const RE2 kSpacedPoint(R"(([0-9]) \.([0-9]))");
  RE2::GlobalReplace(&s, kSpacedPoint, R"(\1.\2)");
  return s;
}

std::string cells(const std::vector<std::string>& block) {
  std::string out;
  for (auto& c : block) out += (out.empty() ? "" : " | ") + c;
  return out;
}

std::string joined_lines(const std::vector<std::string>& block) {
  std::string out;
  for (auto& l : block) {
    if (!out.empty() && out.back() == '-')
      out.pop_back();  // a word broken across lines
    else if (!out.empty())
      out += ' ';
    out += l;
  }
  return out;
}

// A line of a table printed a row per line ("SMN complex GO:0032797 1.12E-16 8 9 6"): two values
// or more, at least half as many values as words (a line-numbered preprint's prose has one number
// among many words), and no sentence ending in it.
bool row_line(const std::string& line) {
  static const RE2 kValue(R"([(]?[-−+]?[0-9]+(?:[.,][0-9]+)*(?:[eE][-−+]?[0-9]+)?%?[),;]?)");
  if (line.size() > 200 || line.find(". ") != std::string::npos) return false;
  int values = 0, words = 0;
  for (size_t from = 0; from < line.size();) {
    const size_t to = std::min(line.find(' ', from), line.size());
    const std::string token = line.substr(from, to - from);
    if (RE2::FullMatch(token, kValue))
      ++values;
    else if (!token.empty() && std::isalpha(static_cast<unsigned char>(token[0])))
      ++words;
    from = to + 1;
  }
  return values >= 2 && values * 2 >= words;
}

// A block holding a table a row per line: three rows or more, and most of its lines. Each row
// becomes a unit with the caption (the block's first lines, else the caption block right above)
// and the header (the line right before the first row, when it is no caption); the lines after
// the rows go on as prose.
bool add_line_rows(const std::vector<std::string>& block, const std::string& caption_before, std::string& prose,
                   std::vector<AnswerUnit>& out, const std::function<void()>& flush_prose) {
  const auto rows = std::count_if(block.begin(), block.end(), row_line);
  if (rows < 3 || rows * 2 < static_cast<long>(block.size())) return false;
  flush_prose();
  size_t first = 0;
  while (!row_line(block[first])) ++first;
  // Before the first row: the caption, and the header right above the rows unless it is the caption.
  std::string caption, header = first > 0 ? block[first - 1] : "";
  for (size_t k = 0; k + 1 < first; ++k) caption += (caption.empty() ? "" : " ") + block[k];
  if (caption_line(header)) caption += (caption.empty() ? "" : " ") + header, header.clear();
  if (caption.empty()) caption = caption_before;  // a caption block of its own, right above
  size_t k = first;
  for (; k < block.size() && row_line(block[k]); ++k) {
    std::string row = caption.empty() ? "" : caption + " — ";
    row += header.empty() ? block[k] : header + ": " + block[k];
    out.push_back({printed_number_form(row), true});
  }
  for (; k < block.size(); ++k) prose += (prose.empty() ? "" : "\n") + block[k];
  return true;
}

// A row the library stored as one line of cells ("Sequencing data for MPRA | This paper | SRA: PRJNA999706").
bool cell_row(const std::vector<std::string>& block) {
  return block.size() == 1 && block[0].find(" | ") != std::string::npos;
}

// A short line between a table's rows (at most two lines): a group label ("Deposited Data").
bool label_block(const std::vector<std::vector<std::string>>& blocks, size_t i) {
  return !cell_row(blocks[i]) && blocks[i].size() <= 2 && joined_lines(blocks[i]).size() <= 80 &&
         i + 1 < blocks.size() && cell_row(blocks[i + 1]);
}

// A table stored a row per line of cells, from blocks[i]: every row becomes a unit led by what reads
// it — the table's caption (or the short line right above the rows), its header (a first row without
// digits) and the group label. A table whose rows have labels between them and no header has its
// first label right above its rows, and its title above that. Returns the index of the first block
// after the table.
size_t add_cell_rows(const std::vector<std::vector<std::string>>& blocks, size_t i, const std::string& caption,
                     std::vector<AnswerUnit>& out) {
  const std::string& first = blocks[i][0];
  std::string header = first.find_first_of("0123456789") == std::string::npos ? first : "";
  std::string title = caption, label;
  // A short line with a letter: a bare page number above the rows titles nothing.
  auto short_line = [&](size_t k) {
    const std::string& l = blocks[k][0];
    return blocks[k].size() == 1 && l.size() <= 100 &&
           std::any_of(l.begin(), l.end(), [](unsigned char c) { return std::isalpha(c); });
  };
  bool labelled = false;
  for (size_t k = i + 1; k < blocks.size() && (cell_row(blocks[k]) || label_block(blocks, k)); ++k)
    labelled |= label_block(blocks, k);
  if (header.empty() && labelled && i > 0 && short_line(i - 1) && !caption_line(blocks[i - 1][0])) {
    label = blocks[i - 1][0];
    if (title.empty() && i > 1 && short_line(i - 2)) title = blocks[i - 2][0];
  } else if (title.empty() && i > 0 && short_line(i - 1)) {
    title = blocks[i - 1][0];
  }
  for (; i < blocks.size(); ++i) {
    const auto& b = blocks[i];
    if (!cell_row(b)) {
      if (!label_block(blocks, i)) break;
      label = joined_lines(b);
      continue;
    }
    if (b[0] == header) continue;
    std::string context;
    for (const std::string* part : {&title, &header, &label})
      if (!part->empty()) context += (context.empty() ? "" : " — ") + *part;
    out.push_back({printed_number_form(context.empty() ? b[0] : context + ": " + b[0]), true});
  }
  return i;
}

// A caption block: whole when short, else its sentences, each after the label, so every
// unit still says which figure or table it describes.
void add_caption(const std::vector<std::string>& block, std::vector<AnswerUnit>& out) {
  const std::string text = joined_lines(block);
  if (text.size() <= kWholeCaption) {
    out.push_back({printed_number_form(text)});
    return;
  }
  const auto parts = sentences(text);
  const std::string label = parts.empty() ? "" : parts.front().substr(0, parts.front().find(' ', 6));
  for (size_t i = 0; i < parts.size(); ++i)
    out.push_back({printed_number_form(i == 0 ? parts[i] : "(" + label + ") " + parts[i])});
}

// Whether the '.' at text[i] ends a word that is no sentence's end: an abbreviation papers print
// before more of the same sentence ("Fig. 2", "Dr. Sharp", "et al. 2019", "e.g. roots"), or a
// single capital (an initial: "C. elegans", "P. A. Smith").
bool abbreviation_point(const std::string& text, size_t i) {
  size_t from = i;
  while (from > 0 && std::isalpha(static_cast<unsigned char>(text[from - 1]))) --from;
  const std::string word = text.substr(from, i - from);
  if (word.size() == 1 && std::isupper(static_cast<unsigned char>(word[0]))) return true;
  if (word.size() == 1 && from >= 2 && text[from - 1] == '.') return true;  // "e.g.", "i.e."
  static const std::set<std::string> kAbbreviations = {
      "Fig",  "Figs", "fig",   "figs", "Dr",  "Drs",  "Prof", "Mr",  "Mrs",   "Ms",   "al",  "vs",  "cf",  "approx",
      "ca",   "No",   "Nos",   "Vol",  "Ref", "Refs", "Eq",   "Eqs", "Suppl", "Sect", "Tab", "Inc", "Ltd", "Corp",
      "resp", "var",  "subsp", "sp",   "spp", "cv",   "Co",   "St",  "Dept",  "Univ", "Ext", "Supp"};
  return kAbbreviations.contains(word);
}

}  // namespace

std::vector<std::string> sentences(const std::string& text, bool by_line) {
  std::vector<std::string> out;
  std::string cur;
  auto push = [&] {
    size_t a = cur.find_first_not_of(' ');
    if (a != std::string::npos && cur.size() - a >= 25) out.push_back(cur.substr(a));
    cur.clear();
  };
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n' && by_line) {
      if (!cur.empty() && cur.back() == '-') continue;  // a word broken across lines
      push();
      continue;
    }
    char c = text[i] == '\n' || text[i] == '\t' || text[i] == '\r' ? ' ' : text[i];
    if (c == ' ' && !cur.empty() && cur.back() == ' ') continue;
    cur += c;
    bool end =
        (c == '.' || c == '?' || c == '!') && (i + 1 == text.size() || text[i + 1] == ' ' || text[i + 1] == '\n');
    if (end && c == '.' && i + 1 < text.size() && abbreviation_point(text, i)) end = false;
    if (end || i + 1 == text.size()) push();
  }
  push();
  return out;
}

std::vector<AnswerUnit> answer_units(const std::string& page_text) {
  std::vector<AnswerUnit> out;
  const auto blocks = blocks_of(page_text);
  std::string prose, caption;
  auto flush_prose = [&] {
    for (auto& s : sentences(prose)) out.push_back({printed_number_form(s)});
    prose.clear();
  };
  for (size_t i = 0; i < blocks.size(); ++i) {
    const auto& b = blocks[i];
    if (add_line_rows(b, caption, prose, out, flush_prose)) {
      caption.clear();  // the next table has its own
      continue;
    }
    if (cell_row(b)) {
      flush_prose();
      i = add_cell_rows(blocks, i, caption, out) - 1;  // the block that ended the table is read by the loop
      caption.clear();
      continue;
    }
    if (caption_line(b.front())) {
      flush_prose();
      caption = joined_lines(b).substr(0, 160);
      add_caption(b, out);
      continue;
    }
    if (!row_block(b)) {
      // A header: short non-numeric lines right before a row. It is kept for the rows, not quoted alone.
      if (short_lines(b) && i + 1 < blocks.size() && row_block(blocks[i + 1])) continue;
      prose += (prose.empty() ? "" : "\n") + joined_lines(b);
      continue;
    }
    flush_prose();
    const bool headed = i > 0 && short_lines(blocks[i - 1]) && !row_block(blocks[i - 1]);
    const std::string header = headed ? cells(blocks[i - 1]) : "";
    for (; i < blocks.size() && row_block(blocks[i]); ++i) {
      std::string row = caption.empty() ? "" : caption + " — ";
      row += header.empty() ? cells(blocks[i]) : header + ": " + cells(blocks[i]);
      out.push_back({printed_number_form(row), true});
    }
    --i;              // the block that ended the table is read by the loop
    caption.clear();  // the next table has its own
  }
  flush_prose();
  return out;
}

std::vector<const ScoredUnit*> quoted_units(const std::vector<ScoredUnit>& scored, size_t limit) {
  std::vector<const ScoredUnit*> chosen;
  std::set<std::string> seen;
  for (const ScoredUnit& sc : scored) {
    if (sc.score <= 0 || chosen.size() >= limit) break;
    if (seen.insert(sc.text).second) chosen.push_back(&sc);
  }
  // Units placed above the scoring (a score of 1e5 or more: the front matter asked for) are not the page's best.
  auto first_page_best = std::find_if(scored.begin(), scored.end(), [](const ScoredUnit& sc) {
    return sc.rank == 0 && sc.score > 0 && sc.score < 1e5;
  });
  if (limit > 0 && first_page_best != scored.end() && !seen.count(first_page_best->text))
    chosen.push_back(&*first_page_best);
  return chosen;
}

}  // namespace bioagent
