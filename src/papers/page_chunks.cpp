#include "papers/page_chunks.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include <re2/re2.h>

#include "bioagent/json_text.h"
#include "papers/paper_metadata.h"

namespace bioagent {
namespace {

constexpr size_t kProseChunk = 1000;  // characters of paragraphs per chunk
constexpr size_t kRowChunk = 400;     // characters of table rows per chunk (besides the context)
constexpr size_t kMinRows = 3;        // fewer rows side by side are not taken for a table
constexpr size_t kTitleChars = 150;

// Vertical ranges that overlap by more than half the smaller one: side by side, when apart horizontally.
bool same_height(float a0, float a1, float b0, float b1) {
  const float overlap = std::min(a1, b1) - std::max(a0, b0);
  return overlap > 0 && overlap > 0.5f * std::min(a1 - a0, b1 - b0);
}

// A block's lines grouped into cells: lines whose horizontal ranges overlap are one cell (a cell that
// wraps), cells ordered left to right and their lines top to bottom. Line numbers in the page's side
// margins (preprints number every line) and list markers are not cells.
struct Cell {
  float x0, x1, y0, y1;
  std::vector<size_t> lines;
};
bool line_number(const PdfPage& page, const Cell& c, const std::vector<std::string>& text) {
  if (c.x1 > page.width * 0.15f && c.x0 < page.width * 0.85f) return false;
  for (size_t i : c.lines)
    if (i >= text.size() || text[i].find_first_not_of(" 0123456789") != std::string::npos) return false;
  return true;
}
// A bullet or a list number beside its item ("•", "–", "1.", "(a)") marks a list, not a column.
bool list_marker(const Cell& c, const std::vector<std::string>& text) {
  static const RE2 kMarker(R"(\s*(?:[•·▪●○■◦*–—-]|\(?[0-9a-zA-Z]{1,2}[.)])\s*)");
  return c.lines.size() == 1 && c.lines[0] < text.size() && RE2::FullMatch(text[c.lines[0]], kMarker);
}

std::vector<Cell> block_cells(const PdfPage& page, const PdfBlock& b) {
  std::vector<size_t> order(b.lines.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t i, size_t j) { return b.lines[i].x0 < b.lines[j].x0; });
  std::vector<Cell> cells;
  for (size_t i : order) {
    const PdfLine& l = b.lines[i];
    if (cells.empty() || l.x0 >= cells.back().x1 - 1) {
      cells.push_back({l.x0, l.x1, l.y0, l.y1, {i}});
      continue;
    }
    Cell& c = cells.back();
    c.x1 = std::max(c.x1, l.x1), c.y0 = std::min(c.y0, l.y0), c.y1 = std::max(c.y1, l.y1);
    c.lines.push_back(i);
  }
  const std::vector<std::string> text = split_lines(b.text);
  std::erase_if(cells, [&](const Cell& c) { return line_number(page, c, text) || list_marker(c, text); });
  for (Cell& c : cells)
    std::sort(c.lines.begin(), c.lines.end(), [&](size_t i, size_t j) { return b.lines[i].y0 < b.lines[j].y0; });
  return cells;
}

// A row: at least two cells, each beside the next.
bool cells_side_by_side(const std::vector<Cell>& cells) {
  if (cells.size() < 2) return false;
  for (size_t i = 0; i + 1 < cells.size(); ++i)
    if (!same_height(cells[i].y0, cells[i].y1, cells[i + 1].y0, cells[i + 1].y1)) return false;
  return true;
}

// Running heads, page numbers, footers and watermarks: text in the page's margins (at most two lines
// tall at the top or bottom).
bool in_margin(const PdfPage& page, const PdfBlock& b) {
  const bool short_band = b.y1 - b.y0 <= 3 * std::max(b.font_size, 1.0f);
  return ((b.y1 < page.height * 0.07f || b.y0 > page.height * 0.89f) && short_band) || b.x1 < page.width * 0.08f ||
         b.x0 > page.width * 0.92f;
}

// A caption's label set beside its text ("Table 1. | Reagents and tools") is no row.
bool caption_start(const std::string& text) {
  static const RE2 kLabel(R"((?i)^\s*(?:supplementary |extended data )?(?:table|fig(?:ure)?\.?)\s*S?[0-9IVX]+\b)");
  return RE2::PartialMatch(text, kLabel);
}

bool all_bold(const PdfBlock& b) {
  return !b.lines.empty() && std::all_of(b.lines.begin(), b.lines.end(), [](const PdfLine& l) { return l.bold; });
}

// Blocks side by side at the same height are cells of one row only when they are short:
// the paragraphs of two columns can start at the same height too.
bool cell_sized(const PdfBlock& b) { return b.lines.size() <= 6 && b.text.size() <= 400; }

// One line of the page's reading: a block, or the blocks that start at the same height side by side
// (a row whose cells wrapped are several blocks).
struct Unit {
  std::string text;     // prose: the block's text on one line; a row: its cells joined by " | "
  std::string printed;  // prose: the block's text as printed (its lines); a row: as `text`
  bool row = false;
  bool margin = false;
  bool bold = false;  // every line is bold (a header row)
  size_t lines = 0;
};

std::vector<Unit> page_units(const PdfPage& page) {
  std::vector<Unit> units;
  const PdfBlock* last = nullptr;
  for (const PdfBlock& b : page.blocks) {
    if (b.image || b.text.find_first_not_of(" \t\n") == std::string::npos) continue;
    const bool margin = in_margin(page, b);
    if (last && !margin && !units.back().margin && cell_sized(b) && cell_sized(*last) &&
        same_height(b.y0, b.y1, last->y0, last->y1) && (b.x0 >= last->x1 - 1 || last->x0 >= b.x1 - 1)) {
      Unit& u = units.back();
      u.text += " | " + row_cells(page, b);
      u.printed = u.text;
      u.row = true;
      u.lines = std::max(u.lines, b.lines.size());
      u.bold = u.bold && all_bold(b);
    } else {
      const bool row = !margin && !caption_start(b.text) && cells_side_by_side(block_cells(page, b));
      const std::vector<std::string> rows = row ? block_rows(page, b) : std::vector<std::string>{};
      if (!row)
        units.push_back({one_line(b.text), b.text, false, margin, all_bold(b), b.lines.size()});
      else
        for (const std::string& cells : rows)
          units.push_back({cells, cells, true, false, all_bold(b), b.lines.size() / rows.size()});
      if (rows.size() > 1) {
        last = nullptr;  // rows stacked in one block: the next block is no cell of the last one
        continue;
      }
    }
    last = &b;
  }
  return units;
}

// A short line between rows: a group label ("Deposited Data") or a cell that wrapped.
bool short_line(const Unit& u) { return !u.row && !u.margin && u.lines <= 3 && u.text.size() <= 150; }

// The end (one past the last unit) of the table whose rows start at `from`, or `from` when the rows
// there are too few to be a table (a continued table needs one).
size_t table_end(const std::vector<Unit>& units, size_t from, size_t min_rows) {
  size_t rows = 0, end = from;
  for (size_t k = from; k < units.size(); ++k) {
    if (units[k].margin) continue;
    if (units[k].row) {
      ++rows;
      end = k + 1;
      continue;
    }
    // A short line continues the table only when a row follows it (margins aside).
    size_t next = k + 1;
    while (next < units.size() && units[next].margin) ++next;
    if (!short_line(units[k]) || next >= units.size() || !units[next].row) break;
  }
  return rows >= min_rows ? end : from;
}

class ChunkWriter {
 public:
  explicit ChunkWriter(std::vector<std::string>& out) : out_(out) {}

