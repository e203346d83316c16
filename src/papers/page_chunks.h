// How a page's text is cut into the chunks the library searches. Prose: whole paragraphs up to
// ~1,000 characters, the last paragraph (or its last 200 characters) repeated at the start of the next
// chunk. A table laid out as rows (cells side by side on one line: key-resources tables, primer lists,
// most tables without rules) is chunked by rows instead: a few rows per chunk, each chunk led by what a
// reader would need to read those rows — the table's title, its header row and the group label above
// the rows ("Key resource table · REAGENT or RESOURCE | SOURCE | IDENTIFIER · Deposited Data"). A
// table that runs on to the next page keeps its title, header and label there.
#pragma once

#include <string>
#include <vector>

#include "papers/pdf_layout.h"

namespace bioagent {

// What a table open at the end of one page hands to the next.
struct TableCarry {
  bool open = false;
  std::string title, header, label;
};

// The chunk texts of `page`, in reading order. `carry` is read (a table continued from the previous
// page) and updated (a table still open at this page's end).
std::vector<std::string> page_chunks(const PdfPage& page, TableCarry& carry);

// A page's text as stored: its text blocks in reading order, a blank line between them; a row of a table
// (see page_chunks) is one line of cells joined by " | ", not one cell per line.
std::string page_text(const PdfPage& page);

// The cells of a table row held in one block, left to right, joined by " | ": lines whose horizontal
// ranges overlap are one cell, read top to bottom and joined by a space. A paragraph is one cell;
// line numbers in the page's side margins are left out.
std::string row_cells(const PdfPage& page, const PdfBlock& block);

// The rows a block holds: one (row_cells) unless its cells, three or more, stack several rows on the same
// baselines (a table printed without space between its rows, so that the extractor made one block of
// them): then a row per baseline of the first cell, each cell's lines on that baseline joined left to
// right. A cell that wrapped while the others did not keeps the block one row.
std::vector<std::string> block_rows(const PdfPage& page, const PdfBlock& block);

}  // namespace bioagent