  void prose(const Unit& u) {
    if (!chunk_.empty() && chunk_.size() + u.text.size() > kProseChunk) {
      flush();
      chunk_ = last_.size() <= 300 ? last_ : utf8_suffix(last_, 200);
    }
    chunk_ += (chunk_.empty() ? "" : "\n") + u.text;
    last_ = u.text;
    fresh_ = true;
    body_ |= !u.margin;
  }
  // Before a table: the prose so far is a chunk of its own (margin text alone waits for the next one).
  void end_prose() {
    if (!body_) return;
    flush();
    last_.clear();
  }
  void rows(const std::string& context, const std::vector<std::string>& rows) {
    std::string chunk;
    auto emit = [&] {
      if (!chunk.empty()) out_.push_back(context.empty() ? chunk : context + "\n" + chunk);
      chunk.clear();
    };
    for (const std::string& r : rows) {
      if (!chunk.empty() && chunk.size() + r.size() > kRowChunk) emit();
      chunk += (chunk.empty() ? "" : "\n") + r;
    }
    emit();
  }
  void finish() {
    if (fresh_) flush();
  }

 private:
  void flush() {
    if (chunk_.find_first_not_of(" \n") != std::string::npos) out_.push_back(chunk_);
    chunk_.clear();
    fresh_ = body_ = false;
  }
  std::vector<std::string>& out_;
  std::string chunk_, last_;
  bool fresh_ = false;  // chunk_ holds text no chunk has yet
  bool body_ = false;   // ... and some of it is not margin text
};

std::string context_of(const TableCarry& t) {
  std::string out;
  for (const std::string* part : {&t.title, &t.header, &t.label})
    if (!part->empty()) out += (out.empty() ? "" : " · ") + *part;
  return out;
}

// Writes the table in units [from, end) as row chunks; `table` holds its title, header and label.
void write_table(const std::vector<Unit>& units, size_t from, size_t end, TableCarry& table, ChunkWriter& w) {
  std::vector<std::string> rows;
  bool seen_row = false;
  auto flush = [&] {
    w.rows(context_of(table), rows);
    rows.clear();
  };
  for (size_t k = from; k < end; ++k) {
    const Unit& u = units[k];
    if (u.margin) continue;
    const bool first = u.row && !std::exchange(seen_row, true);
    if (first && table.header.empty() && u.bold) {
      table.header = u.text;  // a table's first row, in bold: its header
    } else if (u.row) {
      if (u.text != table.header) rows.push_back(u.text);  // (a continued table repeats its header)
    } else if (u.lines <= 2 && k + 1 < end && units[k + 1].row) {
      flush();
      table.label = u.text;
    } else if (!rows.empty()) {
      rows.back() += " " + u.text;  // a cell that wrapped below its row
    } else {
      rows.push_back(u.text);
    }
  }
  flush();
}

// Whether a short line of one line stands between rows of units [from, end): the table has group labels.
bool has_labels(const std::vector<Unit>& units, size_t from, size_t end) {
  for (size_t k = from + 1; k + 1 < end; ++k)
    if (short_line(units[k]) && units[k].lines == 1 && units[k + 1].row) return true;
  return false;
}

// The title of the table in units [first, end): the short line right above its rows ("Key resources
// table", "Table 2. Primers"). When the table has group labels and no header (its first row not bold),
// a label stands above its first rows too, and the title is the line above that.
TableCarry title_and_label(const std::vector<Unit>& units, size_t first, size_t end) {
  std::vector<const Unit*> above;
  for (size_t p = first; p-- > 0 && above.size() < 2;)
    if (!units[p].margin) above.push_back(&units[p]);
  TableCarry t;
  auto titled = [](const Unit* u) { return !u->row && u->text.size() <= 200; };
  if (above.size() == 2 && !units[first].bold && short_line(*above[0]) && above[0]->lines == 1 && titled(above[1]) &&
      has_labels(units, first, end)) {
    t.title = utf8_prefix(above[1]->text, kTitleChars);
    t.label = above[0]->text;
  } else if (!above.empty() && titled(above[0])) {
    t.title = utf8_prefix(above[0]->text, kTitleChars);
  }
  return t;
}

}  // namespace

std::string row_cells(const PdfPage& page, const PdfBlock& block) {
  const std::vector<std::string> lines = split_lines(block.text);
  std::string out;
  for (const Cell& c : block_cells(page, block)) {
    std::string cell;
    for (size_t i : c.lines)
      if (i < lines.size() && lines[i].find_first_not_of(' ') != std::string::npos)
        cell += (cell.empty() ? "" : " ") + trim(lines[i]);
    if (!cell.empty()) out += (out.empty() ? "" : " | ") + cell;
  }
  return out;
}

std::vector<std::string> block_rows(const PdfPage& page, const PdfBlock& block) {
  const std::vector<Cell> cells = block_cells(page, block);
  const std::vector<std::string> lines = split_lines(block.text);
  // The bands: the first cell's lines. Every line of every cell must sit in one band, and every band
  // hold a line of every cell; else the block is one row whose cells wrapped.
  const size_t bands = cells.empty() ? 0 : cells[0].lines.size();
  std::vector<std::vector<std::string>> rows(bands, std::vector<std::string>(cells.size()));
  bool stacked = cells.size() >= 3 && bands >= 2;
  for (size_t c = 0; stacked && c < cells.size(); ++c) {
    std::vector<size_t> held(bands, 0);
    for (size_t i : cells[c].lines) {
      const PdfLine& l = block.lines[i];
      size_t band = bands;
      for (size_t k = 0; k < bands; ++k) {
        const PdfLine& key = block.lines[cells[0].lines[k]];
        if (same_height(l.y0, l.y1, key.y0, key.y1)) band = band == bands ? k : bands + 1;
      }
      if (band >= bands || i >= lines.size()) {
        stacked = false;
        break;
      }
      ++held[band];
      std::string& cell = rows[band][c];
      cell += (cell.empty() ? "" : " ") + trim(lines[i]);
    }
    stacked = stacked && std::count(held.begin(), held.end(), 0) == 0;
  }
  if (!stacked) return {row_cells(page, block)};
  std::vector<std::string> out;
  for (auto& row : rows) {
    std::string text;
    for (auto& cell : row) text += (text.empty() ? "" : " | ") + cell;
    out.push_back(text);
  }
  return out;
}

std::string page_text(const PdfPage& page) {
  std::string out;
  for (const Unit& u : page_units(page)) out += (out.empty() ? "" : "\n\n") + u.printed;
  return out;
}

std::vector<std::string> page_chunks(const PdfPage& page, TableCarry& carry) {
  std::vector<std::string> out;
  ChunkWriter writer(out);
  const std::vector<Unit> units = page_units(page);
  bool body_seen = false;    // a table continued from the previous page is the page's first body text
  bool open_at_end = false;  // the page ends in a table (margins aside)
  TableCarry table;
  for (size_t k = 0; k < units.size();) {
    const Unit& u = units[k];
    const bool continues = carry.open && !body_seen;
    // A table starts at a row; one continued from the previous page may start at its group label.
    const bool starts = !u.margin && (u.row || (continues && short_line(u)));
    const size_t end = starts ? table_end(units, k, continues ? 1 : kMinRows) : k;
    if (end == k) {
      writer.prose(u);
      if (!u.margin) body_seen = true, open_at_end = false;
      ++k;
      continue;
    }
    writer.end_prose();
    table = continues ? carry : title_and_label(units, k, end);
    write_table(units, k, end, table, writer);
    body_seen = true;
    open_at_end = true;
    table.open = true;
    carry = table;
    k = end;
  }
  if (body_seen && !open_at_end) carry = {};  // (a page without body text keeps a table open)
  writer.finish();
  return out;
}

}  // namespace bioagent
